/**
 * The portal's licence store on both back ends (SQLite in a temporary folder, the real PostgreSQL in a
 * uniquely named database): issue, get, mark mailed, revoke (idempotent, unknown → null), list by claim
 * and all (newest first), the revoked ids; a licence needs an existing claim.
 */
import type { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { portalSqlClient, portalStoreOnClient } from "../../../src/layers/portal/PortalSql.js"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"

const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-licences-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const backends: ReadonlyArray<{
  readonly name: string
  readonly layer: Layer.Layer<PortalStore | LicenceStore | SqlClient.SqlClient, unknown>
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

const claim = (id: string, record: string) =>
  Effect.flatMap(PortalStore, (store) =>
    store.ingest({
      claimId: id,
      tokenHash: `tok_${id}`,
      recordKeyHash: record,
      recipient: "dpo@acme.example",
      unbound: false,
      body: "{}",
      bytes: 2,
      sha256: `sha_${id}`,
      at: "2026-01-01T00:00:00.000Z"
    }))

for (const backend of backends) {
  describe(`LicenceStore on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("issues, gets, marks mailed, lists by claim and all, newest first", () =>
        Effect.gen(function*() {
          const store = yield* LicenceStore
          yield* claim("cl_a", "rec_a")
          yield* claim("cl_b", "rec_b")
          const one = yield* store.issue({
            id: "li_1",
            claimId: "cl_a",
            issuedAt: "2026-01-02T00:00:00.000Z",
            expiresAt: "2027-01-02T00:00:00.000Z",
            issuedTo: null
          })
          assert.deepStrictEqual(one, {
            id: "li_1",
            claimId: "cl_a",
            issuedAt: "2026-01-02T00:00:00.000Z",
            expiresAt: "2027-01-02T00:00:00.000Z",
            revokedAt: null,
            issuedTo: null
          })
          yield* store.issue({
            id: "li_2",
            claimId: "cl_a",
            issuedAt: "2026-01-03T00:00:00.000Z",
            expiresAt: "2027-01-03T00:00:00.000Z",
            issuedTo: null
          })
          yield* store.issue({
            id: "li_3",
            claimId: "cl_b",
            issuedAt: "2026-01-04T00:00:00.000Z",
            expiresAt: "2027-01-04T00:00:00.000Z",
            issuedTo: "x@b.example"
          })
          yield* store.markMailed("li_1", "dpo@acme.example")
          assert.strictEqual((yield* store.get("li_1"))?.issuedTo, "dpo@acme.example")
          assert.isNull(yield* store.get("li_nope"))
          assert.deepStrictEqual((yield* store.byClaim("cl_a")).map((l) => l.id), ["li_2", "li_1"])
          assert.deepStrictEqual((yield* store.byClaim("cl_none")).map((l) => l.id), [])
          assert.deepStrictEqual((yield* store.list).map((l) => l.id), ["li_3", "li_2", "li_1"])
        }))

      it.effect("revoke sets revoked_at once (idempotent), unknown → null; revokedIds lists them", () =>
        Effect.gen(function*() {
          const store = yield* LicenceStore
          assert.deepStrictEqual(yield* store.revokedIds, [])
          const r = yield* store.revoke("li_2", "2026-02-01T00:00:00.000Z")
          assert.strictEqual(r?.revokedAt, "2026-02-01T00:00:00.000Z")
          const again = yield* store.revoke("li_2", "2026-03-01T00:00:00.000Z")
          assert.strictEqual(again?.revokedAt, "2026-02-01T00:00:00.000Z")
          assert.isNull(yield* store.revoke("li_nope", "2026-03-01T00:00:00.000Z"))
          yield* store.revoke("li_1", "2026-03-01T00:00:00.000Z")
          assert.deepStrictEqual(yield* store.revokedIds, ["li_1", "li_2"])
          assert.isNull((yield* store.get("li_3"))?.revokedAt)
        }))

      it.effect("a licence for a claim that does not exist is refused by the database", () =>
        Effect.gen(function*() {
          const store = yield* LicenceStore
          const result = yield* Effect.either(
            store.issue({
              id: "li_orphan",
              claimId: "cl_missing",
              issuedAt: "2026-01-05T00:00:00.000Z",
              expiresAt: "2027-01-05T00:00:00.000Z",
              issuedTo: null
            })
          )
          assert.strictEqual(result._tag, "Left")
        }))
    })
  })
}
