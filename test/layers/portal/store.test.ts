/**
 * The portal's store, one behaviour suite run against both back ends: SQLite (a temporary folder, the file
 * the portal would create) and the machine's real PostgreSQL (a uniquely named database, dropped after).
 * Every method of `PortalStore` against its contract, plus the schema's own guarantees (never two live
 * claims per record, a row that does not decode is SCHEMA_MIGRATION_REQUIRED naming its table).
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import * as NodeSqlite from "../../../src/layers/NodeSqlite.js"
import {
  portalDbPath,
  portalSchemaVersion,
  portalSqlClient,
  portalStoreExists,
  portalStoreLayer,
  portalStoreOnClient
} from "../../../src/layers/portal/PortalSql.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import type { IngestInput } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"

export const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-store-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The store and its raw client (to look behind the interface), on each back end. */
const backends: ReadonlyArray<{
  readonly name: "sqlite" | "postgres"
  readonly layer: Layer.Layer<PortalStore | SqlClient.SqlClient, unknown>
}> = [
  {
    name: "sqlite",
    layer: Layer.unwrapScoped(Effect.map(tempHome, (home) => {
      const settings = { databaseUrl: null, home: path.join(home, "portal") }
      return portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(settings)))
    }))
  },
  {
    name: "postgres",
    layer: Layer.unwrapScoped(Effect.map(makePgDatabase({ analyze: false }), (db) => {
      const settings = { databaseUrl: db.url, home: "/nonexistent" }
      return portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(settings)))
    }))
  }
]

let counter = 0
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`

const upload = (record: string, at: string, extra: Partial<IngestInput> = {}): IngestInput => {
  const body = JSON.stringify({ format: "test", record, at })
  return {
    claimId: unique("cl_"),
    tokenHash: unique("tok"),
    recordKeyHash: record,
    recipient: "dpo@acme.example",
    unbound: false,
    body,
    bytes: Buffer.byteLength(body),
    sha256: unique("sha"),
    at,
    ...extra
  }
}

for (const backend of backends) {
  describe(`PortalStore on ${backend.name}`, () => {
    layer(backend.layer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("reports its back end", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* PortalStore).backend, backend.name)
        }))

      it.effect("ingest stores the claim live with its snapshot; lookups by token and id agree", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-01-01T10:00:00.000Z", { recipient: "a@b.example" })
          const { claim, supersedes } = yield* store.ingest(input)
          assert.strictEqual(supersedes, null)
          assert.deepStrictEqual(claim, {
            id: input.claimId,
            state: "live",
            successorId: null,
            recipient: "a@b.example",
            unbound: false,
            opened: false,
            createdAt: input.at,
            lastUploadAt: input.at,
            bytes: input.bytes,
            sha256: input.sha256,
            controllerName: null,
            controllerContact: null,
            controllerUpdatedAt: null
          })
          assert.deepStrictEqual(yield* store.claimByTokenHash(input.tokenHash), claim)
          assert.deepStrictEqual(yield* store.claimById(input.claimId), claim)
          assert.strictEqual(yield* store.snapshotOf(input.claimId), input.body)
          assert.isNull(yield* store.claimByTokenHash("no-such-token"))
          assert.isNull(yield* store.claimById("cl_nope"))
          assert.isNull(yield* store.snapshotOf("cl_nope"))
        }))

      it.effect("a re-upload of the same record supersedes its live claim: a chain of successors, one live", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const sql = yield* SqlClient.SqlClient
          const record = unique("rec")
          const a = upload(record, "2026-01-02T10:00:00.000Z")
          const b = upload(record, "2026-01-02T11:00:00.000Z")
          const c = upload(record, "2026-01-02T12:00:00.000Z", { unbound: true, recipient: null })
          const other = upload(unique("rec"), "2026-01-02T12:30:00.000Z")
          assert.isNull((yield* store.ingest(a)).supersedes)
          assert.strictEqual((yield* store.ingest(b)).supersedes, a.claimId)
          yield* store.ingest(other)
          const third = yield* store.ingest(c)
          assert.strictEqual(third.supersedes, b.claimId)
          assert.strictEqual(third.claim.state, "live")
          assert.isTrue(third.claim.unbound)
          assert.isNull(third.claim.recipient)

          const ca = yield* store.claimByTokenHash(a.tokenHash)
          const cb = yield* store.claimByTokenHash(b.tokenHash)
          assert.strictEqual(ca?.state, "superseded")
          assert.strictEqual(ca?.successorId, b.claimId)
          assert.strictEqual(cb?.state, "superseded")
          assert.strictEqual(cb?.successorId, c.claimId)
          // A superseded claim keeps no snapshot, session or code (its page is a notice); the live one keeps
          // its own; the other record is untouched.
          assert.isNull(yield* store.snapshotOf(a.claimId))
          assert.isNull(yield* store.snapshotOf(b.claimId))
          assert.strictEqual(yield* store.snapshotOf(c.claimId), c.body)
          assert.strictEqual(yield* store.snapshotOf(other.claimId), other.body)
          assert.strictEqual((yield* store.claimById(other.claimId))?.state, "live")

          const live = yield* sql<{ n: number | string }>`SELECT count(*) AS n FROM claims
            WHERE record_key_hash = ${record} AND state = 'live'`
          assert.strictEqual(Number(live[0]?.n), 1)
        }))

      it.effect("the database itself refuses a second live claim for one record", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const sql = yield* SqlClient.SqlClient
          const input = upload(unique("rec"), "2026-01-03T10:00:00.000Z")
          yield* store.ingest(input)
          const sneaky = yield* Effect.either(
            sql`INSERT INTO claims (id, token_hash, record_key_hash, state, created_at)
              VALUES (${unique("cl_")}, ${unique("tok")}, ${input.recordKeyHash}, 'live', ${input.at})`
          )
          assert.strictEqual(sneaky._tag, "Left")
        }))

      it.effect("a token hash is unique: an ingest reusing one fails whole and leaves the record's claim live", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const first = upload(unique("rec"), "2026-01-04T10:00:00.000Z")
          yield* store.ingest(first)
          const clash = upload(first.recordKeyHash, "2026-01-04T11:00:00.000Z", { tokenHash: first.tokenHash })
          const result = yield* Effect.either(store.ingest(clash))
          assert.strictEqual(result._tag, "Left")
          assert.strictEqual((yield* store.claimById(first.claimId))?.state, "live")
          assert.isNull(yield* store.claimById(clash.claimId))
          assert.isNull(yield* store.snapshotOf(clash.claimId))
        }))

      it.effect("a superseded claim's sessions and code go in the ingest that supersedes it", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const record = unique("rec")
          const first = upload(record, "2026-01-02T13:00:00.000Z")
          yield* store.ingest(first)
          const session = unique("sess")
          yield* store.createSession(first.claimId, session, "recipient", "2099-01-01T00:00:00.000Z")
          yield* store.saveCode(first.claimId, "codehash", "2099-01-01T00:00:00.000Z")
          yield* store.ingest(upload(record, "2026-01-02T14:00:00.000Z"))
          assert.isNull(yield* store.sessionOf(session, "2026-01-02T14:00:01.000Z"))
          assert.strictEqual(yield* store.checkCode(first.claimId, "codehash", "2026-01-02T14:00:01.000Z"), "none")
        }))

      it.effect("remove takes the whole record down: every claim of its record key, in one transaction", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const record = unique("rec")
          const a = upload(record, "2026-01-07T10:00:00.000Z")
          const b = upload(record, "2026-01-07T11:00:00.000Z")
          const c = upload(record, "2026-01-07T12:00:00.000Z")
          const other = upload(unique("rec"), "2026-01-07T12:30:00.000Z")
          for (const u of [a, b, other, c]) yield* store.ingest(u)
          const session = unique("sess")
          yield* store.createSession(c.claimId, session, "recipient", "2099-01-01T00:00:00.000Z")
          // Removing the live claim removes its predecessors too: none is left pointing at a removed claim.
          const removed = yield* store.remove(c.claimId, "2026-01-07T13:00:00.000Z")
          assert.strictEqual(removed?.claim.id, c.claimId)
          assert.strictEqual(removed?.claim.state, "removed")
          assert.deepStrictEqual(removed?.claims, [a.claimId, b.claimId, c.claimId].sort())
          for (const u of [a, b, c]) {
            assert.strictEqual((yield* store.claimByTokenHash(u.tokenHash))?.state, "removed")
            assert.isNull(yield* store.snapshotOf(u.claimId))
          }
          assert.isNull(yield* store.sessionOf(session, "2026-01-07T13:00:01.000Z"))
          assert.strictEqual((yield* store.claimById(other.claimId))?.state, "live")
          assert.strictEqual(yield* store.snapshotOf(other.claimId), other.body)
          // Naming a superseded claim of a record removes the record as well.
          const d = upload(unique("rec"), "2026-01-08T10:00:00.000Z")
          const e = upload(d.recordKeyHash, "2026-01-08T11:00:00.000Z")
          yield* store.ingest(d)
          yield* store.ingest(e)
          assert.deepStrictEqual(
            (yield* store.remove(d.claimId, "2026-01-08T12:00:00.000Z"))?.claims,
            [
              d.claimId,
              e.claimId
            ].sort()
          )
          assert.strictEqual((yield* store.claimById(e.claimId))?.state, "removed")
        }))

      it.effect("remove: state removed, body, sessions and codes gone; token lookups then see removed", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-01-05T10:00:00.000Z")
          yield* store.ingest(input)
          yield* store.createSession(input.claimId, unique("sess"), "recipient", "2099-01-01T00:00:00.000Z")
          const session = unique("sess")
          yield* store.createSession(input.claimId, session, "recipient", "2099-01-01T00:00:00.000Z")
          yield* store.saveCode(input.claimId, "codehash", "2099-01-01T00:00:00.000Z")

          const removed = yield* store.remove(input.claimId, "2026-01-05T12:00:00.000Z")
          assert.strictEqual(removed?.claim.state, "removed")
          assert.strictEqual(removed?.claim.id, input.claimId)
          assert.deepStrictEqual(removed?.claims, [input.claimId])
          assert.isNull(yield* store.snapshotOf(input.claimId))
          assert.isNull(yield* store.sessionOf(session, "2026-01-05T12:00:01.000Z"))
          assert.strictEqual(yield* store.checkCode(input.claimId, "codehash", "2026-01-05T12:00:01.000Z"), "none")
          assert.strictEqual((yield* store.claimByTokenHash(input.tokenHash))?.state, "removed")

          // The record can be invited again: nothing live is left to supersede.
          const again = yield* store.ingest(upload(input.recordKeyHash, "2026-01-05T13:00:00.000Z"))
          assert.isNull(again.supersedes)
          assert.isNull(yield* store.remove("cl_nope", "2026-01-05T12:00:00.000Z"))
          // Removing again removes the record again: the claim stays removed, and so does the re-invite.
          const twice = yield* store.remove(input.claimId, "2026-01-06T00:00:00.000Z")
          assert.strictEqual(twice?.claim.state, "removed")
          assert.strictEqual((yield* store.claimById(again.claim.id))?.state, "removed")
        }))

      it.effect("tenants: every claim, newest first, with its state, successor and flags", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const record = unique("rec")
          const old = upload(record, "2030-05-01T10:00:00.000Z")
          const newer = upload(record, "2030-05-02T10:00:00.000Z")
          const newest = upload(unique("rec"), "2030-05-03T10:00:00.000Z", { unbound: true, recipient: null })
          yield* store.ingest(old)
          yield* store.ingest(newest)
          yield* store.ingest(newer)
          const rows = yield* store.tenants
          const created = rows.map((r) => r.createdAt)
          assert.deepStrictEqual(created, [...created].sort().reverse())
          const mine = rows.filter((r) => [old.claimId, newer.claimId, newest.claimId].includes(r.claimId))
          assert.deepStrictEqual(mine, [
            {
              claimId: newest.claimId,
              state: "live",
              successorId: null,
              recipient: null,
              unbound: true,
              opened: false,
              createdAt: newest.at,
              lastUploadAt: newest.at,
              bytes: newest.bytes
            },
            {
              claimId: newer.claimId,
              state: "live",
              successorId: null,
              recipient: "dpo@acme.example",
              unbound: false,
              opened: false,
              createdAt: newer.at,
              lastUploadAt: newer.at,
              bytes: newer.bytes
            },
            {
              claimId: old.claimId,
              state: "superseded",
              successorId: newer.claimId,
              recipient: "dpo@acme.example",
              unbound: false,
              opened: false,
              createdAt: old.at,
              lastUploadAt: old.at,
              bytes: old.bytes
            }
          ])
        }))

      it.effect("countUpload counts per address and window; uncountUpload gives one back, never below zero", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const address = unique("10.0.0.")
          const w1 = "2026-02-01T10:00:00.000Z"
          const w2 = "2026-02-01T11:00:00.000Z"
          assert.strictEqual(yield* store.countUpload(address, w1), 1)
          assert.strictEqual(yield* store.countUpload(address, w1), 2)
          assert.strictEqual(yield* store.countUpload(address, w1), 3)
          assert.strictEqual(yield* store.countUpload(address, w2), 1)
          assert.strictEqual(yield* store.countUpload(unique("10.0.1."), w1), 1)
          yield* store.uncountUpload(address, w1)
          assert.strictEqual(yield* store.countUpload(address, w1), 3)
          // Floor at zero: three counts given back four times, then the next count is 1.
          yield* store.uncountUpload(address, w2)
          yield* store.uncountUpload(address, w2)
          assert.strictEqual(yield* store.countUpload(address, w2), 1)
          // Giving back where nothing was counted is harmless.
          yield* store.uncountUpload(unique("10.9.9."), w1)
        }))

      it.effect("codes: ok once (then none), wrong counts, expired, none, locked after 5 wrong, fresh code resets", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-03-01T10:00:00.000Z")
          yield* store.ingest(input)
          const id = input.claimId
          const now = "2026-03-01T10:05:00.000Z"
          const until = "2026-03-01T10:15:00.000Z"
          assert.strictEqual(yield* store.checkCode(id, "h1", now), "none")

          yield* store.saveCode(id, "h1", until)
          assert.strictEqual(yield* store.checkCode(id, "h2", now), "wrong")
          assert.strictEqual(yield* store.checkCode(id, "h1", now), "ok")
          assert.strictEqual(yield* store.checkCode(id, "h1", now), "none")
          // A bound claim whose recipient proved the address is opened.
          assert.isTrue((yield* store.claimById(id))?.opened)

          yield* store.saveCode(id, "h3", until)
          assert.strictEqual(yield* store.checkCode(id, "h3", until), "expired")
          assert.strictEqual(yield* store.checkCode(id, "h3", "2026-03-01T11:00:00.000Z"), "expired")

          yield* store.saveCode(id, "h4", until)
          for (let i = 0; i < 5; i++) assert.strictEqual(yield* store.checkCode(id, "bad", now), "wrong")
          assert.strictEqual(yield* store.checkCode(id, "h4", now), "locked")
          assert.strictEqual(yield* store.checkCode(id, "bad", now), "locked")

          // A fresh code has a fresh attempt budget.
          yield* store.saveCode(id, "h5", until)
          assert.strictEqual(yield* store.checkCode(id, "bad", now), "wrong")
          assert.strictEqual(yield* store.checkCode(id, "h5", now), "ok")
        }))

      it.effect("sessions: found until they expire, with their claim and role", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-04-01T10:00:00.000Z")
          yield* store.ingest(input)
          const s = unique("sess")
          yield* store.createSession(input.claimId, s, "recipient", "2026-04-01T12:00:00.000Z")
          assert.deepStrictEqual(yield* store.sessionOf(s, "2026-04-01T11:59:59.999Z"), {
            claimId: input.claimId,
            role: "recipient"
          })
          assert.isNull(yield* store.sessionOf(s, "2026-04-01T12:00:00.000Z"))
          assert.isNull(yield* store.sessionOf(unique("sess"), "2026-04-01T11:00:00.000Z"))
          const admin = unique("sess")
          yield* store.createSession(input.claimId, admin, "admin", "2026-04-02T00:00:00.000Z")
          assert.strictEqual((yield* store.sessionOf(admin, "2026-04-01T11:00:00.000Z"))?.role, "admin")
        }))

      it.effect("openUnbound: the first caller becomes the admin; later callers, bound and removed claims get false", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-05-01T10:00:00.000Z", { unbound: true, recipient: null })
          yield* store.ingest(input)
          const first = unique("sess")
          const second = unique("sess")
          assert.isTrue(yield* store.openUnbound(input.claimId, first, "2026-05-02T00:00:00.000Z"))
          assert.isFalse(yield* store.openUnbound(input.claimId, second, "2026-05-02T00:00:00.000Z"))
          assert.deepStrictEqual(yield* store.sessionOf(first, "2026-05-01T11:00:00.000Z"), {
            claimId: input.claimId,
            role: "admin"
          })
          assert.isNull(yield* store.sessionOf(second, "2026-05-01T11:00:00.000Z"))
          assert.isTrue((yield* store.claimById(input.claimId))?.opened)

          const bound = upload(unique("rec"), "2026-05-01T10:00:00.000Z")
          yield* store.ingest(bound)
          assert.isFalse(yield* store.openUnbound(bound.claimId, unique("sess"), "2026-05-02T00:00:00.000Z"))

          const gone = upload(unique("rec"), "2026-05-01T10:00:00.000Z", { unbound: true, recipient: null })
          yield* store.ingest(gone)
          yield* store.remove(gone.claimId, "2026-05-01T10:30:00.000Z")
          assert.isFalse(yield* store.openUnbound(gone.claimId, unique("sess"), "2026-05-02T00:00:00.000Z"))
          assert.isFalse(yield* store.openUnbound("cl_nope", unique("sess"), "2026-05-02T00:00:00.000Z"))
        }))

      it.effect("setController fills the controller block, and clears it", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const input = upload(unique("rec"), "2026-06-01T10:00:00.000Z")
          yield* store.ingest(input)
          yield* store.setController(input.claimId, "Acme GmbH", "privacy@acme.example", "2026-06-01T11:00:00.000Z")
          const filled = yield* store.claimById(input.claimId)
          assert.strictEqual(filled?.controllerName, "Acme GmbH")
          assert.strictEqual(filled?.controllerContact, "privacy@acme.example")
          assert.strictEqual(filled?.controllerUpdatedAt, "2026-06-01T11:00:00.000Z")
          yield* store.setController(input.claimId, null, null, "2026-06-01T12:00:00.000Z")
          const cleared = yield* store.claimById(input.claimId)
          assert.isNull(cleared?.controllerName)
          assert.isNull(cleared?.controllerContact)
          assert.strictEqual(cleared?.controllerUpdatedAt, "2026-06-01T12:00:00.000Z")
        }))

      it.effect("the schema is at this build's version in the portal's own migrations table", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ v: number }>`SELECT max(migration_id) AS v FROM portal_migrations`
          assert.strictEqual(Number(rows[0]?.v), portalSchemaVersion)
        }))

      // Last: it leaves a row that does not decode.
      it.effect("a claim row that does not decode is SCHEMA_MIGRATION_REQUIRED naming the table", () =>
        Effect.gen(function*() {
          const store = yield* PortalStore
          const sql = yield* SqlClient.SqlClient
          const input = upload(unique("rec"), "2026-07-01T10:00:00.000Z")
          yield* store.ingest(input)
          yield* sql`ALTER TABLE claims DROP CONSTRAINT IF EXISTS claims_state_check`.pipe(
            Effect.when(() => backend.name === "postgres")
          )
          if (backend.name === "sqlite") {
            yield* sql`PRAGMA ignore_check_constraints = ON`
          }
          yield* sql`UPDATE claims SET state = 'archived' WHERE id = ${input.claimId}`
          const result = yield* Effect.flip(store.claimById(input.claimId))
          assert.strictEqual(result._tag, "SchemaMigrationRequired")
          assert.include(result.message, "table claims")
          assert.include(result.message, "column state")
          assert.notInclude(result.message, "archived")
        }))
    })
  })
}

describe("the portal store at start", () => {
  layer(Layer.empty, { excludeTestServices: true })((it) => {
    it.scoped("is created in a 0700 folder as a 0600 file; it exists afterwards, not before", () =>
      Effect.gen(function*() {
        const home = path.join(yield* tempHome, "nested", "portal")
        const settings = { databaseUrl: null, home }
        assert.isFalse(yield* portalStoreExists(settings))
        yield* Effect.scoped(Layer.build(portalStoreLayer(settings)))
        assert.isTrue(yield* portalStoreExists(settings))
        assert.strictEqual(fs.statSync(home).mode & 0o777, 0o700)
        assert.strictEqual(fs.statSync(portalDbPath(home)).mode & 0o777, 0o600)
        // Opened again (a restart): nothing to migrate, and what was stored is still there.
        const input = upload(unique("rec"), "2026-08-01T10:00:00.000Z")
        yield* Effect.scoped(
          Effect.flatMap(PortalStore, (s) => s.ingest(input)).pipe(
            Effect.provide(portalStoreLayer(settings))
          )
        )
        const kept = yield* Effect.scoped(
          Effect.flatMap(PortalStore, (s) => s.snapshotOf(input.claimId)).pipe(
            Effect.provide(portalStoreLayer(settings))
          )
        )
        assert.strictEqual(kept, input.body)
        assert.isTrue(yield* portalStoreExists({ databaseUrl: "postgres://x@127.0.0.1/none", home }))
      }))

    it.scoped("a write lock held past the busy timeout is an SqlError (database is locked), not a defect", () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const ctx = yield* Layer.build(
          portalStoreOnClient.pipe(
            Layer.provide(NodeSqlite.layer({ filename: portalDbPath(home), busyTimeoutMs: 100 }))
          )
        )
        const store = yield* Effect.provide(PortalStore, ctx)
        // Another process holds the write lock.
        const other = new DatabaseSync(portalDbPath(home))
        yield* Effect.addFinalizer(() => Effect.sync(() => other.isOpen && other.close()))
        other.exec("BEGIN IMMEDIATE")
        const blocked = yield* Effect.either(store.ingest(upload(unique("rec"), "2026-08-02T10:00:00.000Z")))
        assert.strictEqual(blocked._tag, "Left")
        if (blocked._tag === "Left") {
          assert.strictEqual(blocked.left._tag, "SqlError")
          assert.include(blocked.left.message, "database is locked")
        }
        other.exec("COMMIT")
        const input = upload(unique("rec"), "2026-08-02T10:00:01.000Z")
        assert.strictEqual((yield* store.ingest(input)).claim.id, input.claimId)
      }))

    it.scoped("a PostgreSQL that cannot be reached is an SqlError at start", () =>
      Effect.gen(function*() {
        const result = yield* Effect.flip(
          Effect.scoped(
            Layer.build(portalStoreLayer({ databaseUrl: "postgres://postgres@127.0.0.1:1/none", home: "" }))
          )
        )
        assert.strictEqual(result._tag, "SqlError")
      }))

    it.scoped("a migration the database refuses (a table of that name exists) is an SqlError naming why", () =>
      Effect.gen(function*() {
        const db = yield* makePgDatabase({ analyze: false, sql: "CREATE TABLE claims (x int);" })
        const result = yield* Effect.flip(
          Effect.scoped(Layer.build(portalStoreLayer({ databaseUrl: db.url, home: "" })))
        )
        assert.strictEqual(result._tag, "SqlError")
        assert.include(result.message, "could not be migrated")
        assert.include(result.message, "already exists")
      }))

    it.scoped("a home that cannot be a folder is ADMIN_ENV_INCOMPLETE naming CATALOG_PORTAL_HOME", () =>
      Effect.gen(function*() {
        const dir = yield* tempHome
        const file = path.join(dir, "a-file")
        fs.writeFileSync(file, "x")
        const result = yield* Effect.flip(
          Effect.scoped(Layer.build(portalStoreLayer({ databaseUrl: null, home: file })))
        )
        assert.strictEqual(result._tag, "AdminEnvIncomplete")
        if (result._tag === "AdminEnvIncomplete") {
          assert.strictEqual(result.param, "CATALOG_PORTAL_HOME")
        }
      }))

    it.scoped("a store written by a newer schema is refused with SCHEMA_MIGRATION_REQUIRED", () =>
      Effect.gen(function*() {
        const home = yield* tempHome
        const settings = { databaseUrl: null, home }
        // A newer build migrated the store past this one's version.
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`INSERT INTO portal_migrations (migration_id, name) VALUES (${portalSchemaVersion + 1}, 'future')`
        ).pipe(
          Effect.provide(portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(settings)))),
          Effect.scoped
        )
        const result = yield* Effect.flip(Effect.scoped(Layer.build(portalStoreLayer(settings))))
        assert.strictEqual(result._tag, "SchemaMigrationRequired")
        assert.include(result.message, `${portalSchemaVersion + 1}`)
      }))
  })
})
