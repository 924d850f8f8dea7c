/**
 * The DORA Register of Information draft, built from the stored cells (`dora_cells`) and the entity
 * of catalog.yml, and validated as a whole: key cells, mandatory columns, datapoint formats,
 * conditional obligations and references between tables. Pure: the Reader and `dora export` call it.
 */
import type { DoraRegister, DoraViolation } from "../domain/Compliance.js"
import { decodeRowKey, doraTemplates, encodeRowKey, keyColumns, type Template, type Templates } from "./templates.js"
import {
  cellProblem,
  countryNotApplicable,
  currencyPrefix,
  isCalendarDate,
  normaliseInput,
  notApplicable
} from "./validate.js"

/** One stored cell (a row of `dora_cells`). */
export interface DoraCell {
  readonly table_code: string
  readonly row_key: string
  readonly column_code: string
  readonly value: string
}

/** `dora.entity` of catalog.yml. */
export interface DoraEntity {
  readonly lei: string | null
  readonly name: string | null
  readonly country: string | null
  readonly currency: string | null
}

export interface BuildOptions {
  /** Reference date of the collection (`refPeriod`); default: 31 December of the previous year. */
  readonly refPeriod?: string
  /** `CON` (consolidated / sub-consolidated) or `IND` (individual); default: CON when B_01.02 lists more than one entity. */
  readonly level?: "CON" | "IND"
  readonly now?: Date
}

/** 31 December of the year before `now`: the reference date of the annual collection. */
export const defaultRefPeriod = (now: Date): string => `${now.getUTCFullYear() - 1}-12-31`

export const stamp = "DRAFT, not an official record"

/** Mutable working form of one row. */
interface WorkRow {
  readonly key: string
  readonly cells: Record<string, string>
  readonly prefilled: Array<string>
}

interface Reference {
  readonly from: string
  readonly cols: ReadonlyArray<string>
  readonly to: string
  readonly toCols: ReadonlyArray<string>
  /** Only rows for which this holds are checked. */
  readonly when?: (row: Readonly<Record<string, string>>) => boolean
}

const refsTo = (to: string, toCol: string, from: ReadonlyArray<readonly [string, string]>): Array<Reference> =>
  from.map(([table, col]) => ({ from: table, cols: [col], to, toCols: [toCol] }))

/** References between tables (README §3.3); every value on the left must be a row on the right. */
export const references: ReadonlyArray<Reference> = [
  ...refsTo("B_01.02", "c0010", [
    ["B_01.01", "c0010"],
    ["B_01.03", "c0020"],
    ["B_02.02", "c0020"],
    ["B_03.01", "c0020"],
    ["B_03.03", "c0020"],
    ["B_04.01", "c0020"],
    ["B_06.01", "c0040"]
  ]),
  ...refsTo("B_02.01", "c0010", [
    ["B_02.01", "c0030"],
    ["B_02.02", "c0010"],
    ["B_02.03", "c0010"],
    ["B_02.03", "c0020"],
    ["B_03.01", "c0010"],
    ["B_03.02", "c0010"],
    ["B_03.03", "c0010"],
    ["B_04.01", "c0010"],
    ["B_05.02", "c0010"],
    ["B_07.01", "c0010"]
  ]),
  ...refsTo("B_05.01", "c0010", [
    ["B_02.02", "c0030"],
    ["B_03.02", "c0020"],
    ["B_05.02", "c0030"],
    ["B_07.01", "c0020"],
    ["B_05.01", "c0110"]
  ]),
  { from: "B_05.02", cols: ["c0060"], to: "B_05.01", toCols: ["c0010"], when: (r) => Number(r["c0050"]) >= 2 },
  { from: "B_04.01", cols: ["c0040"], to: "B_01.03", toCols: ["c0010"], when: (r) => r["c0030"] === "eba_ZZ:x838" },
  { from: "B_02.02", cols: ["c0050", "c0020"], to: "B_06.01", toCols: ["c0010", "c0040"] }
]

const yes = "eba_BT:x28"
const realCountry = (v: string | undefined) => v !== undefined && v !== countryNotApplicable

/**
 * The register with its validation. `cells` as stored; `entity` from catalog.yml pre-fills the
 * reporting entity (B_01.01 c0010–c0030 and its own B_01.02 row c0010–c0030, c0100) where no person
 * has written those cells.
 */
export const buildRegister = (
  cells: ReadonlyArray<DoraCell>,
  entity: DoraEntity,
  templates: Templates,
  options: BuildOptions = {}
): DoraRegister => {
  const now = options.now ?? new Date()
  const refPeriod = options.refPeriod ?? defaultRefPeriod(now)
  const today = now.toISOString().slice(0, 10)
  const violations: Array<DoraViolation> = []
  const violation = (table: string, rowKey: string | null, column: string | null, reason: string) =>
    violations.push({ table, rowKey, column, reason })

  // ── group the stored cells ──────────────────────────────────────────────────────────────────
  const byCode = new Map(templates.tables.map((t) => [t.code, t]))
  const tables = new Map<string, Map<string, WorkRow>>(templates.tables.map((t) => [t.code, new Map()]))
  for (const c of cells) {
    const t = byCode.get(c.table_code)
    if (t === undefined) {
      violation(
        c.table_code,
        c.row_key,
        c.column_code,
        `unknown table code ${c.table_code}; the register has ${templates.tables.map((x) => x.code).join(", ")}`
      )
      continue
    }
    if (!t.columns.some((col) => col.code === c.column_code)) {
      violation(
        t.code,
        c.row_key,
        c.column_code,
        `unknown column ${c.column_code} of ${t.code}; its columns are ${t.columns.map((x) => x.code).join(", ")}`
      )
      continue
    }
    const rows = tables.get(t.code)!
    const row = rows.get(c.row_key) ?? { key: c.row_key, cells: {}, prefilled: [] }
    rows.set(c.row_key, row)
    row.cells[c.column_code] = c.value
  }

  // ── pre-fill the reporting entity from catalog.yml ─────────────────────────────────────────
  const norm = (table: Template, col: string, raw: string | null): string | null => {
    if (raw === null || raw.trim() === "") return null
    const column = table.columns.find((c) => c.code === col)!
    const n = normaliseInput(templates, table, column, raw)
    return n.ok ? n.value : raw.trim()
  }
  const fill = (row: WorkRow, values: Readonly<Record<string, string | null>>) => {
    for (const [col, v] of Object.entries(values)) {
      if (v === null || (row.cells[col] ?? "") !== "") continue
      row.cells[col] = v
      row.prefilled.push(col)
    }
  }
  const b0101 = byCode.get("B_01.01")
  const b0102 = byCode.get("B_01.02")
  if (b0101 !== undefined && b0102 !== undefined) {
    const lei = norm(b0101, "c0010", entity.lei)
    const base = { c0020: entity.name?.trim() || null, c0030: norm(b0101, "c0030", entity.country) }
    const rows = tables.get("B_01.01")!
    if (lei !== null) {
      for (const r of rows.values()) {
        if (r.key !== lei) {
          violation(
            "B_01.01",
            r.key,
            "c0010",
            `the reporting entity's LEI ${r.key} differs from dora.entity.lei in catalog.yml (${lei})`
          )
        }
      }
      if (rows.size === 0 || rows.has(lei)) {
        const row = rows.get(lei) ?? { key: lei, cells: {}, prefilled: [] }
        rows.set(lei, row)
        fill(row, { c0010: lei, ...base })
      }
      const scope = tables.get("B_01.02")!
      const own = scope.get(lei) ?? { key: lei, cells: {}, prefilled: [] }
      scope.set(lei, own)
      fill(own, { c0010: lei, ...base, c0100: norm(b0102, "c0100", entity.currency) })
    } else if (rows.size === 1) {
      fill([...rows.values()][0]!, base)
    }
  }

  // ── rows: keys, mandatory columns, formats ─────────────────────────────────────────────────
  const rowsOf = (code: string): Array<WorkRow> => [...(tables.get(code)?.values() ?? [])]
  for (const t of templates.tables) {
    const keys = keyColumns(t)
    for (const row of rowsOf(t.code)) {
      const parts = decodeRowKey(row.key, keys.length)
      if (parts.length !== keys.length) {
        violation(
          t.code,
          row.key,
          null,
          `the row key has ${parts.length} part(s); ${t.code} is keyed by ${
            keys.length === 0 ? "nothing (its single row is _)" : keys.map((k) => k.code).join(", ")
          }`
        )
      } else {
        keys.forEach((k, i) => {
          const part = parts[i]!
          const stored = row.cells[k.code]
          if (stored !== undefined && stored !== part) {
            violation(t.code, row.key, k.code, `key cell "${stored}" does not match the row key's value "${part}"`)
          }
          if (part !== "") row.cells[k.code] = part
        })
      }
      for (const col of t.columns) {
        const v = row.cells[col.code]
        if (v === undefined || v === "") {
          if (col.key) {
            violation(
              t.code,
              row.key,
              col.code,
              `key column ${col.code} (${col.name}) is empty; a key cell is never empty (use "${notApplicable}" or ${countryNotApplicable} where it does not apply)`
            )
          } else if (col.required) {
            violation(t.code, row.key, col.code, `mandatory column ${col.code} (${col.name}) is empty`)
          }
          continue
        }
        const p = cellProblem(templates, t, col, v, row.cells)
        if (p !== null) {
          violation(
            t.code,
            row.key,
            col.code,
            `${p}${row.prefilled.includes(col.code) ? " (pre-filled from dora.entity in catalog.yml)" : ""}`
          )
        }
      }
    }
  }

  // ── table-level and conditional obligations ───────────────────────────────────────────────
  const has = (row: WorkRow, col: string) => (row.cells[col] ?? "") !== ""
  const need = (t: string, row: WorkRow, col: string, why: string) => {
    if (!has(row, col)) {
      violation(
        t,
        row.key,
        col,
        `${col} (${byCode.get(t)?.columns.find((c) => c.code === col)?.name ?? col}) is required ${why}`
      )
    }
  }
  const entityRows = rowsOf("B_01.01")
  if (entityRows.length === 0) {
    violation(
      "B_01.01",
      null,
      null,
      "the entity maintaining the register is missing: B_01.01 needs exactly one row (set dora.entity.lei in catalog.yml or import B_01.01)"
    )
  }
  if (entityRows.length > 1) {
    violation(
      "B_01.01",
      null,
      null,
      `B_01.01 has ${entityRows.length} rows; it takes exactly one (the entity maintaining the register)`
    )
  }
  if (rowsOf("B_01.02").length === 0) {
    violation("B_01.02", null, null, "the list of entities in scope is empty; it lists at least the entity itself")
  }

  for (const r of rowsOf("B_01.02")) {
    if (has(r, "c0110")) need("B_01.02", r, "c0100", "when the total assets c0110 are reported (DPM v8803_m)")
    const type = r.cells["c0040"]
    if (type !== undefined && type !== "eba_CT:x317" && type !== "eba_CT:x318") {
      need("B_01.02", r, "c0110", "for a financial entity (c0040 other than x317/x318; DPM v8804_m)")
    }
  }
  for (const r of rowsOf("B_02.01")) {
    if (r.cells["c0020"] === "eba_CO:x3") {
      need("B_02.01", r, "c0030", "for a subsequent or associated arrangement (c0020 = eba_CO:x3; DPM v8805_m)")
    }
  }
  const functions = new Map(rowsOf("B_06.01").map((r) => [`${r.cells["c0010"]}\u0000${r.cells["c0040"]}`, r]))
  const assessed = new Set(
    rowsOf("B_07.01").map((r) => `${r.cells["c0010"]}\u0000${r.cells["c0020"]}\u0000${r.cells["c0040"]}`)
  )
  for (const r of rowsOf("B_02.02")) {
    const start = r.cells["c0070"], end = r.cells["c0080"]
    if (start !== undefined && end !== undefined && isCalendarDate(start) && isCalendarDate(end) && start > end) {
      violation("B_02.02", r.key, "c0080", `the end date ${end} is before the start date ${start}`)
    }
    if (end !== undefined && isCalendarDate(end) && end <= refPeriod) {
      need(
        "B_02.02",
        r,
        "c0090",
        `when the arrangement ended on or before the reference date ${refPeriod} (c0080 = ${end})`
      )
    }
    const fn = functions.get(`${r.cells["c0050"]}\u0000${r.cells["c0020"]}`)
    const critical = fn?.cells["c0050"] === yes
    if (critical) {
      const why = `because function ${r.cells["c0050"]} is critical or important (B_06.01 c0050 = Yes)`
      for (const col of ["c0100", "c0110", "c0120", "c0140", "c0180"]) need("B_02.02", r, col, why)
      if (!realCountry(r.cells["c0130"])) {
        violation(
          "B_02.02",
          r.key,
          "c0130",
          `the country of provision is required ${why}; ${countryNotApplicable} does not do`
        )
      }
      if (r.cells["c0140"] === yes) need("B_02.02", r, "c0170", `when data is stored (c0140 = Yes) ${why}`)
      if (!assessed.has(`${r.cells["c0010"]}\u0000${r.cells["c0030"]}\u0000${r.cells["c0060"]}`)) {
        violation(
          "B_02.02",
          r.key,
          null,
          `no assessment row in B_07.01 for arrangement ${r.cells["c0010"]}, provider ${r.cells["c0030"]} and service ${
            r.cells["c0060"]
          }, which support a critical or important function`
        )
      }
    }
    if (r.cells["c0140"] === yes && !realCountry(r.cells["c0150"])) {
      violation(
        "B_02.02",
        r.key,
        "c0150",
        `the location of the data at rest is required when data is stored (c0140 = Yes); ${countryNotApplicable} does not do`
      )
    }
  }
  for (const r of rowsOf("B_04.01")) {
    const branch = r.cells["c0040"]
    if (
      r.cells["c0030"] === "eba_ZZ:x838" && branch !== undefined && branch.toLowerCase() === notApplicable.toLowerCase()
    ) {
      violation(
        "B_04.01",
        r.key,
        "c0040",
        "a branch (c0030 = eba_ZZ:x838) needs its identification code from B_01.03, not \"Not applicable\""
      )
    }
    if (
      r.cells["c0030"] === "eba_ZZ:x839" && branch !== undefined && branch.toLowerCase() !== notApplicable.toLowerCase()
    ) {
      violation(
        "B_04.01",
        r.key,
        "c0040",
        `an entity that is not a branch (c0030 = eba_ZZ:x839) reports the branch code "${notApplicable}", not "${branch}"`
      )
    }
  }
  const direct = new Set(rowsOf("B_03.02").map((r) => r.cells["c0020"]))
  for (const r of rowsOf("B_05.01")) {
    if (has(r, "c0030")) need("B_05.01", r, "c0040", "with an additional identification code c0030")
    if (has(r, "c0040")) need("B_05.01", r, "c0030", "when its type c0040 is given")
    if (has(r, "c0100")) need("B_05.01", r, "c0090", "when the total annual expense c0100 is reported")
    if (direct.has(r.cells["c0010"])) {
      need("B_05.01", r, "c0100", "for a direct provider (one that signs an arrangement in B_03.02)")
    }
    if (r.cells["c0070"] === "eba_CT:x212") {
      for (const col of ["c0020", "c0040"]) {
        const v = r.cells[col]
        if (v !== undefined && v !== "eba_qCO:qx2000" && v !== "eba_qCO:qx2002") {
          violation(
            "B_05.01",
            r.key,
            col,
            `a legal person (c0070 = eba_CT:x212) is identified by LEI (eba_qCO:qx2000) or EUID (eba_qCO:qx2002), not ${v}`
          )
        }
      }
    }
  }
  const chains = new Map<string, Array<number>>()
  for (const r of rowsOf("B_05.02")) {
    const rank = Number(r.cells["c0050"])
    if (rank >= 2) need("B_05.02", r, "c0070", "for a subcontractor (rank 2 or more) with the recipient's code c0060")
    const chain = `${r.cells["c0010"]}\u0000${r.cells["c0020"]}`
    if (Number.isInteger(rank) && rank >= 1) chains.set(chain, [...(chains.get(chain) ?? []), rank])
  }
  for (const [chain, ranks] of chains) {
    const max = Math.max(...ranks)
    const missing = Array.from({ length: max }, (_, i) => i + 1).filter((n) => !ranks.includes(n))
    if (missing.length > 0) {
      const [arrangement, service] = chain.split("\u0000")
      violation(
        "B_05.02",
        null,
        "c0050",
        `the supply chain of arrangement ${arrangement}, service ${service} has no row of rank ${
          missing.join(", ")
        }; ranks run 1, 2, 3… without gaps`
      )
    }
  }
  for (const r of rowsOf("B_06.01")) {
    if (r.cells["c0050"] === yes) {
      need("B_06.01", r, "c0060", "for a function assessed as critical or important (c0050 = Yes)")
    }
    const d = r.cells["c0070"]
    if (d !== undefined && d > today) {
      violation("B_06.01", r.key, "c0070", `the date of the last assessment ${d} is in the future`)
    }
  }
  for (const r of rowsOf("B_07.01")) {
    const s = r.cells["c0050"]
    if (s === "eba_ZZ:x959" || s === "eba_ZZ:x960") {
      need(
        "B_07.01",
        r,
        "c0060",
        "when the provider is not or hardly substitutable (c0050 = x959 or x960; DPM v8825_m)"
      )
    }
    const d = r.cells["c0070"]
    if (d !== undefined && d > today && d !== "9999-12-31") {
      violation("B_07.01", r.key, "c0070", `the date of the last audit ${d} is in the future`)
    }
  }

  // ── references between tables ─────────────────────────────────────────────────────────────
  for (const ref of references) {
    const targets = new Set(rowsOf(ref.to).map((r) => ref.toCols.map((c) => r.cells[c] ?? "").join("\u0000")))
    for (const r of rowsOf(ref.from)) {
      if (ref.when !== undefined && !ref.when(r.cells)) continue
      const values = ref.cols.map((c) => r.cells[c] ?? "")
      if (values.some((v) => v === "")) continue
      if (!targets.has(values.join("\u0000"))) {
        const left = ref.cols.length === 1
          ? `${ref.cols[0]} "${values[0]}"`
          : `(${ref.cols.join(", ")}) = (${values.map((v) => `"${v}"`).join(", ")})`
        violation(
          ref.from,
          r.key,
          ref.cols[0]!,
          `dangling reference: ${left} has no row in ${ref.to} with ${
            ref.toCols.length === 1 ? ref.toCols[0] : `(${ref.toCols.join(", ")})`
          } equal to it`
        )
      }
    }
  }

  // ── package parameters ────────────────────────────────────────────────────────────────────
  const reportingLei = entityRows.length === 1 ? entityRows[0]!.cells["c0010"] ?? null : null
  const level = options.level ?? (rowsOf("B_01.02").length > 1 ? "CON" : "IND")
  const ownCurrency = reportingLei !== null ? tables.get("B_01.02")?.get(reportingLei)?.cells["c0100"] : undefined
  const currency = (() => {
    const configured = entity.currency?.trim()
    if (configured) return configured.toUpperCase().replace(/^EBA_CU:/, "")
    return ownCurrency?.startsWith(currencyPrefix) ? ownCurrency.slice(currencyPrefix.length) : null
  })()
  if (currency === null) {
    violation(
      "parameters",
      null,
      "baseCurrency",
      "no base currency for the monetary amounts: set dora.entity.currency in catalog.yml (ISO 4217, e.g. EUR)"
    )
  } else if (
    cellProblem(
      templates,
      b0102!,
      b0102!.columns.find((c) => c.code === "c0100")!,
      `${currencyPrefix}${currency}`,
      {}
    ) !== null
  ) {
    violation(
      "parameters",
      null,
      "baseCurrency",
      `unknown currency "${currency}" in dora.entity.currency of catalog.yml: not an active ISO 4217 code`
    )
  }

  // ── result ────────────────────────────────────────────────────────────────────────────────
  const order = new Map<string, number>(templates.tables.map((t, i) => [t.code, i]))
  order.set("parameters", -1)
  violations.sort((a, b) =>
    (order.get(a.table) ?? 999) - (order.get(b.table) ?? 999) || (a.rowKey ?? "").localeCompare(b.rowKey ?? "") ||
    (a.column ?? "").localeCompare(b.column ?? "")
  )
  const outTables = templates.tables.flatMap((t) => {
    const rows = rowsOf(t.code).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    if (rows.length === 0) return []
    return [{
      code: t.code,
      name: t.title,
      rowKey: [...t.row_key],
      rows: rows.map((r) => {
        const ordered: Record<string, string> = {}
        for (const col of t.columns) {
          if (r.cells[col.code] !== undefined && r.cells[col.code] !== "") ordered[col.code] = r.cells[col.code]!
        }
        return { key: r.key, cells: ordered, ...(r.prefilled.length > 0 ? { prefilled: [...r.prefilled].sort() } : {}) }
      })
    }]
  })
  return {
    entity: { lei: entity.lei, name: entity.name, country: entity.country, currency: entity.currency },
    tables: outTables,
    validation: { valid: violations.length === 0, violations },
    parameters: {
      entityID: reportingLei !== null ? `rs:${reportingLei}.${level}` : null,
      refPeriod,
      baseCurrency: currency !== null ? `iso4217:${currency}` : null,
      decimalsInteger: "0",
      decimalsMonetary: "-3"
    },
    stamp
  }
}

/** The register the read surfaces show (`dora show`, get_dora, GET /api/v1/dora): the bundled templates, default parameters. */
export const doraRegisterFrom = (
  cells: ReadonlyArray<DoraCell>,
  entity: DoraEntity,
  options: BuildOptions = {}
): DoraRegister => buildRegister(cells, entity, doraTemplates(), options)

export { encodeRowKey }
