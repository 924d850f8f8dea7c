import type { DoraRegister, DoraState } from "../../../../../domain/Compliance.js"
import { api } from "../api.js"
import { h } from "../dom.js"
import {
  cli,
  codeBlock,
  draftStamp,
  empty,
  facts,
  humanAct,
  pageHeader,
  ph,
  pill,
  plural,
  section,
  table
} from "../ui.js"

const missing = () => h("span", { class: "missing" }, "missing")

const registerTable = (reg: DoraRegister, t: DoraRegister["tables"][number]): HTMLElement => {
  const cols = [...new Set(t.rows.flatMap((r) => Object.keys(r.cells)))]
  const bad = new Set(
    reg.validation.violations.filter((v) => v.table === t.code).map((v) => `${v.rowKey ?? ""}\u0000${v.column ?? ""}`)
  )
  return h(
    "section",
    { class: "card", "aria-labelledby": `t-${t.code}` },
    h("h2", { id: `t-${t.code}` }, h("code", null, t.code), " ", t.name),
    t.rows.length === 0
      ? empty(
        "No rows yet.",
        "Fill it from a CSV (header row plus data rows) or cell by cell:",
        cli("dora", "import", t.code, ph("<file.csv>"))
      )
      : table(
        `${t.code} ${t.name}`,
        ["Row key", ...cols],
        t.rows.map((r) =>
          h(
            "tr",
            null,
            h("th", { scope: "row", class: "mono" }, r.key),
            cols.map((c) => {
              const flagged = bad.has(`${r.key}\u0000${c}`)
              return h(
                "td",
                { class: flagged ? "invalid" : null, title: flagged ? "fails validation" : null },
                r.cells[c] ?? "",
                flagged ? h("span", { class: "glyph", "aria-label": "fails validation" }, " ✕") : null
              )
            })
          )
        )
      )
  )
}

export const doraView = async (): Promise<HTMLElement> => {
  const d: DoraState = await api.dora()
  const page = h(
    "div",
    { class: "page dora" },
    pageHeader(
      "DORA register",
      "The DORA (EU 2022/2554) Register of Information draft, for financial entities that declared DORA scope."
    )
  )
  if (!d.inScope || d.register === null) {
    page.appendChild(
      section(
        "Not in scope",
        h(
          "p",
          null,
          "This organisation has not declared DORA scope, so there is no register (",
          h("code", null, "inScope: false"),
          ", ",
          h("code", null, "register: null"),
          "). If it is a financial entity under DORA, declare it in ",
          h("code", null, "catalog.yml"),
          ":"
        ),
        codeBlock(
          "dora:\n  inScope: true\n  entity:\n    lei: 5299000J2N45DDNE4Y28\n    name: Example Bank AG\n    country: DE\n    currency: EUR\n",
          "catalog.yml DORA block"
        )
      )
    )
    return page
  }
  const reg = d.register
  page.appendChild(draftStamp())
  const v = reg.validation
  page.appendChild(h(
    "div",
    { class: "grid2 top" },
    section(
      "Reporting entity",
      facts([
        ["LEI", reg.entity.lei ? h("span", { class: "mono" }, reg.entity.lei) : missing()],
        ["Name", reg.entity.name ?? missing()],
        ["Country", reg.entity.country ?? missing()],
        ["Currency", reg.entity.currency ?? missing()]
      ])
    ),
    section(
      "Validation",
      v.valid
        ? h(
          "p",
          null,
          pill([h("span", { class: "glyph", "aria-hidden": "true" }, "✓"), " Valid"], "ok"),
          " The register validates; it can be exported as xBRL-CSV."
        )
        : h(
          "div",
          null,
          h(
            "p",
            null,
            pill([h("span", { class: "glyph", "aria-hidden": "true" }, "✕"), " Not submittable"], "bad"),
            ` ${
              v.violations.length > 0 ? plural(v.violations.length, "problem") : "The register is not complete yet"
            }; no xBRL-CSV is produced until it validates.`
          ),
          v.violations.length > 0
            ? h(
              "ul",
              { class: "violations" },
              v.violations.slice(0, 50).map((x) =>
                h(
                  "li",
                  null,
                  h("code", null, [x.table, x.rowKey, x.column].filter((p) => p !== null).join(" / ")),
                  " ",
                  x.reason
                )
              )
            )
            : null
        )
    )
  ))

  if (reg.tables.length === 0) {
    page.appendChild(
      section(
        "Tables",
        empty(
          "No register table filled yet.",
          "Import a template table from CSV:",
          cli("dora", "import", ph("<tableCode>"), ph("<file.csv>"))
        )
      )
    )
  }
  for (const t of reg.tables) page.appendChild(registerTable(reg, t))

  page.appendChild(
    humanAct(
      "Filling and exporting the register",
      "The register is filled in a terminal, from CSV or one cell at a time, and exported only once it validates:",
      cli("dora", "import", ph("<tableCode>"), ph("<file.csv>")),
      cli("dora", "set", ph("<tableCode>"), ph("<rowKey>"), ph("<field>"), ph("<value>")),
      "catalog dora export"
    )
  )
  return page
}
