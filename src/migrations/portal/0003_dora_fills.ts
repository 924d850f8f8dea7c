import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The portal's schema: DORA cells filled on the claim page (issue 12). One current value per (claim,
 * table, row, field): a later fill of the same cell replaces it. Values are stored as the register
 * stores them (normalised by the same checks as `catalog dora set`). Valid on PostgreSQL and SQLite.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE dora_fills (
    claim_id TEXT NOT NULL REFERENCES claims (id),
    table_code TEXT NOT NULL,
    row_key TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (claim_id, table_code, row_key, field)
  )`
})
