import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The portal's schema: licences issued by the operator (issue 12). Valid on PostgreSQL and SQLite. The key
 * itself is never stored (it is the signed payload, re-creatable from the row and the signing key only by the
 * operator); a licence is revoked by setting `revoked_at`, never deleted, so the revocation list stays whole.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE licences (
    id TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL REFERENCES claims (id),
    issued_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    issued_to TEXT
  )`
  yield* sql`CREATE INDEX licences_claim ON licences (claim_id, issued_at)`
})
