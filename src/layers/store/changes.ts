/**
 * The change-log (`changes`, append-only by trigger). `ChangeLogLive` is the one writer of the table:
 * its single INSERT, prepared once on the raw node:sqlite connection and run in the caller's
 * transaction (a scan records thousands of entries through it).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { type ChangeEntryInput, ChangeLog } from "../../services/ChangeLog.js"
import { ChangeRow, type StoreReader } from "../../services/Store.js"
import { NodeSqliteClient } from "../NodeSqlite.js"
import { Count, findAll, findOne } from "./rows.js"

export const ChangeLogLive = Layer.effect(
  ChangeLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const raw = yield* NodeSqliteClient
    let insert: ReturnType<typeof raw.db.prepare> | undefined
    const write = (entries: ReadonlyArray<ChangeEntryInput>) =>
      raw.withDb((db) => {
        insert ??= db.prepare(
          "INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        for (const e of entries) {
          insert.run(e.at, e.scanId, e.kind, e.entity, e.sourceId, JSON.stringify(e.detail), e.by)
        }
      })
    return ChangeLog.of({
      record: (entry) => write([entry]),
      recordAll: write,
      recorded: (kind, entity) =>
        findOne("changes", Count)(sql`SELECT count(*) AS n FROM changes WHERE kind = ${kind} AND entity = ${entity}`)
          .pipe(Effect.map((r) => (r?.n ?? 0) > 0))
    })
  })
)

export const changesRepository = (sql: SqlClient.SqlClient) => ({
  changes: ({ limit, sinceAt, sinceSeq }) =>
    Effect.gen(function*() {
      const where = sinceSeq !== undefined
        ? sql`WHERE seq > ${sinceSeq}`
        : sinceAt !== undefined
        ? sql`WHERE at > ${sinceAt}`
        : sql``
      const rows = yield* findAll("changes", ChangeRow)(
        sql`SELECT * FROM changes ${where} ORDER BY seq DESC LIMIT ${limit}`
      )
      const total = yield* findOne("changes", Count)(sql`SELECT count(*) AS n FROM changes ${where}`)
      return { rows, total: total?.n ?? 0 }
    })
} satisfies Partial<StoreReader["Type"]>)
