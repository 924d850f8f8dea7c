/**
 * Input a user can type never ends in INTERNAL_ERROR ("this is a bug") or a hang: a YAML alias bomb or
 * an undefined alias in catalog.yml, a catalog.yml that cannot work, and every file-system path a
 * command takes (a folder, a FIFO, a device, an empty or missing path) is a coded registry error with
 * a fix, naming the flag or the line — and nothing is written or half-written.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, runCli, tempProject, writeFile } from "../utils/cli.js"

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => {
  expect(r.json, `${r.stdout}\n${r.stderr}`).toBeDefined()
  return (r.json as ErrorBody).error
}
/** A coded registry error (never INTERNAL_ERROR) with a fix. */
const refused = (r: CliResult, code: string, param?: string) => {
  const e = errorOf(r)
  expect(e.code, e.message).toBe(code)
  expect(e.fix, e.code).toBeTruthy()
  if (param !== undefined) expect(e.param).toBe(param)
  expect(r.code).toBeGreaterThan(0)
  return e
}
const mkfifo = (p: string): string => {
  execFileSync("mkfifo", [p])
  return p
}
/** Every file below `dir`, with its bytes, to prove nothing changed. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) out[path.relative(dir, p)] = fs.readFileSync(p, "base64")
      else out[path.relative(dir, p)] = "(special)"
    }
  }
  walk(dir)
  return out
}

const laughs = [
  "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
  "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
  "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
  "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
  "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]",
  ""
].join("\n")

describe("catalog.yml a user can type", () => {
  const p = tempProject("ldc-files-cfg-")
  const cli = (...args: Array<string>) =>
    runCli([...args, "--json"], { cwd: p.dir, env: { A: path.join(p.dir, "a.db") } })
  afterAll(() => p.cleanup())

  it("an alias bomb: start, add and config are CONFIG_INVALID naming the line; the file is left as it was", () => {
    writeFile(p.dir, "catalog.yml", laughs)
    const before = snapshot(p.dir)
    for (const args of [["start"], ["add", "sqlite", "--ref", "A"], ["config", "catalog-only", "on"], ["sources"]]) {
      const e = refused(cli(...args), "CONFIG_INVALID")
      expect(e.message, args.join(" ")).toMatch(/^catalog\.yml:\d+: aliases expand/)
    }
    expect(snapshot(p.dir)).toEqual(before)
  })

  it("an alias with no anchor: CONFIG_INVALID naming its line", () => {
    writeFile(p.dir, "catalog.yml", "version: 1\nsources:\n  - id: *app\n    kind: sqlite\n")
    expect(refused(cli("start"), "CONFIG_INVALID").message).toMatch(/^catalog\.yml:3: .*\*app/)
  })

  it("values that cannot work: kind/driver mismatch, ids equal but for case, schemas: [] — each names key and line; add writes nothing", () => {
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - id: app\n    kind: postgres\n    driver: mysql2\n    connectionRef: A\n"
    )
    expect(refused(cli("start"), "CONFIG_INVALID", "sources.0.driver").message).toMatch(
      /^catalog\.yml:4: sources\.0\.driver: .*postgres/
    )

    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: A }\n  - { id: APP, kind: sqlite, driver: node:sqlite, connectionRef: B }\n"
    )
    expect(refused(cli("start"), "CONFIG_INVALID", "sources.1.id").message).toMatch(/^catalog\.yml:3: .*case/)

    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - id: app\n    kind: postgres\n    driver: pg\n    connectionRef: A\n    schemas: []\n"
    )
    expect(refused(cli("start"), "CONFIG_INVALID", "sources.0.schemas").message).toMatch(/^catalog\.yml:6: /)

    // `add` of an id that differs only in case from a configured one would make the file invalid: refused, file unchanged.
    writeFile(p.dir, "catalog.yml", "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: A }\n")
    const before = fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")
    refused(cli("add", "sqlite", "--ref", "B", "--id", "App"), "CONFIG_INVALID", "sources.1.id")
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).toBe(before)

    // Removing the warehouse a dbt source maps onto would leave its target pointing at nothing: refused, naming that line.
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: wh, kind: sqlite, driver: node:sqlite, connectionRef: A }\n  - id: dbt\n    kind: dbt\n    driver: dbt-manifest\n    path: m.json\n    target: wh\n"
    )
    const withDbt = fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")
    const e = refused(cli("sources", "remove", "wh", "--yes"), "CONFIG_INVALID", "sources.1.target")
    expect(e.message).toMatch(/^catalog\.yml:7: /)
    expect(e.fix).toContain("sources remove dbt")
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).toBe(withDbt)
  })

  it("catalog.yml that is a folder, or CATALOG_CONFIG naming a FIFO: CONFIG_INVALID, no hang", () => {
    fs.rmSync(path.join(p.dir, "catalog.yml"))
    fs.mkdirSync(path.join(p.dir, "catalog.yml"))
    expect(refused(cli("start"), "CONFIG_INVALID").message).toContain("is a folder")
    fs.rmdirSync(path.join(p.dir, "catalog.yml"))
    const fifo = mkfifo(path.join(p.dir, "config.fifo"))
    const r = runCli(["start", "--json"], { cwd: p.dir, env: { CATALOG_CONFIG: fifo } })
    expect(refused(r, "CONFIG_INVALID").message).toContain("not a regular file")
  })
})

describe("file-system paths a user can type", () => {
  const p = tempProject("ldc-files-paths-")
  const env = { APP_DB: path.join(p.dir, "app.db") }
  const cli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: p.dir, env })

  beforeAll(() => {
    const db = new DatabaseSync(env.APP_DB)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT)")
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\n"
    )
    expect(cli("start").code).toBe(0)
    fs.mkdirSync(path.join(p.dir, "folder"))
    writeFile(p.dir, "plain.txt", "not a folder\n")
    mkfifo(path.join(p.dir, "pipe"))
  })
  afterAll(() => p.cleanup())

  it("add manual --from <folder|''|FIFO|missing>: ADD_INPUT_INVALID naming from; catalog.yml unchanged", () => {
    const before = fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")
    for (const from of ["folder", "", " ", "pipe", "nope.csv", "plain.txt/x.csv"]) {
      const e = refused(cli("add", "manual", "--from", from, "--yes"), "ADD_INPUT_INVALID", "from")
      expect(e.message, from).not.toMatch(/EISDIR|ENOENT|ENOTDIR/)
    }
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).toBe(before)
  })

  it("import <folder|FIFO|missing|''>: CATALOG_FILE_INVALID naming file; a fresh folder gets no catalog", () => {
    for (const f of ["folder", "pipe", "missing.json", ""]) refused(cli("import", f), "CATALOG_FILE_INVALID", "file")
    const fresh = tempProject("ldc-files-fresh-")
    try {
      mkfifo(path.join(fresh.dir, "team.json"))
      refused(runCli(["import", "team.json", "--json"], { cwd: fresh.dir }), "CATALOG_FILE_INVALID", "file")
      expect(fs.existsSync(path.join(fresh.dir, ".catalog"))).toBe(false)
    } finally {
      fresh.cleanup()
    }
  })

  it("export --out <folder|/dev/null|FIFO|under a file>: INVALID_PARAM naming out; nothing written, /dev/null still a device", () => {
    const before = snapshot(p.dir)
    for (const out of ["folder", "/dev/null", "pipe", "plain.txt/team.json", ""]) {
      const e = refused(cli("export", "--out", out, "--yes"), "INVALID_PARAM", "out")
      expect(e.message, out).not.toMatch(/EISDIR|ENOTDIR/)
    }
    expect(fs.statSync("/dev/null").isCharacterDevice()).toBe(true)
    expect(snapshot(p.dir)).toEqual(before)
  })

  it("export --out into folders that do not exist yet creates them", () => {
    const r = cli("export", "--out", "exports/2026/team.json")
    expect(r.code, r.stdout).toBe(0)
    expect(JSON.parse(fs.readFileSync(path.join(p.dir, "exports/2026/team.json"), "utf8"))).toMatchObject({
      format: "local-data-catalog/team-catalog"
    })
  })

  it("evidence --out <device|file|FIFO>: INVALID_PARAM naming out; --verify <file|missing|''>: INVALID_PARAM naming verify", () => {
    const before = snapshot(p.dir)
    for (const out of ["/dev/null", "plain.txt", "pipe", "plain.txt/bundle"]) {
      refused(cli("evidence", "--out", out, "--yes"), "INVALID_PARAM", "out")
    }
    for (const v of ["plain.txt", "no-such-bundle", "", "pipe"]) {
      refused(cli("evidence", "--verify", v), "INVALID_PARAM", "verify")
    }
    expect(snapshot(p.dir)).toEqual(before)
  })

  it("evidence --verify on a bundle whose manifest is not JSON or names files outside it: EVIDENCE_HASH_MISMATCH", () => {
    expect(cli("evidence", "--out", "bundle").code).toBe(0)
    const manifest = path.join(p.dir, "bundle", "manifest.json")
    const good = fs.readFileSync(manifest, "utf8")
    fs.writeFileSync(manifest, "{ not json")
    refused(cli("evidence", "--verify", "bundle"), "EVIDENCE_HASH_MISMATCH")
    const m = JSON.parse(good) as { artifacts: Array<{ file: string; sha256: string }> }
    m.artifacts[0] = { ...m.artifacts[0]!, file: "../plain.txt" }
    fs.writeFileSync(manifest, JSON.stringify(m))
    refused(cli("evidence", "--verify", "bundle"), "EVIDENCE_HASH_MISMATCH")
    fs.rmSync(manifest)
    fs.mkdirSync(manifest)
    refused(cli("evidence", "--verify", "bundle"), "EVIDENCE_HASH_MISMATCH")
  })

  it("CATALOG_DATA naming a file: INVALID_PARAM naming CATALOG_DATA, the file untouched", () => {
    const r = runCli(["start", "--json"], { cwd: p.dir, env: { ...env, CATALOG_DATA: "plain.txt" } })
    refused(r, "INVALID_PARAM", "CATALOG_DATA")
    expect(fs.readFileSync(path.join(p.dir, "plain.txt"), "utf8")).toBe("not a folder\n")
  })

  it("dora import <folder|FIFO> and dora export --out <device|file>: coded errors naming file / out, no hang", () => {
    const d = tempProject("ldc-files-dora-")
    try {
      writeFile(
        d.dir,
        "catalog.yml",
        "sources: []\ndora:\n  inScope: true\n  entity: { lei: 969500EXAMPLEBANK039, name: Example Bank AG, country: DE, currency: EUR }\n"
      )
      fs.mkdirSync(path.join(d.dir, "folder"))
      mkfifo(path.join(d.dir, "pipe.csv"))
      writeFile(d.dir, "plain.txt", "x\n")
      const dcli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: d.dir })
      for (const f of ["folder", "pipe.csv"]) {
        refused(dcli("dora", "import", "B_01.01", f), "DORA_INPUT_INVALID", "file")
      }
      for (const out of ["/dev/null", "plain.txt"]) {
        refused(dcli("dora", "export", "--out", out, "--ref-date", "2025-12-31"), "INVALID_PARAM", "out")
      }
      expect(fs.readFileSync(path.join(d.dir, "plain.txt"), "utf8")).toBe("x\n")
    } finally {
      d.cleanup()
    }
  })
})
