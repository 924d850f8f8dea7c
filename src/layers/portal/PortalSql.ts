/**
 * The portal's store over its database: PostgreSQL when `CATALOG_PORTAL_DATABASE_URL` is set (a hosted
 * portal: several processes behind a load balancer on one database), else SQLite in
 * `<CATALOG_PORTAL_HOME>/portal.db`. The schema is brought up to date on start, with a migrations table of
 * its own (`portal_migrations`); a store written by a newer build is refused (SCHEMA_MIGRATION_REQUIRED).
 *
 * Two processes starting at once: on PostgreSQL the whole migration runs in one transaction that first
 * takes a transaction-scoped advisory lock (the @effect/sql Migrator's own `LOCK TABLE` only covers the
 * part after it has created its table, and that creation races); on SQLite the transaction begins
 * IMMEDIATE, so the second process waits on the file lock (busy timeout) and then finds the work done.
 */
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as Migrator from "@effect/sql/Migrator"
import { SqlError as SqlErrorClass } from "@effect/sql/SqlError"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer, Redacted, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AdminEnvIncomplete, SchemaMigrationRequired } from "../../errors/index.js"
import init from "../../migrations/portal/0001_init.js"
import sync from "../../migrations/portal/0002_sync.js"
import doraFills from "../../migrations/portal/0003_dora_fills.js"
import licences from "../../migrations/portal/0004_licences.js"
import seals from "../../migrations/portal/0005_seals.js"
import type { DoraFillStore } from "../../services/portal/DoraFillStore.js"
import type { LicenceStore } from "../../services/portal/LicenceStore.js"
import type { SealStore } from "../../services/portal/SealStore.js"
import type { SyncTokenStore } from "../../services/portal/SyncTokenStore.js"
import type { PortalStore } from "../../services/PortalStore.js"
import * as NodeSqlite from "../NodeSqlite.js"
import { DoraFillStoreLive } from "./doraFillStore.js"
import { LicenceStoreLive } from "./licenceStore.js"
import { SealStoreLive } from "./sealStore.js"
import { PortalStoreLive } from "./store.js"
import { SyncTokenStoreLive } from "./syncTokenStore.js"

/** Every store service of the portal (each table group's own service, one SQL client). */
export type PortalStores = PortalStore | SyncTokenStore | LicenceStore | SealStore | DoraFillStore

export interface PortalStoreSettings {
  /** A PostgreSQL URL (`CATALOG_PORTAL_DATABASE_URL`), or null for SQLite in `home`. */
  readonly databaseUrl: string | null
  /** The portal's folder (`CATALOG_PORTAL_HOME`), holding `portal.db` when there is no database URL. */
  readonly home: string
}

/** Every migration of the portal's schema, by `<id>_<name>`; the highest id is the version this build writes. */
export const portalMigrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_init": init,
  "0002_sync": sync,
  "0003_dora_fills": doraFills,
  "0004_licences": licences,
  "0005_seals": seals
}
export const portalSchemaVersion = Math.max(...Object.keys(portalMigrations).map((k) => Number(k.split("_")[0])))

export const portalMigrationsTable = "portal_migrations"

/** The SQLite file of a portal without a database URL. */
export const portalDbPath = (home: string): string => path.join(home, "portal.db")

/** How long a SQLite writer waits for another process's write lock before failing. */
export const portalBusyTimeoutMs = 30_000

/** Advisory-lock key (class, id) held while the portal's schema is migrated on PostgreSQL. */
const migrationLock = [4330, 1] as const

/**
 * Whether this machine has a portal store: with a database URL, yes (the database is the operator's);
 * else whether `<home>/portal.db` exists (`admin tenants` / `admin remove` never create one).
 */
export const portalStoreExists = (settings: PortalStoreSettings): Effect.Effect<boolean> =>
  Effect.sync(() => settings.databaseUrl !== null || fs.existsSync(portalDbPath(settings.home)))

/** The innermost message of a migration failure (the database's words: no values, no secrets). */
const describeDefect = (defect: unknown): string => {
  let at: unknown = defect
  for (let depth = 0; depth < 5; depth++) {
    if (typeof at !== "object" || at === null || !("cause" in at) || at.cause === undefined) break
    at = at.cause
  }
  return at instanceof Error ? at.message : typeof at === "object" && at !== null && "message" in at
    ? String(at.message)
    : String(at)
}

const VersionRow = Schema.Struct({ v: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString)) })

/** Brings the schema up to date (serialised across processes, see the module comment). */
export const migratePortal: Effect.Effect<void, SqlError | SchemaMigrationRequired, SqlClient.SqlClient> = Effect
  .gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const table = sql(portalMigrationsTable)
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql.onDialectOrElse({
        pg: () =>
          sql`SELECT pg_advisory_xact_lock(${migrationLock[0]}::int, ${migrationLock[1]}::int)`.pipe(Effect.asVoid),
        orElse: () => Effect.void
      })
      // The Migrator's own table, created here under the lock (same columns as the Migrator would create).
      yield* sql.onDialectOrElse({
        pg: () =>
          sql`CREATE TABLE IF NOT EXISTS ${table} (
            migration_id integer primary key,
            created_at timestamp with time zone not null default now(),
            name text not null
          )`,
        orElse: () =>
          sql`CREATE TABLE IF NOT EXISTS ${table} (
            migration_id integer PRIMARY KEY NOT NULL,
            created_at datetime NOT NULL DEFAULT current_timestamp,
            name VARCHAR(255) NOT NULL
          )`
      })
      const rows = yield* sql`SELECT max(migration_id) AS v FROM ${table}`
      const decoded = yield* Schema.decodeUnknown(Schema.Array(VersionRow))(rows).pipe(Effect.orDie)
      const found = decoded[0]?.v ?? 0
      if (found > portalSchemaVersion) {
        return yield* new SchemaMigrationRequired({
          message:
            `The portal's store has schema version ${found}; this build of the tool understands up to ${portalSchemaVersion}.`,
          fix:
            "Run the portal with the newer version of local-data-catalog that wrote the store, or point CATALOG_PORTAL_DATABASE_URL / CATALOG_PORTAL_HOME at a new store.",
          details: { found, supported: portalSchemaVersion }
        })
      }
      if (found < portalSchemaVersion) {
        yield* Migrator.make({})({ loader: Migrator.fromRecord(portalMigrations), table: portalMigrationsTable })
          .pipe(
            Effect.catchTag("MigrationError", (e) => Effect.die(e))
          )
      }
    }))
  }).pipe(
    // A migration that fails (e.g. a table of that name already exists in the operator's database) is an
    // SqlError of the start-up, with the database's own words, not a crash; the transaction rolled it back.
    Effect.catchAllDefect((defect) =>
      Effect.fail(
        new SqlErrorClass({
          cause: defect,
          message: `The portal's schema could not be migrated: ${describeDefect(defect)}`
        })
      )
    )
  )

const homeFix =
  "Set CATALOG_PORTAL_HOME to a folder the portal can write (default ./.catalog-portal), or set CATALOG_PORTAL_DATABASE_URL to a PostgreSQL database."

/** Creates the portal's folder 0700 (tightening one that grants more); AdminEnvIncomplete when it cannot. */
const privateHome = (home: string): Effect.Effect<void, AdminEnvIncomplete> =>
  Effect.try({
    try: () => {
      fs.mkdirSync(home, { recursive: true, mode: 0o700 })
      const st = fs.statSync(home)
      if (!st.isDirectory()) throw new Error("not a folder")
      if ((st.mode & 0o077) !== 0) fs.chmodSync(home, 0o700)
    },
    catch: (cause) =>
      new AdminEnvIncomplete({
        message: `The portal's folder ${home} cannot be used (${
          cause instanceof Error && "code" in cause
            ? String(cause.code)
            : cause instanceof Error
            ? cause.message
            : "error"
        }).`,
        fix: homeFix,
        param: "CATALOG_PORTAL_HOME"
      })
  })

/** The SQL client of the settings: a PostgreSQL pool, or one SQLite connection on `<home>/portal.db` (0600, WAL). */
export const portalSqlClient = (
  settings: PortalStoreSettings
): Layer.Layer<SqlClient.SqlClient, SqlError | AdminEnvIncomplete> =>
  settings.databaseUrl !== null
    ? PgClient.layer({
      url: Redacted.make(settings.databaseUrl),
      applicationName: "local-data-catalog-portal",
      maxConnections: 10
    })
    : Layer.unwrapEffect(
      Effect.as(
        privateHome(settings.home),
        NodeSqlite.layer({ filename: portalDbPath(settings.home), busyTimeoutMs: portalBusyTimeoutMs })
      )
    )

/** The store over a client it migrates first (what `portalStoreLayer` builds; tests give their own client). */
export const portalStoreOnClient: Layer.Layer<PortalStores, SqlError | SchemaMigrationRequired, SqlClient.SqlClient> =
  Layer.mergeAll(
    PortalStoreLive,
    SyncTokenStoreLive,
    LicenceStoreLive,
    SealStoreLive,
    DoraFillStoreLive
  ).pipe(Layer.provide(Layer.effectDiscard(migratePortal)))

/** The portal's store for `settings`: connected, migrated. */
export const portalStoreLayer = (
  settings: PortalStoreSettings
): Layer.Layer<PortalStores, SqlError | SchemaMigrationRequired | AdminEnvIncomplete> =>
  portalStoreOnClient.pipe(Layer.provide(portalSqlClient(settings)))
