/**
 * `catalog invite` through the built CLI (dist/bin.js) as a user runs it: every refusal with its exit
 * code and fix, SPEC.md's order when several apply (recipient, catalog-only, map missing, stale, size,
 * confirmation, portal address), `--no-upload` writing exactly the bytes it reports, the `--json`
 * shapes, and uploads to a fake portal (test/utils/fakePortal.ts) speaking src/domain/Portal.ts: the
 * body received is byte-identical to the snapshot file, the record key is stable, the ingest token is
 * sent only when set, and the portal's error envelopes become their registry errors.
 *
 * The planted-secrets test scans a real PostgreSQL database whose rows hold distinctive values, through
 * a connection string carrying a distinctive password, and proves neither reaches the snapshot file, the
 * uploaded body, stdout or stderr.
 */
import { Effect, Exit, Scope } from "effect"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ingestPath, recordKeyHeader } from "../../src/domain/Portal.js"
import { uploadCapBytes } from "../../src/domain/Snapshot.js"
import { baseEnv, binPath, type CliResult, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"
import { makePgDatabase, pgServer } from "../utils/databases.js"
import { closedPort, type FakePortal, startFakePortal } from "../utils/fakePortal.js"

/** Runs the CLI without blocking this process (the fake portal answers from this event loop). */
const run = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string | undefined> = {}) =>
  new Promise<CliResult>((resolve) => {
    const child = spawnCli(args, { cwd, env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("close", (code) => {
      let json: unknown = undefined
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code: code ?? -1, stdout, stderr, json })
    })
  })

interface ErrorOut {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorOut).error

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex")

const projects: Array<() => void> = []
afterAll(() => {
  for (const c of projects) c()
})

/** A working folder with an SQLite source `app` (customers, orders, a view), scanned unless `scan` is false. */
const project = (opts: { readonly scan?: boolean; readonly top?: string } = {}) => {
  const p = tempProject("ldc-invite-")
  projects.push(p.cleanup)
  const db = new DatabaseSync(path.join(p.dir, "app.db"))
  db.exec(
    `CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, full_name TEXT, date_of_birth TEXT);
     CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), total REAL);
     CREATE VIEW big_orders AS SELECT order_id, total FROM orders WHERE total > 100;
     INSERT INTO customers VALUES (1, 'row-value-sqlite@planted.example', 'Quentin Rowvalue', '1970-01-01');`
  )
  db.close()
  writeFile(
    p.dir,
    "catalog.yml",
    `${
      opts.top ?? ""
    }controller: { name: Acme GmbH, contact: privacy@acme.example }\nsources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\n`
  )
  const env = { APP_DB: path.join(p.dir, "app.db") }
  if (opts.scan !== false) expect(runCli(["start"], { cwd: p.dir, env }).code).toBe(0)
  return { dir: p.dir, env, snapshotFile: path.join(p.dir, ".catalog", "invite-snapshot.json") }
}

/** Adds a source to catalog.yml that was never scanned (the catalog is now stale). */
const addUnscanned = (dir: string) =>
  fs.appendFileSync(
    path.join(dir, "catalog.yml"),
    "  - { id: billing, kind: sqlite, driver: node:sqlite, connectionRef: BILLING_DB }\n"
  )

/** A manual source describing `columns` columns: a snapshot over the 5 MB cap. */
const addHugeManual = (dir: string, columns: number) => {
  const lines = ["table,column,type,description"]
  const words = "customer contact record holding the address as entered at sign-up and kept for delivery".repeat(3)
  for (let i = 0; i < columns; i++) lines.push(`t_${Math.floor(i / 50)},email_${i},text,${words}`)
  writeFile(dir, "schema.csv", lines.join("\n") + "\n")
  fs.appendFileSync(path.join(dir, "catalog.yml"), "  - { id: dict, kind: manual, driver: csv, path: schema.csv }\n")
}

let portal: FakePortal
beforeAll(async () => {
  portal = await startFakePortal()
})
afterAll(async () => {
  await portal.close()
})

describe("invite: refusals and their order", () => {
  it("before the first scan: MAP_NOT_FOUND (exit 1, fix), and no catalog is created", async () => {
    const p = project({ scan: false })
    const r = await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir, p.env)
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("MAP_NOT_FOUND")
    expect(errorOf(r).fix).toMatch(/catalog start/)
    expect(fs.existsSync(path.join(p.dir, ".catalog"))).toBe(false)
  })

  it("in a folder with no catalog.yml and no catalog: MAP_NOT_FOUND (the map is missing), not CONFIG_NOT_FOUND", async () => {
    const p = tempProject("ldc-invite-empty-")
    projects.push(p.cleanup)
    const r = await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir)
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("MAP_NOT_FOUND")
    expect(fs.existsSync(path.join(p.dir, ".catalog"))).toBe(false)
  })

  it("no recipient: INVITE_RECIPIENT_REQUIRED; both --email and --unbound, or a malformed address, say so", async () => {
    const p = project({ scan: false })
    const none = await run(["invite", "--json"], p.dir, p.env)
    expect(none.code).toBe(1)
    expect(errorOf(none)).toMatchObject({ code: "INVITE_RECIPIENT_REQUIRED", param: "email" })
    expect(errorOf(none).fix).toMatch(/--email <address>.*--unbound/)
    const both = await run(["invite", "--email", "dpo@acme.example", "--unbound", "--json"], p.dir, p.env)
    expect(both.code).toBe(1)
    expect(errorOf(both).code).toBe("INVITE_RECIPIENT_REQUIRED")
    expect(errorOf(both).message).toMatch(/cannot be used together/)
    for (const bad of ["not-an-address", "a@b.example,c@d.example", "Name <a@b.example>", "\u001bc\u009b2Jevil@x.io"]) {
      const r = await run(["invite", "--email", bad, "--json"], p.dir, p.env)
      expect(r.code).toBe(1)
      expect(errorOf(r)).toMatchObject({ code: "INVITE_RECIPIENT_REQUIRED", param: "email" })
      expect(errorOf(r).message).toMatch(/is not one email address/)
      // eslint-disable-next-line no-control-regex
      expect(errorOf(r).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    }
    // --email without its value is a usage error (exit 2), as for every flag.
    const usage = await run(["invite", "--email", "--json"], p.dir, p.env)
    expect(usage.code).toBe(2)
  })

  it("the recipient comes first, then catalog-only, then the missing catalog", async () => {
    const p = project({ scan: false, top: "catalogOnly: true\n" })
    // recipient + catalog-only + no catalog → recipient
    expect(errorOf(await run(["invite", "--json"], p.dir, p.env)).code).toBe("INVITE_RECIPIENT_REQUIRED")
    // catalog-only + no catalog → catalog-only
    const r = await run(["invite", "--unbound", "--json"], p.dir, p.env)
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("CATALOG_ONLY")
    expect(errorOf(r).message).toMatch(/catalog-only is on/)
    expect(errorOf(r).fix).toMatch(/--no-upload.*serve-claim|catalog-only off/)
    expect(r.stderr).toMatch(/whoever holds the claim link becomes the record's admin/)
  })

  it("catalog-only refuses every upload, even with --yes and a portal; --no-upload still writes the snapshot", async () => {
    const p = project({ top: "catalogOnly: true\n" })
    const before = portal.received.length
    const r = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
      ...p.env,
      CATALOG_PORTAL_URL: portal.url
    })
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("CATALOG_ONLY")
    expect(portal.received.length).toBe(before)
    const local = await run(["invite", "--no-upload", "--json"], p.dir, p.env)
    expect(local.code).toBe(0)
    expect(fs.existsSync(p.snapshotFile)).toBe(true)
  })

  it("stale: a source configured but never scanned is STALE_CATALOG naming it (before confirmation and portal); --yes passes", async () => {
    const p = project()
    addUnscanned(p.dir)
    const r = await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir, p.env)
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("STALE_CATALOG")
    expect(errorOf(r).message).toMatch(/billing configured in catalog\.yml but never scanned/)
    expect(errorOf(r).fix).toMatch(/catalog start.*--yes/)
    const human = await run(["invite", "--email", "dpo@acme.example"], p.dir, p.env)
    expect(human.code).toBe(1)
    expect(human.stderr).toMatch(/STALE_CATALOG: .*billing[\s\S]*fix: Re-run `catalog start`/)
    // --yes accepts the stale catalog (and the upload): the next refusal is the portal address.
    const yes = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, p.env)
    expect(errorOf(yes).code).toBe("PORTAL_UNREACHABLE")
    // --no-upload is refused as stale too, unless --yes.
    expect(errorOf(await run(["invite", "--no-upload", "--json"], p.dir, p.env)).code).toBe("STALE_CATALOG")
  })

  it("stale: a changed kind and driver, a changed connection variable, and a source scanned but no longer configured, are named", async () => {
    const p = project()
    const yml = path.join(p.dir, "catalog.yml")
    fs.writeFileSync(
      yml,
      fs.readFileSync(yml, "utf8").replace(
        "id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB",
        "id: app, kind: manual, driver: csv, path: app.csv"
      )
    )
    const r = await run(["invite", "--no-upload", "--json"], p.dir, p.env)
    expect(errorOf(r).code).toBe("STALE_CATALOG")
    expect(errorOf(r).message).toMatch(
      /app changed in catalog\.yml since the last scan \(kind sqlite → manual, driver node:sqlite → csv, connection variable APP_DB → none, path none → app\.csv\)/
    )
    fs.writeFileSync(yml, "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB_V2 }\n")
    const moved = await run(["invite", "--no-upload", "--json"], p.dir, { ...p.env, APP_DB_V2: p.env.APP_DB })
    expect(errorOf(moved).code).toBe("STALE_CATALOG")
    expect(errorOf(moved).message).toMatch(
      /app changed in catalog\.yml since the last scan \(connection variable APP_DB → APP_DB_V2\)/
    )
    expect(errorOf(moved).message).not.toContain(p.env.APP_DB)
    fs.writeFileSync(yml, "sources:\n  - { id: other, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\n")
    const gone = await run(["invite", "--no-upload", "--json"], p.dir, p.env)
    expect(errorOf(gone).message).toMatch(/app scanned but no longer in catalog\.yml/)
    expect(errorOf(gone).message).toMatch(/other configured in catalog\.yml but never scanned/)
  })

  it("off a terminal without --yes: UPLOAD_NOT_CONFIRMED before the portal address is looked at; nothing is sent", async () => {
    const p = project()
    const before = portal.received.length
    for (const env of [{}, { CATALOG_PORTAL_URL: portal.url }]) {
      const r = await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir, { ...p.env, ...env })
      expect(r.code).toBe(1)
      expect(errorOf(r).code).toBe("UPLOAD_NOT_CONFIRMED")
      expect(errorOf(r).message).toMatch(/nothing was sent/)
      expect(errorOf(r).fix).toMatch(/--yes.*--no-upload/)
    }
    // --non-interactive and CI are "off a terminal" too.
    const ci = await run(["invite", "--email", "dpo@acme.example", "--non-interactive"], p.dir, { ...p.env, CI: "1" })
    expect(ci.code).toBe(1)
    expect(ci.stderr).toMatch(/UPLOAD_NOT_CONFIRMED/)
    // The human run shows the preview first (on stdout), then the refusal.
    expect(ci.stdout).toMatch(/Invite: exactly what would be sent/)
    expect(portal.received.length).toBe(before)
  })

  it("no portal address: PORTAL_UNREACHABLE says the hosted portal is not switched on and how to stay local; nothing is tried", async () => {
    const p = project()
    const r = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, p.env)
    expect(r.code).toBe(1)
    expect(errorOf(r)).toMatchObject({ code: "PORTAL_UNREACHABLE", param: "CATALOG_PORTAL_URL" })
    expect(errorOf(r).message).toMatch(/not switched on.*CATALOG_PORTAL_URL is not set/)
    expect(errorOf(r).fix).toMatch(/CATALOG_PORTAL_URL.*--no-upload.*serve-claim/)
    const bad = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
      ...p.env,
      CATALOG_PORTAL_URL: "portal.example.com"
    })
    expect(errorOf(bad).code).toBe("PORTAL_UNREACHABLE")
    expect(errorOf(bad).message).toMatch(/"portal\.example\.com", which is not an http\(s\) address/)
    // A password in the address is refused and never echoed (not in the preview either); so are a query and a fragment.
    const creds = await run(["invite", "--email", "dpo@acme.example", "--yes"], p.dir, {
      ...p.env,
      CATALOG_PORTAL_URL: "https://ops:Planted-Pw-991@portal.example.com"
    })
    expect(creds.code).toBe(1)
    expect(creds.stderr).toMatch(/PORTAL_UNREACHABLE/)
    expect(creds.stderr).toMatch(/user name or password/)
    expect(creds.stdout + creds.stderr).not.toContain("Planted-Pw-991")
    for (const v of ["https://portal.example.com/?a=1", "https://portal.example.com/#x"]) {
      const q = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
        ...p.env,
        CATALOG_PORTAL_URL: v
      })
      expect(errorOf(q).code).toBe("PORTAL_UNREACHABLE")
      expect(errorOf(q).message).toMatch(/query or fragment/)
    }
  })

  it("a refused connection and a server that is not a portal are PORTAL_UNREACHABLE naming the address and what came back", async () => {
    const p = project()
    const dead = `http://127.0.0.1:${await closedPort()}`
    const refused = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
      ...p.env,
      CATALOG_PORTAL_URL: dead
    })
    expect(refused.code).toBe(1)
    expect(errorOf(refused).code).toBe("PORTAL_UNREACHABLE")
    expect(errorOf(refused).message).toContain(dead)
    expect(errorOf(refused).message).toMatch(/refused/)
    expect(errorOf(refused).fix).toMatch(/CATALOG_PORTAL_URL/)
    const dns = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
      ...p.env,
      CATALOG_PORTAL_URL: "http://no-such-host.invalid"
    })
    expect(errorOf(dns).code).toBe("PORTAL_UNREACHABLE")
    expect(errorOf(dns).message).toMatch(/no-such-host\.invalid.*does not resolve/)
    for (
      const [mode, seen] of [["html-404", /HTTP 404 \(text\/html: "Not Found"\)/], [
        "server-error",
        /HTTP 502/
      ]] as const
    ) {
      portal.mode = mode
      try {
        const r = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
          ...p.env,
          CATALOG_PORTAL_URL: portal.url
        })
        expect(r.code).toBe(1)
        expect(errorOf(r).code).toBe("PORTAL_UNREACHABLE")
        expect(errorOf(r).message).toContain(portal.url)
        expect(errorOf(r).message).toMatch(seen)
      } finally {
        portal.mode = "ok"
      }
    }
  })

  it("the portal's envelopes become their errors: 401 INGEST_UNAUTHORIZED, 429 INGEST_RATE_LIMITED with Retry-After, 413 SNAPSHOT_TOO_LARGE", async () => {
    const p = project()
    const env = { ...p.env, CATALOG_PORTAL_URL: portal.url }
    const cases = [
      ["unauthorized", "INGEST_UNAUTHORIZED", /CATALOG_INGEST_TOKEN/],
      ["rate-limited", "INGEST_RATE_LIMITED", /Wait an hour/],
      ["too-large", "SNAPSHOT_TOO_LARGE", /Remove sources/]
    ] as const
    for (const [mode, code, fix] of cases) {
      portal.mode = mode
      try {
        const r = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, env)
        expect(r.code).toBe(1)
        expect(errorOf(r).code).toBe(code)
        expect(errorOf(r).fix).toMatch(fix)
        if (code === "INGEST_RATE_LIMITED") expect(errorOf(r).message).toMatch(/Retry after 1800 seconds/)
      } finally {
        portal.mode = "ok"
      }
    }
  })

  it(
    "over 5,000,000 bytes: SNAPSHOT_TOO_LARGE before confirmation and before sending; --no-upload writes it and warns",
    async () => {
      const p = project({ scan: false })
      addHugeManual(p.dir, 9000)
      expect(runCli(["start"], { cwd: p.dir, env: p.env }).code).toBe(0)
      const before = portal.received.length
      // Too large and unconfirmed: size comes first.
      const r = await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir, {
        ...p.env,
        CATALOG_PORTAL_URL: portal.url
      })
      expect(r.code).toBe(1)
      expect(errorOf(r).code).toBe("SNAPSHOT_TOO_LARGE")
      expect(errorOf(r).message).toMatch(/upload cap is 5,000,000 bytes/)
      expect(portal.received.length).toBe(before)
      // Stale and too large: stale comes first.
      addUnscanned(p.dir)
      expect(errorOf(await run(["invite", "--email", "dpo@acme.example", "--json"], p.dir, p.env)).code).toBe(
        "STALE_CATALOG"
      )
      const local = await run(["invite", "--no-upload", "--yes", "--json"], p.dir, p.env)
      expect(local.code).toBe(0)
      const out = local.json as { bytes: number; warnings: Array<string>; snapshot: string }
      expect(out.bytes).toBeGreaterThan(uploadCapBytes)
      expect(fs.statSync(out.snapshot).size).toBe(out.bytes)
      expect(out.warnings.join(" ")).toMatch(/could not be uploaded \(SNAPSHOT_TOO_LARGE\)/)
    },
    120_000
  )
})

describe("invite --no-upload", () => {
  it("writes the snapshot (0600) whose bytes and SHA-256 are the JSON's; the preview is in the JSON", async () => {
    const p = project()
    const r = await run(["invite", "--no-upload", "--json"], p.dir, p.env)
    expect(r.code).toBe(0)
    const out = r.json as Record<string, unknown> & {
      snapshot: string
      bytes: number
      sha256: string
      preview: Record<string, unknown>
    }
    expect(Object.keys(out)).toEqual([
      "snapshot",
      "bytes",
      "sha256",
      "recipient",
      "unbound",
      "uploaded",
      "preview",
      "warnings",
      "next"
    ])
    expect(out.snapshot).toBe(p.snapshotFile)
    expect(path.isAbsolute(out.snapshot)).toBe(true)
    const bytes = fs.readFileSync(out.snapshot)
    expect(bytes.length).toBe(out.bytes)
    expect(sha256(bytes)).toBe(out.sha256)
    expect(fs.statSync(out.snapshot).mode & 0o777).toBe(0o600)
    expect(out).toMatchObject({ recipient: null, unbound: false, uploaded: false, next: "catalog serve-claim" })
    expect(out.preview).toMatchObject({
      recipient: null,
      portal: null,
      sources: 1,
      datasets: 3,
      contents: "no row values, no secrets: names, types, flags and drafts only",
      dora: { inScope: false }
    })
    const snap = JSON.parse(bytes.toString("utf8")) as { format: string; datasets: Array<{ id: string }> }
    expect(snap.format).toBe("local-data-catalog/invite-snapshot")
    expect(snap.datasets.map((d) => d.id).sort()).toEqual([
      "app/main/big_orders",
      "app/main/customers",
      "app/main/orders"
    ])
    expect(bytes.toString("utf8")).not.toContain("row-value-sqlite@planted.example")
    expect(bytes.toString("utf8")).not.toContain("Quentin Rowvalue")
    // The file is compact JSON, byte for byte JSON.stringify of what it holds.
    expect(JSON.stringify(JSON.parse(bytes.toString("utf8")))).toBe(bytes.toString("utf8"))
  })

  it("prints a readable preview with the path, size and SHA-256; the recipient is recorded when given", async () => {
    const p = project()
    const r = await run(["invite", "--no-upload", "--email", "dpo@acme.example"], p.dir, p.env)
    expect(r.code).toBe(0)
    const file = fs.readFileSync(p.snapshotFile)
    expect(r.stdout).toContain("recipient:   dpo@acme.example")
    expect(r.stdout).toContain("controller:  Acme GmbH <privacy@acme.example>")
    expect(r.stdout).toMatch(/RoPA: +\d+ activities/)
    expect(r.stdout).toMatch(/purpose suggested · lawful basis suggested · retention suggested · transfers suggested/)
    expect(r.stdout).toContain("DORA:        not in scope")
    expect(r.stdout).toContain("no row values, no secrets: names, types, flags and drafts only")
    expect(r.stdout).toContain(`Snapshot: ${p.snapshotFile}`)
    expect(r.stdout).toContain(`${file.length.toLocaleString("en")} bytes · sha256 ${sha256(file)}`)
    expect(r.stdout).toContain("Nothing was sent.")
    expect((JSON.parse(file.toString("utf8")) as { recipient: string }).recipient).toBe("dpo@acme.example")
  })
})

describe("invite: upload to a portal", () => {
  it("uploads exactly the snapshot file's bytes with the record key; a re-invite supersedes; --json shape", async () => {
    const p = project()
    const env = { ...p.env, CATALOG_PORTAL_URL: portal.url }
    const before = portal.received.length
    const r = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, env)
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const out = r.json as Record<string, unknown> & { bytes: number; sha256: string; claimUrl: string; claimId: string }
    expect(Object.keys(out)).toEqual([
      "claimUrl",
      "claimId",
      "bytes",
      "sha256",
      "recipient",
      "unbound",
      "mailed",
      "mail",
      "supersedes",
      "portal",
      "snapshot"
    ])
    expect(out).toMatchObject({
      recipient: "dpo@acme.example",
      unbound: false,
      mailed: true,
      mail: { status: "sent", error: null },
      supersedes: null,
      portal: portal.url,
      snapshot: p.snapshotFile
    })
    expect(out.claimUrl).toMatch(new RegExp(`^${portal.url}/claim/clm_`))
    expect(portal.received.length).toBe(before + 1)
    const first = portal.received.at(-1)!
    expect(first.method).toBe("POST")
    expect(first.path).toBe(ingestPath)
    expect(first.headers["content-type"]).toBe("application/json")
    expect(first.headers["authorization"]).toBeUndefined()
    const key = first.headers[recordKeyHeader] as string
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const file = fs.readFileSync(p.snapshotFile)
    expect(Buffer.compare(first.body, file)).toBe(0)
    expect(first.body.length).toBe(out.bytes)
    expect(sha256(first.body)).toBe(out.sha256)
    // The record key is never in the snapshot, never printed.
    expect(first.body.toString("utf8")).not.toContain(key)
    expect(r.stdout).not.toContain(key)

    // A second invite of the same record: same key, the portal says it supersedes the first claim.
    const again = await run(["invite", "--email", "dpo@acme.example", "--yes"], p.dir, env)
    expect(again.code).toBe(0)
    const second = portal.received.at(-1)!
    expect(second.headers[recordKeyHeader]).toBe(key)
    expect(again.stdout).toContain(`supersedes ${out.claimId}`)
    expect(again.stdout).toMatch(/Claim link: .*\/claim\/clm_/)
    expect(again.stdout).toContain("The link was mailed to dpo@acme.example.")
    expect(again.stdout).not.toContain(key)
    expect(Buffer.compare(second.body, fs.readFileSync(p.snapshotFile))).toBe(0)
  })

  it("sends the ingest token as a Bearer token only when CATALOG_INGEST_TOKEN is set", async () => {
    const p = project()
    portal.requireToken = "ingest-token-123"
    try {
      const without = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
        ...p.env,
        CATALOG_PORTAL_URL: portal.url
      })
      expect(errorOf(without).code).toBe("INGEST_UNAUTHORIZED")
      const withToken = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, {
        ...p.env,
        CATALOG_PORTAL_URL: portal.url,
        CATALOG_INGEST_TOKEN: "ingest-token-123"
      })
      expect(withToken.code).toBe(0)
      expect(portal.received.at(-1)!.headers["authorization"]).toBe("Bearer ingest-token-123")
      expect(withToken.stdout + withToken.stderr).not.toContain("ingest-token-123")
    } finally {
      portal.requireToken = null
    }
  })

  it("unbound: warns who becomes the admin, mails nobody; the snapshot says unbound", async () => {
    const p = project()
    const r = await run(["invite", "--unbound", "--yes", "--json"], p.dir, { ...p.env, CATALOG_PORTAL_URL: portal.url })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: --unbound: whoever holds the claim link becomes the record's admin/)
    expect(r.json).toMatchObject({ recipient: null, unbound: true, mailed: false, mail: { status: "not-needed" } })
    const sent = JSON.parse(portal.received.at(-1)!.body.toString("utf8")) as { recipient: null; unbound: boolean }
    expect(sent).toMatchObject({ recipient: null, unbound: true })
  })

  it("MAIL_NOT_CONFIGURED on the portal: the invite still succeeds, prints the link, and warns with the fix", async () => {
    const p = project()
    const env = { ...p.env, CATALOG_PORTAL_URL: portal.url }
    portal.mode = "mail-not-configured"
    try {
      const human = await run(["invite", "--email", "dpo@acme.example", "--yes"], p.dir, env)
      expect(human.code).toBe(0)
      expect(human.stdout).toMatch(/Claim link: .*\/claim\/clm_/)
      expect(human.stderr).toMatch(/MAIL_NOT_CONFIGURED/)
      expect(human.stderr).toMatch(/fix: .*CATALOG_SENDMAIL_CMD/)
      const json = await run(["invite", "--email", "dpo@acme.example", "--yes", "--json"], p.dir, env)
      expect(json.code).toBe(0)
      expect(json.json).toMatchObject({
        mailed: false,
        mail: { status: "not-configured", error: { code: "MAIL_NOT_CONFIGURED" } }
      })
      expect((json.json as { claimUrl: string }).claimUrl).toMatch(/\/claim\/clm_/)
    } finally {
      portal.mode = "ok"
    }
  })
})

/** Runs `invite` on a pseudo-terminal (util-linux `script`) and answers the confirmation with `answer`. */
const onTerminal = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string>, answer: "y" | "n") =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`
    const cmd = [process.execPath, binPath, ...args].map(quote).join(" ")
    const child = spawn("script", ["-qec", cmd, "/dev/null"], {
      cwd,
      env: baseEnv(env),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let out = ""
    let answered = false
    const onData = (d: Buffer) => {
      out += d.toString()
      if (!answered && out.includes("Upload this snapshot")) {
        answered = true
        setTimeout(() => child.stdin.write(`${answer}\r`), 200)
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", (code) => resolve({ code: code ?? -1, out }))
  })

describe.skipIf(!fs.existsSync("/usr/bin/script"))("invite on a terminal", () => {
  it("asks before uploading (default no): no sends nothing (UPLOAD_NOT_CONFIRMED), yes uploads", async () => {
    const p = project()
    const env = { ...p.env, CATALOG_PORTAL_URL: portal.url }
    const before = portal.received.length
    const no = await onTerminal(["invite", "--email", "dpo@acme.example"], p.dir, env, "n")
    expect(no.out).toMatch(/Upload this snapshot \([\d,]+ bytes\) to http:\/\/127\.0\.0\.1:\d+\?/)
    expect(no.out).toMatch(/\(y\/N\)/)
    expect(no.out).toMatch(/UPLOAD_NOT_CONFIRMED.*You did not confirm the upload; nothing was sent/)
    expect(no.code).toBe(1)
    expect(portal.received.length).toBe(before)
    const yes = await onTerminal(["invite", "--email", "dpo@acme.example"], p.dir, env, "y")
    expect(yes.out).toMatch(/Claim link: .*\/claim\/clm_/)
    expect(yes.code).toBe(0)
    expect(portal.received.length).toBe(before + 1)
  }, 60_000)
})

describe("invite: planted secrets never leave", () => {
  const password = "Pl4nted-Passw0rd-x9q7"
  const rowValues = [
    "zanzibar.rowvalue@planted.example",
    "Xerxes Plantedname",
    "PLANTED-IBAN-DE8937",
    "4929-PLANT-0001"
  ]
  const scope = Effect.runSync(Scope.make())
  let dbName = ""
  beforeAll(async () => {
    const db = await Effect.runPromise(Scope.extend(
      makePgDatabase({
        sql: `CREATE TABLE customers (id serial PRIMARY KEY, email text, full_name text, iban text, card_number text);
              INSERT INTO customers (email, full_name, iban, card_number) VALUES
                ('${rowValues[0]}', '${rowValues[1]}', '${rowValues[2]}', '${rowValues[3]}');
              CREATE TABLE notes (id serial PRIMARY KEY, customer_id int REFERENCES customers(id), body text);
              INSERT INTO notes (customer_id, body) VALUES (1, '${rowValues[1]} called about ${rowValues[2]}');`
      }),
      scope
    ))
    dbName = db.name
  }, 60_000)
  afterAll(async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("neither the connection password nor any row value is in the snapshot, the upload, stdout or stderr", async () => {
    const p = tempProject("ldc-invite-pg-")
    projects.push(p.cleanup)
    const url = `postgres://${pgServer.user}:${password}@${pgServer.host}:${pgServer.port}/${dbName}`
    writeFile(p.dir, ".env", `PG_URL=${url}\n`)
    writeFile(
      p.dir,
      "catalog.yml",
      "controller: { name: Acme GmbH, contact: privacy@acme.example }\nsources:\n  - { id: pg, kind: postgres, driver: pg, connectionRef: PG_URL }\n"
    )
    const scan = await run(["start"], p.dir)
    expect(scan.code).toBe(0)
    const local = await run(["invite", "--no-upload", "--yes", "--json"], p.dir)
    expect(local.code).toBe(0)
    const before = portal.received.length
    const upload = await run(["invite", "--email", "dpo@acme.example", "--yes"], p.dir, {
      CATALOG_PORTAL_URL: portal.url
    })
    expect(upload.code).toBe(0)
    expect(portal.received.length).toBe(before + 1)
    const file = fs.readFileSync(path.join(p.dir, ".catalog", "invite-snapshot.json"), "utf8")
    const body = portal.received.at(-1)!.body.toString("utf8")
    // The catalog is really in there: the tables and columns were scanned.
    expect(file).toContain("pg/public/customers")
    expect(file).toContain("card_number")
    expect(body).toBe(file)
    const outputs = { file, body, stdout: local.stdout + upload.stdout, stderr: local.stderr + upload.stderr }
    for (const [where, text] of Object.entries(outputs)) {
      for (const secret of [password, ...rowValues]) {
        expect(text.includes(secret), `${secret} found in ${where}`).toBe(false)
      }
      expect(text.includes(url), `the connection string found in ${where}`).toBe(false)
    }
  }, 120_000)
})

describe("help and serve-claim wiring", () => {
  it("help --json documents invite and serve-claim with their flags, examples and errors", async () => {
    const p = project({ scan: false })
    const r = await run(["help", "invite", "--json"], p.dir)
    expect(r.code).toBe(0)
    const doc = r.json as {
      name: string
      usage: string
      options: Array<{ flag: string }>
      errors: Array<{ code: string }>
    }
    expect(doc.usage).toBe("catalog invite [--no-upload] [--yes] [--email <address> | --unbound] [--json]")
    expect(doc.options.map((o) => o.flag.split(" ")[0])).toEqual(
      expect.arrayContaining(["--no-upload", "--email", "--unbound", "--yes", "--json"])
    )
    expect(doc.errors.map((e) => e.code)).toEqual(
      expect.arrayContaining(["INVITE_RECIPIENT_REQUIRED", "CATALOG_ONLY", "STALE_CATALOG", "UPLOAD_NOT_CONFIRMED"])
    )
    const sc = (await run(["help", "serve-claim", "--json"], p.dir)).json as { usage: string }
    expect(sc.usage).toBe("catalog serve-claim [--port <n>] [--json]")
  })

  it("serve-claim without a snapshot is INVITE_NOT_FOUND with its fix", async () => {
    const p = project()
    const r = await run(["serve-claim", "--port", "0", "--json"], p.dir, p.env)
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("INVITE_NOT_FOUND")
    expect(errorOf(r).fix).toMatch(/catalog invite --no-upload/)
  })
})
