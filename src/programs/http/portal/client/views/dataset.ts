import type { Column, Dataset, DatasetSummary, LineageEdge } from "../../../../../domain/Catalog.js"
import type { Glossary } from "../../../../../domain/Compliance.js"
import { api } from "../api.js"
import { datasetHref, h } from "../dom.js"
import { graphLegend, type GraphNode, lineageGraph, nameOfId } from "../graph.js"
import {
  classBadge,
  classOrder,
  type ClassValue,
  cli,
  command,
  confidence,
  copyButton,
  empty,
  expandableRow,
  facts,
  fmtDate,
  fmtNum,
  humanAct,
  originBadge,
  pageHeader,
  ph,
  plural,
  section,
  table,
  timeAgo
} from "../ui.js"

const flagCell = (c: Column): HTMLElement => {
  const k = c.classification
  return h(
    "td",
    { class: "flag" },
    classBadge(k.value),
    k.category && k.value !== "not" ? h("div", { class: "small muted" }, k.category) : null
  )
}

const overrideCell = (c: Column): HTMLElement => {
  const k = c.classification
  if (!k.overridden) return h("td", { class: "muted small" }, "scan")
  return h(
    "td",
    { class: "override" },
    h("span", { class: "badge human" }, h("span", { "aria-hidden": "true" }, "✎"), " Human override"),
    h("div", { class: "small" }, "by ", h("strong", null, k.by ?? "unknown"), k.at ? [" · ", timeAgo(k.at)] : null),
    k.drift
      ? h(
        "div",
        { class: "drift", role: "note" },
        h("span", { "aria-hidden": "true" }, "⚠ "),
        "Drift: the latest scan says ",
        classBadge(k.machine.value),
        ` (${k.machine.rule}, ${Math.round(k.machine.confidence * 100)}%)`
      )
      : h("div", { class: "small muted" }, "the scan agrees")
  )
}

const ruleCell = (c: Column): HTMLElement => {
  const k = c.classification
  const m = k.machine
  return h(
    "td",
    { class: "rule" },
    h("code", null, k.rule),
    h("div", { class: "small muted" }, k.method),
    m.evidence.length > 0 || k.overridden
      ? h(
        "details",
        { class: "why" },
        h("summary", null, "Evidence"),
        h(
          "div",
          { class: "small" },
          k.overridden
            ? h(
              "p",
              null,
              "Scan verdict: ",
              classBadge(m.value),
              " ",
              h("code", null, m.rule),
              ` · ${Math.round(m.confidence * 100)}% · ${m.method}`
            )
            : null,
          m.evidence.length > 0
            ? h("ul", null, m.evidence.map((e) => h("li", null, e)))
            : null
        )
      )
      : null
  )
}

const correction = (c: Column): HTMLElement => {
  const k = c.classification
  const others = (["personal", "special", "criminal", "not"] as const).filter((v) => v !== k.value)
  return h(
    "div",
    { class: "correct-body" },
    h(
      "p",
      { class: "small" },
      "Correcting ",
      h("code", null, c.id),
      " is a human act, made in a terminal. It is attributed to ",
      h("code", null, "CATALOG_SIGNER_EMAIL"),
      " (or your OS user) and survives re-scans. Set it to another class:"
    ),
    h("div", { class: "cmd-grid" }, others.map((v) => command(cli("classify", "set", c.id, v)))),
    k.overridden
      ? [h("p", { class: "small" }, "Or return to the scan's own verdict:"), command(cli("classify", "clear", c.id))]
      : null
  )
}

const headings = ["#", "Column", "Type", "Personal-data flag", "Rule / method", "Confidence", "Set by", "Human act"]

const columnsTable = (d: Dataset): HTMLElement =>
  table(
    `Columns of ${d.id}`,
    headings,
    d.columns.flatMap((c) => {
      const more = expandableRow("Correct…", headings.length, correction(c))
      more.row.dataset["for"] = c.id
      const row = h(
        "tr",
        {
          class: `col-row cls-row-${c.classification.value}${c.classification.overridden ? " overridden" : ""}${
            c.classification.drift ? " drifted" : ""
          }`,
          "data-column": c.id
        },
        h("td", { class: "num muted" }, String(c.position)),
        h(
          "th",
          { scope: "row", class: "colname" },
          h("span", { class: "mono" }, c.name),
          c.primaryKey ? h("span", { class: "badge neutral", title: "primary key" }, "PK") : null,
          c.references
            ? h(
              "div",
              { class: "small" },
              "→ ",
              h("a", { href: datasetHref(c.references.split("/").slice(0, 3).join("/")), class: "mono" }, c.references)
            )
            : null,
          c.comment ? h("div", { class: "small muted comment" }, c.comment) : null
        ),
        h("td", { class: "mono small" }, c.type, c.nullable ? null : h("span", { class: "muted" }, " not null")),
        flagCell(c),
        ruleCell(c),
        h("td", null, confidence(c.classification.confidence)),
        overrideCell(c),
        h("td", { class: "act-cell" }, more.button)
      )
      return [row, more.row]
    }),
    "columns-table stack"
  )

/** The dataset with its direct neighbours as a small graph. */
const neighbourhood = (d: Dataset, summaries: ReadonlyArray<DatasetSummary>): HTMLElement => {
  const edges: Array<LineageEdge> = [...d.lineage.upstream, ...d.lineage.downstream]
  if (edges.length === 0) {
    return empty(
      "No lineage recorded for this dataset.",
      "If data flows into or out of it, a human can assert the flow:",
      cli("lineage", "add", ph("<fromDatasetId>"), d.id)
    )
  }
  const byId = new Map(summaries.map((x) => [x.id, x]))
  const ids = new Set<string>([d.id, ...edges.flatMap((e) => [e.from, e.to])])
  const nodes: Array<GraphNode> = [...ids].map((id) => {
    const x = byId.get(id)
    return x
      ? {
        id,
        name: x.name,
        highest: x.highest,
        kind: x.kind,
        flagged: x.classes.personal + x.classes.special + x.classes.criminal
      }
      : { id, name: nameOfId(id), highest: null, kind: null, flagged: 0 }
  })
  const svg = lineageGraph(nodes, edges, {
    focus: d.id,
    label: `Lineage of ${d.id}: ${d.lineage.upstream.length} upstream, ${d.lineage.downstream.length} downstream`
  })
  const edgeRows = edges.map((e) =>
    h(
      "tr",
      null,
      h("td", null, e.from === d.id ? "downstream" : "upstream"),
      h(
        "td",
        null,
        h("a", { href: datasetHref(e.from === d.id ? e.to : e.from), class: "mono" }, e.from === d.id ? e.to : e.from),
        e.resolvable ? null : h("span", { class: "badge neutral" }, "not scanned")
      ),
      h("td", null, originBadge(e.origin), e.by ? h("span", { class: "small muted" }, ` by ${e.by}`) : null),
      h(
        "td",
        null,
        e.origin === "user"
          ? command(cli("lineage", "remove", e.id))
          : h("span", { class: "muted small" }, "regenerated by scans")
      )
    )
  )
  return h(
    "div",
    null,
    h("div", { class: "graph-wrap small-graph" }, svg),
    graphLegend({ external: nodes.some((n) => n.kind === null) }),
    table("Lineage edges", ["Direction", "Dataset", "Origin", "Human act"], edgeRows),
    h(
      "p",
      { class: "small muted" },
      "To assert another flow: ",
      h("code", null, cli("lineage", "add", ph("<fromDatasetId>"), ph("<toDatasetId>")))
    )
  )
}

export const datasetView = async (id: string): Promise<HTMLElement> => {
  const [d, list, glossary] = await Promise.all([
    api.dataset(id),
    api.datasets(),
    api.glossary().catch(() => null as Glossary | null)
  ])
  const counts: Record<ClassValue, number> = d.classes
  const flagged = counts.personal + counts.special + counts.criminal
  const overrides = d.columns.filter((c) => c.classification.overridden)
  const drift = overrides.filter((c) => c.classification.drift)
  const terms = glossary?.terms.filter((t) => t.datasets.includes(d.id)) ?? []
  const idCode = h("code", { class: "ds-id-code" }, d.id)
  const highest = classOrder.find((c) => counts[c] > 0) ?? "not"

  const page = h(
    "div",
    { class: "page dataset" },
    h(
      "nav",
      { class: "crumbs", "aria-label": "Breadcrumb" },
      h("a", { href: "#/datasets" }, "Datasets"),
      h("span", { "aria-hidden": "true" }, " › "),
      h("a", { href: `#/datasets?source=${encodeURIComponent(d.source)}` }, d.source),
      h("span", { "aria-hidden": "true" }, " › "),
      h("span", null, d.schema)
    ),
    pageHeader(
      d.name,
      null,
      h(
        "div",
        { class: "ds-head" },
        h("span", { class: "badge neutral" }, d.kind),
        classBadge(highest),
        idCode,
        copyButton(d.id, idCode, "Copy id")
      )
    )
  )

  page.appendChild(h(
    "div",
    { class: "grid2 top" },
    section(
      "About",
      facts([
        ["Source / schema", h("span", { class: "mono" }, `${d.source} / ${d.schema}`)],
        [
          "Rows",
          h(
            "span",
            null,
            d.rowCount.display,
            d.rowCount.estimate === null
              ? null
              : h("div", { class: "small muted" }, `planner estimate from ${d.rowCount.source}; never a count`)
          )
        ],
        ["Columns", `${fmtNum(d.columns.length)} (${fmtNum(flagged)} flagged as personal data)`],
        ["Owners", d.owners.length > 0 ? d.owners.join(", ") : h("span", { class: "muted" }, "none recorded")],
        ["First seen", fmtDate(d.firstSeenAt)],
        [
          "Last scanned",
          h("span", null, timeAgo(d.scannedAt), h("span", { class: "muted" }, ` (${fmtDate(d.scannedAt)})`))
        ],
        ...(d.comment ? [["Comment", d.comment] as const] : [])
      ])
    ),
    section(
      "Personal-data flags",
      h(
        "ul",
        { class: "classbar-legend" },
        classOrder.map((c) => h("li", null, classBadge(c), h("span", { class: "num" }, fmtNum(counts[c]))))
      ),
      overrides.length > 0
        ? h(
          "p",
          { class: "small" },
          h("span", { class: "badge human" }, "✎ ", plural(overrides.length, "human override")),
          drift.length > 0
            ? [
              " ",
              h("span", { class: "badge drift-badge" }, "⚠ ", `${drift.length} drifted`),
              " — the latest scan disagrees; review them below."
            ]
            : null
        )
        : h(
          "p",
          { class: "small muted" },
          "Every flag comes from the scan's classifier (metadata only: names, types, comments)."
        ),
      terms.length > 0
        ? h(
          "div",
          null,
          h("h3", null, "Glossary"),
          h(
            "ul",
            { class: "terms-inline" },
            terms.map((t) =>
              h(
                "li",
                null,
                h("a", { href: `#/glossary?term=${encodeURIComponent(t.term)}` }, t.term),
                h("span", { class: "muted" }, ` — ${t.definition}`)
              )
            )
          )
        )
        : null
    )
  ))

  page.appendChild(
    section(
      `Columns (${d.columns.length})`,
      d.columns.length === 0 ? h("p", { class: "muted" }, "No columns.") : columnsTable(d),
      humanAct("Correcting a flag", [
        "Flags are the classifier's verdict with the rule that matched and its confidence. If one is wrong, a human corrects it in a terminal; use ",
        h("em", null, "Correct…"),
        " on a row for the exact command."
      ], cli("classify", "set", ph("<columnId>"), ph("personal|special|criminal|not")))
    )
  )

  page.appendChild(section("Lineage", neighbourhood(d, list.datasets)))
  return page
}
