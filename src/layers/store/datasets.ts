/** The `datasets` table (and its search documents in `search_fts`): what the read surfaces list and search. */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { DatasetRow, DatasetSummaryRow, type StoreReader } from "../../services/Store.js"
import { findAll, findOne, Id } from "./rows.js"

const SearchHit = Schema.Struct({
  id: Schema.String,
  score: Schema.Number,
  kind: Schema.String,
  schema_name: Schema.String,
  name: Schema.String,
  comment: Schema.NullOr(Schema.String)
})

/** The columns a DatasetRow reads, named (not `*`: the table holds more, e.g. the scan fingerprint). */
const datasetColumns = Object.keys(DatasetRow.fields)

export const datasetsRepository = (sql: SqlClient.SqlClient) => {
  const d = (prefix: string) => sql.literal(datasetColumns.map((c) => `${prefix}${c}`).join(", "))
  const summaries = findAll("datasets", DatasetSummaryRow)
  const one = findOne("datasets", DatasetRow)
  const ids = findAll("datasets", Id)
  const hits = findAll("datasets", SearchHit)

  const resolveDatasetId: StoreReader["Type"]["resolveDatasetId"] = (id) =>
    Effect.gen(function*() {
      const exact = yield* ids(sql`SELECT id FROM datasets WHERE id = ${id}`)
      if (exact[0] !== undefined) return exact[0].id
      const folded = yield* ids(sql`SELECT id FROM datasets WHERE lower(id) = lower(${id}) LIMIT 2`)
      return folded.length === 1 ? folded[0]!.id : null
    })

  return {
    datasets: summaries(sql`
        SELECT ${d("d.")}, count(c.id) AS columns,
          coalesce(sum(coalesce(o.value, c.m_value) = 'personal'), 0) AS personal,
          coalesce(sum(coalesce(o.value, c.m_value) = 'special'), 0) AS special,
          coalesce(sum(coalesce(o.value, c.m_value) = 'criminal'), 0) AS criminal
        FROM datasets d LEFT JOIN columns c ON c.dataset_id = d.id LEFT JOIN overrides o ON o.column_id = c.id
        GROUP BY d.id ORDER BY d.id`),
    dataset: (id: string) => one(sql`SELECT ${d("")} FROM datasets WHERE id = ${id}`),
    resolveDatasetId,
    // Rank only (FTS5's `rank` with column weights: name > column names > comments); snippets are
    // made by the Reader for the few rows kept, not by SQLite for every match.
    searchDatasets: (match: string, limit: number) =>
      hits(sql`
          SELECT d.id, -s.rank AS score, d.kind, d.schema_name, d.name, d.comment
          FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH ${match} AND rank MATCH 'bm25(10.0, 4.0, 1.0)' ORDER BY rank LIMIT ${limit}) s
          JOIN datasets d ON d.rowid = s.rowid ORDER BY s.rank`)
  } satisfies Partial<StoreReader["Type"]>
}
