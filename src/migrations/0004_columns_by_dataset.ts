import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Columns are keyed by (dataset, name) only: the separate unique index on the column id (derivable from
 * the two) cost a third B-tree update for each of a large scan's hundreds of thousands of rows.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE columns_v4 (
    id TEXT NOT NULL,
    dataset_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    nullable INTEGER NOT NULL,
    comment TEXT,
    is_pk INTEGER NOT NULL,
    ref TEXT,
    m_value TEXT NOT NULL,
    m_rule TEXT NOT NULL,
    m_confidence REAL NOT NULL,
    m_method TEXT NOT NULL,
    m_category TEXT,
    m_evidence TEXT NOT NULL
  )`
  yield* sql`INSERT INTO columns_v4 SELECT id, dataset_id, position, name, type, nullable, comment, is_pk, ref, m_value, m_rule, m_confidence, m_method, m_category, m_evidence FROM columns`
  yield* sql`DROP TABLE columns`
  yield* sql`ALTER TABLE columns_v4 RENAME TO columns`
  yield* sql`CREATE UNIQUE INDEX columns_dataset_name ON columns(dataset_id, name)`
})
