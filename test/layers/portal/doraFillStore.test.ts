/**
 * The DORA fills store on both back ends (SQLite in a temp home, a fresh PostgreSQL database): a fill is
 * stored per claim, a later fill of the same cell replaces it (one current value), and claims do not see each
 * other's fills.
 */
import type { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { portalSqlClient, portalStoreOnClient } from "../../../src/layers/portal/PortalSql.js"
import { DoraFillStore } from "../../../src/services/portal/DoraFillStore.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"

const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-dora-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const backends: ReadonlyArray<{
  readonly name: "sqlite" | "postgres"
  readonly layer: Layer.Layer<PortalStore | DoraFillStore | SqlClient.SqlClient, unknown>
}> = [
  {
    name: "sqlite",
    layer: Layer.unwrapScoped(Effect.map(tempHome, (home) =>
      portalStoreOnClient.pipe(
        Layer.provideMerge(portalSqlClient({ databaseUrl: null, home: path.join(home, "portal") }))
      )))
  },
  {
    name: "postgres",
    layer: Layer.unwrapScoped(Effect.map(makePgDatabase({ analyze: false }), (db) =>
      portalStoreOnClient.pipe(
        Layer.provideMerge(portalSqlClient({ databaseUrl: db.url, home: "/nonexistent" }))
      )))
  }
]

let counter = 0
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`

/** A live claim to hang fills on (the table references claims). */
const newClaim = Effect.gen(function*() {
  const store = yield* PortalStore
  const body = "{}"
  const claimId = unique("cl_")
  yield* store.ingest({
    claimId,
    tokenHash: unique("tok"),
    recordKeyHash: unique("rec"),
    recipient: "dpo@acme.example",
    unbound: false,
    body,
    bytes: 2,
    sha256: unique("sha"),
    at: "2026-03-01T10:00:00.000Z"
  })
  return claimId
})

const fill = (
  over: Partial<{ table: string; rowKey: string; field: string; value: string; by: string; at: string }>
) => ({
  table: "B_02.01",
  rowKey: "CTR-001",
  field: "c0020",
  value: "eba_CT:x1",
  by: "dpo@acme.example",
  at: "2026-03-01T11:00:00.000Z",
  ...over
})

for (const backend of backends) {
  describe(`DoraFillStore on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("stores fills per claim, ordered by table, row and field; a claim without fills lists none", () =>
        Effect.gen(function*() {
          const fills = yield* DoraFillStore
          const a = yield* newClaim
          const b = yield* newClaim
          yield* fills.put(
            a,
            fill({ table: "B_05.01", rowKey: "5299000CLOUDPROV0184", field: "c0050", value: "Cloud" })
          )
          yield* fills.put(a, fill({}))
          yield* fills.put(a, fill({ field: "c0040", value: "eba_CU:EUR" }))
          yield* fills.put(b, fill({ value: "eba_CT:x2", by: "claim admin" }))
          const listA = yield* fills.list(a)
          assert.deepStrictEqual(listA.map((f) => `${f.table} ${f.rowKey} ${f.field}=${f.value}`), [
            "B_02.01 CTR-001 c0020=eba_CT:x1",
            "B_02.01 CTR-001 c0040=eba_CU:EUR",
            "B_05.01 5299000CLOUDPROV0184 c0050=Cloud"
          ])
          assert.deepStrictEqual(listA[0], fill({}))
          assert.strictEqual(yield* fills.count(a), 3)
          assert.deepStrictEqual(yield* fills.list(b), [fill({ value: "eba_CT:x2", by: "claim admin" })])
          assert.strictEqual(yield* fills.count(b), 1)
          assert.deepStrictEqual(yield* fills.list("cl_none"), [])
          assert.strictEqual(yield* fills.count("cl_none"), 0)
        }))

      it.effect("a later fill of the same cell replaces it: one current value, its author and time", () =>
        Effect.gen(function*() {
          const fills = yield* DoraFillStore
          const a = yield* newClaim
          yield* fills.put(a, fill({}))
          yield* fills.put(a, fill({ value: "eba_CT:x2", by: "claim admin", at: "2026-03-02T09:00:00.000Z" }))
          assert.deepStrictEqual(yield* fills.list(a), [
            fill({ value: "eba_CT:x2", by: "claim admin", at: "2026-03-02T09:00:00.000Z" })
          ])
          // Concurrent fills of one cell leave exactly one row.
          yield* Effect.all(
            Array.from({ length: 8 }, (_, i) => fills.put(a, fill({ value: `v${i}` }))),
            { concurrency: "unbounded", discard: true }
          )
          const after = yield* fills.list(a)
          assert.strictEqual(after.length, 1)
          assert.match(after[0]!.value, /^v[0-7]$/)
        }))
    })
  })
}
