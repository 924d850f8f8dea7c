import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The portal's schema: seals and their signed artifacts (issue 12). Valid on PostgreSQL and SQLite.
 * A seal is immutable once written: what was signed stays valid (a new seal adds rows, never changes one).
 * Artifact content is stored as base64 text on both back ends (exactly the signed bytes); `signature` is
 * the detached Ed25519 signature of those bytes, base64.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE seals (
    id TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL REFERENCES claims (id),
    sealed_at TEXT NOT NULL,
    signer_name TEXT NOT NULL,
    signer_role TEXT NOT NULL,
    signer_email TEXT,
    terms_version TEXT,
    acknowledged TEXT NOT NULL,
    licence_id TEXT NOT NULL,
    licence_issued_at TEXT NOT NULL,
    licence_expires_at TEXT NOT NULL,
    snapshot_sha256 TEXT NOT NULL,
    via TEXT NOT NULL CHECK (via IN ('claim-page', 'verify'))
  )`
  yield* sql`CREATE INDEX seals_claim ON seals (claim_id, sealed_at)`
  yield* sql`CREATE TABLE seal_artifacts (
    seal_id TEXT NOT NULL REFERENCES seals (id),
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    content TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    signature TEXT NOT NULL,
    PRIMARY KEY (seal_id, name)
  )`
})
