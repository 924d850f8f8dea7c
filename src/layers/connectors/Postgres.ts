/**
 * The PostgreSQL connector. Reads `pg_catalog` only, with a fixed handful of set-based queries for
 * the whole database (relations, columns, keys, view dependencies, partitions), so the cost grows
 * linearly with the catalog and the number of round trips stays constant. Never reads a row value.
 *
 * Row estimates are `pg_class.reltuples`: `-1` (never analysed, PostgreSQL 14+) becomes `null`.
 * A partitioned parent carries `-1` until it is itself analysed (autovacuum never analyses
 * partitioned parents); then its estimate is the sum of its partitions' estimates when every
 * partition (recursively) has one, else `null`. Plain views have no estimate.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Effect, type Scope } from "effect"
import { Pool } from "pg"
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
  statementTimeoutMs,
  unreachable
} from "./internal.js"

// Namespace filter shared by every query: `$1` is the optional list of schemas to scan.
const nsFilter = `n.nspname <> 'information_schema' and n.nspname !~ '^pg_'
  and ($1::text[] is null or n.nspname = any($1::text[]))`
const relkinds = `('r','p','v','m','f')`

const relationsSql = `select c.oid, n.nspname, c.relname, c.relkind, c.relispartition, c.reltuples::float8 as reltuples,
  d.description
from pg_catalog.pg_class c
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
left join pg_catalog.pg_description d
  on d.objoid = c.oid and d.classoid = 'pg_catalog.pg_class'::regclass and d.objsubid = 0
where c.relkind in ${relkinds} and ${nsFilter}
order by n.nspname, c.relname`

const columnsSql =
  `select a.attrelid, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, d.description
from pg_catalog.pg_attribute a
join pg_catalog.pg_class c on c.oid = a.attrelid
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
left join pg_catalog.pg_description d
  on d.objoid = a.attrelid and d.classoid = 'pg_catalog.pg_class'::regclass and d.objsubid = a.attnum
where a.attnum > 0 and not a.attisdropped and c.relkind in ${relkinds} and ${nsFilter}
order by a.attrelid, a.attnum`

// One row per constrained column; `unnest(conkey, confkey)` pairs each FK column with its target.
const keysSql = `select con.conrelid, con.contype, a.attname, rn.nspname as ref_schema, rc.relname as ref_table,
  ra.attname as ref_column
from pg_catalog.pg_constraint con
join pg_catalog.pg_class c on c.oid = con.conrelid
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
cross join lateral unnest(con.conkey, con.confkey) as k(attnum, refattnum)
join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
left join pg_catalog.pg_class rc on rc.oid = con.confrelid
left join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
left join pg_catalog.pg_attribute ra on ra.attrelid = con.confrelid and ra.attnum = k.refattnum
where con.contype in ('p', 'f') and ${nsFilter}
order by con.conrelid, con.contype desc, con.conname`

// What each view / materialized view reads, from the dependencies of its rewrite rule.
const viewDepsSql = `select distinct r.ev_class as view_oid, rn.nspname, rc.relname
from pg_catalog.pg_rewrite r
join pg_catalog.pg_class c on c.oid = r.ev_class
join pg_catalog.pg_namespace n on n.oid = c.relnamespace
join pg_catalog.pg_depend dep
  on dep.classid = 'pg_catalog.pg_rewrite'::regclass and dep.objid = r.oid
  and dep.refclassid = 'pg_catalog.pg_class'::regclass and dep.refobjid <> r.ev_class
join pg_catalog.pg_class rc on rc.oid = dep.refobjid
join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
where c.relkind in ('v', 'm') and rc.relkind in ${relkinds} and ${nsFilter}
order by 1, 2, 3`

// Partition tree edges (any schema: a partition may live outside the scanned schemas).
const partitionsSql = `select i.inhparent, i.inhrelid, ch.reltuples::float8 as reltuples, ch.relkind
from pg_catalog.pg_inherits i
join pg_catalog.pg_class p on p.oid = i.inhparent
join pg_catalog.pg_class ch on ch.oid = i.inhrelid
where p.relkind = 'p'`

interface RelationRow {
  readonly oid: number
  readonly nspname: string
  readonly relname: string
  readonly relkind: string
  readonly relispartition: boolean
  readonly reltuples: number
  readonly description: string | null
}
interface KeyRow {
  readonly conrelid: number
  readonly contype: string
  readonly attname: string
  readonly ref_schema: string | null
  readonly ref_table: string | null
  readonly ref_column: string | null
}
interface ViewDepRow {
  readonly view_oid: number
  readonly nspname: string
  readonly relname: string
}
interface PartitionRow {
  readonly inhparent: number
  readonly inhrelid: number
  readonly reltuples: number
  readonly relkind: string
}

const kindOf = (relkind: string, isPartition: boolean): DatasetKind => {
  if (isPartition) return "partition"
  switch (relkind) {
    case "p":
      return "partitioned_table"
    case "v":
      return "view"
    case "m":
      return "materialized_view"
    case "f":
      return "foreign_table"
    default:
      return "table"
  }
}

interface Target {
  readonly url: string
  readonly parsed: ParsedUrl
  readonly target: string
}

const resolveTarget = (input: ConnectorInput): Effect.Effect<Target, SourceUnreachable> => {
  const ref = input.source.connectionRef ?? "the connection variable"
  if (input.secret === null || input.secret.trim() === "") {
    return Effect.fail(unreachable(
      `Source ${input.source.id} has no PostgreSQL connection string.`,
      `Set ${ref} to a URL such as postgres://user:password@127.0.0.1:5432/dbname, then run \`catalog test ${input.source.id}\`.`,
      []
    ))
  }
  const parsed = parseConnectionUrl(input.secret, ["postgres", "postgresql"], 5432)
  if (parsed === null) {
    return Effect.fail(unreachable(
      `The connection string of source ${input.source.id} is not a postgres:// URL.`,
      `Set ${ref} to a URL such as postgres://user:password@127.0.0.1:5432/dbname, then run \`catalog test ${input.source.id}\`.`,
      [input.secret]
    ))
  }
  const database = parsed.database ?? parsed.user ?? "postgres"
  return Effect.succeed({ url: input.secret, parsed, target: `${hostPort(parsed)}/${database}` })
}

/** Turns a driver failure into `SourceUnreachable`; the fix names host and port, never the password. */
const toUnreachable = (input: ConnectorInput, t: Target) => (error: unknown): SourceUnreachable => {
  const { code, message } = driverFailure(error)
  const where = hostPort(t.parsed)
  const id = input.source.id
  const ref = input.source.connectionRef ?? "the connection variable"
  const secrets = [t.parsed.password, t.url]
  const retry = `then run \`catalog test ${id}\`.`
  if (code === "57014") {
    return unreachable(
      `PostgreSQL at ${where} cancelled a catalog query of source ${id} after ${
        statementTimeoutMs / 1000
      } s (statement_timeout).`,
      `Check the load on PostgreSQL at ${where} (the catalog queries read pg_catalog only), ${retry}`,
      secrets
    )
  }
  const net = networkReason(code)
  if (net !== null || /timed out|timeout/i.test(message)) {
    return unreachable(
      `Cannot reach PostgreSQL at ${where} for source ${id}: ${net ?? "connection timed out"}.`,
      `Check that PostgreSQL is listening on ${where}, ${retry}`,
      secrets
    )
  }
  switch (code) {
    case "28P01":
    case "28000":
      return unreachable(
        `PostgreSQL at ${where} refused the login of source ${id}: ${message}.`,
        `Check the user and password in ${ref} for PostgreSQL on ${where}, ${retry}`,
        secrets
      )
    case "3D000":
      return unreachable(
        `PostgreSQL at ${where} has no database named in source ${id}'s connection string: ${message}.`,
        `Check the database name in ${ref} against the databases on ${where}, ${retry}`,
        secrets
      )
    case "42501":
      return unreachable(
        `PostgreSQL at ${where} denied source ${id} access to its system catalog: ${message}.`,
        `Grant the user in ${ref} CONNECT on the database (catalog reads need no table privileges) on ${where}, ${retry}`,
        secrets
      )
    default:
      return unreachable(
        `PostgreSQL at ${where} failed for source ${id}: ${message}.`,
        `Check that PostgreSQL is listening on ${where} and that ${ref} is right, ${retry}`,
        secrets
      )
  }
}

/**
 * What every new connection runs before anything else: the session is read-only (a write statement
 * is refused by the server, a second wall behind "metadata only") and each statement is cancelled by
 * the server after `statementTimeoutMs`. A SET after connecting, not a startup `options` parameter,
 * so an `options=` in the user's connection string cannot override it.
 */
export const sessionSql = `SET default_transaction_read_only = on; SET statement_timeout = ${statementTimeoutMs}`

/**
 * The pool of one run, created inside the caller's scope and ended when it closes, on success,
 * failure, timeout and interruption alike (PgClient.make would leave its pool open when the first
 * connection fails).
 */
const acquirePool = (t: Target): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new Pool({
        connectionString: t.url,
        // Tags the sessions; a connection string's own `application_name` parameter wins.
        application_name: "local-data-catalog",
        connectionTimeoutMillis: connectTimeoutMs,
        max: 5,
        onConnect: async (client) => {
          await client.query(sessionSql)
        }
      })
      // An idle client's error (server restart) must not crash the process; queries report their own.
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(closeTimeoutMs), Effect.asVoid)
  )

/** Runs `f` with a PgClient over a pool opened for this run and closed after it (scoped). */
export const withClient = <A>(
  input: ConnectorInput,
  f: (sql: PgClient.PgClient, t: Target) => Effect.Effect<A, unknown>
): Effect.Effect<A, SourceUnreachable> =>
  Effect.flatMap(resolveTarget(input), (t) =>
    Effect.gen(function*() {
      const sql = yield* PgClient.fromPool({ acquire: acquirePool(t), applicationName: "local-data-catalog" })
      return yield* f(sql, t)
    }).pipe(
      Effect.scoped,
      Effect.provide(Reactivity.layer),
      Effect.mapError(toUnreachable(input, t))
    ))

const versionOf = (sql: PgClient.PgClient) =>
  Effect.map(sql.unsafe<{ server_version: string }>("show server_version"), (rows) => {
    const v = rows[0]?.server_version
    return v === undefined ? null : `PostgreSQL ${v.split(" ")[0]}`
  })

/** Builds datasets from the catalog rows; every step is a single pass or a map lookup. */
export const assembleDatasets = (
  relations: ReadonlyArray<RelationRow>,
  columns: ReadonlyArray<ReadonlyArray<unknown>>,
  keys: ReadonlyArray<KeyRow>,
  viewDeps: ReadonlyArray<ViewDepRow>,
  partitions: ReadonlyArray<PartitionRow>
): Array<RawDataset> => {
  const reltuples = new Map<number, { readonly value: number; readonly relkind: string }>()
  for (const r of relations) reltuples.set(Number(r.oid), { value: Number(r.reltuples), relkind: r.relkind })
  const children = new Map<number, Array<number>>()
  for (const p of partitions) {
    const parent = Number(p.inhparent)
    const child = Number(p.inhrelid)
    const list = children.get(parent)
    if (list === undefined) children.set(parent, [child])
    else list.push(child)
    if (!reltuples.has(child)) reltuples.set(child, { value: Number(p.reltuples), relkind: p.relkind })
  }
  const estimateMemo = new Map<number, number | null>()
  const estimate = (oid: number, depth: number): number | null => {
    const memo = estimateMemo.get(oid)
    if (memo !== undefined) return memo
    const rel = reltuples.get(oid)
    let result: number | null = null
    if (rel !== undefined && rel.relkind !== "v") {
      if (rel.value >= 0) {
        result = Math.round(rel.value)
      } else if (rel.relkind === "p" && depth < 32) {
        let sum = 0
        for (const child of children.get(oid) ?? []) {
          const e = estimate(child, depth + 1)
          if (e === null) {
            sum = -1
            break
          }
          sum += e
        }
        result = sum < 0 ? null : sum
      }
    }
    estimateMemo.set(oid, result)
    return result
  }

  type MutableColumn = { -readonly [K in keyof RawColumn]: RawColumn[K] }
  const columnsByRel = new Map<number, Array<MutableColumn>>()
  const columnIndex = new Map<number, Map<string, MutableColumn>>()
  for (const row of columns) {
    const relid = Number(row[0])
    let list = columnsByRel.get(relid)
    let index = columnIndex.get(relid)
    if (list === undefined || index === undefined) {
      list = []
      index = new Map()
      columnsByRel.set(relid, list)
      columnIndex.set(relid, index)
    }
    const col: MutableColumn = {
      name: String(row[1]),
      type: String(row[2]),
      nullable: row[3] !== true,
      // Contiguous 1-based order, whatever gaps dropped columns left in attnum.
      position: list.length + 1,
      comment: row[4] === null || row[4] === undefined ? null : String(row[4]),
      isPrimaryKey: false,
      references: null
    }
    list.push(col)
    index.set(col.name, col)
  }
  for (const k of keys) {
    const col = columnIndex.get(Number(k.conrelid))?.get(k.attname)
    if (col === undefined) continue
    if (k.contype === "p") col.isPrimaryKey = true
    else if (col.references === null && k.ref_schema !== null && k.ref_table !== null && k.ref_column !== null) {
      col.references = { schema: k.ref_schema, table: k.ref_table, column: k.ref_column }
    }
  }
  const deps = new Map<number, Array<{ readonly schema: string; readonly name: string }>>()
  for (const d of viewDeps) {
    const oid = Number(d.view_oid)
    const list = deps.get(oid)
    const ref = { schema: d.nspname, name: d.relname }
    if (list === undefined) deps.set(oid, [ref])
    else list.push(ref)
  }

  return relations.map((r): RawDataset => {
    const oid = Number(r.oid)
    const kind = kindOf(r.relkind, r.relispartition)
    const rowEstimate = kind === "view" ? null : estimate(oid, 0)
    return {
      schema: r.nspname,
      name: r.relname,
      kind,
      comment: r.description,
      rowEstimate,
      rowEstimateSource: rowEstimate === null ? "none" : "pg_class.reltuples",
      columns: columnsByRel.get(oid) ?? [],
      dependsOn: deps.get(oid) ?? []
    }
  })
}

const probe = Effect.fn("Connectors.postgres.probe")(function*(input: ConnectorInput) {
  return yield* withClient(
    input,
    (sql, t) => Effect.map(versionOf(sql), (serverVersion): ProbeResult => ({ serverVersion, target: t.target }))
  )
})

const scan = Effect.fn("Connectors.postgres.scan")(function*(input: ConnectorInput) {
  const schemas = input.source.schemas !== undefined && input.source.schemas.length > 0
    ? [...input.source.schemas]
    : null
  return yield* withClient(input, (sql) =>
    Effect.gen(function*() {
      const params = [schemas]
      const [serverVersion, relations, columns, keys, viewDeps, partitions] = yield* Effect.all([
        versionOf(sql),
        sql.unsafe<RelationRow>(relationsSql, params),
        // Array rows: the biggest result (one row per column) skips per-row object building.
        sql.unsafe(columnsSql, params).values,
        sql.unsafe<KeyRow>(keysSql, params),
        sql.unsafe<ViewDepRow>(viewDepsSql, params),
        sql.unsafe<PartitionRow>(partitionsSql)
      ], { concurrency: "unbounded" })
      const result: RawSource = {
        serverVersion,
        datasets: assembleDatasets(relations, columns, keys, viewDeps, partitions)
      }
      return result
    }))
})

/** The `postgres` connector. */
export const PostgresConnector: Connector = {
  kind: "postgres",
  needsSecret: true,
  probe,
  scan
}
