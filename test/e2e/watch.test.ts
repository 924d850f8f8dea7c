/** `watch`: exit 3 under --ci when a core RoPA field moved, 0 otherwise; webhook delivered or WEBHOOK_FAILED with the scan stored. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

const runAsync = (args: Array<string>, cwd: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawnCli(args, { cwd, env })
    let stdout = ""
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    child.on("exit", (code) => resolve({ code, stdout }))
  })

describe("watch", () => {
  const p = tempProject()
  const dbFile = path.join(p.dir, "app.db")
  const env = { APP_DB: dbFile }
  const received: Array<unknown> = []
  const server = http.createServer((req, res) => {
    let body = ""
    req.on("data", (d: Buffer) => {
      body += d.toString()
    })
    req.on("end", () => {
      received.push(JSON.parse(body))
      res.writeHead(204).end()
    })
  })
  let url = ""

  beforeAll(async () => {
    const db = new DatabaseSync(dbFile)
    db.exec(
      "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT); CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT)"
    )
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: eu-west-1 }\n"
    )
    expect(runCli(["start"], { cwd: p.dir, env }).code).toBe(0)
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  })
  afterAll(() => {
    server.close()
    p.cleanup()
  })

  it("--ci exits 0 when nothing moved", () => {
    const r = runCli(["watch", "--ci", "--json"], { cwd: p.dir, env })
    expect(r.code).toBe(0)
    expect((r.json as { ropaMoved: Array<unknown> }).ropaMoved).toEqual([])
  })

  it("--ci exits 3 and says which field moved when a core RoPA field moved", () => {
    const db = new DatabaseSync(dbFile)
    db.exec("ALTER TABLE customers ADD COLUMN date_of_birth DATE")
    db.close()
    const r = runCli(["watch", "--ci", "--json"], { cwd: p.dir, env })
    expect(r.code).toBe(3)
    const moved = (r.json as { ropaMoved: Array<{ activity: string; field: string; summary: string }> }).ropaMoved
    expect(
      moved.some((m) =>
        m.activity === "app.customers" && m.field === "dataCategories" && m.summary.includes("identity.birth_date")
      )
    ).toBe(true)
    const human = runCli(["watch", "--ci"], { cwd: p.dir, env })
    expect(human.code).toBe(0)
  })

  it("--webhook POSTs a JSON change summary to a local receiver", async () => {
    const db = new DatabaseSync(dbFile)
    db.exec(
      "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), ip_address TEXT)"
    )
    db.close()
    const r = await runAsync(["watch", "--webhook", url, "--json"], p.dir, env)
    expect(r.code).toBe(0)
    expect(received).toHaveLength(1)
    const body = received[0] as {
      event: string
      scanId: number
      changes: Array<{ kind: string; entity: string }>
      ropaMoved: Array<unknown>
    }
    expect(body.event).toBe("catalog.rescan")
    expect(body.changes.some((c) => c.kind === "dataset.added" && c.entity === "app/main/sessions")).toBe(true)
    expect(JSON.parse(r.stdout).webhook).toMatchObject({ url, status: 204 })
  })

  it("an unreachable webhook is WEBHOOK_FAILED and the re-scan still stands", () => {
    const db = new DatabaseSync(dbFile)
    db.exec(
      "CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id))"
    )
    db.close()
    const r = runCli(["watch", "--webhook", "http://127.0.0.1:1/hook", "--json"], { cwd: p.dir, env })
    expect(r.code).toBe(1)
    const err =
      (r.json as { error: { code: string; details: { scanId: number; changes: Array<{ entity: string }> } } }).error
    expect(err.code).toBe("WEBHOOK_FAILED")
    expect(err.details.changes.some((c) => c.entity === "app/main/invoices")).toBe(true)
    const show = runCli(["show", "app/main/invoices", "--json"], { cwd: p.dir, env })
    expect(show.code).toBe(0)
  })
})
