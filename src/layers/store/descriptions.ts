/**
 * Descriptions of datasets and columns (`descriptions`): drafted by the tool (`drafted = 1`) or written
 * by a human (`drafted = 0`, e.g. from a team catalog import).
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import {
  DescribeColumnRow,
  DescribeDatasetRow,
  DescriptionRow,
  type Store,
  type StoreReader
} from "../../services/Store.js"
import { Count, findAll, findOne } from "./rows.js"

export const descriptionsRepository = (sql: SqlClient.SqlClient) => {
  const count = findOne("datasets", Count)
  const describeDatasets: StoreReader["Type"]["describeDatasets"] = ({ limit, offset }) =>
    Effect.gen(function*() {
      const total = (yield* count(sql`SELECT count(*) AS n FROM datasets`))?.n ?? 0
      const rows = yield* findAll("descriptions", DescribeDatasetRow)(sql`
            SELECT d.id, d.kind,
              (SELECT count(*) FROM columns c WHERE c.dataset_id = d.id) AS columns,
              (SELECT count(*) FROM columns c JOIN descriptions y ON y.entity_id = c.id WHERE c.dataset_id = d.id) AS described,
              x.text, x.drafted, x.by, x.at
            FROM datasets d LEFT JOIN descriptions x ON x.entity_id = d.id
            ORDER BY d.id LIMIT ${limit} OFFSET ${offset}`)
      return { total, rows }
    })
  const describeColumns: StoreReader["Type"]["describeColumns"] = (datasetId, { limit, offset }) =>
    Effect.gen(function*() {
      const total = (yield* count(sql`SELECT count(*) AS n FROM columns WHERE dataset_id = ${datasetId}`))?.n ?? 0
      const rows = yield* findAll("descriptions", DescribeColumnRow)(sql`
          SELECT c.id, c.name, c.type, coalesce(o.value, c.m_value) AS value, x.text, x.drafted, x.by, x.at
          FROM columns c LEFT JOIN overrides o ON o.column_id = c.id LEFT JOIN descriptions x ON x.entity_id = c.id
          WHERE c.dataset_id = ${datasetId} ORDER BY c.position LIMIT ${limit} OFFSET ${offset}`)
      return { total, rows }
    })

  return {
    reads: {
      descriptions: findAll("descriptions", DescriptionRow)(
        sql`SELECT entity_id, text, drafted, by, at FROM descriptions ORDER BY entity_id`
      ),
      description: (entityId: string) =>
        findOne("descriptions", DescriptionRow)(
          sql`SELECT entity_id, text, drafted, by, at FROM descriptions WHERE entity_id = ${entityId}`
        ),
      describeDatasets,
      describeColumns
    } satisfies Partial<StoreReader["Type"]>,
    writes: {
      saveDraftDescription: (d) =>
        sql`INSERT INTO descriptions (entity_id, text, drafted, by, at) VALUES (${d.entityId}, ${d.text}, 1, ${d.by}, ${d.at})
          ON CONFLICT(entity_id) DO UPDATE SET text = excluded.text, drafted = 1, by = excluded.by, at = excluded.at`
          .pipe(Effect.asVoid),
      mergeDescription: (d) =>
        sql`INSERT INTO descriptions (entity_id, text, drafted, by, at) VALUES (${d.entity_id}, ${d.text}, ${d.drafted}, ${d.by}, ${d.at})
            ON CONFLICT(entity_id) DO UPDATE SET text = excluded.text, drafted = excluded.drafted, by = excluded.by, at = excluded.at WHERE excluded.at > descriptions.at RETURNING 1`
          .pipe(Effect.map((r) => r.length > 0))
    } satisfies Partial<Store["Type"]>
  }
}
