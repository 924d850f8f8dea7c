/**
 * The `manual` connector: a data-dictionary CSV (one row per column) stands in for a live source.
 * Parsed with csv-parse (quoted cells with commas, quotes and newlines; UTF-8 BOM; CRLF).
 *
 * Header: `table,column,type[,description]`, plus optional `schema` (default "main"). Well-known
 * spellings are accepted so real dictionaries import unchanged, e.g. OMOP CDM
 * (`cdmTableName,cdmFieldName,cdmDatatype,userGuidance,isRequired,isPrimaryKey,fkTableName,fkFieldName`)
 * and Hakai (`table,column,name,data_type,key,references,description`, key = PK / FK / "PK, FK").
 * Matching ignores case, spaces, `_` and `-`. `NA` and empty cells are null.
 */
import { parse } from "csv-parse/sync"
import { Effect, Either } from "effect"
import * as path from "node:path"
import type { ForeignKeyRef, RawColumn, RawDataset, RawSource } from "../../domain/Metadata.js"
import { AddInputInvalid, type SourceUnreachable } from "../../errors/index.js"
import type { Connector, ConnectorInput, ProbeResult } from "../../services/Connectors.js"
import { readRegularFile, unreachable } from "./internal.js"

type Field =
  | "table"
  | "column"
  | "type"
  | "description"
  | "schema"
  | "label"
  | "nullable"
  | "required"
  | "primaryKey"
  | "foreignKey"
  | "fkTable"
  | "fkColumn"
  | "key"
  | "references"
  | "tableDescription"

/** Accepted header spellings (normalised: lower case, letters and digits only), in priority order. */
const aliases: Record<Field, ReadonlyArray<string>> = {
  table: [
    "table",
    "tablename",
    "cdmtablename",
    "tbl",
    "entity",
    "entityname",
    "dataset",
    "datasetname",
    "relation",
    "object",
    "objectname"
  ],
  column: [
    "column",
    "columnname",
    "cdmfieldname",
    "field",
    "fieldname",
    "attribute",
    "attributename",
    "variable",
    "variablename",
    "col",
    "colname"
  ],
  type: ["type", "datatype", "cdmdatatype", "columntype", "fieldtype", "sqltype", "dtype", "format"],
  description: [
    "description",
    "userguidance",
    "columndescription",
    "fielddescription",
    "comment",
    "comments",
    "definition",
    "remarks",
    "columncomment",
    "notes"
  ],
  schema: ["schema", "schemaname", "tableschema", "cdmschema", "namespace", "database", "databasename"],
  label: ["name", "label", "displayname", "title"],
  nullable: ["nullable", "isnullable", "null", "allownull", "allownulls"],
  required: ["isrequired", "required", "notnull", "mandatory"],
  primaryKey: ["isprimarykey", "primarykey", "pk", "ispk"],
  foreignKey: ["isforeignkey", "foreignkey", "fk", "isfk"],
  fkTable: [
    "fktablename",
    "fktable",
    "referencedtable",
    "referencedtablename",
    "referencestable",
    "reftable",
    "parenttable"
  ],
  fkColumn: [
    "fkfieldname",
    "fkcolumn",
    "fkcolumnname",
    "referencedcolumn",
    "referencedcolumnname",
    "referencescolumn",
    "refcolumn",
    "parentcolumn"
  ],
  key: ["key", "keytype", "keys", "constraint", "constraints"],
  references: ["references", "reference", "refs", "foreignkeyreferences"],
  tableDescription: ["tabledescription", "tablecomment"]
}

const normalise = (h: string): string => h.replace(/^\uFEFF/, "").toLowerCase().replace(/[^a-z0-9]/g, "")

const missing = (v: string | undefined): boolean => {
  if (v === undefined) return true
  const t = v.trim()
  return t === "" || t === "NA" || t === "N/A"
}
const cell = (v: string | undefined): string | null => (missing(v) ? null : v!.trim())

const truthy = (v: string | null): boolean | null => {
  if (v === null) return null
  const t = v.toLowerCase()
  if (["yes", "y", "true", "t", "1", "x", "pk", "fk"].includes(t)) return true
  if (["no", "n", "false", "f", "0"].includes(t)) return false
  return null
}

const invalid = (fileLabel: string, message: string, fix?: string) =>
  new AddInputInvalid({
    message: `${fileLabel}: ${message}`,
    fix: fix ??
      "The first row must name the columns: table,column,type[,description][,schema] (OMOP cdmTableName,cdmFieldName,cdmDatatype,… and Hakai table,column,data_type,key,references,… are accepted too).",
    param: "from"
  })

/** `sites`, `sites.site_id`, `sites(site_id)`, `public.sites.site_id`; the first of a list. */
const parseReference = (
  raw: string
): { readonly schema: string | null; readonly table: string; readonly column: string | null } => {
  const first = raw.split(/[,;]/)[0]!.trim()
  const paren = /^([^()]+)\(([^()]+)\)$/.exec(first)
  if (paren !== null) {
    const parts = paren[1]!.trim().split(".")
    return { schema: parts.length > 1 ? parts[0]! : null, table: parts[parts.length - 1]!, column: paren[2]!.trim() }
  }
  const parts = first.split(".").map((p) => p.trim())
  if (parts.length >= 3) return { schema: parts[0]!, table: parts[1]!, column: parts[2]! }
  if (parts.length === 2) return { schema: null, table: parts[0]!, column: parts[1]! }
  return { schema: null, table: parts[0]!, column: null }
}

/** What csv-parse found wrong, in words and a line number; never the offending cell (its message quotes it). */
const csvProblem = (e: unknown): string => {
  const o = typeof e === "object" && e !== null ? (e as { readonly code?: unknown; readonly lines?: unknown }) : {}
  const at = typeof o.lines === "number" ? ` (line ${o.lines})` : ""
  switch (o.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return `a quoted cell is never closed${at}`
    case "CSV_INVALID_CLOSING_QUOTE":
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return `a quoted cell is followed by other characters before the next comma${at}`
    case "INVALID_OPENING_QUOTE":
      return `a quote appears inside an unquoted cell${at}`
    case "CSV_MAX_RECORD_SIZE":
      return `a row is too large${at}`
    default:
      return `the rows cannot be split into cells${at}`
  }
}

/**
 * Parses a data-dictionary CSV into one `file` dataset per table. Fails with `AddInputInvalid`
 * naming what is wrong (a missing header, an empty table/column cell, a duplicate column, bad CSV).
 * `catalog add manual --from x.csv` calls it to validate before writing config.
 */
export const parseSchemaCsv = (
  text: string,
  fileLabel: string
): Either.Either<ReadonlyArray<RawDataset>, AddInputInvalid> => {
  let records: Array<Array<string>>
  const lines: Array<number> = []
  try {
    records = parse(text, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record: Array<string>, context) => {
        lines.push(context.lines)
        return record
      }
    })
  } catch (e) {
    return Either.left(invalid(fileLabel, `not a readable CSV: ${csvProblem(e)}.`))
  }
  const header = records[0]
  if (header === undefined) {
    return Either.left(invalid(fileLabel, "the file is empty; it needs a header row and one row per column."))
  }

  const normalised = header.map(normalise)
  const index = {} as Record<Field, number>
  const taken = new Set<number>()
  const order: ReadonlyArray<Field> = [
    "table",
    "column",
    "type",
    "description",
    "schema",
    "nullable",
    "required",
    "primaryKey",
    "foreignKey",
    "fkTable",
    "fkColumn",
    "key",
    "references",
    "tableDescription",
    "label"
  ]
  for (const field of order) {
    index[field] = -1
    for (const alias of aliases[field]) {
      const i = normalised.findIndex((h, j) => h === alias && !taken.has(j))
      if (i >= 0) {
        index[field] = i
        taken.add(i)
        break
      }
    }
  }
  // A dictionary whose column-name header is plain `name` (and has no other column header).
  if (index.column < 0 && index.label >= 0) {
    index.column = index.label
    index.label = -1
  }
  const lacking = (["table", "column", "type"] as const).filter((f) => index[f] < 0)
  if (lacking.length > 0) {
    // The cells are not quoted back: a file that is not a dictionary (an .env, a key file) would
    // otherwise put its first line, secrets included, into the message.
    const names = lacking.map((f) => `"${f}"`).join(", ")
    return Either.left(invalid(
      fileLabel,
      `the header row (line ${lines[0] ?? 1}, ${header.length} cell${
        header.length === 1 ? "" : "s"
      }) has no ${names} column${lacking.length > 1 ? "s" : ""}.`
    ))
  }
  if (records.length < 2) return Either.left(invalid(fileLabel, "the header is there but no column rows follow."))

  type MutableColumn = { -readonly [K in keyof RawColumn]: RawColumn[K] }
  interface Pending {
    readonly line: number
    readonly column: MutableColumn
    readonly fk: { readonly schema: string | null; readonly table: string; readonly column: string | null } | null
    readonly schema: string
  }
  interface Table {
    readonly schema: string
    readonly name: string
    comment: string | null
    readonly columns: Array<Pending>
  }
  const tables = new Map<string, Table>()
  const get = (
    row: ReadonlyArray<string>,
    field: Field
  ): string | null => (index[field] < 0 ? null : cell(row[index[field]]))

  for (let r = 1; r < records.length; r++) {
    const row = records[r]!
    const line = lines[r] ?? r + 1
    const tableName = get(row, "table")
    const columnName = get(row, "column")
    if (tableName === null || columnName === null) {
      const which = tableName === null ? "table" : "column"
      return Either.left(
        invalid(fileLabel, `line ${line} has an empty ${which} cell.`, "Give every row a table and a column name.")
      )
    }
    const schema = get(row, "schema") ?? "main"
    const tkey = `${schema}\u0000${tableName}`
    let table = tables.get(tkey)
    if (table === undefined) {
      table = { schema, name: tableName, comment: null, columns: [] }
      tables.set(tkey, table)
    }
    table.comment ??= get(row, "tableDescription")
    const first = table.columns.find((c) => c.column.name === columnName)
    if (first !== undefined) {
      return Either.left(invalid(
        fileLabel,
        `line ${line} repeats the table and column of line ${first.line}.`,
        "List each column of a table once."
      ))
    }
    const keyTokens = (get(row, "key") ?? "").toUpperCase().split(/[^A-Z]+/).filter((t) => t !== "")
    const required = truthy(get(row, "required"))
    const nullableCell = truthy(get(row, "nullable"))
    const isPrimaryKey = truthy(get(row, "primaryKey")) === true || keyTokens.includes("PK") ||
      keyTokens.includes("PRIMARY")
    const nullable = nullableCell ?? (required === null ? !isPrimaryKey : !required)

    let fk: Pending["fk"] = null
    const fkTable = get(row, "fkTable")
    const refs = get(row, "references")
    const fkFlag = truthy(get(row, "foreignKey")) !== false
    if (fkTable !== null && fkFlag) fk = { schema: null, table: fkTable, column: get(row, "fkColumn") }
    else if (refs !== null) fk = parseReference(refs)

    table.columns.push({
      line,
      schema,
      fk,
      column: {
        name: columnName,
        type: get(row, "type") ?? "",
        nullable,
        position: table.columns.length + 1,
        comment: get(row, "description") ?? get(row, "label"),
        isPrimaryKey,
        references: null
      }
    })
  }

  // Resolve references against the dictionary itself (OMOP spells targets in upper case).
  const byName = new Map<string, Table>()
  for (const t of tables.values()) {
    const k = t.name.toLowerCase()
    if (!byName.has(k)) byName.set(k, t)
    byName.set(`${t.schema.toLowerCase()}\u0000${k}`, t)
  }
  const resolve = (p: Pending): ForeignKeyRef | null => {
    if (p.fk === null) return null
    const target = (p.fk.schema !== null
      ? byName.get(`${p.fk.schema.toLowerCase()}\u0000${p.fk.table.toLowerCase()}`)
      : undefined) ??
      byName.get(`${p.schema.toLowerCase()}\u0000${p.fk.table.toLowerCase()}`) ??
      byName.get(p.fk.table.toLowerCase())
    if (target === undefined) {
      return { schema: p.fk.schema ?? p.schema, table: p.fk.table, column: p.fk.column ?? p.column.name }
    }
    const find = (n: string) => target.columns.find((c) => c.column.name.toLowerCase() === n.toLowerCase())?.column.name
    const pks = target.columns.filter((c) => c.column.isPrimaryKey)
    const column = p.fk.column !== null
      ? find(p.fk.column) ?? p.fk.column
      : find(p.column.name) ?? (pks.length === 1 ? pks[0]!.column.name : p.column.name)
    return { schema: target.schema, table: target.name, column }
  }
  const datasets: Array<RawDataset> = []
  for (const t of tables.values()) {
    datasets.push({
      schema: t.schema,
      name: t.name,
      kind: "file",
      comment: t.comment,
      rowEstimate: null,
      rowEstimateSource: "none",
      columns: t.columns.map((p): RawColumn => ({ ...p.column, references: resolve(p) })),
      dependsOn: []
    })
  }
  return Either.right(datasets)
}

/** The CSV path of a manual source, resolved against the config folder. */
export const manualCsvPath = (input: ConnectorInput): string | null => {
  const p = input.source.path ?? input.secret
  return p === undefined || p === null || p.trim() === "" ? null : path.resolve(input.baseDir, p)
}

/**
 * Reads and parses a data-dictionary CSV that must be a regular file (a FIFO or device is refused
 * before it is opened). `catalog add manual --from` and the connector share it; failures are
 * `AddInputInvalid` naming `from` and never quote the file.
 */
export const loadSchemaCsv = (
  file: string,
  fileLabel: string
): Effect.Effect<ReadonlyArray<RawDataset>, AddInputInvalid> =>
  readRegularFile(file).pipe(
    Effect.mapError((reason) =>
      new AddInputInvalid({
        message: `${fileLabel} ${reason}.`,
        fix:
          "Pass the path of a data-dictionary CSV file with --from (header: table,column,type[,description][,schema]).",
        param: "from"
      })
    ),
    Effect.flatMap((text) => parseSchemaCsv(text, fileLabel))
  )

const load = (
  input: ConnectorInput
): Effect.Effect<{ readonly file: string; readonly datasets: ReadonlyArray<RawDataset> }, SourceUnreachable> =>
  Effect.gen(function*() {
    const file = manualCsvPath(input)
    const id = input.source.id
    // The path may come from the connection variable: keep its value out of messages.
    const secrets = [input.secret]
    if (file === null) {
      return yield* unreachable(
        `Manual source ${id} names no CSV file.`,
        `Set \`path\` of source ${id} in catalog.yml to the data-dictionary CSV, then run \`catalog test ${id}\`.`,
        secrets
      )
    }
    const text = yield* readRegularFile(file).pipe(
      Effect.mapError((reason) =>
        unreachable(
          `The data-dictionary CSV ${file} of source ${id} ${reason}.`,
          `Check \`path\` of source ${id} in catalog.yml (now ${
            input.source.path ?? file
          }; relative paths resolve against ${input.baseDir}); it must name a CSV file. Then run \`catalog test ${id}\`.`,
          secrets
        )
      )
    )
    const datasets = yield* parseSchemaCsv(text, file).pipe(
      Either.mapLeft((e) =>
        unreachable(e.message, `Fix the CSV (${file}), then run \`catalog test ${id}\`. ${e.fix ?? ""}`.trim(), secrets)
      )
    )
    return { file, datasets }
  })

const probe = Effect.fn("Connectors.manual.probe")(function*(input: ConnectorInput) {
  const { file } = yield* load(input)
  const result: ProbeResult = { serverVersion: null, target: file }
  return result
})

const scan = Effect.fn("Connectors.manual.scan")(function*(input: ConnectorInput) {
  const { datasets } = yield* load(input)
  const result: RawSource = { datasets, serverVersion: null }
  return result
})

/** The `manual` connector (data-dictionary CSV; no live connection, no secret). */
export const ManualCsvConnector: Connector = {
  kind: "manual",
  needsSecret: false,
  probe,
  scan,
  readFile: (text, { label }) =>
    Either.mapBoth(parseSchemaCsv(text, label), {
      onLeft: (e) => ({ message: e.message, fix: e.fix }),
      onRight: (datasets) => ({ tables: datasets.length, columns: datasets.reduce((n, d) => n + d.columns.length, 0) })
    })
}
