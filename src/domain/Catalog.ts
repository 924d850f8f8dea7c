/**
 * The read model's resources, as Schemas: the CLI `--json`, the MCP `structuredContent` and the HTTP
 * bodies all encode these same values (ARCHITECTURE.md §4).
 */
import { Schema } from "effect"
import { SealState } from "./Sync.js"

export const ClassValue = Schema.Literal("personal", "special", "criminal", "not")

/** A column's personal-data flag: the effective verdict, with the machine one kept beside it. */
export const Classification = Schema.Struct({
  value: ClassValue,
  rule: Schema.String,
  confidence: Schema.Number,
  method: Schema.String,
  category: Schema.NullOr(Schema.String),
  overridden: Schema.Boolean,
  by: Schema.optional(Schema.String),
  at: Schema.optional(Schema.String),
  /** The scan's own verdict (what `classify clear` returns to). */
  machine: Schema.Struct({
    value: ClassValue,
    rule: Schema.String,
    confidence: Schema.Number,
    method: Schema.String,
    category: Schema.NullOr(Schema.String),
    evidence: Schema.Array(Schema.String)
  }),
  /** A human override that the latest scan disagrees with. */
  drift: Schema.Boolean
})
export type Classification = typeof Classification.Type

export const RowCount = Schema.Struct({
  estimate: Schema.NullOr(Schema.Number),
  display: Schema.String,
  /** Where the figure comes from (`pg_class.reltuples`, `information_schema.TABLES.TABLE_ROWS`, `none`). */
  source: Schema.String
})
export type RowCount = typeof RowCount.Type

export const Column = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  position: Schema.Number,
  type: Schema.String,
  nullable: Schema.Boolean,
  comment: Schema.NullOr(Schema.String),
  primaryKey: Schema.Boolean,
  references: Schema.NullOr(Schema.String),
  classification: Classification
})
export type Column = typeof Column.Type

export const LineageOrigin = Schema.Literal("scan", "dbt", "user")
export const LineageEdge = Schema.Struct({
  id: Schema.String,
  from: Schema.String,
  to: Schema.String,
  origin: LineageOrigin,
  /** False when an endpoint is known only from a manifest and was never scanned. */
  resolvable: Schema.Boolean,
  createdAt: Schema.String,
  by: Schema.optional(Schema.String)
})
export type LineageEdge = typeof LineageEdge.Type

export const LineageList = Schema.Struct({
  dataset: Schema.NullOr(Schema.String),
  returned: Schema.Number,
  total: Schema.Number,
  truncated: Schema.Boolean,
  edges: Schema.Array(LineageEdge)
})
export type LineageList = typeof LineageList.Type

export const ClassCounts = Schema.Struct({
  personal: Schema.Number,
  special: Schema.Number,
  criminal: Schema.Number,
  not: Schema.Number
})
export type ClassCounts = typeof ClassCounts.Type

export const DatasetSummary = Schema.Struct({
  id: Schema.String,
  source: Schema.String,
  schema: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  rowCount: RowCount,
  columnCount: Schema.Number,
  classes: ClassCounts,
  /** The highest class among the columns. */
  highest: ClassValue
})
export type DatasetSummary = typeof DatasetSummary.Type

export const Dataset = Schema.Struct({
  id: Schema.String,
  source: Schema.String,
  schema: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  comment: Schema.NullOr(Schema.String),
  rowCount: RowCount,
  owners: Schema.Array(Schema.String),
  classes: ClassCounts,
  columns: Schema.Array(Column),
  lineage: Schema.Struct({ upstream: Schema.Array(LineageEdge), downstream: Schema.Array(LineageEdge) }),
  firstSeenAt: Schema.String,
  scannedAt: Schema.String
})
export type Dataset = typeof Dataset.Type

export const DatasetList = Schema.Struct({
  returned: Schema.Number,
  total: Schema.Number,
  truncated: Schema.Boolean,
  datasets: Schema.Array(DatasetSummary)
})
export type DatasetList = typeof DatasetList.Type

export const SearchHit = Schema.Struct({
  kind: Schema.Literal("dataset", "column", "glossary"),
  id: Schema.String,
  datasetId: Schema.NullOr(Schema.String),
  title: Schema.String,
  score: Schema.Number,
  why: Schema.String,
  snippet: Schema.String,
  classification: Schema.optional(ClassValue)
})
export type SearchHit = typeof SearchHit.Type

export const SearchResult = Schema.Struct({
  q: Schema.String,
  returned: Schema.Number,
  total: Schema.Number,
  truncated: Schema.Boolean,
  hits: Schema.Array(SearchHit)
})
export type SearchResult = typeof SearchResult.Type

export const ChangeEntry = Schema.Struct({
  seq: Schema.Number,
  at: Schema.String,
  kind: Schema.String,
  entity: Schema.String,
  source: Schema.NullOr(Schema.String),
  summary: Schema.String,
  detail: Schema.Unknown,
  by: Schema.optional(Schema.String),
  scanId: Schema.NullOr(Schema.Number)
})
export type ChangeEntry = typeof ChangeEntry.Type

export const ChangeList = Schema.Struct({
  since: Schema.NullOr(Schema.String),
  returned: Schema.Number,
  total: Schema.Number,
  truncated: Schema.Boolean,
  changes: Schema.Array(ChangeEntry)
})
export type ChangeList = typeof ChangeList.Type

export const StalenessTier = Schema.Literal("fresh", "stale-warn", "stale-loud", "never")
export type StalenessTier = typeof StalenessTier.Type

export const SourceState = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  driver: Schema.String,
  label: Schema.NullOr(Schema.String),
  region: Schema.NullOr(Schema.String),
  userAuthored: Schema.Boolean,
  reachable: Schema.Boolean,
  status: Schema.Literal("ok", "unreachable", "error", "never"),
  error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })),
  serverVersion: Schema.NullOr(Schema.String),
  lastAttemptAt: Schema.NullOr(Schema.String),
  lastScannedAt: Schema.NullOr(Schema.String),
  staleness: StalenessTier,
  datasets: Schema.Number
})
export type SourceState = typeof SourceState.Type

export const Coverage = Schema.Struct({
  complete: Schema.Boolean,
  reached: Schema.Array(Schema.String),
  missing: Schema.Array(Schema.String),
  line: Schema.String
})
export type Coverage = typeof Coverage.Type

export const Status = Schema.Struct({
  scanned: Schema.Boolean,
  lastScanAt: Schema.NullOr(Schema.String),
  sources: Schema.Number,
  datasets: Schema.Number,
  columns: Schema.Number,
  classes: ClassCounts,
  /** Columns flagged personal, special or criminal. */
  personalDataItems: Schema.Number,
  datasetsWithPersonalData: Schema.Number,
  overrides: Schema.Number,
  drift: Schema.Number,
  coverage: Coverage,
  seal: Schema.Literal("draft", "sealed"),
  /**
   * The record's seal (issue 12): who sealed it, when, under which licence; a draft again after the
   * licence expired (reason LICENCE_EXPIRED, `last` kept). Absent only in snapshots made before it existed.
   */
  sealInfo: Schema.optional(SealState),
  catalogOnly: Schema.Boolean,
  upload: Schema.String,
  sourceStates: Schema.Array(SourceState)
})
export type Status = typeof Status.Type

/**
 * The coverage line every surface prints: which sources were reached, and which were not and why.
 * `missing` lists each unreached source with the code that kept it out ("never scanned" when none).
 */
export const coverageLine = (
  total: number,
  missing: ReadonlyArray<{ readonly id: string; readonly reason: string }>
): string => {
  if (total === 0) return "No sources configured."
  if (missing.length === 0) {
    return total === 1
      ? "The one configured source was reached."
      : `All ${total} sources reached.`
  }
  const reached = total - missing.length
  return `${reached} of ${total} source${total === 1 ? "" : "s"} reached; not reached: ${
    missing.map((m) => `${m.id} (${m.reason})`).join(", ")
  }.`
}
