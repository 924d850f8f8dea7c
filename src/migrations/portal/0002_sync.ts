import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The portal's schema: sync tokens (issue 12, pairing). Valid on PostgreSQL and SQLite. A token is issued
 * per claim by the claim's admin ('Connect a machine'); only its SHA-256 is stored. A revoked token keeps
 * its row (the claim page lists it as revoked), `revoked_at` set.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE sync_tokens (
    id TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL REFERENCES claims (id),
    token_hash TEXT NOT NULL UNIQUE,
    label TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  )`
  yield* sql`CREATE INDEX sync_tokens_claim ON sync_tokens (claim_id, created_at)`
})
