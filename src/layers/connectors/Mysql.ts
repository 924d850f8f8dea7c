/**
 * The MySQL / MariaDB connector. Reads `information_schema` only: TABLES (kind, comment and the
 * storage engine's TABLE_ROWS estimate), COLUMNS, KEY_COLUMN_USAGE (primary and foreign keys) and
 * the views' dependencies. MySQL 8.0.13+ records those in VIEW_TABLE_USAGE; MariaDB does not, so
 * there the stored VIEW_DEFINITION (already normalised by the server to `db`.`table` names) is
 * parsed for the relations it reads. Never reads a row value. One query per kind of fact, for all
 * scanned databases at once.
 *
 * Scope: the database named in the URL, or `source.schemas`, or else every non-system database.
 * The schema segment of each dataset is its database name.
 */
import { Effect, type Scope } from "effect"
import * as Mysql from "mysql2"
import type { DatasetKind, RawColumn, RawDataset, RawSource } from "../../domain/Metadata.js"
import type { SourceUnreachable } from "../../errors/index.js"
import type { Connector, ConnectorInput, ProbeResult } from "../../services/Connectors.js"
import {
  closeTimeoutMs,
  connectTimeoutMs,
  driverFailure,
  hostPort,
  networkReason,
  parseConnectionUrl,
  type ParsedUrl,
  relationsReadBy,
  statementTimeoutMs,
  unreachable
} from "./internal.js"

const systemDatabases = ["mysql", "information_schema", "performance_schema", "sys"]

interface TableRow {
  readonly table_schema: string
  readonly table_name: string
  readonly table_type: string
  readonly table_rows: number | string | null
  readonly table_comment: string | null
}
interface ColumnRow {
  readonly table_schema: string
  readonly table_name: string
  readonly column_name: string
  readonly column_type: string
  readonly is_nullable: string
  readonly column_comment: string | null
}
interface KeyRow {
  readonly table_schema: string
  readonly table_name: string
  readonly column_name: string
  readonly constraint_name: string
  readonly referenced_table_schema: string | null
  readonly referenced_table_name: string | null
  readonly referenced_column_name: string | null
}
interface ViewRow {
  readonly table_schema: string
  readonly table_name: string
  readonly view_definition: string | null
}
interface ViewUsageRow {
  readonly view_schema: string
  readonly view_name: string
  readonly table_schema: string
  readonly table_name: string
}

/** `10.11.19-MariaDB-0+deb12u1` → MariaDB 10.11.19; `8.0.36` → MySQL 8.0.36. */
export const describeVersion = (raw: string): { readonly label: string; readonly hasViewTableUsage: boolean } => {
  const numbers = /^(\d+)\.(\d+)\.(\d+)/.exec(raw)
  const plain = numbers === null ? raw : `${numbers[1]}.${numbers[2]}.${numbers[3]}`
  if (/mariadb/i.test(raw)) return { label: `MariaDB ${plain}`, hasViewTableUsage: false }
  const [major, minor, patch] = numbers === null
    ? [0, 0, 0]
    : [Number(numbers[1]), Number(numbers[2]), Number(numbers[3])]
  const hasViewTableUsage = major > 8 || (major === 8 && (minor > 0 || patch >= 13))
  return { label: `MySQL ${plain}`, hasViewTableUsage }
}

const kindOf = (tableType: string): DatasetKind | null => {
  switch (tableType.toUpperCase()) {
    case "BASE TABLE":
    case "SYSTEM VERSIONED":
      return "table"
    case "VIEW":
      return "view"
    default:
      // SYSTEM VIEW, SEQUENCE, TEMPORARY: not datasets.
      return null
  }
}

interface Target {
  readonly parsed: ParsedUrl
  readonly url: string
  readonly target: string
}

const example = "mysql://user:password@127.0.0.1:3306/dbname"

const resolveTarget = (input: ConnectorInput): Effect.Effect<Target, SourceUnreachable> => {
  const ref = input.source.connectionRef ?? "the connection variable"
  if (input.secret === null || input.secret.trim() === "") {
    return Effect.fail(unreachable(
      `Source ${input.source.id} has no MySQL connection string.`,
      `Set ${ref} to a URL such as ${example}, then run \`catalog test ${input.source.id}\`.`,
      []
    ))
  }
  const parsed = parseConnectionUrl(input.secret, ["mysql", "mariadb", "mysql2"], 3306)
  if (parsed === null) {
    return Effect.fail(unreachable(
      `The connection string of source ${input.source.id} is not a mysql:// URL.`,
      `Set ${ref} to a URL such as ${example}, then run \`catalog test ${input.source.id}\`.`,
      [input.secret]
    ))
  }
  return Effect.succeed({
    parsed,
    url: input.secret,
    target: `${hostPort(parsed)}${parsed.database === null ? "" : `/${parsed.database}`}`
  })
}

const toUnreachable = (input: ConnectorInput, t: Target) => (error: unknown): SourceUnreachable => {
  const { code, message } = driverFailure(error)
  const where = hostPort(t.parsed)
  const id = input.source.id
  const ref = input.source.connectionRef ?? "the connection variable"
  const secrets = [t.parsed.password, t.url]
  const retry = `then run \`catalog test ${id}\`.`
  if (code === "ER_STATEMENT_TIMEOUT" || code === "ER_QUERY_TIMEOUT") {
    return unreachable(
      `MySQL at ${where} cancelled a catalog query of source ${id} after ${
        statementTimeoutMs / 1000
      } s (statement time limit).`,
      `Check the load on MySQL/MariaDB at ${where} (the catalog queries read information_schema only), ${retry}`,
      secrets
    )
  }
  const net = networkReason(code)
  if (net !== null || /timed? ?out/i.test(message)) {
    return unreachable(
      `Cannot reach MySQL at ${where} for source ${id}: ${net ?? "connection timed out"}.`,
      `Check that MySQL/MariaDB is listening on ${where}, ${retry}`,
      secrets
    )
  }
  switch (code) {
    case "ER_ACCESS_DENIED_ERROR":
    case "ER_ACCESS_DENIED_NO_PASSWORD_ERROR":
    case "ER_NOT_SUPPORTED_AUTH_MODE":
      return unreachable(
        `MySQL at ${where} refused the login of source ${id}: ${message}.`,
        `Check the user and password in ${ref} for MySQL on ${where}, ${retry}`,
        secrets
      )
    case "ER_BAD_DB_ERROR":
    case "ER_DBACCESS_DENIED_ERROR":
      return unreachable(
        `MySQL at ${where} cannot open the database of source ${id}: ${message}.`,
        `Check the database name in ${ref} against the databases on ${where}, ${retry}`,
        secrets
      )
    default:
      return unreachable(
        `MySQL at ${where} failed for source ${id}: ${message}.`,
        `Check that MySQL/MariaDB is listening on ${where} and that ${ref} is right, ${retry}`,
        secrets
      )
  }
}

// ── Sessions ─────────────────────────────────────────────────────────────────────────────────────

/** One scan's connections: a pool opened for the run and closed after it, whatever the outcome. */
interface Session {
  /** `VERSION()` of the server, read once when the session opens. */
  readonly version: ReturnType<typeof describeVersion>
  readonly query: <A>(sql: string, params?: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<A>, unknown>
}

/**
 * The statement that makes a connection read-only with a server-side statement time limit: MariaDB
 * `max_statement_time` (seconds, 10.1+), MySQL `max_execution_time` (milliseconds, 5.7.8+; it bounds
 * SELECTs, which is all a connector sends). One SET, so one round trip per connection.
 */
export const sessionSql = (rawVersion: string): string => {
  const numbers = /^(\d+)\.(\d+)\.(\d+)/.exec(rawVersion)
  const v = numbers === null ? 0 : Number(numbers[1]) * 10_000 + Number(numbers[2]) * 100 + Number(numbers[3])
  const seconds = statementTimeoutMs / 1000
  if (/mariadb/i.test(rawVersion)) {
    // `tx_read_only` is spelled `transaction_read_only` from MariaDB 11.1 (the old name stays an alias).
    const readOnly = v >= 110_100 ? "transaction_read_only" : "tx_read_only"
    return v >= 100_100
      ? `SET SESSION ${readOnly} = 1, SESSION max_statement_time = ${seconds}`
      : `SET SESSION ${readOnly} = 1`
  }
  const readOnly = v >= 50_720 ? "transaction_read_only" : "tx_read_only"
  return v >= 50_708
    ? `SET SESSION ${readOnly} = 1, SESSION max_execution_time = ${statementTimeoutMs}`
    : `SET SESSION ${readOnly} = 1`
}

const run = <A>(conn: Mysql.PoolConnection, sql: string, params: ReadonlyArray<string>): Effect.Effect<A, unknown> =>
  Effect.async<A, unknown>((resume) => {
    conn.query(
      sql,
      [...params],
      (error, rows) => resume(error ? Effect.fail(error) : Effect.succeed(rows as unknown as A))
    )
    // Interrupted mid-statement: the connection cannot be reused; destroying it also takes it out of the pool.
    return Effect.sync(() => conn.destroy())
  })

/** Ends the pool; connections that do not close in time are destroyed, so no socket outlives the scope. */
const closePool = (pool: Mysql.Pool, opened: ReadonlySet<Mysql.PoolConnection>): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    pool.end(() => resume(Effect.void))
  }).pipe(
    Effect.timeoutOption(closeTimeoutMs),
    Effect.zipRight(Effect.sync(() => {
      for (const conn of opened) conn.destroy()
    }))
  )

/**
 * Opens the pool inside the caller's scope (released on success, failure, timeout and
 * interruption alike), connects once to learn the server, and makes every connection read-only
 * with a statement time limit before it runs anything.
 */
const openSession = (t: Target): Effect.Effect<Session, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const opened = new Set<Mysql.PoolConnection>()
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = Mysql.createPool({
          host: t.parsed.host,
          port: t.parsed.port,
          ...(t.parsed.database === null ? {} : { database: t.parsed.database }),
          ...(t.parsed.user === null ? {} : { user: t.parsed.user }),
          ...(t.parsed.password === null ? {} : { password: t.parsed.password }),
          connectionLimit: 4,
          maxIdle: 4,
          connectTimeout: connectTimeoutMs,
          // Session settings must survive a release back to the pool.
          resetOnRelease: false,
          multipleStatements: false,
          supportBigNumbers: true,
          dateStrings: true
        })
        p.on("connection", (conn) => opened.add(conn))
        return p
      }),
      (p) => closePool(p, opened)
    )
    const ready = new WeakSet<Mysql.PoolConnection>()
    let rawVersion = ""
    let session: string | null = null
    const acquire = Effect.async<Mysql.PoolConnection, unknown>((resume) => {
      pool.getConnection((error, conn) => resume(error ? Effect.fail(error) : Effect.succeed(conn)))
    })
    const withConnection = <A>(
      f: (conn: Mysql.PoolConnection) => Effect.Effect<A, unknown>
    ): Effect.Effect<A, unknown> =>
      Effect.acquireUseRelease(
        acquire,
        (conn) =>
          Effect.gen(function*() {
            if (!ready.has(conn)) {
              if (session === null) {
                const rows = yield* run<ReadonlyArray<{ readonly v: string }>>(conn, "SELECT VERSION() AS v", [])
                rawVersion = rows[0]?.v ?? ""
                session = sessionSql(rawVersion)
              }
              yield* run(conn, session, [])
              ready.add(conn)
            }
            return yield* f(conn)
          }),
        (conn) => Effect.sync(() => conn.release())
      )
    // The first connection, made before anything else runs: a refused login fails here.
    yield* withConnection(() => Effect.void)
    return {
      version: describeVersion(rawVersion),
      query: <A>(sql: string, params: ReadonlyArray<string> = []) =>
        withConnection((conn) => run<ReadonlyArray<A>>(conn, sql, params))
    }
  })

export const withSession = <A>(
  input: ConnectorInput,
  f: (session: Session, t: Target) => Effect.Effect<A, unknown>
): Effect.Effect<A, SourceUnreachable> =>
  Effect.flatMap(
    resolveTarget(input),
    (t) =>
      Effect.scoped(Effect.flatMap(openSession(t), (session) => f(session, t))).pipe(
        Effect.mapError(toUnreachable(input, t))
      )
  )

const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ")

/** Builds the datasets from the information_schema rows (single pass plus map lookups). */
export const assembleDatasets = (
  tables: ReadonlyArray<TableRow>,
  columns: ReadonlyArray<ColumnRow>,
  keys: ReadonlyArray<KeyRow>,
  viewDeps: ReadonlyMap<string, ReadonlyArray<{ readonly schema: string; readonly name: string }>>
): Array<RawDataset> => {
  const key = (schema: string, name: string): string => `${schema}\u0000${name}`
  type MutableColumn = { -readonly [K in keyof RawColumn]: RawColumn[K] }
  const cols = new Map<string, Array<MutableColumn>>()
  const colIndex = new Map<string, MutableColumn>()
  for (const c of columns) {
    const k = key(c.table_schema, c.table_name)
    let list = cols.get(k)
    if (list === undefined) {
      list = []
      cols.set(k, list)
    }
    const col: MutableColumn = {
      name: c.column_name,
      type: c.column_type,
      nullable: c.is_nullable.toUpperCase() === "YES",
      position: list.length + 1,
      comment: c.column_comment === null || c.column_comment === "" ? null : c.column_comment,
      isPrimaryKey: false,
      references: null
    }
    list.push(col)
    colIndex.set(`${k}\u0000${c.column_name}`, col)
  }
  for (const r of keys) {
    const col = colIndex.get(`${key(r.table_schema, r.table_name)}\u0000${r.column_name}`)
    if (col === undefined) continue
    if (r.constraint_name === "PRIMARY") col.isPrimaryKey = true
    else if (
      col.references === null && r.referenced_table_name !== null && r.referenced_column_name !== null
    ) {
      col.references = {
        schema: r.referenced_table_schema ?? r.table_schema,
        table: r.referenced_table_name,
        column: r.referenced_column_name
      }
    }
  }
  const out: Array<RawDataset> = []
  for (const t of tables) {
    const kind = kindOf(t.table_type)
    if (kind === null) continue
    const k = key(t.table_schema, t.table_name)
    const rows = kind === "view" || t.table_rows === null ? null : Number(t.table_rows)
    const rowEstimate = rows === null || !Number.isFinite(rows) ? null : rows
    // MySQL reports the comment of a view as "VIEW".
    const comment =
      t.table_comment === null || t.table_comment === "" || (kind === "view" && t.table_comment === "VIEW")
        ? null
        : t.table_comment
    out.push({
      schema: t.table_schema,
      name: t.table_name,
      kind,
      comment,
      rowEstimate,
      rowEstimateSource: rowEstimate === null ? "none" : "information_schema.TABLES.TABLE_ROWS",
      columns: cols.get(k) ?? [],
      dependsOn: viewDeps.get(k) ?? []
    })
  }
  return out
}

/** View dependencies from VIEW_DEFINITION: names read after FROM/JOIN that are known relations. */
export const viewDepsFromDefinitions = (
  views: ReadonlyArray<ViewRow>,
  known: ReadonlyArray<{ readonly schema: string; readonly name: string }>
): Map<string, Array<{ readonly schema: string; readonly name: string }>> => {
  const exists = new Set(known.map((k) => `${k.schema}\u0000${k.name}`))
  const out = new Map<string, Array<{ readonly schema: string; readonly name: string }>>()
  for (const v of views) {
    const seen = new Set<string>()
    const list: Array<{ readonly schema: string; readonly name: string }> = []
    for (const ref of relationsReadBy(v.view_definition ?? "")) {
      const schema = ref.schema ?? v.table_schema
      const k = `${schema}\u0000${ref.name}`
      if (!exists.has(k) || seen.has(k) || (schema === v.table_schema && ref.name === v.table_name)) continue
      seen.add(k)
      list.push({ schema, name: ref.name })
    }
    list.sort((a, b) => (a.schema === b.schema ? a.name.localeCompare(b.name) : a.schema.localeCompare(b.schema)))
    out.set(`${v.table_schema}\u0000${v.table_name}`, list)
  }
  return out
}

const probe = Effect.fn("Connectors.mysql.probe")(function*(input: ConnectorInput) {
  return yield* withSession(
    input,
    (sql, t) => Effect.succeed<ProbeResult>({ serverVersion: sql.version.label, target: t.target })
  )
})

const scan = Effect.fn("Connectors.mysql.scan")(function*(input: ConnectorInput) {
  return yield* withSession(input, (sql, t) =>
    Effect.gen(function*() {
      const version = sql.version
      const configured = input.source.schemas !== undefined && input.source.schemas.length > 0
        ? [...input.source.schemas]
        : t.parsed.database !== null
        ? [t.parsed.database]
        : null
      const schemas = configured ?? (yield* sql.query<{ s: string }>(
        `SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME NOT IN (${
          placeholders(systemDatabases.length)
        }) ORDER BY SCHEMA_NAME`,
        systemDatabases
      )).map((r) => r.s)
      if (schemas.length === 0) return { serverVersion: version.label, datasets: [] } satisfies RawSource
      const inList = `(${placeholders(schemas.length)})`
      const [tables, columns, keys, views] = yield* Effect.all([
        sql.query<TableRow>(
          `SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, TABLE_TYPE AS table_type,
             TABLE_ROWS AS table_rows, TABLE_COMMENT AS table_comment
           FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ${inList}
           ORDER BY TABLE_SCHEMA, TABLE_NAME`,
          schemas
        ),
        sql.query<ColumnRow>(
          `SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, COLUMN_NAME AS column_name,
             COLUMN_TYPE AS column_type, IS_NULLABLE AS is_nullable, COLUMN_COMMENT AS column_comment
           FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ${inList}
           ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
          schemas
        ),
        sql.query<KeyRow>(
          `SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, COLUMN_NAME AS column_name,
             CONSTRAINT_NAME AS constraint_name, REFERENCED_TABLE_SCHEMA AS referenced_table_schema,
             REFERENCED_TABLE_NAME AS referenced_table_name, REFERENCED_COLUMN_NAME AS referenced_column_name
           FROM information_schema.KEY_COLUMN_USAGE
           WHERE TABLE_SCHEMA IN ${inList} AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL)
           ORDER BY TABLE_SCHEMA, TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`,
          schemas
        ),
        version.hasViewTableUsage
          ? Effect.succeed([] as ReadonlyArray<ViewRow>)
          : sql.query<ViewRow>(
            `SELECT TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name, VIEW_DEFINITION AS view_definition
             FROM information_schema.VIEWS WHERE TABLE_SCHEMA IN ${inList}`,
            schemas
          )
      ], { concurrency: "unbounded" })
      let viewDeps: Map<string, Array<{ readonly schema: string; readonly name: string }>>
      if (version.hasViewTableUsage) {
        const usage = yield* sql.query<ViewUsageRow>(
          `SELECT VIEW_SCHEMA AS view_schema, VIEW_NAME AS view_name, TABLE_SCHEMA AS table_schema, TABLE_NAME AS table_name
           FROM information_schema.VIEW_TABLE_USAGE WHERE VIEW_SCHEMA IN ${inList}
           ORDER BY VIEW_SCHEMA, VIEW_NAME, TABLE_SCHEMA, TABLE_NAME`,
          schemas
        )
        viewDeps = new Map()
        for (const u of usage) {
          const k = `${u.view_schema}\u0000${u.view_name}`
          const list = viewDeps.get(k) ?? []
          if (!list.some((x) => x.schema === u.table_schema && x.name === u.table_name)) {
            list.push({ schema: u.table_schema, name: u.table_name })
          }
          viewDeps.set(k, list)
        }
      } else {
        // Other databases may be referenced too; a name counts when it is a relation of a scanned one.
        viewDeps = viewDepsFromDefinitions(views, tables.map((r) => ({ schema: r.table_schema, name: r.table_name })))
      }
      const result: RawSource = {
        serverVersion: version.label,
        datasets: assembleDatasets(tables, columns, keys, viewDeps)
      }
      return result
    }))
})

/** The `mysql` connector (MySQL 5.7+/8.x and MariaDB). */
export const MysqlConnector: Connector = {
  kind: "mysql",
  needsSecret: true,
  probe,
  scan
}
