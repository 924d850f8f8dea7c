/**
 * The catalog store over SQLite (`.catalog/index.db` through the node:sqlite `@effect/sql` client):
 * `StoreReader`, `Store` and `ChangeLog`, assembled from one repository per table (or group of tables).
 * The raw node:sqlite handle is used in this folder only, for the scan's bulk writes and the change-log.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { ChangeLog } from "../../services/ChangeLog.js"
import { Store, StoreReader } from "../../services/Store.js"
import { NodeSqliteClient } from "../NodeSqlite.js"
import { annotationsReads, annotationsWrites } from "./annotations.js"
import { ChangeLogLive, changesRepository } from "./changes.js"
import { columnsRepository } from "./columns.js"
import { datasetsRepository } from "./datasets.js"
import { descriptionsRepository } from "./descriptions.js"
import { doraRepository } from "./dora.js"
import { glossaryRepository } from "./glossary.js"
import { lineageRepository } from "./lineage.js"
import { overridesReads, overridesWrites } from "./overrides.js"
import { findOne } from "./rows.js"
import { scansReads, scanWrites } from "./scan.js"
import { sealsRepository } from "./seals.js"
import { sourcesReads, sourcesWrites } from "./sources.js"

export { ChangeLogLive } from "./changes.js"

const DataVersion = Schema.Struct({ data_version: Schema.Number })

/** The read half (what the MCP and HTTP programs get, through the Reader). */
export const StoreReaderLive = Layer.effect(
  StoreReader,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return StoreReader.of({
      ...scansReads(sql),
      dataVersion: findOne("PRAGMA data_version", DataVersion)(sql`PRAGMA data_version`).pipe(
        Effect.map((r) => String(r?.data_version ?? 0))
      ),
      ...sourcesReads(sql),
      ...datasetsRepository(sql),
      ...columnsRepository(sql),
      ...overridesReads(sql),
      ...annotationsReads(sql),
      ...doraRepository(sql).reads,
      ...descriptionsRepository(sql).reads,
      ...lineageRepository(sql).reads,
      ...changesRepository(sql),
      ...glossaryRepository(sql).reads,
      ...sealsRepository(sql).reads
    })
  })
)

/** The writes; each records its change through the ChangeLog in its own transaction. */
export const StoreLive = Layer.effect(
  Store,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const raw = yield* NodeSqliteClient
    const changeLog = yield* ChangeLog
    return Store.of({
      transaction: sql.withTransaction,
      ...sourcesWrites(sql, changeLog),
      ...scanWrites(sql, raw, changeLog),
      ...overridesWrites(sql, changeLog),
      ...annotationsWrites(sql, changeLog),
      ...lineageRepository(sql).writes,
      ...glossaryRepository(sql).writes,
      ...descriptionsRepository(sql).writes,
      ...doraRepository(sql).writes,
      ...sealsRepository(sql, changeLog).writes
    })
  })
)

/** `StoreReader`, `Store` and `ChangeLog` over one connection (SqlClient and NodeSqliteClient). */
export const StoreLayers = Layer.mergeAll(StoreReaderLive, StoreLive).pipe(Layer.provideMerge(ChangeLogLive))
