/**
 * An in-memory catalog for tests: a private node:sqlite database (`:memory:`, gone with the layer's
 * scope) with every migration applied, and the store over it (`StoreReader`, `Store`, `ChangeLog`).
 */
import * as Migrator from "@effect/sql/Migrator"
import { Layer } from "effect"
import * as NodeSqlite from "./NodeSqlite.js"
import { migrations } from "./Sql.js"
import { StoreLayers } from "./store/index.js"

/** The migrated in-memory database (`SqlClient` and the raw `NodeSqliteClient`). */
export const SqlMemoryLive = Layer.effectDiscard(Migrator.make({})({ loader: Migrator.fromRecord(migrations) })).pipe(
  Layer.provideMerge(NodeSqlite.layer({ filename: ":memory:" })),
  Layer.orDie
)

/** The store over a fresh in-memory catalog; provide it per test for isolation. */
export const StoreMemoryLive = StoreLayers.pipe(Layer.provideMerge(SqlMemoryLive))
