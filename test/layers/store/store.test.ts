import { SqlError } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { RawColumn, RawDataset } from "../../../src/domain/Metadata.js"
import { NodeSqliteClient } from "../../../src/layers/NodeSqlite.js"
import { SqlMemoryLive, StoreMemoryLive } from "../../../src/layers/SqlMemory.js"
import { StoreLive, StoreReaderLive } from "../../../src/layers/store/index.js"
import { ChangeLog } from "../../../src/services/ChangeLog.js"
import { columnId, datasetId, type SourceOutcome, Store, StoreReader } from "../../../src/services/Store.js"
import { column, scannedOutcome, verdict } from "../../utils/TestLayers.js"

const table = (
  name: string,
  columns: ReadonlyArray<RawColumn>,
  dependsOn: RawDataset["dependsOn"] = []
): RawDataset => ({
  schema: "main",
  name,
  kind: dependsOn.length > 0 ? "view" : "table",
  comment: null,
  rowEstimate: 10,
  rowEstimateSource: "none",
  columns,
  dependsOn
})
const customers = table("customers", [column("id", 1, { isPrimaryKey: true }), column("email", 2)])
const recent = table("recent_customers", [column("email", 1)], [{ schema: "main", name: "customers" }])
const firstScan = scannedOutcome([customers, recent], [[verdict("not"), verdict("personal")], [verdict("personal")]])
const email = columnId(datasetId("shop", "main", "customers"), "email")
const commit = (outcomes: ReadonlyArray<SourceOutcome>, removedSources: ReadonlyArray<string> = []) =>
  Effect.flatMap(
    Store,
    (s) => s.commitScan({ startedAt: new Date().toISOString(), outcomes, removedSources, by: "ann" })
  )
const refused = new SqlError.SqlError({ cause: "test", message: "the change-log refuses entries" })
const allChanges = Effect.flatMap(StoreReader, (r) => r.changes({ sinceSeq: 0, limit: 1000 }))

describe("SQLite store (in memory)", () => {
  it.effect("commits a scan and reads it back", () =>
    Effect.gen(function*() {
      const summary = yield* commit([firstScan])
      assert.strictEqual(summary.added, 2)
      assert.deepStrictEqual(summary.personalBySource, { shop: 2 })
      const reader = yield* StoreReader
      const datasets = yield* reader.datasets
      assert.deepStrictEqual(datasets.map((d) => [d.id, d.kind, d.columns, d.personal]), [
        ["shop/main/customers", "table", 2, 1],
        ["shop/main/recent_customers", "view", 1, 1]
      ])
      const columns = yield* reader.columnsOf("shop/main/customers")
      assert.deepStrictEqual(columns.map((c) => [c.id, c.m_value, c.is_pk, c.o_value]), [
        ["shop/main/customers/id", "not", 1, null],
        [email, "personal", 0, null]
      ])
      assert.deepStrictEqual(JSON.parse(columns[1]!.m_evidence), ["name token:personal"])
      const edges = yield* reader.edges()
      assert.deepStrictEqual(edges.map((e) => [e.from_id, e.to_id, e.origin, e.from_known, e.to_known]), [
        ["shop/main/customers", "shop/main/recent_customers", "scan", 1, 1]
      ])
      const sources = yield* reader.sources
      assert.deepStrictEqual(sources.map((s) => [s.id, s.status, s.datasets]), [["shop", "ok", 2]])
      assert.strictEqual((yield* reader.lastScan)?.changes, summary.changes)
      const hits = yield* reader.searchDatasets(`"recent"*`, 10)
      assert.deepStrictEqual(hits.map((h) => h.id), ["shop/main/recent_customers"])
      assert.strictEqual(yield* reader.resolveDatasetId("SHOP/main/Customers"), "shop/main/customers")

      // The same metadata again: nothing is rewritten.
      const again = yield* commit([firstScan])
      assert.deepStrictEqual([again.added, again.changed, again.unchanged, again.changes], [0, 0, 2, 0])
    }).pipe(Effect.provide(StoreMemoryLive)))

  it.effect("a human override survives a re-scan; clearing it returns to the scan's value", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const reader = yield* StoreReader
      yield* commit([firstScan])
      assert.deepStrictEqual(yield* store.setOverride(email, "special", "ann"), { previous: "personal" })
      // The re-scan reclassifies the column (and changes its type): the override stays on top.
      const rescan = scannedOutcome(
        [
          table("customers", [column("id", 1, { isPrimaryKey: true }), column("email", 2, { type: "varchar" })]),
          recent
        ],
        [[verdict("not"), verdict("not", "type-veto:varchar")], [verdict("personal")]],
        "fp2"
      )
      const summary = yield* commit([rescan])
      assert.deepStrictEqual([summary.changed, summary.reclassified], [1, 1])
      const after = yield* reader.column(email)
      assert.deepStrictEqual([after?.m_value, after?.o_value, after?.o_by], ["not", "special", "ann"])
      assert.deepStrictEqual(yield* store.clearOverride(email, "bob"), { cleared: true, restored: "not" })
      assert.strictEqual((yield* reader.column(email))?.o_value, null)
      assert.deepStrictEqual(yield* store.clearOverride(email, "bob"), { cleared: false, restored: "not" })
    }).pipe(Effect.provide(StoreMemoryLive)))

  it.effect("the change-log records each write, in order, with who and which scan", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const summary = yield* commit([firstScan])
      yield* store.setOverride(email, "special", "ann")
      yield* store.clearOverride(email, "bob")
      yield* store.setAnnotation({
        activity_key: "customers",
        field: "purpose",
        value: "Orders",
        status: "suggested",
        by: "ann",
        at: "2026-01-01T00:00:00.000Z",
        confirmed_by: null,
        confirmed_at: null,
        basis: null
      })
      yield* commit([], ["shop"])
      const { rows, total } = yield* allChanges
      const log = [...rows].reverse().map((r) => [r.kind, r.entity, r.by, r.scan_id])
      assert.deepStrictEqual(log, [
        ["source.added", "shop", null, summary.scanId],
        ["dataset.added", "shop/main/customers", null, summary.scanId],
        ["dataset.added", "shop/main/recent_customers", null, summary.scanId],
        ["column.classified", email, "ann", null],
        ["column.classification_cleared", email, "bob", null],
        ["ropa.field_filled", "customers.purpose", "ann", null],
        ["dataset.dropped", "shop/main/customers", null, summary.scanId + 1],
        ["dataset.dropped", "shop/main/recent_customers", null, summary.scanId + 1],
        ["source.removed", "shop", "ann", summary.scanId + 1]
      ])
      assert.strictEqual(total, 9)
      assert.deepStrictEqual(JSON.parse(rows.find((r) => r.kind === "column.classified")!.detail), {
        from: "personal",
        to: "special",
        machine: "personal"
      })
      const changeLog = yield* ChangeLog
      assert.isTrue(yield* changeLog.recorded("source.removed", "shop"))
      assert.isFalse(yield* changeLog.recorded("source.removed", "elsewhere"))
    }).pipe(Effect.provide(StoreMemoryLive)))

  it.effect("a scan that fails part-way leaves the previous catalog whole", () =>
    Effect.gen(function*() {
      yield* commit([firstScan])
      const reader = yield* StoreReader
      const before = { datasets: yield* reader.datasets, changes: yield* allChanges, scan: yield* reader.lastScan }
      // A new dataset is written, then a dataset without verdicts for its columns throws mid-commit.
      const broken = scannedOutcome(
        [table("orders", [column("id", 1)]), table("invoices", [column("id", 1), column("iban", 2)])],
        [[verdict("not")], []],
        "fp3"
      )
      const error = yield* Effect.flip(commit([broken]))
      assert.strictEqual(error._tag, "SqlError")
      assert.deepStrictEqual(yield* reader.datasets, before.datasets)
      assert.deepStrictEqual(yield* allChanges, before.changes)
      assert.deepStrictEqual(yield* reader.lastScan, before.scan)
    }).pipe(Effect.provide(StoreMemoryLive)))

  it.effect("a write whose change cannot be recorded is not written", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const reader = yield* StoreReader
      const raw = yield* NodeSqliteClient
      // Seed one dataset directly (this store's change-log refuses every entry).
      raw.db.exec(
        "INSERT INTO datasets (id, source_id, schema_name, name, kind, row_estimate_source, fingerprint, first_seen_at, scanned_at) VALUES ('shop/main/t', 'shop', 'main', 't', 'table', 'none', 'x', 'now', 'now')"
      )
      raw.db.exec(
        `INSERT INTO columns (id, dataset_id, position, name, type, nullable, is_pk, m_value, m_rule, m_confidence, m_method, m_evidence) VALUES ('shop/main/t/email', 'shop/main/t', 1, 'email', 'text', 1, 0, 'personal', 'r', 1, 'm', '[]')`
      )
      const error = yield* Effect.flip(store.setOverride("shop/main/t/email", "special", "ann"))
      assert.strictEqual(error._tag, "SqlError")
      assert.strictEqual((yield* reader.column("shop/main/t/email"))?.o_value, null)
      const scan = yield* Effect.flip(commit([firstScan]))
      assert.strictEqual(scan._tag, "SqlError")
      assert.deepStrictEqual((yield* reader.datasets).map((d) => d.id), ["shop/main/t"])
      assert.strictEqual(yield* reader.lastScan, null)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(StoreReaderLive, StoreLive).pipe(
          Layer.provide(
            Layer.succeed(
              ChangeLog,
              ChangeLog.of({
                record: () => Effect.fail(refused),
                recordAll: () => Effect.fail(refused),
                recorded: () => Effect.succeed(false)
              })
            )
          ),
          Layer.provideMerge(SqlMemoryLive)
        )
      )
    ))

  it.effect("a transaction of several writes is all or nothing", () =>
    Effect.gen(function*() {
      yield* commit([firstScan])
      const store = yield* Store
      const reader = yield* StoreReader
      const changeLog = yield* ChangeLog
      const id = "e_test"
      const failed = yield* Effect.flip(store.transaction(Effect.gen(function*() {
        yield* store.addUserEdge({
          id,
          from: "shop/main/recent_customers",
          to: "shop/main/customers",
          at: "t",
          by: "ann"
        })
        yield* changeLog.record({
          at: "t",
          scanId: null,
          kind: "lineage.added",
          entity: id,
          sourceId: null,
          detail: {},
          by: "ann"
        })
        return yield* Effect.fail("stop" as const)
      })))
      assert.strictEqual(failed, "stop")
      assert.strictEqual(yield* reader.edge(id), null)
      assert.isFalse(yield* changeLog.recorded("lineage.added", id))
    }).pipe(Effect.provide(StoreMemoryLive)))

  it.effect("a row that does not decode is SCHEMA_MIGRATION_REQUIRED naming its table and column", () =>
    Effect.gen(function*() {
      yield* commit([firstScan])
      const raw = yield* NodeSqliteClient
      raw.db.prepare("UPDATE columns SET m_evidence = ? WHERE id = ?").run("{not json", email)
      const reader = yield* StoreReader
      const error = yield* Effect.flip(reader.column(email))
      assert.strictEqual(error._tag, "SchemaMigrationRequired")
      if (error._tag === "SchemaMigrationRequired") {
        assert.strictEqual(error.code, "SCHEMA_MIGRATION_REQUIRED")
        assert.include(error.message, "table columns")
        assert.include(error.message, "m_evidence")
        assert.deepStrictEqual(error.details, { table: "columns" })
      }
      raw.db.prepare("UPDATE sources SET status = 'sideways'").run()
      const sources = yield* Effect.flip(reader.sources)
      assert.strictEqual(sources._tag, "SchemaMigrationRequired")
      assert.include(sources.message, "table sources")
    }).pipe(Effect.provide(StoreMemoryLive)))
})
