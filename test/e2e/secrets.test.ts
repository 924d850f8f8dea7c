/**
 * A planted password never leaves through an error message. Each kind of source error is given the
 * same distinctive secret — a refused PostgreSQL login, an unknown PostgreSQL database, a refused
 * MariaDB login, an unknown MariaDB database, unreachable hosts with credentials in the URL, a
 * manual CSV whose file is an .env holding a connection string, a dbt manifest that is really that
 * .env, a SQLite path that is not a database and one whose path holds the secret — and then every
 * byte of `.catalog/`, every output of start/test/doctor/status/provenance/log, the evidence bundle,
 * the export file and the served /api/v1/provenance is searched for it.
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

const PLANTED = `Pl4nted-${randomBytes(6).toString("hex")}-S3cret`
const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
const myUser = `ldc_sec_${suffix}`
const myDb = `ldc_t_sec_${suffix}`
const mysql = (sql: string) => execFileSync("mysql", ["-h127.0.0.1", "-uroot", "-e", sql])

const filesUnder = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
      path.join(e.parentPath, e.name)
    )
    : []

/** `catalog open --port 0 --json`: resolves once it prints where it listens. */
const openServer = (cwd: string) =>
  new Promise<{ readonly child: ChildProcess; readonly port: number }>((resolve, reject) => {
    const child = spawnCli(["open", "--port", "0", "--json"], { cwd })
    let out = ""
    const timer = setTimeout(() => reject(new Error("catalog open did not start")), 30_000)
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8")
      if (out.includes("\n")) {
        clearTimeout(timer)
        resolve({ child, port: (JSON.parse(out.split("\n")[0]!) as { port: number }).port })
      }
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`catalog open exited ${code}: ${out}`))
    })
  })

describe("a planted secret never reaches the catalog, an output or an error message", () => {
  const p = tempProject("ldc-secrets-")
  beforeAll(() => {
    // A MariaDB account whose password is the planted secret: its login works, its database does not exist.
    mysql(
      `CREATE DATABASE \`${myDb}\`; CREATE USER '${myUser}'@'127.0.0.1' IDENTIFIED BY '${PLANTED}'; GRANT SELECT ON \`${myDb}\`.* TO '${myUser}'@'127.0.0.1'`
    )
  })
  afterAll(() => {
    mysql(`DROP USER IF EXISTS '${myUser}'@'127.0.0.1'; DROP DATABASE IF EXISTS \`${myDb}\``)
    p.cleanup()
  })

  it("plants the secret in every kind of source error and finds it nowhere", async () => {
    const dir = p.dir
    // The .env's first line is a connection string: a manual source and a dbt source are pointed at it.
    const secretDir = path.join(dir, `data-${PLANTED}`)
    fs.mkdirSync(secretDir)
    writeFile(secretDir, "notes.txt", "not a database\n")
    writeFile(
      dir,
      ".env",
      [
        `APP_DATABASE_URL=postgres://app:${PLANTED}@db.internal:5432/app`,
        `PG_BADUSER=postgres://ldc_no_such_role:${PLANTED}@127.0.0.1:5432/postgres`,
        `PG_NODB=postgres://postgres:${PLANTED}@127.0.0.1:5432/ldc_no_such_db_${suffix}`,
        `PG_TRUSTED=postgres://postgres:${PLANTED}@127.0.0.1:5432/postgres`,
        `PG_NOHOST=postgres://app:${PLANTED}@ldc-no-such-host.invalid:5432/app`,
        `PG_DSN=host=127.0.0.1 port=1 user=app password=${PLANTED}`,
        `MY_BADPASS=mysql://root:${PLANTED}@127.0.0.1:3306/mysql`,
        `MY_NODB=mysql://${myUser}:${PLANTED}@127.0.0.1:3306/ldc_no_such_db_${suffix}`,
        `MY_CLOSED=mysql://app:${PLANTED}@127.0.0.1:1/app`,
        `MY_NOHOST=mysql://app:${PLANTED}@ldc-no-such-host.invalid:3306/app`,
        "LITE_ENV=./.env",
        `LITE_PATH=${path.join(secretDir, "notes.txt")}`,
        ""
      ].join("\n")
    )
    writeFile(dir, "dict.csv", "table,column,type\ncustomers,email,text\n")
    const pgSource = (id: string, ref: string) => `  - {id: ${id}, kind: postgres, driver: pg, connectionRef: ${ref}}`
    const mySource = (id: string, ref: string) => `  - {id: ${id}, kind: mysql, driver: mysql2, connectionRef: ${ref}}`
    writeFile(
      dir,
      "catalog.yml",
      [
        "sources:",
        "  - {id: csv, kind: manual, driver: csv, path: dict.csv}",
        pgSource("pg-baduser", "PG_BADUSER"),
        pgSource("pg-nodb", "PG_NODB"),
        pgSource("pg-trusted", "PG_TRUSTED"),
        pgSource("pg-nohost", "PG_NOHOST"),
        pgSource("pg-dsn", "PG_DSN"),
        mySource("my-badpass", "MY_BADPASS"),
        mySource("my-nodb", "MY_NODB"),
        mySource("my-closed", "MY_CLOSED"),
        mySource("my-nohost", "MY_NOHOST"),
        "  - {id: env-csv, kind: manual, driver: csv, path: .env}",
        "  - {id: env-dbt, kind: dbt, driver: dbt-manifest, path: .env, target: csv}",
        "  - {id: lite-env, kind: sqlite, driver: \"node:sqlite\", connectionRef: LITE_ENV}",
        "  - {id: lite-path, kind: sqlite, driver: \"node:sqlite\", connectionRef: LITE_PATH}",
        ""
      ].join("\n")
    )
    const failing = [
      "pg-baduser",
      "pg-nodb",
      "pg-nohost",
      "pg-dsn",
      "my-badpass",
      "my-nodb",
      "my-closed",
      "my-nohost",
      "env-csv",
      "env-dbt",
      "lite-env",
      "lite-path"
    ]

    const outputs: Array<{ readonly what: string; readonly text: string }> = []
    const run = (...args: Array<string>) => {
      const r = runCli(args, { cwd: dir })
      outputs.push({ what: `${args.join(" ")} (stdout)`, text: r.stdout }, {
        what: `${args.join(" ")} (stderr)`,
        text: r.stderr
      })
      return r
    }

    const start = run("start", "--json")
    expect(start.code, start.stdout + start.stderr).toBe(0)
    const report = start.json as {
      sources: ReadonlyArray<{ id: string; reached: boolean; error: { code: string; message: string } | null }>
    }
    // Every planted failure really failed, with its registry code, so each error message was made and stored.
    for (const id of failing) {
      const s = report.sources.find((x) => x.id === id)
      expect(s?.reached, id).toBe(false)
      expect(s?.error?.code, id).toBe("SOURCE_UNREACHABLE")
    }
    expect(report.sources.find((x) => x.id === "csv")?.reached).toBe(true)
    run("start")
    for (const id of failing) {
      expect(run("test", id, "--json").code, id).toBe(1)
      run("test", id)
    }
    run("doctor", "--json")
    run("doctor")
    run("watch", "--json")
    const provenance = run("provenance", "--json")
    expect(provenance.code).toBe(0)
    run("status", "--json")
    run("status")
    run("sources", "--json")
    run("log", "--since", "0", "--json")
    // The stored messages are there (redacted), not dropped: provenance names the failures.
    expect(provenance.stdout).toContain("SOURCE_UNREACHABLE")
    const evidenceDir = path.join(dir, "evidence-out")
    expect(run("evidence", "--out", evidenceDir, "--json").code).toBe(0)
    const exportFile = path.join(dir, "team-export.json")
    expect(run("export", "--out", exportFile, "--json").code).toBe(0)

    // The served path: the read API answers from the same Reader.
    const server = await openServer(dir)
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/provenance`)
      expect(res.status).toBe(200)
      const served = await res.text()
      expect(served).toContain("SOURCE_UNREACHABLE")
      outputs.push({ what: "GET /api/v1/provenance", text: served })
    } finally {
      server.child.kill("SIGINT")
    }

    for (const o of outputs) expect(o.text.includes(PLANTED), o.what).toBe(false)
    const files = [...filesUnder(path.join(dir, ".catalog")), ...filesUnder(evidenceDir), exportFile]
    expect(files.some((f) => f.endsWith("index.db"))).toBe(true)
    expect(files.length).toBeGreaterThan(3)
    for (const f of files) expect(fs.readFileSync(f).includes(Buffer.from(PLANTED)), f).toBe(false)
  }, 240_000)
})
