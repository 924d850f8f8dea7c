import type { LineageEdge } from "../../../../../domain/Catalog.js"
import { api } from "../api.js"
import { datasetHref, h, replace } from "../dom.js"
import { graphLegend, type GraphNode, lineageGraph, nameOfId } from "../graph.js"
import { cli, empty, fmtNum, humanAct, originBadge, pageHeader, ph, plural, table } from "../ui.js"

/** Above this many datasets the whole-map picture is unreadable: the page asks for a focus. */
const maxWholeGraph = 250

export const lineageView = async (query: URLSearchParams): Promise<HTMLElement> => {
  const focus = query.get("dataset") ?? ""
  const [list, lin] = await Promise.all([api.datasets(), api.lineage(focus || undefined)])
  const byId = new Map(list.datasets.map((d) => [d.id, d]))
  const edges: ReadonlyArray<LineageEdge> = lin.edges

  const page = h(
    "div",
    { class: "page lineage" },
    pageHeader(
      "Lineage",
      "How data flows between datasets: sources on the left, what is built from them on the right. Each box is coloured and labelled by the most sensitive class among its columns; click one to open it."
    )
  )

  const connected = new Set(edges.flatMap((e) => [e.from, e.to]))
  const select = h(
    "select",
    { "aria-label": "Focus on a dataset" },
    h("option", { value: "" }, "Whole map"),
    [...connected].sort().map((id) => h("option", { value: id, selected: id === focus }, id))
  )
  select.addEventListener("change", () => {
    location.hash = select.value ? `#/lineage?dataset=${encodeURIComponent(select.value)}` : "#/lineage"
  })
  let scale = 1
  const zoomLabel = h("span", { class: "zoom-level", "aria-live": "polite" }, "100%")
  const graphHost = h("div", {
    class: "graph-wrap",
    tabindex: "0",
    role: "region",
    "aria-label": "Lineage picture (scrollable)"
  })
  const applyZoom = () => {
    const svg = graphHost.querySelector("svg")
    if (!svg) return
    svg.setAttribute("width", String(Number(svg.dataset["width"]) * scale))
    svg.setAttribute("height", String(Number(svg.dataset["height"]) * scale))
    zoomLabel.textContent = `${Math.round(scale * 100)}%`
  }
  const zoom = (f: number) => () => {
    scale = f === 0 ? 1 : Math.min(2.5, Math.max(0.3, scale * f))
    applyZoom()
  }
  /** Scales the picture to the width of its frame (never above 100%). */
  const fit = () => {
    const svg = graphHost.querySelector("svg")
    if (!svg || graphHost.clientWidth === 0) return
    scale = Math.max(0.3, Math.min(1, (graphHost.clientWidth - 4) / Number(svg.dataset["width"])))
    applyZoom()
  }
  page.appendChild(
    h(
      "div",
      { class: "toolbar" },
      h("label", { class: "inline" }, "Focus ", select),
      h(
        "div",
        { class: "zoom", role: "group", "aria-label": "Zoom" },
        h("button", { type: "button", class: "btn small", onclick: zoom(1 / 1.25), "aria-label": "Zoom out" }, "−"),
        zoomLabel,
        h("button", { type: "button", class: "btn small", onclick: zoom(1.25), "aria-label": "Zoom in" }, "+"),
        h("button", { type: "button", class: "btn small", onclick: fit }, "Fit"),
        h("button", { type: "button", class: "btn small", onclick: zoom(0) }, "100%")
      )
    )
  )

  if (edges.length === 0) {
    page.appendChild(h(
      "section",
      { class: "card" },
      empty(
        focus ? "No flows into or out of this dataset." : "No lineage recorded yet.",
        "Scans find flows from view definitions (and dbt manifests). A human can assert any other flow:",
        cli("lineage", "add", ph("<fromDatasetId>"), ph("<toDatasetId>"))
      )
    ))
    return page
  }

  const nodes: Array<GraphNode> = [...connected].map((id) => {
    const d = byId.get(id)
    return d
      ? {
        id,
        name: d.name,
        highest: d.highest,
        kind: d.kind,
        flagged: d.classes.personal + d.classes.special + d.classes.criminal
      }
      : { id, name: nameOfId(id), highest: null, kind: null, flagged: 0 }
  })
  const isolated = list.datasets.length - nodes.filter((n) => n.kind !== null).length

  if (nodes.length > maxWholeGraph && !focus) {
    replace(
      graphHost,
      empty(
        `${fmtNum(nodes.length)} datasets have lineage: too many for one readable picture.`,
        "Pick a dataset under Focus to see its flows."
      )
    )
  } else {
    graphHost.appendChild(
      lineageGraph(nodes, edges, {
        ...(focus ? { focus } : {}),
        label: `Lineage: ${plural(nodes.length, "dataset")} and ${plural(edges.length, "flow")}`
      })
    )
    // Once on screen, a picture wider than its frame starts scaled to fit.
    window.requestAnimationFrame(() => {
      const svg = graphHost.querySelector("svg")
      if (svg && graphHost.isConnected && Number(svg.dataset["width"]) > graphHost.clientWidth) fit()
    })
  }
  page.appendChild(
    h(
      "section",
      { class: "card graph-card", "aria-label": "Lineage picture" },
      graphHost,
      graphLegend({ external: nodes.some((n) => n.kind === null) }),
      h(
        "p",
        { class: "small muted" },
        `${plural(edges.length, "flow")} between ${plural(nodes.length, "dataset")}`,
        !focus && isolated > 0 ? `; ${plural(isolated, "dataset")} without recorded lineage not drawn` : "",
        lin.truncated ? `; showing ${lin.returned} of ${lin.total} edges` : "",
        "."
      )
    )
  )

  const rows = [...edges].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)).map((e) =>
    h(
      "tr",
      null,
      h(
        "td",
        null,
        byId.has(e.from)
          ? h("a", { href: datasetHref(e.from), class: "mono" }, e.from)
          : h("span", { class: "mono" }, e.from, " ", h("span", { class: "badge neutral" }, "not scanned"))
      ),
      h("td", { "aria-hidden": "true" }, "→"),
      h(
        "td",
        null,
        byId.has(e.to)
          ? h("a", { href: datasetHref(e.to), class: "mono" }, e.to)
          : h("span", { class: "mono" }, e.to, " ", h("span", { class: "badge neutral" }, "not scanned"))
      ),
      h("td", null, originBadge(e.origin), e.by ? h("span", { class: "small muted" }, ` by ${e.by}`) : null),
      h(
        "td",
        { class: "mono small" },
        e.origin === "user" ? cli("lineage", "remove", e.id) : h("span", { class: "muted" }, "regenerated by scans")
      )
    )
  )
  page.appendChild(
    h(
      "details",
      { class: "card edges-list" },
      h("summary", null, `The same flows as a list (${edges.length})`),
      table("Lineage edges", ["From", "", "To", "Origin", "Remove (human edges only)"], rows)
    )
  )

  page.appendChild(
    humanAct(
      "Asserting or removing a flow",
      "Scan and dbt edges are regenerated by every scan. A flow the scan cannot see is asserted by a human, and only those can be removed:",
      cli("lineage", "add", ph("<fromDatasetId>"), ph("<toDatasetId>")),
      cli("lineage", "remove", ph("<edgeId>"))
    )
  )
  return page
}
