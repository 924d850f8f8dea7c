/** The `columns` table with each column's human override (`overrides`) applied: the machine verdict and the effective class. */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ClassValue as ClassValueSchema } from "../../domain/Catalog.js"
import type { ClassValue } from "../../domain/Metadata.js"
import { ColumnRow, RopaColumnRow, SearchColumnRow, splitColumnId, type StoreReader } from "../../services/Store.js"
import { findAll, findOne, Id } from "./rows.js"

const ClassCount = Schema.Struct({
  value: ClassValueSchema,
  n: Schema.Number
})
const MethodCount = Schema.Struct({ method: Schema.String, n: Schema.Number })

/** The verdict of one column, for a correction. */
export const ColumnVerdictRow = Schema.Struct({
  m_value: ClassValueSchema,
  o_value: Schema.NullOr(ClassValueSchema)
})

/** The effective verdict of column `id`, matched by its primary key (dataset, name) and its id. */
export const columnVerdict = (sql: SqlClient.SqlClient, id: string) =>
  findOne("columns", ColumnVerdictRow)(
    sql`SELECT c.m_value, o.value AS o_value FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${
      splitColumnId(id).datasetId
    } AND c.name = ${splitColumnId(id).name} AND c.id = ${id}`
  )

export const columnsRepository = (sql: SqlClient.SqlClient) => {
  const COLS =
    sql`c.id, c.dataset_id, c.position, c.name, c.type, c.nullable, c.comment, c.is_pk, c.ref, c.m_value, c.m_rule, c.m_confidence, c.m_method, c.m_category, c.m_evidence, o.value AS o_value, o.by AS o_by, o.at AS o_at`
  const all = findAll("columns", ColumnRow)
  const one = findOne("columns", ColumnRow)
  const ids = findAll("columns", Id)

  const column = (id: string) => {
    const { datasetId, name } = splitColumnId(id)
    return one(
      sql`SELECT ${COLS} FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${datasetId} AND c.name = ${name} AND c.id = ${id}`
    )
  }

  const resolveColumnId: StoreReader["Type"]["resolveColumnId"] = (id) =>
    Effect.gen(function*() {
      const { datasetId, name } = splitColumnId(id)
      const exact = yield* ids(
        sql`SELECT id FROM columns WHERE dataset_id = ${datasetId} AND name = ${name} AND id = ${id}`
      )
      if (exact[0] !== undefined) return exact[0].id
      const folded = yield* ids(sql`SELECT id FROM columns WHERE lower(id) = lower(${id}) LIMIT 2`)
      return folded.length === 1 ? folded[0]!.id : null
    })

  return {
    columnsOf: (id: string) =>
      all(
        sql`SELECT ${COLS} FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${id} ORDER BY c.position`
      ),
    column,
    resolveColumnId,
    searchColumnsOf: (datasetIds: ReadonlyArray<string>) =>
      datasetIds.length === 0
        ? Effect.succeed([])
        : findAll("columns", SearchColumnRow)(
          sql`SELECT c.id, c.dataset_id, c.name, c.type, c.comment, c.m_value, c.m_category, o.value AS o_value FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE ${
            sql.in("c.dataset_id", datasetIds)
          }`
        ),
    classCounts: findAll("columns", ClassCount)(
      sql`SELECT coalesce(o.value, c.m_value) AS value, count(*) AS n FROM columns c LEFT JOIN overrides o ON o.column_id = c.id GROUP BY 1`
    ).pipe(Effect.map((r): Array<{ readonly value: ClassValue; readonly n: number }> => [...r])),
    ropaColumns: findAll("columns", RopaColumnRow)(sql`
        SELECT c.dataset_id, d.source_id, d.schema_name, d.name AS table_name, d.kind, c.name, coalesce(o.value, c.m_value) AS value,
          CASE WHEN o.value IS NULL OR o.value = c.m_value THEN c.m_category ELSE o.value END AS category, c.is_pk, c.ref
        FROM columns c JOIN datasets d ON d.id = c.dataset_id LEFT JOIN overrides o ON o.column_id = c.id
        WHERE coalesce(o.value, c.m_value) <> 'not' ORDER BY c.dataset_id, c.position`),
    methodCounts: findAll("columns", MethodCount)(
      sql`SELECT CASE WHEN o.value IS NULL THEN c.m_method ELSE 'human' END AS method, count(*) AS n FROM columns c LEFT JOIN overrides o ON o.column_id = c.id GROUP BY 1 ORDER BY 1`
    )
  } satisfies Partial<StoreReader["Type"]>
}
