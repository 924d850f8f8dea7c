/**
 * A layered (Sugiyama-style) layout for the lineage picture, without the DOM so it can be tested:
 * cycles are broken, nodes get a layer by longest path from the sources (sources left, targets
 * right), long edges pass through dummy points, and each layer is ordered by barycentre sweeps to
 * reduce crossings.
 */

export interface LayoutInput {
  readonly nodes: ReadonlyArray<string>
  readonly edges: ReadonlyArray<{ readonly id: string; readonly from: string; readonly to: string }>
}

export interface LayoutOptions {
  readonly nodeWidth: number
  readonly nodeHeight: number
  readonly gapX: number
  readonly gapY: number
  readonly margin: number
}

export interface PlacedNode {
  readonly id: string
  readonly layer: number
  readonly x: number
  readonly y: number
}

export interface PlacedEdge {
  readonly id: string
  readonly from: string
  readonly to: string
  /** Centre-line points from the source's right side to the target's left side. */
  readonly points: ReadonlyArray<{ readonly x: number; readonly y: number }>
  /** The edge goes against the flow (it closes a cycle). */
  readonly reversed: boolean
}

export interface Layout {
  readonly nodes: ReadonlyArray<PlacedNode>
  readonly edges: ReadonlyArray<PlacedEdge>
  readonly width: number
  readonly height: number
  readonly layers: number
}

export const defaultLayoutOptions: LayoutOptions = { nodeWidth: 210, nodeHeight: 62, gapX: 96, gapY: 22, margin: 24 }

interface Slot {
  readonly key: string
  /** A real node, or a dummy point of a long edge. */
  readonly node: string | null
  layer: number
  order: number
}

/** Lays out each connected part on its own and stacks the parts, largest first. */
export const layeredLayout = (input: LayoutInput, opts: LayoutOptions = defaultLayoutOptions): Layout => {
  const ids = [...new Set(input.nodes)].sort()
  const parent = new Map(ids.map((i) => [i, i]))
  const find = (i: string): string => {
    let r = i
    while (parent.get(r) !== r) r = parent.get(r)!
    parent.set(i, r)
    return r
  }
  for (const e of input.edges) if (parent.has(e.from) && parent.has(e.to)) parent.set(find(e.from), find(e.to))
  const groups = new Map<string, Array<string>>()
  for (const i of ids) {
    const r = find(i)
    if (!groups.has(r)) groups.set(r, [])
    groups.get(r)!.push(i)
  }
  if (groups.size <= 1) return layoutPart(input, opts)
  const parts = [...groups.values()].sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!))
  const nodes: Array<PlacedNode> = []
  const edges: Array<PlacedEdge> = []
  let y = opts.margin
  let width = 0
  let layers = 0
  for (const members of parts) {
    const set = new Set(members)
    const part = layoutPart({ nodes: members, edges: input.edges.filter((e) => set.has(e.from) && set.has(e.to)) }, {
      ...opts,
      margin: 0
    })
    for (const n of part.nodes) nodes.push({ ...n, x: n.x + opts.margin, y: n.y + y })
    for (const e of part.edges) {
      edges.push({ ...e, points: e.points.map((p) => ({ x: p.x + opts.margin, y: p.y + y })) })
    }
    y += part.height + opts.gapY * 2
    width = Math.max(width, part.width)
    layers = Math.max(layers, part.layers)
  }
  return { nodes, edges, width: width + opts.margin * 2, height: y - opts.gapY * 2 + opts.margin, layers }
}

const layoutPart = (input: LayoutInput, opts: LayoutOptions): Layout => {
  const ids = [...new Set(input.nodes)].sort()
  const known = new Set(ids)
  const edges = input.edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to)

  // 1. Break cycles: depth-first, an edge to a node on the stack is reversed.
  const out = new Map<string, Array<string>>(ids.map((i) => [i, []]))
  for (const e of edges) out.get(e.from)!.push(e.to)
  const state = new Map<string, 0 | 1 | 2>()
  const back = new Set<string>()
  for (const root of ids) {
    if (state.get(root)) continue
    const stack: Array<{ id: string; next: number }> = [{ id: root, next: 0 }]
    state.set(root, 1)
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!
      const succ = out.get(top.id)!
      if (top.next < succ.length) {
        const n = succ[top.next++]!
        const st = state.get(n) ?? 0
        if (st === 1) back.add(`${top.id}\u0000${n}`)
        else if (st === 0) {
          state.set(n, 1)
          stack.push({ id: n, next: 0 })
        }
      } else {
        state.set(top.id, 2)
        stack.pop()
      }
    }
  }
  const dag = edges.map((
    e
  ) => (back.has(`${e.from}\u0000${e.to}`)
    ? { ...e, from: e.to, to: e.from, reversed: true }
    : { ...e, reversed: false })
  )

  // 2. Layers: longest path from the sources (Kahn's order over the DAG).
  const preds = new Map<string, Array<string>>(ids.map((i) => [i, []]))
  const succs = new Map<string, Array<string>>(ids.map((i) => [i, []]))
  for (const e of dag) {
    preds.get(e.to)!.push(e.from)
    succs.get(e.from)!.push(e.to)
  }
  const indeg = new Map(ids.map((i) => [i, preds.get(i)!.length]))
  const layer = new Map<string, number>(ids.map((i) => [i, 0]))
  const queue = ids.filter((i) => indeg.get(i) === 0)
  while (queue.length > 0) {
    const n = queue.shift()!
    for (const m of succs.get(n)!) {
      layer.set(m, Math.max(layer.get(m)!, layer.get(n)! + 1))
      indeg.set(m, indeg.get(m)! - 1)
      if (indeg.get(m) === 0) queue.push(m)
    }
  }
  // Pull sources right next to their first consumer, so a lone upstream table is not stranded far left.
  for (const i of ids) {
    if (preds.get(i)!.length === 0 && succs.get(i)!.length > 0) {
      layer.set(i, Math.min(...succs.get(i)!.map((m) => layer.get(m)!)) - 1)
    }
  }
  const layerCount = ids.length === 0 ? 0 : Math.max(...ids.map((i) => layer.get(i)!)) + 1

  // 3. Slots per layer, with dummies on long edges.
  const slots: Array<Array<Slot>> = Array.from({ length: layerCount }, () => [])
  const slotOf = new Map<string, Slot>()
  for (const i of ids) {
    const sl: Slot = { key: i, node: i, layer: layer.get(i)!, order: 0 }
    slots[sl.layer]!.push(sl)
    slotOf.set(i, sl)
  }
  const chains: Array<{ edge: (typeof dag)[number]; path: Array<Slot> }> = []
  const links: Array<[Slot, Slot]> = []
  for (const e of dag) {
    const a = slotOf.get(e.from)!
    const b = slotOf.get(e.to)!
    const path: Array<Slot> = [a]
    for (let l = a.layer + 1; l < b.layer; l++) {
      const d: Slot = { key: `${e.id}#${l}`, node: null, layer: l, order: 0 }
      slots[l]!.push(d)
      path.push(d)
    }
    path.push(b)
    for (let k = 0; k + 1 < path.length; k++) links.push([path[k]!, path[k + 1]!])
    chains.push({ edge: e, path })
  }

  // 4. Order: barycentre sweeps, down then up.
  const up = new Map<Slot, Array<Slot>>()
  const down = new Map<Slot, Array<Slot>>()
  for (const [a, b] of links) {
    if (!down.has(a)) down.set(a, [])
    if (!up.has(b)) up.set(b, [])
    down.get(a)!.push(b)
    up.get(b)!.push(a)
  }
  const renumber = (layerSlots: Array<Slot>) => layerSlots.forEach((sl, i) => (sl.order = i))
  for (const ls of slots) {
    ls.sort((x, y) => (x.node === null ? 1 : 0) - (y.node === null ? 1 : 0) || x.key.localeCompare(y.key))
    renumber(ls)
  }
  const sweep = (layerSlots: Array<Slot>, neighbours: Map<Slot, Array<Slot>>) => {
    const bary = new Map<Slot, number>()
    for (const sl of layerSlots) {
      const ns = neighbours.get(sl)
      bary.set(sl, ns && ns.length > 0 ? ns.reduce((acc, n) => acc + n.order, 0) / ns.length : sl.order)
    }
    layerSlots.sort((x, y) => bary.get(x)! - bary.get(y)! || x.order - y.order)
    renumber(layerSlots)
  }
  /** Edge crossings between consecutive layers (what the sweeps try to reduce). */
  const crossings = (): number => {
    let n = 0
    for (let l = 0; l + 1 < layerCount; l++) {
      const ls = links.filter(([a]) => a.layer === l).map(([a, b]) => [a.order, b.order] as const)
      for (let i = 0; i < ls.length; i++) {
        for (let j = i + 1; j < ls.length; j++) {
          const [a1, b1] = ls[i]!
          const [a2, b2] = ls[j]!
          if ((a1 - a2) * (b1 - b2) < 0) n++
        }
      }
    }
    return n
  }
  const snapshot = () => slots.map((ls) => [...ls])
  let best = snapshot()
  let bestCrossings = crossings()
  for (let iter = 0; iter < 12 && bestCrossings > 0; iter++) {
    for (let l = 1; l < layerCount; l++) sweep(slots[l]!, up)
    for (let l = layerCount - 2; l >= 0; l--) sweep(slots[l]!, down)
    const c = crossings()
    if (c < bestCrossings) {
      bestCrossings = c
      best = snapshot()
    }
  }
  best.forEach((ls, l) => {
    slots[l] = ls
    renumber(ls)
  })

  // 5. Coordinates: one column per layer. Within a column the order is kept; each slot is pulled
  // towards the mean height of its neighbours (straighter edges), never closer than the gap.
  const dummyH = 14
  const hOf = (sl: Slot) => (sl.node === null ? dummyH : opts.nodeHeight)
  const ys = new Map<Slot, number>()
  for (const ls of slots) {
    let y = 0
    for (const sl of ls) {
      ys.set(sl, y + hOf(sl) / 2)
      y += hOf(sl) + opts.gapY
    }
  }
  const place = (ls: Array<Slot>, neighbours: ReadonlyArray<Map<Slot, Array<Slot>>>) => {
    if (ls.length === 0) return
    const want = ls.map((sl) => {
      const ns = neighbours.flatMap((m) => m.get(sl) ?? [])
      return ns.length > 0 ? ns.reduce((acc, n) => acc + ys.get(n)!, 0) / ns.length : ys.get(sl)!
    })
    const gap = (i: number) => (hOf(ls[i]!) + hOf(ls[i + 1]!)) / 2 + opts.gapY
    // As low as wanted going down, as high as wanted going up; the mean of both keeps the spacing.
    const fwd = [...want]
    for (let i = 1; i < ls.length; i++) fwd[i] = Math.max(want[i]!, fwd[i - 1]! + gap(i - 1))
    const bwd = [...want]
    for (let i = ls.length - 2; i >= 0; i--) bwd[i] = Math.min(want[i]!, bwd[i + 1]! - gap(i))
    ls.forEach((sl, i) => ys.set(sl, (fwd[i]! + bwd[i]!) / 2))
  }
  for (let iter = 0; iter < 8; iter++) {
    for (let l = 1; l < layerCount; l++) place(slots[l]!, [up])
    for (let l = layerCount - 2; l >= 0; l--) place(slots[l]!, [down])
    for (let l = 0; l < layerCount; l++) place(slots[l]!, [up, down])
  }
  const extent = [...ys].map(([sl, y]) => [y - hOf(sl) / 2, y + hOf(sl) / 2] as const)
  const top = extent.length > 0 ? Math.min(...extent.map(([a]) => a)) : 0
  const bottom = extent.length > 0 ? Math.max(...extent.map(([, b]) => b)) : 0
  const pos = new Map<Slot, { x: number; y: number }>()
  slots.forEach((ls, l) => {
    const x = opts.margin + l * (opts.nodeWidth + opts.gapX)
    for (const sl of ls) pos.set(sl, { x, y: ys.get(sl)! - top + opts.margin })
  })
  const maxH = bottom - top

  const nodes: Array<PlacedNode> = ids.map((i) => {
    const p = pos.get(slotOf.get(i)!)!
    return { id: i, layer: layer.get(i)!, x: p.x, y: p.y - opts.nodeHeight / 2 }
  })
  const placed: Array<PlacedEdge> = chains.map(({ edge, path }) => {
    // A long edge crosses each intermediate column straight, in the slot kept free for it.
    const pts = path.flatMap((sl, k) => {
      const p = pos.get(sl)!
      if (sl.node === null) return [{ x: p.x, y: p.y }, { x: p.x + opts.nodeWidth, y: p.y }]
      return [{ x: k === 0 ? p.x + opts.nodeWidth : p.x, y: p.y }]
    })
    const ordered = edge.reversed ? [...pts].reverse() : pts
    return {
      id: edge.id,
      from: edge.reversed ? edge.to : edge.from,
      to: edge.reversed ? edge.from : edge.to,
      points: ordered,
      reversed: edge.reversed
    }
  })
  return {
    nodes,
    edges: placed,
    width: opts.margin * 2 + Math.max(0, layerCount * opts.nodeWidth + (layerCount - 1) * opts.gapX),
    height: opts.margin * 2 + maxH,
    layers: layerCount
  }
}

/** A smooth SVG path through the points (horizontal tangents at each point). */
export const edgePath = (points: ReadonlyArray<{ readonly x: number; readonly y: number }>): string => {
  if (points.length === 0) return ""
  let d = `M${points[0]!.x},${points[0]!.y}`
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1]!
    const b = points[k]!
    const dx = (b.x - a.x) / 2
    d += ` C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x},${b.y}`
  }
  return d
}
