/**
 * Committing a scan: one transaction that writes every source's outcome (datasets, columns, search
 * documents, scan and dbt lineage), drops what disappeared, and records each change through the
 * ChangeLog. Bulk work runs on the raw node:sqlite connection with prepared statements (hundreds of
 * thousands of column rows on a large catalog); the steps below are the parts of that one write.
 */
import { type SqlClient, SqlError } from "@effect/sql"
import { DateTime, Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import type { DatabaseSync } from "node:sqlite"
import type { ColumnVerdict, RawColumn, RawDataset } from "../../domain/Metadata.js"
import type { ChangeEntryInput, ChangeLog } from "../../services/ChangeLog.js"
import {
  columnId,
  datasetId,
  edgeId,
  ScanRow,
  type ScanSummary,
  searchWords,
  type SourceOutcome,
  type Store,
  type StoreError,
  type StoreReader
} from "../../services/Store.js"
import type { NodeSqliteClient } from "../NodeSqlite.js"
import { decodeRowsSync, findOne, Id, RowDecodeFailure } from "./rows.js"

type Scanned = Extract<SourceOutcome, { readonly _tag: "Scanned" }>
type Unchanged = Extract<SourceOutcome, { readonly _tag: "Unchanged" }>
type Failed = Extract<SourceOutcome, { readonly _tag: "Failed" }>

/** Runs `f` on the raw connection; a row that does not decode stays the coded error it is. */
export const onRawDb = <A>(raw: NodeSqliteClient["Type"], f: (db: DatabaseSync) => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: () => f(raw.db),
    catch: (cause) =>
      cause instanceof RowDecodeFailure
        ? cause.error
        : new SqlError.SqlError({
          cause,
          message: `SQLite: ${cause instanceof Error ? cause.message : String(cause)}`
        })
  })

/** What decides whether a dataset changed: its whole metadata and its columns' verdicts. */
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

// ── rows the scan reads back ─────────────────────────────────────────────────────────────────
const DatasetKey = Schema.Struct({ id: Schema.String, rowid: Schema.Number })
const Estimate = Schema.Struct({
  id: Schema.String,
  row_estimate: Schema.NullOr(Schema.Number),
  row_estimate_source: Schema.String
})
const Previous = Schema.Struct({ ...Estimate.fields, rowid: Schema.Number, fingerprint: Schema.String })
const PreviousColumn = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  m_value: Schema.String,
  m_rule: Schema.String
})
const PersonalCount = Schema.Struct({ s: Schema.String, n: Schema.Number })
const decode = {
  datasetKeys: decodeRowsSync("datasets", DatasetKey),
  estimates: decodeRowsSync("datasets", Estimate),
  previous: decodeRowsSync("datasets", Previous),
  columns: decodeRowsSync("columns", PreviousColumn),
  ids: decodeRowsSync("lineage", Id),
  datasetIds: decodeRowsSync("datasets", Id),
  personal: decodeRowsSync("columns", PersonalCount)
}

/** The scan's prepared statements, made once per commit. */
const prepareStatements = (db: DatabaseSync) => ({
  insScan: db.prepare(
    "INSERT INTO scans (started_at, finished_at, sources_total, sources_ok, changes) VALUES (?, ?, ?, ?, 0)"
  ),
  delCols: db.prepare("DELETE FROM columns WHERE dataset_id = ?"),
  delFts: db.prepare("DELETE FROM search_fts WHERE rowid = ?"),
  delDs: db.prepare("DELETE FROM datasets WHERE id = ?"),
  insDs: db.prepare(
    "INSERT INTO datasets (id, source_id, schema_name, name, kind, comment, row_estimate, row_estimate_source, fingerprint, first_seen_at, scanned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
  ),
  updDs: db.prepare(
    "UPDATE datasets SET kind = ?, comment = ?, row_estimate = ?, row_estimate_source = ?, fingerprint = ?, scanned_at = ? WHERE id = ?"
  ),
  updEst: db.prepare("UPDATE datasets SET row_estimate = ?, row_estimate_source = ?, scanned_at = ? WHERE id = ?"),
  insCol: db.prepare(
    "INSERT INTO columns (id, dataset_id, position, name, type, nullable, comment, is_pk, ref, m_value, m_rule, m_confidence, m_method, m_category, m_evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
  ),
  insFts: db.prepare("INSERT INTO search_fts (rowid, title, columns, body) VALUES (?, ?, ?, ?)"),
  setFingerprint: db.prepare("UPDATE sources SET raw_fingerprint = ? WHERE id = ?"),
  selCols: db.prepare("SELECT id, name, type, m_value, m_rule FROM columns WHERE dataset_id = ?"),
  upSource: db.prepare(
    `INSERT INTO sources (id, kind, driver, label, region, user_authored, status, error_code, error_message, server_version, last_attempt_at, last_ok_at, connection_ref, path)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, driver = excluded.driver, label = excluded.label, region = excluded.region,
            connection_ref = excluded.connection_ref, path = excluded.path,
            user_authored = excluded.user_authored, status = excluded.status, error_code = excluded.error_code, error_message = excluded.error_message,
            server_version = coalesce(excluded.server_version, sources.server_version), last_attempt_at = excluded.last_attempt_at,
            last_ok_at = coalesce(excluded.last_ok_at, sources.last_ok_at)`
  ),
  selDatasetKeys: db.prepare("SELECT id, rowid FROM datasets WHERE source_id = ?"),
  delSourceEdges: db.prepare("DELETE FROM lineage WHERE source_id = ? AND origin <> 'user'"),
  delSource: db.prepare("DELETE FROM sources WHERE id = ?"),
  selEstimates: db.prepare("SELECT id, row_estimate, row_estimate_source FROM datasets WHERE source_id = ?"),
  selSourceExists: db.prepare("SELECT 1 FROM sources WHERE id = ?"),
  selPrevious: db.prepare(
    "SELECT rowid, id, fingerprint, row_estimate, row_estimate_source FROM datasets WHERE source_id = ?"
  ),
  selEdgeIds: db.prepare("SELECT id FROM lineage WHERE source_id = ? AND origin = ?"),
  insEdge: db.prepare(
    "INSERT OR IGNORE INTO lineage (id, from_id, to_id, origin, source_id, created_at, by) VALUES (?, ?, ?, ?, ?, ?, NULL)"
  ),
  delEdge: db.prepare("DELETE FROM lineage WHERE id = ?"),
  selDatasetIds: db.prepare("SELECT id FROM datasets"),
  setScanChanges: db.prepare("UPDATE scans SET changes = ? WHERE id = ?"),
  selPersonal: db.prepare(
    `SELECT d.source_id AS s, count(*) AS n FROM columns c JOIN datasets d ON d.id = c.dataset_id
          LEFT JOIN overrides o ON o.column_id = c.id WHERE coalesce(o.value, c.m_value) <> 'not' GROUP BY 1`
  )
})
type Statements = ReturnType<typeof prepareStatements>

/**
 * The synchronous part of a commit: writes every outcome and collects the change-log entries (in the
 * order the changes were made) for the ChangeLog to record in the same transaction.
 */
const writeScan = (
  db: DatabaseSync,
  at: string,
  { by, outcomes, removedSources, startedAt }: Parameters<Store["Type"]["commitScan"]>[0]
) => {
  const st = prepareStatements(db)
  const scanId = Number(
    st.insScan.run(startedAt, at, outcomes.length, outcomes.filter((o) => o._tag !== "Failed").length).lastInsertRowid
  )
  const entries: Array<ChangeEntryInput> = []
  const log = (kind: string, entity: string, source: string | null, detail: object, who: string | null = null) => {
    entries.push({ at, scanId, kind, entity, sourceId: source, detail, by: who })
  }
  const counts = { added: 0, dropped: 0, changed: 0, unchanged: 0, reclassified: 0 }

  const dropDataset = (id: string, rowid: number, source: string) => {
    st.delCols.run(id)
    st.delFts.run(rowid)
    st.delDs.run(id)
    counts.dropped++
    log("dataset.dropped", id, source, {})
  }

  const upsertSource = (
    o: SourceOutcome,
    state: {
      readonly status: string
      readonly errorCode: string | null
      readonly errorMessage: string | null
      readonly serverVersion: string | null
      readonly ok: boolean
    }
  ) =>
    st.upSource.run(
      o.id,
      o.kind,
      o.driver,
      o.label,
      o.region,
      o.userAuthored ? 1 : 0,
      state.status,
      state.errorCode,
      state.errorMessage,
      state.serverVersion,
      at,
      state.ok ? at : null,
      o.connectionRef ?? null,
      o.path ?? null
    )

  /** A source no longer in catalog.yml leaves with its datasets and its scan/dbt edges. */
  const removeSource = (sid: string) => {
    const rows = decode.datasetKeys(st.selDatasetKeys.all(sid))
    for (const r of rows) dropDataset(r.id, r.rowid, sid)
    st.delSourceEdges.run(sid)
    st.delSource.run(sid)
    log("source.removed", sid, sid, { datasets: rows.length, reason: "no longer in catalog.yml" }, by)
  }

  /** An unreachable or failing source keeps its datasets; only its state is recorded. */
  const recordFailed = (o: Failed) =>
    upsertSource(o, {
      status: o.status,
      errorCode: o.errorCode,
      errorMessage: o.errorMessage,
      serverVersion: null,
      ok: false
    })

  /** Same metadata as last time: only the row estimates that moved are written. */
  const refreshEstimates = (o: Unchanged) => {
    upsertSource(o, { status: "ok", errorCode: null, errorMessage: null, serverVersion: o.serverVersion, ok: true })
    const known = new Map(decode.estimates(st.selEstimates.all(o.id)).map((r) => [r.id, r]))
    for (const e of o.estimates) {
      const k = known.get(e.id)
      if (k && (k.row_estimate !== e.estimate || k.row_estimate_source !== e.source)) {
        st.updEst.run(e.estimate, e.source, at, e.id)
      }
    }
    counts.unchanged += o.estimates.length
  }

  /** A changed dataset: logs its column changes against the stored ones, then clears them for rewriting. */
  const diffColumns = (
    o: Scanned,
    id: string,
    ds: RawDataset,
    verdicts: ReadonlyArray<ColumnVerdict>
  ) => {
    const before = new Map(decode.columns(st.selCols.all(id)).map((c) => [c.name, c]))
    const after = new Set(ds.columns.map((c) => c.name))
    ds.columns.forEach((c, j) => {
      const b = before.get(c.name)
      const cid = columnId(id, c.name)
      const v = verdicts[j]!
      if (!b) log("column.added", cid, o.id, { type: c.type, classification: v.value })
      else {
        if (b.type !== c.type) log("column.type_changed", cid, o.id, { from: b.type, to: c.type })
        if (b.m_value !== v.value) {
          counts.reclassified++
          log("column.reclassified", cid, o.id, { from: b.m_value, to: v.value, rule: v.rule, by: "scan" })
        }
      }
    })
    for (const [name, b] of before) if (!after.has(name)) log("column.dropped", b.id, o.id, { type: b.type })
  }

  /** A dataset's columns and its search document (name, column names and their words, comments). */
  const writeColumns = (
    o: Scanned,
    id: string,
    rowid: number,
    ds: RawDataset,
    verdicts: ReadonlyArray<ColumnVerdict>
  ) => {
    const names: Array<string> = []
    const comments: Array<string> = ds.comment ? [ds.comment] : []
    ds.columns.forEach((c, j) => {
      const v = verdicts[j]!
      st.insCol.run(
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
    st.insFts.run(rowid, `${ds.schema} ${ds.name} ${searchWords(ds.name)}`, names.join(" "), comments.join(" "))
  }

  /** Scan and dbt lineage is regenerated: stale edges disappear, user edges are never touched. */
  const regenerateEdges = (o: Scanned) => {
    const origin = o.edges !== undefined ? "dbt" : "scan"
    const oldEdges = new Set(decode.ids(st.selEdgeIds.all(o.id, origin)).map((r) => r.id))
    const newEdges = new Set<string>()
    const addEdge = (from: string, to: string) => {
      const eid = edgeId(from, to, origin)
      if (newEdges.has(eid)) return
      newEdges.add(eid)
      if (!oldEdges.has(eid)) st.insEdge.run(eid, from, to, origin, o.id, at)
    }
    for (const ds of o.datasets) {
      const to = datasetId(o.id, ds.schema, ds.name)
      for (const dep of ds.dependsOn) addEdge(datasetId(o.id, dep.schema, dep.name), to)
    }
    if (o.edges !== undefined) {
      // Manifest names may differ in case from the scanned ones (Snowflake upper-cases); resolve to the scanned id.
      const known = new Map(decode.datasetIds(st.selDatasetIds.all()).map((r) => [r.id.toLowerCase(), r.id]))
      const resolve = (id: string) => known.get(id.toLowerCase()) ?? id
      for (const e of o.edges) addEdge(resolve(e.from), resolve(e.to))
    }
    for (const eid of oldEdges) if (!newEdges.has(eid)) st.delEdge.run(eid)
  }

  /** A scanned source: each dataset is kept (same fingerprint), rewritten (changed) or added; the rest dropped. */
  const writeScanned = (o: Scanned) => {
    const isNewSource = st.selSourceExists.get(o.id) === undefined
    upsertSource(o, { status: "ok", errorCode: null, errorMessage: null, serverVersion: o.serverVersion, ok: true })
    st.setFingerprint.run(o.rawFingerprint, o.id)
    if (isNewSource) log("source.added", o.id, o.id, { kind: o.kind })
    const previous = new Map(decode.previous(st.selPrevious.all(o.id)).map((r) => [r.id, r]))
    const seen = new Set<string>()
    o.datasets.forEach((ds, i) => {
      const verdicts = o.verdicts[i]!
      const id = datasetId(o.id, ds.schema, ds.name)
      if (seen.has(id)) return
      seen.add(id)
      const fp = fingerprint(ds, verdicts)
      const prev = previous.get(id)
      if (prev && prev.fingerprint === fp) {
        counts.unchanged++
        if (prev.row_estimate !== ds.rowEstimate || prev.row_estimate_source !== ds.rowEstimateSource) {
          st.updEst.run(ds.rowEstimate, ds.rowEstimateSource, at, id)
        }
        return
      }
      let rowid: number
      if (prev) {
        counts.changed++
        diffColumns(o, id, ds, verdicts)
        st.delCols.run(id)
        st.delFts.run(prev.rowid)
        st.updDs.run(ds.kind, ds.comment, ds.rowEstimate, ds.rowEstimateSource, fp, at, id)
        rowid = prev.rowid
      } else {
        counts.added++
        const personal = verdicts.filter((v) => v.value !== "not").length
        log("dataset.added", id, o.id, { kind: ds.kind, columns: ds.columns.length, personal })
        rowid = Number(
          st.insDs.run(
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
      writeColumns(o, id, rowid, ds, verdicts)
    })
    for (const [id, prev] of previous) if (!seen.has(id)) dropDataset(id, prev.rowid, o.id)
    regenerateEdges(o)
  }

  for (const sid of removedSources) removeSource(sid)
  // Lineage-only sources last, so that their edges resolve against this scan's datasets.
  const lineageOnly = (o: SourceOutcome) => (o._tag === "Scanned" && o.edges !== undefined ? 1 : 0)
  for (const o of [...outcomes].sort((a, b) => lineageOnly(a) - lineageOnly(b))) {
    if (o._tag === "Failed") recordFailed(o)
    else if (o._tag === "Unchanged") refreshEstimates(o)
    else writeScanned(o)
  }
  return { scanId, entries, counts, statements: st }
}

/** Closes the scan row with its change count; the personal-data columns per source, overrides applied. */
const finishScan = (st: Statements, scanId: number, changes: number) => {
  st.setScanChanges.run(changes, scanId)
  const personalBySource: Record<string, number> = {}
  for (const r of decode.personal(st.selPersonal.all())) personalBySource[r.s] = r.n
  return personalBySource
}

export const scansReads = (sql: SqlClient.SqlClient) => ({
  lastScan: findOne("scans", ScanRow)(sql`SELECT * FROM scans ORDER BY id DESC LIMIT 1`)
} satisfies Partial<StoreReader["Type"]>)

export const scanWrites = (
  sql: SqlClient.SqlClient,
  raw: NodeSqliteClient["Type"],
  changeLog: ChangeLog["Type"]
) => {
  const commitScan: Store["Type"]["commitScan"] = (input) =>
    sql.withTransaction(Effect.gen(function*() {
      const at = DateTime.formatIso(yield* DateTime.now)
      const { counts, entries, scanId, statements } = yield* onRawDb(raw, (db) => writeScan(db, at, input))
      yield* changeLog.recordAll(entries)
      const personalBySource = yield* onRawDb(raw, () => finishScan(statements, scanId, entries.length))
      return { scanId, changes: entries.length, ...counts, personalBySource } satisfies ScanSummary
    }))

  return { commitScan } satisfies Partial<Store["Type"]>
}
