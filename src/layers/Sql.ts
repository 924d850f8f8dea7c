/**
 * Opens `.catalog/index.db` through the node:sqlite `@effect/sql` client and brings its schema up to
 * date. A file written by a newer schema is refused (`SCHEMA_MIGRATION_REQUIRED`); a missing file is
 * `MAP_NOT_FOUND` for read-only programs (they never create one). Both layers give the store over the
 * connection (`StoreReader`, `Store`, `ChangeLog`, from `layers/store/`) beside the client itself.
 */
import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { InvalidParam, MapNotFound, SchemaMigrationRequired } from "../errors/index.js"
import init from "../migrations/0001_init.js"
import compliance from "../migrations/0002_compliance.js"
import sourceFingerprint from "../migrations/0003_source_fingerprint.js"
import columnsByDataset from "../migrations/0004_columns_by_dataset.js"
import sourceConfig from "../migrations/0005_source_config.js"
import seal from "../migrations/0006_seal.js"
import { AppEnv, dataDir } from "../services/AppEnv.js"
import { Files, outputFolderTarget } from "../services/Files.js"
import * as NodeSqlite from "./NodeSqlite.js"
import { StoreLayers, StoreReaderLive } from "./store/index.js"

/** Every migration, by `<id>_<name>`; the highest id is the schema version this build writes. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_init": init,
  "0002_compliance": compliance,
  "0003_source_fingerprint": sourceFingerprint,
  "0004_columns_by_dataset": columnsByDataset,
  "0005_source_config": sourceConfig,
  "0006_seal": seal
}
export const schemaVersion = Math.max(...Object.keys(migrations).map((k) => Number(k.split("_")[0])))

export const indexPath = (dir: string): string => path.join(dir, "index.db")

const checkVersion = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql<
    { name: string }
  >`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'effect_sql_migrations'`
  if (tables.length === 0) return 0
  const rows = yield* sql<{ v: number | null }>`SELECT max(migration_id) AS v FROM effect_sql_migrations`
  const found = rows[0]?.v ?? 0
  if (found > schemaVersion) {
    return yield* new SchemaMigrationRequired({
      message:
        `The local catalog has schema version ${found}; this build of the tool understands up to ${schemaVersion}.`,
      fix:
        "Upgrade local-data-catalog (it migrates the file on the next run), or delete .catalog and re-run `catalog start`."
    })
  }
  return found
}).pipe(Effect.catchTag("SqlError", Effect.die))

const dataDirFix =
  "Set CATALOG_DATA to a folder you can write (default: .catalog in the working folder), or move the file that is in the way."

/**
 * The catalog's folder, created 0700 (an older, more open one is tightened): it holds the index and
 * everything the catalog writes about the user's data. A file, device or unwritable place there is
 * INVALID_PARAM naming CATALOG_DATA.
 */
const privateDataDir = Effect.gen(function*() {
  const env = yield* AppEnv
  const dir = dataDir(env)
  const typed = env.env["CATALOG_DATA"]
  const refuse = (message: string) => new InvalidParam({ message, fix: dataDirFix, param: "CATALOG_DATA" })
  yield* outputFolderTarget(env.cwd, dir, {
    flag: typed !== undefined && typed !== "" ? "CATALOG_DATA" : "the catalog folder",
    what: "a folder for the catalog",
    refuse
  })
  yield* (yield* Files).ensurePrivateDir(dir, { tighten: true }).pipe(
    Effect.mapError((e) => refuse(`The catalog folder ${dir} cannot be created (${e.reason}).`))
  )
  return dir
})

/** For commands that write: creates the folder and file (0700 / 0600), migrates; the store over it. */
export const SqlWriteLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const dir = yield* privateDataDir
    const client = Layer.orDie(NodeSqlite.layer({ filename: indexPath(dir) }))
    const migrate = Layer.effectDiscard(
      Effect.gen(function*() {
        const found = yield* checkVersion
        if (found < schemaVersion) {
          yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations) }).pipe(Effect.orDie)
        }
      })
    )
    return StoreLayers.pipe(Layer.provideMerge(migrate.pipe(Layer.provideMerge(client))))
  })
)

/** The existing catalog file, checked: `MAP_NOT_FOUND` when there is none, `SCHEMA_MIGRATION_REQUIRED` when it is from another schema. */
const SqlReadClientLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const dir = dataDir(yield* AppEnv)
    const file = indexPath(dir)
    if (!fs.existsSync(file)) {
      return yield* new MapNotFound({ message: `There is no local catalog at ${dir} yet.` })
    }
    const client = NodeSqlite.layer({ filename: file })
    const check = Layer.effectDiscard(
      Effect.gen(function*() {
        const found = yield* checkVersion
        if (found !== schemaVersion) {
          return yield* new SchemaMigrationRequired({
            message: `The local catalog has schema version ${found}; this build reads version ${schemaVersion}.`,
            fix: "Run `catalog start` once to migrate it, or delete .catalog and re-scan."
          })
        }
      })
    )
    return check.pipe(Layer.provideMerge(Layer.orDie(client)))
  })
)

/** For read commands over an existing catalog: the store over the checked file (see `SqlReadClientLive`). */
export const SqlReadLive = StoreLayers.pipe(Layer.provideMerge(SqlReadClientLive))

/** Only the read half of the store over the checked file: what the MCP and HTTP programs' Reader is built on. */
export const StoreReadOnlyLive = StoreReaderLive.pipe(Layer.provide(SqlReadClientLive))
