import { api } from "../api.js"
import { datasetHref, h } from "../dom.js"
import { cli, empty, fmtDate, humanAct, pageHeader, ph } from "../ui.js"

export const glossaryView = async (query: URLSearchParams): Promise<HTMLElement> => {
  const g = await api.glossary()
  const focus = query.get("term")
  const page = h(
    "div",
    { class: "page glossary" },
    pageHeader("Glossary", "Business terms in plain English, with the datasets they relate to.")
  )
  if (g.terms.length === 0) {
    page.appendChild(
      h(
        "section",
        { class: "card" },
        empty(
          "No glossary terms yet.",
          "Define one in a terminal:",
          cli("glossary", "set", ph("<term>"), ph("<definition>"), "--datasets", ph("<id,id>"))
        )
      )
    )
    return page
  }
  page.appendChild(
    h(
      "dl",
      { class: "card glossary-list" },
      [...g.terms].sort((a, b) => a.term.localeCompare(b.term)).map((t) =>
        h(
          "div",
          { class: `term${focus === t.term ? " focus" : ""}` },
          h("dt", null, t.term),
          h(
            "dd",
            null,
            h("p", null, t.definition),
            t.datasets.length > 0
              ? h(
                "ul",
                { class: "inline-list" },
                t.datasets.map((d) => h("li", null, h("a", { href: datasetHref(d), class: "mono" }, d)))
              )
              : null,
            h("p", { class: "small muted" }, `Updated ${fmtDate(t.updatedAt)}`, t.by ? ` by ${t.by}` : "")
          )
        )
      )
    )
  )
  if (g.truncated) page.appendChild(h("p", { class: "muted" }, `Showing ${g.returned} of ${g.total} terms.`))
  page.appendChild(
    humanAct(
      "Defining a term",
      null,
      cli("glossary", "set", ph("<term>"), ph("<definition>"), "--datasets", ph("<id,id>"))
    )
  )
  return page
}
