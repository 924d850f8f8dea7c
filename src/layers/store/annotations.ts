/** RoPA legal-field answers (`annotations`): draft fills (`suggested`) and confirmations with who confirmed. */
import type { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { ChangeLog } from "../../services/ChangeLog.js"
import { AnnotationRowSchema, type Store, type StoreReader } from "../../services/Store.js"
import { findAll, findOne } from "./rows.js"

const Previous = Schema.Struct({ value: Schema.String, status: Schema.String })

export const annotationsReads = (sql: SqlClient.SqlClient) => ({
  annotations: findAll("annotations", AnnotationRowSchema)(sql`SELECT * FROM annotations ORDER BY activity_key, field`)
} satisfies Partial<StoreReader["Type"]>)

export const annotationsWrites = (sql: SqlClient.SqlClient, changeLog: ChangeLog["Type"]) => {
  const setAnnotation: Store["Type"]["setAnnotation"] = (row) =>
    sql.withTransaction(Effect.gen(function*() {
      const prev = yield* findOne("annotations", Previous)(
        sql`SELECT value, status FROM annotations WHERE activity_key = ${row.activity_key} AND field = ${row.field}`
      )
      yield* sql`INSERT INTO annotations (activity_key, field, value, status, by, at, confirmed_by, confirmed_at, basis)
          VALUES (${row.activity_key}, ${row.field}, ${row.value}, ${row.status}, ${row.by}, ${row.at}, ${row.confirmed_by}, ${row.confirmed_at}, ${row.basis})
          ON CONFLICT(activity_key, field) DO UPDATE SET value = excluded.value, status = excluded.status, by = excluded.by, at = excluded.at,
            confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at, basis = excluded.basis`
      yield* changeLog.record({
        at: row.at,
        scanId: null,
        kind: row.status === "confirmed" ? "ropa.field_confirmed" : "ropa.field_filled",
        entity: `${row.activity_key}.${row.field}`,
        sourceId: null,
        detail: { field: row.field, value: row.value, status: row.status, previous: prev },
        by: row.by
      })
    }))

  const mergeAnnotation: Store["Type"]["mergeAnnotation"] = (a) =>
    sql`INSERT INTO annotations (activity_key, field, value, status, by, at, confirmed_by, confirmed_at, basis)
            VALUES (${a.activity_key}, ${a.field}, ${a.value}, ${a.status}, ${a.by}, ${a.at}, ${a.confirmed_by}, ${a.confirmed_at}, ${a.basis})
            ON CONFLICT(activity_key, field) DO UPDATE SET value = excluded.value, status = excluded.status, by = excluded.by, at = excluded.at,
              confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at, basis = excluded.basis WHERE excluded.at > annotations.at RETURNING 1`
      .pipe(Effect.map((r) => r.length > 0))

  return { setAnnotation, mergeAnnotation } satisfies Partial<Store["Type"]>
}
