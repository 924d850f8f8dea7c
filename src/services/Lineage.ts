/**
 * Human-asserted lineage: `lineage add` / `lineage remove`. A user edge has origin `user`, names who
 * asserted it, and is never touched by a scan (scans regenerate only `scan` and `dbt` edges). Only
 * user edges are removable. Both acts land in the change-log (`lineage.added`, `lineage.removed`).
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { LineageEdgeNotRemovable, LineageEndpointUnknown } from "../errors/index.js"
import { edgeId, type EdgeRow, resolveDatasetId } from "./Store.js"

export interface LineageWriteResult {
  readonly edge: EdgeRow
  /** False when the same user edge already existed (the command is idempotent). */
  readonly created: boolean
}

export interface LineageRemoveResult {
  readonly id: string
  /** False when the edge was already removed earlier (the change-log says so). */
  readonly removed: boolean
  readonly edge: EdgeRow | null
}

export class Lineage extends Context.Tag("catalog/Lineage")<Lineage, {
  /** Asserts `from → to` (both must be scanned datasets; ids match case-insensitively). */
  readonly add: (
    from: string,
    to: string,
    by: string
  ) => Effect.Effect<LineageWriteResult, LineageEndpointUnknown | SqlError.SqlError>
  /** Removes a user edge; scan and dbt edges are refused. */
  readonly remove: (
    id: string,
    by: string
  ) => Effect.Effect<LineageRemoveResult, LineageEdgeNotRemovable | SqlError.SqlError>
}>() {}

const now = () => new Date().toISOString()

export const LineageLive = Layer.effect(
  Lineage,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findDataset = (id: string) => resolveDatasetId(sql, id)

    const edgeRow = (id: string) =>
      sql<
        EdgeRow
      >`SELECT l.*, (SELECT count(*) FROM datasets WHERE id = l.from_id) AS from_known, (SELECT count(*) FROM datasets WHERE id = l.to_id) AS to_known FROM lineage l WHERE l.id = ${id}`
        .pipe(
          Effect.map((r) => r[0] ?? null)
        )

    const add: Lineage["Type"]["add"] = (rawFrom, rawTo, by) =>
      sql.withTransaction(Effect.gen(function*() {
        const fromArg = rawFrom.trim()
        const toArg = rawTo.trim()
        const from = yield* findDataset(fromArg)
        const to = yield* findDataset(toArg)
        const fix =
          "Both ends must be datasets of the catalog: list ids with `catalog datasets` or `catalog search <words>`, then `catalog lineage add <fromDatasetId> <toDatasetId>`."
        if (from === null || to === null) {
          const missing = [from === null ? fromArg : null, to === null ? toArg : null].filter((x): x is string =>
            x !== null
          )
          return yield* new LineageEndpointUnknown({
            message: `No dataset with id ${missing.map((m) => `"${m}"`).join(" or ")} in the catalog.`,
            fix,
            param: from === null ? "fromDatasetId" : "toDatasetId",
            details: { unknown: missing }
          })
        }
        if (from === to) {
          return yield* new LineageEndpointUnknown({
            message: `A lineage edge needs two different datasets; got "${from}" twice.`,
            fix,
            param: "toDatasetId"
          })
        }
        const id = edgeId(from, to, "user")
        const existing = yield* edgeRow(id)
        if (existing !== null) return { edge: existing, created: false }
        const at = now()
        yield* sql`INSERT INTO lineage (id, from_id, to_id, origin, source_id, created_at, by) VALUES (${id}, ${from}, ${to}, 'user', NULL, ${at}, ${by})`
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${at}, NULL, 'lineage.added', ${id}, NULL, ${
          JSON.stringify({ from, to, origin: "user" })
        }, ${by})`
        return { edge: (yield* edgeRow(id))!, created: true }
      }))

    const remove: Lineage["Type"]["remove"] = (rawId, by) =>
      sql.withTransaction(Effect.gen(function*() {
        const id = rawId.trim()
        const edge = yield* edgeRow(id)
        if (edge === null) {
          const past = yield* sql<
            { n: number }
          >`SELECT count(*) AS n FROM changes WHERE kind = 'lineage.removed' AND entity = ${id}`
          if ((past[0]?.n ?? 0) > 0) return { id, removed: false, edge: null }
          return yield* new LineageEdgeNotRemovable({
            message: `No lineage edge with id "${id}".`,
            fix: "List edges with `catalog lineage list` (removable ones with `--origin user`) and pass the edge id.",
            param: "edgeId",
            details: { id, reason: "unknown" }
          })
        }
        if (edge.origin !== "user") {
          return yield* new LineageEdgeNotRemovable({
            message: `Edge ${id} (${edge.from_id} → ${edge.to_id}) comes from ${
              edge.origin === "dbt" ? "a dbt manifest" : "the scan"
            }; only human-asserted (user) edges can be removed.`,
            fix: edge.origin === "dbt"
              ? "Change the dbt project (or the dbt source's manifest) and re-run `catalog start`: dbt edges are regenerated by every scan."
              : "Change the source (e.g. the view definition) and re-run `catalog start`: scan edges are regenerated by every scan.",
            param: "edgeId",
            details: { id, origin: edge.origin }
          })
        }
        yield* sql`DELETE FROM lineage WHERE id = ${id}`
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${now()}, NULL, 'lineage.removed', ${id}, NULL, ${
          JSON.stringify({ from: edge.from_id, to: edge.to_id, origin: "user", assertedBy: edge.by })
        }, ${by})`
        return { id, removed: true, edge }
      }))

    return Lineage.of({ add, remove })
  })
)
