/**
 * The catalog store's contract: `StoreReader` is the read half (given to the MCP and HTTP programs);
 * `Store` adds the writes (scan commit, human corrections), for the CLI only. The row Schemas here are
 * what a row of `index.db` must decode to; the SQLite implementation is in `src/layers/store/`.
 */
import type { SqlError } from "@effect/sql"
import { Context, type Effect, Either, Schema } from "effect"
import { createHash } from "node:crypto"
import { ClassValue as ClassValueSchema, LineageOrigin } from "../domain/Catalog.js"
import type { ClassValue, ColumnVerdict, DatasetKind, RawDataset, RawEdge } from "../domain/Metadata.js"
import type { SchemaMigrationRequired } from "../errors/index.js"
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

/** Splits names into words for the search index: `customerEmail_addr` → `customer email addr`. */
export const searchWords = (s: string): string =>
  s.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").replace(/[_\-./]+/g, " ")

/** What a store call can fail with: the database itself, or a row this build cannot read (named by its table). */
export type StoreError = SqlError.SqlError | SchemaMigrationRequired

// ── row Schemas ──────────────────────────────────────────────────────────────────────────────
/**
 * A TEXT column holding JSON of `schema`: checked with `Schema.parseJson` when the row is decoded and
 * kept as its text (the readers parse it where they shape their answer).
 */
export const JsonText = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const valid = Schema.decodeUnknownEither(Schema.parseJson(schema))
  return Schema.String.pipe(Schema.filter((s) => Either.isRight(valid(s)) || `not JSON of ${what}`))
}
const NullableString = Schema.NullOr(Schema.String)
const NullableNumber = Schema.NullOr(Schema.Number)
/** Dataset ids of a glossary term (`glossary.datasets`). */
export const DatasetIds = Schema.Array(Schema.String)
/** A change's detail (`changes.detail`): a JSON object. */
export const ChangeDetail = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const DatasetRow = Schema.Struct({
  rowid: Schema.Number,
  id: Schema.String,
  source_id: Schema.String,
  schema_name: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  comment: NullableString,
  row_estimate: NullableNumber,
  row_estimate_source: Schema.String,
  first_seen_at: Schema.String,
  scanned_at: Schema.String
})
export type DatasetRow = typeof DatasetRow.Type

/** A dataset with its column and class counts (`datasets`). */
/** A seal pulled from the portal and verified (table `seals`; the artifacts are under `dir`). */
export const SealRow = Schema.Struct({
  id: Schema.String,
  claim_id: Schema.String,
  sealed_at: Schema.String,
  signer_name: Schema.String,
  signer_role: Schema.String,
  signer_email: NullableString,
  terms_version: NullableString,
  /** JSON: the open legal calls acknowledged at sealing. */
  acknowledged: Schema.String,
  licence_id: Schema.String,
  licence_issued_at: Schema.String,
  licence_expires_at: Schema.String,
  dir: Schema.String,
  manifest_sha256: Schema.String,
  stored_at: Schema.String
})
export type SealRow = typeof SealRow.Type

export const DatasetSummaryRow = Schema.Struct({
  ...DatasetRow.fields,
  columns: Schema.Number,
  personal: Schema.Number,
  special: Schema.Number,
  criminal: Schema.Number
})
export type DatasetSummaryRow = typeof DatasetSummaryRow.Type

export const ColumnRow = Schema.Struct({
  id: Schema.String,
  dataset_id: Schema.String,
  position: Schema.Number,
  name: Schema.String,
  type: Schema.String,
  nullable: Schema.Number,
  comment: NullableString,
  is_pk: Schema.Number,
  ref: NullableString,
  m_value: ClassValueSchema,
  m_rule: Schema.String,
  m_confidence: Schema.Number,
  m_method: Schema.String,
  m_category: NullableString,
  m_evidence: JsonText(Schema.Array(Schema.String), "evidence strings"),
  o_value: Schema.NullOr(ClassValueSchema),
  o_by: NullableString,
  o_at: NullableString
})
export type ColumnRow = typeof ColumnRow.Type

/** What search needs of a column (no evidence, no sort). */
export const SearchColumnRow = Schema.Struct({
  id: Schema.String,
  dataset_id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  comment: NullableString,
  m_value: ClassValueSchema,
  m_category: NullableString,
  o_value: Schema.NullOr(ClassValueSchema)
})
export type SearchColumnRow = typeof SearchColumnRow.Type

/** A column whose effective class is not `not`, with what the RoPA draft needs. */
export const RopaColumnRow = Schema.Struct({
  dataset_id: Schema.String,
  source_id: Schema.String,
  schema_name: Schema.String,
  table_name: Schema.String,
  kind: Schema.String,
  name: Schema.String,
  value: ClassValueSchema,
  category: NullableString,
  is_pk: Schema.Number,
  ref: NullableString
})
export type RopaColumnRow = typeof RopaColumnRow.Type

export const SourceRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  driver: Schema.String,
  label: NullableString,
  region: NullableString,
  user_authored: Schema.Number,
  status: Schema.Literal("ok", "unreachable", "error"),
  error_code: NullableString,
  error_message: NullableString,
  server_version: NullableString,
  last_attempt_at: Schema.String,
  last_ok_at: NullableString,
  /** catalog.yml's connectionRef and path at the last scan (null: none, or scanned before they were recorded). */
  connection_ref: Schema.optional(NullableString),
  path: Schema.optional(NullableString),
  datasets: Schema.Number
})
export type SourceRow = typeof SourceRow.Type

export const EdgeRow = Schema.Struct({
  id: Schema.String,
  from_id: Schema.String,
  to_id: Schema.String,
  origin: LineageOrigin,
  created_at: Schema.String,
  by: NullableString,
  from_known: Schema.Number,
  to_known: Schema.Number
})
export type EdgeRow = typeof EdgeRow.Type

export const ChangeRow = Schema.Struct({
  seq: Schema.Number,
  at: Schema.String,
  scan_id: NullableNumber,
  kind: Schema.String,
  entity: Schema.String,
  source_id: NullableString,
  detail: JsonText(ChangeDetail, "a change detail object"),
  by: NullableString
})
export type ChangeRow = typeof ChangeRow.Type

export const GlossaryRow = Schema.Struct({
  term: Schema.String,
  definition: Schema.String,
  datasets: JsonText(DatasetIds, "dataset ids"),
  updated_at: Schema.String,
  by: NullableString
})
export type GlossaryRow = typeof GlossaryRow.Type

/** A glossary term with its related dataset ids parsed, and its rowid (the key of its search document). */
export interface GlossaryTerm {
  readonly rowid: number
  readonly term: string
  readonly definition: string
  readonly datasets: ReadonlyArray<string>
  readonly updated_at: string
  readonly by: string | null
}

export const ScanRow = Schema.Struct({
  id: Schema.Number,
  started_at: Schema.String,
  finished_at: Schema.String,
  sources_total: Schema.Number,
  sources_ok: Schema.Number,
  changes: Schema.Number
})
export type ScanRow = typeof ScanRow.Type

export const AnnotationRowSchema: Schema.Schema<AnnotationRow> = Schema.Struct({
  activity_key: Schema.String,
  field: Schema.String,
  value: Schema.String,
  status: Schema.Literal("suggested", "confirmed"),
  by: Schema.String,
  at: Schema.String,
  confirmed_by: NullableString,
  confirmed_at: NullableString,
  basis: NullableString
})

export const DoraCellRow = Schema.Struct({
  table_code: Schema.String,
  row_key: Schema.String,
  column_code: Schema.String,
  value: Schema.String,
  by: Schema.String,
  at: Schema.String
})
export type DoraCellRow = typeof DoraCellRow.Type

export const DescriptionRow = Schema.Struct({
  entity_id: Schema.String,
  text: Schema.String,
  drafted: Schema.Number,
  by: Schema.String,
  at: Schema.String
})
export type DescriptionRow = typeof DescriptionRow.Type

export const OverrideRow = Schema.Struct({
  column_id: Schema.String,
  value: ClassValueSchema,
  by: Schema.String,
  at: Schema.String
})
export type OverrideRow = typeof OverrideRow.Type

/** A description as `describe list` shows it beside its entity (all null when there is none). */
const DescriptionCells = {
  text: NullableString,
  drafted: NullableNumber,
  by: NullableString,
  at: NullableString
}
/** One dataset of `describe list`. */
export const DescribeDatasetRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.String,
  columns: Schema.Number,
  described: Schema.Number,
  ...DescriptionCells
})
export type DescribeDatasetRow = typeof DescribeDatasetRow.Type
/** One column of `describe list --dataset`. */
export const DescribeColumnRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.String,
  value: ClassValueSchema,
  ...DescriptionCells
})
export type DescribeColumnRow = typeof DescribeColumnRow.Type

/** One page of a listing and the count of everything listed. */
export interface Page<A> {
  readonly total: number
  readonly rows: ReadonlyArray<A>
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
  /** catalog.yml's connectionRef (the variable's name, never its value) and path, as scanned. */
  readonly connectionRef?: string | null
  readonly path?: string | null
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

/** Reads only. */
export class StoreReader extends Context.Tag("catalog/StoreReader")<StoreReader, {
  readonly lastScan: Effect.Effect<ScanRow | null, StoreError>
  /** Changes whenever another connection commits (a scan, a correction): a cheap staleness check for caches. */
  readonly dataVersion: Effect.Effect<string, StoreError>
  readonly sources: Effect.Effect<ReadonlyArray<SourceRow>, StoreError>
  readonly datasets: Effect.Effect<ReadonlyArray<DatasetSummaryRow>, StoreError>
  readonly dataset: (id: string) => Effect.Effect<DatasetRow | null, StoreError>
  /** The scanned dataset id for `id`: exact, else the one case-insensitive match (`null` when none or ambiguous). */
  readonly resolveDatasetId: (id: string) => Effect.Effect<string | null, StoreError>
  readonly columnsOf: (datasetId: string) => Effect.Effect<ReadonlyArray<ColumnRow>, StoreError>
  readonly column: (id: string) => Effect.Effect<ColumnRow | null, StoreError>
  /** The column id for `id`: exact, else the one case-insensitive match (`null` when none or ambiguous). */
  readonly resolveColumnId: (id: string) => Effect.Effect<string | null, StoreError>
  /** What search needs of the columns of several datasets (no evidence, no sort): one light query. */
  readonly searchColumnsOf: (
    datasetIds: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<SearchColumnRow>, StoreError>
  readonly classCounts: Effect.Effect<Array<{ readonly value: ClassValue; readonly n: number }>, StoreError>
  /** Every column whose effective class is not `not`, with what the RoPA draft needs. */
  readonly ropaColumns: Effect.Effect<ReadonlyArray<RopaColumnRow>, StoreError>
  readonly annotations: Effect.Effect<ReadonlyArray<AnnotationRow>, StoreError>
  readonly doraCells: Effect.Effect<ReadonlyArray<DoraCellRow>, StoreError>
  /** How many rows a DORA table has. */
  readonly doraRowCount: (table: string) => Effect.Effect<number, StoreError>
  /** How many cells one DORA row has. */
  readonly doraCellCount: (table: string, rowKey: string) => Effect.Effect<number, StoreError>
  /** One DORA cell's value (`null` when empty). */
  readonly doraCell: (table: string, rowKey: string, column: string) => Effect.Effect<string | null, StoreError>
  readonly descriptions: Effect.Effect<ReadonlyArray<DescriptionRow>, StoreError>
  /** The description of one dataset or column. */
  readonly description: (entityId: string) => Effect.Effect<DescriptionRow | null, StoreError>
  /** A page of datasets with their descriptions (`describe list`). */
  readonly describeDatasets: (
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<Page<DescribeDatasetRow>, StoreError>
  /** A page of one dataset's columns with their descriptions (`describe list --dataset`). */
  readonly describeColumns: (
    datasetId: string,
    page: { readonly limit: number; readonly offset: number }
  ) => Effect.Effect<Page<DescribeColumnRow>, StoreError>
  readonly methodCounts: Effect.Effect<ReadonlyArray<{ readonly method: string; readonly n: number }>, StoreError>
  readonly overrideStats: Effect.Effect<{ readonly overrides: number; readonly drift: number }, StoreError>
  /** Every human classification override. */
  readonly overrides: Effect.Effect<ReadonlyArray<OverrideRow>, StoreError>
  readonly edges: (datasetId?: string) => Effect.Effect<ReadonlyArray<EdgeRow>, StoreError>
  /** The human-asserted edges (origin `user`): what a team file carries. */
  readonly userEdges: Effect.Effect<ReadonlyArray<EdgeRow>, StoreError>
  readonly edge: (id: string) => Effect.Effect<EdgeRow | null, StoreError>
  readonly changes: (
    opts: { readonly sinceSeq?: number; readonly sinceAt?: string; readonly limit: number }
  ) => Effect.Effect<{ readonly rows: ReadonlyArray<ChangeRow>; readonly total: number }, StoreError>
  readonly glossary: Effect.Effect<ReadonlyArray<GlossaryRow>, StoreError>
  /** One glossary term, matched case-insensitively. */
  readonly glossaryTerm: (term: string) => Effect.Effect<GlossaryTerm | null, StoreError>
  /** Every glossary term, ordered by term (binary collation), datasets parsed. */
  readonly glossaryTerms: Effect.Effect<ReadonlyArray<GlossaryTerm>, StoreError>
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
    StoreError
  >
  /** The newest seal stored on this machine (by sealing time), or null. */
  readonly latestSeal: Effect.Effect<SealRow | null, StoreError>
  /** A stored seal by id, or null. */
  readonly seal: (id: string) => Effect.Effect<SealRow | null, StoreError>
  readonly searchGlossary: (
    match: string,
    limit: number
  ) => Effect.Effect<
    ReadonlyArray<{ readonly term: string; readonly definition: string; readonly score: number }>,
    StoreError
  >
}>() {}

/** A team-file row merged into the catalog: `applied` is false when the catalog's own row was newer. */
export type Merged = Effect.Effect<boolean, StoreError>

/** Reads and writes: the CLI's store. Every write records its change through `ChangeLog` in the same transaction. */
export class Store extends Context.Tag("catalog/Store")<Store, {
  /** Runs `effect` in one transaction (nested calls join it): all of its writes, change-log included, or none. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError.SqlError, R>
  readonly knownSources: Effect.Effect<ReadonlyArray<string>, StoreError>
  /** The raw fingerprint of each source's last successful scan. */
  readonly sourceFingerprints: Effect.Effect<ReadonlyMap<string, string>, StoreError>
  readonly commitScan: (
    input: {
      readonly startedAt: string
      readonly outcomes: ReadonlyArray<SourceOutcome>
      readonly removedSources: ReadonlyArray<string>
      readonly by: string
    }
  ) => Effect.Effect<ScanSummary, StoreError>
  readonly setOverride: (
    columnId: string,
    value: ClassValue,
    by: string
  ) => Effect.Effect<{ readonly previous: ClassValue }, StoreError>
  readonly clearOverride: (
    columnId: string,
    by: string
  ) => Effect.Effect<{ readonly cleared: boolean; readonly restored: ClassValue }, StoreError>
  readonly removeSource: (id: string, by: string) => Effect.Effect<{ readonly datasets: number }, StoreError>
  /** A legal-field fill (`suggested`) or confirmation, with a change-log entry attributed to `by`. */
  readonly setAnnotation: (row: AnnotationRow) => Effect.Effect<void, StoreError>
  /** A human-asserted lineage edge (origin `user`); nothing when the id exists. */
  readonly addUserEdge: (
    edge: { readonly id: string; readonly from: string; readonly to: string; readonly at: string; readonly by: string }
  ) => Effect.Effect<void, StoreError>
  readonly deleteEdge: (id: string) => Effect.Effect<void, StoreError>
  /** Writes a glossary term and its search document (updating the row `rowid` when given). */
  readonly saveGlossaryTerm: (
    term: {
      readonly rowid: number | null
      readonly term: string
      readonly definition: string
      readonly datasets: ReadonlyArray<string>
      readonly at: string
      readonly by: string
    }
  ) => Effect.Effect<void, StoreError>
  /** Stores a description drafted by the tool (`drafted = 1`). */
  readonly saveDraftDescription: (
    d: { readonly entityId: string; readonly text: string; readonly by: string; readonly at: string }
  ) => Effect.Effect<void, StoreError>
  /** Upserts DORA cells (in batches). */
  readonly upsertDoraCells: (cells: ReadonlyArray<DoraCellRow>) => Effect.Effect<void, StoreError>
  /** Inserts DORA cells that do not exist yet (a new row's key cells). */
  readonly insertMissingDoraCells: (cells: ReadonlyArray<DoraCellRow>) => Effect.Effect<void, StoreError>
  /** Deletes a DORA table's cells, one row's (`rowKey`), or some columns of one row (`columns`). */
  readonly deleteDoraCells: (
    where: { readonly table: string; readonly rowKey?: string; readonly columns?: ReadonlyArray<string> }
  ) => Effect.Effect<void, StoreError>
  /** Team-file import: each merge keeps the newer of the file's row and the catalog's. */
  readonly mergeOverride: (
    o: { readonly column_id: string; readonly value: string; readonly by: string; readonly at: string }
  ) => Merged
  readonly mergeUserEdge: (
    e: { readonly from: string; readonly to: string; readonly by: string | null; readonly at: string }
  ) => Merged
  readonly mergeGlossaryTerm: (
    t: {
      readonly term: string
      readonly definition: string
      readonly datasets: ReadonlyArray<string>
      readonly by: string | null
      readonly at: string
    }
  ) => Merged
  readonly mergeDescription: (d: DescriptionRow) => Merged
  readonly mergeAnnotation: (a: AnnotationRow) => Merged
  readonly mergeDoraCell: (c: DoraCellRow) => Merged
  /**
   * Records a verified seal (its files already stored under `row.dir`) with the change-log entry
   * `seal.sealed` ("sealed by <name> (<role>)"), attributed to `by`. Nothing when the id is stored already.
   */
  readonly insertSeal: (row: SealRow, by: string) => Effect.Effect<{ readonly inserted: boolean }, StoreError>
  /**
   * The change-log entry `seal.lapsed` ("unsealed: licence expired") for seal `id`, the first time a command
   * notices its licence expired; nothing when it was recorded already. Answers whether it recorded it.
   */
  readonly recordSealLapsed: (
    seal: { readonly id: string; readonly licenceId: string; readonly expiresAt: string },
    at: string
  ) => Effect.Effect<boolean, StoreError>
}>() {}

export type { DatasetKind }
