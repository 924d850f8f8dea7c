/**
 * Every failure of every connector ends its process: `catalog start` (beside healthy sources, so
 * the scan commits and exits 0), `catalog watch`, `catalog test <id>` and `catalog doctor` exit
 * within seconds whatever the failing source does — a refused login, an unknown database, a closed
 * port, a host that does not resolve, a missing or broken file, a FIFO or a device as its path.
 * Before the connectors owned their pools, a MySQL pool whose first connection failed was never
 * ended and kept `start` alive indefinitely; a FIFO as a CSV or manifest path blocked in open().
 */
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, binPath, tempProject, writeFile } from "../utils/cli.js"

/** Exits slower than this count as a hang (the machine is shared; a healthy run takes 1–3 s). */
const promptMs = 10_000
/** A run still alive after this is killed, so a regression fails the test instead of hanging it. */
const killMs = 60_000

interface Timed {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly ms: number
  readonly stdout: string
  readonly stderr: string
  readonly json: unknown
}

/**
 * Runs the built CLI with stdin an open pipe that never ends (so `/dev/stdin` as a path is a pipe
 * nobody writes to), and kills it after `killMs`.
 */
const runTimed = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}): Promise<Timed> =>
  new Promise((resolve) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [binPath, ...args], {
      cwd,
      env: baseEnv(env),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), killMs)
    child.on("exit", (code, signal) => {
      clearTimeout(timer)
      child.stdin.destroy()
      let json: unknown
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code, signal, ms: Math.round(performance.now() - t0), stdout, stderr, json })
    })
  })

const mysqlDb = `ldc_t_exit_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
const mysql = (sql: string) => execFileSync("mysql", ["-h127.0.0.1", "-uroot", "-e", sql])

interface Case {
  readonly name: string
  /** The failing source, as a catalog.yml entry with id `bad`. */
  readonly source: string
  /** Its connection string, when it takes one (BAD_URL). */
  readonly url?: string
  /** Files to create in the project before the run. */
  readonly setup?: (dir: string) => void
  /** What the failure message says. */
  readonly says: RegExp
}

const pg = (url: string, name: string, says: RegExp): Case => ({
  name: `postgres: ${name}`,
  source: "{id: bad, kind: postgres, driver: pg, connectionRef: BAD_URL}",
  url,
  says
})
const my = (url: string, name: string, says: RegExp): Case => ({
  name: `mysql: ${name}`,
  source: "{id: bad, kind: mysql, driver: mysql2, connectionRef: BAD_URL}",
  url,
  says
})
const lite = (name: string, url: string, says: RegExp, setup?: (dir: string) => void): Case => ({
  name: `sqlite: ${name}`,
  source: "{id: bad, kind: sqlite, driver: \"node:sqlite\", connectionRef: BAD_URL}",
  url,
  says,
  ...(setup ? { setup } : {})
})
const manual = (name: string, file: string, says: RegExp, setup?: (dir: string) => void): Case => ({
  name: `manual: ${name}`,
  source: `{id: bad, kind: manual, driver: csv, path: "${file}"}`,
  says,
  ...(setup ? { setup } : {})
})
const dbt = (name: string, file: string, says: RegExp, setup?: (dir: string) => void): Case => ({
  name: `dbt: ${name}`,
  source: `{id: bad, kind: dbt, driver: dbt-manifest, path: "${file}", target: csv}`,
  says,
  ...(setup ? { setup } : {})
})
const mkfifo = (name: string) => (dir: string) => execFileSync("mkfifo", [path.join(dir, name)])

const cases: ReadonlyArray<Case> = [
  pg("postgres://ldc_no_such_role:pw@127.0.0.1:5432/postgres", "unknown user", /refused the login/),
  pg("postgres://postgres@127.0.0.1:5432/ldc_no_such_db", "unknown database", /has no database/),
  pg("postgres://postgres:pw@127.0.0.1:1/postgres", "closed port", /connection refused/),
  pg("postgres://postgres:pw@ldc-no-such-host.invalid:5432/postgres", "unresolvable host", /host name not found/),
  my("mysql://root:wrong-password@127.0.0.1:3306/mysql", "wrong password", /refused the login/),
  my("mysql://ldc_no_such_user:pw@127.0.0.1:3306/mysql", "unknown user", /refused the login/),
  my("mysql://root:@127.0.0.1:3306/ldc_no_such_db", "unknown database", /cannot open the database/),
  my("mysql://root:pw@127.0.0.1:1/x", "closed port", /connection refused/),
  my("mysql://root:pw@ldc-no-such-host.invalid:3306/x", "unresolvable host", /host name not found/),
  lite("missing file", "./missing.db", /does not exist/),
  lite(
    "not a database",
    "./notes.db",
    /not a database/,
    (dir) => writeFile(dir, "notes.db", "plain text, not sqlite\n".repeat(50))
  ),
  lite("a FIFO", "./pipe.db", /named pipe \(FIFO\)/, mkfifo("pipe.db")),
  lite("/dev/zero", "/dev/zero", /character device/),
  lite("/dev/stdin (a pipe)", "/dev/stdin", /named pipe|not a regular file/),
  manual("bad CSV header", "bad.csv", /header row/, (dir) => writeFile(dir, "bad.csv", "a,b\n1,2\n")),
  manual("a FIFO", "pipe.csv", /named pipe \(FIFO\)/, mkfifo("pipe.csv")),
  manual("/dev/zero", "/dev/zero", /character device/),
  manual("/dev/stdin (a pipe)", "/dev/stdin", /named pipe|not a regular file/),
  dbt(
    "manifest v99",
    "manifest.json",
    /manifest v99; supported are manifest v10–v12/,
    (dir) =>
      writeFile(
        dir,
        "manifest.json",
        JSON.stringify({
          metadata: { dbt_schema_version: "https://schemas.getdbt.com/dbt/manifest/v99.json" },
          nodes: { "model.p.a": { resource_type: "model", schema: "s", name: "a" } }
        })
      )
  ),
  dbt("a FIFO", "pipe.json", /named pipe \(FIFO\)/, mkfifo("pipe.json")),
  dbt("/dev/zero", "/dev/zero", /character device/)
]

describe("every connector failure ends the process promptly", () => {
  beforeAll(() => {
    mysql(
      `CREATE DATABASE \`${mysqlDb}\`; CREATE TABLE \`${mysqlDb}\`.customers (id INT PRIMARY KEY, email VARCHAR(100))`
    )
  })
  afterAll(() => {
    mysql(`DROP DATABASE IF EXISTS \`${mysqlDb}\``)
  })

  /** A project with three healthy sources (CSV, PostgreSQL, MariaDB) and the failing one. */
  const project = (c: Case) => {
    const p = tempProject("ldc-exit-")
    writeFile(p.dir, "dict.csv", "table,column,type\ncustomers,email,text\n")
    writeFile(
      p.dir,
      "catalog.yml",
      [
        "sources:",
        "  - {id: csv, kind: manual, driver: csv, path: dict.csv}",
        "  - {id: pgok, kind: postgres, driver: pg, connectionRef: PG_OK}",
        "  - {id: myok, kind: mysql, driver: mysql2, connectionRef: MY_OK}",
        `  - ${c.source}`,
        ""
      ].join("\n")
    )
    writeFile(
      p.dir,
      ".env",
      [
        "PG_OK=postgres://postgres@127.0.0.1:5432/postgres",
        `MY_OK=mysql://root:@127.0.0.1:3306/${mysqlDb}`,
        ...(c.url !== undefined ? [`BAD_URL=${c.url}`] : []),
        ""
      ].join("\n")
    )
    c.setup?.(p.dir)
    return p
  }

  it.each(cases)("$name: start, watch, test and doctor exit within seconds with a coded error", async (c) => {
    const p = project(c)
    try {
      const [start, test, doctor] = await Promise.all([
        runTimed(["start", "--json"], p.dir),
        runTimed(["test", "bad", "--json"], p.dir),
        runTimed(["doctor", "--json"], p.dir)
      ])
      // start: the healthy sources are scanned and committed, the failing one reported, exit 0.
      expect(start.signal, `start was killed after ${killMs} ms: ${start.stderr}`).toBeNull()
      expect(start.code, start.stdout + start.stderr).toBe(0)
      expect(start.ms, "start exits promptly").toBeLessThan(promptMs)
      const report = start.json as {
        sources: ReadonlyArray<{ id: string; reached: boolean; error: { code: string; message: string } | null }>
      }
      expect(report.sources.filter((s) => s.reached).map((s) => s.id).sort()).toEqual(["csv", "myok", "pgok"])
      const bad = report.sources.find((s) => s.id === "bad")
      expect(bad?.error?.code).toBe("SOURCE_UNREACHABLE")
      expect(bad?.error?.message).toMatch(c.says)

      // test <id>: exit 1 with the same code and reason.
      expect(test.signal, `test was killed: ${test.stderr}`).toBeNull()
      expect(test.code).toBe(1)
      expect(test.ms).toBeLessThan(promptMs)
      const error = (test.json as { error: { code: string; message: string; fix?: string } }).error
      expect(error.code).toBe("SOURCE_UNREACHABLE")
      expect(error.message).toMatch(c.says)
      expect(error.fix).toBeTruthy()

      // doctor: every check runs, the failing source is named with its code, exit 1.
      expect(doctor.signal, `doctor was killed: ${doctor.stderr}`).toBeNull()
      expect(doctor.code).toBe(1)
      expect(doctor.ms).toBeLessThan(promptMs)
      const checks = (doctor.json as { checks: ReadonlyArray<{ name: string; ok: boolean; code?: string }> }).checks
      expect(checks.find((x) => x.name === "source bad")).toMatchObject({ ok: false, code: "SOURCE_UNREACHABLE" })
      for (const id of ["csv", "pgok", "myok"]) expect(checks.find((x) => x.name === `source ${id}`)?.ok, id).toBe(true)

      // watch re-scans through the same connectors and exits too.
      const watch = await runTimed(["watch", "--json"], p.dir)
      expect(watch.signal, `watch was killed: ${watch.stderr}`).toBeNull()
      expect(watch.code, watch.stdout + watch.stderr).toBe(0)
      expect(watch.ms).toBeLessThan(promptMs)
    } finally {
      p.cleanup()
    }
  }, killMs * 3)

  it("an interrupted scan (SIGINT while connecting) still exits promptly", async () => {
    // Ctrl+C early in a scan: the pools opened so far are closed by their scopes and the process ends.
    const p = project(my("mysql://root:pw@127.0.0.1:3306/mysql", "interrupted", /./))
    try {
      const t0 = performance.now()
      const child = spawn(process.execPath, [binPath, "start", "--json"], {
        cwd: p.dir,
        env: baseEnv(),
        stdio: ["ignore", "pipe", "pipe"]
      })
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      setTimeout(() => child.kill("SIGINT"), 400)
      const killer = setTimeout(() => child.kill("SIGKILL"), killMs)
      const code = await exited
      clearTimeout(killer)
      expect(performance.now() - t0).toBeLessThan(promptMs)
      // Interrupted (130) or finished before the signal (0): never killed.
      expect([0, 130]).toContain(code)
    } finally {
      p.cleanup()
    }
  }, killMs * 2)
})
