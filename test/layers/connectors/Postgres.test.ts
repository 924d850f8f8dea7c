import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import type { RawDataset, RawSource } from "../../../src/domain/Metadata.js"
import { PostgresConnector, sessionSql, withClient } from "../../../src/layers/connectors/Postgres.js"
import type { ConnectorError, ConnectorInput } from "../../../src/services/Connectors.js"
import {
  capturePgStatements,
  fixturesDir,
  metadataViolations,
  pgDatabaseLayer,
  pgFixtures,
  psql,
  TestDatabaseTag
} from "../../utils/databases.js"

interface ExpectedPg {
  readonly tables: ReadonlyArray<{
    readonly table_name: string
    readonly kind: string
    readonly reltuples_after_analyze: number
    readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string; readonly not_null: boolean }>
  }>
}

const expected = (file: string): ExpectedPg =>
  JSON.parse(readFileSync(path.join(fixturesDir, file), "utf8")) as ExpectedPg

const input = (url: string, schemas?: ReadonlyArray<string>): ConnectorInput => ({
  source: {
    id: "pg",
    kind: "postgres",
    driver: "pg",
    connectionRef: "PG_URL",
    ...(schemas === undefined ? {} : { schemas })
  },
  secret: url,
  baseDir: process.cwd()
})

const find = (raw: RawSource, name: string, schema = "public"): RawDataset => {
  const d = raw.datasets.find((x) => x.schema === schema && x.name === name)
  if (d === undefined) throw new Error(`dataset ${schema}.${name} missing`)
  return d
}

/** Every expected relation is present with its kind, columns (order, type, nullability) and estimate. */
const assertMatchesExpected = (
  raw: RawSource,
  exp: ExpectedPg,
  kindOf: (t: ExpectedPg["tables"][number]) => string
) => {
  const names = raw.datasets.filter((d) => d.schema === "public").map((d) => d.name).sort()
  assert.deepStrictEqual(names, exp.tables.map((t) => t.table_name).sort())
  for (const t of exp.tables) {
    const d = find(raw, t.table_name)
    assert.strictEqual(d.kind, kindOf(t), `${t.table_name} kind`)
    assert.deepStrictEqual(
      d.columns.map((c) => [c.name, c.type, !c.nullable]),
      t.columns.map((c) => [c.name, c.type, c.not_null]),
      `${t.table_name} columns`
    )
    assert.deepStrictEqual(d.columns.map((c) => c.position), t.columns.map((_, i) => i + 1))
    const estimate = t.kind === "view" || t.reltuples_after_analyze < 0 ? null : t.reltuples_after_analyze
    assert.strictEqual(d.rowEstimate, estimate, `${t.table_name} estimate`)
    assert.strictEqual(d.rowEstimateSource, estimate === null ? "none" : "pg_class.reltuples")
  }
}

const deps = (d: RawDataset): Array<string> => d.dependsOn.map((x) => `${x.schema}.${x.name}`).sort()

describe("PostgresConnector", () => {
  layer(
    pgDatabaseLayer({
      fixture: pgFixtures.pagila,
      sql: `COMMENT ON TABLE public.customer IS 'People who rent films';
          COMMENT ON COLUMN public.customer.email IS 'Contact e-mail, personal data';`
    }),
    { timeout: "120 seconds", excludeTestServices: true }
  )("pagila", (it) => {
    it.effect("matches the fixture: kinds, columns, types, estimates", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* PostgresConnector.scan(input(db.url))
        assert.match(raw.serverVersion ?? "", /^PostgreSQL 1\d\.\d+$/)
        const exp = expected("pagila/expected-pg15-after-analyze.json")
        assert.strictEqual(exp.tables.length, 30)
        assertMatchesExpected(raw, exp, (t) => (/^payment_p\d{4}_\d\d$/.test(t.table_name) ? "partition" : t.kind))
        assert.strictEqual(find(raw, "payment").kind, "partitioned_table")
        assert.strictEqual(find(raw, "payment").rowEstimate, 16049)
        assert.strictEqual(find(raw, "payment_p2022_02").rowEstimate, 2401)
        assert.strictEqual(find(raw, "rental_by_category").kind, "materialized_view")
        assert.strictEqual(find(raw, "actor_info").rowEstimate, null)
      }))

    it.effect("reports view and materialized-view lineage from pg_depend", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* PostgresConnector.scan(input(db.url))
        assert.deepStrictEqual(deps(find(raw, "actor_info")), [
          "public.actor",
          "public.category",
          "public.film",
          "public.film_actor",
          "public.film_category"
        ])
        assert.deepStrictEqual(deps(find(raw, "customer_list")), [
          "public.address",
          "public.city",
          "public.country",
          "public.customer"
        ])
        assert.deepStrictEqual(deps(find(raw, "sales_by_store")), [
          "public.address",
          "public.city",
          "public.country",
          "public.inventory",
          "public.payment",
          "public.rental",
          "public.staff",
          "public.store"
        ])
        assert.deepStrictEqual(deps(find(raw, "rental_by_category")), [
          "public.category",
          "public.film",
          "public.film_category",
          "public.inventory",
          "public.payment",
          "public.rental"
        ])
        for (const d of raw.datasets) {
          if (d.kind === "view" || d.kind === "materialized_view") assert.isAbove(d.dependsOn.length, 0, d.name)
          else assert.strictEqual(d.dependsOn.length, 0, d.name)
        }
      }))

    it.effect("reports primary and foreign keys and comments", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* PostgresConnector.scan(input(db.url))
        const col = (table: string, column: string) => {
          const c = find(raw, table).columns.find((x) => x.name === column)
          if (c === undefined) throw new Error(`${table}.${column} missing`)
          return c
        }
        assert.isTrue(col("actor", "actor_id").isPrimaryKey)
        assert.isFalse(col("actor", "first_name").isPrimaryKey)
        assert.isTrue(col("film_actor", "actor_id").isPrimaryKey)
        assert.isTrue(col("film_actor", "film_id").isPrimaryKey)
        assert.deepStrictEqual(col("film_actor", "actor_id").references, {
          schema: "public",
          table: "actor",
          column: "actor_id"
        })
        assert.deepStrictEqual(col("address", "city_id").references, {
          schema: "public",
          table: "city",
          column: "city_id"
        })
        assert.deepStrictEqual(col("film", "original_language_id").references, {
          schema: "public",
          table: "language",
          column: "language_id"
        })
        assert.deepStrictEqual(col("payment_p2022_01", "customer_id").references, {
          schema: "public",
          table: "customer",
          column: "customer_id"
        })
        assert.isTrue(col("payment", "payment_id").isPrimaryKey)
        assert.isTrue(col("payment", "payment_date").isPrimaryKey)
        assert.strictEqual(col("customer", "email").comment, "Contact e-mail, personal data")
        assert.strictEqual(col("customer", "first_name").comment, null)
        assert.strictEqual(find(raw, "customer").comment, "People who rent films")
        assert.strictEqual(find(raw, "actor").comment, null)
      }))

    it.effect("reads the system catalog only: no user table, no count(), a constant number of statements", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const { result, statements } = yield* capturePgStatements(db.name, PostgresConnector.scan(input(db.url)))
        assert.strictEqual(result.datasets.length, 30)
        if (process.env.CATALOG_TEST_DEBUG) console.log(statements.join("\n---\n"))
        assert.isAbove(statements.length, 0, "the statement log captured nothing")
        // Each pooled connection (at most 5) first makes its session read-only; the catalog reads stay constant.
        const session = statements.filter((st) => st === sessionSql)
        const reads = statements.filter((st) => st !== sessionSql)
        assert.isAtLeast(session.length, 1)
        assert.isAtMost(session.length, 5)
        assert.isAtMost(reads.length, 10, reads.join("\n---\n"))
        const userTables = [
          ...expected("pagila/expected-pg15-after-analyze.json").tables.map((t) => t.table_name),
          "payment_p2022_01"
        ]
        assert.deepStrictEqual(metadataViolations(statements, userTables), [])
        // The checker itself catches a read of a user table.
        assert.lengthOf(metadataViolations(["select * from public.\"actor\""], userTables), 1)
        assert.lengthOf(metadataViolations(["SELECT COUNT (*) FROM pg_class"], userTables), 1)
      }))

    it.effect("every connection of the connector is read-only with a statement timeout; a write is refused by the server", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        // Even a connection string asking for read-write sessions gets read-only ones.
        const url = `${db.url}?options=${
          encodeURIComponent("-c default_transaction_read_only=off -c statement_timeout=0")
        }`
        const settings = yield* withClient(input(url), (sql) =>
          Effect.all(
            Array.from({ length: 5 }, () =>
              sql.unsafe<{ ro: string; timeout: string; pid: number }>(
                "select current_setting('transaction_read_only') as ro, current_setting('statement_timeout') as timeout, pg_backend_pid() as pid from pg_sleep(0.3)"
              )),
            { concurrency: "unbounded" }
          ))
        const rows = settings.flat()
        assert.isAbove(new Set(rows.map((r) => r.pid)).size, 1, "the queries ran on several pooled connections")
        for (const r of rows) {
          assert.strictEqual(r.ro, "on")
          assert.strictEqual(r.timeout, "1min")
        }
        const write = yield* Effect.flip(
          withClient(input(db.url), (sql) => sql.unsafe("create table ldc_write_probe (x int)"))
        )
        assert.strictEqual(write.code, "SOURCE_UNREACHABLE")
        assert.match(write.message, /read-only transaction/)
        // The server refused it: nothing was created.
        assert.strictEqual(
          (yield* psql(db.name, "select count(*) from pg_class where relname = 'ldc_write_probe'")).trim(),
          "0"
        )
      }))

    it.effect("probe returns the version and a password-free target", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const probe = yield* PostgresConnector.probe(input(db.url))
        assert.match(probe.serverVersion ?? "", /^PostgreSQL 1\d\./)
        assert.strictEqual(probe.target, `127.0.0.1:5432/${db.name}`)
      }))
  })

  layer(pgDatabaseLayer({ fixture: pgFixtures.chinook }), { timeout: "120 seconds", excludeTestServices: true })(
    "chinook",
    (it) => {
      it.effect("matches the fixture", () =>
        Effect.gen(function*() {
          const db = yield* TestDatabaseTag
          const raw = yield* PostgresConnector.scan(input(db.url))
          const exp = expected("chinook/expected-pg15-after-analyze.json")
          assertMatchesExpected(raw, exp, (t) => t.kind)
          assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 64)
          const track = find(raw, "track")
          assert.deepStrictEqual(track.columns.find((c) => c.name === "album_id")?.references, {
            schema: "public",
            table: "album",
            column: "album_id"
          })
          assert.isTrue(track.columns.find((c) => c.name === "track_id")?.isPrimaryKey)
        }))
    }
  )

  layer(pgDatabaseLayer({ fixture: pgFixtures.northwind }), { timeout: "120 seconds", excludeTestServices: true })(
    "northwind",
    (it) => {
      it.effect("matches the fixture", () =>
        Effect.gen(function*() {
          const db = yield* TestDatabaseTag
          const raw = yield* PostgresConnector.scan(input(db.url))
          const exp = expected("northwind/expected-pg15-after-analyze.json")
          assertMatchesExpected(raw, exp, (t) => t.kind)
          assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 92)
          assert.strictEqual(find(raw, "customer_customer_demo").rowEstimate, 0)
          assert.deepStrictEqual(find(raw, "orders").columns.find((c) => c.name === "customer_id")?.references, {
            schema: "public",
            table: "customers",
            column: "customer_id"
          })
        }))
    }
  )

  // Never-analysed tables, partition sums, schema filter, other relkinds, dropped columns.
  layer(
    pgDatabaseLayer({
      analyze: false,
      sql: `
      CREATE SCHEMA sales;
      CREATE TABLE sales.events (id int, at date not null, note text) PARTITION BY RANGE (at);
      CREATE TABLE sales.events_2024 PARTITION OF sales.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
      CREATE TABLE sales.events_2025 PARTITION OF sales.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
      INSERT INTO sales.events SELECT g, date '2024-03-01' + (g % 200), 'x' FROM generate_series(1, 1000) g;
      ANALYZE sales.events_2024, sales.events_2025;
      CREATE TABLE sales.unanalysed (a int, b text);
      CREATE TABLE sales.mixed (a int, dropped text, "Quoted Name" varchar(12), tags text[]);
      ALTER TABLE sales.mixed DROP COLUMN dropped;
      CREATE TABLE sales.half (id int, at date) PARTITION BY RANGE (at);
      CREATE TABLE sales.half_a PARTITION OF sales.half FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
      CREATE TABLE sales.half_b PARTITION OF sales.half FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
      ANALYZE sales.half_a;
      CREATE EXTENSION file_fdw;
      CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
      CREATE FOREIGN TABLE sales.imported (code text) SERVER files OPTIONS (filename '/dev/null', format 'csv');
      CREATE VIEW public.v_events AS SELECT e.id, m.a FROM sales.events e JOIN sales.mixed m ON m.a = e.id;
      CREATE TABLE public.plain (id int primary key);
    `
    }),
    { timeout: "120 seconds", excludeTestServices: true }
  )("catalog edge cases", (it) => {
    it.effect("estimates: -1 is null, partitioned parents sum known partitions", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* PostgresConnector.scan(input(db.url))
        const events = find(raw, "events", "sales")
        assert.strictEqual(events.kind, "partitioned_table")
        assert.strictEqual(find(raw, "events_2024", "sales").kind, "partition")
        assert.strictEqual(find(raw, "events_2024", "sales").rowEstimate, 1000)
        assert.strictEqual(find(raw, "events_2025", "sales").rowEstimate, 0)
        assert.strictEqual(events.rowEstimate, 1000)
        assert.strictEqual(events.rowEstimateSource, "pg_class.reltuples")
        assert.strictEqual(find(raw, "half", "sales").rowEstimate, null, "one partition never analysed")
        assert.strictEqual(find(raw, "unanalysed", "sales").rowEstimate, null)
        assert.strictEqual(find(raw, "unanalysed", "sales").rowEstimateSource, "none")
        assert.strictEqual(find(raw, "imported", "sales").kind, "foreign_table")
        assert.deepStrictEqual(deps(find(raw, "v_events")), ["sales.events", "sales.mixed"])
        const mixed = find(raw, "mixed", "sales")
        assert.deepStrictEqual(mixed.columns.map((c) => [c.name, c.type, c.position]), [
          ["a", "integer", 1],
          ["Quoted Name", "character varying(12)", 2],
          ["tags", "text[]", 3]
        ])
      }))

    it.effect("honours source.schemas", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        const raw = yield* PostgresConnector.scan(input(db.url, ["sales"]))
        assert.deepStrictEqual([...new Set(raw.datasets.map((d) => d.schema))], ["sales"])
        assert.isTrue(raw.datasets.some((d) => d.name === "events"))
        const onlyPublic = yield* PostgresConnector.scan(input(db.url, ["public"]))
        assert.deepStrictEqual(onlyPublic.datasets.map((d) => d.name).sort(), ["plain", "v_events"])
      }))
  })

  it.live("an unknown database is SOURCE_UNREACHABLE naming host and port", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        PostgresConnector.scan(input("postgres://postgres:Sup3rS3cret@127.0.0.1:5432/ldc_no_such_db"))
      )
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.include(error.fix ?? "", "127.0.0.1:5432")
      assert.notInclude(`${error.message} ${error.fix}`, "Sup3rS3cret")
    }))

  it.live("a closed port is SOURCE_UNREACHABLE; the fix names 127.0.0.1:1 and nothing leaks the password", () =>
    Effect.gen(function*() {
      const url = "postgres://catalog:Sup3r%40S3cret@127.0.0.1:1/pagila"
      const runs: ReadonlyArray<(i: ConnectorInput) => Effect.Effect<unknown, ConnectorError>> = [
        PostgresConnector.scan,
        PostgresConnector.probe
      ]
      for (const run of runs) {
        const error = yield* Effect.flip(run(input(url)))
        assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
        assert.strictEqual(error._tag, "SourceUnreachable")
        assert.include(error.fix ?? "", "127.0.0.1:1")
        assert.include(error.message, "127.0.0.1:1")
        const text = JSON.stringify({ m: error.message, f: error.fix, d: error.details })
        assert.notInclude(text, "Sup3r")
        assert.notInclude(text, "S3cret")
      }
    }))

  it.live("a malformed connection string is SOURCE_UNREACHABLE without echoing it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(PostgresConnector.scan(input("host=127.0.0.1 password=Sup3rS3cret")))
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.notInclude(`${error.message} ${error.fix}`, "Sup3rS3cret")
    }))

  it.live("psql helper sanity: the server answers", () =>
    Effect.map(psql("postgres", "select 1"), (out) => assert.strictEqual(out.trim(), "1")))
})
