/**
 * Glossary terms (`glossary`), each with its search document in `glossary_fts` under the same rowid, so
 * search finds a term by any word of the term or the definition.
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { DatasetIds, GlossaryRow, searchWords, type Store, type StoreReader } from "../../services/Store.js"
import { findAll, findOne } from "./rows.js"

/** A term with its datasets parsed (`Schema.parseJson`) and its rowid. */
const GlossaryTermRow = Schema.Struct({
  rowid: Schema.Number,
  term: Schema.String,
  definition: Schema.String,
  datasets: Schema.parseJson(DatasetIds),
  updated_at: Schema.String,
  by: Schema.NullOr(Schema.String)
})
const GlossaryHit = Schema.Struct({ term: Schema.String, definition: Schema.String, score: Schema.Number })
const RowId = Schema.Struct({ rowid: Schema.Number })

/** The search document of a term: its words as written and split (`customerLifetimeValue` → `customer lifetime value`). */
const ftsTerm = (term: string): string => {
  const split = searchWords(term)
  return split === term ? term : `${term} ${split}`
}

export const glossaryRepository = (sql: SqlClient.SqlClient) => {
  const terms = findAll("glossary", GlossaryTermRow)
  const rowids = findAll("glossary", RowId)

  const saveGlossaryTerm: Store["Type"]["saveGlossaryTerm"] = (t) =>
    Effect.gen(function*() {
      const datasets = JSON.stringify(t.datasets)
      let rowid: number
      if (t.rowid !== null) {
        yield* sql`UPDATE glossary SET term = ${t.term}, definition = ${t.definition}, datasets = ${datasets}, updated_at = ${t.at}, by = ${t.by} WHERE rowid = ${t.rowid}`
        rowid = t.rowid
        yield* sql`DELETE FROM glossary_fts WHERE rowid = ${rowid}`
      } else {
        const inserted = yield* rowids(
          sql`INSERT INTO glossary (term, definition, datasets, updated_at, by) VALUES (${t.term}, ${t.definition}, ${datasets}, ${t.at}, ${t.by}) RETURNING rowid`
        )
        rowid = inserted[0]!.rowid
      }
      yield* sql`INSERT INTO glossary_fts (rowid, term, definition) VALUES (${rowid}, ${
        ftsTerm(t.term)
      }, ${t.definition})`
    })

  const mergeGlossaryTerm: Store["Type"]["mergeGlossaryTerm"] = (t) =>
    Effect.gen(function*() {
      const r = yield* rowids(
        sql`INSERT INTO glossary (term, definition, datasets, updated_at, by) VALUES (${t.term}, ${t.definition}, ${
          JSON.stringify(t.datasets)
        }, ${t.at}, ${t.by})
            ON CONFLICT(term) DO UPDATE SET definition = excluded.definition, datasets = excluded.datasets, updated_at = excluded.updated_at, by = excluded.by WHERE excluded.updated_at > glossary.updated_at RETURNING rowid`
      )
      for (const row of r) {
        yield* sql`DELETE FROM glossary_fts WHERE rowid = ${row.rowid}`
        yield* sql`INSERT INTO glossary_fts (rowid, term, definition) VALUES (${row.rowid}, ${t.term}, ${t.definition})`
      }
      return r.length > 0
    })

  return {
    reads: {
      glossary: findAll("glossary", GlossaryRow)(sql`SELECT * FROM glossary ORDER BY term COLLATE NOCASE`),
      glossaryTerm: (term: string) =>
        findOne("glossary", GlossaryTermRow)(sql`SELECT rowid, * FROM glossary WHERE term = ${term} COLLATE NOCASE`),
      glossaryTerms: terms(sql`SELECT rowid, * FROM glossary ORDER BY term`),
      searchGlossary: (match: string, limit: number) =>
        findAll("glossary", GlossaryHit)(sql`
          SELECT g.term, g.definition, -bm25(glossary_fts, 10.0, 1.0) AS score FROM glossary_fts JOIN glossary g ON g.rowid = glossary_fts.rowid
          WHERE glossary_fts MATCH ${match} ORDER BY bm25(glossary_fts, 10.0, 1.0) LIMIT ${limit}`)
    } satisfies Partial<StoreReader["Type"]>,
    writes: { saveGlossaryTerm, mergeGlossaryTerm } satisfies Partial<Store["Type"]>
  }
}
