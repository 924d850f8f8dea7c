/**
 * Real-server test helpers shared by every suite that needs PostgreSQL or MariaDB.
 *
 * - `makePgDatabase` / `makeMariaDatabase`: a uniquely named database (`ldc_t_<random>`), optionally
 *   loaded from a fixture of test/fixtures (a copy of the public fixtures) (or any SQL), analysed, and dropped in the
 *   finalizer. `pgDatabaseLayer` / `mariaDatabaseLayer` wrap them as a `TestDatabase` layer for
 *   `layer(...)` of @effect/vitest.
 * - `capturePgStatements` / `captureMariaStatements`: run an effect with statement logging on for one
 *   database and return every statement the server logged for it during that window.
 * - `metadataViolations`: the statements that read a user table or count rows.
 *
 * Servers: PostgreSQL 127.0.0.1:5432 (user postgres, trust) and MariaDB 127.0.0.1:3306 (root, no
 * password); override with CATALOG_TEST_PG_{HOST,PORT,USER,LOG} and CATALOG_TEST_MARIA_{HOST,PORT,USER}.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import * as mysql from "mysql2/promise"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { open, readFile, stat } from "node:fs/promises"
import * as path from "node:path"

// ── Servers ──────────────────────────────────────────────────────────────────────────────────────

const env = (name: string, fallback: string): string => process.env[name] ?? fallback

export const pgServer = {
  host: env("CATALOG_TEST_PG_HOST", "127.0.0.1"),
  port: Number(env("CATALOG_TEST_PG_PORT", "5432")),
  user: env("CATALOG_TEST_PG_USER", "postgres"),
  log: env("CATALOG_TEST_PG_LOG", "/var/log/postgresql/postgresql-15-main.log")
} as const

export const mariaServer = {
  host: env("CATALOG_TEST_MARIA_HOST", "127.0.0.1"),
  port: Number(env("CATALOG_TEST_MARIA_PORT", "3306")),
  user: env("CATALOG_TEST_MARIA_USER", "root")
} as const

/** Folder of the shared fixtures. */
export const fixturesDir = env("CATALOG_FIXTURES_DIR", path.resolve(import.meta.dirname, "../fixtures"))

/** A fresh, unique database name: `ldc_t_<time>_<random>` (lower case, valid unquoted everywhere). */
export const uniqueDatabaseName = (prefix = "ldc_t"): string =>
  `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`

/** A database created for one test run. */
export interface TestDatabase {
  readonly name: string
  /** Connection string for the connectors, e.g. postgres://postgres@127.0.0.1:5432/ldc_t_… */
  readonly url: string
}

/** The database a `layer(...)` block works on. */
export class TestDatabaseTag extends Context.Tag("test/TestDatabase")<TestDatabaseTag, TestDatabase>() {}

// ── Processes ────────────────────────────────────────────────────────────────────────────────────

/** Runs a program, feeding `input` on stdin; dies with its stderr on a non-zero exit. */
export const runProgram = (command: string, args: ReadonlyArray<string>, input?: string): Effect.Effect<string> =>
  Effect.async<string>((resume) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (b: Buffer) => out.push(b))
    child.stderr.on("data", (b: Buffer) => err.push(b))
    child.on("error", (e) => resume(Effect.die(e)))
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8")
      if (code === 0) resume(Effect.succeed(stdout))
      else {
        resume(
          Effect.die(
            new Error(
              `${command} ${args.join(" ")} exited ${code}: ${Buffer.concat(err).toString("utf8").slice(0, 4000)}`
            )
          )
        )
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(input ?? "")
  })

const psqlArgs = (database: string): Array<string> => [
  "-X",
  "-q",
  "-At",
  "-v",
  "ON_ERROR_STOP=1",
  "-h",
  pgServer.host,
  "-p",
  String(pgServer.port),
  "-U",
  pgServer.user,
  "-d",
  database
]

/** Runs SQL through psql in `database`; returns psql's unaligned, tuples-only output. */
export const psql = (database: string, sql: string): Effect.Effect<string> =>
  runProgram("psql", psqlArgs(database), sql)

/** Runs a SQL file through psql in `database`. */
export const psqlFile = (database: string, file: string): Effect.Effect<string> =>
  runProgram("psql", [...psqlArgs(database), "-f", file])

const mariaArgs = (database: string | null): Array<string> => [
  "--no-defaults",
  "--batch",
  "--skip-column-names",
  "-h",
  mariaServer.host,
  "-P",
  String(mariaServer.port),
  `-u${mariaServer.user}`,
  ...(database === null ? [] : [database])
]

/** Runs SQL through the mariadb client (optionally in `database`); returns its batch output. */
export const mariadb = (database: string | null, sql: string): Effect.Effect<string> =>
  runProgram("mariadb", mariaArgs(database), sql)

const quotePg = (name: string): string => `"${name.replace(/"/g, "\"\"")}"`
const quoteMy = (name: string): string => `\`${name.replace(/`/g, "``")}\``

// ── PostgreSQL ───────────────────────────────────────────────────────────────────────────────────

/** How to load one fixture into a database that already exists. */
export interface PgFixture {
  readonly files: ReadonlyArray<string>
  /** Rewrites a file's text before loading (then it is piped instead of read with -f). */
  readonly transform?: (sql: string) => string
}

export const pgFixtures = {
  pagila: { files: ["pagila/pagila-schema.sql", "pagila/pagila-data.sql"] },
  // The file drops, creates and `\c`onnects to "chinook" itself: strip that so it loads into ours.
  chinook: {
    files: ["chinook/Chinook_PostgreSql.sql"],
    transform: (sql: string) =>
      sql.replace(/^\s*DROP DATABASE IF EXISTS chinook;\s*$/mi, "")
        .replace(/^\s*CREATE DATABASE chinook;\s*$/mi, "")
        .replace(/^\s*\\c chinook;?\s*$/mi, "")
  },
  northwind: { files: ["northwind/northwind-postgres.sql"] }
} as const satisfies Record<string, PgFixture>

export interface PgDatabaseOptions {
  readonly fixture?: PgFixture
  /** Extra SQL run after the fixture (e.g. comments, more tables). */
  readonly sql?: string
  /** Run ANALYZE after loading (default true). */
  readonly analyze?: boolean
}

/** Connection string for a database on the test PostgreSQL server. */
export const pgUrl = (database: string): string =>
  `postgres://${encodeURIComponent(pgServer.user)}@${pgServer.host}:${pgServer.port}/${database}`

/** Creates a unique PostgreSQL database, loads it, ANALYZEs it; drops it (WITH FORCE) on scope close. */
export const makePgDatabase = (options: PgDatabaseOptions = {}): Effect.Effect<TestDatabase, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const name = uniqueDatabaseName()
      yield* psql("postgres", `CREATE DATABASE ${quotePg(name)}`)
      const fixture = options.fixture
      for (const file of fixture?.files ?? []) {
        const full = path.join(fixturesDir, file)
        if (fixture?.transform === undefined) yield* psqlFile(name, full)
        else {
          const text = yield* Effect.promise(() => readFile(full, "utf8"))
          yield* psql(name, fixture.transform(text))
        }
      }
      if (options.sql !== undefined) yield* psql(name, options.sql)
      if (options.analyze !== false) yield* psql(name, "ANALYZE")
      return { name, url: pgUrl(name) }
    }),
    (db) => psql("postgres", `DROP DATABASE IF EXISTS ${quotePg(db.name)} WITH (FORCE)`).pipe(Effect.ignore)
  )

/** `makePgDatabase` as a layer of `TestDatabaseTag`. */
export const pgDatabaseLayer = (options: PgDatabaseOptions = {}): Layer.Layer<TestDatabaseTag> =>
  Layer.scoped(TestDatabaseTag, makePgDatabase(options))

/** One parsed entry of the PostgreSQL server log. */
export interface PgLogEntry {
  readonly user: string
  readonly database: string
  readonly pid: number
  readonly level: string
  readonly text: string
}

const entryStart = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[(\d+)\] (\S*)@(\S*) ([A-Z]+): {2}([\s\S]*)$/

/** Splits log text into entries (continuation lines start with a tab) for the default Debian prefix. */
export const parsePgLog = (text: string): Array<PgLogEntry> => {
  const entries: Array<PgLogEntry> = []
  let current: { user: string; database: string; pid: number; level: string; text: string } | null = null
  for (const line of text.split("\n")) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) {
      if (current !== null) entries.push(current)
      const m = entryStart.exec(line)
      current = m === null ? null : { pid: Number(m[1]), user: m[2]!, database: m[3]!, level: m[4]!, text: m[5]! }
    } else if (current !== null) {
      current.text += "\n" + line.replace(/^\t/, "")
    }
  }
  if (current !== null) entries.push(current)
  return entries
}

const readFrom = (file: string, offset: number): Effect.Effect<string> =>
  Effect.promise(async () => {
    const handle = await open(file, "r")
    try {
      const { size } = await handle.stat()
      const length = Math.max(0, size - offset)
      const buffer = Buffer.alloc(length)
      await handle.read(buffer, 0, length, offset)
      return buffer.toString("utf8")
    } finally {
      await handle.close()
    }
  })

/** What a capture returns: the effect's value and the statements the server logged for the database. */
export interface Captured<A> {
  readonly result: A
  readonly statements: ReadonlyArray<string>
}

/**
 * Runs `effect` with `log_statement = 'all'` set on `database` (new sessions pick it up), then
 * returns the statements PostgreSQL logged for that database meanwhile. The log lines are matched
 * on the `user@database` of the server's `log_line_prefix`; a marker query issued after the effect
 * proves the log has caught up. The setting is reset afterwards.
 */
export const capturePgStatements = <A, E, R>(
  database: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Captured<A>, E, R> =>
  Effect.gen(function*() {
    const prefix = (yield* psql("postgres", "show log_line_prefix")).trim()
    if (!prefix.includes("%d")) {
      return yield* Effect.dieMessage(
        `log_line_prefix (${prefix}) does not name the database (%d); cannot attribute statements`
      )
    }
    const offset = (yield* Effect.promise(() => stat(pgServer.log))).size
    const marker = `ldc_marker_${randomBytes(6).toString("hex")}`
    const result = yield* Effect.acquireUseRelease(
      psql("postgres", `ALTER DATABASE ${quotePg(database)} SET log_statement = 'all'`),
      () => Effect.tap(effect, () => psql(database, `SELECT '${marker}'`)),
      () => psql("postgres", `ALTER DATABASE ${quotePg(database)} RESET log_statement`).pipe(Effect.ignore)
    )
    let text = ""
    for (let attempt = 0; attempt < 100; attempt++) {
      text = yield* readFrom(pgServer.log, offset)
      if (text.includes(marker)) break
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
    }
    if (!text.includes(marker)) return yield* Effect.dieMessage(`the marker never reached ${pgServer.log}`)
    const statements = parsePgLog(text)
      .filter((e) => e.database === database && e.level === "LOG" && !e.text.includes(marker))
      .flatMap((e) => {
        const m = /^(?:statement|execute [^:]*): ([\s\S]*)$/.exec(e.text)
        return m === null ? [] : [m[1]!]
      })
    return { result, statements }
  }).pipe(Effect.scoped)

// ── MariaDB / MySQL ──────────────────────────────────────────────────────────────────────────────

export interface MariaFixture {
  readonly files: ReadonlyArray<string>
  /** The database name the files create and qualify names with; rewritten to the unique one. */
  readonly database: string
  /** Lines to drop (e.g. `source …` includes of data dumps that are not shipped). */
  readonly dropLines?: RegExp
}

export const mariaFixtures = {
  sakila: { files: ["sakila/sakila-mv-schema.sql", "sakila/sakila-mv-data.sql"], database: "sakila" },
  chinook: { files: ["chinook/Chinook_MySql.sql"], database: "Chinook" },
  northwind: {
    files: ["northwind/mywind-northwind-mysql-schema.sql", "northwind/mywind-northwind-mysql-data.sql"],
    database: "northwind"
  },
  employees: { files: ["employees/employees.sql"], database: "employees", dropLines: /^source .*$/gm }
} as const satisfies Record<string, MariaFixture>

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Rewrites the fixture's own database name to `target`: in USE / CREATE / DROP DATABASE|SCHEMA
 * statements and as a qualifier (`db`.`t`, db.t). Data strings such as e-mail domains are left alone.
 */
export const rewriteMariaDatabase = (sql: string, from: string, target: string): string => {
  const name = escapeRegExp(from)
  const statement = new RegExp(
    `^(\\s*(?:USE|DROP\\s+(?:SCHEMA|DATABASE)\\s+IF\\s+EXISTS|CREATE\\s+(?:SCHEMA|DATABASE)(?:\\s+IF\\s+NOT\\s+EXISTS)?)\\s+)(\`${name}\`|${name})(?=[\\s;])`,
    "gmi"
  )
  const qualifier = new RegExp(`(?<![\\w@.\\/'-])(\`${name}\`|${name})(?=\\.[\`A-Za-z_])`, "g")
  return sql.replace(statement, (_m, head: string) => `${head}\`${target}\``).replace(qualifier, `\`${target}\``)
}

export interface MariaDatabaseOptions {
  readonly fixture?: MariaFixture
  readonly sql?: string
  /** Run ANALYZE TABLE on every base table after loading (default true). */
  readonly analyze?: boolean
}

/** Connection string for a database on the test MariaDB server. */
export const mariaUrl = (database: string | null): string =>
  `mysql://${encodeURIComponent(mariaServer.user)}:@${mariaServer.host}:${mariaServer.port}${
    database === null ? "" : `/${database}`
  }`

/** Creates a unique MariaDB database, loads it, ANALYZEs its tables; drops it on scope close. */
export const makeMariaDatabase = (
  options: MariaDatabaseOptions = {}
): Effect.Effect<TestDatabase, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const name = uniqueDatabaseName()
      const fixture = options.fixture
      if (fixture === undefined) yield* mariadb(null, `CREATE DATABASE ${quoteMy(name)}`)
      else {
        for (const file of fixture.files) {
          let text = yield* Effect.promise(() => readFile(path.join(fixturesDir, file), "utf8"))
          if (fixture.dropLines !== undefined) text = text.replace(fixture.dropLines, "")
          yield* mariadb(null, rewriteMariaDatabase(text, fixture.database, name))
        }
      }
      if (options.sql !== undefined) yield* mariadb(name, options.sql)
      if (options.analyze !== false) {
        const tables = (yield* mariadb(
          null,
          `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${name}' AND TABLE_TYPE = 'BASE TABLE'`
        )).split("\n").filter((t) => t !== "")
        if (tables.length > 0) yield* mariadb(name, `ANALYZE TABLE ${tables.map(quoteMy).join(", ")}`)
      }
      return { name, url: mariaUrl(name) }
    }),
    (db) => mariadb(null, `DROP DATABASE IF EXISTS ${quoteMy(db.name)}`).pipe(Effect.ignore)
  )

/** `makeMariaDatabase` as a layer of `TestDatabaseTag`. */
export const mariaDatabaseLayer = (options: MariaDatabaseOptions = {}): Layer.Layer<TestDatabaseTag> =>
  Layer.scoped(TestDatabaseTag, makeMariaDatabase(options))

interface GeneralLogRow {
  readonly thread_id: number
  readonly command_type: string
  readonly argument: string | Buffer
}

/**
 * Runs `effect` with MariaDB's general log on (`log_output` gains TABLE), then returns the
 * statements (Query / Prepare / Execute) of every connection that opened `database` (Connect …
 * on <database>, or Init DB) during the window. A server-wide named lock (`GET_LOCK`) serialises
 * captures across test files, and the previous general_log / log_output are restored afterwards.
 */
export const captureMariaStatements = <A, E, R>(
  database: string | ReadonlyArray<string>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Captured<A>, E, R> =>
  Effect.gen(function*() {
    const conn = yield* Effect.acquireRelease(
      Effect.promise(() =>
        mysql.createConnection({
          host: mariaServer.host,
          port: mariaServer.port,
          user: mariaServer.user,
          password: "",
          dateStrings: true
        })
      ),
      (c) => Effect.promise(() => c.end().catch(() => undefined))
    )
    const q = <T>(sql: string, values: Array<string | number> = []): Effect.Effect<T> =>
      Effect.promise(async () => (await conn.query(sql, values))[0] as T)
    const [before] = yield* q<Array<{ g: number; o: string; me: number }>>(
      "SELECT @@GLOBAL.general_log AS g, @@GLOBAL.log_output AS o, CONNECTION_ID() AS me"
    )
    // Held until the scope closes; the release restores the settings first, then frees the lock.
    yield* Effect.acquireRelease(
      Effect.flatMap(q<Array<{ l: number | null }>>("SELECT GET_LOCK('ldc_test_general_log', 300) AS l"), (r) =>
        r[0]?.l === 1 ? Effect.void : Effect.dieMessage("could not take the general-log lock")),
      () =>
        Effect.gen(function*() {
          yield* q("SET GLOBAL general_log = ?", [before!.g])
          yield* q("SET GLOBAL log_output = ?", [before!.o])
          if (before!.g === 0) {
            yield* q("TRUNCATE TABLE mysql.general_log")
          }
          yield* q("SELECT RELEASE_LOCK('ldc_test_general_log')")
        })
    )
    const outputs = before!.o.split(",").filter((o) =>
      o !== "NONE"
    )
    const withTable = outputs.includes("TABLE") ? outputs : [...outputs, "TABLE"]
    const [start] = yield* q<Array<{ t: string }>>("SELECT NOW(6) AS t")
    yield* q("SET GLOBAL log_output = ?", [withTable.join(",")])
    yield* q("SET GLOBAL general_log = 1")
    const result = yield* effect
    const rows = yield* q<Array<GeneralLogRow>>(
      "SELECT thread_id, command_type, argument FROM mysql.general_log WHERE event_time >= ? AND thread_id <> ? ORDER BY event_time",
      [start!.t, before!.me]
    )
    const text = (a: string | Buffer): string => (typeof a === "string" ? a : a.toString("utf8"))
    // One window for several databases: captures cannot nest (they share one server-wide lock).
    const databases: ReadonlyArray<string> = typeof database === "string" ? [database] : database
    const onDb = new RegExp(`\\son\\s+(?:${databases.map(escapeRegExp).join("|")})(?:\\s|$)`)
    const threads = new Set(
      rows.filter((r) =>
        (r.command_type === "Connect" && onDb.test(text(r.argument))) ||
        (r.command_type === "Init DB" && databases.includes(text(r.argument)))
      ).map((r) => r.thread_id)
    )
    const statements = rows
      .filter((r) => threads.has(r.thread_id) && ["Query", "Prepare", "Execute"].includes(r.command_type))
      .map((r) => text(r.argument))
    return { result, statements }
  }).pipe(Effect.scoped)

// ── Checks ───────────────────────────────────────────────────────────────────────────────────────

/**
 * The statements that name one of `userTables` (as an identifier, quoted or not; string literals
 * are ignored) or contain `count(`: each is a breach of the metadata-only rule.
 */
export const metadataViolations = (
  statements: ReadonlyArray<string>,
  userTables: ReadonlyArray<string>
): Array<{ readonly statement: string; readonly reason: string }> => {
  const tables = new Set(userTables.map((t) => t.toLowerCase()))
  const out: Array<{ statement: string; reason: string }> = []
  for (const statement of statements) {
    if (/\bcount\s*\(/i.test(statement)) {
      out.push({ statement, reason: "count(" })
      continue
    }
    const withoutStrings = statement.replace(/'(?:[^'\\]|\\.|'')*'/g, "''")
    const identifiers = withoutStrings.match(/"(?:[^"]|"")+"|`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_$]*/g) ?? []
    const hit = identifiers.map((i) => i.replace(/^["`]|["`]$/g, "").toLowerCase()).find((i) => tables.has(i))
    if (hit !== undefined) out.push({ statement, reason: `names user table ${hit}` })
  }
  return out
}
