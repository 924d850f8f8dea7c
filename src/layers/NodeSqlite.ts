/**
 * An `@effect/sql` client over Node's built-in `node:sqlite` (no native addon to compile).
 * One connection per client behind a one-permit semaphore; a transaction holds the permit for its
 * whole scope and begins with BEGIN IMMEDIATE so a writer takes the lock up front.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "@effect/sql"
import { Context, Effect, Layer, Scope, Stream } from "effect"
import * as fs from "node:fs"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { privateFileMode } from "../services/Files.js"
import { tightenMode } from "./NodeFiles.js"

export interface NodeSqliteOptions {
  readonly filename: string
  readonly readonly?: boolean
  readonly busyTimeoutMs?: number
  /**
   * Permissions of the database file (default 0600: the catalog is private to the account). A new
   * file is created with them; an existing one that grants more, and its -wal/-shm/-journal files, are
   * tightened. SQLite creates -wal and -shm with the database file's own permissions.
   */
  readonly fileMode?: number
}

const sidecars = ["", "-wal", "-shm", "-journal"]

/** Creates the database file with `mode` when missing and tightens it and its sidecar files (not for `:memory:` or URIs). */
const prepareFile = (filename: string, mode: number): void => {
  if (filename === "" || filename === ":memory:" || filename.startsWith("file:")) return
  try {
    const fd = fs.openSync(filename, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, mode)
    fs.fchmodSync(fd, mode) // exactly `mode`, whatever the umask
    fs.closeSync(fd)
  } catch {
    // Exists already (tightened below), or cannot be created here (the open below reports why).
  }
  for (const s of sidecars) tightenMode(`${filename}${s}`, mode)
}

/** Direct access to the connection, for bulk writes inside a transaction (prepared statements in a loop). */
export class NodeSqliteClient extends Context.Tag("catalog/NodeSqliteClient")<NodeSqliteClient, {
  readonly db: DatabaseSync
  /** Runs `f` synchronously on the connection; wrap in `sql.withTransaction` for an atomic bulk write. */
  readonly withDb: <A>(f: (db: DatabaseSync) => A) => Effect.Effect<A, SqlError.SqlError>
}>() {}

const sqlError = (cause: unknown, message: string) => new SqlError.SqlError({ cause, message })

/** Opens the database file (the caller makes sure the folder exists). */
export const make = (options: NodeSqliteOptions) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          if (options.readonly !== true) prepareFile(options.filename, options.fileMode ?? privateFileMode)
          return new DatabaseSync(options.filename, { readOnly: options.readonly ?? false })
        },
        catch: (cause) => sqlError(cause, `Cannot open ${options.filename}`)
      }),
      (db) => Effect.sync(() => db.isOpen && db.close())
    )
    yield* Effect.try({
      try: () => {
        db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.min(options.busyTimeoutMs ?? 5000, 60_000))}`)
        if (!options.readonly) {
          db.exec("PRAGMA journal_mode = WAL")
          db.exec("PRAGMA synchronous = NORMAL")
        }
        db.exec("PRAGMA foreign_keys = ON")
      },
      catch: (cause) => sqlError(cause, "Cannot configure the SQLite connection")
    })

    const cache = new Map<string, StatementSync>()
    const prepare = (sql: string): StatementSync => {
      const hit = cache.get(sql)
      if (hit) return hit
      const stmt = db.prepare(sql)
      if (cache.size >= 500) cache.delete(cache.keys().next().value as string)
      cache.set(sql, stmt)
      return stmt
    }
    // Rows are read as arrays and made into objects here, every row of a statement by the same steps: they
    // share one shape, so reading their fields is fast (node:sqlite's own row objects are ~15× slower to
    // read, and every row is read at least twice: decoded at the SQL edge, then used).
    const makers = new WeakMap<StatementSync, (values: ReadonlyArray<unknown>) => Record<string, unknown>>()
    const rowMaker = (stmt: StatementSync) => {
      let make = makers.get(stmt)
      if (make === undefined) {
        const names = stmt.columns().map((c) => c.name)
        make = (values) => {
          const row: Record<string, unknown> = {}
          for (let i = 0; i < names.length; i++) row[names[i]!] = values[i]
          return row
        }
        makers.set(stmt, make)
      }
      return make
    }
    type Param = null | number | bigint | string | Uint8Array
    const bind = (params: ReadonlyArray<unknown>): Array<Param> =>
      params.map((p) => (typeof p === "boolean"
        ? (p ? 1 : 0)
        : p instanceof Date
        ? p.toISOString()
        : p === undefined
        ? null
        : (p as Param))
      )

    const run = (sql: string, params: ReadonlyArray<unknown>, mode: "rows" | "raw" | "values", fresh = false) =>
      Effect.withFiberRuntime<
        ReadonlyArray<unknown> | { changes: number | bigint; lastInsertRowid: number | bigint },
        SqlError.SqlError
      >((fiber) =>
        Effect.try({
          try: () => {
            const stmt = fresh ? db.prepare(sql) : prepare(sql)
            stmt.setReadBigInts(fiber.getFiberRef(SqlClient.SafeIntegers as never) === true)
            const args = bind(params)
            if (mode === "raw") {
              const r = stmt.run(...args)
              return { changes: r.changes, lastInsertRowid: r.lastInsertRowid }
            }
            if (stmt.columns().length === 0) {
              stmt.run(...args)
              return []
            }
            stmt.setReturnArrays(true)
            try {
              const values = stmt.all(...args) as unknown as ReadonlyArray<ReadonlyArray<unknown>>
              return mode === "values" ? values : values.map(rowMaker(stmt))
            } finally {
              stmt.setReturnArrays(false)
            }
          },
          catch: (cause) => sqlError(cause, `SQLite: ${cause instanceof Error ? cause.message : String(cause)}`)
        })
      )

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        run(sql, params, "rows").pipe(Effect.map((rows) => {
          const r = rows as ReadonlyArray<object>
          return transformRows ? transformRows(r) : r
        })),
      executeRaw: (sql, params) => run(sql, params, "raw"),
      executeValues: (sql, params) =>
        run(sql, params, "values") as Effect.Effect<ReadonlyArray<ReadonlyArray<unknown>>, SqlError.SqlError>,
      executeUnprepared: (sql, params, transformRows) =>
        // A BEGIN that failed (e.g. the busy timeout ran out: "database is locked") left no transaction:
        // its ROLLBACK is a no-op, so the caller gets that SqlError rather than a defect from the rollback.
        (sql === "ROLLBACK" && !db.isTransaction ? Effect.succeed([]) : run(sql, params, "rows", true)).pipe(
          Effect.map((rows) => {
            const r = rows as ReadonlyArray<object>
            return transformRows ? transformRows(r) : r
          })
        ),
      executeStream: () => Stream.die(new Error("executeStream is not supported by the node:sqlite adapter"))
    }

    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        connection
      )
    )
    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      beginTransaction: "BEGIN IMMEDIATE",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
    const withDb = <A>(f: (db: DatabaseSync) => A) =>
      Effect.try({
        try: () => f(db),
        catch: (cause) => sqlError(cause, `SQLite: ${cause instanceof Error ? cause.message : String(cause)}`)
      })
    return { client, raw: NodeSqliteClient.of({ db, withDb }) }
  })

/** Provides both `SqlClient` and `NodeSqliteClient`. */
export const layer = (
  options: NodeSqliteOptions
): Layer.Layer<SqlClient.SqlClient | NodeSqliteClient, SqlError.SqlError> =>
  Layer.scopedContext(
    Effect.map(make(options), ({ client, raw }) =>
      Context.make(SqlClient.SqlClient, client).pipe(Context.add(NodeSqliteClient, raw)))
  ).pipe(Layer.provide(Reactivity.layer))
