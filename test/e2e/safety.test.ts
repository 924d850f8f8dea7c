/**
 * Promises that protect users: secrets never leak, a killed scan leaves the previous catalog whole,
 * the runtime guard, the store's version check, config errors that name key and line.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, describe, expect, it } from "vitest"
import { binPath, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

const PLANTED = "planted-S3cret-9f8e7d"

const filesUnder = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
      path.join(e.parentPath, e.name)
    )
    : []

describe("secrets stay out", () => {
  const p = tempProject()
  afterAll(() => p.cleanup())

  it("a planted password never reaches .catalog/, any output or any error message", () => {
    // One reachable PostgreSQL (trust auth ignores the password) and one closed port, both with the planted secret.
    writeFile(
      p.dir,
      ".env",
      `GOOD_PG=postgres://postgres:${PLANTED}@127.0.0.1:5432/postgres\nBAD_PG=postgres://postgres:${PLANTED}@127.0.0.1:1/postgres\n`
    )
    const outputs: Array<string> = []
    const run = (...args: Array<string>) => {
      const r = runCli(args, { cwd: p.dir })
      outputs.push(r.stdout, r.stderr)
      return r
    }
    expect(run("add", "postgres", "--ref", "GOOD_PG", "--id", "good", "--json").code).toBe(0)
    expect(run("add", "postgres", "--ref", "BAD_PG", "--id", "bad", "--json").code).toBe(0)
    const start = run("start", "--json")
    expect(start.code, start.stdout + start.stderr).toBe(0)
    const bad = run("test", "bad", "--json")
    expect(bad.code).toBe(1)
    expect((bad.json as { error: { code: string; fix: string } }).error.code).toBe("SOURCE_UNREACHABLE")
    expect((bad.json as { error: { fix: string } }).error.fix).toContain("127.0.0.1:1")
    for (
      const args of [["status"], ["sources"], ["config"], ["doctor"], ["log", "--since", "0"], ["status", "--json"], [
        "doctor",
        "--json"
      ], ["sources", "--json"]]
    ) run(...args)
    for (const out of outputs) expect(out).not.toContain(PLANTED)
    const files = filesUnder(path.join(p.dir, ".catalog"))
    expect(files.some((f) => f.endsWith("index.db"))).toBe(true)
    for (const f of files) expect(fs.readFileSync(f).includes(Buffer.from(PLANTED)), f).toBe(false)
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).not.toContain(PLANTED)
  })
})

describe("atomic scans", () => {
  const p = tempProject()
  afterAll(() => p.cleanup())

  it("SIGKILL during a scan leaves the previous catalog readable and unchanged", async () => {
    const dbFile = path.join(p.dir, "big.db")
    const db = new DatabaseSync(dbFile)
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT, full_name TEXT)")
    db.close()
    const env = { BIG_DB: dbFile }
    expect(runCli(["add", "sqlite", "--ref", "BIG_DB", "--id", "big"], { cwd: p.dir, env }).code).toBe(0)
    expect(runCli(["start", "--json"], { cwd: p.dir, env }).code).toBe(0)
    const before = runCli(["datasets", "--json"], { cwd: p.dir, env }).stdout
    const beforeLog = runCli(["log", "--since", "0", "--json"], { cwd: p.dir, env }).stdout

    // Make the next scan large enough to be killed in the middle of it.
    const w = new DatabaseSync(dbFile)
    w.exec("BEGIN")
    for (let i = 0; i < 3000; i++) {
      w.exec(
        `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, user_id INTEGER, email TEXT, note TEXT, created_at TEXT, amount REAL, c1 TEXT, c2 TEXT, c3 TEXT, c4 TEXT)`
      )
    }
    w.exec("COMMIT")
    w.close()

    let killedMidway = 0
    for (const delay of [150, 300, 500, 800, 1200]) {
      const child = spawnCli(["start", "--json"], { cwd: p.dir, env })
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      await new Promise((r) => setTimeout(r, delay))
      child.kill("SIGKILL")
      const code = await exited
      const after = runCli(["datasets", "--json"], { cwd: p.dir, env })
      expect(after.code, after.stderr).toBe(0)
      const n = (after.json as { total: number }).total
      if (code === null && n === 1) {
        killedMidway++
        expect(after.stdout).toBe(before)
        expect(runCli(["log", "--since", "0", "--json"], { cwd: p.dir, env }).stdout).toBe(beforeLog)
      } else {
        // The scan got to commit before the kill: then it is whole.
        expect(n).toBe(3001)
        break
      }
    }
    expect(killedMidway).toBeGreaterThan(0)
  })
})

describe("runtime and store guards", () => {
  const p = tempProject()
  afterAll(() => p.cleanup())

  it("refuses Node older than 22.18 with NODE_VERSION_UNSUPPORTED and a fix", () => {
    const candidates = ["/usr/bin/node", "/usr/local/bin/node"].filter((f) => fs.existsSync(f))
    const old = candidates.find((f) => {
      const v = execFileSync(f, ["--version"], { encoding: "utf8" }).trim().slice(1).split(".").map(Number)
      return v[0]! < 22 || (v[0] === 22 && v[1]! < 18)
    })
    expect(old, "this machine's system Node (20) is the old runtime under test").toBeDefined()
    let out = ""
    let code = 0
    try {
      out = execFileSync(old!, [binPath, "status", "--json"], { encoding: "utf8", cwd: p.dir })
    } catch (e) {
      const err = e as { status: number; stdout: string }
      code = err.status
      out = err.stdout
    }
    expect(code).toBe(1)
    const body = JSON.parse(out) as { error: { code: string; fix: string } }
    expect(body.error.code).toBe("NODE_VERSION_UNSUPPORTED")
    expect(body.error.fix).toMatch(/22\.18/)
  })

  it("refuses a catalog written by a newer schema: SCHEMA_MIGRATION_REQUIRED", () => {
    writeFile(p.dir, "catalog.yml", "sources:\n  - {id: m, kind: manual, driver: csv, path: d.csv}\n")
    writeFile(p.dir, "d.csv", "table,column,type\nt,email,text\n")
    expect(runCli(["start"], { cwd: p.dir }).code).toBe(0)
    const db = new DatabaseSync(path.join(p.dir, ".catalog", "index.db"))
    db.exec("INSERT INTO effect_sql_migrations (migration_id, name) VALUES (999, 'from_the_future')")
    db.close()
    for (const cmd of [["status", "--json"], ["start", "--json"]]) {
      const r = runCli(cmd, { cwd: p.dir })
      expect(r.code).toBe(1)
      expect((r.json as { error: { code: string } }).error.code).toBe("SCHEMA_MIGRATION_REQUIRED")
    }
  })

  it("CONFIG_INVALID names the key and the line", () => {
    const q = tempProject()
    try {
      writeFile(
        q.dir,
        "catalog.yml",
        "version: 1\nsources:\n  - id: x\n    kind: postgres\n    driver: pg\n    connectionRef: not a name\n"
      )
      const r = runCli(["start", "--json"], { cwd: q.dir })
      expect(r.code).toBe(1)
      const e = (r.json as { error: { code: string; message: string } }).error
      expect(e.code).toBe("CONFIG_INVALID")
      expect(e.message).toContain("catalog.yml:6")
      expect(e.message).toContain("connectionRef")
      // CATALOG_CONFIG points elsewhere; NO_SOURCES when the list is empty
      writeFile(q.dir, "other.yml", "sources: []\n")
      const r2 = runCli(["start", "--json"], { cwd: q.dir, env: { CATALOG_CONFIG: "other.yml" } })
      expect((r2.json as { error: { code: string } }).error.code).toBe("NO_SOURCES")
    } finally {
      q.cleanup()
    }
  })
})
