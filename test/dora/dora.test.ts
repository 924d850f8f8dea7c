/**
 * DORA register: datapoint validators (ISO 17442 check digits on real LEIs, dates, ISO 3166-1 and
 * ISO 4217 codes, closed lists), input normalisation, the whole-register validation and the
 * xBRL-CSV package layout.
 */
import { unzipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { buildPackage, packageNamePattern, zipPackage } from "../../src/dora/package.js"
import { buildRegister, type DoraCell, type DoraEntity, doraRegisterFrom } from "../../src/dora/register.js"
import { decodeRowKey, doraTemplates, encodeRowKey, findColumn, findTable } from "../../src/dora/templates.js"
import {
  cellProblem,
  isCalendarDate,
  isCountryCode,
  isCurrencyCode,
  isValidLei,
  leiCheckDigits,
  leiProblem,
  normaliseInput,
  resolveEnum
} from "../../src/dora/validate.js"

const templates = doraTemplates()
const table = (code: string) => findTable(templates, code)!
const column = (t: string, c: string) => findColumn(table(t), c)!
const norm = (t: string, c: string, v: string) => normaliseInput(templates, table(t), column(t, c), v)
const problem = (t: string, c: string, v: string, row: Record<string, string> = {}) =>
  cellProblem(templates, table(t), column(t, c), v, row)

describe("ISO 17442 LEI check digits (MOD 97-10)", () => {
  // Published LEIs: GLEIF, Deutsche Bank AG, BNP Paribas, Apple Inc., The Goldman Sachs Group.
  const real = [
    "506700GE1G29325QX363",
    "7LTWFZYICNSX8D621K86",
    "R0MUWSFPU8MPRO8K5P83",
    "HWUPKR0MPOU8FGXBT394",
    "784F5XWPLTWKTBV3E584"
  ]

  it("accepts real LEIs and recomputes their check digits", () => {
    for (const lei of real) {
      expect(isValidLei(lei), lei).toBe(true)
      expect(leiCheckDigits(lei.slice(0, 18)), lei).toBe(lei.slice(18))
      expect(leiProblem(lei)).toBeNull()
    }
  })

  it("matches the digest's worked example", () => {
    expect(leiCheckDigits("506700GE1G29325QX3")).toBe("63")
  })

  it("rejects a changed check digit, a changed character, lower case and wrong lengths", () => {
    expect(isValidLei("506700GE1G29325QX364")).toBe(false)
    expect(isValidLei("506700GE1G29325QY363")).toBe(false)
    expect(isValidLei("7LTWFZYICNSX8D621K68")).toBe(false)
    expect(isValidLei("7ltwfzyicnsx8d621k86")).toBe(false)
    expect(isValidLei("7LTWFZYICNSX8D621K8")).toBe(false)
    expect(isValidLei("7LTWFZYICNSX8D621K8AB")).toBe(false)
    expect(isValidLei("7LTWFZYICNSX8D621KAB")).toBe(false)
  })

  it("says which check digits were expected", () => {
    expect(leiProblem("506700GE1G29325QX364")).toMatch(/check digits.*63/)
    expect(leiProblem("NOT-AN-LEI")).toMatch(/not an LEI/)
  })
})

describe("dates and code lists", () => {
  it("dates are real calendar days written YYYY-MM-DD", () => {
    for (const d of ["2024-02-29", "2025-12-31", "9999-12-31", "2000-02-29"]) expect(isCalendarDate(d), d).toBe(true)
    for (
      const d of [
        "2023-02-29",
        "1900-02-29",
        "2025-13-01",
        "2025-04-31",
        "2025-00-10",
        "2025-1-01",
        "31/12/2025",
        "2025-12-31T00:00:00"
      ]
    ) expect(isCalendarDate(d), d).toBe(false)
  })

  it("countries are assigned ISO 3166-1 alpha-2 codes", () => {
    for (const c of ["DE", "GR", "IE", "US", "GB", "LU"]) expect(isCountryCode(c), c).toBe(true)
    for (const c of ["EL", "UK", "XX", "ZZ", "de", "DEU"]) expect(isCountryCode(c), c).toBe(false)
  })

  it("currencies are active ISO 4217 codes", () => {
    for (const c of ["EUR", "USD", "CHF", "PLN", "XCG"]) expect(isCurrencyCode(c), c).toBe(true)
    for (const c of ["HRK", "DEM", "XXX", "EURO", "eur"]) expect(isCurrencyCode(c), c).toBe(false)
  })
})

describe("input normalisation (dora import / dora set)", () => {
  it("writes countries, currencies and closed-list members in their eba_ form", () => {
    expect(norm("B_01.01", "c0030", "de")).toEqual({ ok: true, value: "eba_GA:DE" })
    expect(norm("B_01.01", "c0030", "eba_GA:FR")).toEqual({ ok: true, value: "eba_GA:FR" })
    expect(norm("B_02.01", "c0040", "eur")).toEqual({ ok: true, value: "eba_CU:EUR" })
    expect(norm("B_06.01", "c0050", "Yes")).toEqual({ ok: true, value: "eba_BT:x28" })
    expect(norm("B_06.01", "c0050", "x21")).toEqual({ ok: true, value: "eba_BT:x21" })
    expect(norm("B_02.02", "c0060", "S19")).toEqual({ ok: true, value: "eba_TA:S19" })
    expect(norm("B_01.02", "c0040", "Credit institution")).toEqual({ ok: true, value: "eba_CT:x12" })
    expect(norm("B_01.01", "c0010", "7ltwfzyicnsx8d621k86")).toEqual({ ok: true, value: "7LTWFZYICNSX8D621K86" })
    expect(norm("B_03.01", "c0030", "TRUE")).toEqual({ ok: true, value: "true" })
    expect(norm("B_05.01", "c0020", "LEI")).toEqual({ ok: true, value: "eba_qCO:qx2000" })
    expect(norm("B_05.01", "c0020", "vat number")).toEqual({ ok: true, value: "eba_qCO:qx2004" })
    expect(norm("B_05.01", "c0020", "PNR")).toEqual({ ok: true, value: "eba_qCO:qx2005" })
  })

  it("refuses values that cannot be of the column's type", () => {
    expect(norm("B_01.01", "c0030", "Germany").ok).toBe(false)
    expect(norm("B_01.01", "c0060", "31/12/2025").ok).toBe(false)
    expect(norm("B_06.01", "c0050", "maybe").ok).toBe(false)
    expect(norm("B_02.01", "c0050", "1,000.00").ok).toBe(false)
    expect(norm("B_06.01", "c0080", "4.5").ok).toBe(false)
    expect(norm("B_01.01", "c0010", "ABC").ok).toBe(false)
    expect(norm("B_01.01", "c0020", "#name").ok).toBe(false)
  })

  it("accepts shapes whose validity is checked on export (check digits, calendar, assignment)", () => {
    expect(norm("B_01.01", "c0010", "506700GE1G29325QX364").ok).toBe(true)
    expect(norm("B_01.01", "c0060", "2025-02-30").ok).toBe(true)
    expect(norm("B_01.01", "c0030", "XX")).toEqual({ ok: true, value: "eba_GA:XX" })
  })

  it("the licenced-activity list is open: eba_TA:x<number>", () => {
    const def = templates.enums["LICENCED_ACTIVITY"]!
    expect(resolveEnum(def, "x162")).toBe("eba_TA:x162")
    expect(resolveEnum(def, "eba_TA:x28")).toBe("eba_TA:x28")
    expect(resolveEnum(def, "lending")).toBeNull()
  })
})

describe("cell validity", () => {
  it("reports unknown countries and currencies, bad dates and LEI check digits", () => {
    expect(problem("B_01.01", "c0030", "eba_GA:XX")).toMatch(/unknown country "XX"/)
    expect(problem("B_01.01", "c0030", "eba_GA:DE")).toBeNull()
    expect(problem("B_02.01", "c0040", "eba_CU:HRK")).toMatch(/unknown currency/)
    expect(problem("B_01.01", "c0060", "2025-02-30")).toMatch(/not a valid date/)
    expect(problem("B_01.01", "c0010", "506700GE1G29325QX364")).toMatch(/check digits/)
    expect(problem("B_06.01", "c0050", "eba_BT:x99")).toMatch(/closed list/)
    expect(problem("B_02.01", "c0050", "-1")).toMatch(/negative/)
    expect(problem("B_05.02", "c0050", "0")).toMatch(/rank/)
  })

  it("`not applicable` countries only in the key country columns of B_02.02", () => {
    expect(problem("B_02.02", "c0150", "eba_GA:qx2007")).toBeNull()
    expect(problem("B_01.01", "c0030", "eba_GA:qx2007")).toMatch(/only allowed/)
  })

  it("identification codes follow their type-of-code column", () => {
    expect(problem("B_05.01", "c0010", "506700GE1G29325QX364", { c0020: "eba_qCO:qx2000" })).toMatch(/check digits/)
    expect(problem("B_05.01", "c0010", "506700GE1G29325QX363", { c0020: "eba_qCO:qx2000" })).toBeNull()
    expect(problem("B_05.01", "c0010", "NLNHR.12345678", { c0020: "eba_qCO:qx2002" })).toBeNull()
    expect(problem("B_05.01", "c0010", "12345678", { c0020: "eba_qCO:qx2002" })).toMatch(/EUID/)
    expect(problem("B_05.01", "c0010", "DE123456789", { c0020: "eba_qCO:qx2004" })).toBeNull()
  })
})

describe("tables, columns and row keys", () => {
  it("finds tables and columns in the usual spellings", () => {
    for (const s of ["B_01.02", "b_01.02", "b_01.02.csv", "B.01.02"]) {
      expect(findTable(templates, s)?.code, s).toBe("B_01.02")
    }
    expect(findTable(templates, "B_08.01")).toBeUndefined()
    for (const s of ["c0020", "C0020", "0020", "B_01.02.0020"]) {
      expect(findColumn(table("B_01.02"), s)?.code, s).toBe("c0020")
    }
    expect(findColumn(table("B_01.02"), "c0120")).toBeUndefined()
  })

  it("every table of the taxonomy is there, with its CSV file and key columns", () => {
    expect(templates.tables.map((t) => t.code)).toEqual([
      "B_01.01",
      "B_01.02",
      "B_01.03",
      "B_02.01",
      "B_02.02",
      "B_02.03",
      "B_03.01",
      "B_03.02",
      "B_03.03",
      "B_04.01",
      "B_05.01",
      "B_05.02",
      "B_06.01",
      "B_07.01",
      "B_99.01"
    ])
    for (const t of templates.tables) expect(t.csv_file).toBe(`${t.code.toLowerCase()}.csv`)
    expect(table("B_02.02").row_key).toEqual(["c0010", "c0020", "c0030", "c0050", "c0060", "c0130", "c0150", "c0160"])
  })

  it("row keys join the key values with | and survive a | inside a value", () => {
    expect(encodeRowKey(["CTR-1", "969500EXAMPLEBANK039"])).toBe("CTR-1|969500EXAMPLEBANK039")
    expect(decodeRowKey(encodeRowKey(["A|B", "50%"]), 2)).toEqual(["A|B", "50%"])
    expect(encodeRowKey([])).toBe("_")
  })
})

// ── a whole register ──────────────────────────────────────────────────────────────────────────
const E = "969500EXAMPLEBANK039"
const P = "5299000CLOUDPROV0184"
const entity: DoraEntity = { lei: E, name: "Example Bank AG", country: "DE", currency: "EUR" }
const rows: Record<string, Record<string, Record<string, string>>> = {
  "B_01.01": { [E]: { c0040: "eba_CT:x12", c0050: "BaFin", c0060: "2025-01-15" } },
  "B_01.02": {
    [E]: {
      c0040: "eba_CT:x12",
      c0050: "eba_RP:x21",
      c0060: E,
      c0070: "2025-01-10",
      c0080: "2024-01-01",
      c0090: "9999-12-31",
      c0110: "125000000"
    }
  },
  "B_02.01": { "CTR-001": { c0010: "CTR-001", c0020: "eba_CO:x1", c0040: "eba_CU:EUR", c0050: "250000" } },
  "B_02.02": {
    [`CTR-001|${E}|${P}|F1|eba_TA:S19|eba_GA:IE|eba_GA:IE|eba_GA:IE`]: {
      c0040: "eba_qCO:qx2000",
      c0070: "2023-01-01",
      c0080: "9999-12-31",
      c0100: "90",
      c0110: "180",
      c0120: "eba_GA:DE",
      c0140: "eba_BT:x28",
      c0170: "eba_ZZ:x793",
      c0180: "eba_ZZ:x797"
    }
  },
  "B_03.01": { [`CTR-001|${E}`]: { c0030: "true" } },
  "B_03.02": { [`CTR-001|${P}`]: { c0030: "eba_qCO:qx2000" } },
  "B_04.01": { [`CTR-001|${E}|Not applicable`]: { c0030: "eba_ZZ:x839" } },
  "B_05.01": {
    [P]: {
      c0020: "eba_qCO:qx2000",
      c0050: "Cloud Provider SE",
      c0060: "Cloud Provider SE",
      c0070: "eba_CT:x212",
      c0080: "eba_GA:IE",
      c0090: "eba_CU:EUR",
      c0100: "250000",
      c0110: P,
      c0120: "eba_qCO:qx2000"
    }
  },
  "B_05.02": { [`CTR-001|eba_TA:S19|${P}|1|${P}`]: { c0040: "eba_qCO:qx2000", c0070: "eba_qCO:qx2000" } },
  "B_06.01": {
    [`F1|${E}`]: {
      c0020: "eba_TA:x162",
      c0030: "Payments",
      c0050: "eba_BT:x28",
      c0060: "Core payment service",
      c0070: "2024-11-30",
      c0080: "4",
      c0090: "1",
      c0100: "eba_ZZ:x793"
    }
  },
  "B_07.01": {
    [`CTR-001|${P}|eba_TA:S19`]: {
      c0030: "eba_qCO:qx2000",
      c0050: "eba_ZZ:x960",
      c0060: "eba_ZZ:x964",
      c0070: "2024-10-01",
      c0080: "eba_BT:x28",
      c0090: "eba_ZZ:x966",
      c0100: "eba_ZZ:x793",
      c0110: "eba_BT:x28"
    }
  }
}
const toCells = (r: typeof rows): Array<DoraCell> =>
  Object.entries(r).flatMap(([table_code, byKey]) =>
    Object.entries(byKey).flatMap(([row_key, cs]) =>
      Object.entries(cs).map(([column_code, value]) => ({ table_code, row_key, column_code, value }))
    )
  )
const withCell = (t: string, key: string, col: string, value: string | null) => {
  const copy = JSON.parse(JSON.stringify(rows)) as typeof rows
  const row = copy[t]![key] ?? (copy[t]![key] = {})
  if (value === null) delete row[col]
  else row[col] = value
  return toCells(copy)
}
const now = new Date("2026-03-01T12:00:00Z")
const violationsOf = (cells: Array<DoraCell>, e: DoraEntity = entity) =>
  buildRegister(cells, e, templates, { now }).validation.violations

describe("the register as a whole", () => {
  it("a complete register validates; catalog.yml pre-fills the entity", () => {
    const reg = buildRegister(toCells(rows), entity, templates, { now })
    expect(reg.validation.violations).toEqual([])
    expect(reg.validation.valid).toBe(true)
    const b0101 = reg.tables.find((t) => t.code === "B_01.01")!.rows[0]!
    expect(b0101.cells).toMatchObject({ c0010: E, c0020: "Example Bank AG", c0030: "eba_GA:DE" })
    expect(b0101.prefilled).toEqual(["c0010", "c0020", "c0030"])
    const own = reg.tables.find((t) => t.code === "B_01.02")!.rows[0]!
    expect(own.cells["c0100"]).toBe("eba_CU:EUR")
    expect(reg.parameters).toEqual({
      entityID: `rs:${E}.IND`,
      refPeriod: "2025-12-31",
      baseCurrency: "iso4217:EUR",
      decimalsInteger: "0",
      decimalsMonetary: "-3"
    })
  })

  it("a person's cell wins over the pre-fill", () => {
    const reg = buildRegister(withCell("B_01.01", E, "c0020", "Example Bank Aktiengesellschaft"), entity, templates, {
      now
    })
    const row = reg.tables.find((t) => t.code === "B_01.01")!.rows[0]!
    expect(row.cells["c0020"]).toBe("Example Bank Aktiengesellschaft")
    expect(row.prefilled).toEqual(["c0010", "c0030"])
  })

  it("an empty register names what is missing", () => {
    const v = violationsOf([], { lei: null, name: null, country: null, currency: null })
    expect(v).toContainEqual(expect.objectContaining({ table: "B_01.01", rowKey: null, column: null }))
    expect(v).toContainEqual(expect.objectContaining({ table: "B_01.02", rowKey: null }))
    expect(v).toContainEqual(expect.objectContaining({ table: "parameters", column: "baseCurrency" }))
  })

  it("each kind of violation is located by table, row key and column", () => {
    expect(violationsOf(withCell("B_05.01", P, "c0110", "5299000CLOUDPROV0185"))).toContainEqual(
      expect.objectContaining({
        table: "B_05.01",
        rowKey: P,
        column: "c0110",
        reason: expect.stringMatching(/check digits/)
      })
    )
    expect(violationsOf(withCell("B_06.01", `F1|${E}`, "c0070", "2024-02-30"))).toContainEqual({
      table: "B_06.01",
      rowKey: `F1|${E}`,
      column: "c0070",
      reason: expect.stringMatching(/not a valid date/)
    })
    expect(violationsOf(withCell("B_05.01", P, "c0080", "eba_GA:XX"))).toContainEqual({
      table: "B_05.01",
      rowKey: P,
      column: "c0080",
      reason: expect.stringMatching(/unknown country "XX"/)
    })
    expect(violationsOf(withCell("B_05.01", P, "c0050", null))).toContainEqual({
      table: "B_05.01",
      rowKey: P,
      column: "c0050",
      reason: expect.stringMatching(/mandatory column c0050/)
    })
    expect(violationsOf(withCell("B_03.01", `CTR-002|${E}`, "c0030", "true"))).toContainEqual({
      table: "B_03.01",
      rowKey: `CTR-002|${E}`,
      column: "c0010",
      reason: expect.stringMatching(/dangling reference.*B_02\.01/)
    })
    expect(violationsOf(withCell("B_06.01", `F1|${E}`, "c0050", "eba_BT:x99"))).toContainEqual(
      expect.objectContaining({ table: "B_06.01", column: "c0050", reason: expect.stringMatching(/closed list/) })
    )
  })

  it("a bad LEI in catalog.yml is reported on the pre-filled cell", () => {
    const v = violationsOf(toCells({ ...rows, "B_01.01": {}, "B_01.02": {} }), {
      ...entity,
      lei: "969500EXAMPLEBANK038"
    })
    expect(v).toContainEqual({
      table: "B_01.01",
      rowKey: "969500EXAMPLEBANK038",
      column: "c0010",
      reason: expect.stringMatching(/check digits.*pre-filled from dora\.entity/)
    })
  })

  it("conditional obligations: critical functions, subsequent arrangements, branches, total assets", () => {
    const k0202 = `CTR-001|${E}|${P}|F1|eba_TA:S19|eba_GA:IE|eba_GA:IE|eba_GA:IE`
    expect(violationsOf(withCell("B_02.02", k0202, "c0180", null))).toContainEqual(
      expect.objectContaining({
        table: "B_02.02",
        rowKey: k0202,
        column: "c0180",
        reason: expect.stringMatching(/critical or important/)
      })
    )
    expect(violationsOf(withCell("B_02.01", "CTR-001", "c0020", "eba_CO:x3"))).toContainEqual(
      expect.objectContaining({ table: "B_02.01", rowKey: "CTR-001", column: "c0030" })
    )
    expect(violationsOf(withCell("B_01.02", E, "c0110", null))).toContainEqual(
      expect.objectContaining({ table: "B_01.02", rowKey: E, column: "c0110" })
    )
    expect(violationsOf(withCell("B_04.01", `CTR-001|${E}|Not applicable`, "c0030", "eba_ZZ:x838"))).toContainEqual(
      expect.objectContaining({ table: "B_04.01", column: "c0040" })
    )
    expect(violationsOf(withCell("B_07.01", `CTR-001|${P}|eba_TA:S19`, "c0060", null))).toContainEqual(
      expect.objectContaining({ table: "B_07.01", column: "c0060" })
    )
  })

  it("doraRegisterFrom is the same register over the bundled templates", () => {
    expect(doraRegisterFrom(toCells(rows), entity, { now })).toEqual(
      buildRegister(toCells(rows), entity, templates, { now })
    )
  })
})

describe("the xBRL-CSV package", () => {
  const reg = buildRegister(toCells(rows), entity, templates, { now, refPeriod: "2025-12-31" })
  const pkg = buildPackage(reg, templates, { refPeriod: "2025-12-31", level: "IND", createdAt: now })

  it("is named <LEI>.<CON|IND>_<country>_DORA010100_DORA_<refPeriod>_<timestamp>", () => {
    expect(pkg.name).toBe(`${E}.IND_DE_DORA010100_DORA_2025-12-31_20260301120000000`)
    expect(pkg.name).toMatch(packageNamePattern)
  })

  it("holds META-INF/reportPackage.json, report.json, parameters, filing indicators and one CSV per table", () => {
    expect(pkg.files.map((f) => f.path)).toEqual([
      "META-INF/reportPackage.json",
      "reports/report.json",
      "reports/parameters.csv",
      "reports/FilingIndicators.csv",
      ...templates.tables.map((t) => `reports/${t.code.toLowerCase()}.csv`)
    ])
    const file = (p: string) => pkg.files.find((f) => f.path === p)!.content
    expect(JSON.parse(file("META-INF/reportPackage.json"))).toEqual({
      documentInfo: { documentType: "https://xbrl.org/report-package/2023" }
    })
    expect(JSON.parse(file("reports/report.json"))).toEqual({
      documentInfo: {
        documentType: "https://xbrl.org/2021/xbrl-csv",
        extends: ["http://www.eba.europa.eu/eu/fr/xbrl/crr/fws/dora/4.0/mod/dora.json"]
      }
    })
    expect(file("reports/parameters.csv")).toBe(
      `name,value\nentityID,rs:${E}.IND\nrefPeriod,2025-12-31\nbaseCurrency,iso4217:EUR\ndecimalsInteger,0\ndecimalsMonetary,-3\n`
    )
    expect(file("reports/FilingIndicators.csv").split("\n")).toEqual([
      "templateID,reported",
      ...templates.tables.map((t) => `${t.code},true`),
      ""
    ])
    expect(file("reports/b_01.03.csv")).toBe("c0010,c0020,c0030,c0040\n")
    expect(file("reports/b_01.01.csv")).toBe(
      `c0010,c0020,c0030,c0040,c0050,c0060\n${E},Example Bank AG,eba_GA:DE,eba_CT:x12,BaFin,2025-01-15\n`
    )
  })

  it("zips under one root folder named like the zip", () => {
    const entries = Object.keys(unzipSync(zipPackage(pkg, now)))
    expect(new Set(entries.map((e) => e.split("/")[0]))).toEqual(new Set([pkg.name]))
    expect(entries).toContain(`${pkg.name}/META-INF/reportPackage.json`)
    expect(entries).toContain(`${pkg.name}/reports/b_99.01.csv`)
    expect(entries.filter((e) => !e.endsWith("/"))).toHaveLength(pkg.files.length)
  })
})
