/**
 * Lineage, glossary and descriptions through the built CLI. A SQLite "warehouse" holds the tables the
 * jaffle-shop duckdb manifest's models build (schema `main`, as SQLite names its schema); the seeds
 * and sources live in `raw`, which the warehouse does not have, so those endpoints stay unresolvable.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, spawnCli, tempProject } from "../utils/cli.js"
import { fixturesDir } from "../utils/databases.js"

interface Edge {
  readonly id: string
  readonly from: string
  readonly to: string
  readonly origin: string
  readonly resolvable: boolean
  readonly by?: string
}
interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

/** The built CLI without blocking the test worker (a long spawnSync starves vitest's RPC). */
const runAsync = (
  args: ReadonlyArray<string>,
  opts: { readonly cwd: string; readonly env: Record<string, string> }
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawnCli(args, opts)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => {
      let json: unknown
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code: code ?? -1, stdout, stderr, json })
    })
  })

const manifestFixture = path.join(fixturesDir, "dbt", "jaffle-shop-duckdb-1.11", "manifest.json")

describe("lineage (scan, dbt, user), glossary and descriptions through the CLI", () => {
  const p = tempProject()
  const whFile = path.join(p.dir, "wh.db")
  const manifest = path.join(p.dir, "dbt", "manifest.json")
  const env = { WH_DB: whFile, USER: "analyst", CATALOG_SIGNER_EMAIL: "analyst@example.com" }
  const cli = (...args: Array<string>) => runAsync(args, { cwd: p.dir, env })
  const edges = async (...extra: Array<string>) =>
    ((await cli("lineage", "list", "--json", ...extra)).json as { edges: Array<Edge> }).edges
  const find = (list: ReadonlyArray<Edge>, from: string, to: string) => list.find((e) => e.from === from && e.to === to)

  beforeAll(() => {
    const db = new DatabaseSync(whFile)
    db.exec(`
      CREATE TABLE stg_customers (customer_id TEXT PRIMARY KEY, customer_name TEXT);
      CREATE TABLE stg_orders (order_id TEXT PRIMARY KEY, location_id TEXT, customer_id TEXT, order_total REAL, ordered_at TEXT);
      CREATE TABLE stg_order_items (order_item_id TEXT PRIMARY KEY, order_id TEXT, product_id TEXT);
      CREATE TABLE stg_products (product_id TEXT PRIMARY KEY, product_name TEXT, product_price REAL);
      CREATE TABLE stg_supplies (supply_uuid TEXT PRIMARY KEY, supply_id TEXT, product_id TEXT, supply_cost REAL);
      CREATE TABLE stg_locations (location_id TEXT PRIMARY KEY, location_name TEXT, tax_rate REAL);
      CREATE TABLE customers (customer_id TEXT PRIMARY KEY, customer_name TEXT, email TEXT, count_lifetime_orders INTEGER, lifetime_spend REAL);
      CREATE TABLE orders (order_id TEXT PRIMARY KEY, customer_id TEXT REFERENCES customers(customer_id), order_total REAL, ordered_at TEXT);
      CREATE TABLE order_items (order_item_id TEXT PRIMARY KEY, order_id TEXT REFERENCES orders(order_id), product_id TEXT);
      CREATE TABLE products (product_id TEXT PRIMARY KEY, product_name TEXT, product_price REAL);
      CREATE TABLE supplies (supply_uuid TEXT PRIMARY KEY, supply_id TEXT, supply_cost REAL);
      CREATE TABLE locations (location_id TEXT PRIMARY KEY, location_name TEXT);
      CREATE TABLE metricflow_time_spine (date_day DATE);
      CREATE VIEW big_orders AS SELECT o.order_id, c.customer_name FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_total > 100;
    `)
    db.close()
    fs.mkdirSync(path.dirname(manifest), { recursive: true })
    fs.copyFileSync(manifestFixture, manifest)
  })
  afterAll(() => p.cleanup())

  it("write commands before the first scan fail with MAP_NOT_FOUND and create no catalog", async () => {
    const r = await cli("lineage", "add", "wh/main/customers", "wh/main/orders", "--json")
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("MAP_NOT_FOUND")
    expect(errorOf(await cli("glossary", "set", "x", "y", "--json")).code).toBe("MAP_NOT_FOUND")
    expect(errorOf(await cli("describe", "draft", "x", "--json")).code).toBe("MAP_NOT_FOUND")
    expect(fs.existsSync(path.join(p.dir, ".catalog", "index.db"))).toBe(false)
  })

  it("add dbt validates --from and --target (ADD_INPUT_INVALID naming the param), then writes the source", async () => {
    expect((await cli("add", "sqlite", "--ref", "WH_DB", "--id", "wh", "--yes", "--json")).code).toBe(0)
    const cases: Array<[Array<string>, string]> = [
      [["--target", "wh"], "from"],
      [["--from", "dbt/manifest.json"], "target"],
      [["--from", "dbt/nope.json", "--target", "wh"], "from"],
      [["--from", path.join(fixturesDir, "dbt", "jaffle-shop-duckdb-1.11", "catalog.json"), "--target", "wh"], "from"],
      [["--from", "dbt/manifest.json", "--target", "nowhere"], "target"]
    ]
    // Refusals write nothing, so they can run side by side.
    const results = await Promise.all(cases.map(([args]) => cli("add", "dbt", ...args, "--yes", "--json")))
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(" ")).toBe(1)
      expect(errorOf(r)).toMatchObject({ code: "ADD_INPUT_INVALID", param: cases[i]![1] })
    })
    const ok = await cli("add", "dbt", "--from", "dbt/manifest.json", "--target", "wh", "--yes", "--json")
    expect(ok.code).toBe(0)
    expect((ok.json as { source: unknown }).source).toEqual({
      id: "dbt",
      kind: "dbt",
      driver: "dbt-manifest",
      path: path.join("dbt", "manifest.json"),
      target: "wh"
    })
    // A dbt source cannot be the target of another.
    const self = await cli(
      "add",
      "dbt",
      "--id",
      "dbt2",
      "--from",
      "dbt/manifest.json",
      "--target",
      "dbt",
      "--yes",
      "--json"
    )
    expect(errorOf(self)).toMatchObject({ code: "ADD_INPUT_INVALID", param: "target" })
    // Idempotent.
    expect((await cli("add", "dbt", "--from", "dbt/manifest.json", "--target", "wh", "--yes", "--json")).code).toBe(0)
  })

  it("start maps the manifest onto the warehouse: resolvable main edges, unresolvable raw endpoints, scan edges from the view", async () => {
    const s = await cli("start", "--json")
    expect(s.code).toBe(0)
    const dbt = await edges("--origin", "dbt")
    expect(dbt).toHaveLength(17)
    expect(find(dbt, "wh/main/stg_orders", "wh/main/orders")).toMatchObject({ origin: "dbt", resolvable: true })
    expect(find(dbt, "wh/main/order_items", "wh/main/orders")).toMatchObject({ resolvable: true })
    // Seeds and sources are in `raw`, which the warehouse does not have: kept, unresolvable, no columns.
    expect(find(dbt, "wh/raw/raw_customers", "wh/main/stg_customers")).toMatchObject({ resolvable: false })
    expect(dbt.filter((e) => e.resolvable)).toHaveLength(11)
    expect(dbt.filter((e) => !e.resolvable).every((e) => e.from.startsWith("wh/raw/"))).toBe(true)
    const scan = await edges("--origin", "scan")
    expect(scan.map((e) => `${e.from}>${e.to}`).sort()).toEqual([
      "wh/main/customers>wh/main/big_orders",
      "wh/main/orders>wh/main/big_orders"
    ])
    const ds = ((await cli("datasets", "--json")).json as { datasets: Array<{ id: string }> }).datasets.map((d) => d.id)
    expect(ds).not.toContain("wh/raw/raw_customers")
    expect(errorOf(await cli("show", "wh/raw/raw_customers", "--json")).code).toBe("DESCRIBE_ENTITY_UNKNOWN")
    // The dataset's own view of its lineage.
    const upstream =
      ((await cli("show", "wh/main/orders", "--json")).json as { lineage: { upstream: Array<Edge> } }).lineage.upstream
    expect(upstream.map((e) => e.from).sort()).toEqual(["wh/main/order_items", "wh/main/stg_orders"])
  })

  it("lineage add asserts a user edge (idempotent, attributed); unknown or unscanned endpoints are LINEAGE_ENDPOINT_UNKNOWN", async () => {
    const r = await cli("lineage", "add", "wh/main/big_orders", "wh/main/locations", "--json")
    expect(r.code).toBe(0)
    const added = r.json as { created: boolean; edge: Edge }
    expect(added.created).toBe(true)
    expect(added.edge).toMatchObject({
      from: "wh/main/big_orders",
      to: "wh/main/locations",
      origin: "user",
      resolvable: true,
      by: "analyst@example.com"
    })
    const again = (await cli("lineage", "add", "wh/main/big_orders", "wh/main/locations", "--json")).json as {
      created: boolean
      edge: Edge
    }
    expect(again).toMatchObject({ created: false, edge: { id: added.edge.id } })
    expect(await edges("--origin", "user")).toHaveLength(1)
    const log = (await cli("log", "--since", "0", "--json")).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    expect(log.changes.filter((c) => c.kind === "lineage.added")).toEqual([
      expect.objectContaining({ entity: added.edge.id, by: "analyst@example.com" })
    ])

    const unknown = await cli("lineage", "add", "wh/main/orders", "wh/main/nope", "--json")
    expect(unknown.code).toBe(1)
    expect(errorOf(unknown)).toMatchObject({ code: "LINEAGE_ENDPOINT_UNKNOWN", param: "toDatasetId" })
    // Known from the manifest, never scanned: not a dataset of the map.
    expect(errorOf(await cli("lineage", "add", "wh/raw/raw_customers", "wh/main/customers", "--json"))).toMatchObject({
      code: "LINEAGE_ENDPOINT_UNKNOWN",
      param: "fromDatasetId"
    })
    expect(errorOf(await cli("lineage", "add", "wh/main/orders", "--json"))).toMatchObject({
      code: "LINEAGE_ENDPOINT_UNKNOWN",
      param: "toDatasetId"
    })
    expect(errorOf(await cli("lineage", "add", "wh/main/orders", "wh/main/orders", "--json")).code).toBe(
      "LINEAGE_ENDPOINT_UNKNOWN"
    )
  })

  it("a re-scan after a manifest change drops the stale dbt edge, keeps the others (same ids) and never touches user edges", async () => {
    const before = await edges()
    const json = JSON.parse(fs.readFileSync(manifest, "utf8")) as {
      nodes: Record<string, { depends_on: { nodes: Array<string> } }>
    }
    const orders = json.nodes["model.jaffle_shop.orders"]!
    orders.depends_on.nodes = orders.depends_on.nodes.filter((n) => n !== "model.jaffle_shop.order_items")
    fs.writeFileSync(manifest, JSON.stringify(json))
    expect((await cli("start", "--json")).code).toBe(0)
    const after = await edges()
    const dbt = after.filter((e) => e.origin === "dbt")
    expect(dbt).toHaveLength(16)
    expect(find(dbt, "wh/main/order_items", "wh/main/orders")).toBeUndefined()
    const stay = find(before, "wh/main/stg_orders", "wh/main/orders")!
    expect(find(after, "wh/main/stg_orders", "wh/main/orders")?.id).toBe(stay.id)
    expect(after.filter((e) => e.origin === "user")).toEqual(before.filter((e) => e.origin === "user"))
    expect(after.filter((e) => e.origin === "scan")).toHaveLength(2)
    // A second scan with nothing changed keeps everything as it is.
    expect((await cli("start", "--json")).code).toBe(0)
    expect(await edges()).toEqual(after)
  })

  it("lineage remove: scan and dbt edges are LINEAGE_EDGE_NOT_REMOVABLE; a user edge goes (once); unknown ids are refused", async () => {
    const all = await edges()
    const dbtEdge = all.find((e) => e.origin === "dbt")!
    const scanEdge = all.find((e) => e.origin === "scan")!
    const userEdge = all.find((e) => e.origin === "user")!
    for (const e of [dbtEdge, scanEdge]) {
      const r = await cli("lineage", "remove", e.id, "--json")
      expect(r.code).toBe(1)
      expect(errorOf(r)).toMatchObject({ code: "LINEAGE_EDGE_NOT_REMOVABLE", param: "edgeId" })
    }
    const ok = await cli("lineage", "remove", userEdge.id, "--json")
    expect(ok.code).toBe(0)
    expect(ok.json).toMatchObject({ id: userEdge.id, removed: true })
    expect(await edges("--origin", "user")).toHaveLength(0)
    expect((await cli("lineage", "remove", userEdge.id, "--json")).json).toMatchObject({ removed: false })
    expect(errorOf(await cli("lineage", "remove", "e_000000000000", "--json")).code).toBe("LINEAGE_EDGE_NOT_REMOVABLE")
    expect(await edges()).toHaveLength(all.length - 1)
    const log = (await cli("log", "--since", "0", "--json")).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    expect(log.changes[0]).toMatchObject({ kind: "lineage.removed", entity: userEdge.id, by: "analyst@example.com" })
  })

  it("glossary set / list; terms are found by search; unknown dataset ids and missing parts are refused", async () => {
    const set = await cli(
      "glossary",
      "set",
      "Lifetime value",
      "Total revenue a customer brought across all orders",
      "--datasets",
      "wh/main/customers,wh/main/orders",
      "--json"
    )
    expect(set.code).toBe(0)
    expect(set.json).toMatchObject({
      term: "Lifetime value",
      outcome: "created",
      datasets: ["wh/main/customers", "wh/main/orders"],
      by: "analyst@example.com"
    })
    expect(
      (await cli("glossary", "set", "Lifetime value", "Total revenue a customer brought across all orders", "--json"))
        .json
    ).toMatchObject({ outcome: "unchanged", datasets: ["wh/main/customers", "wh/main/orders"] })
    const list = (await cli("glossary", "list", "--json")).json as {
      terms: Array<{ term: string; definition: string; datasets: Array<string>; by?: string }>
    }
    expect(list.terms).toEqual([
      expect.objectContaining({
        term: "Lifetime value",
        datasets: ["wh/main/customers", "wh/main/orders"],
        by: "analyst@example.com"
      })
    ])

    for (const q of ["revenue", "lifetime value"]) {
      const hits = ((await cli("search", q, "--json")).json as { hits: Array<{ kind: string; id: string }> }).hits
      expect(hits.some((h) => h.kind === "glossary" && h.id === "glossary:Lifetime value"), q).toBe(true)
    }
    // An update replaces the definition in the search index too.
    expect((await cli("glossary", "set", "lifetime VALUE", "Sum of a customer's order totals", "--json")).json)
      .toMatchObject({ outcome: "updated", term: "lifetime VALUE" })
    expect(
      ((await cli("search", "revenue", "--json")).json as { hits: Array<{ kind: string }> }).hits.filter((h) =>
        h.kind === "glossary"
      )
    ).toHaveLength(0)
    expect(
      ((await cli("search", "totals", "--json")).json as { hits: Array<{ kind: string }> }).hits.filter((h) =>
        h.kind === "glossary"
      )
    ).toHaveLength(1)
    expect(((await cli("glossary", "list", "--json")).json as { terms: Array<unknown> }).terms).toHaveLength(1)

    const badDs = await cli(
      "glossary",
      "set",
      "Churn",
      "Customers lost in a period",
      "--datasets",
      "wh/main/customers,wh/main/nope",
      "--json"
    )
    expect(badDs.code).toBe(1)
    expect(errorOf(badDs)).toMatchObject({ code: "DESCRIBE_ENTITY_UNKNOWN", param: "datasets" })
    expect(errorOf(badDs).message).toContain("wh/main/nope")
    expect(errorOf(await cli("glossary", "set", "Churn", "--json"))).toMatchObject({
      code: "GLOSSARY_TERM_UNKNOWN",
      param: "definition"
    })
    expect(errorOf(await cli("glossary", "set", "--json"))).toMatchObject({
      code: "GLOSSARY_TERM_UNKNOWN",
      param: "term"
    })
    expect(((await cli("glossary", "list", "--json")).json as { terms: Array<unknown> }).terms).toHaveLength(1)
    const log = (await cli("log", "--since", "0", "--json")).json as { changes: Array<{ kind: string; by?: string }> }
    expect(log.changes.filter((c) => c.kind === "glossary.set")).toHaveLength(2)
  })

  it("describe list pages datasets and a dataset's columns; describe draft stores a drafted description from metadata", async () => {
    const list = (await cli("describe", "list", "--json")).json as {
      entity: string
      total: number
      returned: number
      nextOffset: number | null
      items: Array<{ id: string; columns: number; description: unknown }>
    }
    expect(list).toMatchObject({ entity: "datasets", total: 14, returned: 14, nextOffset: null })
    expect(list.items.find((d) => d.id === "wh/main/customers")).toMatchObject({ columns: 5, description: null })
    const page = (await cli("describe", "list", "--limit", "5", "--offset", "5", "--json")).json as {
      returned: number
      nextOffset: number | null
      items: Array<{ id: string }>
    }
    expect(page).toMatchObject({ returned: 5, nextOffset: 10 })
    expect(page.items[0]!.id).toBe(list.items[5]!.id)

    const draft = await cli("describe", "draft", "wh/main/customers", "--json")
    expect(draft.code).toBe(0)
    const d = draft.json as {
      id: string
      entity: string
      text: string
      drafted: boolean
      outcome: string
      stored: boolean
    }
    expect(d).toMatchObject({
      id: "wh/main/customers",
      entity: "dataset",
      drafted: true,
      outcome: "created",
      stored: true
    })
    expect(d.text).toMatch(/table in schema main of source wh/)
    expect(d.text).toMatch(/5 columns/)
    expect(d.text).toMatch(/email/)
    expect(d.text).toMatch(/personal data/)
    expect(d.text).toMatch(/Primary key: customer_id/)
    expect(d.text).toMatch(/Feeds wh\/main\/big_orders \(scan\)/)
    expect((await cli("describe", "draft", "wh/main/customers", "--json")).json).toMatchObject({ outcome: "unchanged" })

    const col = (await cli("describe", "draft", "wh/main/orders/customer_id", "--json")).json as {
      entity: string
      text: string
    }
    expect(col.entity).toBe("column")
    expect(col.text).toMatch(/references wh\/main\/customers\/customer_id/)

    const after = (await cli("describe", "list", "--json")).json as {
      items: Array<{ id: string; describedColumns: number; description: { drafted: boolean; text: string } | null }>
    }
    expect(after.items.find((x) => x.id === "wh/main/customers")!.description).toMatchObject({
      drafted: true,
      text: d.text
    })
    expect(after.items.find((x) => x.id === "wh/main/orders")!.describedColumns).toBe(1)
    const cols = (await cli("describe", "list", "--dataset", "wh/main/orders", "--json")).json as {
      entity: string
      total: number
      items: Array<{ id: string; description: { drafted: boolean } | null }>
    }
    expect(cols).toMatchObject({ entity: "columns", total: 4 })
    expect(cols.items.find((c) => c.id === "wh/main/orders/customer_id")!.description).toMatchObject({ drafted: true })

    expect(errorOf(await cli("describe", "draft", "wh/main/nope", "--json"))).toMatchObject({
      code: "DESCRIBE_ENTITY_UNKNOWN",
      param: "id"
    })
    expect(errorOf(await cli("describe", "list", "--dataset", "wh/main/nope", "--json"))).toMatchObject({
      code: "DESCRIBE_ENTITY_UNKNOWN",
      param: "dataset"
    })
    expect(errorOf(await cli("describe", "list", "--limit", "0", "--json"))).toMatchObject({
      code: "INVALID_PARAM",
      param: "limit"
    })
    const log = (await cli("log", "--since", "0", "--json")).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    expect(log.changes.filter((c) => c.kind === "description.drafted").map((c) => c.entity).sort()).toEqual([
      "wh/main/customers",
      "wh/main/orders/customer_id"
    ])
  })

  it("help documents the commands", async () => {
    const doc = (await cli("help", "--json")).json as {
      commands: Array<{ name: string; usage: string; errors: Array<string> }>
    }
    const names = doc.commands.map((c) => c.name)
    expect(names).toEqual(expect.arrayContaining(["lineage", "glossary", "describe", "add"]))
    expect(doc.commands.find((c) => c.name === "add")!.usage).toContain("add dbt --from")
    expect(doc.commands.find((c) => c.name === "lineage")!.errors).toEqual(
      expect.arrayContaining(["LINEAGE_ENDPOINT_UNKNOWN", "LINEAGE_EDGE_NOT_REMOVABLE"])
    )
  })
})
