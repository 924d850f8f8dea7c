/**
 * The SQLite connector. Opens the file READ-ONLY with `node:sqlite` (a missing file is an error,
 * never created) and reads the schema only: `pragma table_list` / `sqlite_schema` for relations,
 * `pragma table_xinfo` for columns and primary keys, `pragma foreign_key_list` for references.
 * SQLite keeps no planner row estimate, so `rowEstimate` is null with source "none". A view's
 * dependencies are the existing relations its SQL reads after FROM / JOIN.
 *
 * The connection string is a path (`./app.db`, `/data/app.db`), `sqlite:<path>`, `sqlite://<path>`
 * or a `file:` URL; relative paths resolve against the config file's folder.
 */
import { Effect, type Scope } from "effect"
import * as path from "node:path"
import { DatabaseSync, type SQLOutputValue } from "node:sqlite"
import { fileURLToPath } from "node:url"
import type { RawColumn, RawDataset, RawSource } from "../../domain/Metadata.js"
import type { SourceUnreachable } from "../../errors/index.js"
import type { Connector, ConnectorInput, ProbeResult } from "../../services/Connectors.js"
import { regularFile, relationsReadBy, unreachable } from "./internal.js"

/** The file path a SQLite connection string points at, resolved against `baseDir`. */
export const sqlitePath = (connection: string, baseDir: string): string => {
  let p = connection.trim()
  if (/^file:\/\//i.test(p)) {
    p = fileURLToPath(new URL(p.replace(/\?.*$/, "")))
  } else if (/^file:/i.test(p)) {
    p = decodeURIComponent(p.slice(5).replace(/\?.*$/, ""))
  } else if (/^sqlite3?:/i.test(p)) {
    p = p.replace(/^sqlite3?:/i, "").replace(/\?.*$/, "")
    if (p.startsWith("//")) p = p.slice(2)
    p = decodeURIComponent(p)
  }
  return path.resolve(baseDir, p)
}

type Row = Record<string, SQLOutputValue>

const str = (v: SQLOutputValue | undefined): string => (v === null || v === undefined ? "" : String(v))

interface Opened {
  readonly file: string
  readonly db: DatabaseSync
}

/**
 * How messages name the file: its path when it comes from `path` in catalog.yml; when it comes from
 * the connection variable (the source's secret), the variable's name, never its value.
 */
const shownFile = (input: ConnectorInput, file: string): string =>
  input.secret !== null ? `named by ${input.source.connectionRef ?? "the connection variable"}` : file

const fixFor = (input: ConnectorInput, file: string): string => {
  const where = input.secret !== null
    ? `the path in ${input.source.connectionRef ?? "the connection variable"}`
    : `\`path\` of source ${input.source.id} (now ${file})`
  return `Check ${where}; it must name a SQLite database file (relative paths resolve against ${input.baseDir}). Then run \`catalog test ${input.source.id}\`.`
}

/**
 * Opens the database read-only inside a scope (closed after). The path must be a regular file,
 * checked with stat before any open, so a FIFO or a device is refused instead of blocking; a
 * missing file fails and is never created.
 */
const open = (input: ConnectorInput): Effect.Effect<Opened, SourceUnreachable, Scope.Scope> =>
  Effect.gen(function*() {
    const connection = input.secret ?? input.source.path ?? null
    // The connection string is the source's secret: its value stays out of messages.
    const secrets = [input.secret]
    if (connection === null || connection.trim() === "") {
      return yield* unreachable(
        `Source ${input.source.id} names no SQLite file.`,
        `Set ${
          input.source.connectionRef ?? "the connection variable"
        } to the database file's path, then run \`catalog test ${input.source.id}\`.`,
        secrets
      )
    }
    const file = sqlitePath(connection, input.baseDir)
    const checked = regularFile(file)
    if (!checked.ok) {
      return yield* unreachable(
        `The SQLite file ${shownFile(input, file)} (source ${input.source.id}) ${checked.reason}.`,
        fixFor(input, file),
        secrets
      )
    }
    return yield* Effect.acquireRelease(
      Effect.try({
        try: (): Opened => ({ file, db: new DatabaseSync(file, { readOnly: true }) }),
        catch: (e) =>
          unreachable(
            `Cannot open the SQLite file ${shownFile(input, file)} (source ${input.source.id}) read-only: ${
              e instanceof Error ? e.message : String(e)
            }.`,
            fixFor(input, file),
            secrets
          )
      }),
      ({ db }) => Effect.sync(() => db.close())
    )
  })

const query = (o: Opened, input: ConnectorInput, sql: string, ...params: Array<string>) =>
  Effect.try({
    try: () => o.db.prepare(sql).all(...params),
    catch: (e) =>
      unreachable(
        `Cannot read the schema of the SQLite file ${shownFile(input, o.file)} (source ${input.source.id}): ${
          e instanceof Error ? e.message : String(e)
        }.`,
        fixFor(input, o.file),
        [input.secret]
      )
  })

/** Reads the schema; pragma calls per table are in-process (no round trips), so they stay cheap. */
const readSchema = (o: Opened, input: ConnectorInput) =>
  Effect.gen(function*() {
    const version = yield* query(o, input, "select sqlite_version() as v")
    const relations = yield* query(
      o,
      input,
      `select l.name, l.type, m.sql from pragma_table_list l
       left join sqlite_schema m on m.name = l.name
       where l.schema = 'main' and l.type in ('table', 'view', 'virtual') and l.name not like 'sqlite\\_%' escape '\\'
       order by l.name`
    )
    const names = new Map<string, string>()
    for (const r of relations) names.set(str(r["name"]).toLowerCase(), str(r["name"]))

    type MutableColumn = { -readonly [K in keyof RawColumn]: RawColumn[K] }
    const columnsOf = new Map<string, Array<MutableColumn>>()
    const pkOrder = new Map<string, Array<string>>()
    for (const r of relations) {
      const name = str(r["name"])
      // A virtual table whose module is not loaded cannot list its columns; keep the table.
      const info: ReadonlyArray<Row> = (() => {
        try {
          return o.db.prepare("select * from pragma_table_xinfo(?)").all(name)
        } catch {
          return []
        }
      })()
      const cols: Array<MutableColumn> = []
      const pks: Array<{ readonly name: string; readonly pk: number }> = []
      for (const c of info) {
        if (Number(c["hidden"] ?? 0) === 1) continue
        const pk = Number(c["pk"] ?? 0)
        cols.push({
          name: str(c["name"]),
          type: str(c["type"]),
          nullable: Number(c["notnull"] ?? 0) === 0 && pk === 0,
          position: cols.length + 1,
          comment: null,
          isPrimaryKey: pk > 0,
          references: null
        })
        if (pk > 0) pks.push({ name: str(c["name"]), pk })
      }
      columnsOf.set(name, cols)
      pkOrder.set(name.toLowerCase(), pks.sort((a, b) => a.pk - b.pk).map((p) => p.name))
    }
    for (const r of relations) {
      if (str(r["type"]) === "view") continue
      const name = str(r["name"])
      const fks: ReadonlyArray<Row> = (() => {
        try {
          return o.db.prepare("select * from pragma_foreign_key_list(?) order by id, seq").all(name)
        } catch {
          return []
        }
      })()
      const cols = columnsOf.get(name) ?? []
      for (const fk of fks) {
        const col = cols.find((c) => c.name.toLowerCase() === str(fk["from"]).toLowerCase())
        if (col === undefined || col.references !== null) continue
        const parent = str(fk["table"])
        // `REFERENCES parent` without a column means the parent's primary key (by position).
        const to = fk["to"] === null || fk["to"] === undefined
          ? pkOrder.get(parent.toLowerCase())?.[Number(fk["seq"] ?? 0)] ?? null
          : str(fk["to"])
        if (to === null) continue
        col.references = { schema: "main", table: names.get(parent.toLowerCase()) ?? parent, column: to }
      }
    }
    const datasets = relations.map((r): RawDataset => {
      const name = str(r["name"])
      const isView = str(r["type"]) === "view"
      const dependsOn: Array<{ readonly schema: string; readonly name: string }> = []
      if (isView) {
        const seen = new Set<string>()
        for (const ref of relationsReadBy(str(r["sql"]))) {
          if (ref.schema !== null && ref.schema.toLowerCase() !== "main") continue
          const target = names.get(ref.name.toLowerCase())
          if (target === undefined || target === name || seen.has(target)) continue
          seen.add(target)
          dependsOn.push({ schema: "main", name: target })
        }
        dependsOn.sort((a, b) => a.name.localeCompare(b.name))
      }
      return {
        schema: "main",
        name,
        kind: isView ? "view" : "table",
        comment: null,
        rowEstimate: null,
        rowEstimateSource: "none",
        columns: columnsOf.get(name) ?? [],
        dependsOn
      }
    })
    const result: RawSource = { datasets, serverVersion: `SQLite ${str(version[0]?.["v"])}` }
    return result
  })

const probe = Effect.fn("Connectors.sqlite.probe")(function*(input: ConnectorInput) {
  const o = yield* open(input)
  const version = yield* query(o, input, "select sqlite_version() as v")
  // Touch the schema so a non-database file fails here, not at the first scan.
  yield* query(o, input, "select name from sqlite_schema limit 1")
  const result: ProbeResult = { serverVersion: `SQLite ${str(version[0]?.["v"])}`, target: o.file }
  return result
}, Effect.scoped)

const scan = Effect.fn("Connectors.sqlite.scan")(function*(input: ConnectorInput) {
  const o = yield* open(input)
  return yield* readSchema(o, input)
}, Effect.scoped)

/** The `sqlite` connector. */
export const SqliteConnector: Connector = {
  kind: "sqlite",
  needsSecret: true,
  probe,
  scan
}
