import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { RawDataset, RawSource } from "../../../src/domain/Metadata.js"
import { describeVersion, MysqlConnector, sessionSql, withSession } from "../../../src/layers/connectors/Mysql.js"
import type { ConnectorError, ConnectorInput } from "../../../src/services/Connectors.js"
import {
  captureMariaStatements,
  fixturesDir,
  mariaDatabaseLayer,
  mariadb,
  mariaFixtures,
  mariaUrl,
  metadataViolations,
  TestDatabaseTag
} from "../../utils/databases.js"

interface ExpectedMy {
  readonly tables: ReadonlyArray<{
    readonly table_name: string
    readonly table_type: string
    readonly exact_count: number | null
    readonly information_schema_table_rows: number | null
    readonly columns: ReadonlyArray<
      { readonly name: string; readonly type: string; readonly nullable: boolean; readonly key: string | null }
    >
  }>
}

const expected = (file: string): ExpectedMy =>
  JSON.parse(readFileSync(path.join(fixturesDir, file), "utf8")) as ExpectedMy

const input = (url: string, schemas?: ReadonlyArray<string>): ConnectorInput => ({
  source: {
    id: "my",
    kind: "mysql",
    driver: "mysql2",
    connectionRef: "MY_URL",
    ...(schemas === undefined ? {} : { schemas })
  },
  secret: url,
  baseDir: process.cwd()
})

const find = (raw: RawSource, schema: string, name: string): RawDataset => {
  const d = raw.datasets.find((x) => x.schema === schema && x.name === name)
  if (d === undefined) throw new Error(`dataset ${schema}.${name} missing`)
  return d
}

const deps = (d: RawDataset): Array<string> => d.dependsOn.map((x) => x.name).sort()

/**
 * Every expected table and view, with kind, columns (order, type, nullability, PRI) and estimate.
 * InnoDB's TABLE_ROWS is a sampled estimate: where the fixture's figure equals the exact count the
 * scan must give exactly that; where the fixture itself recorded a sampled figure (sakila payment and
 * rental, Chinook Track) the scan must give the server's current TABLE_ROWS, within 5% of the fixture.
 */
const assertMatchesExpected = (
  raw: RawSource,
  schema: string,
  exp: ExpectedMy,
  serverRows: ReadonlyMap<string, number>
) => {
  const names = raw.datasets.filter((d) => d.schema === schema).map((d) => d.name).sort()
  assert.deepStrictEqual(names, exp.tables.map((t) => t.table_name).sort())
  for (const t of exp.tables) {
    const d = find(raw, schema, t.table_name)
    assert.strictEqual(d.kind, t.table_type === "VIEW" ? "view" : "table", `${t.table_name} kind`)
    assert.deepStrictEqual(
      d.columns.map((c) => [c.name, c.type, c.nullable, c.isPrimaryKey]),
      t.columns.map((c) => [c.name, c.type, c.nullable, c.key === "PRI"]),
      `${t.table_name} columns`
    )
    if (t.table_type === "VIEW") {
      assert.strictEqual(d.rowEstimate, null)
      assert.strictEqual(d.rowEstimateSource, "none")
    } else if (t.information_schema_table_rows === t.exact_count) {
      assert.strictEqual(d.rowEstimate, t.information_schema_table_rows, `${t.table_name} estimate`)
      assert.strictEqual(d.rowEstimateSource, "information_schema.TABLES.TABLE_ROWS")
    } else {
      assert.strictEqual(d.rowEstimate, serverRows.get(t.table_name), `${t.table_name} estimate = TABLE_ROWS`)
      const fixture = t.information_schema_table_rows ?? 0
      assert.approximately(d.rowEstimate ?? -1, fixture, fixture * 0.05, `${t.table_name} estimate near ${fixture}`)
    }
  }
}

/** TABLE_ROWS as the server reports it now, read by the test (not the connector). */
const serverTableRows = (db: string) =>
  Effect.map(
    mariadb(
      null,
      `SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${db}' AND TABLE_TYPE = 'BASE TABLE'`
    ),
    (out) =>
      new Map(
        out.split("\n").filter((l) => l !== "").map((l) => [l.split("\t")[0]!, Number(l.split("\t")[1])] as const)
      )
  )

const opts = { timeout: "120 seconds", excludeTestServices: true } as const

describe("MysqlConnector", () => {
  layer(
    mariaDatabaseLayer({
      fixture: mariaFixtures.sakila,
      sql: `ALTER TABLE customer COMMENT = 'People who rent films';
          ALTER TABLE customer MODIFY email VARCHAR(50) DEFAULT NULL COMMENT 'Contact e-mail, personal data';`
    }),
    opts
  )("sakila", (it) => {
    it.effect("matches the fixture: kinds, columns, types, estimates", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        assert.match(raw.serverVersion ?? "", /^(MariaDB|MySQL) \d+\.\d+\.\d+$/)
        const exp = expected("sakila/expected-mariadb10.11-after-analyze.json")
        assert.strictEqual(exp.tables.length, 23)
        assertMatchesExpected(raw, db.name, exp, yield* serverTableRows(db.name))
        assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 131)
        assert.deepStrictEqual([...new Set(raw.datasets.map((d) => d.schema))], [db.name])
      }))

    it.effect("derives view lineage from VIEW_DEFINITION", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        const v = (name: string) => find(raw, db.name, name)
        assert.deepStrictEqual(deps(v("actor_info")), ["actor", "category", "film", "film_actor", "film_category"])
        assert.deepStrictEqual(deps(v("customer_list")), ["address", "city", "country", "customer"])
        assert.deepStrictEqual(deps(v("film_list")), ["actor", "category", "film", "film_actor", "film_category"])
        assert.deepStrictEqual(deps(v("sales_by_film_category")), [
          "category",
          "film",
          "film_category",
          "inventory",
          "payment",
          "rental"
        ])
        assert.deepStrictEqual(deps(v("sales_by_store")), [
          "address",
          "city",
          "country",
          "inventory",
          "payment",
          "rental",
          "staff",
          "store"
        ])
        assert.deepStrictEqual(deps(v("staff_list")), ["address", "city", "country", "staff"])
        for (const d of raw.datasets) {
          assert.isTrue(d.dependsOn.every((x) => x.schema === db.name))
          if (d.kind === "table") assert.lengthOf(d.dependsOn, 0)
        }
      }))

    it.effect("reports primary keys, foreign keys and comments", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        const col = (table: string, column: string) => {
          const c = find(raw, db.name, table).columns.find((x) => x.name === column)
          if (c === undefined) throw new Error(`${table}.${column} missing`)
          return c
        }
        assert.isTrue(col("film_actor", "actor_id").isPrimaryKey)
        assert.isTrue(col("film_actor", "film_id").isPrimaryKey)
        assert.deepStrictEqual(col("film_actor", "actor_id").references, {
          schema: db.name,
          table: "actor",
          column: "actor_id"
        })
        assert.deepStrictEqual(col("address", "city_id").references, {
          schema: db.name,
          table: "city",
          column: "city_id"
        })
        assert.deepStrictEqual(col("payment", "rental_id").references, {
          schema: db.name,
          table: "rental",
          column: "rental_id"
        })
        assert.isNull(col("actor", "first_name").references)
        assert.strictEqual(col("customer", "email").comment, "Contact e-mail, personal data")
        assert.strictEqual(col("customer", "first_name").comment, null)
        assert.strictEqual(find(raw, db.name, "customer").comment, "People who rent films")
        assert.strictEqual(find(raw, db.name, "actor_info").comment, null)
      }))

    it.effect("reads information_schema only: no user table, no count()", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const { result, statements } = yield* captureMariaStatements(db.name, MysqlConnector.scan(input(db.url)))
        assert.strictEqual(result.datasets.length, 23)
        if (process.env.CATALOG_TEST_DEBUG) console.log(statements.join("\n---\n"))
        assert.isAbove(statements.length, 0, "the general log captured nothing")
        assert.isAtMost(statements.length, 16, statements.join("\n---\n"))
        const userTables = expected("sakila/expected-mariadb10.11-after-analyze.json").tables.map((t) => t.table_name)
        assert.deepStrictEqual(metadataViolations(statements, userTables), [])
        assert.isTrue(statements.some((s) => /information_schema\.COLUMNS/i.test(s)))
      }))

    it.effect("without a database in the URL scans every non-system database; schemas narrows it", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const all = yield* MysqlConnector.scan(input(mariaUrl(null)))
        const schemas = new Set(all.datasets.map((d) => d.schema))
        assert.isTrue(schemas.has(db.name))
        for (const sys of ["mysql", "information_schema", "performance_schema", "sys"]) assert.isFalse(schemas.has(sys))
        const narrowed = yield* MysqlConnector.scan(input(mariaUrl(null), [db.name]))
        assert.deepStrictEqual([...new Set(narrowed.datasets.map((d) => d.schema))], [db.name])
        assert.strictEqual(narrowed.datasets.length, 23)
      }))

    it.effect("every connection of the connector is read-only with a statement time limit; a write is refused by the server", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const rows = (yield* withSession(input(db.url), (sql) =>
          Effect.all(
            Array.from({ length: 4 }, () =>
              sql.query<{ ro: number | string; limit: number | string; id: number | string }>(
                "SELECT @@tx_read_only AS ro, @@max_statement_time AS `limit`, CONNECTION_ID() AS id, SLEEP(0.3) AS s"
              )),
            { concurrency: "unbounded" }
          ))).flat()
        assert.strictEqual(new Set(rows.map((r) => String(r.id))).size, 4, "the queries ran on four pooled connections")
        for (const r of rows) {
          assert.strictEqual(Number(r.ro), 1)
          assert.strictEqual(Number(r.limit), 60)
        }
        for (
          const write of [
            `CREATE TABLE \`${db.name}\`.ldc_write_probe (x INT)`,
            `UPDATE \`${db.name}\`.actor SET first_name = first_name`
          ]
        ) {
          const error = yield* Effect.flip(withSession(input(db.url), (sql) => sql.query(write)))
          assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
          assert.match(error.message, /READ ONLY transaction/i)
        }
        const left = yield* mariadb(
          null,
          `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${db.name}' AND TABLE_NAME = 'ldc_write_probe'`
        )
        assert.strictEqual(left.trim(), "0")
      }))

    it.effect("probe returns the version and a password-free target", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const probe = yield* MysqlConnector.probe(input(db.url))
        assert.match(probe.serverVersion ?? "", /^MariaDB 10\.|^MySQL /)
        assert.strictEqual(probe.target, `127.0.0.1:3306/${db.name}`)
      }))
  })

  layer(mariaDatabaseLayer({ fixture: mariaFixtures.chinook }), opts)("Chinook", (it) => {
    it.effect("matches the fixture", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        assertMatchesExpected(
          raw,
          db.name,
          expected("chinook/expected-mariadb10.11-after-analyze.json"),
          yield* serverTableRows(db.name)
        )
        assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 64)
        assert.deepStrictEqual(find(raw, db.name, "Track").columns.find((c) => c.name === "AlbumId")?.references, {
          schema: db.name,
          table: "Album",
          column: "AlbumId"
        })
      }))
  })

  layer(mariaDatabaseLayer({ fixture: mariaFixtures.northwind }), opts)("MyWind northwind", (it) => {
    it.effect("matches the fixture", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        assertMatchesExpected(
          raw,
          db.name,
          expected("northwind/expected-mariadb10.11-mywind-after-analyze.json"),
          yield* serverTableRows(db.name)
        )
        assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 177)
        assert.deepStrictEqual(find(raw, db.name, "orders").columns.find((c) => c.name === "customer_id")?.references, {
          schema: db.name,
          table: "customers",
          column: "id"
        })
      }))
  })

  layer(mariaDatabaseLayer({ fixture: mariaFixtures.employees }), opts)("employees (schema only)", (it) => {
    it.effect("tables are empty, views depend on their bases", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* MysqlConnector.scan(input(db.url))
        const tables = raw.datasets.filter((d) => d.kind === "table")
        const views = raw.datasets.filter((d) => d.kind === "view")
        assert.deepStrictEqual(tables.map((t) => t.name).sort(), [
          "departments",
          "dept_emp",
          "dept_manager",
          "employees",
          "salaries",
          "titles"
        ])
        for (const t of tables) assert.strictEqual(t.rowEstimate, 0, t.name)
        assert.deepStrictEqual(views.map((v) => v.name).sort(), ["current_dept_emp", "dept_emp_latest_date"])
        assert.deepStrictEqual(deps(find(raw, db.name, "dept_emp_latest_date")), ["dept_emp"])
        assert.deepStrictEqual(deps(find(raw, db.name, "current_dept_emp")), ["dept_emp", "dept_emp_latest_date"])
        assert.deepStrictEqual(find(raw, db.name, "salaries").columns.find((c) => c.name === "emp_no")?.references, {
          schema: db.name,
          table: "employees",
          column: "emp_no"
        })
      }))
  })

  it("sessionSql picks the read-only and time-limit variables of each server", () => {
    assert.strictEqual(
      sessionSql("10.11.19-MariaDB-0+deb12u1"),
      "SET SESSION tx_read_only = 1, SESSION max_statement_time = 60"
    )
    assert.strictEqual(
      sessionSql("11.4.2-MariaDB"),
      "SET SESSION transaction_read_only = 1, SESSION max_statement_time = 60"
    )
    assert.strictEqual(sessionSql("10.0.38-MariaDB"), "SET SESSION tx_read_only = 1")
    assert.strictEqual(
      sessionSql("8.0.36"),
      "SET SESSION transaction_read_only = 1, SESSION max_execution_time = 60000"
    )
    assert.strictEqual(sessionSql("5.7.10-log"), "SET SESSION tx_read_only = 1, SESSION max_execution_time = 60000")
    assert.strictEqual(sessionSql("5.6.51"), "SET SESSION tx_read_only = 1")
  })

  it("describeVersion tells MariaDB from MySQL and knows VIEW_TABLE_USAGE", () => {
    assert.deepStrictEqual(describeVersion("10.11.19-MariaDB-0+deb12u1"), {
      label: "MariaDB 10.11.19",
      hasViewTableUsage: false
    })
    assert.deepStrictEqual(describeVersion("8.0.36"), { label: "MySQL 8.0.36", hasViewTableUsage: true })
    assert.deepStrictEqual(describeVersion("8.0.12"), { label: "MySQL 8.0.12", hasViewTableUsage: false })
    assert.deepStrictEqual(describeVersion("5.7.44-log"), { label: "MySQL 5.7.44", hasViewTableUsage: false })
  })

  it.live("an unknown database is SOURCE_UNREACHABLE naming host and port", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(MysqlConnector.scan(input(`mysql://root:@127.0.0.1:3306/ldc_no_such_db_x`)))
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.include(error.fix ?? "", "127.0.0.1:3306")
    }))

  it.live("a wrong password is SOURCE_UNREACHABLE and the password is not echoed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(MysqlConnector.scan(input(`mysql://ldc_nobody:Sup3rS3cret@127.0.0.1:3306/x`)))
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.include(error.fix ?? "", "127.0.0.1:3306")
      assert.notInclude(`${error.message} ${error.fix}`, "Sup3rS3cret")
    }))

  it.live("a closed port is SOURCE_UNREACHABLE naming 127.0.0.1:1 without the password", () =>
    Effect.gen(function*() {
      const runs: ReadonlyArray<(i: ConnectorInput) => Effect.Effect<unknown, ConnectorError>> = [
        MysqlConnector.scan,
        MysqlConnector.probe
      ]
      for (const run of runs) {
        const error = yield* Effect.flip(run(input("mysql://root:Sup3rS3cret@127.0.0.1:1/sakila")))
        assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
        assert.include(error.fix ?? "", "127.0.0.1:1")
        assert.notInclude(`${error.message} ${error.fix}`, "Sup3rS3cret")
      }
    }))
})
