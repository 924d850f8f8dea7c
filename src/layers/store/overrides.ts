/**
 * Human classification overrides (`overrides`): stored apart from the scan's verdicts, so a re-scan
 * never touches them; `clearOverride` returns a column to the scan's own value.
 */
import type { SqlClient } from "@effect/sql"
import { DateTime, Effect, Schema } from "effect"
import type { ChangeLog } from "../../services/ChangeLog.js"
import { OverrideRow, type Store, type StoreReader } from "../../services/Store.js"
import { columnVerdict } from "./columns.js"
import { findAll, findOne } from "./rows.js"

const Stats = Schema.Struct({ overrides: Schema.Number, drift: Schema.Number })

export const overridesReads = (sql: SqlClient.SqlClient) => ({
  overrideStats: findOne("overrides", Stats)(
    sql`SELECT count(*) AS overrides, coalesce(sum(o.value <> c.m_value), 0) AS drift FROM overrides o JOIN columns c ON c.id = o.column_id`
  ).pipe(Effect.map((r) => r ?? { overrides: 0, drift: 0 })),
  overrides: findAll("overrides", OverrideRow)(sql`SELECT column_id, value, by, at FROM overrides ORDER BY column_id`)
} satisfies Partial<StoreReader["Type"]>)

export const overridesWrites = (sql: SqlClient.SqlClient, changeLog: ChangeLog["Type"]) => {
  const setOverride: Store["Type"]["setOverride"] = (cid, value, by) =>
    sql.withTransaction(Effect.gen(function*() {
      const prev = yield* columnVerdict(sql, cid)
      const previous = prev?.o_value ?? prev?.m_value ?? "not"
      const at = DateTime.formatIso(yield* DateTime.now)
      yield* sql`INSERT INTO overrides (column_id, value, by, at) VALUES (${cid}, ${value}, ${by}, ${at}) ON CONFLICT(column_id) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at`
      if (previous !== value || prev?.o_value === null) {
        yield* changeLog.record({
          at,
          scanId: null,
          kind: "column.classified",
          entity: cid,
          sourceId: null,
          detail: { from: previous, to: value, machine: prev?.m_value ?? null },
          by
        })
      }
      return { previous }
    }))

  const clearOverride: Store["Type"]["clearOverride"] = (cid, by) =>
    sql.withTransaction(Effect.gen(function*() {
      const r = yield* columnVerdict(sql, cid)
      if (!r || r.o_value === null) return { cleared: false, restored: r?.m_value ?? "not" }
      yield* sql`DELETE FROM overrides WHERE column_id = ${cid}`
      yield* changeLog.record({
        at: DateTime.formatIso(yield* DateTime.now),
        scanId: null,
        kind: "column.classification_cleared",
        entity: cid,
        sourceId: null,
        detail: { from: r.o_value, to: r.m_value },
        by
      })
      return { cleared: true, restored: r.m_value }
    }))

  const mergeOverride: Store["Type"]["mergeOverride"] = (o) =>
    sql`INSERT INTO overrides (column_id, value, by, at) VALUES (${o.column_id}, ${o.value}, ${o.by}, ${o.at})
            ON CONFLICT(column_id) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at WHERE excluded.at > overrides.at RETURNING 1`
      .pipe(Effect.map((r) => r.length > 0))

  return { setOverride, clearOverride, mergeOverride } satisfies Partial<Store["Type"]>
}
