import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Human facts of the compliance drafts: legal-field fills, DORA cells, descriptions. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // One row per (activity, legal field) that a human filled or confirmed. Machine suggestions are
  // computed from the catalog on every read and never stored here.
  yield* sql`CREATE TABLE annotations (
    activity_key TEXT NOT NULL,
    field TEXT NOT NULL,              -- purpose | lawfulBasis | retention | transfers
    value TEXT NOT NULL,
    status TEXT NOT NULL,             -- suggested | confirmed
    by TEXT NOT NULL,
    at TEXT NOT NULL,
    confirmed_by TEXT,
    confirmed_at TEXT,
    basis TEXT,                       -- fingerprint of the activity's data when confirmed (re-review when it moves)
    PRIMARY KEY (activity_key, field)
  )`
  yield* sql`CREATE TABLE dora_cells (
    table_code TEXT NOT NULL,
    row_key TEXT NOT NULL,
    column_code TEXT NOT NULL,
    value TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (table_code, row_key, column_code)
  )`
  yield* sql`CREATE TABLE descriptions (
    entity_id TEXT PRIMARY KEY,       -- a dataset id or a column id
    text TEXT NOT NULL,
    drafted INTEGER NOT NULL,         -- 1 = drafted by the tool from metadata, 0 = written by a human
    by TEXT NOT NULL,
    at TEXT NOT NULL
  )`
})
