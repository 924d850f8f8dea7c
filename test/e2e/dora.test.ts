/**
 * The DORA Register of Information through the built CLI: filling it from CSV files and single
 * cells, exporting the xBRL-CSV report package (layout as in the implementer's digest), every kind
 * of violation reported with its location (and nothing written), bad input refused, and the
 * out-of-scope shape.
 */
import { unzipSync } from "fflate"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import templates from "../../src/dora/templates.json" with { type: "json" }
import { type CliResult, spawnCli, tempProject, writeFile } from "../utils/cli.js"

/** Runs the built CLI without blocking the test worker (a long run of spawnSync starves vitest's RPC). */
const runCli = (
  args: ReadonlyArray<string>,
  opts: { readonly cwd: string; readonly env?: Record<string, string | undefined> }
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawnCli(args, opts)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("close", (code) => {
      let json: unknown
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code: code ?? -1, stdout, stderr, json })
    })
  })

interface Violation {
  readonly table: string
  readonly rowKey: string | null
  readonly column: string | null
  readonly reason: string
}
interface ErrorBody {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly fix?: string
    readonly param?: string
    readonly details?: {
      readonly violations?: Array<Violation>
      readonly problems?: Array<{ line: number; rowKey: string | null; column: string | null; reason: string }>
    }
  }
}

const E = "969500EXAMPLEBANK039" // the reporting entity (catalog.yml)
const P = "5299000CLOUDPROV0184" // the ICT provider
const K0202 = `CTR-001|${E}|${P}|F1|eba_TA:S19|eba_GA:IE|eba_GA:IE|eba_GA:IE`

/** The CSV files of a small but complete register, written the way a person fills a spreadsheet (bare codes, a BOM, a `;` file, quoted commas). */
const csvFiles: Record<string, string> = {
  "B_01.01": `c0010,c0040,c0050,c0060\n${E},x12,BaFin,2025-01-15\n`,
  "B_01.02":
    `\uFEFFc0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100,c0110\n${E},Example Bank AG,DE,Credit institution,x21,${E},2025-01-10,2024-01-01,9999-12-31,EUR,125000000\n`,
  "B_02.01": "c0010;c0020;c0030;c0040;c0050\r\nCTR-001;x1;;EUR;250000\r\n",
  "B_02.02":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0100,c0110,c0120,c0130,c0140,c0150,c0160,c0170,c0180\nCTR-001,${E},${P},qx2000,F1,S19,2023-01-01,9999-12-31,90,180,DE,IE,Yes,IE,IE,High,x797\n`,
  "B_03.01": `c0010,c0020,c0030\nCTR-001,${E},true\n`,
  "B_03.02": `c0010,c0020,c0030\nCTR-001,${P},LEI (verified via DPM rules)\n`,
  "B_04.01": `c0010,c0020,c0030,c0040\nCTR-001,${E},x839,Not applicable\n`,
  "B_05.01":
    `c0010,c0020,c0050,c0060,c0070,c0080,c0090,c0100,c0110,c0120\n${P},qx2000,"Cloud Provider, ""Europe"" SE",Cloud Provider Europe SE,x212,IE,EUR,250000,${P},qx2000\n`,
  "B_05.02": `c0010,c0020,c0030,c0040,c0050,c0060,c0070\nCTR-001,S19,${P},qx2000,1,${P},qx2000\n`,
  "B_06.01":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100\nF1,x162,Payments,${E},Yes,"Core payment service, customer facing",2024-11-30,4,1,High\n`,
  "B_07.01":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100,c0110,c0120\nCTR-001,${P},qx2000,S19,x960,x964,2024-10-01,Yes,x966,High,Yes,Other Cloud GmbH\n`
}

describe("DORA register (in scope)", () => {
  const p = tempProject("ldc-dora-")
  const env = { APP_DB: path.join(p.dir, "app.db"), USER: "agent" }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })
  const errorOf = (r: CliResult) => (r.json as ErrorBody).error
  const listFiles = (dir: string): Array<string> =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((
      d
    ) => (d.isDirectory() ? listFiles(path.join(dir, d.name)).map((f) => `${d.name}/${f}`) : [d.name])).sort()

  beforeAll(async () => {
    const db = new DatabaseSync(env.APP_DB)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT)")
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      [
        "sources:",
        "  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }",
        "dora:",
        "  inScope: true",
        `  entity: { lei: ${E}, name: Example Bank AG, country: DE, currency: EUR }`,
        ""
      ].join("\n")
    )
    expect((await cli("start")).code).toBe(0)
  })
  afterAll(() => p.cleanup())

  it("dora import fills each table from a CSV file (header of column codes plus rows), attributed and logged", async () => {
    for (const [table, text] of Object.entries(csvFiles)) {
      const file = writeFile(p.dir, `dora/${table.toLowerCase()}.csv`, text)
      const r = await cli("dora", "import", table, path.relative(p.dir, file), "--json")
      expect(r.code, `${table}: ${r.stdout}`).toBe(0)
      expect(r.json).toMatchObject({ table, mode: "replace", rows: 1, by: `os:${os.userInfo().username}` })
    }
    const log = (await cli("log", "--since", "0", "--json")).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    const imports = log.changes.filter((c) => c.kind === "dora.import")
    expect(imports.map((c) => c.entity).sort()).toEqual(Object.keys(csvFiles).sort())
    for (const c of imports) expect(c.by).toBe(`os:${os.userInfo().username}`)
  })

  it("values are stored in their xBRL-CSV form (eba_ codes), and the register validates", async () => {
    const r = await cli("dora", "set", "B_02.02", `CTR-001|${E}|${P}|F1|S19|IE|IE|IE`, "c0170", "x793", "--json")
    expect(r.code, r.stdout).toBe(0)
    expect(r.json).toMatchObject({
      table: "B_02.02",
      rowKey: K0202,
      column: "c0170",
      value: "eba_ZZ:x793",
      previous: "eba_ZZ:x793",
      violations: []
    })
  })

  it("dora set writes one cell, attributed to the signer and logged as dora.set", async () => {
    const r = await cli(
      "dora",
      "set",
      "B_01.01",
      E,
      "c0050",
      "Bundesanstalt",
      "für",
      "Finanzdienstleistungsaufsicht",
      "--json"
    )
    expect(r.code, r.stdout).toBe(0)
    expect(r.json).toMatchObject({
      table: "B_01.01",
      rowKey: E,
      column: "c0050",
      value: "Bundesanstalt für Finanzdienstleistungsaufsicht",
      previous: "BaFin",
      by: `os:${os.userInfo().username}`
    })
    const signed = await runCli(["dora", "set", "B_05.01", P, "c0120", "LEI", "--json"], {
      cwd: p.dir,
      env: { ...env, CATALOG_SIGNER_EMAIL: "dpo@example.com" }
    })
    expect(signed.json).toMatchObject({ value: "eba_qCO:qx2000", by: "dpo@example.com" })
    const log = (await cli("log", "--since", "0", "--json")).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    expect(log.changes[0]).toMatchObject({ kind: "dora.set", entity: `B_05.01[${P}].c0120`, by: "dpo@example.com" })
    expect(log.changes[1]).toMatchObject({
      kind: "dora.set",
      entity: `B_01.01[${E}].c0050`,
      by: `os:${os.userInfo().username}`
    })
  })

  it("dora export writes the xBRL-CSV report package: files, parameters, filing indicators, table headers", async () => {
    const r = await cli("dora", "export", "--out", "out", "--ref-date", "2025-12-31", "--json")
    expect(r.code, r.stdout).toBe(0)
    const res = r.json as { name: string; package: string; folder: string; parameters: Record<string, string> }
    expect(res.name).toMatch(new RegExp(`^${E}\\.IND_DE_DORA010100_DORA_2025-12-31_\\d{17}$`))
    expect(res.package).toBe(path.join(fs.realpathSync(p.dir), "out", `${res.name}.zip`))
    expect(res.parameters).toEqual({
      entityID: `rs:${E}.IND`,
      refPeriod: "2025-12-31",
      baseCurrency: "iso4217:EUR",
      decimalsInteger: "0",
      decimalsMonetary: "-3"
    })

    const tables = templates.tables
    const expected = [
      "META-INF/reportPackage.json",
      "reports/FilingIndicators.csv",
      "reports/parameters.csv",
      "reports/report.json",
      ...tables.map((t) => `reports/${t.code.toLowerCase()}.csv`)
    ].sort()
    // The zip: a single root folder named like the zip, holding exactly the package files.
    const zip = unzipSync(fs.readFileSync(res.package))
    const entries = Object.keys(zip).filter((e) => !e.endsWith("/"))
    expect(new Set(Object.keys(zip).map((e) => e.split("/")[0]))).toEqual(new Set([res.name]))
    expect(entries.map((e) => e.slice(res.name.length + 1)).sort()).toEqual(expected)
    // The same files unpacked next to it.
    expect(listFiles(res.folder)).toEqual(expected)
    const read = (f: string) => {
      const fromZip = new TextDecoder().decode(zip[`${res.name}/${f}`]!)
      expect(fs.readFileSync(path.join(res.folder, f), "utf8")).toBe(fromZip)
      expect(fromZip.charCodeAt(0)).not.toBe(0xfeff)
      return fromZip
    }
    expect(JSON.parse(read("META-INF/reportPackage.json"))).toEqual({
      documentInfo: { documentType: "https://xbrl.org/report-package/2023" }
    })
    expect(JSON.parse(read("reports/report.json"))).toEqual({
      documentInfo: {
        documentType: "https://xbrl.org/2021/xbrl-csv",
        extends: ["http://www.eba.europa.eu/eu/fr/xbrl/crr/fws/dora/4.0/mod/dora.json"]
      }
    })
    expect(read("reports/parameters.csv").trim().split("\n")).toEqual([
      "name,value",
      `entityID,rs:${E}.IND`,
      "refPeriod,2025-12-31",
      "baseCurrency,iso4217:EUR",
      "decimalsInteger,0",
      "decimalsMonetary,-3"
    ])
    expect(read("reports/FilingIndicators.csv").trim().split("\n")).toEqual([
      "templateID,reported",
      ...tables.map((t) => `${t.code},true`)
    ])
    for (const t of tables) {
      const lines = read(`reports/${t.csv_file}`).trim().split("\n")
      expect(lines[0], t.code).toBe(t.columns.map((c) => c.code).join(","))
    }
    expect(read("reports/b_01.01.csv").trim().split("\n")[1]).toBe(
      `${E},Example Bank AG,eba_GA:DE,eba_CT:x12,Bundesanstalt für Finanzdienstleistungsaufsicht,2025-01-15`
    )
    expect(read("reports/b_05.01.csv")).toContain(
      `${P},eba_qCO:qx2000,,,"Cloud Provider, ""Europe"" SE",Cloud Provider Europe SE,eba_CT:x212,eba_GA:IE,eba_CU:EUR,250000,${P},eba_qCO:qx2000`
    )
    expect(read("reports/b_02.02.csv").trim().split("\n")[1]).toBe(
      `CTR-001,${E},${P},eba_qCO:qx2000,F1,eba_TA:S19,2023-01-01,9999-12-31,,90,180,eba_GA:DE,eba_GA:IE,eba_BT:x28,eba_GA:IE,eba_GA:IE,eba_ZZ:x793,eba_ZZ:x797`
    )
    expect(read("reports/b_01.03.csv")).toBe("c0010,c0020,c0030,c0040\n")
  })

  // Each kind of violation, made with one write and undone afterwards: [name, write, expected location, reason, undo].
  const kinds: Array<readonly [string, Array<string>, Omit<Violation, "reason">, RegExp, Array<string>]> = [
    [
      "bad LEI check digits",
      ["B_01.02", E, "c0060", "969500EXAMPLEBANK038"],
      { table: "B_01.02", rowKey: E, column: "c0060" },
      /check digits/,
      ["B_01.02", E, "c0060", E]
    ],
    [
      "bad date",
      ["B_06.01", `F1|${E}`, "c0070", "2024-02-30"],
      { table: "B_06.01", rowKey: `F1|${E}`, column: "c0070" },
      /not a valid date/,
      ["B_06.01", `F1|${E}`, "c0070", "2024-11-30"]
    ],
    [
      "unknown country",
      ["B_05.01", P, "c0080", "XX"],
      { table: "B_05.01", rowKey: P, column: "c0080" },
      /unknown country "XX"/,
      ["B_05.01", P, "c0080", "IE"]
    ],
    [
      "missing mandatory column",
      ["B_05.01", P, "c0050", ""],
      { table: "B_05.01", rowKey: P, column: "c0050" },
      /mandatory column c0050/,
      ["B_05.01", P, "c0050", "Cloud Provider Europe SE"]
    ],
    [
      "dangling reference",
      ["B_03.01", `CTR-999|${E}`, "c0030", "true"],
      { table: "B_03.01", rowKey: `CTR-999|${E}`, column: "c0010" },
      /dangling reference.*B_02\.01/,
      ["B_03.01", `CTR-999|${E}`, "--remove"]
    ]
  ]

  for (const [name, write, where, reason, undo] of kinds) {
    it(`${name}: DORA_NOT_SUBMITTABLE names table, row key and column; nothing is written`, async () => {
      expect((await cli("dora", "set", ...write, "--json")).code).toBe(0)
      const out = `refused-${name.replace(/\W+/g, "-")}`
      const r = await cli("dora", "export", "--out", out, "--json")
      expect(r.code).toBe(1)
      const e = errorOf(r)
      expect(e.code).toBe("DORA_NOT_SUBMITTABLE")
      expect(e.details?.violations).toEqual([{ ...where, reason: expect.stringMatching(reason) }])
      expect(e.message).toContain(`${where.table} row ${where.rowKey}, ${where.column}:`)
      expect(fs.existsSync(path.join(p.dir, out))).toBe(false)
      expect((await cli("dora", "set", ...undo, "--json")).code).toBe(0)
    })
  }

  it("every violation is listed at once, and the register exports again once they are fixed", async () => {
    for (const [, write] of kinds) expect((await cli("dora", "set", ...write)).code).toBe(0)
    const r = await cli("dora", "export", "--out", "refused-all")
    expect(r.code).toBe(1)
    expect(r.stderr).toContain("DORA_NOT_SUBMITTABLE")
    for (const [, , where] of kinds) expect(r.stderr).toContain(`${where.table} row ${where.rowKey}, ${where.column}:`)
    expect(fs.existsSync(path.join(p.dir, "refused-all"))).toBe(false)
    for (const [, , , , undo] of kinds) expect((await cli("dora", "set", ...undo)).code).toBe(0)
    expect((await cli("dora", "export", "--out", "again", "--json")).code).toBe(0)
  })

  it("a bad table, column or value is DORA_INPUT_INVALID naming what to fix", async () => {
    const table = errorOf(await cli("dora", "set", "B_09.01", E, "c0010", "x", "--json"))
    expect(table).toMatchObject({ code: "DORA_INPUT_INVALID", param: "tableCode" })
    expect(table.fix).toContain("B_01.01")
    const column = errorOf(await cli("dora", "set", "B_01.02", E, "c0999", "x", "--json"))
    expect(column).toMatchObject({ code: "DORA_INPUT_INVALID", param: "field" })
    expect(column.fix).toContain("c0110")
    const value = errorOf(await cli("dora", "set", "B_01.02", E, "c0070", "31/12/2024", "--json"))
    expect(value).toMatchObject({ code: "DORA_INPUT_INVALID", param: "value" })
    expect(value.message).toMatch(/B_01\.02.*c0070.*31\/12\/2024/)
    expect(errorOf(await cli("dora", "set", "B_06.01", `F1|${E}`, "c0050", "maybe", "--json"))).toMatchObject({
      code: "DORA_INPUT_INVALID",
      param: "value"
    })
    expect(errorOf(await cli("dora", "set", "B_02.02", "CTR-001", "c0070", "2024-01-01", "--json"))).toMatchObject({
      code: "DORA_INPUT_INVALID",
      param: "rowKey"
    })
    expect(errorOf(await cli("dora", "set", "B_01.02", E, "c0010", "7LTWFZYICNSX8D621K86", "--json"))).toMatchObject({
      code: "DORA_INPUT_INVALID",
      param: "field"
    })
  })

  it("an import with a bad header or bad cells is refused whole, naming line, row and column", async () => {
    writeFile(p.dir, "bad-header.csv", `c0010,c0020,c0999\n${P},qx2000,x\n`)
    const h = errorOf(await cli("dora", "import", "B_05.01", "bad-header.csv", "--json"))
    expect(h).toMatchObject({ code: "DORA_INPUT_INVALID", param: "file" })
    expect(h.message).toContain("c0999")
    writeFile(p.dir, "bad-cells.csv", `c0010,c0020,c0050,c0080\n${P},qx2000,Cloud,Ireland\nNEWPROVIDER,qx2000,New,\n`)
    const c = errorOf(await cli("dora", "import", "B_05.01", "bad-cells.csv", "--json"))
    expect(c.code).toBe("DORA_INPUT_INVALID")
    expect(c.message).toMatch(/line 2 \(row 5299000CLOUDPROV0184\), c0080: .*Ireland/)
    writeFile(p.dir, "bad-cells2.csv", `c0010,c0020,c0050,c0080\n${P},qx2000,Cloud,Ireland\n,qx2000,New,IE\n`)
    const c2 = errorOf(await cli("dora", "import", "B_05.01", "bad-cells2.csv", "--json"))
    expect(c2.details?.problems).toEqual([
      { line: 2, rowKey: P, column: "c0080", reason: expect.stringMatching(/Ireland/) },
      { line: 3, rowKey: null, column: "c0010", reason: expect.stringMatching(/key column c0010/) }
    ])
    expect(errorOf(await cli("dora", "import", "B_05.01", "missing.csv", "--json"))).toMatchObject({
      code: "DORA_INPUT_INVALID",
      param: "file"
    })
    // Nothing was imported: the register still exports.
    expect((await cli("dora", "export", "--out", "still-valid", "--json")).code).toBe(0)
  })
})

describe("DORA register (out of scope)", () => {
  const p = tempProject("ldc-dora-off-")
  const env = { APP_DB: path.join(p.dir, "app.db") }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })

  beforeAll(async () => {
    const db = new DatabaseSync(env.APP_DB)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT)")
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\ndora:\n  inScope: false\n"
    )
    expect((await cli("start")).code).toBe(0)
  })
  afterAll(() => p.cleanup())

  it("dora show --json is {inScope: false, register: null}", async () => {
    const r = await cli("dora", "show", "--json")
    expect(r.code).toBe(0)
    expect(r.json).toEqual({ inScope: false, register: null })
  })

  it("export, import and set refuse with DORA_INPUT_INVALID whose fix says to set dora.inScope; nothing is written", async () => {
    for (
      const args of [["dora", "export"], ["dora", "import", "B_01.01", "x.csv"], [
        "dora",
        "set",
        "B_01.01",
        E,
        "c0020",
        "x"
      ]]
    ) {
      const r = await cli(...args, "--json")
      expect(r.code, args.join(" ")).toBe(1)
      const e = (r.json as ErrorBody).error
      expect(e.code).toBe("DORA_INPUT_INVALID")
      expect(e.fix).toContain("inScope")
    }
    expect(fs.existsSync(path.join(p.dir, "dora-export"))).toBe(false)
  })
})
