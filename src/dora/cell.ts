/**
 * The checks of one DORA cell as `dora set` writes it, pure: the table code, the row key, the column
 * and the value, each resolved to the form the register stores or refused with `DORA_INPUT_INVALID`
 * naming the parameter and why. `catalog dora set` (services/Dora.ts) and the portal's
 * "Fill the DORA register" form use these same functions, so a cell the portal accepts is one
 * `dora set` accepts.
 */
import { Either } from "effect"
import { DoraInputInvalid } from "../errors/index.js"
import {
  decodeRowKey,
  encodeRowKey,
  findColumn,
  findTable,
  keyColumns,
  singleRowKey,
  type Template,
  type TemplateColumn,
  type Templates
} from "./templates.js"
import { normaliseInput } from "./validate.js"

const tableCodes = (t: Templates) => t.tables.map((x) => `${x.code} (${x.title})`).join("; ")
export const columnList = (t: Template) => t.columns.map((c) => `${c.code} ${c.name}`).join("; ")

/** The template of a table code (`B_02.01`, `b_02.01`, `B.02.01`…). */
export const resolveTable = (
  templates: Templates,
  raw: string | undefined
): Either.Either<Template, DoraInputInvalid> => {
  const t = raw === undefined ? undefined : findTable(templates, raw)
  return t !== undefined ? Either.right(t) : Either.left(
    new DoraInputInvalid({
      message: raw === undefined ? "The table code is missing." : `Unknown DORA table "${raw}".`,
      fix: `Use one of the table codes: ${tableCodes(templates)}.`,
      param: "tableCode",
      usage: raw === undefined
    })
  )
}

const singleRowAliases = new Set(["", "_", "-"])

/** The canonical row key (key values normalised, joined by `|`) or why it is not one. */
export const resolveRowKey = (
  templates: Templates,
  table: Template,
  raw: string
): Either.Either<{ key: string; parts: Array<string> }, DoraInputInvalid> => {
  const keys = keyColumns(table)
  const shape = keys.length === 0
    ? `"${singleRowKey}" (${table.code} has a single row and no key columns)`
    : keys.map((k) => `<${k.code} ${k.name}>`).join("|")
  const fail = (why: string) =>
    Either.left(
      new DoraInputInvalid({
        message: `${table.code} row key "${raw}": ${why}`,
        fix: `A ${table.code} row key is ${shape}; a "|" or "%" inside a value is written %7C or %25.`,
        param: "rowKey"
      })
    )
  if (keys.length === 0) {
    return singleRowAliases.has(raw.trim())
      ? Either.right({ key: singleRowKey, parts: [] })
      : fail(`${table.code} has no key columns; its single row is "${singleRowKey}"`)
  }
  const parts = decodeRowKey(raw, keys.length)
  if (parts.length !== keys.length) {
    return fail(
      `it has ${parts.length} part(s) but ${table.code} is keyed by ${keys.length} column(s) (${
        keys.map((k) => k.code).join(", ")
      }), joined by "|"`
    )
  }
  const out: Array<string> = []
  for (const [i, k] of keys.entries()) {
    const part = parts[i]!.trim()
    if (part === "") {
      return fail(
        `key column ${k.code} (${k.name}) is empty; a key cell is never empty (use "Not applicable" or eba_GA:qx2007 where it does not apply)`
      )
    }
    const n = normaliseInput(templates, table, k, part)
    if (!n.ok) return fail(n.reason)
    out.push(n.value)
  }
  return Either.right({ key: encodeRowKey(out), parts: out })
}

/** The column of a field (`c0020`, `C0020`, `0020`). */
export const resolveColumn = (
  table: Template,
  raw: string | undefined,
  param: string
): Either.Either<TemplateColumn, DoraInputInvalid> => {
  const c = raw === undefined ? undefined : findColumn(table, raw)
  return c !== undefined ? Either.right(c) : Either.left(
    new DoraInputInvalid({
      message: raw === undefined ? "The field (column code) is missing." : `${table.code} has no column "${raw}".`,
      fix: `Use a column code of ${table.code}: ${columnList(table)}.`,
      param,
      usage: raw === undefined
    })
  )
}

/**
 * The value a cell stores (null: "" clears it), or why not. A key column only takes its row key's value
 * (a key is changed by removing the row and writing it under the new key).
 */
export const resolveValue = (
  templates: Templates,
  table: Template,
  row: { readonly key: string; readonly parts: ReadonlyArray<string> },
  column: TemplateColumn,
  rawValue: string | undefined
): Either.Either<string | null, DoraInputInvalid> => {
  const raw = (rawValue ?? "").trim()
  const keyIndex = keyColumns(table).findIndex((k) => k.code === column.code)
  if (keyIndex >= 0) {
    const n = raw === "" ? null : normaliseInput(templates, table, column, raw)
    if (n === null || !n.ok || n.value !== row.parts[keyIndex]) {
      return Either.left(
        new DoraInputInvalid({
          message: `${column.code} is a key column of ${table.code}: its value comes from the row key ("${
            row.parts[keyIndex]
          }") and cannot be ${raw === "" ? "cleared" : `set to "${raw}"`}.`,
          fix:
            `To change a key, remove the row (catalog dora set ${table.code} ${row.key} --remove) and write it under the new row key.`,
          param: "field"
        })
      )
    }
    return Either.right(n.value)
  }
  if (raw === "") return Either.right(null)
  const n = normaliseInput(templates, table, column, raw)
  if (!n.ok) {
    return Either.left(
      new DoraInputInvalid({
        message: `${table.code} row ${row.key}, ${n.reason}.`,
        fix: column.enum !== undefined || column.type !== "string"
          ? `Write a ${column.type} value for ${column.code}; see docs/dora.md for the formats.`
          : "Give a text value.",
        param: "value"
      })
    )
  }
  return Either.right(n.value)
}

/** One cell as it is stored: canonical table code, row key, column code and value. */
export interface CheckedCell {
  readonly table: string
  readonly rowKey: string
  readonly field: string
  readonly value: string
}

/** Every check of one non-empty cell (the portal's form: a fill always has a value). */
export const checkCell = (
  templates: Templates,
  input: {
    readonly tableCode: string | undefined
    readonly rowKey: string | undefined
    readonly field: string | undefined
    readonly value: string | undefined
  }
): Either.Either<CheckedCell, DoraInputInvalid> =>
  Either.gen(function*() {
    const table = yield* resolveTable(templates, input.tableCode)
    if (input.rowKey === undefined) {
      return yield* Either.left(
        new DoraInputInvalid({ message: "The row key is missing.", fix: "Give the row's key.", param: "rowKey" })
      )
    }
    const row = yield* resolveRowKey(templates, table, input.rowKey)
    const column = yield* resolveColumn(table, input.field, "field")
    const value = yield* resolveValue(templates, table, row, column, input.value)
    if (value === null) {
      return yield* Either.left(
        new DoraInputInvalid({
          message: `A value for ${table.code} ${column.code} is required.`,
          fix: "Type the cell's value (a fill cannot clear a cell; a later fill of the same cell replaces this one).",
          param: "value"
        })
      )
    }
    return { table: table.code, rowKey: row.key, field: column.code, value }
  })
