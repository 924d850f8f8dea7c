/**
 * The lineage picture's layout (src/programs/http/portal/client/layout.ts) as a pure function, on
 * made-up graphs with every awkward case and on a real one: the lineage of Fivetran's HubSpot dbt
 * package, read from its manifest's parent_map (about 200 datasets, 220 flows). Whatever the graph,
 * every node is placed once at finite coordinates inside the drawing, no two boxes overlap, each flow
 * runs left to right from its source's right side to its target's left side (a flow that closes a cycle
 * runs back, marked reversed), and a flow crossing a column passes between its boxes, not over them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import {
  defaultLayoutOptions as o,
  layeredLayout,
  type Layout,
  type LayoutInput
} from "../../../../src/programs/http/portal/client/layout.js"

const hubspot = (): LayoutInput => {
  const file = path.join(import.meta.dirname, "../../../fixtures/dbt/fivetran-hubspot-postgres-1.11/manifest.json")
  const manifest: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
  const parentMap = typeof manifest === "object" && manifest !== null && "parent_map" in manifest
    ? manifest.parent_map
    : null
  if (typeof parentMap !== "object" || parentMap === null) throw new Error("no parent_map in the manifest")
  const relation = (id: string) => /^(model|seed|snapshot|source)\./.test(id)
  const edges = Object.entries(parentMap).flatMap(([to, parents]) =>
    relation(to) && Array.isArray(parents)
      ? parents.filter((p): p is string => typeof p === "string" && relation(p)).map((from) => ({
        id: `${from}>${to}`,
        from,
        to
      }))
      : []
  )
  return { nodes: [...new Set(edges.flatMap((e) => [e.from, e.to]))], edges }
}

/** Asserts the layout's invariants; returns how many edges it reversed. */
const check = (input: LayoutInput, l: Layout): number => {
  const ids = [...new Set(input.nodes)]
  expect(l.nodes.map((n) => n.id).sort()).toEqual([...ids].sort())
  const at = new Map(l.nodes.map((n) => [n.id, n]))
  for (const n of l.nodes) {
    expect(Number.isFinite(n.x) && Number.isFinite(n.y), n.id).toBe(true)
    expect(n.x).toBeGreaterThanOrEqual(0)
    expect(n.y).toBeGreaterThanOrEqual(0)
    expect(n.x + o.nodeWidth).toBeLessThanOrEqual(l.width)
    expect(n.y + o.nodeHeight).toBeLessThanOrEqual(l.height)
    expect(n.layer).toBeGreaterThanOrEqual(0)
    expect(n.layer).toBeLessThan(Math.max(l.layers, 1))
  }
  const boxes = [...l.nodes].sort((a, b) => a.x - b.x || a.y - b.y)
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j]!.x < boxes[i]!.x + o.nodeWidth; j++) {
      const [a, b] = [boxes[i]!, boxes[j]!]
      const overlap = a.y < b.y + o.nodeHeight && b.y < a.y + o.nodeHeight
      expect(overlap, `${a.id} overlaps ${b.id}`).toBe(false)
    }
  }
  const known = new Set(ids)
  const drawn = input.edges.filter((e) => known.has(e.from) && known.has(e.to) && e.from !== e.to)
  expect(l.edges.map((e) => e.id).sort()).toEqual(drawn.map((e) => e.id).sort())
  let reversed = 0
  for (const e of l.edges) {
    const from = at.get(e.from)!
    const to = at.get(e.to)!
    const first = e.points[0]!
    const last = e.points[e.points.length - 1]!
    for (const p of e.points) expect(Number.isFinite(p.x) && Number.isFinite(p.y), e.id).toBe(true)
    if (e.reversed) {
      reversed++
      expect(from.layer, e.id).toBeGreaterThan(to.layer)
      expect(first).toEqual({ x: from.x, y: from.y + o.nodeHeight / 2 })
      expect(last).toEqual({ x: to.x + o.nodeWidth, y: to.y + o.nodeHeight / 2 })
    } else {
      // In rank order: the target's column is right of the source's, and the line only goes right.
      expect(from.layer, e.id).toBeLessThan(to.layer)
      expect(from.x).toBeLessThan(to.x)
      expect(first).toEqual({ x: from.x + o.nodeWidth, y: from.y + o.nodeHeight / 2 })
      expect(last).toEqual({ x: to.x, y: to.y + o.nodeHeight / 2 })
      for (let k = 1; k < e.points.length; k++) expect(e.points[k]!.x).toBeGreaterThanOrEqual(e.points[k - 1]!.x)
    }
    // Straight runs through a column keep clear of that column's boxes.
    for (let k = 1; k < e.points.length; k++) {
      const [a, b] = [e.points[k - 1]!, e.points[k]!]
      if (Math.abs(b.x - a.x) !== o.nodeWidth || a.y !== b.y) continue
      const x = Math.min(a.x, b.x)
      for (const n of l.nodes) {
        if (n.x === x) expect(a.y > n.y && a.y < n.y + o.nodeHeight, `${e.id} runs over ${n.id}`).toBe(false)
      }
    }
  }
  return reversed
}

describe("lineage layout", () => {
  it("a real dbt project (HubSpot, ~200 datasets): placed, no overlap, every flow left to right", () => {
    const input = hubspot()
    expect(input.nodes.length).toBeGreaterThan(150)
    expect(input.edges.length).toBeGreaterThan(150)
    const l = layeredLayout(input)
    expect(check(input, l)).toBe(0)
    expect(l.layers).toBeGreaterThanOrEqual(4)
    // the layout is a function of its input: the same picture whatever order the nodes come in
    expect(layeredLayout({ nodes: [...input.nodes].reverse(), edges: input.edges })).toEqual(l)
  })

  it("cycles, long edges, duplicate flows, self-loops, unknown endpoints and separate parts", () => {
    const input: LayoutInput = {
      nodes: ["a", "b", "c", "d", "e", "f", "g", "x", "y", "lonely", "a"],
      edges: [
        { id: "1", from: "a", to: "b" },
        { id: "2", from: "b", to: "c" },
        { id: "3", from: "c", to: "d" },
        { id: "4", from: "a", to: "d" },
        { id: "5", from: "d", to: "b" },
        { id: "6", from: "a", to: "b" },
        { id: "7", from: "e", to: "e" },
        { id: "8", from: "e", to: "nowhere" },
        { id: "9", from: "f", to: "g" },
        { id: "10", from: "g", to: "f" },
        { id: "11", from: "x", to: "y" },
        { id: "12", from: "e", to: "d" }
      ]
    }
    const l = layeredLayout(input)
    expect(check(input, l)).toBe(2)
    expect(l.edges.find((e) => e.id === "4")!.points.length).toBeGreaterThan(2)
  })

  it("a wide fan-in and a deep chain", () => {
    const fan = Array.from({ length: 40 }, (_, i) => ({ id: `f${i}`, from: `src${i}`, to: i % 2 ? "hub" : "hub2" }))
    const chain = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, from: `n${i}`, to: `n${i + 1}` }))
    const skips = Array.from({ length: 10 }, (_, i) => ({ id: `s${i}`, from: `n${i}`, to: `n${i + 3}` }))
    const edges = [...fan, { id: "h", from: "hub", to: "n0" }, { id: "h2", from: "hub2", to: "n5" }, ...chain, ...skips]
    const input = { nodes: [...new Set(edges.flatMap((e) => [e.from, e.to]))], edges }
    const l = layeredLayout(input)
    expect(check(input, l)).toBe(0)
    expect(l.layers).toBe(15)
  })

  it("nothing to draw", () => {
    expect(layeredLayout({ nodes: [], edges: [] })).toMatchObject({ nodes: [], edges: [], layers: 0 })
    const one = layeredLayout({ nodes: ["only"], edges: [] })
    expect(check({ nodes: ["only"], edges: [] }, one)).toBe(0)
  })
})
