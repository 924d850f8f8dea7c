/**
 * The portal's sync tokens (SyncTokenStore), one behaviour suite on both back ends: SQLite in a temporary
 * folder and a uniquely named PostgreSQL database. Create, list, claim-scoped revoke, lookup by hash,
 * touch, and the paired machine's snapshot append (live claims only, history bounded).
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as path from "node:path"
import { portalSqlClient, portalStoreOnClient, type PortalStores } from "../../../src/layers/portal/PortalSql.js"
import { keptSnapshots, SyncTokenStore } from "../../../src/services/portal/SyncTokenStore.js"
import { type IngestInput, PortalStore } from "../../../src/services/PortalStore.js"
import { tempProject } from "../../utils/cli.js"
import { makePgDatabase } from "../../utils/databases.js"

const tempHome = Effect.map(
  Effect.acquireRelease(Effect.sync(() => tempProject("portal-sync-store-")), (p) => Effect.sync(p.cleanup)),
  (p) => p.dir
)

const backends: ReadonlyArray<{
  readonly name: "sqlite" | "postgres"
  readonly layer: Layer.Layer<PortalStores | SqlClient.SqlClient, unknown>
}> = [
  {
    name: "sqlite",
    layer: Layer.unwrapScoped(
      Effect.map(tempHome, (home) =>
        portalStoreOnClient.pipe(
          Layer.provideMerge(portalSqlClient({ databaseUrl: null, home: path.join(home, "p") }))
        ))
    )
  },
  {
    name: "postgres",
    layer: Layer.unwrapScoped(
      Effect.map(
        makePgDatabase({ analyze: false }),
        (db) =>
          portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient({ databaseUrl: db.url, home: "/nonexistent" })))
      )
    )
  }
]

let counter = 0
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`

const claim = (record: string, at: string): IngestInput => {
  const body = JSON.stringify({ record, at })
  return {
    claimId: unique("cl_"),
    tokenHash: unique("tok"),
    recordKeyHash: record,
    recipient: null,
    unbound: true,
    body,
    bytes: Buffer.byteLength(body),
    sha256: unique("sha"),
    at
  }
}

const SnapshotRow = Schema.Struct({ body: Schema.String, sha256: Schema.String })

for (const backend of backends) {
  describe(`SyncTokenStore on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("create, list (newest first), find by hash, touch", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const c = claim(unique("rec"), "2026-02-01T10:00:00.000Z")
          yield* store.ingest(c)
          const a = yield* tokens.create({
            id: unique("st_"),
            claimId: c.claimId,
            tokenHash: unique("h"),
            label: "laptop",
            at: "2026-02-01T10:01:00.000Z"
          })
          const bHash = unique("h")
          const b = yield* tokens.create({
            id: unique("st_"),
            claimId: c.claimId,
            tokenHash: bHash,
            label: null,
            at: "2026-02-01T10:02:00.000Z"
          })
          assert.deepStrictEqual(a, {
            id: a.id,
            label: "laptop",
            createdAt: "2026-02-01T10:01:00.000Z",
            lastUsedAt: null,
            revokedAt: null
          })
          assert.deepStrictEqual((yield* tokens.listByClaim(c.claimId)).map((t) => t.id), [b.id, a.id])
          assert.deepStrictEqual(yield* tokens.findByHash(bHash), { tokenId: b.id, claimId: c.claimId, revoked: false })
          assert.isNull(yield* tokens.findByHash("no-such-hash"))
          yield* tokens.touch(b.id, "2026-02-01T11:00:00.000Z")
          const listed = yield* tokens.listByClaim(c.claimId)
          assert.strictEqual(listed.find((t) => t.id === b.id)?.lastUsedAt, "2026-02-01T11:00:00.000Z")
          assert.isNull(listed.find((t) => t.id === a.id)?.lastUsedAt)
          assert.deepStrictEqual(yield* tokens.listByClaim("cl_nothing"), [])
        }))

      it.effect("revoke is claim-scoped and happens once", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const first = claim(unique("rec"), "2026-02-02T10:00:00.000Z")
          const other = claim(unique("rec"), "2026-02-02T10:00:00.000Z")
          yield* store.ingest(first)
          yield* store.ingest(other)
          const hash = unique("h")
          const t = yield* tokens.create({
            id: unique("st_"),
            claimId: first.claimId,
            tokenHash: hash,
            label: null,
            at: "2026-02-02T10:01:00.000Z"
          })
          // A session of another claim cannot revoke it.
          assert.isFalse(yield* tokens.revoke(other.claimId, t.id, "2026-02-02T10:02:00.000Z"))
          assert.deepStrictEqual(yield* tokens.findByHash(hash), {
            tokenId: t.id,
            claimId: first.claimId,
            revoked: false
          })
          assert.isTrue(yield* tokens.revoke(first.claimId, t.id, "2026-02-02T10:03:00.000Z"))
          assert.isFalse(yield* tokens.revoke(first.claimId, t.id, "2026-02-02T10:04:00.000Z"))
          assert.deepStrictEqual(yield* tokens.findByHash(hash), {
            tokenId: t.id,
            claimId: first.claimId,
            revoked: true
          })
          const listed = yield* tokens.listByClaim(first.claimId)
          assert.strictEqual(listed[0]?.revokedAt, "2026-02-02T10:03:00.000Z")
          assert.isFalse(yield* tokens.revoke(first.claimId, "st_unknown", "2026-02-02T10:05:00.000Z"))
        }))

      it.effect("a token hash is unique", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const c = claim(unique("rec"), "2026-02-03T10:00:00.000Z")
          yield* store.ingest(c)
          const hash = unique("h")
          yield* tokens.create({ id: unique("st_"), claimId: c.claimId, tokenHash: hash, label: null, at: c.at })
          const again = yield* Effect.either(
            tokens.create({ id: unique("st_"), claimId: c.claimId, tokenHash: hash, label: null, at: c.at })
          )
          assert.strictEqual(again._tag, "Left")
        }))

      it.effect("appendSnapshot: a new newest body of a live claim, the claim's upload facts updated", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const sql = yield* SqlClient.SqlClient
          const c = claim(unique("rec"), "2026-02-04T10:00:00.000Z")
          yield* store.ingest(c)
          const body = JSON.stringify({ refreshed: true })
          const stored = yield* tokens.appendSnapshot({
            claimId: c.claimId,
            body,
            bytes: Buffer.byteLength(body),
            sha256: "abc123",
            at: "2026-02-04T11:00:00.000Z"
          })
          assert.strictEqual(stored, "stored")
          assert.strictEqual(yield* store.snapshotOf(c.claimId), body)
          const now = yield* store.claimById(c.claimId)
          assert.strictEqual(now?.lastUploadAt, "2026-02-04T11:00:00.000Z")
          assert.strictEqual(now?.bytes, Buffer.byteLength(body))
          assert.strictEqual(now?.sha256, "abc123")
          assert.strictEqual(now?.createdAt, c.at)
          const rows = yield* Schema.decodeUnknown(Schema.Array(SnapshotRow))(
            yield* sql`SELECT body, sha256 FROM snapshots WHERE claim_id = ${c.claimId} ORDER BY seq`
          )
          assert.deepStrictEqual(rows.map((r) => r.sha256), [c.sha256, "abc123"])
        }))

      it.effect("appendSnapshot keeps the newest snapshots only", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const sql = yield* SqlClient.SqlClient
          const c = claim(unique("rec"), "2026-02-05T10:00:00.000Z")
          yield* store.ingest(c)
          for (let i = 0; i < keptSnapshots + 3; i++) {
            yield* tokens.appendSnapshot({
              claimId: c.claimId,
              body: `{"n":${i}}`,
              bytes: 7,
              sha256: `s${i}`,
              at: c.at
            })
          }
          const rows = yield* Schema.decodeUnknown(Schema.Array(SnapshotRow))(
            yield* sql`SELECT body, sha256 FROM snapshots WHERE claim_id = ${c.claimId} ORDER BY seq`
          )
          assert.strictEqual(rows.length, keptSnapshots)
          assert.strictEqual(rows[rows.length - 1]?.sha256, `s${keptSnapshots + 2}`)
          assert.strictEqual(yield* store.snapshotOf(c.claimId), `{"n":${keptSnapshots + 2}}`)
        }))

      it.effect("appendSnapshot stores nothing for a superseded or removed claim", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const tokens = yield* SyncTokenStore
          const record = unique("rec")
          const old = claim(record, "2026-02-06T10:00:00.000Z")
          yield* store.ingest(old)
          yield* store.ingest(claim(record, "2026-02-06T10:05:00.000Z"))
          const input = { claimId: old.claimId, body: "{}", bytes: 2, sha256: "x", at: "2026-02-06T11:00:00.000Z" }
          assert.strictEqual(yield* tokens.appendSnapshot(input), "not-live")
          assert.isNull(yield* store.snapshotOf(old.claimId))
          assert.strictEqual((yield* store.claimById(old.claimId))?.lastUploadAt, old.at)

          const gone = claim(unique("rec"), "2026-02-06T12:00:00.000Z")
          yield* store.ingest(gone)
          yield* store.remove(gone.claimId, "2026-02-06T12:01:00.000Z")
          assert.strictEqual(yield* tokens.appendSnapshot({ ...input, claimId: gone.claimId }), "not-live")
          assert.isNull(yield* store.snapshotOf(gone.claimId))
          assert.strictEqual(yield* tokens.appendSnapshot({ ...input, claimId: "cl_nothing" }), "not-live")
        }))
    })
  })
}
