import type { ChangeList, DatasetSummary } from "../../../../../domain/Catalog.js"
import type { Provenance, RopaDraft } from "../../../../../domain/Compliance.js"
import { api } from "../api.js"
import { datasetHref, h } from "../dom.js"
import {
  classBadge,
  classInfo,
  classOrder,
  classRank,
  type ClassValue,
  cli,
  command,
  empty,
  fmtDate,
  fmtNum,
  humanAct,
  pageHeader,
  pct,
  plural,
  section,
  stalenessBadge,
  table,
  timeAgo,
  worstTier
} from "../ui.js"
import { changeItem } from "./changes.js"

const stat = (label: string, value: string, sub: Node | string | null, cls = "", href?: string): HTMLElement => {
  const inner = [
    h("div", { class: "stat-label" }, label),
    h("div", { class: "stat-value" }, value),
    sub ? h("div", { class: "stat-sub" }, sub) : null
  ]
  return href ? h("a", { class: `stat ${cls}`, href }, inner) : h("div", { class: `stat ${cls}` }, inner)
}

/** A stacked bar of the columns per class, each segment labelled in the legend below. */
const classBar = (counts: Record<ClassValue, number>): HTMLElement => {
  const total = classOrder.reduce((a, c) => a + counts[c], 0)
  const bar = h("div", {
    class: "classbar",
    role: "img",
    "aria-label": classOrder.map((c) => `${classInfo[c].label}: ${counts[c]}`).join(", ")
  })
  for (const c of classOrder) {
    if (counts[c] === 0) continue
    const seg = h("span", {
      class: `seg cls-${c}`,
      title: `${classInfo[c].label}: ${counts[c]} columns (${pct(counts[c], total)})`
    })
    seg.style.flexGrow = String(counts[c])
    bar.appendChild(seg)
  }
  return h(
    "div",
    null,
    bar,
    h(
      "ul",
      { class: "classbar-legend" },
      classOrder.map((c) =>
        h(
          "li",
          null,
          classBadge(c),
          h("span", { class: "num" }, fmtNum(counts[c])),
          h("span", { class: "muted" }, pct(counts[c], total))
        )
      )
    )
  )
}

const flaggedOf = (d: DatasetSummary): number => d.classes.personal + d.classes.special + d.classes.criminal

export const overviewView = async (): Promise<HTMLElement> => {
  const [list, prov, ropa, changes] = await Promise.all([
    api.datasets(),
    api.provenance(),
    api.compliance().catch(() => null as RopaDraft | null),
    api.changes("0", 6).catch(() => null as ChangeList | null)
  ])
  const ds = list.datasets
  const counts: Record<ClassValue, number> = { personal: 0, special: 0, criminal: 0, not: 0 }
  for (const d of ds) for (const c of classOrder) counts[c] += d.classes[c]
  const columns = classOrder.reduce((a, c) => a + counts[c], 0)
  const flagged = counts.personal + counts.special + counts.criminal
  const withPersonal = ds.filter((d) => flaggedOf(d) > 0).length

  const page = h(
    "div",
    { class: "page overview" },
    pageHeader(
      "Overview",
      "Where personal data lives on the sources this machine scans, read from metadata only (names, types, structure; never a row value). This page only reads: where a human act is needed, it shows the command to run."
    )
  )

  if (ds.length === 0 && prov.lastScanAt === null) {
    page.appendChild(
      section(
        "Get started",
        empty(
          "The catalog is empty.",
          "Add a source (the connection string stays in an environment variable; only its name goes to catalog.yml), then scan:",
          "catalog add postgres --ref DATABASE_URL",
          "catalog start"
        )
      )
    )
    return page
  }

  page.appendChild(trustStrip(prov))

  page.appendChild(
    h(
      "div",
      { class: "stats" },
      stat("Datasets", fmtNum(ds.length), `${plural(withPersonal, "holds", "hold")} personal data`, "", "#/datasets"),
      stat("Columns", fmtNum(columns), `${plural(prov.sources.length, "source")}`),
      stat("Personal-data columns", fmtNum(flagged), `${pct(flagged, columns)} of all columns`, "cls-personal"),
      stat(
        "Special category (Art. 9)",
        fmtNum(counts.special),
        counts.special > 0 ? "health, beliefs, biometrics…" : "none found",
        "cls-special",
        "#/datasets?class=special"
      ),
      stat(
        "Criminal offence (Art. 10)",
        fmtNum(counts.criminal),
        counts.criminal > 0 ? "offence data" : "none found",
        "cls-criminal",
        "#/datasets?class=criminal"
      ),
      ropa
        ? stat(
          "Open legal calls",
          fmtNum(ropa.openLegalCalls),
          `${plural(ropa.activities.length, "RoPA activity", "RoPA activities")}`,
          ropa.openLegalCalls > 0 ? "warn" : "",
          "#/ropa"
        )
        : null
    )
  )

  page.appendChild(section("Columns by personal-data class", classBar(counts)))

  const grid = h("div", { class: "grid2" })
  page.appendChild(grid)

  const top = [...ds].filter((d) => flaggedOf(d) > 0).sort((a, b) =>
    classRank[b.highest] - classRank[a.highest] || flaggedOf(b) - flaggedOf(a) || a.id.localeCompare(b.id)
  ).slice(0, 8)
  grid.appendChild(section(
    "Where the most sensitive data is",
    top.length === 0
      ? empty(
        "No column is flagged as personal data.",
        "If that is wrong, correct a column's flag:",
        "catalog classify set <columnId> personal"
      )
      : h(
        "ol",
        { class: "ranked" },
        top.map((d) =>
          h(
            "li",
            null,
            h(
              "a",
              { href: datasetHref(d.id) },
              h("span", { class: "ds-name" }, d.name),
              h("span", { class: "ds-id" }, d.id)
            ),
            h(
              "span",
              { class: "ranked-meta" },
              classBadge(d.highest),
              h("span", { class: "muted" }, `${flaggedOf(d)} of ${d.columnCount} columns flagged`)
            )
          )
        )
      ),
    h("p", { class: "more" }, h("a", { href: "#/datasets" }, `All ${plural(ds.length, "dataset")} →`))
  ))

  grid.appendChild(section(
    "Latest changes",
    changes === null || changes.changes.length === 0
      ? h("p", { class: "muted" }, "No changes recorded yet.")
      : h("ol", { class: "changes compact" }, changes.changes.map((c) => changeItem(c))),
    h("p", { class: "more" }, h("a", { href: "#/changes" }, "The change-log →"))
  ))

  page.appendChild(
    section(
      "Sources",
      sourcesTable(prov),
      h("p", { class: "more" }, h("a", { href: "#/provenance" }, "Provenance and classifier methods →"))
    )
  )
  return page
}

/** Coverage, last scan and the worst staleness: the "how far can I trust this" line. */
export const trustStrip = (prov: Provenance): HTMLElement => {
  const worst = worstTier(prov.sources.map((x) => x.staleness))
  const needsScan = worst === "stale-loud" || worst === "never" || worst === "stale-warn"
  const strip = h(
    "section",
    { class: `trust ${prov.coverage.complete ? "ok" : "bad"}`, "aria-label": "Coverage and freshness" },
    h(
      "div",
      { class: "trust-main" },
      h(
        "span",
        { class: `badge ${prov.coverage.complete ? "ok" : "bad"}` },
        h("span", { class: "glyph", "aria-hidden": "true" }, prov.coverage.complete ? "✓" : "✕"),
        prov.coverage.complete ? " Coverage complete" : " Coverage incomplete"
      ),
      h("span", { class: "trust-line" }, prov.coverage.line)
    ),
    h(
      "div",
      { class: "trust-side" },
      h(
        "span",
        null,
        "Last scan ",
        prov.lastScanAt ? timeAgo(prov.lastScanAt) : h("strong", null, "never"),
        prov.lastScanAt ? h("span", { class: "muted" }, ` (${fmtDate(prov.lastScanAt)})`) : null
      ),
      worst ? stalenessBadge(worst) : null
    )
  )
  if (!prov.coverage.complete || needsScan) {
    const acts: Array<string> = prov.coverage.missing.map((id) => cli("test", id))
    acts.push("catalog start")
    strip.appendChild(humanAct(
      prov.coverage.complete ? "Re-scan to refresh the map" : "Reach the missing sources, then re-scan",
      prov.coverage.complete
        ? "Some sources were last scanned a while ago. Run in a terminal:"
        : "Check each missing source's connection, then scan again. Run in a terminal:",
      ...acts
    ))
  }
  return strip
}

export const sourcesTable = (prov: Provenance): HTMLElement =>
  prov.sources.length === 0
    ? empty("No sources configured.", "Add one:", "catalog add postgres --ref DATABASE_URL")
    : table(
      "Sources",
      ["Source", "Kind", "Reached", "Freshness", "Last scanned", "Datasets"],
      prov.sources.map((x) =>
        h(
          "tr",
          null,
          h(
            "th",
            { scope: "row" },
            h("span", { class: "mono" }, x.id),
            x.label ? h("div", { class: "muted small" }, x.label) : null,
            x.userAuthored ? h("div", null, h("span", { class: "badge neutral" }, "user-authored")) : null
          ),
          h("td", null, x.kind, x.region ? h("div", { class: "muted small" }, x.region) : null),
          h(
            "td",
            null,
            x.reachable
              ? h("span", { class: "badge ok" }, h("span", { class: "glyph", "aria-hidden": "true" }, "✓"), " reached")
              : h(
                "span",
                null,
                h(
                  "span",
                  { class: "badge bad" },
                  h("span", { class: "glyph", "aria-hidden": "true" }, "✕"),
                  ` ${x.status}`
                ),
                x.error ? h("div", { class: "small" }, h("code", null, x.error.code), " ", x.error.message) : null,
                command(cli("test", x.id))
              )
          ),
          h("td", null, stalenessBadge(x.staleness)),
          h("td", null, timeAgo(x.lastScannedAt)),
          h("td", { class: "num" }, fmtNum(x.datasets))
        )
      )
    )
