/**
 * Filling and exporting the DORA Register of Information draft. Writes go to `dora_cells`, each
 * attributed to the acting person and logged to the change-log (`dora.import`, `dora.set`); bad
 * input is `DORA_INPUT_INVALID` naming the table, row, column and why; an export writes the
 * xBRL-CSV package only when the whole register validates (`DORA_NOT_SUBMITTABLE` otherwise).
 */
import { parse } from "csv-parse/sync"
import { DateTime, Effect } from "effect"
import * as path from "node:path"
import type { DoraRegister, DoraViolation } from "../domain/Compliance.js"
import { columnList, resolveColumn, resolveRowKey, resolveTable, resolveValue } from "../dora/cell.js"
import { buildPackage, zipPackage } from "../dora/package.js"
import { buildRegister, defaultRefPeriod, type DoraCell, type DoraEntity } from "../dora/register.js"
import {
  doraTemplates,
  encodeRowKey,
  findColumn,
  keyColumns,
  singleRowKey,
  type TemplateColumn
} from "../dora/templates.js"
import { isCalendarDate, normaliseInput } from "../dora/validate.js"
import { DoraInputInvalid, DoraNotSubmittable, InvalidParam } from "../errors/index.js"
import { actor, AppEnv } from "./AppEnv.js"
import { ChangeLog } from "./ChangeLog.js"
import { ConfigFile } from "./ConfigFile.js"
import { FileError, Files, outputFolderTarget, readUserFile, reasonOf } from "./Files.js"
import { type DoraCellRow, Store, StoreReader } from "./Store.js"

// ── scope ───────────────────────────────────────────────────────────────────────────────────────
const notInScope = (what: string) =>
  new DoraInputInvalid({
    message:
      `DORA is not in scope for this catalog (dora.inScope is not true in catalog.yml), so there is no register to ${what}.`,
    fix:
      "If the organisation is a financial entity under DORA, set `dora: { inScope: true, entity: { lei, name, country, currency } }` in catalog.yml.",
    param: "dora.inScope"
  })

/** The configured entity when DORA is in scope; `DORA_INPUT_INVALID` (fix: set dora.inScope) otherwise. */
export const doraScope = (what: string) =>
  Effect.gen(function*() {
    const loaded = yield* (yield* ConfigFile).load()
    const dora = loaded.file.dora
    if (dora?.inScope !== true) return yield* notInScope(what)
    return {
      lei: dora.entity?.lei ?? null,
      name: dora.entity?.name ?? null,
      country: dora.entity?.country ?? null,
      currency: dora.entity?.currency ?? null
    } satisfies DoraEntity
  })

// ── input checks (pure: src/dora/cell.ts, shared with the portal's fill form) ─────────────────────
/** One problem of an import file. */
export interface ImportProblem {
  readonly line: number
  readonly rowKey: string | null
  readonly column: string | null
  readonly reason: string
}

export interface ImportResult {
  readonly table: string
  readonly file: string
  readonly mode: "replace" | "merge"
  readonly rows: number
  readonly cells: number
  /** Rows the table held before (replace mode removes them). */
  readonly previousRows: number
  readonly by: string
  readonly at: string
  /** What still stops an export, in this table. */
  readonly violations: ReadonlyArray<DoraViolation>
}

export interface SetResult {
  readonly table: string
  readonly rowKey: string
  readonly column: string | null
  readonly value: string | null
  readonly previous: string | null
  readonly deleted: boolean
  readonly by: string
  readonly at: string
  readonly violations: ReadonlyArray<DoraViolation>
}

/** Parses a CSV file: header row of column codes plus data rows (`,` or `;` separated, UTF-8, BOM allowed). */
const parseCsv = (text: string): Array<{ line: number; record: Array<string> }> => {
  const firstLine = text.replace(/^\uFEFF/, "").split(/\r?\n/).find((l) => l.trim() !== "") ?? ""
  const delimiter = !firstLine.includes(",") && firstLine.includes(";") ? ";" : ","
  const rows = parse(text, {
    bom: true,
    delimiter,
    skip_empty_lines: true,
    info: true,
    relax_column_count: false
  }) as unknown as Array<{ info: { lines: number }; record: Array<string> }>
  return rows.map((r) => ({ line: r.info.lines, record: r.record }))
}

const problemLine = (p: ImportProblem) =>
  `line ${p.line}${p.rowKey !== null ? ` (row ${p.rowKey})` : ""}${
    p.column !== null ? `, ${p.column}` : ""
  }: ${p.reason}`

// ── the service ─────────────────────────────────────────────────────────────────────────────────
/** Writes to the DORA register draft (CLI only). */
export class Dora extends Effect.Service<Dora>()("catalog/Dora", {
  effect: Effect.gen(function*() {
    const reader = yield* StoreReader
    const store = yield* Store
    const changeLog = yield* ChangeLog
    const env = yield* AppEnv
    const files = yield* Files
    const templates = doraTemplates()

    const openIn = (entity: DoraEntity, table: string, rowKey?: string) =>
      reader.doraCells.pipe(
        Effect.map((cs) =>
          buildRegister(cs, entity, templates).validation.violations.filter((v) =>
            v.table === table && (rowKey === undefined || v.rowKey === rowKey)
          )
        )
      )
    const log = (at: string, kind: string, entity: string, detail: object, by: string) =>
      changeLog.record({ at, scanId: null, kind, entity, sourceId: null, detail, by })

    /** `dora import <tableCode> <file.csv>`: replaces the table's rows with the file's (or merges them with `merge`). */
    const importCsv = Effect.fn("Dora.importCsv")(
      function*(
        entity: DoraEntity,
        tableCode: string | undefined,
        file: string | undefined,
        mode: "replace" | "merge"
      ) {
        const table = yield* resolveTable(templates, tableCode)
        if (file === undefined || file.trim() === "") {
          return yield* new DoraInputInvalid({
            message: "The CSV file is missing.",
            fix: `Usage: catalog dora import ${table.code} <file.csv> — a header row of column codes (${
              table.columns.map((c) => c.code).join(",")
            }) plus one line per row.`,
            param: "file",
            usage: true
          })
        }
        const { path: abs, text } = yield* readUserFile(env.cwd, file, {
          flag: "dora import",
          what: `a CSV file of ${table.code} rows`,
          refuse: (message) =>
            new DoraInputInvalid({
              message,
              fix: "Give the path of a CSV file (relative to the working folder).",
              param: "file"
            })
        }).pipe(Effect.provideService(Files, files))
        const records = yield* Effect.try({
          try: () => parseCsv(text),
          catch: (e) =>
            new DoraInputInvalid({
              message: `${file} is not a readable CSV file: ${e instanceof Error ? e.message : String(e)}`,
              fix:
                "Write a header row of column codes and one line per row, comma-separated, with double quotes around values that contain commas, quotes or line breaks.",
              param: "file"
            })
        })
        const header = records[0]
        if (header === undefined) {
          return yield* new DoraInputInvalid({
            message: `${file} is empty; it needs a header row of ${table.code} column codes.`,
            fix: `Header: ${table.columns.map((c) => c.code).join(",")}`,
            param: "file"
          })
        }
        // Header: every cell a column code of the table, no duplicates, every key column present.
        const headerProblems: Array<ImportProblem> = []
        const columns: Array<TemplateColumn> = []
        header.record.forEach((h, i) => {
          const c = findColumn(table, h)
          if (c === undefined) {
            headerProblems.push({
              line: header.line,
              rowKey: null,
              column: h,
              reason: `header cell ${i + 1} "${h}" is not a column of ${table.code} (${
                table.columns.map((x) => x.code).join(", ")
              })`
            })
          } else if (columns.some((x) => x.code === c.code)) {
            headerProblems.push({
              line: header.line,
              rowKey: null,
              column: c.code,
              reason: `column ${c.code} appears twice in the header`
            })
          } else columns.push(c)
        })
        const keys = keyColumns(table)
        for (const k of keys) {
          if (!header.record.some((h) => findColumn(table, h)?.code === k.code)) {
            headerProblems.push({
              line: header.line,
              rowKey: null,
              column: k.code,
              reason: `key column ${k.code} (${k.name}) is missing from the header; every row needs it`
            })
          }
        }
        if (headerProblems.length > 0) {
          return yield* new DoraInputInvalid({
            message: `${file} cannot be imported into ${table.code}; nothing was imported:\n${
              headerProblems.map((p) => `  ${problemLine(p)}`).join("\n")
            }`,
            fix: `The header row lists ${table.code} column codes: ${columnList(table)}.`,
            param: "file",
            details: { table: table.code, problems: headerProblems }
          })
        }
        // Rows.
        const problems: Array<ImportProblem> = []
        const seen = new Map<string, number>()
        const rows: Array<{ key: string; cells: Record<string, string> }> = []
        const data = records.slice(1)
        if (keys.length === 0 && data.length > 1) {
          problems.push({
            line: data[1]!.line,
            rowKey: singleRowKey,
            column: null,
            reason: `${table.code} has a single row; the file has ${data.length}`
          })
        }
        for (const { line, record } of data) {
          const cellsOf: Record<string, string> = {}
          const rowProblems: Array<ImportProblem> = []
          columns.forEach((c, i) => {
            const raw = (record[i] ?? "").trim()
            if (raw === "") {
              if (c.key) {
                rowProblems.push({
                  line,
                  rowKey: null,
                  column: c.code,
                  reason:
                    `key column ${c.code} (${c.name}) is empty; a key cell is never empty (use "Not applicable" or eba_GA:qx2007 where it does not apply)`
                })
              }
              return
            }
            const n = normaliseInput(templates, table, c, raw)
            if (n.ok) cellsOf[c.code] = n.value
            else rowProblems.push({ line, rowKey: null, column: c.code, reason: n.reason })
          })
          const key = keys.every((k) => cellsOf[k.code] !== undefined)
            ? encodeRowKey(keys.map((k) => cellsOf[k.code]!))
            : null
          problems.push(...rowProblems.map((p) => ({ ...p, rowKey: key })))
          if (key === null) continue
          const dup = seen.get(key)
          if (dup !== undefined) {
            problems.push({
              line,
              rowKey: key,
              column: null,
              reason: `duplicate row key; line ${dup} has the same ${keys.map((k) => k.code).join(", ")}`
            })
          }
          seen.set(key, line)
          rows.push({ key, cells: cellsOf })
        }
        if (problems.length > 0) {
          const shown = problems.slice(0, 50)
          return yield* new DoraInputInvalid({
            message: `${file}: ${problems.length} problem(s) in ${table.code}; nothing was imported:\n${
              shown.map((p) => `  ${problemLine(p)}`).join("\n")
            }${
              problems.length > shown.length
                ? `\n  … and ${problems.length - shown.length} more (see error.details)`
                : ""
            }`,
            fix:
              "Correct the cells named above and import the file again; codes may be written bare (DE, EUR, x28) or in full (eba_GA:DE).",
            param: "file",
            details: { table: table.code, problems }
          })
        }
        const by = actor(env)
        const at = DateTime.formatIso(yield* DateTime.now)
        const previousRows = yield* reader.doraRowCount(table.code)
        const toWrite = rows.flatMap((r): Array<DoraCellRow> =>
          Object.entries(r.cells).map(([column_code, value]) => ({
            table_code: table.code,
            row_key: r.key,
            column_code,
            value,
            by,
            at
          }))
        )
        yield* store.transaction(Effect.gen(function*() {
          if (mode === "replace") yield* store.deleteDoraCells({ table: table.code })
          else {
            const codes = columns.map((c) => c.code)
            for (const r of rows) yield* store.deleteDoraCells({ table: table.code, rowKey: r.key, columns: codes })
          }
          yield* store.upsertDoraCells(toWrite)
          yield* log(at, "dora.import", table.code, {
            table: table.code,
            file: path.basename(abs),
            mode,
            rows: rows.length,
            cells: toWrite.length,
            previousRows
          }, by)
        })).pipe(Effect.orDie)
        const violations = yield* openIn(entity, table.code).pipe(Effect.orDie)
        return {
          table: table.code,
          file: abs,
          mode,
          rows: rows.length,
          cells: toWrite.length,
          previousRows,
          by,
          at,
          violations
        } satisfies ImportResult
      }
    )

    /** `dora set <tableCode> <rowKey> <field> <value>`: one cell (an empty value clears it); `remove` deletes the row. */
    const set = Effect.fn("Dora.set")(
      function*(
        entity: DoraEntity,
        input: {
          readonly tableCode: string | undefined
          readonly rowKey: string | undefined
          readonly field: string | undefined
          readonly value: string | undefined
          readonly remove: boolean
          /** Who the write is attributed to (default: the acting person, CATALOG_SIGNER_EMAIL or the OS user). */
          readonly by?: string
        }
      ) {
        const table = yield* resolveTable(templates, input.tableCode)
        if (input.rowKey === undefined) {
          const keys = keyColumns(table)
          return yield* new DoraInputInvalid({
            message: "The row key is missing.",
            fix: `Usage: catalog dora set ${table.code} <rowKey> <field> <value>; a ${table.code} row key is ${
              keys.length === 0 ? `"${singleRowKey}"` : keys.map((k) => `<${k.code}>`).join("|")
            }.`,
            param: "rowKey",
            usage: true
          })
        }
        const { key, parts } = yield* resolveRowKey(templates, table, input.rowKey)
        const by = input.by ?? actor(env)
        const at = DateTime.formatIso(yield* DateTime.now)
        const entityId = (col: string | null) => `${table.code}[${key}]${col !== null ? `.${col}` : ""}`
        if (input.remove) {
          const n = yield* reader.doraCellCount(table.code, key).pipe(Effect.orDie)
          if (n === 0) {
            return yield* new DoraInputInvalid({
              message: `${table.code} has no row "${key}" to remove.`,
              fix: "List the rows with `catalog dora show --json`.",
              param: "rowKey"
            })
          }
          yield* store.transaction(Effect.gen(function*() {
            yield* store.deleteDoraCells({ table: table.code, rowKey: key })
            yield* log(at, "dora.set", entityId(null), { table: table.code, rowKey: key, removed: true, cells: n }, by)
          })).pipe(Effect.orDie)
          return {
            table: table.code,
            rowKey: key,
            column: null,
            value: null,
            previous: null,
            deleted: true,
            by,
            at,
            violations: yield* openIn(entity, table.code, key).pipe(Effect.orDie)
          } satisfies SetResult
        }
        const column = yield* resolveColumn(table, input.field, "field")
        const keys = keyColumns(table)
        const value = yield* resolveValue(templates, table, { key, parts }, column, input.value)
        const prev = yield* reader.doraCell(table.code, key, column.code).pipe(Effect.orDie)
        yield* store.transaction(Effect.gen(function*() {
          // The key cells of a new row come from its row key.
          yield* store.insertMissingDoraCells(
            keys.map((k, i) => ({
              table_code: table.code,
              row_key: key,
              column_code: k.code,
              value: parts[i]!,
              by,
              at
            }))
          )
          if (value === null) {
            yield* store.deleteDoraCells({ table: table.code, rowKey: key, columns: [column.code] })
          } else {
            yield* store.upsertDoraCells([{
              table_code: table.code,
              row_key: key,
              column_code: column.code,
              value,
              by,
              at
            }])
          }
          yield* log(at, "dora.set", entityId(column.code), {
            table: table.code,
            rowKey: key,
            column: column.code,
            value,
            previous: prev
          }, by)
        })).pipe(Effect.orDie)
        return {
          table: table.code,
          rowKey: key,
          column: column.code,
          value,
          previous: prev,
          deleted: false,
          by,
          at,
          violations: yield* openIn(entity, table.code, key).pipe(Effect.orDie)
        } satisfies SetResult
      }
    )

    return { importCsv, set } as const
  })
}) {}

// ── export ──────────────────────────────────────────────────────────────────────────────────────
export interface ExportOptions {
  /** Folder the package is written to (default `./dora-export`). */
  readonly out?: string
  /** Reference date `YYYY-MM-DD` (default: 31 December of the previous year). */
  readonly refDate?: string
  readonly level?: "CON" | "IND"
}

export interface ExportResult {
  readonly name: string
  /** The package to submit: `<out>/<name>.zip` (one root folder `<name>/`). */
  readonly package: string
  /** The same files unpacked, for review: `<out>/<name>/`. */
  readonly folder: string
  readonly files: ReadonlyArray<string>
  readonly parameters: Readonly<Record<string, string>>
  readonly filingIndicators: ReadonlyArray<{ readonly templateID: string; readonly reported: boolean }>
  readonly tables: ReadonlyArray<{ readonly code: string; readonly file: string; readonly rows: number }>
}

/** The message of `DORA_NOT_SUBMITTABLE`: every violation with its location. */
export const violationLines = (violations: ReadonlyArray<DoraViolation>): string =>
  violations.map((v) =>
    `  - ${v.table}${v.rowKey !== null ? ` row ${v.rowKey}` : ""}${
      v.column !== null ? `, ${v.column}` : ""
    }: ${v.reason}`
  ).join("\n")

/**
 * `dora export`: validates the whole register and writes the xBRL-CSV package, or fails with
 * `DORA_NOT_SUBMITTABLE` listing every violation (nothing is written then).
 */
export const exportDora = Effect.fn("Dora.export")(
  function*(cells: ReadonlyArray<DoraCell>, entity: DoraEntity, options: ExportOptions) {
    const env = yield* AppEnv
    const now = yield* DateTime.nowAsDate
    const refPeriod = options.refDate ?? defaultRefPeriod(now)
    if (!isCalendarDate(refPeriod) || refPeriod > now.toISOString().slice(0, 10)) {
      return yield* new DoraInputInvalid({
        message:
          `--ref-date "${refPeriod}" is not a reference date: it must be a real date written YYYY-MM-DD and not in the future.`,
        fix:
          "Pass the collection's reference date, e.g. --ref-date 2025-12-31 (default: 31 December of the previous year).",
        param: "ref-date"
      })
    }
    const outRefusal = (message: string) =>
      new InvalidParam({
        message,
        fix: "Pass --out a folder you can write (default: dora-export in the working folder).",
        param: "out"
      })
    const target = yield* outputFolderTarget(env.cwd, options.out ?? "dora-export", {
      flag: "--out",
      what: "a folder for the xBRL-CSV package",
      refuse: outRefusal
    })
    const templates = doraTemplates()
    const register: DoraRegister = buildRegister(cells, entity, templates, {
      refPeriod,
      now,
      ...(options.level !== undefined ? { level: options.level } : {})
    })
    const { violations } = register.validation
    if (violations.length > 0) {
      return yield* new DoraNotSubmittable({
        message: `The DORA register has ${violations.length} validation problem(s); no xBRL-CSV was produced:\n${
          violationLines(violations)
        }`,
        fix:
          "Fix every violation listed (catalog dora set / dora import), then run `catalog dora export` again; `catalog dora show --json` lists them too.",
        details: { violations }
      })
    }
    const level = register.parameters?.entityID?.endsWith(".CON") === true ? "CON" : "IND"
    const pkg = buildPackage(register, templates, { refPeriod, level, createdAt: now })
    const out = target.path
    const folder = path.join(out, pkg.name)
    const zipFile = `${folder}.zip`
    // Private (folders 0700, files 0600), built under temporary names and renamed in: never half a package.
    const disk = yield* Files
    yield* Effect.gen(function*() {
      yield* disk.ensurePrivateDir(out, { tighten: options.out === undefined })
      const tmp = path.join(out, `.${pkg.name}.${process.pid}.tmp`)
      yield* Effect.gen(function*() {
        yield* disk.remove(tmp, { recursive: true })
        for (const f of pkg.files) yield* disk.writePrivateFile(path.join(tmp, ...f.path.split("/")), f.content)
        // Zipping failed inside the same attempt as the writes before: the same refusal, the same clean-up.
        const zipped = yield* Effect.try({
          try: () => zipPackage(pkg, now),
          catch: (e) => new FileError({ reason: reasonOf(e) })
        })
        yield* disk.writePrivateFile(`${tmp}.zip`, zipped)
        yield* disk.rename(tmp, folder)
        yield* disk.rename(`${tmp}.zip`, zipFile)
      }).pipe(
        Effect.catchAll((e) =>
          disk.remove(tmp, { recursive: true }).pipe(
            Effect.zipRight(disk.remove(`${tmp}.zip`)),
            Effect.zipRight(Effect.fail(e))
          )
        )
      )
    }).pipe(
      Effect.mapError((e) => outRefusal(`The package cannot be written to ${out} (${e.reason}); nothing was written.`))
    )
    return {
      name: pkg.name,
      package: zipFile,
      folder,
      files: pkg.files.map((f) => `${pkg.name}/${f.path}`),
      parameters: Object.fromEntries(pkg.parameters),
      filingIndicators: templates.tables.map((t) => ({ templateID: t.code, reported: true })),
      tables: templates.tables.map((t) => ({
        code: t.code,
        file: `reports/${t.csv_file}`,
        rows: register.tables.find((x) => x.code === t.code)?.rows.length ?? 0
      }))
    } satisfies ExportResult
  }
)
