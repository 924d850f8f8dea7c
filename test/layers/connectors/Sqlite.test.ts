import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { pathToFileURL } from "node:url"
import type { RawDataset, RawSource } from "../../../src/domain/Metadata.js"
import { SqliteConnector, sqlitePath } from "../../../src/layers/connectors/Sqlite.js"
import type { ConnectorError, ConnectorInput } from "../../../src/services/Connectors.js"

const schema = `
  CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    email VARCHAR(120) NOT NULL,
    full_name TEXT,
    "Date Of Birth" DATE
  );
  CREATE TABLE orders (
    order_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    customer_id INTEGER REFERENCES customers(id),
    total NUMERIC(10,2),
    total_with_tax GENERATED ALWAYS AS (total * 1.2) VIRTUAL,
    PRIMARY KEY (order_id, line)
  );
  CREATE TABLE notes (body, owner INTEGER REFERENCES customers);
  CREATE INDEX orders_customer ON orders(customer_id);
  CREATE VIEW customer_orders AS
    SELECT c.email, o.total FROM customers AS c JOIN "orders" o ON o.customer_id = c.id
    WHERE c.full_name <> 'from notes';
  CREATE VIEW big_orders AS SELECT * FROM customer_orders WHERE total > 100;
  CREATE TABLE counter (n INTEGER PRIMARY KEY AUTOINCREMENT);
  INSERT INTO customers (email, full_name) VALUES ('a@example.org', 'Ada'), ('b@example.org', 'Bob');
  INSERT INTO counter DEFAULT VALUES;
`

/** A fresh folder holding `shop.db` built from `schema`; removed when the test's scope closes. */
const makeDb = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = mkdtempSync(path.join(tmpdir(), "ldc-sqlite-"))
    const file = path.join(dir, "shop.db")
    const db = new DatabaseSync(file)
    db.exec(schema)
    db.close()
    return { dir, file }
  }),
  ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const input = (secret: string | null, baseDir: string): ConnectorInput => ({
  source: { id: "lite", kind: "sqlite", driver: "node:sqlite", connectionRef: "LITE_PATH" },
  secret,
  baseDir
})

const find = (raw: RawSource, name: string): RawDataset => {
  const d = raw.datasets.find((x) => x.name === name)
  if (d === undefined) throw new Error(`${name} missing`)
  return d
}

const fingerprint = (file: string) => ({
  sha: createHash("sha256").update(readFileSync(file)).digest("hex"),
  mtime: statSync(file).mtimeMs,
  size: statSync(file).size
})

describe("SqliteConnector", () => {
  it.scopedLive("reads tables, columns, keys and view lineage; leaves the file untouched", () =>
    Effect.gen(function*() {
      const { dir, file } = yield* makeDb
      const before = fingerprint(file)
      const raw = yield* SqliteConnector.scan(input("shop.db", dir))
      assert.match(raw.serverVersion ?? "", /^SQLite 3\.\d+/)
      assert.deepStrictEqual(raw.datasets.map((d) => [d.name, d.kind]), [
        ["big_orders", "view"],
        ["counter", "table"],
        ["customer_orders", "view"],
        ["customers", "table"],
        ["notes", "table"],
        ["orders", "table"]
      ])
      for (const d of raw.datasets) {
        assert.strictEqual(d.schema, "main")
        assert.strictEqual(d.rowEstimate, null)
        assert.strictEqual(d.rowEstimateSource, "none")
      }
      const customers = find(raw, "customers")
      assert.deepStrictEqual(customers.columns.map((c) => [c.name, c.type, c.nullable, c.position, c.isPrimaryKey]), [
        ["id", "INTEGER", false, 1, true],
        ["email", "VARCHAR(120)", false, 2, false],
        ["full_name", "TEXT", true, 3, false],
        ["Date Of Birth", "DATE", true, 4, false]
      ])
      const orders = find(raw, "orders")
      assert.deepStrictEqual(orders.columns.map((c) => c.name), [
        "order_id",
        "line",
        "customer_id",
        "total",
        "total_with_tax"
      ])
      assert.deepStrictEqual(orders.columns.filter((c) => c.isPrimaryKey).map((c) => c.name), ["order_id", "line"])
      assert.deepStrictEqual(orders.columns[2]!.references, { schema: "main", table: "customers", column: "id" })
      // REFERENCES without a column targets the parent's primary key.
      assert.deepStrictEqual(find(raw, "notes").columns[1]!.references, {
        schema: "main",
        table: "customers",
        column: "id"
      })
      assert.deepStrictEqual(find(raw, "notes").columns[0]!.type, "")
      assert.deepStrictEqual(find(raw, "customer_orders").dependsOn, [
        { schema: "main", name: "customers" },
        { schema: "main", name: "orders" }
      ])
      assert.deepStrictEqual(find(raw, "customer_orders").columns.map((c) => c.name), ["email", "total"])
      assert.deepStrictEqual(find(raw, "big_orders").dependsOn, [{ schema: "main", name: "customer_orders" }])
      assert.isFalse(raw.datasets.some((d) => d.name.startsWith("sqlite_")))
      assert.deepStrictEqual(fingerprint(file), before)
      assert.isFalse(existsSync(`${file}-journal`) || existsSync(`${file}-wal`))
    }))

  it.scopedLive("accepts sqlite: and file: URLs and absolute paths", () =>
    Effect.gen(function*() {
      const { dir, file } = yield* makeDb
      for (
        const spelling of [
          file,
          `sqlite:${file}`,
          `sqlite://${file}`,
          pathToFileURL(file).href,
          "sqlite:shop.db",
          "./shop.db"
        ]
      ) {
        const raw = yield* SqliteConnector.scan(input(spelling, dir))
        assert.strictEqual(raw.datasets.length, 6, spelling)
      }
      assert.strictEqual(sqlitePath("sqlite:///data/app.db", "/x"), "/data/app.db")
      assert.strictEqual(sqlitePath("file:app.db?mode=ro", "/x"), "/x/app.db")
      const probe = yield* SqliteConnector.probe(input("shop.db", dir))
      assert.strictEqual(probe.target, file)
      assert.match(probe.serverVersion ?? "", /^SQLite /)
    }))

  it.scopedLive("a missing file is SOURCE_UNREACHABLE and is not created", () =>
    Effect.gen(function*() {
      const { dir } = yield* makeDb
      const missing = path.join(dir, "nope.db")
      const runs: ReadonlyArray<(i: ConnectorInput) => Effect.Effect<unknown, ConnectorError>> = [
        SqliteConnector.scan,
        SqliteConnector.probe
      ]
      for (const run of runs) {
        // From the connection variable: the message names the variable, never its value.
        const error = yield* Effect.flip(run(input("nope.db", dir)))
        assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
        assert.include(error.message, "named by LITE_PATH")
        assert.include(error.message, "does not exist")
        assert.notInclude(`${error.message} ${error.fix}`, "nope.db")
        assert.include(error.fix ?? "", "LITE_PATH")
        // From `path` in catalog.yml (no secret): the message names the file.
        const byPath = yield* Effect.flip(
          run({
            source: { id: "lite", kind: "sqlite", driver: "node:sqlite", path: "nope.db" },
            secret: null,
            baseDir: dir
          })
        )
        assert.include(byPath.message, missing)
      }
      assert.isFalse(existsSync(missing))
    }))

  it.scopedLive("a FIFO, a device or a folder is refused before it is opened (no hang)", () =>
    Effect.gen(function*() {
      const { dir } = yield* makeDb
      const fifo = path.join(dir, "pipe.db")
      execFileSync("mkfifo", [fifo])
      const cases: ReadonlyArray<readonly [string, RegExp]> = [
        [fifo, /named pipe \(FIFO\), not a regular file/],
        ["/dev/zero", /character device, not a regular file/],
        [dir, /a folder, not a regular file/]
      ]
      for (const [target, reason] of cases) {
        const runs: ReadonlyArray<(i: ConnectorInput) => Effect.Effect<unknown, ConnectorError>> = [
          SqliteConnector.scan,
          SqliteConnector.probe
        ]
        for (const run of runs) {
          const t0 = performance.now()
          const error = yield* Effect.flip(run(input(target, dir)))
          assert.isBelow(performance.now() - t0, 2000)
          assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
          assert.match(error.message, reason)
          assert.include(error.fix ?? "", "catalog test lite")
        }
      }
    }))

  it.scopedLive("a file that is not a database is SOURCE_UNREACHABLE", () =>
    Effect.gen(function*() {
      const { dir } = yield* makeDb
      const notDb = path.join(dir, "readme.db")
      yield* Effect.sync(() => writeFileSync(notDb, "this is not sqlite ".repeat(100)))
      const error = yield* Effect.flip(SqliteConnector.scan(input(notDb, dir)))
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
    }))
})
