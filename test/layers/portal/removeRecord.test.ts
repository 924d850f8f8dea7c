/**
 * `admin remove` (PortalStore.remove) and issue 12's tables, on both back ends: removing a record deletes the
 * DORA fills of every claim of the record (live and superseded) in the same transaction, and keeps its licences and seals (the
 * operator's records; a seal is the official record and must stay verifiable) and its sync tokens' hashes
 * (so a paired machine hears CLAIM_NOT_SYNCABLE "removed", as issue 12 requires, not SYNC_UNAUTHORIZED).
 * Another record's rows are untouched.
 */
import type { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { portalSqlClient, portalStoreOnClient, type PortalStores } from "../../../src/layers/portal/PortalSql.js"
import { DoraFillStore } from "../../../src/services/portal/DoraFillStore.js"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { SealStore } from "../../../src/services/portal/SealStore.js"
import { SyncTokenStore } from "../../../src/services/portal/SyncTokenStore.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"

const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-remove-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const backends: ReadonlyArray<{
  readonly name: "sqlite" | "postgres"
  readonly layer: Layer.Layer<PortalStores | SqlClient.SqlClient, unknown>
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

/** A claim of `record` (a second one supersedes the first) with a DORA fill and a sync token. */
const claimOf = (record: string) =>
  Effect.gen(function*() {
    const claimId = unique("cl_")
    yield* (yield* PortalStore).ingest({
      claimId,
      tokenHash: unique("tok"),
      recordKeyHash: record,
      recipient: null,
      unbound: true,
      body: "{}",
      bytes: 2,
      sha256: unique("sha"),
      at: "2026-03-01T10:00:00.000Z"
    })
    yield* (yield* DoraFillStore).put(claimId, {
      table: "B_02.01",
      rowKey: "CTR-001",
      field: "c0050",
      value: "250000",
      by: "claim admin",
      at: "2026-03-01T11:00:00.000Z"
    })
    const tokenHash = unique("synchash")
    yield* (yield* SyncTokenStore).create({
      id: unique("st_"),
      claimId,
      tokenHash,
      label: null,
      at: "2026-03-01T11:00:00.000Z"
    })
    return { claimId, tokenHash }
  })

for (const backend of backends) {
  describe(`admin remove and issue 12's tables on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("deletes the record's DORA fills; keeps its licences, seals and token hashes; others untouched", () =>
        Effect.gen(function*() {
          const record = unique("rec")
          const old = yield* claimOf(record)
          const live = yield* claimOf(record)
          const other = yield* claimOf(unique("rec"))
          const licences = yield* LicenceStore
          const seals = yield* SealStore
          yield* licences.issue({
            id: unique("li_"),
            claimId: live.claimId,
            issuedAt: "2026-03-01T12:00:00.000Z",
            expiresAt: "2099-01-01T00:00:00.000Z",
            issuedTo: null
          })
          const sealId = unique("seal_")
          const liveSha = (yield* (yield* PortalStore).claimById(live.claimId))!.sha256!
          const sealOf = (snapshotSha256: string, claimId: string, id: string) => ({
            id,
            claimId,
            sealedAt: "2026-03-02T10:00:00.000Z",
            signer: { name: "Ada", role: "DPO", email: null },
            termsVersion: null,
            acknowledgedOpenCalls: [],
            licence: { id: "li_x", issuedAt: "2026-03-01T12:00:00.000Z", expiresAt: "2099-01-01T00:00:00.000Z" },
            snapshotSha256,
            via: "claim-page" as const
          })
          // Only the live claim at the snapshot that was sealed: a draft that moved, or a superseded claim, stores nothing.
          assert.isFalse(yield* seals.save(sealOf("0".repeat(64), live.claimId, unique("seal_")), []))
          assert.isFalse(yield* seals.save(sealOf(liveSha, old.claimId, unique("seal_")), []))
          assert.isNull(yield* seals.latest(old.claimId))
          assert.isNull(yield* seals.latest(live.claimId))
          yield* seals.save({
            id: sealId,
            claimId: live.claimId,
            sealedAt: "2026-03-02T10:00:00.000Z",
            signer: { name: "Ada", role: "DPO", email: null },
            termsVersion: null,
            acknowledgedOpenCalls: [],
            licence: { id: "li_x", issuedAt: "2026-03-01T12:00:00.000Z", expiresAt: "2099-01-01T00:00:00.000Z" },
            snapshotSha256: liveSha,
            via: "claim-page"
          }, [{
            name: "ropa.json",
            mediaType: "application/json",
            sha256: "1".repeat(64),
            content: "e30=",
            signature: "c2ln"
          }])

          const fills = yield* DoraFillStore
          const tokens = yield* SyncTokenStore
          assert.strictEqual(yield* fills.count(old.claimId), 1)
          assert.strictEqual(yield* fills.count(live.claimId), 1)
          assert.isNotNull(yield* tokens.findByHash(live.tokenHash))

          const removed = yield* (yield* PortalStore).remove(live.claimId, "2026-03-03T00:00:00.000Z")
          assert.deepStrictEqual(removed?.claims, [old.claimId, live.claimId].sort())

          for (const c of [old, live]) {
            assert.strictEqual(yield* fills.count(c.claimId), 0)
            assert.deepStrictEqual(yield* fills.list(c.claimId), [])
          }
          // The token hashes stay, naming the removed claim (GET sync answers 409 CLAIM_NOT_SYNCABLE).
          const kept = yield* tokens.findByHash(live.tokenHash)
          assert.strictEqual(kept?.claimId, live.claimId)
          assert.strictEqual((yield* (yield* PortalStore).claimById(live.claimId))?.state, "removed")
          assert.strictEqual((yield* licences.byClaim(live.claimId)).length, 1)
          assert.strictEqual((yield* seals.latest(live.claimId))?.id, sealId)
          assert.strictEqual((yield* seals.artifacts(sealId)).length, 1)
          // Another record keeps its fill and token.
          assert.strictEqual(yield* fills.count(other.claimId), 1)
          assert.isNotNull(yield* tokens.findByHash(other.tokenHash))
        }))
    })
  })
}
