/**
 * `LicenceStore` over `@effect/sql`, for PostgreSQL and SQLite alike: each method is one statement. Rows
 * are decoded with Schema at the SQL edge; one that does not decode is SCHEMA_MIGRATION_REQUIRED naming
 * the table.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { type LicenceRecord, LicenceStore } from "../../services/portal/LicenceStore.js"
import { portalRowInvalid } from "./store.js"

const LicenceRow = Schema.Struct({
  id: Schema.String,
  claim_id: Schema.String,
  issued_at: Schema.String,
  expires_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String),
  issued_to: Schema.NullOr(Schema.String)
})
const IdRow = Schema.Struct({ id: Schema.String })
const columns = "id, claim_id, issued_at, expires_at, revoked_at, issued_to"

const decodeLicences = (rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknown(Schema.Array(LicenceRow))(rows).pipe(
    Effect.mapError((e) => portalRowInvalid("licences", e)),
    Effect.map((rs) =>
      rs.map((r): LicenceRecord => ({
        id: r.id,
        claimId: r.claim_id,
        issuedAt: r.issued_at,
        expiresAt: r.expires_at,
        revokedAt: r.revoked_at,
        issuedTo: r.issued_to
      }))
    )
  )
const decodeIds = (rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknown(Schema.Array(IdRow))(rows).pipe(Effect.mapError((e) => portalRowInvalid("licences", e)))

export const LicenceStoreLive = Layer.effect(
  LicenceStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(columns)
    const first = (rows: ReadonlyArray<LicenceRecord>) => rows[0] ?? null

    const get = (id: string) =>
      sql`SELECT ${cols} FROM licences WHERE id = ${id}`.pipe(Effect.flatMap(decodeLicences), Effect.map(first))

    const issue = (l: Omit<LicenceRecord, "revokedAt">) =>
      sql`INSERT INTO licences (id, claim_id, issued_at, expires_at, revoked_at, issued_to)
        VALUES (${l.id}, ${l.claimId}, ${l.issuedAt}, ${l.expiresAt}, ${null}, ${l.issuedTo})
        RETURNING ${cols}`.pipe(
        Effect.flatMap(decodeLicences),
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.dieMessage("the licence insert returned no row") : Effect.succeed(rows[0])
        )
      )

    const markMailed = (id: string, to: string) =>
      sql`UPDATE licences SET issued_to = ${to} WHERE id = ${id}`.pipe(Effect.asVoid)

    const revoke = (id: string, at: string) =>
      sql`UPDATE licences SET revoked_at = COALESCE(revoked_at, ${at}) WHERE id = ${id} RETURNING ${cols}`.pipe(
        Effect.flatMap(decodeLicences),
        Effect.map(first)
      )

    const byClaim = (claimId: string) =>
      sql`SELECT ${cols} FROM licences WHERE claim_id = ${claimId} ORDER BY issued_at DESC, id DESC`.pipe(
        Effect.flatMap(decodeLicences)
      )

    const list = sql`SELECT ${cols} FROM licences ORDER BY issued_at DESC, id DESC`.pipe(
      Effect.flatMap(decodeLicences)
    )

    const revokedIds = sql`SELECT id FROM licences WHERE revoked_at IS NOT NULL ORDER BY id`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map((rows) => rows.map((r) => r.id))
    )

    return LicenceStore.of({ issue, markMailed, revoke, get, byClaim, list, revokedIds })
  })
)
