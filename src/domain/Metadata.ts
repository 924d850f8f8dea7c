/**
 * What a connector reads from a source's system catalog: names, types, structure and the planner's
 * own row estimate. Never a row value. This is the input of the classifier and of the scan diff.
 */

/** The kinds of relation a connector reports. */
export type DatasetKind =
  | "table"
  | "partitioned_table"
  | "partition"
  | "view"
  | "materialized_view"
  | "foreign_table"
  | "file"

/** A foreign key from one column to a column of another dataset of the same source. */
export interface ForeignKeyRef {
  readonly schema: string
  readonly table: string
  readonly column: string
}

export interface RawColumn {
  readonly name: string
  /** The type as the source spells it (`character varying(40)`, `int(11)`, `TEXT`). */
  readonly type: string
  readonly nullable: boolean
  /** 1-based ordinal position. */
  readonly position: number
  readonly comment: string | null
  readonly isPrimaryKey: boolean
  readonly references: ForeignKeyRef | null
}

/** Where a row estimate comes from: the source's own planner statistics, never a count. */
export type RowEstimateSource = "pg_class.reltuples" | "information_schema.TABLES.TABLE_ROWS" | "warehouse" | "none"

export interface RawDataset {
  /** The source's namespace: PG schema, MySQL database, SQLite `main`, CSV file's declared schema. */
  readonly schema: string
  readonly name: string
  readonly kind: DatasetKind
  readonly comment: string | null
  /** Planner estimate; `null` when the source has none (never analysed, SQLite, CSV). */
  readonly rowEstimate: number | null
  readonly rowEstimateSource: RowEstimateSource
  readonly columns: ReadonlyArray<RawColumn>
  /** Datasets this one reads from (views' dependencies). */
  readonly dependsOn: ReadonlyArray<{ readonly schema: string; readonly name: string }>
}

/** A lineage edge between full dataset ids, from a lineage-only source (a dbt manifest). */
export interface RawEdge {
  readonly from: string
  readonly to: string
}

/** Everything a scan of one source returned. */
export interface RawSource {
  readonly datasets: ReadonlyArray<RawDataset>
  /** Lineage-only sources (kind `dbt`) return edges between dataset ids of their target source. */
  readonly edges?: ReadonlyArray<RawEdge>
  /** e.g. "PostgreSQL 15.19" — shown in provenance. */
  readonly serverVersion: string | null
}

/** Personal-data classes, in precedence order criminal > special > personal > not. */
export type ClassValue = "personal" | "special" | "criminal" | "not"
export const classValues: ReadonlyArray<ClassValue> = ["personal", "special", "criminal", "not"]

/** The machine verdict for one column. */
export interface ColumnVerdict {
  readonly value: ClassValue
  /** The rule that decided, e.g. `token:email`, `type-veto:integer`, `context:patients`. */
  readonly rule: string
  /** Calibrated probability that `value` is right, 0..1. */
  readonly confidence: number
  /** How the verdict was reached: `name-token`, `sql-type`, `table-context`, `foreign-key`, `comment`, `default`. */
  readonly method: string
  /** e.g. `contact.email`, `health`, `criminal.offence`; `null` for `not`. */
  readonly category: string | null
  /** Human-readable evidence that fired, for the reviewer. */
  readonly evidence: ReadonlyArray<string>
}
