/**
 * `catalog start` end to end against the machine's real PostgreSQL and MariaDB, loaded with the public
 * fixtures: datasets, columns, types, planner estimates, view lineage, flags on known columns — and the
 * proof that only system catalogs were read (every statement the servers logged is checked).
 */
import { Effect } from "effect"
import { Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, tempProject, writeFile } from "../utils/cli.js"
import {
  captureMariaStatements,
  capturePgStatements,
  makeMariaDatabase,
  makePgDatabase,
  mariaFixtures,
  metadataViolations,
  pgFixtures,
  type TestDatabase
} from "../utils/databases.js"

interface Col {
  readonly name: string
  readonly type: string
  readonly classification: { readonly value: string; readonly rule: string }
}
interface Ds {
  readonly id: string
  readonly kind: string
  readonly rowCount: { readonly estimate: number | null; readonly display: string; readonly source: string }
  readonly columns: ReadonlyArray<Col>
  readonly lineage: { readonly upstream: ReadonlyArray<{ readonly from: string; readonly origin: string }> }
}

describe("scan of real PostgreSQL and MariaDB databases through the CLI", () => {
  const p = tempProject()
  const scope = Effect.runSync(Scope.make())
  let pagila: TestDatabase, chinook: TestDatabase, northwind: TestDatabase, sakila: TestDatabase, mywind: TestDatabase
  let scanStatements: { pg: ReadonlyArray<string>; my: ReadonlyArray<string> } = { pg: [], my: [] }
  let startCode = -1
  let startOut = ""

  beforeAll(async () => {
    ;[pagila, chinook, northwind, sakila, mywind] = await Effect.runPromise(
      Effect.all([
        makePgDatabase({ fixture: pgFixtures.pagila }),
        makePgDatabase({ fixture: pgFixtures.chinook }),
        makePgDatabase({ fixture: pgFixtures.northwind }),
        makeMariaDatabase({ fixture: mariaFixtures.sakila }),
        makeMariaDatabase({ fixture: mariaFixtures.northwind })
      ], { concurrency: 3 }).pipe(Scope.extend(scope))
    )
    const env = {
      PAGILA_URL: pagila.url,
      CHINOOK_URL: chinook.url,
      NORTHWIND_URL: northwind.url,
      SAKILA_URL: sakila.url,
      MYWIND_URL: mywind.url
    }
    writeFile(p.dir, ".env", Object.entries(env).map(([k, v]) => `${k}=${v}`).join("\n") + "\n")
    writeFile(
      p.dir,
      "catalog.yml",
      [
        "sources:",
        "  - { id: pagila, kind: postgres, driver: pg, connectionRef: PAGILA_URL }",
        "  - { id: chinook, kind: postgres, driver: pg, connectionRef: CHINOOK_URL }",
        "  - { id: northwind, kind: postgres, driver: pg, connectionRef: NORTHWIND_URL }",
        "  - { id: sakila, kind: mysql, driver: mysql2, connectionRef: SAKILA_URL }",
        "  - { id: mywind, kind: mysql, driver: mysql2, connectionRef: MYWIND_URL }",
        ""
      ].join("\n")
    )
    const startScan = Effect.sync(() => runCli(["start", "--json"], { cwd: p.dir }))
    // Every statement each server logged for these databases while `catalog start` ran.
    const captured = await Effect.runPromise(
      capturePgStatements(
        pagila.name,
        capturePgStatements(
          chinook.name,
          capturePgStatements(northwind.name, captureMariaStatements([sakila.name, mywind.name], startScan))
        )
      )
    )
    const r = captured.result.result.result.result
    startCode = r.code
    startOut = r.stdout + r.stderr
    scanStatements = {
      pg: [...captured.statements, ...captured.result.statements, ...captured.result.result.statements],
      my: captured.result.result.result.statements
    }
  }, 240_000)

  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    p.cleanup()
  })

  const show = (id: string) => {
    const r = runCli(["show", id, "--json"], { cwd: p.dir })
    expect(r.code, r.stdout).toBe(0)
    return r.json as Ds
  }
  const flag = (d: Ds, column: string) => d.columns.find((c) => c.name === column)!.classification.value

  it("scans every source in one run with full coverage", () => {
    expect(startCode, startOut).toBe(0)
    const status = runCli(["status", "--json"], { cwd: p.dir }).json as {
      coverage: { complete: boolean }
      datasets: number
    }
    expect(status.coverage.complete).toBe(true)
  })

  it("reads only system catalogs: no statement names a user table or counts rows", () => {
    expect(scanStatements.pg.length).toBeGreaterThan(3)
    expect(scanStatements.my.length).toBeGreaterThan(3)
    const list = runCli(["datasets", "--json"], { cwd: p.dir }).json as { datasets: Array<{ name: string }> }
    const userTables = [...new Set(list.datasets.map((d) => d.name))]
    expect(metadataViolations(scanStatements.pg, userTables)).toEqual([])
    expect(metadataViolations(scanStatements.my, userTables)).toEqual([])
  })

  it("pagila: every table, partition, view and materialized view, with estimates from reltuples", () => {
    const list =
      (runCli(["datasets", "--json"], { cwd: p.dir }).json as { datasets: Array<{ id: string; kind: string }> })
        .datasets.filter((d) => d.id.startsWith("pagila/"))
    expect(list.filter((d) => d.kind === "view")).toHaveLength(7)
    expect(list.filter((d) => d.kind === "materialized_view")).toHaveLength(1)
    expect(list.filter((d) => d.kind === "partition")).toHaveLength(7)
    expect(list.filter((d) => d.kind === "partitioned_table")).toHaveLength(1)
    const rental = show("pagila/public/rental")
    expect(rental.rowCount).toEqual({
      estimate: 16044,
      display: "~16,044 rows (estimate)",
      source: "pg_class.reltuples"
    })
    const view = show("pagila/public/customer_list")
    expect(view.rowCount.estimate).toBeNull()
    expect(view.lineage.upstream.map((e) => e.from)).toEqual(
      expect.arrayContaining([
        "pagila/public/customer",
        "pagila/public/address",
        "pagila/public/city",
        "pagila/public/country"
      ])
    )
    expect(view.lineage.upstream.every((e) => e.origin === "scan")).toBe(true)
    const customer = show("pagila/public/customer")
    expect(customer.columns.map((c) => c.name)).toEqual([
      "customer_id",
      "store_id",
      "first_name",
      "last_name",
      "email",
      "address_id",
      "activebool",
      "create_date",
      "last_update",
      "active"
    ])
    expect(customer.columns.find((c) => c.name === "email")!.type).toBe("text")
    expect(flag(customer, "email")).toBe("personal")
    expect(flag(customer, "first_name")).toBe("personal")
    expect(flag(customer, "customer_id")).toBe("personal")
    expect(flag(customer, "last_update")).toBe("not")
    expect(flag(show("pagila/public/payment"), "amount")).toBe("not")
    expect(flag(show("pagila/public/payment"), "customer_id")).toBe("personal")
    expect(flag(show("pagila/public/film"), "description")).toBe("not")
    expect(flag(show("pagila/public/staff"), "picture")).toBe("personal")
    expect(flag(show("pagila/public/staff"), "password")).toBe("personal")
  })

  it("chinook and northwind on PostgreSQL", () => {
    const c = show("chinook/public/customer")
    expect(c.rowCount.estimate).toBe(59)
    expect(flag(c, "email")).toBe("personal")
    expect(flag(c, "phone")).toBe("personal")
    expect(flag(show("chinook/public/invoice_line"), "unit_price")).toBe("not")
    expect(flag(show("northwind/public/employees"), "birth_date")).toBe("personal")
    expect(flag(show("northwind/public/products"), "product_name")).toBe("not")
  })

  it("MariaDB: sakila and MyWind from information_schema, with TABLE_ROWS estimates and view lineage", () => {
    const rental = show("sakila/" + sakila.name + "/rental")
    expect(rental.rowCount.source).toBe("information_schema.TABLES.TABLE_ROWS")
    expect(rental.rowCount.estimate).toBeGreaterThan(15000)
    expect(rental.rowCount.display).toMatch(/^~\d{2},\d{3} rows \(estimate\)$/)
    const staffList = show("sakila/" + sakila.name + "/staff_list")
    expect(staffList.kind).toBe("view")
    expect(staffList.lineage.upstream.map((e) => e.from)).toEqual(
      expect.arrayContaining(["sakila/" + sakila.name + "/staff", "sakila/" + sakila.name + "/address"])
    )
    const customer = show("sakila/" + sakila.name + "/customer")
    expect(flag(customer, "email")).toBe("personal")
    expect(flag(customer, "store_id")).toBe("not")
    const emp = show("mywind/" + mywind.name + "/employees")
    expect(flag(emp, "email_address")).toBe("personal")
    expect(flag(emp, "last_name")).toBe("personal")
  })

  it("a re-scan of unchanged sources writes no change entries", () => {
    const r = runCli(["start", "--json"], { cwd: p.dir })
    expect(r.code).toBe(0)
    expect((r.json as { summary: { changes: number; unchanged: number } }).summary).toMatchObject({ changes: 0 })
  })
})
