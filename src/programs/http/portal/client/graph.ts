/**
 * The lineage picture: an SVG of datasets (nodes coloured and labelled by their highest
 * personal-data class) and flows (edges styled by origin), laid out sources-left → targets-right.
 * Nodes are links to the dataset page; hovering or focusing one highlights its flows.
 */
import type { LineageEdge } from "../../../../domain/Catalog.js"
import { datasetHref, h, s } from "./dom.js"
import { defaultLayoutOptions, edgePath, layeredLayout, type LayoutOptions } from "./layout.js"
import { classInfo, type ClassValue, originInfo, splitId } from "./ui.js"

export interface GraphNode {
  readonly id: string
  /** The display name (the API's `name`); the id's last segment when the dataset is not in the map. */
  readonly name: string
  readonly highest: ClassValue | null
  /** null when the dataset was never scanned (known only from a manifest). */
  readonly kind: string | null
  readonly flagged: number
}

/** The last segment of a dataset id, with its percent-encoded `/` shown as written. */
export const nameOfId = (id: string): string => {
  const last = splitId(id).name
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

export const lineageGraph = (
  nodes: ReadonlyArray<GraphNode>,
  edges: ReadonlyArray<LineageEdge>,
  opts: { readonly focus?: string; readonly label: string; readonly layout?: Partial<LayoutOptions> }
): SVGSVGElement => {
  const lo: LayoutOptions = { ...defaultLayoutOptions, ...opts.layout }
  const layout = layeredLayout({ nodes: nodes.map((n) => n.id), edges }, lo)
  const byId = new Map(nodes.map((n) => [n.id, n]))
  const edgeById = new Map(edges.map((e) => [e.id, e]))
  const svg = s("svg", {
    class: "graph",
    viewBox: `0 0 ${Math.max(layout.width, 1)} ${Math.max(layout.height, 1)}`,
    width: String(layout.width),
    height: String(layout.height),
    role: "group",
    "aria-label": opts.label
  })
  svg.dataset["width"] = String(layout.width)
  svg.dataset["height"] = String(layout.height)

  const defs = s(
    "defs",
    null,
    ["scan", "dbt", "user"].map((o) =>
      s("marker", {
        id: `arrow-${o}`,
        viewBox: "0 0 10 10",
        refX: "9",
        refY: "5",
        markerWidth: "7",
        markerHeight: "7",
        orient: "auto-start-reverse"
      }, s("path", { d: "M0,0 L10,5 L0,10 z", class: `arrowhead origin-${o}` }))
    )
  )
  svg.appendChild(defs)

  const edgeLayer = s("g", { class: "edges", "aria-hidden": "true" })
  const nodeLayer = s("g", { class: "nodes" })
  svg.append(edgeLayer, nodeLayer)

  const edgeEls = new Map<string, SVGGElement>()
  for (const pe of layout.edges) {
    const e = edgeById.get(pe.id)!
    const d = edgePath(pe.points)
    const g = s(
      "g",
      {
        class: `edge origin-${e.origin}${e.resolvable ? "" : " unresolved"}`,
        "data-edge": e.id,
        "data-from": e.from,
        "data-to": e.to
      },
      s("path", { class: "edge-hit", d }),
      s("path", { class: "edge-line", d, "marker-end": `url(#arrow-${e.origin})` }),
      s("title", null, `${e.from} → ${e.to} (${originInfo[e.origin]?.label ?? e.origin})`)
    )
    edgeLayer.appendChild(g)
    edgeEls.set(e.id, g)
  }

  const highlight = (id: string | null) => {
    svg.classList.toggle("has-hover", id !== null)
    for (const [eid, el] of edgeEls) {
      const e = edgeById.get(eid)!
      el.classList.toggle("hot", id !== null && (e.from === id || e.to === id))
    }
    for (const el of nodeLayer.querySelectorAll<SVGGElement>("[data-node]")) {
      const nid = el.dataset["node"]!
      el.classList.toggle(
        "hot",
        id !== null &&
          (nid === id || edges.some((e) => (e.from === id && e.to === nid) || (e.to === id && e.from === nid)))
      )
    }
  }

  const w = lo.nodeWidth
  const ht = lo.nodeHeight
  const maxChars = Math.floor((w - 24) / 7.6)
  for (const pn of layout.nodes) {
    const n = byId.get(pn.id)!
    const parts = splitId(n.id)
    const cls: ClassValue | "unknown" = n.highest ?? "unknown"
    const classText = n.highest === null
      ? "not scanned"
      : `${classInfo[n.highest].glyph} ${classInfo[n.highest].short}${n.flagged > 0 ? ` · ${n.flagged} flagged` : ""}`
    const body = [
      s("rect", { class: "node-box", x: "0", y: "0", width: String(w), height: String(ht), rx: "8" }),
      s("rect", { class: "node-stripe", x: "0", y: "0", width: "7", height: String(ht), rx: "3" }),
      s("text", { class: "node-name", x: "16", y: "20" }, truncate(n.name, maxChars)),
      s(
        "text",
        { class: "node-sub", x: "16", y: "36" },
        truncate(`${parts.source}/${parts.schema}${n.kind && n.kind !== "table" ? ` · ${n.kind}` : ""}`, maxChars + 4)
      ),
      s("text", { class: "node-class", x: "16", y: "52" }, classText),
      s(
        "title",
        null,
        `${n.id}${n.kind ? ` (${n.kind})` : " (not scanned)"}: ${
          n.highest === null ? "not in the map" : `highest class ${classInfo[n.highest].label}`
        }`
      )
    ]
    const g = n.kind === null
      ? s("g", {
        class: `node cls-${cls} external`,
        transform: `translate(${pn.x},${pn.y})`,
        "data-node": n.id,
        tabindex: "0",
        role: "img",
        "aria-label": `${n.id}, not scanned`
      }, body)
      : s("a", {
        class: `node cls-${cls}${opts.focus === n.id ? " focus" : ""}`,
        href: datasetHref(n.id),
        transform: `translate(${pn.x},${pn.y})`,
        "data-node": n.id,
        "aria-label": `${n.id}, ${n.highest ? classInfo[n.highest].label : ""}`
      }, body)
    g.addEventListener("mouseenter", () => highlight(n.id))
    g.addEventListener("mouseleave", () => highlight(null))
    g.addEventListener("focus", () => highlight(n.id))
    g.addEventListener("blur", () => highlight(null))
    nodeLayer.appendChild(g)
  }
  return svg
}

/** The legend: node colours (with glyph and label) and edge styles. */
export const graphLegend = (opts: { readonly external?: boolean } = {}): HTMLElement =>
  h(
    "div",
    { class: "legend", "aria-label": "Legend" },
    (["criminal", "special", "personal", "not"] as const).map((c) =>
      h(
        "span",
        { class: `legend-item cls-${c}` },
        h("span", { class: "swatch", "aria-hidden": "true" }, classInfo[c].glyph),
        classInfo[c].label
      )
    ),
    opts.external
      ? h(
        "span",
        { class: "legend-item external" },
        h("span", { class: "swatch", "aria-hidden": "true" }),
        "Not scanned"
      )
      : null,
    (["scan", "dbt", "user"] as const).map((o) =>
      h(
        "span",
        { class: `legend-item edge-key origin-${o}` },
        h("span", { class: "line", "aria-hidden": "true" }),
        `${originInfo[o]!.label} edge`
      )
    )
  )
