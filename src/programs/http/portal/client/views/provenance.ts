import type { Provenance } from "../../../../../domain/Compliance.js"
import { api } from "../api.js"
import { h } from "../dom.js"
import {
  draftStamp,
  facts,
  fmtDate,
  fmtNum,
  pageHeader,
  pct,
  section,
  stalenessBadge,
  stalenessInfo,
  timeAgo
} from "../ui.js"
import { sourcesTable, trustStrip } from "./overview.js"

const methodLabel: Record<string, string> = {
  human: "human override",
  "name-phrase": "phrase in the column name",
  "name-token": "word in the column name",
  comment: "column comment",
  "sql-type": "column type",
  "primary-key": "key of the table",
  "foreign-key": "reference to another table",
  "table-context": "table context",
  default: "no personal-data signal"
}

const methodBars = (m: Provenance["classifierMethods"]): HTMLElement => {
  const entries = Object.entries(m).sort((a, b) => b[1] - a[1])
  const total = entries.reduce((a, [, n]) => a + n, 0)
  if (entries.length === 0) return h("p", { class: "muted" }, "No classified columns yet.")
  const max = Math.max(...entries.map(([, n]) => n))
  return h(
    "ul",
    { class: "bars" },
    entries.map(([k, n]) => {
      const bar = h("span", { class: `bar${k === "human" ? " human" : ""}` })
      bar.style.width = `${Math.max(2, (n / max) * 100)}%`
      return h(
        "li",
        null,
        h(
          "span",
          { class: "bar-label" },
          h("code", null, k),
          methodLabel[k] ? h("span", { class: "muted small" }, ` ${methodLabel[k]}`) : null
        ),
        h("span", { class: "bar-track", "aria-hidden": "true" }, bar),
        h("span", { class: "bar-num" }, `${fmtNum(n)}`, h("span", { class: "muted" }, ` · ${pct(n, total)}`))
      )
    })
  )
}

export const provenanceView = async (): Promise<HTMLElement> => {
  const p = await api.provenance()
  const page = h(
    "div",
    { class: "page provenance" },
    pageHeader(
      "Provenance",
      "How far to trust what this catalog says: which sources were reached and how fresh each one is, how columns were classified, and where the change-log stands. Agents are told to check this before relying on an answer."
    ),
    draftStamp(p.stamp),
    trustStrip(p)
  )

  page.appendChild(h(
    "div",
    { class: "grid2 top" },
    section(
      "Record",
      facts([
        [
          "Seal",
          h(
            "span",
            null,
            h("code", null, p.seal),
            h("span", { class: "muted small" }, " (nothing in the free build is signed)")
          )
        ],
        [
          "Last scan",
          h(
            "span",
            null,
            timeAgo(p.lastScanAt),
            p.lastScanAt ? h("span", { class: "muted" }, ` (${fmtDate(p.lastScanAt)})`) : null
          )
        ],
        [
          "Change-log head",
          p.changeLogHead
            ? h(
              "a",
              { href: "#/changes?since=0" },
              `#${p.changeLogHead.seq}`,
              h("span", { class: "muted" }, ` · ${fmtDate(p.changeLogHead.at)}`)
            )
            : h("span", { class: "muted" }, "empty")
        ],
        ["Generated", fmtDate(p.generatedAt)]
      ])
    ),
    section(
      "Classifier methods",
      h(
        "p",
        { class: "small muted" },
        "How the current flags were reached, per column. Classification uses metadata only: names, types, comments and table context."
      ),
      methodBars(p.classifierMethods)
    )
  ))

  page.appendChild(section("Sources", sourcesTable(p)))

  const detail = p.sources.filter((x) => x.serverVersion !== null || x.lastAttemptAt !== null || x.error !== null)
  if (detail.length > 0) {
    page.appendChild(
      section(
        "Source details",
        h(
          "div",
          { class: "source-cards" },
          p.sources.map((x) =>
            h(
              "div",
              { class: "source-card" },
              h("h3", null, h("span", { class: "mono" }, x.id), " ", stalenessBadge(x.staleness)),
              facts([
                ["Kind / driver", `${x.kind} / ${x.driver}`],
                [
                  "Status",
                  x.error
                    ? h("span", null, x.status, " — ", h("code", null, x.error.code), " ", x.error.message)
                    : x.status
                ],
                ["Server", x.serverVersion ?? h("span", { class: "muted" }, "unknown")],
                ["Last attempt", fmtDate(x.lastAttemptAt)],
                ["Last scanned", fmtDate(x.lastScannedAt)],
                ["Freshness", stalenessInfo[x.staleness].help],
                ...(x.region ? [["Region", x.region] as const] : []),
                ...(x.userAuthored
                  ? [["Connector", "user-authored: best-effort, outside the freshness guarantee"] as const]
                  : [])
              ])
            )
          )
        )
      )
    )
  }
  return page
}
