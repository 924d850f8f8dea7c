/**
 * What the catalog writes about a user's data is private to the account: `.catalog/` and every folder
 * it creates 0700; index.db (and its -wal/-shm), exports, evidence bundles, DORA packages, catalog.yml
 * and the .env placeholder 0600 — under the common umask 022, which made them world-readable before.
 * Files and folders left more open by older versions are tightened on the next write.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, tempProject, writeFile } from "../utils/cli.js"

const mode = (p: string): string => (fs.statSync(p).mode & 0o777).toString(8).padStart(3, "0")
const tree = (root: string): Array<{ rel: string; dir: boolean; mode: string }> => {
  const out: Array<{ rel: string; dir: boolean; mode: string }> = [{ rel: ".", dir: true, mode: mode(root) }]
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      out.push({ rel: path.relative(root, p), dir: e.isDirectory(), mode: mode(p) })
      if (e.isDirectory()) walk(p)
    }
  }
  walk(root)
  return out
}
/** Every folder under `root` (itself included) is 0700 and every file 0600. */
const expectPrivate = (root: string) => {
  for (const x of tree(root)) expect(`${x.rel} ${x.mode}`).toBe(`${x.rel} ${x.dir ? "700" : "600"}`)
}

let umask = 0
beforeAll(() => {
  // The usual default: without explicit modes, new files come out 0644 and folders 0755.
  umask = process.umask(0o022)
})
afterAll(() => {
  process.umask(umask)
})

describe("file permissions: catalog, exports, evidence", () => {
  const p = tempProject("ldc-modes-")
  const env = { APP_DB: path.join(p.dir, "app.db") }
  const cli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: p.dir, env })
  const data = path.join(p.dir, ".catalog")
  const index = path.join(data, "index.db")

  beforeAll(() => {
    const db = new DatabaseSync(env.APP_DB)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, birth_date TEXT)")
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\n"
    )
  })
  afterAll(() => p.cleanup())

  it("start: .catalog/ is 0700 and index.db 0600; -wal and -shm follow the database's 0600", () => {
    const r = cli("start")
    expect(r.code, r.stdout).toBe(0)
    expect(mode(data)).toBe("700")
    expect(mode(index)).toBe("600")
    // A reader holding the database open keeps -wal/-shm in place while another scan writes.
    const reader = new DatabaseSync(index)
    try {
      reader.prepare("SELECT count(*) AS n FROM sqlite_master").get()
      expect(cli("start").code).toBe(0)
      for (const s of ["-wal", "-shm"]) {
        expect(fs.existsSync(`${index}${s}`), s).toBe(true)
        expect(mode(`${index}${s}`), s).toBe("600")
      }
    } finally {
      reader.close()
    }
  })

  it("a catalog left world-readable by an older version is tightened by the next write (folder, index.db, -wal, -shm)", () => {
    fs.chmodSync(data, 0o755)
    fs.chmodSync(index, 0o644)
    const reader = new DatabaseSync(index)
    try {
      reader.prepare("SELECT count(*) AS n FROM sqlite_master").get()
      for (const s of ["-wal", "-shm"]) if (fs.existsSync(`${index}${s}`)) fs.chmodSync(`${index}${s}`, 0o644)
      expect(cli("classify", "set", "app/main/customers/birth_date", "personal").code).toBe(0)
      expect(mode(data)).toBe("700")
      expect(mode(index)).toBe("600")
      for (const s of ["-wal", "-shm"]) expect(mode(`${index}${s}`), s).toBe("600")
    } finally {
      reader.close()
    }
  })

  it("export --out: the file is 0600, also when it replaces an older 0644 one", () => {
    expect(cli("export", "--out", "team.json").code).toBe(0)
    expect(mode(path.join(p.dir, "team.json"))).toBe("600")
    fs.chmodSync(path.join(p.dir, "team.json"), 0o644)
    expect(cli("export", "--out", "team.json", "--yes").code).toBe(0)
    expect(mode(path.join(p.dir, "team.json"))).toBe("600")
    expect(cli("export", "--out", "exports/q1/team.json").code).toBe(0)
    expect(mode(path.join(p.dir, "exports"))).toBe("700")
    expect(mode(path.join(p.dir, "exports", "q1"))).toBe("700")
    expect(mode(path.join(p.dir, "exports", "q1", "team.json"))).toBe("600")
  })

  it("evidence: the bundle folder is 0700 and every artifact 0600, also when it replaces an earlier bundle", () => {
    expect(cli("evidence", "--out", "bundle").code).toBe(0)
    expectPrivate(path.join(p.dir, "bundle"))
    fs.chmodSync(path.join(p.dir, "bundle"), 0o755)
    for (const f of fs.readdirSync(path.join(p.dir, "bundle"))) fs.chmodSync(path.join(p.dir, "bundle", f), 0o644)
    expect(cli("evidence", "--out", "bundle", "--yes").code).toBe(0)
    expectPrivate(path.join(p.dir, "bundle"))
    expect(cli("evidence", "--verify", "bundle").code).toBe(0)
  })
})

describe("file permissions: add and config write catalog.yml and .env private", () => {
  const p = tempProject("ldc-modes-add-")
  const cli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: p.dir })
  afterAll(() => p.cleanup())

  it("a first add creates catalog.yml and the .env placeholder 0600", () => {
    const r = cli("add", "postgres", "--ref", "APP_DATABASE_URL")
    expect(r.code, r.stdout).toBe(0)
    expect(mode(path.join(p.dir, "catalog.yml"))).toBe("600")
    expect(fs.readFileSync(path.join(p.dir, ".env"), "utf8")).toContain("APP_DATABASE_URL=")
    expect(mode(path.join(p.dir, ".env"))).toBe("600")
  })

  it("catalog.yml and .env left 0644 by older versions are tightened when add or config writes them", () => {
    fs.chmodSync(path.join(p.dir, "catalog.yml"), 0o644)
    fs.chmodSync(path.join(p.dir, ".env"), 0o644)
    const r = cli("add", "mysql", "--ref", "SHOP_URL")
    expect(r.code, r.stdout).toBe(0)
    expect(mode(path.join(p.dir, "catalog.yml"))).toBe("600")
    expect(mode(path.join(p.dir, ".env"))).toBe("600")
    expect(fs.readFileSync(path.join(p.dir, ".env"), "utf8")).toMatch(/APP_DATABASE_URL=[\s\S]*SHOP_URL=/)
    fs.chmodSync(path.join(p.dir, "catalog.yml"), 0o644)
    expect(cli("config", "catalog-only", "on").code).toBe(0)
    expect(mode(path.join(p.dir, "catalog.yml"))).toBe("600")
  })

  it("catalog.yml written into the data folder (CATALOG_CONFIG=.catalog/catalog.yml) makes that folder 0700", () => {
    const q = tempProject("ldc-modes-cfg-")
    try {
      const r = runCli(["add", "sqlite", "--ref", "LITE", "--json"], {
        cwd: q.dir,
        env: { CATALOG_CONFIG: ".catalog/catalog.yml", LITE: "x.db" }
      })
      expect(r.code, r.stdout).toBe(0)
      expect(mode(path.join(q.dir, ".catalog"))).toBe("700")
      expect(mode(path.join(q.dir, ".catalog", "catalog.yml"))).toBe("600")
    } finally {
      q.cleanup()
    }
  })
})

const E = "969500EXAMPLEBANK039"
const P = "5299000CLOUDPROV0184"
/** A small complete register (as in dora.test.ts), so that an export is produced. */
const csvFiles: Record<string, string> = {
  "B_01.01": `c0010,c0040,c0050,c0060\n${E},x12,BaFin,2025-01-15\n`,
  "B_01.02":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100,c0110\n${E},Example Bank AG,DE,Credit institution,x21,${E},2025-01-10,2024-01-01,9999-12-31,EUR,125000000\n`,
  "B_02.01": "c0010,c0020,c0030,c0040,c0050\nCTR-001,x1,,EUR,250000\n",
  "B_02.02":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0100,c0110,c0120,c0130,c0140,c0150,c0160,c0170,c0180\nCTR-001,${E},${P},qx2000,F1,S19,2023-01-01,9999-12-31,90,180,DE,IE,Yes,IE,IE,High,x797\n`,
  "B_03.01": `c0010,c0020,c0030\nCTR-001,${E},true\n`,
  "B_03.02": `c0010,c0020,c0030\nCTR-001,${P},LEI (verified via DPM rules)\n`,
  "B_04.01": `c0010,c0020,c0030,c0040\nCTR-001,${E},x839,Not applicable\n`,
  "B_05.01":
    `c0010,c0020,c0050,c0060,c0070,c0080,c0090,c0100,c0110,c0120\n${P},qx2000,Cloud Provider Europe SE,Cloud Provider Europe SE,x212,IE,EUR,250000,${P},qx2000\n`,
  "B_05.02": `c0010,c0020,c0030,c0040,c0050,c0060,c0070\nCTR-001,S19,${P},qx2000,1,${P},qx2000\n`,
  "B_06.01":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100\nF1,x162,Payments,${E},Yes,Core payment service,2024-11-30,4,1,High\n`,
  "B_07.01":
    `c0010,c0020,c0030,c0040,c0050,c0060,c0070,c0080,c0090,c0100,c0110,c0120\nCTR-001,${P},qx2000,S19,x960,x964,2024-10-01,Yes,x966,High,Yes,Other Cloud GmbH\n`
}

describe("file permissions: dora export", () => {
  const p = tempProject("ldc-modes-dora-")
  const env = { APP_DB: path.join(p.dir, "app.db") }
  const cli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: p.dir, env })
  afterAll(() => p.cleanup())

  it("the package folder, its files and the zip are private; the default dora-export folder it creates is 0700", () => {
    const db = new DatabaseSync(env.APP_DB)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT)")
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      `sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\ndora:\n  inScope: true\n  entity: { lei: ${E}, name: Example Bank AG, country: DE, currency: EUR }\n`
    )
    expect(cli("start").code).toBe(0)
    for (const [table, text] of Object.entries(csvFiles)) {
      const file = writeFile(p.dir, `dora/${table}.csv`, text)
      const r = cli("dora", "import", table, file)
      expect(r.code, `${table}: ${r.stdout}`).toBe(0)
    }
    const r = cli("dora", "export", "--ref-date", "2025-12-31")
    expect(r.code, r.stdout).toBe(0)
    const res = r.json as { package: string; folder: string }
    expect(mode(res.package)).toBe("600")
    expectPrivate(res.folder)
    expect(mode(path.join(p.dir, "dora-export"))).toBe("700")
    // A folder the user named and made is theirs: its own mode is left as it is, the package inside is private.
    fs.mkdirSync(path.join(p.dir, "shared"), { mode: 0o755 })
    const s = cli("dora", "export", "--out", "shared", "--ref-date", "2025-12-31")
    expect(s.code, s.stdout).toBe(0)
    expect(mode(path.join(p.dir, "shared"))).toBe("755")
    expect(mode((s.json as { package: string }).package)).toBe("600")
    expectPrivate((s.json as { folder: string }).folder)
  })
})
