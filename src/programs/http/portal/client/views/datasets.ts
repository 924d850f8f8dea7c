import type { DatasetSummary, SearchHit } from "../../../../../domain/Catalog.js"
import { api } from "../api.js"
import { datasetHref, h, replace, uid } from "../dom.js"
import {
  classBadge,
  classInfo,
  classOrder,
  classRank,
  type ClassValue,
  errorPanel,
  fmtNum,
  isClass,
  pageHeader,
  table
} from "../ui.js"

type Sort = "sensitivity" | "name" | "rows" | "columns"

const flaggedOf = (d: DatasetSummary): number => d.classes.personal + d.classes.special + d.classes.criminal

/** The per-class counts of one dataset as small labelled chips (zero counts left out). */
const classChips = (d: DatasetSummary): HTMLElement =>
  h(
    "span",
    { class: "chips" },
    classOrder.filter((c) => c !== "not" && d.classes[c] > 0).map((c) =>
      h(
        "span",
        {
          class: `chip cls-${c}`,
          title: `${d.classes[c]} ${classInfo[c].label} column${d.classes[c] === 1 ? "" : "s"}`
        },
        h("span", { "aria-hidden": "true" }, classInfo[c].glyph),
        ` ${d.classes[c]} ${classInfo[c].short.toLowerCase()}`
      )
    ),
    flaggedOf(d) === 0 ? h("span", { class: "muted" }, "none") : null
  )

const words = (q: string): Array<string> => q.toLowerCase().split(/\s+/).filter((w) => w.length > 0)

const hitItem = (hit: SearchHit): HTMLElement => {
  const href = hit.datasetId ? datasetHref(hit.datasetId) : "#/glossary"
  return h(
    "li",
    { class: "hit" },
    h(
      "div",
      { class: "hit-head" },
      h("span", { class: `badge kind hit-${hit.kind}` }, hit.kind),
      h("a", { href, class: "hit-title" }, hit.title),
      hit.classification ? classBadge(hit.classification) : null
    ),
    h("div", { class: "hit-why" }, hit.why),
    h("div", { class: "hit-snippet mono" }, hit.snippet)
  )
}

export const datasetsView = async (query: URLSearchParams): Promise<HTMLElement> => {
  const list = await api.datasets()
  const all = list.datasets
  let q = query.get("q") ?? ""
  const qClass = query.get("class") ?? ""
  let cls: ClassValue | "" = isClass(qClass) ? qClass : ""
  let source = query.get("source") ?? ""
  let sort: Sort = "sensitivity"

  const sources = [...new Set(all.map((d) => d.source))].sort()
  const filterId = uid("filter")
  const input = h("input", {
    id: filterId,
    type: "search",
    value: q,
    placeholder: "Dataset, column or term, e.g. email",
    autocomplete: "off",
    spellcheck: "false",
    "data-testid": "dataset-filter"
  })
  const sourceSel = h(
    "select",
    { "aria-label": "Source" },
    h("option", { value: "" }, "All sources"),
    sources.map((x) => h("option", { value: x, selected: x === source }, x))
  )
  const sortSel = h(
    "select",
    { "aria-label": "Sort by" },
    h("option", { value: "sensitivity" }, "Most sensitive first"),
    h("option", { value: "name" }, "Name"),
    h("option", { value: "rows" }, "Row estimate"),
    h("option", { value: "columns" }, "Columns")
  )
  const classBtns = (["", "criminal", "special", "personal", "not"] as const).map((c) =>
    h("button", {
      type: "button",
      class: `seg-btn${c ? ` cls-${c}` : ""}`,
      "aria-pressed": String(cls === c),
      "data-class": c
    }, c ? [h("span", { "aria-hidden": "true" }, classInfo[c].glyph), ` ${classInfo[c].short}`] : "All")
  )
  const count = h("p", { class: "muted count", role: "status" })
  const tableHost = h("div")
  const hitsHost = h("div", { "aria-live": "polite" })

  const page = h(
    "div",
    { class: "page datasets" },
    pageHeader(
      "Datasets",
      `Every table and view in the map, ${
        fmtNum(all.length)
      } in all. Filter by name, class or source; words also search column names, comments and glossary terms.`
    ),
    h(
      "div",
      { class: "filters card" },
      h("div", { class: "filter-main" }, h("label", { for: filterId }, "Search"), input),
      h(
        "div",
        { class: "filter-row" },
        h("div", { class: "segmented", role: "group", "aria-label": "Highest class" }, classBtns),
        sourceSel,
        sortSel
      )
    ),
    count,
    tableHost,
    hitsHost
  )

  const render = () => {
    const ws = words(q)
    const rows = all.filter((d) =>
      (cls === "" || d.highest === cls) &&
      (source === "" || d.source === source) &&
      ws.every((w) => d.id.toLowerCase().includes(w))
    )
    rows.sort((a, b) => {
      switch (sort) {
        case "name":
          return a.name.localeCompare(b.name) || a.id.localeCompare(b.id)
        case "rows":
          return (b.rowCount.estimate ?? -1) - (a.rowCount.estimate ?? -1)
        case "columns":
          return b.columnCount - a.columnCount
        default:
          return classRank[b.highest] - classRank[a.highest] || flaggedOf(b) - flaggedOf(a) || a.id.localeCompare(b.id)
      }
    })
    count.textContent = rows.length === all.length
      ? `${fmtNum(all.length)} datasets`
      : `${fmtNum(rows.length)} of ${fmtNum(all.length)} datasets match`
    replace(
      tableHost,
      rows.length === 0
        ? h(
          "div",
          { class: "empty" },
          h("p", { class: "empty-title" }, "No dataset name matches."),
          ws.length > 0 ? h("p", null, "Column and glossary matches, if any, are listed below.") : null
        )
        : table(
          "Datasets",
          ["Dataset", "Kind", "Rows", "Columns", "Personal-data columns", "Highest class"],
          rows.map((d) =>
            h(
              "tr",
              { "data-dataset": d.id },
              h(
                "th",
                { scope: "row" },
                h(
                  "a",
                  { href: datasetHref(d.id), class: "ds-link" },
                  h("span", { class: "ds-name" }, d.name),
                  h("span", { class: "ds-id" }, d.id)
                )
              ),
              h("td", null, d.kind),
              h("td", { class: "rows", title: `figure from ${d.rowCount.source}` }, d.rowCount.display),
              h("td", { class: "num" }, fmtNum(d.columnCount)),
              h("td", null, classChips(d)),
              h("td", null, classBadge(d.highest))
            )
          ),
          "datasets-table stack"
        )
    )
    const url = new URLSearchParams()
    if (q) url.set("q", q)
    if (cls) url.set("class", cls)
    if (source) url.set("source", source)
    const hash = `#/datasets${url.toString() ? `?${url.toString()}` : ""}`
    if (location.hash !== hash) history.replaceState(null, "", hash)
  }

  let timer = 0
  let seq = 0
  const searchDeep = () => {
    window.clearTimeout(timer)
    const mine = ++seq
    if (q.trim().length < 2) {
      replace(hitsHost)
      return
    }
    timer = window.setTimeout(() => {
      api.search(q.trim(), 30).then((res) => {
        if (mine !== seq) return
        const hits = res.hits.filter((x) => x.kind !== "dataset")
        replace(
          hitsHost,
          h(
            "section",
            { class: "card hits", "aria-labelledby": "hits-h" },
            h("h2", { id: "hits-h" }, `Columns and glossary terms matching “${res.q}”`),
            hits.length === 0
              ? h("p", { class: "muted" }, "No column or glossary term matches.")
              : h("ol", { class: "hits-list" }, hits.map(hitItem)),
            res.truncated ? h("p", { class: "muted" }, `Showing the best ${res.returned} of ${res.total} hits.`) : null
          )
        )
      }).catch((e: unknown) => {
        if (mine === seq) replace(hitsHost, errorPanel(e))
      })
    }, 220)
  }

  input.addEventListener("input", () => {
    q = input.value
    render()
    searchDeep()
  })
  sourceSel.addEventListener("change", () => {
    source = sourceSel.value
    render()
  })
  sortSel.addEventListener("change", () => {
    sort = sortSel.value as Sort
    render()
  })
  for (const b of classBtns) {
    b.addEventListener("click", () => {
      const v = b.dataset["class"] ?? ""
      cls = isClass(v) ? v : ""
      for (const o of classBtns) o.setAttribute("aria-pressed", String(o === b))
      render()
    })
  }
  render()
  searchDeep()
  return page
}
