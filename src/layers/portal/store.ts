/**
 * `PortalStore` over `@effect/sql`: one implementation for PostgreSQL (several portal processes on one
 * database) and SQLite (one file; node:sqlite). Every method is one statement or one transaction:
 *
 * - ingest: the record's live claim is superseded (its snapshot, sessions and code deleted) and the new live
 *   claim and its snapshot inserted in one transaction. On PostgreSQL a per-record advisory lock serialises ingests of one record; SQLite's
 *   BEGIN IMMEDIATE serialises every writer. The partial unique index `claims_one_live_per_record` is the
 *   last word: an ingest that still meets a concurrent one there is retried whole (bounded).
 * - remove: the whole record (every claim with the claim's record key) removed in one transaction: snapshots,
 *   sessions, codes and DORA fills deleted; licences, seals and sync token hashes kept.
 * - countUpload: one upsert (`ON CONFLICT … DO UPDATE … RETURNING`), so no count is lost.
 * - checkCode: the code row is read `FOR UPDATE` (PostgreSQL) inside a transaction; a passing code is deleted.
 * - openUnbound: a conditional UPDATE (`opened = false`) with RETURNING: only one caller changes the row.
 *
 * Rows are decoded with Schema at the SQL edge; one that does not decode is SCHEMA_MIGRATION_REQUIRED
 * naming its table.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, ParseResult, Schedule, Schema } from "effect"
import { timingSafeEqual } from "node:crypto"
import { ClaimState, type TenantRow } from "../../domain/Portal.js"
import { SchemaMigrationRequired } from "../../errors/index.js"
import { type ClaimRecord, type IngestInput, PortalStore } from "../../services/PortalStore.js"

/** Wrong codes a claim's code tolerates; the next check is `locked` whatever the code. */
export const maxCodeAttempts = 5
/** How many times an ingest that met a concurrent one of the same record is run again. */
const ingestRetries = 20

// ── decoding at the SQL edge ────────────────────────────────────────────────────────────────

/** BOOLEAN on PostgreSQL, 0/1 on SQLite. */
const Flag = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
    strict: true,
    decode: (n) => n === 1,
    encode: (b) => (b ? 1 : 0)
  })
)
const Text = Schema.String
const OptText = Schema.NullOr(Schema.String)

const ClaimRow = Schema.Struct({
  id: Text,
  state: ClaimState,
  successor_id: OptText,
  recipient: OptText,
  unbound: Flag,
  opened: Flag,
  created_at: Text,
  last_upload_at: OptText,
  bytes: Schema.NullOr(Schema.Number),
  sha256: OptText,
  controller_name: OptText,
  controller_contact: OptText,
  controller_updated_at: OptText
})
const claimColumns =
  "id, state, successor_id, recipient, unbound, opened, created_at, last_upload_at, bytes, sha256, controller_name, controller_contact, controller_updated_at"

const BodyRow = Schema.Struct({ body: Text })
const CountRow = Schema.Struct({ count: Schema.Number })
const IdRow = Schema.Struct({ id: Text })
const RecordRow = Schema.Struct({ record_key_hash: Text })
const CodeRow = Schema.Struct({ code_hash: Text, expires_at: Text, attempts: Schema.Number })
const SessionRow = Schema.Struct({ claim_id: Text, role: Schema.Literal("admin", "recipient") })

/** The columns a decoding failure points at (never the values). */
const columnsOf = (error: ParseResult.ParseError): string => {
  const columns = new Set(
    ParseResult.ArrayFormatter.formatErrorSync(error).flatMap((issue) =>
      issue.path.filter((p): p is string => typeof p === "string")
    )
  )
  return columns.size > 0 ? ` (column ${[...columns].join(", ")})` : ""
}

export const portalRowInvalid = (table: string, error: ParseResult.ParseError): SchemaMigrationRequired =>
  new SchemaMigrationRequired({
    message: `A row of table ${table} in the portal's store does not have the shape this build reads${
      columnsOf(error)
    }.`,
    fix:
      "Run the portal with the version of the tool that wrote this store (it migrates it on start), or point CATALOG_PORTAL_DATABASE_URL / CATALOG_PORTAL_HOME at a new store.",
    details: { table }
  })

/** Decodes rows of `table` with `schema`; a row that does not decode is SCHEMA_MIGRATION_REQUIRED naming the table. */
export const decoder = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, SchemaMigrationRequired> =>
    decode(rows).pipe(Effect.mapError((e) => portalRowInvalid(table, e)))
}

const decodeClaims = decoder("claims", ClaimRow)
const decodeBodies = decoder("snapshots", BodyRow)
const decodeCounts = decoder("upload_counts", CountRow)
const decodeIds = decoder("claims", IdRow)
const decodeRecords = decoder("claims", RecordRow)
const decodeCodes = decoder("codes", CodeRow)
const decodeSessions = decoder("sessions", SessionRow)

const toClaim = (r: typeof ClaimRow.Type): ClaimRecord => ({
  id: r.id,
  state: r.state,
  successorId: r.successor_id,
  recipient: r.recipient,
  unbound: r.unbound,
  opened: r.opened,
  createdAt: r.created_at,
  lastUploadAt: r.last_upload_at,
  bytes: r.bytes,
  sha256: r.sha256,
  controllerName: r.controller_name,
  controllerContact: r.controller_contact,
  controllerUpdatedAt: r.controller_updated_at
})

const toTenant = (c: ClaimRecord): TenantRow => ({
  claimId: c.id,
  state: c.state,
  successorId: c.successorId,
  recipient: c.recipient,
  unbound: c.unbound,
  opened: c.opened,
  createdAt: c.createdAt,
  lastUploadAt: c.lastUploadAt,
  bytes: c.bytes
})

/** The error a concurrent ingest of the same record meets at `claims_one_live_per_record`. */
const isLiveConflict = (error: SqlError | SchemaMigrationRequired): boolean => {
  if (error._tag !== "SqlError") return false
  const cause = error.cause
  if (typeof cause !== "object" || cause === null) return false
  const c = cause as { readonly code?: unknown; readonly constraint?: unknown; readonly message?: unknown }
  if (c.code === "23505") return c.constraint === "claims_one_live_per_record"
  return typeof c.message === "string" && c.message.includes("UNIQUE constraint failed: claims.record_key_hash")
}

/** Advisory-lock class of the portal's per-record ingest lock (PostgreSQL). */
const ingestLockClass = 4330

const sameHash = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "utf8")
  const y = Buffer.from(b, "utf8")
  return x.length === y.length && timingSafeEqual(x, y)
}

export const PortalStoreLive = Layer.effect(
  PortalStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const backend = sql.onDialectOrElse({ pg: () => "postgres" as const, orElse: () => "sqlite" as const })

    const claimById = (id: string) =>
      sql`SELECT ${sql.literal(claimColumns)} FROM claims WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeClaims),
        Effect.map((rows) => (rows[0] === undefined ? null : toClaim(rows[0])))
      )

    const claimByTokenHash = (tokenHash: string) =>
      sql`SELECT ${sql.literal(claimColumns)} FROM claims WHERE token_hash = ${tokenHash}`.pipe(
        Effect.flatMap(decodeClaims),
        Effect.map((rows) => (rows[0] === undefined ? null : toClaim(rows[0])))
      )

    const mustExist = (id: string) =>
      Effect.flatMap(claimById(id), (c) =>
        c === null
          ? Effect.dieMessage(`claim ${id} vanished inside its own transaction`)
          : Effect.succeed(c))

    const ingestOnce = (input: IngestInput) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql.onDialectOrElse({
          pg: () =>
            sql`SELECT pg_advisory_xact_lock(${ingestLockClass}::int, hashtext(${input.recordKeyHash})::int)`.pipe(
              Effect.asVoid
            ),
          orElse: () => Effect.void
        })
        const previous = yield* sql`UPDATE claims SET state = 'superseded', successor_id = ${input.claimId}
          WHERE record_key_hash = ${input.recordKeyHash} AND state = 'live' RETURNING id`.pipe(
          Effect.flatMap(decodeIds)
        )
        // A superseded claim's page shows a notice, never the draft: its snapshot, sessions and code go.
        for (const { id } of previous) {
          yield* sql`DELETE FROM snapshots WHERE claim_id = ${id}`
          yield* sql`DELETE FROM sessions WHERE claim_id = ${id}`
          yield* sql`DELETE FROM codes WHERE claim_id = ${id}`
        }
        yield* sql`INSERT INTO claims (id, token_hash, record_key_hash, state, recipient, unbound, opened,
            created_at, last_upload_at, bytes, sha256)
          VALUES (${input.claimId}, ${input.tokenHash}, ${input.recordKeyHash}, 'live', ${input.recipient},
            ${input.unbound}, ${false}, ${input.at}, ${input.at}, ${input.bytes}, ${input.sha256})`
        yield* sql`INSERT INTO snapshots (claim_id, body, bytes, sha256, received_at)
          VALUES (${input.claimId}, ${input.body}, ${input.bytes}, ${input.sha256}, ${input.at})`
        const claim = yield* mustExist(input.claimId)
        return { claim, supersedes: previous[0]?.id ?? null }
      }))

    const ingest = (input: IngestInput) =>
      ingestOnce(input).pipe(
        Effect.retry({
          while: isLiveConflict,
          times: ingestRetries,
          schedule: Schedule.exponential("5 millis").pipe(
            Schedule.union(Schedule.spaced("100 millis")),
            Schedule.jittered
          )
        })
      )

    const snapshotOf = (claimId: string) =>
      sql`SELECT body FROM snapshots WHERE claim_id = ${claimId} ORDER BY seq DESC LIMIT 1`.pipe(
        Effect.flatMap(decodeBodies),
        Effect.map((rows) => rows[0]?.body ?? null)
      )

    const tenants = sql`SELECT ${sql.literal(claimColumns)} FROM claims ORDER BY created_at DESC, id DESC`.pipe(
      Effect.flatMap(decodeClaims),
      Effect.map((rows) => rows.map((r) => toTenant(toClaim(r))))
    )

    const remove = (claimId: string, at: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const found = yield* sql`SELECT record_key_hash FROM claims WHERE id = ${claimId}`.pipe(
          Effect.flatMap(decodeRecords)
        )
        const record = found[0]?.record_key_hash
        if (record === undefined) return null
        // On PostgreSQL, the record's ingest lock: an upload of this record waits, then finds nothing live.
        yield* sql.onDialectOrElse({
          pg: () =>
            sql`SELECT pg_advisory_xact_lock(${ingestLockClass}::int, hashtext(${record})::int)`.pipe(Effect.asVoid),
          orElse: () => Effect.void
        })
        const ids = yield* sql`UPDATE claims SET state = 'removed', removed_at = COALESCE(removed_at, ${at})
          WHERE record_key_hash = ${record} RETURNING id`.pipe(Effect.flatMap(decodeIds))
        for (const { id } of ids) {
          yield* sql`DELETE FROM snapshots WHERE claim_id = ${id}`
          yield* sql`DELETE FROM sessions WHERE claim_id = ${id}`
          yield* sql`DELETE FROM codes WHERE claim_id = ${id}`
          // Issue 12: the DORA cells filled on its page go too. Kept: its licences and seals (the operator's
          // records; a seal is the official record and must stay verifiable) and its sync tokens' hashes, so a
          // paired machine is told CLAIM_NOT_SYNCABLE ("removed") rather than a bare SYNC_UNAUTHORIZED.
          yield* sql`DELETE FROM dora_fills WHERE claim_id = ${id}`
        }
        return { claim: yield* mustExist(claimId), claims: ids.map((r) => r.id).sort() }
      }))

    const countUpload = (address: string, windowStart: string) =>
      sql`INSERT INTO upload_counts (address, window_start, count) VALUES (${address}, ${windowStart}, 1)
        ON CONFLICT (address, window_start) DO UPDATE SET count = upload_counts.count + 1
        RETURNING count`.pipe(
        Effect.flatMap(decodeCounts),
        Effect.flatMap((rows) =>
          rows[0] === undefined
            ? Effect.dieMessage("the upload count upsert returned no row")
            : Effect.succeed(rows[0].count)
        )
      )

    const uncountUpload = (address: string, windowStart: string) =>
      sql`UPDATE upload_counts SET count = count - 1
        WHERE address = ${address} AND window_start = ${windowStart} AND count > 0`.pipe(Effect.asVoid)

    const saveCode = (claimId: string, codeHash: string, expiresAt: string) =>
      sql`INSERT INTO codes (claim_id, code_hash, expires_at, attempts) VALUES (${claimId}, ${codeHash}, ${expiresAt}, 0)
        ON CONFLICT (claim_id) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
          attempts = 0`.pipe(Effect.asVoid)

    const checkCode = (claimId: string, codeHash: string, now: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql.onDialectOrElse({
          pg: () => sql`SELECT code_hash, expires_at, attempts FROM codes WHERE claim_id = ${claimId} FOR UPDATE`,
          orElse: () => sql`SELECT code_hash, expires_at, attempts FROM codes WHERE claim_id = ${claimId}`
        }).pipe(Effect.flatMap(decodeCodes))
        const code = rows[0]
        if (code === undefined) return "none" as const
        if (code.attempts >= maxCodeAttempts) return "locked" as const
        if (code.expires_at <= now) return "expired" as const
        if (sameHash(code.code_hash, codeHash)) {
          yield* sql`DELETE FROM codes WHERE claim_id = ${claimId}`
          // A bound claim is `opened` once its recipient has proved the address.
          yield* sql`UPDATE claims SET opened = ${true} WHERE id = ${claimId}`
          return "ok" as const
        }
        yield* sql`UPDATE codes SET attempts = attempts + 1 WHERE claim_id = ${claimId}`
        return "wrong" as const
      }))

    const insertSession = (claimId: string, sessionHash: string, role: "admin" | "recipient", expiresAt: string) =>
      sql`INSERT INTO sessions (hash, claim_id, role, expires_at)
        VALUES (${sessionHash}, ${claimId}, ${role}, ${expiresAt})`.pipe(Effect.asVoid)

    const createSession = (claimId: string, sessionHash: string, role: "admin" | "recipient", expiresAt: string) =>
      role === "recipient"
        ? sql.withTransaction(
          Effect.zipRight(
            insertSession(claimId, sessionHash, role, expiresAt),
            sql`UPDATE claims SET opened = ${true} WHERE id = ${claimId}`
          )
        ).pipe(Effect.asVoid)
        : insertSession(claimId, sessionHash, role, expiresAt)

    const sessionOf = (sessionHash: string, now: string) =>
      sql`SELECT claim_id, role FROM sessions WHERE hash = ${sessionHash} AND expires_at > ${now}`.pipe(
        Effect.flatMap(decodeSessions),
        Effect.map((rows) => (rows[0] === undefined ? null : { claimId: rows[0].claim_id, role: rows[0].role }))
      )

    const openUnbound = (claimId: string, sessionHash: string, expiresAt: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const won = yield* sql`UPDATE claims SET opened = ${true}
          WHERE id = ${claimId} AND unbound = ${true} AND opened = ${false} AND state <> 'removed'
          RETURNING id`.pipe(Effect.flatMap(decodeIds))
        if (won.length === 0) return false
        yield* insertSession(claimId, sessionHash, "admin", expiresAt)
        return true
      }))

    const setController = (claimId: string, name: string | null, contact: string | null, at: string) =>
      sql`UPDATE claims SET controller_name = ${name}, controller_contact = ${contact}, controller_updated_at = ${at}
        WHERE id = ${claimId}`.pipe(Effect.asVoid)

    return PortalStore.of({
      backend,
      ingest,
      claimByTokenHash,
      claimById,
      snapshotOf,
      tenants,
      remove,
      countUpload,
      uncountUpload,
      saveCode,
      checkCode,
      createSession,
      sessionOf,
      openUnbound,
      setController
    })
  })
)
