/**
 * The only code that touches `index.db`. `StoreReader` is the read half (given to the MCP and HTTP
 * programs); `Store` adds the writes (scan commit, human corrections), for the CLI only.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import type { ClassValue, ColumnVerdict, DatasetKind, RawColumn, RawDataset, RawEdge } from "../domain/Metadata.js"
import { NodeSqliteClient } from "../layers/NodeSqlite.js"
import type { RedactedText } from "./Redact.js"
import type { AnnotationRow } from "./Ropa.js"

// ── identifiers ──────────────────────────────────────────────────────────────────────────────
const enc = (s: string) => s.replace(/%/g, "%25").replace(/\//g, "%2F")
/** `<source>/<schema>/<table>`, a `/` inside a name percent-encoded. */
export const datasetId = (source: string, schema: string, name: string): string =>
  `${enc(source)}/${enc(schema)}/${enc(name)}`
export const columnId = (dataset: string, column: string): string => `${dataset}/${enc(column)}`
const dec = (s: string) => s.replace(/%2F/gi, "/").replace(/%25/g, "%")
/** The dataset id and column name a column id is made of. */
export const splitColumnId = (id: string): { readonly datasetId: string; readonly name: string } => {
  const parts = id.split("/")
  return { datasetId: parts.slice(0, 3).join("/"), name: dec(parts.slice(3).join("/")) }
}
export const edgeId = (from: string, to: string, origin: string): string =>
  `e_${createHash("sha1").update(`${origin}\u0000${from}\u0000${to}`).digest("hex").slice(0, 12)}`

/** The scanned dataset id for `id`: exact, else the one case-insensitive match (`null` when none or ambiguous). */
export const resolveDatasetId = (sql: SqlClient.SqlClient, id: string) =>
  Effect.gen(function*() {
    const exact = yield* sql<{ id: string }>`SELECT id FROM datasets WHERE id = ${id}`
    if (exact[0] !== undefined) return exact[0].id
    const folded = yield* sql<{ id: string }>`SELECT id FROM datasets WHERE lower(id) = lower(${id}) LIMIT 2`
    return folded.length === 1 ? folded[0]!.id : null
  })

/** Splits names into words for the search index: `customerEmail_addr` → `customer email addr`. */
export const searchWords = (s: string): string =>
  s.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").replace(/[_\-./]+/g, " ")

// ── rows ─────────────────────────────────────────────────────────────────────────────────────
export interface DatasetRow {
  readonly rowid: number
  readonly id: string
  readonly source_id: string
  readonly schema_name: string
  readonly name: string
  readonly kind: string
  readonly comment: string | null
  readonly row_estimate: number | null
  readonly row_estimate_source: string
  readonly first_seen_at: string
  readonly scanned_at: string
}
export interface ColumnRow {
  readonly id: string
  readonly dataset_id: string
  readonly position: number
  readonly name: string
  readonly type: string
  readonly nullable: number
  readonly comment: string | null
  readonly is_pk: number
  readonly ref: string | null
  readonly m_value: ClassValue
  readonly m_rule: string
  readonly m_confidence: number
  readonly m_method: string
  readonly m_category: string | null
  readonly m_evidence: string
  readonly o_value: ClassValue | null
  readonly o_by: string | null
  readonly o_at: string | null
}
export interface SourceRow {
  readonly id: string
  readonly kind: string
  readonly driver: string
  readonly label: string | null
  readonly region: string | null
  readonly user_authored: number
  readonly status: "ok" | "unreachable" | "error"
  readonly error_code: string | null
  readonly error_message: string | null
  readonly server_version: string | null
  readonly last_attempt_at: string
  readonly last_ok_at: string | null
  readonly datasets: number
}
export interface EdgeRow {
  readonly id: string
  readonly from_id: string
  readonly to_id: string
  readonly origin: "scan" | "dbt" | "user"
  readonly created_at: string
  readonly by: string | null
  readonly from_known: number
  readonly to_known: number
}
export interface ChangeRow {
  readonly seq: number
  readonly at: string
  readonly scan_id: number | null
  readonly kind: string
  readonly entity: string
  readonly source_id: string | null
  readonly detail: string
  readonly by: string | null
}
export interface GlossaryRow {
  readonly term: string
  readonly definition: string
  readonly datasets: string
  readonly updated_at: string
  readonly by: string | null
}
export interface ScanRow {
  readonly id: number
  readonly started_at: string
  readonly finished_at: string
  readonly sources_total: number
  readonly sources_ok: number
  readonly changes: number
}

// ── scan input ───────────────────────────────────────────────────────────────────────────────
/** What every outcome says about its source. */
interface SourceBase {
  readonly id: string
  readonly kind: string
  readonly driver: string
  readonly label: string | null
  readonly region: string | null
  readonly userAuthored: boolean
}

/** One source's outcome in a scan. */
export type SourceOutcome =
  | SourceBase & {
    readonly _tag: "Scanned"
    readonly serverVersion: string | null
    readonly datasets: ReadonlyArray<RawDataset>
    readonly verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
    /** Lineage-only sources (dbt): edges between dataset ids, stored with origin `dbt`. */
    readonly edges?: ReadonlyArray<RawEdge>
    /** Fingerprint of the whole metadata and the classifier version (see `sourceFingerprints`). */
    readonly rawFingerprint: string
  }
  | SourceBase & {
    /** Same metadata and classifier as the last successful scan: only estimates and reachability are refreshed. */
    readonly _tag: "Unchanged"
    readonly serverVersion: string | null
    readonly estimates: ReadonlyArray<
      { readonly id: string; readonly estimate: number | null; readonly source: string }
    >
  }
  | SourceBase & {
    readonly _tag: "Failed"
    readonly status: "unreachable" | "error"
    readonly errorCode: string
    /** Only a message that has been through `redact` (services/Redact.ts) can be stored. */
    readonly errorMessage: RedactedText
  }

export interface ScanSummary {
  readonly scanId: number
  readonly changes: number
  readonly added: number
  readonly dropped: number
  readonly changed: number
  readonly unchanged: number
  readonly reclassified: number
  /** Columns flagged personal, special or criminal per source, after this scan (overrides applied). */
  readonly personalBySource: Readonly<Record<string, number>>
}

const fingerprint = (ds: RawDataset, verdicts: ReadonlyArray<ColumnVerdict>): string => {
  const h = createHash("sha1")
  h.update(`${ds.kind}\u0001${ds.comment ?? ""}\u0001`)
  ds.columns.forEach((c, i) => {
    const v = verdicts[i]!
    h.update(
      `${c.name}\u0002${c.type}\u0002${c.nullable ? 1 : 0}\u0002${c.comment ?? ""}\u0002${
        c.isPrimaryKey ? 1 : 0
      }\u0002${
        c.references ? `${c.references.schema}.${c.references.table}.${c.references.column}` : ""
      }\u0002${v.value}\u0002${v.rule}\u0002${v.confidence}\u0002${v.category ?? ""}\u0003`
    )
  })
  for (const d of ds.dependsOn) h.update(`${d.schema}.${d.name};`)
  return h.digest("base64")
}

const colRef = (sourceId: string, c: RawColumn): string | null =>
  c.references ? columnId(datasetId(sourceId, c.references.schema, c.references.table), c.references.column) : null

/** Reads only. */
export class StoreReader extends Context.Tag("catalog/StoreReader")<StoreReader, {
  readonly lastScan: Effect.Effect<ScanRow | null, SqlError.SqlError>
  /** Changes whenever another connection commits (a scan, a correction): a cheap staleness check for caches. */
  readonly dataVersion: Effect.Effect<string, SqlError.SqlError>
  readonly sources: Effect.Effect<ReadonlyArray<SourceRow>, SqlError.SqlError>
  readonly datasets: Effect.Effect<
    ReadonlyArray<
      DatasetRow & {
        readonly columns: number
        readonly personal: number
        readonly special: number
        readonly criminal: number
      }
    >,
    SqlError.SqlError
  >
  readonly dataset: (id: string) => Effect.Effect<DatasetRow | null, SqlError.SqlError>
  readonly columnsOf: (datasetId: string) => Effect.Effect<ReadonlyArray<ColumnRow>, SqlError.SqlError>
  readonly column: (id: string) => Effect.Effect<ColumnRow | null, SqlError.SqlError>
  /** What search needs of the columns of several datasets (no evidence, no sort): one light query. */
  readonly searchColumnsOf: (
    datasetIds: ReadonlyArray<string>
  ) => Effect.Effect<
    ReadonlyArray<
      {
        readonly id: string
        readonly dataset_id: string
        readonly name: string
        readonly type: string
        readonly comment: string | null
        readonly m_value: ClassValue
        readonly m_category: string | null
        readonly o_value: ClassValue | null
      }
    >,
    SqlError.SqlError
  >
  readonly classCounts: Effect.Effect<Array<{ readonly value: ClassValue; readonly n: number }>, SqlError.SqlError>
  /** Every column whose effective class is not `not`, with what the RoPA draft needs. */
  readonly ropaColumns: Effect.Effect<
    ReadonlyArray<
      {
        readonly dataset_id: string
        readonly source_id: string
        readonly schema_name: string
        readonly table_name: string
        readonly kind: string
        readonly name: string
        readonly value: ClassValue
        readonly category: string | null
        readonly is_pk: number
        readonly ref: string | null
      }
    >,
    SqlError.SqlError
  >
  readonly annotations: Effect.Effect<ReadonlyArray<AnnotationRow>, SqlError.SqlError>
  readonly doraCells: Effect.Effect<
    ReadonlyArray<
      {
        readonly table_code: string
        readonly row_key: string
        readonly column_code: string
        readonly value: string
        readonly by: string
        readonly at: string
      }
    >,
    SqlError.SqlError
  >
  readonly descriptions: Effect.Effect<
    ReadonlyArray<
      {
        readonly entity_id: string
        readonly text: string
        readonly drafted: number
        readonly by: string
        readonly at: string
      }
    >,
    SqlError.SqlError
  >
  readonly methodCounts: Effect.Effect<
    ReadonlyArray<{ readonly method: string; readonly n: number }>,
    SqlError.SqlError
  >
  readonly overrideStats: Effect.Effect<{ readonly overrides: number; readonly drift: number }, SqlError.SqlError>
  readonly edges: (datasetId?: string) => Effect.Effect<ReadonlyArray<EdgeRow>, SqlError.SqlError>
  readonly changes: (
    opts: { readonly sinceSeq?: number; readonly sinceAt?: string; readonly limit: number }
  ) => Effect.Effect<{ readonly rows: ReadonlyArray<ChangeRow>; readonly total: number }, SqlError.SqlError>
  readonly glossary: Effect.Effect<ReadonlyArray<GlossaryRow>, SqlError.SqlError>
  readonly searchDatasets: (
    match: string,
    limit: number
  ) => Effect.Effect<
    ReadonlyArray<
      {
        readonly id: string
        readonly score: number
        readonly kind: string
        readonly schema_name: string
        readonly name: string
        readonly comment: string | null
      }
    >,
    SqlError.SqlError
  >
  readonly searchGlossary: (
    match: string,
    limit: number
  ) => Effect.Effect<
    ReadonlyArray<{ readonly term: string; readonly definition: string; readonly score: number }>,
    SqlError.SqlError
  >
}>() {}

/** Reads and writes: the CLI's store. */
export class Store extends Context.Tag("catalog/Store")<Store, {
  readonly knownSources: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
  /** The raw fingerprint of each source's last successful scan. */
  readonly sourceFingerprints: Effect.Effect<ReadonlyMap<string, string>, SqlError.SqlError>
  readonly commitScan: (
    input: {
      readonly startedAt: string
      readonly outcomes: ReadonlyArray<SourceOutcome>
      readonly removedSources: ReadonlyArray<string>
      readonly by: string
    }
  ) => Effect.Effect<ScanSummary, SqlError.SqlError>
  readonly setOverride: (
    columnId: string,
    value: ClassValue,
    by: string
  ) => Effect.Effect<{ readonly previous: ClassValue }, SqlError.SqlError>
  readonly clearOverride: (
    columnId: string,
    by: string
  ) => Effect.Effect<{ readonly cleared: boolean; readonly restored: ClassValue }, SqlError.SqlError>
  readonly removeSource: (id: string, by: string) => Effect.Effect<{ readonly datasets: number }, SqlError.SqlError>
  /** A legal-field fill (`suggested`) or confirmation, with a change-log entry attributed to `by`. */
  readonly setAnnotation: (row: AnnotationRow) => Effect.Effect<void, SqlError.SqlError>
}>() {}

const now = () => new Date().toISOString()

export const StoreReaderLive = Layer.effect(
  StoreReader,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const COLS =
      sql`c.id, c.dataset_id, c.position, c.name, c.type, c.nullable, c.comment, c.is_pk, c.ref, c.m_value, c.m_rule, c.m_confidence, c.m_method, c.m_category, c.m_evidence, o.value AS o_value, o.by AS o_by, o.at AS o_at`
    return StoreReader.of({
      lastScan: sql<ScanRow>`SELECT * FROM scans ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
      dataVersion: sql<{ data_version: number }>`PRAGMA data_version`.pipe(
        Effect.map((r) => String(r[0]?.data_version ?? 0))
      ),
      sources: sql<
        SourceRow
      >`SELECT s.*, (SELECT count(*) FROM datasets d WHERE d.source_id = s.id) AS datasets FROM sources s ORDER BY s.id`,
      datasets: sql`
        SELECT d.rowid, d.*, count(c.id) AS columns,
          sum(coalesce(o.value, c.m_value) = 'personal') AS personal,
          sum(coalesce(o.value, c.m_value) = 'special') AS special,
          sum(coalesce(o.value, c.m_value) = 'criminal') AS criminal
        FROM datasets d LEFT JOIN columns c ON c.dataset_id = d.id LEFT JOIN overrides o ON o.column_id = c.id
        GROUP BY d.id ORDER BY d.id`,
      dataset: (id) =>
        sql<DatasetRow>`SELECT rowid, * FROM datasets WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
      columnsOf: (id) =>
        sql<
          ColumnRow
        >`SELECT ${COLS} FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${id} ORDER BY c.position`,
      searchColumnsOf: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : sql`SELECT c.id, c.dataset_id, c.name, c.type, c.comment, c.m_value, c.m_category, o.value AS o_value FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE ${
            sql.in("c.dataset_id", ids)
          }`,
      column: (id) =>
        sql<ColumnRow>`SELECT ${COLS} FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${
          splitColumnId(id).datasetId
        } AND c.name = ${splitColumnId(id).name} AND c.id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
      classCounts: sql<
        { value: ClassValue; n: number }
      >`SELECT coalesce(o.value, c.m_value) AS value, count(*) AS n FROM columns c LEFT JOIN overrides o ON o.column_id = c.id GROUP BY 1`
        .pipe(Effect.map((r) => [...r])),
      ropaColumns: sql`
        SELECT c.dataset_id, d.source_id, d.schema_name, d.name AS table_name, d.kind, c.name, coalesce(o.value, c.m_value) AS value,
          CASE WHEN o.value IS NULL OR o.value = c.m_value THEN c.m_category ELSE o.value END AS category, c.is_pk, c.ref
        FROM columns c JOIN datasets d ON d.id = c.dataset_id LEFT JOIN overrides o ON o.column_id = c.id
        WHERE coalesce(o.value, c.m_value) <> 'not' ORDER BY c.dataset_id, c.position`,
      annotations: sql<AnnotationRow>`SELECT * FROM annotations ORDER BY activity_key, field`,
      doraCells:
        sql`SELECT table_code, row_key, column_code, value, by, at FROM dora_cells ORDER BY table_code, row_key, column_code`,
      descriptions: sql`SELECT entity_id, text, drafted, by, at FROM descriptions ORDER BY entity_id`,
      methodCounts: sql<
        { method: string; n: number }
      >`SELECT CASE WHEN o.value IS NULL THEN c.m_method ELSE 'human' END AS method, count(*) AS n FROM columns c LEFT JOIN overrides o ON o.column_id = c.id GROUP BY 1 ORDER BY 1`,
      overrideStats: sql<
        { overrides: number; drift: number }
      >`SELECT count(*) AS overrides, coalesce(sum(o.value <> c.m_value), 0) AS drift FROM overrides o JOIN columns c ON c.id = o.column_id`
        .pipe(Effect.map((r) => r[0] ?? { overrides: 0, drift: 0 })),
      edges: (id) => {
        const base =
          sql`SELECT l.*, (SELECT count(*) FROM datasets WHERE id = l.from_id) AS from_known, (SELECT count(*) FROM datasets WHERE id = l.to_id) AS to_known FROM lineage l`
        return id === undefined
          ? sql<EdgeRow>`${base} ORDER BY l.from_id, l.to_id, l.origin`
          : sql<EdgeRow>`${base} WHERE l.from_id = ${id} OR l.to_id = ${id} ORDER BY l.from_id, l.to_id, l.origin`
      },
      changes: ({ limit, sinceAt, sinceSeq }) =>
        Effect.gen(function*() {
          const where = sinceSeq !== undefined
            ? sql`WHERE seq > ${sinceSeq}`
            : sinceAt !== undefined
            ? sql`WHERE at > ${sinceAt}`
            : sql``
          const rows = yield* sql<ChangeRow>`SELECT * FROM changes ${where} ORDER BY seq DESC LIMIT ${limit}`
          const total = yield* sql<{ n: number }>`SELECT count(*) AS n FROM changes ${where}`
          return { rows, total: total[0]?.n ?? 0 }
        }),
      glossary: sql<GlossaryRow>`SELECT * FROM glossary ORDER BY term COLLATE NOCASE`,
      // Rank only (FTS5's `rank` with column weights: name > column names > comments); snippets are
      // made by the Reader for the few rows kept, not by SQLite for every match.
      searchDatasets: (match, limit) =>
        sql<{ id: string; score: number; kind: string; schema_name: string; name: string; comment: string | null }>`
          SELECT d.id, -s.rank AS score, d.kind, d.schema_name, d.name, d.comment
          FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH ${match} AND rank MATCH 'bm25(10.0, 4.0, 1.0)' ORDER BY rank LIMIT ${limit}) s
          JOIN datasets d ON d.rowid = s.rowid ORDER BY s.rank`,
      searchGlossary: (match, limit) =>
        sql<{ term: string; definition: string; score: number }>`
          SELECT g.term, g.definition, -bm25(glossary_fts, 10.0, 1.0) AS score FROM glossary_fts JOIN glossary g ON g.rowid = glossary_fts.rowid
          WHERE glossary_fts MATCH ${match} ORDER BY bm25(glossary_fts, 10.0, 1.0) LIMIT ${limit}`
    })
  })
)

export const StoreLive = Layer.effect(
  Store,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const raw = yield* NodeSqliteClient

    const commitScan: Store["Type"]["commitScan"] = ({ by, outcomes, removedSources, startedAt }) =>
      sql.withTransaction(raw.withDb((db) => {
        const at = now()
        const scanRes = db.prepare(
          "INSERT INTO scans (started_at, finished_at, sources_total, sources_ok, changes) VALUES (?, ?, ?, ?, 0)"
        )
          .run(startedAt, at, outcomes.length, outcomes.filter((o) => o._tag !== "Failed").length)
        const scanId = Number(scanRes.lastInsertRowid)
        const logStmt = db.prepare(
          "INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (?, ?, ?, ?, ?, ?, ?)"
        )
        let changes = 0
        const log = (
          kind: string,
          entity: string,
          source: string | null,
          detail: object,
          who: string | null = null
        ) => {
          logStmt.run(at, scanId, kind, entity, source, JSON.stringify(detail), who)
          changes++
        }
        let added = 0, dropped = 0, changed = 0, unchanged = 0, reclassified = 0

        const delCols = db.prepare("DELETE FROM columns WHERE dataset_id = ?")
        const delFts = db.prepare("DELETE FROM search_fts WHERE rowid = ?")
        const delDs = db.prepare("DELETE FROM datasets WHERE id = ?")
        const insDs = db.prepare(
          "INSERT INTO datasets (id, source_id, schema_name, name, kind, comment, row_estimate, row_estimate_source, fingerprint, first_seen_at, scanned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        const updDs = db.prepare(
          "UPDATE datasets SET kind = ?, comment = ?, row_estimate = ?, row_estimate_source = ?, fingerprint = ?, scanned_at = ? WHERE id = ?"
        )
        const updEst = db.prepare(
          "UPDATE datasets SET row_estimate = ?, row_estimate_source = ?, scanned_at = ? WHERE id = ?"
        )
        const insCol = db.prepare(
          "INSERT INTO columns (id, dataset_id, position, name, type, nullable, comment, is_pk, ref, m_value, m_rule, m_confidence, m_method, m_category, m_evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        const insFts = db.prepare("INSERT INTO search_fts (rowid, title, columns, body) VALUES (?, ?, ?, ?)")
        const setFingerprint = db.prepare("UPDATE sources SET raw_fingerprint = ? WHERE id = ?")
        const selCols = db.prepare("SELECT id, name, type, m_value, m_rule FROM columns WHERE dataset_id = ?")
        const upSource = db.prepare(
          `INSERT INTO sources (id, kind, driver, label, region, user_authored, status, error_code, error_message, server_version, last_attempt_at, last_ok_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, driver = excluded.driver, label = excluded.label, region = excluded.region,
            user_authored = excluded.user_authored, status = excluded.status, error_code = excluded.error_code, error_message = excluded.error_message,
            server_version = coalesce(excluded.server_version, sources.server_version), last_attempt_at = excluded.last_attempt_at,
            last_ok_at = coalesce(excluded.last_ok_at, sources.last_ok_at)`
        )

        const dropDataset = (id: string, rowid: number, source: string) => {
          delCols.run(id)
          delFts.run(rowid)
          delDs.run(id)
          dropped++
          log("dataset.dropped", id, source, {})
        }

        for (const sid of removedSources) {
          const rows = db.prepare("SELECT id, rowid FROM datasets WHERE source_id = ?").all(sid) as Array<
            { id: string; rowid: number }
          >
          for (const r of rows) dropDataset(r.id, r.rowid, sid)
          db.prepare("DELETE FROM lineage WHERE source_id = ? AND origin <> 'user'").run(sid)
          db.prepare("DELETE FROM sources WHERE id = ?").run(sid)
          log("source.removed", sid, sid, { datasets: rows.length, reason: "no longer in catalog.yml" }, by)
        }

        // Lineage-only sources last, so that their edges resolve against this scan's datasets.
        const lineageOnly = (o: SourceOutcome) => (o._tag === "Scanned" && o.edges !== undefined ? 1 : 0)
        for (const o of [...outcomes].sort((a, b) => lineageOnly(a) - lineageOnly(b))) {
          if (o._tag === "Failed") {
            upSource.run(
              o.id,
              o.kind,
              o.driver,
              o.label,
              o.region,
              o.userAuthored ? 1 : 0,
              o.status,
              o.errorCode,
              o.errorMessage,
              null,
              at,
              null
            )
            continue
          }
          if (o._tag === "Unchanged") {
            upSource.run(
              o.id,
              o.kind,
              o.driver,
              o.label,
              o.region,
              o.userAuthored ? 1 : 0,
              "ok",
              null,
              null,
              o.serverVersion,
              at,
              at
            )
            const known = new Map(
              (db.prepare("SELECT id, row_estimate, row_estimate_source FROM datasets WHERE source_id = ?").all(
                o.id
              ) as Array<{ id: string; row_estimate: number | null; row_estimate_source: string }>).map((
                r
              ) => [r.id, r])
            )
            for (const e of o.estimates) {
              const k = known.get(e.id)
              if (k && (k.row_estimate !== e.estimate || k.row_estimate_source !== e.source)) {
                updEst.run(e.estimate, e.source, at, e.id)
              }
            }
            unchanged += o.estimates.length
            continue
          }
          const isNewSource = db.prepare("SELECT 1 FROM sources WHERE id = ?").get(o.id) === undefined
          upSource.run(
            o.id,
            o.kind,
            o.driver,
            o.label,
            o.region,
            o.userAuthored ? 1 : 0,
            "ok",
            null,
            null,
            o.serverVersion,
            at,
            at
          )
          setFingerprint.run(o.rawFingerprint, o.id)
          if (isNewSource) log("source.added", o.id, o.id, { kind: o.kind })
          const previous = new Map<
            string,
            { rowid: number; fingerprint: string; row_estimate: number | null; row_estimate_source: string }
          >()
          for (
            const r of db.prepare(
              "SELECT rowid, id, fingerprint, row_estimate, row_estimate_source FROM datasets WHERE source_id = ?"
            ).all(o.id) as Array<
              {
                rowid: number
                id: string
                fingerprint: string
                row_estimate: number | null
                row_estimate_source: string
              }
            >
          ) {
            previous.set(r.id, r)
          }
          const seen = new Set<string>()
          o.datasets.forEach((ds, i) => {
            const verdicts = o.verdicts[i]!
            const id = datasetId(o.id, ds.schema, ds.name)
            if (seen.has(id)) return
            seen.add(id)
            const fp = fingerprint(ds, verdicts)
            const prev = previous.get(id)
            if (prev && prev.fingerprint === fp) {
              unchanged++
              if (prev.row_estimate !== ds.rowEstimate || prev.row_estimate_source !== ds.rowEstimateSource) {
                updEst.run(ds.rowEstimate, ds.rowEstimateSource, at, id)
              }
              return
            }
            let rowid: number
            if (prev) {
              changed++
              const before = new Map(
                (selCols.all(id) as Array<
                  { id: string; name: string; type: string; m_value: ClassValue; m_rule: string }
                >).map((c) => [c.name, c])
              )
              const after = new Set(ds.columns.map((c) => c.name))
              ds.columns.forEach((c, j) => {
                const b = before.get(c.name)
                const cid = columnId(id, c.name)
                const v = verdicts[j]!
                if (!b) log("column.added", cid, o.id, { type: c.type, classification: v.value })
                else {
                  if (b.type !== c.type) log("column.type_changed", cid, o.id, { from: b.type, to: c.type })
                  if (b.m_value !== v.value) {
                    reclassified++
                    log("column.reclassified", cid, o.id, { from: b.m_value, to: v.value, rule: v.rule, by: "scan" })
                  }
                }
              })
              for (const [name, b] of before) if (!after.has(name)) log("column.dropped", b.id, o.id, { type: b.type })
              delCols.run(id)
              delFts.run(prev.rowid)
              updDs.run(ds.kind, ds.comment, ds.rowEstimate, ds.rowEstimateSource, fp, at, id)
              rowid = prev.rowid
            } else {
              added++
              const personal = verdicts.filter((v) => v.value !== "not").length
              log("dataset.added", id, o.id, { kind: ds.kind, columns: ds.columns.length, personal })
              rowid = Number(
                insDs.run(
                  id,
                  o.id,
                  ds.schema,
                  ds.name,
                  ds.kind,
                  ds.comment,
                  ds.rowEstimate,
                  ds.rowEstimateSource,
                  fp,
                  at,
                  at
                ).lastInsertRowid
              )
            }
            const names: Array<string> = []
            const comments: Array<string> = ds.comment ? [ds.comment] : []
            ds.columns.forEach((c, j) => {
              const v = verdicts[j]!
              insCol.run(
                columnId(id, c.name),
                id,
                c.position,
                c.name,
                c.type,
                c.nullable ? 1 : 0,
                c.comment,
                c.isPrimaryKey ? 1 : 0,
                colRef(o.id, c),
                v.value,
                v.rule,
                v.confidence,
                v.method,
                v.category,
                JSON.stringify(v.evidence)
              )
              const words = searchWords(c.name)
              names.push(c.name === words ? c.name : `${c.name} ${words}`)
              if (c.comment) comments.push(c.comment)
            })
            insFts.run(rowid, `${ds.schema} ${ds.name} ${searchWords(ds.name)}`, names.join(" "), comments.join(" "))
          })
          for (const [id, prev] of previous) if (!seen.has(id)) dropDataset(id, prev.rowid, o.id)

          // Scan and dbt lineage is regenerated: stale edges disappear, user edges are never touched.
          const origin = o.edges !== undefined ? "dbt" : "scan"
          const oldEdges = new Set(
            (db.prepare("SELECT id FROM lineage WHERE source_id = ? AND origin = ?").all(o.id, origin) as Array<
              { id: string }
            >).map((r) => r.id)
          )
          const insEdge = db.prepare(
            "INSERT OR IGNORE INTO lineage (id, from_id, to_id, origin, source_id, created_at, by) VALUES (?, ?, ?, ?, ?, ?, NULL)"
          )
          const delEdge = db.prepare("DELETE FROM lineage WHERE id = ?")
          const newEdges = new Set<string>()
          const addEdge = (from: string, to: string) => {
            const eid = edgeId(from, to, origin)
            if (newEdges.has(eid)) return
            newEdges.add(eid)
            if (!oldEdges.has(eid)) insEdge.run(eid, from, to, origin, o.id, at)
          }
          for (const ds of o.datasets) {
            const to = datasetId(o.id, ds.schema, ds.name)
            for (const dep of ds.dependsOn) addEdge(datasetId(o.id, dep.schema, dep.name), to)
          }
          if (o.edges !== undefined) {
            // Manifest names may differ in case from the scanned ones (Snowflake upper-cases); resolve to the scanned id.
            const known = new Map(
              (db.prepare("SELECT id FROM datasets").all() as Array<{ id: string }>).map((
                r
              ) => [r.id.toLowerCase(), r.id])
            )
            const resolve = (id: string) => known.get(id.toLowerCase()) ?? id
            for (const e of o.edges) addEdge(resolve(e.from), resolve(e.to))
          }
          for (const eid of oldEdges) if (!newEdges.has(eid)) delEdge.run(eid)
        }
        db.prepare("UPDATE scans SET changes = ? WHERE id = ?").run(changes, scanId)
        const personalBySource: Record<string, number> = {}
        for (
          const r of db.prepare(
            `SELECT d.source_id AS s, count(*) AS n FROM columns c JOIN datasets d ON d.id = c.dataset_id
          LEFT JOIN overrides o ON o.column_id = c.id WHERE coalesce(o.value, c.m_value) <> 'not' GROUP BY 1`
          ).all() as Array<{ s: string; n: number }>
        ) personalBySource[r.s] = r.n
        return { scanId, changes, added, dropped, changed, unchanged, reclassified, personalBySource }
      }))

    const setOverride: Store["Type"]["setOverride"] = (cid, value, by) =>
      sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<
          { m_value: ClassValue; o_value: ClassValue | null }
        >`SELECT c.m_value, o.value AS o_value FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${
          splitColumnId(cid).datasetId
        } AND c.name = ${splitColumnId(cid).name} AND c.id = ${cid}`
        const prev = rows[0]
        const previous = prev?.o_value ?? prev?.m_value ?? "not"
        const at = now()
        yield* sql`INSERT INTO overrides (column_id, value, by, at) VALUES (${cid}, ${value}, ${by}, ${at}) ON CONFLICT(column_id) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at`
        if (previous !== value || prev?.o_value === null) {
          yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${at}, NULL, 'column.classified', ${cid}, NULL, ${
            JSON.stringify({ from: previous, to: value, machine: prev?.m_value ?? null })
          }, ${by})`
        }
        return { previous }
      }))

    const clearOverride: Store["Type"]["clearOverride"] = (cid, by) =>
      sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<
          { m_value: ClassValue; o_value: ClassValue | null }
        >`SELECT c.m_value, o.value AS o_value FROM columns c LEFT JOIN overrides o ON o.column_id = c.id WHERE c.dataset_id = ${
          splitColumnId(cid).datasetId
        } AND c.name = ${splitColumnId(cid).name} AND c.id = ${cid}`
        const r = rows[0]
        if (!r || r.o_value === null) return { cleared: false, restored: r?.m_value ?? "not" }
        yield* sql`DELETE FROM overrides WHERE column_id = ${cid}`
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${now()}, NULL, 'column.classification_cleared', ${cid}, NULL, ${
          JSON.stringify({ from: r.o_value, to: r.m_value })
        }, ${by})`
        return { cleared: true, restored: r.m_value }
      }))

    const removeSource: Store["Type"]["removeSource"] = (id, by) =>
      sql.withTransaction(Effect.gen(function*() {
        const n = yield* sql<{ n: number }>`SELECT count(*) AS n FROM datasets WHERE source_id = ${id}`
        const datasets = n[0]?.n ?? 0
        yield* sql`DELETE FROM search_fts WHERE rowid IN (SELECT rowid FROM datasets WHERE source_id = ${id})`
        yield* sql`DELETE FROM columns WHERE dataset_id IN (SELECT id FROM datasets WHERE source_id = ${id})`
        yield* sql`DELETE FROM datasets WHERE source_id = ${id}`
        yield* sql`DELETE FROM lineage WHERE source_id = ${id} AND origin <> 'user'`
        const existed = yield* sql`DELETE FROM sources WHERE id = ${id} RETURNING id`
        if (existed.length > 0 || datasets > 0) {
          yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${now()}, NULL, 'source.removed', ${id}, ${id}, ${
            JSON.stringify({ datasets })
          }, ${by})`
        }
        return { datasets }
      }))

    const knownSources = sql<{ id: string }>`SELECT id FROM sources ORDER BY id`.pipe(
      Effect.map((r) => r.map((x) => x.id))
    )
    const sourceFingerprints = sql<
      { id: string; raw_fingerprint: string | null }
    >`SELECT id, raw_fingerprint FROM sources`.pipe(
      Effect.map((r) =>
        new Map(r.flatMap((x) => (x.raw_fingerprint !== null ? [[x.id, x.raw_fingerprint] as const] : [])))
      )
    )
    const setAnnotation: Store["Type"]["setAnnotation"] = (row) =>
      sql.withTransaction(Effect.gen(function*() {
        const prev = yield* sql<
          { value: string; status: string }
        >`SELECT value, status FROM annotations WHERE activity_key = ${row.activity_key} AND field = ${row.field}`
        yield* sql`INSERT INTO annotations (activity_key, field, value, status, by, at, confirmed_by, confirmed_at, basis)
          VALUES (${row.activity_key}, ${row.field}, ${row.value}, ${row.status}, ${row.by}, ${row.at}, ${row.confirmed_by}, ${row.confirmed_at}, ${row.basis})
          ON CONFLICT(activity_key, field) DO UPDATE SET value = excluded.value, status = excluded.status, by = excluded.by, at = excluded.at,
            confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at, basis = excluded.basis`
        const detail = { field: row.field, value: row.value, status: row.status, previous: prev[0] ?? null }
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${row.at}, NULL, ${
          row.status === "confirmed" ? "ropa.field_confirmed" : "ropa.field_filled"
        }, ${`${row.activity_key}.${row.field}`}, NULL, ${JSON.stringify(detail)}, ${row.by})`
      }))

    return Store.of({
      knownSources,
      sourceFingerprints,
      setAnnotation,
      commitScan,
      setOverride,
      clearOverride,
      removeSource
    })
  })
)

export type { DatasetKind }
