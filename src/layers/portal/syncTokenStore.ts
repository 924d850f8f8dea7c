/**
 * `SyncTokenStore` over `@effect/sql` (PostgreSQL and SQLite), beside `PortalStoreLive`. Rows are decoded
 * with Schema at the SQL edge; one that does not decode is SCHEMA_MIGRATION_REQUIRED naming its table.
 *
 * appendSnapshot: one transaction whose first statement updates the claim row `WHERE state = 'live'` — on
 * PostgreSQL that row lock orders it against a concurrent ingest (which supersedes the claim with an UPDATE
 * of the same row) or remove; SQLite serialises every writer.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import type { SyncTokenInfo } from "../../domain/Sync.js"
import { keptSnapshots, SyncTokenStore } from "../../services/portal/SyncTokenStore.js"
import { portalRowInvalid } from "./store.js"

const TokenRow = Schema.Struct({
  id: Schema.String,
  label: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})
const MatchRow = Schema.Struct({ id: Schema.String, claim_id: Schema.String, revoked_at: Schema.NullOr(Schema.String) })
const IdRow = Schema.Struct({ id: Schema.String })

const decoder = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => decode(rows).pipe(Effect.mapError((e) => portalRowInvalid(table, e)))
}
const decodeTokens = decoder("sync_tokens", TokenRow)
const decodeMatches = decoder("sync_tokens", MatchRow)
const decodeIds = decoder("sync_tokens", IdRow)
const decodeClaimIds = decoder("claims", IdRow)

const toInfo = (r: typeof TokenRow.Type): SyncTokenInfo => ({
  id: r.id,
  label: r.label,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at
})

const tokenColumns = "id, label, created_at, last_used_at, revoked_at"

export const SyncTokenStoreLive = Layer.effect(
  SyncTokenStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const create: SyncTokenStore["Type"]["create"] = (t) =>
      sql`INSERT INTO sync_tokens (id, claim_id, token_hash, label, created_at)
        VALUES (${t.id}, ${t.claimId}, ${t.tokenHash}, ${t.label}, ${t.at})`.pipe(
        Effect.as({ id: t.id, label: t.label, createdAt: t.at, lastUsedAt: null, revokedAt: null })
      )

    const listByClaim = (claimId: string) =>
      sql`SELECT ${sql.literal(tokenColumns)} FROM sync_tokens WHERE claim_id = ${claimId}
        ORDER BY created_at DESC, id DESC`.pipe(
        Effect.flatMap(decodeTokens),
        Effect.map((rows) => rows.map(toInfo))
      )

    const revoke = (claimId: string, tokenId: string, at: string) =>
      sql`UPDATE sync_tokens SET revoked_at = ${at}
        WHERE id = ${tokenId} AND claim_id = ${claimId} AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.flatMap(decodeIds),
        Effect.map((rows) => rows.length > 0)
      )

    const findByHash = (tokenHash: string) =>
      sql`SELECT id, claim_id, revoked_at FROM sync_tokens WHERE token_hash = ${tokenHash}`.pipe(
        Effect.flatMap(decodeMatches),
        Effect.map((rows) =>
          rows[0] === undefined
            ? null
            : { tokenId: rows[0].id, claimId: rows[0].claim_id, revoked: rows[0].revoked_at !== null }
        )
      )

    const touch = (tokenId: string, at: string) =>
      sql`UPDATE sync_tokens SET last_used_at = ${at} WHERE id = ${tokenId}`.pipe(Effect.asVoid)

    const appendSnapshot: SyncTokenStore["Type"]["appendSnapshot"] = (input) =>
      sql.withTransaction(Effect.gen(function*() {
        const live = yield* sql`UPDATE claims SET last_upload_at = ${input.at}, bytes = ${input.bytes},
            sha256 = ${input.sha256}
          WHERE id = ${input.claimId} AND state = 'live' RETURNING id`.pipe(Effect.flatMap(decodeClaimIds))
        if (live.length === 0) return "not-live" as const
        yield* sql`INSERT INTO snapshots (claim_id, body, bytes, sha256, received_at)
          VALUES (${input.claimId}, ${input.body}, ${input.bytes}, ${input.sha256}, ${input.at})`
        // History is bounded: the newest `keptSnapshots` rows of the claim stay.
        yield* sql`DELETE FROM snapshots WHERE claim_id = ${input.claimId} AND seq NOT IN (
          SELECT seq FROM snapshots WHERE claim_id = ${input.claimId} ORDER BY seq DESC LIMIT ${keptSnapshots})`
        return "stored" as const
      }))

    return SyncTokenStore.of({ create, listByClaim, revoke, findByHash, touch, appendSnapshot })
  })
)
