/**
 * The DORA Register of Information templates (EBA DORA 4.0 taxonomy: tables, columns, keys, closed
 * lists, package parameters), from `templates.json` (a copy of the implementer's digest data).
 * Decoded once, on first use, so that commands that never touch DORA do not pay for it.
 */
import { Schema } from "effect"
import templatesJson from "./templates.json" with { type: "json" }

export const ColumnType = Schema.Literal(
  "lei",
  "code",
  "string",
  "date",
  "country",
  "currency",
  "monetary",
  "integer",
  "enum",
  "boolean"
)
export type ColumnType = typeof ColumnType.Type

export const TemplateColumn = Schema.Struct({
  code: Schema.String,
  name: Schema.String,
  type: ColumnType,
  required: Schema.Boolean,
  key: Schema.Boolean,
  enum: Schema.optional(Schema.String),
  condition: Schema.optional(Schema.String),
  references: Schema.optional(Schema.String)
})
export type TemplateColumn = typeof TemplateColumn.Type

export const Template = Schema.Struct({
  code: Schema.String,
  title: Schema.String,
  purpose: Schema.String,
  csv_file: Schema.String,
  row_key: Schema.Array(Schema.String),
  columns: Schema.Array(TemplateColumn)
})
export type Template = typeof Template.Type

export const EnumDef = Schema.Struct({
  prefix: Schema.String,
  values: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  pattern: Schema.optional(Schema.String),
  note: Schema.optional(Schema.String)
})
export type EnumDef = typeof EnumDef.Type

export const Templates = Schema.Struct({
  taxonomy: Schema.Struct({
    module: Schema.String,
    version: Schema.String,
    entry_point_json: Schema.String,
    entry_point_xsd: Schema.String,
    file_name_framework_module_version: Schema.String,
    file_name_module: Schema.String
  }),
  parameters: Schema.Record({ key: Schema.String, value: Schema.String }),
  enums: Schema.Record({ key: Schema.String, value: EnumDef }),
  tables: Schema.Array(Template)
})
export type Templates = typeof Templates.Type

let cached: Templates | undefined
/** The bundled DORA 4.0 templates (decoded and checked on first use). */
export const doraTemplates = (): Templates => (cached ??= Schema.decodeUnknownSync(Templates)(templatesJson))

/** `b_01.02`, `B_01.02`, `b_01.02.csv`, `B.01.02` → the template, or undefined. */
export const findTable = (templates: Templates, raw: string): Template | undefined => {
  const s = raw.trim().toUpperCase().replace(/\.CSV$/, "").replace(/^B[._-]?(\d{2})[._-]?(\d{2})$/, "B_$1.$2")
  return templates.tables.find((t) => t.code === s)
}

/** `c0010`, `C0010`, `0010`, `B_01.02.0010` → the column of that table, or undefined. */
export const findColumn = (table: Template, raw: string): TemplateColumn | undefined => {
  const s = raw.trim().toLowerCase()
  const prefix = `${table.code.toLowerCase()}.`
  const bare = s.startsWith(prefix) ? s.slice(prefix.length) : s
  const code = /^\d{4}$/.test(bare) ? `c${bare}` : bare
  return table.columns.find((c) => c.code === code)
}

/** The key columns of a table, in ascending column-code order (the row-key order). */
export const keyColumns = (table: Template): ReadonlyArray<TemplateColumn> =>
  table.row_key.map((k) => table.columns.find((c) => c.code === k)!).filter((c) => c !== undefined)

// ── row keys ────────────────────────────────────────────────────────────────────────────────────
/** The row key of a single-row table without key columns (B_99.01). */
export const singleRowKey = "_"
/** Separator between the key-column values of a composite row key. */
export const rowKeySeparator = "|"

const encPart = (s: string) => s.replace(/%/g, "%25").replace(/\|/g, "%7C")
const decPart = (s: string) => s.replace(/%7C/gi, "|").replace(/%25/g, "%")

/** The row key of a tuple of key-column values: the values joined by `|` (a `|` or `%` inside percent-encoded). */
export const encodeRowKey = (
  values: ReadonlyArray<string>
): string => (values.length === 0 ? singleRowKey : values.map(encPart).join(rowKeySeparator))

/** The key-column values of a row key (`[]` for the single-row key). */
export const decodeRowKey = (key: string, keyCount: number): Array<string> => {
  if (keyCount === 0) return []
  return key.split(rowKeySeparator).map(decPart)
}
