/**
 * Resources: the store's rows as the shapes every surface serialises (Dataset, Column, LineageEdge,
 * ChangeEntry, SourceState…), the classification a column shows, the row-count display, the staleness
 * tier of a source, and the byte budget of list results.
 */
import type {
  ChangeEntry,
  ClassCounts,
  Classification,
  Column,
  Coverage,
  Dataset,
  DatasetSummary,
  LineageEdge,
  SourceState,
  StalenessTier
} from "../../domain/Catalog.js"
import { coverageLine } from "../../domain/Catalog.js"
import type { GlossaryTerm } from "../../domain/Compliance.js"
import type { ClassValue } from "../../domain/Metadata.js"
import { redact } from "../Redact.js"
import type { RopaColumn, RopaSource } from "../Ropa.js"
import type {
  ChangeRow,
  ColumnRow,
  DatasetRow,
  DatasetSummaryRow,
  EdgeRow,
  GlossaryRow,
  RopaColumnRow,
  SourceRow
} from "../Store.js"
import { summarizeChange } from "./changes.js"

/** List results are cut to about this many bytes of JSON (with returned/total/truncated). */
export const maxListBytes = 100_000

/** The longest prefix of `items` whose JSON stays within `maxListBytes`. */
export const boundBytes = <A>(items: ReadonlyArray<A>, budget = maxListBytes): Array<A> => {
  const out: Array<A> = []
  let size = 2
  for (const item of items) {
    size += JSON.stringify(item).length + 1
    if (size > budget) break
    out.push(item)
  }
  return out
}

/** Staleness thresholds (hours): fresh < 24 h ≤ stale-warn < 7 d ≤ stale-loud. */
export const staleness = { warnHours: 24, loudHours: 24 * 7 } as const

export const highestClass = (
  c: ClassCounts
): ClassValue => (c.criminal > 0 ? "criminal" : c.special > 0 ? "special" : c.personal > 0 ? "personal" : "not")

export const rowCountDisplay = (estimate: number | null): string =>
  estimate === null
    ? "unknown (no planner estimate)"
    : `~${Math.round(estimate).toLocaleString("en-US")} rows (estimate)`

export const tierOf = (lastOk: string | null, now: Date): StalenessTier => {
  if (lastOk === null) return "never"
  const hours = (now.getTime() - Date.parse(lastOk)) / 3_600_000
  return hours < staleness.warnHours ? "fresh" : hours < staleness.loudHours ? "stale-warn" : "stale-loud"
}

/** What a column shows: the scan's verdict, or the human override over it (with the verdict kept beside). */
export const classificationOf = (c: ColumnRow): Classification => {
  const machine = {
    value: c.m_value,
    rule: c.m_rule,
    confidence: c.m_confidence,
    method: c.m_method,
    category: c.m_category,
    evidence: JSON.parse(c.m_evidence) as Array<string>
  }
  if (c.o_value === null) {
    return {
      value: c.m_value,
      rule: c.m_rule,
      confidence: c.m_confidence,
      method: c.m_method,
      category: c.m_category,
      overridden: false,
      machine,
      drift: false
    }
  }
  return {
    value: c.o_value,
    rule: "human-override",
    confidence: 1,
    method: "human",
    category: c.o_value === c.m_value
      ? c.m_category
      : c.o_value === "not"
      ? null
      : c.o_value === "special"
      ? "special"
      : c.o_value === "criminal"
      ? "criminal"
      : "personal",
    overridden: true,
    ...(c.o_by !== null ? { by: c.o_by } : {}),
    ...(c.o_at !== null ? { at: c.o_at } : {}),
    machine,
    drift: c.o_value !== c.m_value
  }
}

export const toColumn = (c: ColumnRow): Column => ({
  id: c.id,
  name: c.name,
  position: c.position,
  type: c.type,
  nullable: c.nullable === 1,
  comment: c.comment,
  primaryKey: c.is_pk === 1,
  references: c.ref,
  classification: classificationOf(c)
})

export const toEdge = (e: EdgeRow): LineageEdge => ({
  id: e.id,
  from: e.from_id,
  to: e.to_id,
  origin: e.origin,
  resolvable: e.from_known > 0 && e.to_known > 0,
  createdAt: e.created_at,
  ...(e.by !== null ? { by: e.by } : {})
})

export const toChange = (r: ChangeRow): ChangeEntry => {
  const detail = JSON.parse(r.detail) as Record<string, unknown>
  return {
    seq: r.seq,
    at: r.at,
    kind: r.kind,
    entity: r.entity,
    source: r.source_id,
    summary: summarizeChange(r, detail),
    detail,
    ...(r.by !== null ? { by: r.by } : {}),
    scanId: r.scan_id
  }
}

/** A row of the dataset list: the dataset with its column count and its columns per class. */
export type DatasetListRow = DatasetSummaryRow

/** What names a dataset, first in every shape that shows one. */
const datasetHead = (d: Pick<DatasetRow, "id" | "source_id" | "schema_name" | "name" | "kind">) => ({
  id: d.id,
  source: d.source_id,
  schema: d.schema_name,
  name: d.name,
  kind: d.kind
})

/** A dataset's row count: the planner's estimate, how it reads, and where it came from. */
const rowCountOf = (d: Pick<DatasetRow, "row_estimate" | "row_estimate_source">) => ({
  estimate: d.row_estimate,
  display: rowCountDisplay(d.row_estimate),
  source: d.row_estimate_source
})

export const toDatasetSummary = (d: DatasetListRow): DatasetSummary => {
  const classes = {
    personal: d.personal ?? 0,
    special: d.special ?? 0,
    criminal: d.criminal ?? 0,
    not: d.columns - (d.personal ?? 0) - (d.special ?? 0) - (d.criminal ?? 0)
  }
  return {
    ...datasetHead(d),
    rowCount: rowCountOf(d),
    columnCount: d.columns,
    classes,
    highest: highestClass(classes)
  }
}

/** One dataset in full: its columns and the lineage edges that touch it. */
export const toDataset = (d: DatasetRow, cols: ReadonlyArray<Column>, edges: ReadonlyArray<LineageEdge>): Dataset => {
  const classes: Record<ClassValue, number> = { personal: 0, special: 0, criminal: 0, not: 0 }
  for (const c of cols) classes[c.classification.value]++
  return {
    ...datasetHead(d),
    comment: d.comment,
    rowCount: rowCountOf(d),
    owners: [],
    classes,
    columns: cols,
    lineage: { upstream: edges.filter((e) => e.to === d.id), downstream: edges.filter((e) => e.from === d.id) },
    firstSeenAt: d.first_seen_at,
    scannedAt: d.scanned_at
  }
}

/** A source as catalog.yml declares it (what the reader is told of it). */
export interface ConfiguredSource {
  readonly id: string
  readonly kind: string
  readonly driver: string
  readonly label?: string | undefined
  readonly region?: string | undefined
  readonly role?: string | undefined
}

/**
 * A source's state: what catalog.yml says of it (when it is configured) over what its last scan
 * recorded (when it was scanned), and its staleness at `now`.
 */
export const toSourceState = (
  id: string,
  r: SourceRow | undefined,
  conf: ConfiguredSource | undefined,
  now: Date
): SourceState => ({
  id,
  kind: conf?.kind ?? r?.kind ?? "unknown",
  driver: conf?.driver ?? r?.driver ?? "unknown",
  label: conf?.label ?? r?.label ?? null,
  region: conf?.region ?? r?.region ?? null,
  userAuthored: r ? r.user_authored === 1 : false,
  reachable: r?.status === "ok",
  status: r ? r.status : "never",
  // Redacted again on the way out: a catalog written before redaction existed may still hold a secret.
  error: r && r.error_code !== null ? { code: r.error_code, message: redact(r.error_message ?? "") } : null,
  serverVersion: r?.server_version ?? null,
  lastAttemptAt: r?.last_attempt_at ?? null,
  lastScannedAt: r?.last_ok_at ?? null,
  staleness: tierOf(r?.last_ok_at ?? null, now),
  datasets: r?.datasets ?? 0
})

/** Which sources were reached, which not, and the one line that says so. */
export const coverageOf = (states: ReadonlyArray<SourceState>): Coverage => {
  const reached = states.filter((s) => s.status === "ok").map((s) => s.id)
  const missing = states.filter((s) => s.status !== "ok").map((s) => s.id)
  const line = coverageLine(
    states.length,
    states.filter((s) => s.status !== "ok").map((s) => ({
      id: s.id,
      reason: s.error ? s.error.code : "never scanned"
    }))
  )
  return { complete: states.length > 0 && missing.length === 0, reached, missing, line }
}

export const toGlossaryTerm = (g: GlossaryRow): GlossaryTerm => ({
  term: g.term,
  definition: g.definition,
  datasets: JSON.parse(g.datasets) as Array<string>,
  updatedAt: g.updated_at,
  ...(g.by !== null ? { by: g.by } : {})
})

/** A personal-data column as the RoPA draft reads it. */

export const toRopaColumn = (c: RopaColumnRow): RopaColumn => ({
  datasetId: c.dataset_id,
  source: c.source_id,
  schema: c.schema_name,
  table: c.table_name,
  kind: c.kind,
  column: c.name,
  value: c.value,
  category: c.category,
  primaryKey: c.is_pk === 1,
  ref: c.ref
})

/** A source as the RoPA draft reads it: catalog.yml's label, region and role over the scan's. */
export const toRopaSource = (s: SourceRow, conf: ConfiguredSource | undefined): RopaSource => ({
  id: s.id,
  kind: s.kind,
  label: conf?.label ?? s.label,
  region: conf?.region ?? s.region,
  role: conf?.role ?? null
})
