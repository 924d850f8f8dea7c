/**
 * `catalog admin …` as a user runs it: the built CLI as real processes. Start-up refusals in order
 * (PORTAL_NOT_READY, ADMIN_ENV_INCOMPLETE, PORT_IN_USE) with exit codes and fixes; help, tenants and
 * remove (ADMIN_NOT_CONFIRMED, CLAIM_NOT_FOUND, ADMIN_INPUT_INVALID, ADMIN_ENV_INCOMPLETE); a portal on
 * SQLite serving until SIGTERM (exit 0); and two portal processes on one PostgreSQL database taking
 * concurrent uploads of one record: exactly one live claim, none lost or duplicated, one rate limit.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { portalStoreLayer } from "../../src/layers/portal/PortalSql.js"
import { PortalStore } from "../../src/services/PortalStore.js"
import { recordKey, request, upload, writeKey } from "../programs/portal/harness.js"
import { runCli, spawnCli, tempProject } from "../utils/cli.js"
import { makePgDatabase } from "../utils/databases.js"
import { sampleSnapshot } from "../utils/snapshots.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
interface Listening {
  readonly url: string
  readonly api: string
  readonly port: number
  readonly storage: string
}

const project = tempProject("ldc-portal-e2e-")
afterAll(() => project.cleanup())
const dir = project.dir
const key = writeKey(dir)

/** Starts `admin serve --json --port 0`; resolves with its first stdout line once listening. */
const serve = (env: Record<string, string>) =>
  new Promise<{ readonly child: ChildProcess; readonly info: Listening; readonly stderr: () => string }>(
    (resolve, reject) => {
      const child = spawnCli(["admin", "serve", "--json", "--port", "0"], { cwd: dir, env })
      let out = ""
      let err = ""
      child.stderr!.on("data", (b: Buffer) => (err += b.toString("utf8")))
      child.stdout!.on("data", (b: Buffer) => {
        out += b.toString("utf8")
        const line = out.split("\n")[0]!
        if (out.includes("\n")) resolve({ child, info: JSON.parse(line) as Listening, stderr: () => err })
      })
      child.on("exit", (code) => reject(new Error(`admin serve exited ${code}: ${err}`)))
    }
  )

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners("exit")
    child.on("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

describe("admin serve refuses to start", () => {
  it("without an Ed25519 private key: PORTAL_NOT_READY (before any other setting is read)", () => {
    const r = runCli(["admin", "serve", "--json"], { cwd: dir, env: { CATALOG_INGEST_RATE_LIMIT: "lots" } })
    expect(r.code).toBe(1)
    const e = (r.json as ErrorJson).error
    expect(e.code).toBe("PORTAL_NOT_READY")
    expect(e.fix).toContain("openssl genpkey -algorithm ed25519")
    const rsa = runCli(["admin", "serve", "--json"], {
      cwd: dir,
      env: { CATALOG_PORTAL_SIGNING_KEY: writeKey(dir, "rsa") }
    })
    expect(rsa.code).toBe(1)
    expect((rsa.json as ErrorJson).error.message).toContain("RSA key, not Ed25519")
  })

  it("with malformed settings: ADMIN_ENV_INCOMPLETE naming each", () => {
    const r = runCli(["admin", "serve", "--json"], {
      cwd: dir,
      env: {
        CATALOG_PORTAL_SIGNING_KEY: key,
        CATALOG_INGEST_RATE_LIMIT: "lots",
        CATALOG_PORTAL_DATABASE_URL: "mysql://db/portal"
      }
    })
    expect(r.code).toBe(1)
    const e = (r.json as ErrorJson).error
    expect(e.code).toBe("ADMIN_ENV_INCOMPLETE")
    expect(e.message).toContain("CATALOG_INGEST_RATE_LIMIT")
    expect(e.message).toContain("CATALOG_PORTAL_DATABASE_URL")
    expect(e.fix).toContain("catalog admin help")
  })

  it("when its PostgreSQL database cannot be reached: ADMIN_ENV_INCOMPLETE naming the variable (after the mail warning)", () => {
    const r = runCli(["admin", "serve", "--json"], {
      cwd: dir,
      env: { CATALOG_PORTAL_SIGNING_KEY: key, CATALOG_PORTAL_DATABASE_URL: "postgres://postgres@127.0.0.1:1/nope" }
    })
    expect(r.code).toBe(1)
    const e = (r.json as ErrorJson).error
    expect(e.code).toBe("ADMIN_ENV_INCOMPLETE")
    expect(e.param).toBe("CATALOG_PORTAL_DATABASE_URL")
    expect(r.stderr).toContain("MAIL_NOT_CONFIGURED")
  })

  it("on a port in use: PORT_IN_USE naming the port and CATALOG_PORTAL_PORT", async () => {
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const r = runCli(["admin", "serve", "--json"], {
        cwd: dir,
        env: {
          CATALOG_PORTAL_SIGNING_KEY: key,
          CATALOG_PORTAL_PORT: String(port),
          CATALOG_PORTAL_HOME: path.join(dir, "port-home")
        }
      })
      expect(r.code).toBe(1)
      const e = (r.json as ErrorJson).error
      expect(e.code).toBe("PORT_IN_USE")
      expect(e.message).toContain(String(port))
      expect(e.fix).toContain("CATALOG_PORTAL_PORT")
    } finally {
      blocker.close()
    }
  })
})

describe("admin help, and bad admin input", () => {
  it("admin help lists the subcommands and the portal's variables", () => {
    const r = runCli(["admin", "help", "--json"], { cwd: dir })
    expect(r.code).toBe(0)
    const doc = r.json as { subcommands: Array<{ usage: string }>; environment: Array<{ name: string }> }
    expect(doc.subcommands.map((s) => s.usage.split(" ").slice(2, 4).join(" "))).toEqual([
      "help [--json]",
      "serve [--port",
      "tenants [--json]",
      "remove <claimId>",
      "licence issue",
      "licence revoke",
      "licence list"
    ])
    const names = doc.environment.map((e) => e.name).join(" ")
    for (const v of ["CATALOG_PORTAL_SIGNING_KEY", "CATALOG_PORTAL_DATABASE_URL", "CATALOG_INGEST_RATE_LIMIT"]) {
      expect(names).toContain(v)
    }
    expect(runCli(["admin", "help"], { cwd: dir }).stdout).toContain("default 30")
  })

  it("admin alone or an unknown subcommand: ADMIN_INPUT_INVALID, exit 2", () => {
    for (const args of [["admin"], ["admin", "frobnicate"]]) {
      const r = runCli([...args, "--json"], { cwd: dir })
      expect(r.code).toBe(2)
      expect((r.json as ErrorJson).error.code).toBe("ADMIN_INPUT_INVALID")
      expect((r.json as ErrorJson).error.fix).toContain("catalog admin")
    }
  })

  it("tenants and remove without a portal store on this machine: ADMIN_ENV_INCOMPLETE", () => {
    const env = { CATALOG_PORTAL_HOME: path.join(dir, "nowhere") }
    for (const args of [["admin", "tenants"], ["admin", "remove", "cl_x", "--yes"]]) {
      const r = runCli([...args, "--json"], { cwd: dir, env })
      expect(r.code).toBe(1)
      expect((r.json as ErrorJson).error.code).toBe("ADMIN_ENV_INCOMPLETE")
      expect((r.json as ErrorJson).error.message).toContain("not loaded")
    }
  })
})

describe("a portal on SQLite, administered from the command line", () => {
  const env = {
    CATALOG_PORTAL_SIGNING_KEY: key,
    CATALOG_PORTAL_HOME: path.join(dir, "sqlite-home"),
    CATALOG_DEV_MODE: "1"
  }
  let portal: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    portal = await serve(env)
  })

  it("serves, lists its claims, removes one behind --yes, and stops on SIGTERM with exit 0", async () => {
    expect(portal.info.storage).toBe("sqlite")
    expect(portal.info.api).toBe(`${portal.info.url.replace(/\/$/, "")}/api/portal/v1`)
    const res = await upload({ url: portal.info.url }, sampleSnapshot())
    expect(res.status).toBe(201)
    const receipt = res.json as { claimId: string; claimUrl: string }
    const tenants = runCli(["admin", "tenants", "--json"], { cwd: dir, env })
    expect(tenants.code).toBe(0)
    const rows = (tenants.json as { tenants: Array<{ claimId: string; state: string; recipient: string }> }).tenants
    expect(rows).toEqual([
      expect.objectContaining({ claimId: receipt.claimId, state: "live", recipient: "dpo@acme.example" })
    ])
    expect(runCli(["admin", "tenants"], { cwd: dir, env }).stdout).toContain(receipt.claimId)

    const unconfirmed = runCli(["admin", "remove", receipt.claimId, "--json"], { cwd: dir, env })
    expect(unconfirmed.code).toBe(1)
    expect((unconfirmed.json as ErrorJson).error.code).toBe("ADMIN_NOT_CONFIRMED")
    const unknown = runCli(["admin", "remove", "cl_nope", "--yes", "--json"], { cwd: dir, env })
    expect(unknown.code).toBe(1)
    expect((unknown.json as ErrorJson).error.code).toBe("CLAIM_NOT_FOUND")
    const removed = runCli(["admin", "remove", receipt.claimId, "--yes", "--json"], { cwd: dir, env })
    expect(removed.code).toBe(0)
    expect(removed.json).toEqual({ removed: receipt.claimId, state: "removed", claims: [receipt.claimId] })
    const gone = await request(portal.info.url, new URL(receipt.claimUrl).pathname)
    expect(gone.status).toBe(404)
    expect(gone.body).toContain("CLAIM_NOT_FOUND")
    // A record invited twice: removing its live claim removes the record, and says how many claims it held.
    const key = recordKey()
    const older = (await upload({ url: portal.info.url }, sampleSnapshot(), { key })).json as { claimId: string }
    const newer = (await upload({ url: portal.info.url }, sampleSnapshot(), { key })).json as { claimId: string }
    const record = runCli(["admin", "remove", newer.claimId, "--yes"], { cwd: dir, env })
    expect(record.code).toBe(0)
    expect(record.stdout).toContain(`Removed the record of ${newer.claimId}: 2 claims`)
    expect(record.stdout).toContain(older.claimId)

    // The log: one line per request, the token never in it; dev-mode mail is logged (that is its point).
    // The portal writes a request's line before answering it, but its stderr reaches this process through
    // a pipe, which may be read after the answer's socket: wait for the line rather than race it.
    await expect.poll(() => portal.stderr(), { timeout: 20_000, interval: 20 }).toContain("GET /claim/clm_…")
    const log = portal.stderr()
    expect(log).toMatch(/portal: POST \/api\/portal\/v1\/snapshots 201 \d+ms/)
    expect(log.split("\n").filter((l) => l.startsWith("portal:")).join("\n")).not.toContain(
      new URL(receipt.claimUrl).pathname.split("/")[2]!
    )
    expect(await stop(portal.child)).toBe(0)
  })
})

describe("admin tenants on a terminal", () => {
  it("prints control characters and bidi overrides a stored value holds as U+FFFD, never raw", async () => {
    const home = path.join(dir, "hostile-home")
    const hostile = "d\u001b]0;owned\u0007po\u001b[2J\b\u009b31m\u202eelpmaxe.emca@"
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const ctx = yield* Layer.build(portalStoreLayer({ databaseUrl: null, home }))
      const store = Context.get(ctx, PortalStore)
      yield* store.ingest({
        claimId: "cl_hostile",
        tokenHash: "0".repeat(64),
        recordKeyHash: "1".repeat(64),
        recipient: hostile,
        unbound: false,
        body: "{}",
        bytes: 2,
        sha256: "2".repeat(64),
        at: "2026-01-01T00:00:00.000Z"
      })
    })))
    const human = runCli(["admin", "tenants"], { cwd: dir, env: { CATALOG_PORTAL_HOME: home } })
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("cl_hostile")
    // eslint-disable-next-line no-control-regex
    expect(human.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(human.stdout).toContain("d\ufffd]0;owned\ufffdpo\ufffd[2J\ufffd\ufffd31m\ufffdelpmaxe.emca@")
    // JSON keeps the value as stored (JSON.stringify escapes the C0 controls).
    const json = runCli(["admin", "tenants", "--json"], { cwd: dir, env: { CATALOG_PORTAL_HOME: home } })
    expect((json.json as { tenants: Array<{ recipient: string }> }).tenants[0]!.recipient).toBe(hostile)
  })
})

describe("two portal processes on one PostgreSQL database", () => {
  const scope = Effect.runSync(Scope.make())
  let a: Awaited<ReturnType<typeof serve>>
  let b: Awaited<ReturnType<typeof serve>>
  let env: Record<string, string>
  beforeAll(async () => {
    const db = await Effect.runPromise(Scope.extend(makePgDatabase({ analyze: false }), scope))
    env = {
      CATALOG_PORTAL_SIGNING_KEY: key,
      CATALOG_PORTAL_DATABASE_URL: db.url,
      CATALOG_INGEST_RATE_LIMIT: "10",
      CATALOG_DEV_MODE: "1"
    } // Started one after the other: both migrate the same database at start-up.
    ;[a, b] = await Promise.all([serve(env), serve(env)])
  })
  afterAll(async () => {
    for (const p of [a, b]) if (p !== undefined) await stop(p.child)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("never lose or duplicate an upload of one record, and count one rate limit across both", async () => {
    expect([a.info.storage, b.info.storage]).toEqual(["postgres", "postgres"])
    const key = recordKey()
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => upload({ url: (i % 2 === 0 ? a : b).info.url }, sampleSnapshot(), { key }))
    )
    const accepted = results.filter((r) => r.status === 201).map((r) =>
      r.json as { claimId: string; supersedes: string | null }
    )
    const limited = results.filter((r) => r.status === 429)
    expect(accepted.length).toBe(10)
    expect(limited.length).toBe(4)
    for (const r of limited) expect((r.json as ErrorJson).error.code).toBe("INGEST_RATE_LIMITED")

    const tenants = runCli(["admin", "tenants", "--json"], { cwd: dir, env })
    expect(tenants.code).toBe(0)
    const rows = (tenants.json as { tenants: Array<{ claimId: string; state: string; successorId: string | null }> })
      .tenants
    expect(rows.map((r) => r.claimId).sort()).toEqual(accepted.map((r) => r.claimId).sort())
    expect(rows.filter((r) => r.state === "live").length).toBe(1)
    expect(rows.filter((r) => r.state === "superseded").length).toBe(9)
    // Every superseded claim names a distinct successor among the claims: one chain, nothing lost.
    const successors = rows.filter((r) => r.state === "superseded").map((r) => r.successorId)
    expect(new Set(successors).size).toBe(9)
    for (const s of successors) expect(rows.some((r) => r.claimId === s)).toBe(true)
    // Each receipt's supersedes is distinct too (no claim superseded twice).
    const supersedes = accepted.map((r) => r.supersedes).filter((s) => s !== null)
    expect(supersedes.length).toBe(9)
    expect(new Set(supersedes).size).toBe(9)
  })
})
