// The candidate lineage layout that scripts/lineage-screenshots.mjs compares with the portal's own
// (src/programs/http/portal/client/layout.ts): the same interface and the same drawing conventions
// (connected parts stacked largest first, edges from a box's right side to the next one's left side,
// straight through the columns they cross), with the layered layout itself done by @dagrejs/dagre.
// It is not shipped: the comparison in docs/lineage.md kept the hand layout. dagre is not a dependency
// of the project; to run the comparison, `npm install --no-save @dagrejs/dagre@3.1.3` first.
import { Graph, layout as dagreLayout } from "@dagrejs/dagre"
export const defaultLayoutOptions = { nodeWidth: 210, nodeHeight: 62, gapX: 96, gapY: 22, margin: 24 }
const laneGap = 12
/** `ranker`: dagre's "network-simplex" (its default) or "longest-path". */
export const dagreLayered = (ranker) => (input, opts = defaultLayoutOptions) => {
  const ids = [...new Set(input.nodes)].sort()
  const known = new Set(ids)
  const edges = input.edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to)
  const nodes = []
  const placed = []
  let y = opts.margin
  let width = 0
  let layers = 0
  for (const members of connectedParts(ids, edges)) {
    const set = new Set(members)
    const part = layoutPart(members, edges.filter((e) => set.has(e.from)), opts, ranker)
    const shift = (p) => ({ x: p.x + opts.margin, y: p.y + y })
    for (const n of part.nodes) nodes.push({ ...n, ...shift(n) })
    for (const e of part.edges) placed.push({ ...e, points: e.points.map(shift) })
    y += part.height + opts.gapY * 2
    width = Math.max(width, part.width)
    layers = Math.max(layers, part.layers)
  }
  const height = nodes.length > 0 ? y - opts.gapY * 2 + opts.margin : opts.margin * 2
  return { nodes, edges: placed, width: width + opts.margin * 2, height, layers }
}
const connectedParts = (ids, edges) => {
  const parent = new Map(ids.map((i) => [i, i]))
  const find = (i) => {
    let r = i
    while (parent.get(r) !== r) r = parent.get(r)
    parent.set(i, r)
    return r
  }
  for (const e of edges) parent.set(find(e.from), find(e.to))
  const groups = /* @__PURE__ */ new Map()
  for (const i of ids) {
    const r = find(i)
    if (!groups.has(r)) groups.set(r, [])
    groups.get(r).push(i)
  }
  return [...groups.values()].sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]))
}
const layoutPart = (ids, edges, opts, ranker) => {
  const g = new Graph({ multigraph: true })
  g.setGraph({
    ranker,
    rankdir: "LR",
    ranksep: opts.gapX,
    nodesep: opts.gapY,
    edgesep: laneGap,
    marginx: 0,
    marginy: 0
  })
  for (const id of ids) g.setNode(id, { width: opts.nodeWidth, height: opts.nodeHeight })
  for (const e of edges) g.setEdge(e.from, e.to, { minlen: 1, weight: 1 }, e.id)
  dagreLayout(g)
  const centre = (id) => {
    const { x, y } = g.node(id)
    if (x === void 0 || y === void 0 || !Number.isFinite(x) || !Number.isFinite(y)) {
      throw new Error(`lineage layout: no position for ${id}`)
    }
    return { x, y }
  }
  const columns = [...new Set(ids.map((id) => centre(id).x))].sort((a, b) => a - b)
  const layerOf = (id) => columns.indexOf(centre(id).x)
  const half = opts.nodeWidth / 2
  const routed = edges.map((e) => {
    const reversed = layerOf(e.from) > layerOf(e.to)
    const [from, right] = reversed ? [e.to, e.from] : [e.from, e.to]
    const bends = (g.edge(e.from, e.to, e.id).points ?? []).slice(1, -1)
    if (reversed) bends.reverse()
    const a = centre(from)
    const b = centre(right)
    const lanes = bends.flatMap((p) => {
      const col = columns.find((c) => c > a.x && c < b.x && Math.abs(p.x - c) <= half)
      return col === void 0 ? [] : [{ x: col - half, y: p.y }, { x: col + half, y: p.y }]
    })
    const points = [{ x: a.x + half, y: a.y }, ...lanes, { x: b.x - half, y: b.y }]
    return { id: e.id, from: e.from, to: e.to, points: reversed ? points.reverse() : points, reversed }
  })
  const tops = ids.map((id) => centre(id).y - opts.nodeHeight / 2)
  const bottoms = ids.map((id) => centre(id).y + opts.nodeHeight / 2)
  const laneYs = routed.flatMap((e) => e.points.map((p) => p.y))
  const top = Math.min(...tops, ...laneYs)
  const bottom = Math.max(...bottoms, ...laneYs)
  const left = columns.length > 0 ? columns[0] - half : 0
  const move = (p) => ({ x: p.x - left, y: p.y - top })
  return {
    nodes: ids.map((id) => {
      const c = centre(id)
      return { id, layer: layerOf(id), ...move({ x: c.x - half, y: c.y - opts.nodeHeight / 2 }) }
    }),
    edges: routed.map((e) => ({ ...e, points: e.points.map(move) })),
    width: columns.length > 0 ? columns[columns.length - 1] - columns[0] + opts.nodeWidth : 0,
    height: bottom - top,
    layers: columns.length
  }
}
