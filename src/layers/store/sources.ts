/** The `sources` table: each configured source's last scan outcome, and removing a source with its datasets. */
import type { SqlClient } from "@effect/sql"
import { DateTime, Effect, Schema } from "effect"
import type { ChangeLog } from "../../services/ChangeLog.js"
import { SourceRow, type Store, type StoreReader } from "../../services/Store.js"
import { Count, findAll, findOne, Id } from "./rows.js"

const Fingerprint = Schema.Struct({ id: Schema.String, raw_fingerprint: Schema.NullOr(Schema.String) })

export const sourcesReads = (sql: SqlClient.SqlClient) => ({
  sources: findAll("sources", SourceRow)(
    sql`SELECT s.*, (SELECT count(*) FROM datasets d WHERE d.source_id = s.id) AS datasets FROM sources s ORDER BY s.id`
  )
} satisfies Partial<StoreReader["Type"]>)

export const sourcesWrites = (sql: SqlClient.SqlClient, changeLog: ChangeLog["Type"]) => {
  const removeSource: Store["Type"]["removeSource"] = (id, by) =>
    sql.withTransaction(Effect.gen(function*() {
      const n = yield* findOne("datasets", Count)(sql`SELECT count(*) AS n FROM datasets WHERE source_id = ${id}`)
      const datasets = n?.n ?? 0
      yield* sql`DELETE FROM search_fts WHERE rowid IN (SELECT rowid FROM datasets WHERE source_id = ${id})`
      yield* sql`DELETE FROM columns WHERE dataset_id IN (SELECT id FROM datasets WHERE source_id = ${id})`
      yield* sql`DELETE FROM datasets WHERE source_id = ${id}`
      yield* sql`DELETE FROM lineage WHERE source_id = ${id} AND origin <> 'user'`
      const existed = yield* sql`DELETE FROM sources WHERE id = ${id} RETURNING id`
      if (existed.length > 0 || datasets > 0) {
        yield* changeLog.record({
          at: DateTime.formatIso(yield* DateTime.now),
          scanId: null,
          kind: "source.removed",
          entity: id,
          sourceId: id,
          detail: { datasets },
          by
        })
      }
      return { datasets }
    }))

  return {
    knownSources: findAll("sources", Id)(sql`SELECT id FROM sources ORDER BY id`).pipe(
      Effect.map((r) => r.map((x) => x.id))
    ),
    sourceFingerprints: findAll("sources", Fingerprint)(sql`SELECT id, raw_fingerprint FROM sources`).pipe(
      Effect.map((r) =>
        new Map(r.flatMap((x) => (x.raw_fingerprint !== null ? [[x.id, x.raw_fingerprint] as const] : [])))
      )
    ),
    removeSource
  } satisfies Partial<Store["Type"]>
}
