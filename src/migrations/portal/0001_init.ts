import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The portal's first schema, valid on PostgreSQL and SQLite. Times are ISO-8601 UTC text on both (the
 * caller's clock); flags are BOOLEAN on PostgreSQL and 0/1 INTEGER on SQLite. Secrets are stored only as
 * SHA-256 hex digests (`*_hash`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const flag = sql.literal(sql.onDialectOrElse({
    pg: () => "BOOLEAN NOT NULL DEFAULT false",
    orElse: () => "INTEGER NOT NULL DEFAULT 0"
  }))
  const serial = sql.literal(sql.onDialectOrElse({
    pg: () => "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY"
  }))
  // One claim per upload of a record; successor_id points at the claim that superseded it (no foreign key:
  // the old claim is updated before its successor is inserted, in the same transaction).
  yield* sql`CREATE TABLE claims (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    record_key_hash TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('live', 'superseded', 'removed')),
    successor_id TEXT,
    recipient TEXT,
    unbound ${flag},
    opened ${flag},
    created_at TEXT NOT NULL,
    last_upload_at TEXT,
    bytes INTEGER,
    sha256 TEXT,
    controller_name TEXT,
    controller_contact TEXT,
    controller_updated_at TEXT,
    removed_at TEXT
  )`
  // Never two live claims per record, whatever the number of portal processes: the database refuses it.
  yield* sql`CREATE UNIQUE INDEX claims_one_live_per_record ON claims (record_key_hash) WHERE state = 'live'`
  yield* sql`CREATE INDEX claims_created ON claims (created_at)`
  // Every upload to a claim (one today; later uploads by paired machines add rows). The newest is the claim's body.
  yield* sql`CREATE TABLE snapshots (
    seq ${serial},
    claim_id TEXT NOT NULL REFERENCES claims (id),
    body TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    received_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX snapshots_claim ON snapshots (claim_id, seq)`
  yield* sql`CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    claim_id TEXT NOT NULL REFERENCES claims (id),
    role TEXT NOT NULL CHECK (role IN ('admin', 'recipient')),
    expires_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX sessions_claim ON sessions (claim_id)`
  yield* sql`CREATE TABLE codes (
    claim_id TEXT PRIMARY KEY REFERENCES claims (id),
    code_hash TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0
  )`
  yield* sql`CREATE TABLE upload_counts (
    address TEXT NOT NULL,
    window_start TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (address, window_start)
  )`
})
