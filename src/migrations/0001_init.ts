import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The first schema of `.catalog/index.db`. Scan results and human facts live in separate tables. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    driver TEXT NOT NULL,
    label TEXT,
    region TEXT,
    user_authored INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,            -- ok | unreachable | error
    error_code TEXT,
    error_message TEXT,
    server_version TEXT,
    last_attempt_at TEXT NOT NULL,
    last_ok_at TEXT
  )`
  yield* sql`CREATE TABLE datasets (
    id TEXT PRIMARY KEY,
    source_id TEXT NOT NULL,
    schema_name TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    comment TEXT,
    row_estimate REAL,
    row_estimate_source TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    scanned_at TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX datasets_source ON datasets(source_id)`
  yield* sql`CREATE TABLE columns (
    id TEXT PRIMARY KEY,
    dataset_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    nullable INTEGER NOT NULL,
    comment TEXT,
    is_pk INTEGER NOT NULL,
    ref TEXT,                        -- referenced column id, when a foreign key
    m_value TEXT NOT NULL,           -- the machine verdict, re-evaluated on every scan
    m_rule TEXT NOT NULL,
    m_confidence REAL NOT NULL,
    m_method TEXT NOT NULL,
    m_category TEXT,
    m_evidence TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX columns_dataset ON columns(dataset_id, position)`
  // Human verdicts, stored apart from scan results so that a re-scan never touches them.
  yield* sql`CREATE TABLE overrides (
    column_id TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    by TEXT NOT NULL,
    at TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE lineage (
    id TEXT PRIMARY KEY,
    from_id TEXT NOT NULL,
    to_id TEXT NOT NULL,
    origin TEXT NOT NULL,            -- scan | dbt | user
    source_id TEXT,
    created_at TEXT NOT NULL,
    by TEXT
  )`
  yield* sql`CREATE INDEX lineage_from ON lineage(from_id)`
  yield* sql`CREATE INDEX lineage_to ON lineage(to_id)`
  yield* sql`CREATE TABLE scans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    sources_total INTEGER NOT NULL,
    sources_ok INTEGER NOT NULL,
    changes INTEGER NOT NULL
  )`
  // Append-only change-log; newest first is ORDER BY seq DESC.
  yield* sql`CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    scan_id INTEGER,
    kind TEXT NOT NULL,
    entity TEXT NOT NULL,
    source_id TEXT,
    detail TEXT NOT NULL,
    by TEXT
  )`
  yield* sql`CREATE TRIGGER changes_append_only_update BEFORE UPDATE ON changes BEGIN SELECT RAISE(ABORT, 'the change-log is append-only'); END`
  yield* sql`CREATE TRIGGER changes_append_only_delete BEFORE DELETE ON changes BEGIN SELECT RAISE(ABORT, 'the change-log is append-only'); END`
  yield* sql`CREATE TABLE glossary (
    term TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    datasets TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    by TEXT
  )`
  // One search document per dataset (rowid = datasets.rowid): its name, its columns' names split
  // into words, and its comments. Glossary terms get their own small index.
  yield* sql`CREATE VIRTUAL TABLE search_fts USING fts5(title, columns, body, tokenize = "unicode61 remove_diacritics 2")`
  yield* sql`CREATE VIRTUAL TABLE glossary_fts USING fts5(term, definition, tokenize = "unicode61 remove_diacritics 2")`
})
