/**
 * `SealStore` over `@effect/sql` (PostgreSQL and SQLite): a seal and its artifacts in one transaction;
 * rows decoded with Schema at the SQL edge (a row that does not decode is SCHEMA_MIGRATION_REQUIRED naming
 * its table, as in store.ts).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { AcknowledgedCall, type SealedArtifact } from "../../domain/Sync.js"
import { type SealRecord, SealStore } from "../../services/portal/SealStore.js"
import { portalRowInvalid } from "./store.js"

const Text = Schema.String
const OptText = Schema.NullOr(Schema.String)

const SealRow = Schema.Struct({
  id: Text,
  claim_id: Text,
  sealed_at: Text,
  signer_name: Text,
  signer_role: Text,
  signer_email: OptText,
  terms_version: OptText,
  acknowledged: Schema.parseJson(Schema.Array(AcknowledgedCall)),
  licence_id: Text,
  licence_issued_at: Text,
  licence_expires_at: Text,
  snapshot_sha256: Text,
  via: Schema.Literal("claim-page", "verify")
})
const sealColumns =
  "id, claim_id, sealed_at, signer_name, signer_role, signer_email, terms_version, acknowledged, licence_id, licence_issued_at, licence_expires_at, snapshot_sha256, via"

const ArtifactRow = Schema.Struct({
  name: Text,
  media_type: Text,
  content: Text,
  sha256: Text,
  signature: Text
})

const decoder = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => decode(rows).pipe(Effect.mapError((e) => portalRowInvalid(table, e)))
}
const decodeSeals = decoder("seals", SealRow)
const decodeArtifacts = decoder("seal_artifacts", ArtifactRow)

const toSeal = (r: typeof SealRow.Type): SealRecord => ({
  id: r.id,
  claimId: r.claim_id,
  sealedAt: r.sealed_at,
  signer: { name: r.signer_name, role: r.signer_role, email: r.signer_email },
  termsVersion: r.terms_version,
  acknowledgedOpenCalls: r.acknowledged,
  licence: { id: r.licence_id, issuedAt: r.licence_issued_at, expiresAt: r.licence_expires_at },
  snapshotSha256: r.snapshot_sha256,
  via: r.via
})

export const SealStoreLive = Layer.effect(
  SealStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const save = (seal: SealRecord, artifacts: ReadonlyArray<SealedArtifact>) =>
      sql.withTransaction(Effect.gen(function*() {
        // The claim row, locked (PostgreSQL; SQLite's write transaction already holds the database): still
        // live, still at the snapshot that was sealed.
        const lock = sql.literal(sql.onDialectOrElse({ pg: () => "FOR UPDATE", orElse: () => "" }))
        const current = yield* sql<{ readonly id: string }>`SELECT id FROM claims
          WHERE id = ${seal.claimId} AND state = 'live' AND sha256 = ${seal.snapshotSha256} ${lock}`
        if (current.length === 0) return false
        yield* sql`INSERT INTO seals (${sql.literal(sealColumns)}) VALUES (${seal.id}, ${seal.claimId},
          ${seal.sealedAt}, ${seal.signer.name}, ${seal.signer.role}, ${seal.signer.email}, ${seal.termsVersion},
          ${JSON.stringify(seal.acknowledgedOpenCalls)}, ${seal.licence.id}, ${seal.licence.issuedAt},
          ${seal.licence.expiresAt}, ${seal.snapshotSha256}, ${seal.via})`
        let position = 0
        for (const a of artifacts) {
          yield* sql`INSERT INTO seal_artifacts (seal_id, position, name, media_type, content, sha256, signature)
            VALUES (${seal.id}, ${position++}, ${a.name}, ${a.mediaType}, ${a.content}, ${a.sha256}, ${a.signature})`
        }
        return true
      }))

    const latest = (claimId: string) =>
      sql`SELECT ${sql.literal(sealColumns)} FROM seals WHERE claim_id = ${claimId}
        ORDER BY sealed_at DESC, id DESC LIMIT 1`.pipe(
        Effect.flatMap(decodeSeals),
        Effect.map((rows) => (rows[0] === undefined ? null : toSeal(rows[0])))
      )

    const artifacts = (sealId: string) =>
      sql`SELECT name, media_type, content, sha256, signature FROM seal_artifacts WHERE seal_id = ${sealId}
        ORDER BY position`.pipe(
        Effect.flatMap(decodeArtifacts),
        Effect.map((rows) =>
          rows.map((r): SealedArtifact => ({
            name: r.name,
            mediaType: r.media_type,
            content: r.content,
            sha256: r.sha256,
            signature: r.signature
          }))
        )
      )

    return SealStore.of({ save, latest, artifacts })
  })
)
