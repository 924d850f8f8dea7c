import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The local catalog: the record's seals as pulled from the portal and verified against the pinned key
 * (issue 12). One row per seal, never changed; the artifacts themselves are files under
 * `.catalog/sealed/<id>/` (`dir`). `acknowledged` is the JSON list of the open legal calls sealed open.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE seals (
    id TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL,
    sealed_at TEXT NOT NULL,
    signer_name TEXT NOT NULL,
    signer_role TEXT NOT NULL,
    signer_email TEXT,
    terms_version TEXT,
    acknowledged TEXT NOT NULL,
    licence_id TEXT NOT NULL,
    licence_issued_at TEXT NOT NULL,
    licence_expires_at TEXT NOT NULL,
    dir TEXT NOT NULL,
    manifest_sha256 TEXT NOT NULL,
    stored_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX seals_sealed_at ON seals (sealed_at)`
})
