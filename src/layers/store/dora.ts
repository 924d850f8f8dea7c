/** The DORA Register of Information draft (`dora_cells`): one row per filled cell, attributed to who wrote it. */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { DoraCellRow, type Store, type StoreReader } from "../../services/Store.js"
import { Count, findAll, findOne } from "./rows.js"

const Value = Schema.Struct({ value: Schema.String })
/** Rows per multi-row INSERT (SQLite's bound-parameter limit is far above 500 × 6). */
const batch = 500

export const doraRepository = (sql: SqlClient.SqlClient) => {
  const count = findOne("dora_cells", Count)
  return {
    reads: {
      doraCells: findAll("dora_cells", DoraCellRow)(
        sql`SELECT table_code, row_key, column_code, value, by, at FROM dora_cells ORDER BY table_code, row_key, column_code`
      ),
      doraRowCount: (table: string) =>
        count(sql`SELECT count(DISTINCT row_key) AS n FROM dora_cells WHERE table_code = ${table}`).pipe(
          Effect.map((r) => r?.n ?? 0)
        ),
      doraCellCount: (table: string, rowKey: string) =>
        count(sql`SELECT count(*) AS n FROM dora_cells WHERE table_code = ${table} AND row_key = ${rowKey}`).pipe(
          Effect.map((r) => r?.n ?? 0)
        ),
      doraCell: (table: string, rowKey: string, column: string) =>
        findOne("dora_cells", Value)(
          sql`SELECT value FROM dora_cells WHERE table_code = ${table} AND row_key = ${rowKey} AND column_code = ${column}`
        ).pipe(Effect.map((r) => r?.value ?? null))
    } satisfies Partial<StoreReader["Type"]>,
    writes: {
      upsertDoraCells: (rows) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(rows.length / batch) }, (_, i) => rows.slice(i * batch, i * batch + batch)),
          (chunk) =>
            sql`INSERT INTO dora_cells ${
              sql.insert(chunk)
            } ON CONFLICT(table_code, row_key, column_code) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at`,
          { discard: true }
        ),
      insertMissingDoraCells: (rows) =>
        Effect.forEach(
          rows,
          (c) =>
            sql`INSERT INTO dora_cells (table_code, row_key, column_code, value, by, at) VALUES (${c.table_code}, ${c.row_key}, ${c.column_code}, ${c.value}, ${c.by}, ${c.at}) ON CONFLICT DO NOTHING`,
          { discard: true }
        ),
      deleteDoraCells: ({ columns, rowKey, table }) =>
        rowKey === undefined
          ? sql`DELETE FROM dora_cells WHERE table_code = ${table}`.pipe(Effect.asVoid)
          : columns === undefined
          ? sql`DELETE FROM dora_cells WHERE table_code = ${table} AND row_key = ${rowKey}`.pipe(Effect.asVoid)
          : sql`DELETE FROM dora_cells WHERE table_code = ${table} AND row_key = ${rowKey} AND ${
            sql.in("column_code", columns)
          }`.pipe(Effect.asVoid),
      mergeDoraCell: (c) =>
        sql`INSERT INTO dora_cells (table_code, row_key, column_code, value, by, at) VALUES (${c.table_code}, ${c.row_key}, ${c.column_code}, ${c.value}, ${c.by}, ${c.at})
            ON CONFLICT(table_code, row_key, column_code) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at WHERE excluded.at > dora_cells.at RETURNING 1`
          .pipe(Effect.map((r) => r.length > 0))
    } satisfies Partial<Store["Type"]>
  }
}
