/**
 * `DoraFillStore` over `@effect/sql`, the same statements on PostgreSQL and SQLite: a fill is one upsert
 * (`ON CONFLICT (claim_id, table_code, row_key, field) DO UPDATE`), so two fills of one cell at once leave
 * exactly one of them. Rows are decoded with Schema at the SQL edge (SCHEMA_MIGRATION_REQUIRED otherwise).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import type { DoraFill } from "../../domain/Sync.js"
import { DoraFillStore } from "../../services/portal/DoraFillStore.js"
import { portalRowInvalid } from "./store.js"

const FillRow = Schema.Struct({
  table_code: Schema.String,
  row_key: Schema.String,
  field: Schema.String,
  value: Schema.String,
  by: Schema.String,
  at: Schema.String
})
const CountRow = Schema.Struct({ n: Schema.Union(Schema.Number, Schema.NumberFromString) })

const decode = <A, I>(schema: Schema.Schema<A, I>) => {
  const run = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>) => run(rows).pipe(Effect.mapError((e) => portalRowInvalid("dora_fills", e)))
}
const decodeFills = decode(FillRow)
const decodeCount = decode(CountRow)

export const DoraFillStoreLive = Layer.effect(
  DoraFillStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return DoraFillStore.of({
      put: (claimId, f) =>
        sql`INSERT INTO dora_fills (claim_id, table_code, row_key, field, value, by, at)
            VALUES (${claimId}, ${f.table}, ${f.rowKey}, ${f.field}, ${f.value}, ${f.by}, ${f.at})
            ON CONFLICT (claim_id, table_code, row_key, field)
            DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at`.pipe(Effect.asVoid),
      list: (claimId) =>
        sql`SELECT table_code, row_key, field, value, by, at FROM dora_fills WHERE claim_id = ${claimId}
            ORDER BY table_code, row_key, field`.pipe(
          Effect.flatMap(decodeFills),
          Effect.map((rows) =>
            rows.map((r): DoraFill => ({
              table: r.table_code,
              rowKey: r.row_key,
              field: r.field,
              value: r.value,
              by: r.by,
              at: r.at
            }))
          )
        ),
      count: (claimId) =>
        sql`SELECT count(*) AS n FROM dora_fills WHERE claim_id = ${claimId}`.pipe(
          Effect.flatMap(decodeCount),
          Effect.map((rows) => rows[0]?.n ?? 0)
        )
    })
  })
)
