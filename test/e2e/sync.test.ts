/**
 * Pairing and sync end to end, with real processes only: the built CLI (dist/bin.js) scans a SQLite source
 * and syncs with a portal started as `catalog admin serve --port 0 --json` (on SQLite and on PostgreSQL,
 * the same scenario; an ingest token required). The machine is paired through the claim page over plain HTTP with cookies (open the unbound
 * claim, 'Connect a machine', read the token shown once). Then: every SYNC_* code the way a user hits it,
 * `push` (claim, bytes, SHA-256, time; the portal key pinned 0600; the change-log's pairing and push
 * entries), `start` and `watch` uploading after the scan (and never failing the scan), catalog-only
 * winning, `doctor`'s pairing lines, a changed portal key refused, a revoked token, a superseded claim.
 */
import { Effect, Exit, Scope } from "effect"
import { generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../programs/portal/harness.js"
import { type CliResult, tempProject, writeFile } from "../utils/cli.js"
import { makePgDatabase } from "../utils/databases.js"
import { type PortalProcess, runCliAsync, startPortalProcess } from "../utils/portalProcess.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

interface PushJson {
  readonly claimId: string
  readonly tokenId: string
  readonly portal: string
  readonly bytes: number
  readonly sha256: string
  readonly receivedAt: string
  readonly firstPairing: boolean
  readonly keyPinned: boolean
}
interface Upload {
  readonly status: string
  readonly message: string
  readonly claimId?: string
  readonly bytes?: number
  readonly error?: { readonly code: string; readonly message: string; readonly fix: string | null }
}
interface DoctorJson {
  readonly ok: boolean
  readonly checks: ReadonlyArray<{ name: string; ok: boolean; message: string; code?: string; fix?: string }>
}

const ingestToken = "ingest-sync-e2e-4410"

describe.each(["sqlite", "postgres"] as const)("pairing and sync end to end (portal process on %s)", (backend) => {
  const scope = Effect.runSync(Scope.make())
  const project = tempProject(`ldc-sync-${backend}-`)
  const workspace = path.join(project.dir, "workspace")
  const portalCwd = path.join(project.dir, "portal")
  const dbFile = path.join(workspace, "app.db")
  const keyFile = path.join(workspace, ".catalog", "portal-signing-key.pem")
  let portal: PortalProcess
  let publicKeyPem = ""
  let claimPath = ""
  let session = ""
  let token = ""
  let tokenId = ""

  const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    runCliAsync(args, workspace, { APP_DB: dbFile, CATALOG_SIGNER_EMAIL: "ops@acme.example", ...env })
  const paired = (extra: Record<string, string> = {}) => ({
    CATALOG_PORTAL_URL: portal.info.url,
    CATALOG_SYNC_TOKEN: token,
    CATALOG_INGEST_TOKEN: ingestToken,
    ...extra
  })
  const form = (target: string, body: string) =>
    request(portal.info.url, target, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: portal.info.url,
        cookie: session
      },
      body
    })
  /** 'Create a sync token' on the claim page; the token as the page shows it once. */
  const createToken = async (label: string) => {
    const page = await form(`${claimPath}/sync-tokens`, `label=${label}`)
    expect(page.status).toBe(200)
    return {
      token: /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(page.body)![1]!,
      id: /<code>(st_[A-Za-z0-9_-]+)<\/code>/.exec(page.body)![1]!,
      page: page.body
    }
  }
  const syncStatus = async (t: string) =>
    JSON.parse(
      (await request(portal.info.url, "/api/portal/v1/sync", {
        headers: { "x-catalog-sync-token": t, authorization: `Bearer ${ingestToken}` }
      })).body
    ) as { lastUploadAt: string | null; claimId: string }

  beforeAll(async () => {
    fs.mkdirSync(workspace)
    fs.mkdirSync(portalCwd)
    const db = new DatabaseSync(dbFile)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, full_name TEXT)")
    db.close()
    writeFile(
      workspace,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: eu-west-1 }\n"
    )
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    const signing = path.join(portalCwd, "signing.pem")
    fs.writeFileSync(signing, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
    publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString()
    const store = backend === "postgres"
      ? {
        CATALOG_PORTAL_DATABASE_URL:
          (await Effect.runPromise(Scope.extend(makePgDatabase({ analyze: false }), scope))).url
      }
      : { CATALOG_PORTAL_HOME: path.join(portalCwd, "home") }
    portal = await startPortalProcess(portalCwd, {
      CATALOG_PORTAL_SIGNING_KEY: signing,
      ...store,
      CATALOG_DEV_MODE: "1",
      CATALOG_INGEST_TOKEN: ingestToken
    })
    // The first scan, unpaired: it stays local.
    const start = await cli(["start", "--json"])
    expect(start.code, start.stderr).toBe(0)
    expect((start.json as { upload: Upload }).upload.status).toBe("local")
    // Invite unbound, open the claim as its admin, connect a machine.
    const invite = await cli(["invite", "--unbound", "--yes", "--json"], {
      CATALOG_PORTAL_URL: portal.info.url,
      CATALOG_INGEST_TOKEN: ingestToken
    })
    expect(invite.code, invite.stderr).toBe(0)
    claimPath = new URL((invite.json as { claimUrl: string }).claimUrl).pathname
    const opened = await request(portal.info.url, `${claimPath}/open`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.info.url },
      body: ""
    })
    expect(opened.status).toBe(303)
    session = opened.headers["set-cookie"]![0]!.split(";")[0]!
    const created = await createToken("e2e-laptop")
    token = created.token
    tokenId = created.id
    expect(created.page).toContain(`CATALOG_PORTAL_URL=${portal.info.publicUrl}`)
  }, 120_000)

  afterAll(async () => {
    await portal?.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    project.cleanup()
  })

  it("SYNC_MISCONFIGURED and SYNC_UNAUTHORIZED from the environment, before anything is sent", async () => {
    const none = await cli(["push", "--json"])
    expect(none.code).not.toBe(0)
    expect(errorOf(none).code).toBe("SYNC_MISCONFIGURED")
    expect(errorOf(none).message).toContain("not paired")
    expect(errorOf(none).fix).toContain("Connect a machine")

    const addressOnly = await cli(["push", "--json"], { CATALOG_PORTAL_URL: portal.info.url })
    expect(errorOf(addressOnly)).toMatchObject({ code: "SYNC_MISCONFIGURED", param: "CATALOG_SYNC_TOKEN" })
    const tokenOnly = await cli(["push", "--json"], { CATALOG_SYNC_TOKEN: token })
    expect(errorOf(tokenOnly)).toMatchObject({ code: "SYNC_MISCONFIGURED", param: "CATALOG_PORTAL_URL" })

    const licence = "lic_eyJ2IjoxfQ.c2lnbmF0dXJl"
    const pastedLicence = await cli(["push", "--json"], paired({ CATALOG_SYNC_TOKEN: licence }))
    expect(errorOf(pastedLicence).code).toBe("SYNC_UNAUTHORIZED")
    expect(errorOf(pastedLicence).message).toContain("licence key")
    expect(pastedLicence.stdout + pastedLicence.stderr).not.toContain(licence)
    const claimToken = claimPath.split("/").at(-1)!
    const pastedClaim = await cli(["push"], paired({ CATALOG_SYNC_TOKEN: claimToken }))
    expect(pastedClaim.code).not.toBe(0)
    expect(pastedClaim.stderr).toContain("SYNC_UNAUTHORIZED")
    expect(pastedClaim.stderr).toContain("claim token")
    expect(pastedClaim.stdout + pastedClaim.stderr).not.toContain(claimToken)
    // Nothing was pinned by any of these.
    expect(fs.existsSync(keyFile)).toBe(false)
  })

  it("SYNC_UNAUTHORIZED from the portal, INGEST_UNAUTHORIZED, and SYNC_FAILED when the portal is not there", async () => {
    const unknown = await cli(["push", "--json"], paired({ CATALOG_SYNC_TOKEN: `sync_${"Q".repeat(43)}` }))
    expect(errorOf(unknown).code).toBe("SYNC_UNAUTHORIZED")
    const noIngest = await cli(["push", "--json"], paired({ CATALOG_INGEST_TOKEN: "" }))
    expect(errorOf(noIngest).code).toBe("INGEST_UNAUTHORIZED")
    // A closed port: the network, not the portal.
    const server = http.createServer()
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    await new Promise<void>((r) => server.close(() => r()))
    const down = await cli(["push", "--json"], paired({ CATALOG_PORTAL_URL: closed }))
    expect(errorOf(down).code).toBe("SYNC_FAILED")
    expect(errorOf(down).message).toContain("cannot be reached")
    expect(errorOf(down).fix).toContain("retry")
    expect(down.stdout + down.stderr).not.toContain(token)
    expect(fs.existsSync(keyFile)).toBe(false)
  })

  it("push uploads the draft to the paired claim, pins the portal's key and logs the pairing with who", async () => {
    const first = await cli(["push", "--json"], paired())
    expect(first.code, first.stderr).toBe(0)
    const p = first.json as PushJson
    expect(p.claimId).toMatch(/^cl_/)
    expect(p.tokenId).toBe(tokenId)
    expect(p.firstPairing).toBe(true)
    expect(p.keyPinned).toBe(true)
    expect(p.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(p.bytes).toBeGreaterThan(1000)
    expect((await syncStatus(token)).lastUploadAt).toBe(p.receivedAt)
    // The pinned key: the portal's public key, 0600.
    expect(fs.readFileSync(keyFile, "utf8").trim()).toBe(publicKeyPem.trim())
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    // The push never prints the token.
    expect(first.stdout + first.stderr).not.toContain(token)

    const second = await cli(["push"], paired())
    expect(second.code, second.stderr).toBe(0)
    expect(second.stdout).toContain(`Pushed the draft to claim ${p.claimId}`)
    expect(second.stdout).toMatch(/bytes · sha256 [0-9a-f]{64}/)
    expect(second.stdout).not.toContain("Paired:")

    const log = await cli(["log", "--since", "0", "--limit", "200", "--json"])
    const entries = (log.json as { changes: Array<{ kind: string; entity: string; summary: string; by?: string }> })
      .changes
    const pairings = entries.filter((e) => e.kind === "sync.paired")
    expect(pairings).toHaveLength(1)
    expect(pairings[0]!.summary).toBe(`paired with claim ${p.claimId} (token ${tokenId}) by ops@acme.example`)
    const pushes = entries.filter((e) => e.kind === "sync.pushed")
    expect(pushes).toHaveLength(2)
    expect(pushes[0]!.summary).toContain(`pushed the draft to claim ${p.claimId}`)
    expect(pushes[0]!.by).toBe("ops@acme.example")
  })

  it("start and watch upload the refreshed draft after the scan", async () => {
    const before = (await syncStatus(token)).lastUploadAt
    const start = await cli(["start", "--json"], paired())
    expect(start.code, start.stderr).toBe(0)
    const upload = (start.json as { upload: Upload }).upload
    expect(upload.status).toBe("uploaded")
    expect(upload.claimId).toMatch(/^cl_/)
    expect(upload.bytes).toBeGreaterThan(1000)
    const after = (await syncStatus(token)).lastUploadAt
    expect(after).not.toBe(before)

    const human = await cli(["start"], paired())
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`Uploaded the refreshed draft to claim ${upload.claimId}`)

    const status = await cli(["status", "--json"], paired())
    expect((status.json as { upload: string }).upload).toContain(`paired with the portal at ${portal.info.url}`)
    const unpaired = await cli(["status", "--json"])
    expect((unpaired.json as { upload: string }).upload).toContain("not paired")

    const watch = await cli(["watch", "--json"], paired())
    expect(watch.code, watch.stderr).toBe(0)
    expect((watch.json as { upload: Upload }).upload).toMatchObject({ status: "uploaded", claimId: upload.claimId })
    expect((await syncStatus(token)).lastUploadAt).not.toBe(after)
  })

  it("a failed or skipped upload never fails the scan; the outcome says why", async () => {
    const addressOnly = await cli(["start", "--json"], { CATALOG_PORTAL_URL: portal.info.url })
    expect(addressOnly.code).toBe(0)
    const skipped = (addressOnly.json as { upload: Upload }).upload
    expect(skipped.status).toBe("skipped")
    expect(skipped.error?.code).toBe("SYNC_MISCONFIGURED")
    expect(skipped.message).toMatch(/^Push skipped \(SYNC_MISCONFIGURED\): .*The local scan still stands\.$/)

    const human = await cli(["start"], { CATALOG_PORTAL_URL: portal.info.url })
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("Push skipped (SYNC_MISCONFIGURED)")
    expect(human.stdout).toContain("fix: On the claim page, open 'Connect a machine'")

    const wrong = await cli(["watch", "--json"], paired({ CATALOG_SYNC_TOKEN: `sync_${"Z".repeat(43)}` }))
    expect(wrong.code).toBe(0)
    expect((wrong.json as { upload: Upload }).upload).toMatchObject({
      status: "failed",
      error: { code: "SYNC_UNAUTHORIZED" }
    })
    expect((wrong.json as { upload: Upload }).upload.message).toContain("The local scan still stands")
  })

  it("catalog-only wins: push refuses, start and watch send nothing", async () => {
    expect((await cli(["config", "catalog-only", "on"])).code).toBe(0)
    try {
      const before = (await syncStatus(token)).lastUploadAt
      const push = await cli(["push", "--json"], paired())
      expect(errorOf(push).code).toBe("CATALOG_ONLY")
      const start = await cli(["start", "--json"], paired())
      expect(start.code).toBe(0)
      expect((start.json as { upload: Upload }).upload.status).toBe("skipped")
      expect((start.json as { upload: Upload }).upload.message).toContain("catalog-only")
      const watch = await cli(["watch", "--json"], paired())
      expect((watch.json as { upload: Upload }).upload.status).toBe("skipped")
      expect((await syncStatus(token)).lastUploadAt).toBe(before)
    } finally {
      expect((await cli(["config", "catalog-only", "off"])).code).toBe(0)
    }
  })

  it("doctor checks the pairing end to end, with a fix for each failure", async () => {
    const ok = await cli(["doctor", "--json"], paired())
    const checks = (ok.json as DoctorJson).checks
    const line = (name: string) => checks.find((c) => c.name === name)
    expect(line("portal")).toMatchObject({ ok: true })
    expect(line("portal")!.message).toContain(portal.info.url)
    expect(line("sync token")).toMatchObject({ ok: true, message: `accepted (token ${tokenId})` })
    expect(line("claim")!.message).toMatch(/^claim cl_\S+ is live/)
    expect(line("portal key")).toMatchObject({ ok: true, message: "matches the key pinned at pairing" })

    const misconfigured = await cli(["doctor", "--json"], { CATALOG_PORTAL_URL: portal.info.url })
    const pairing = (misconfigured.json as DoctorJson).checks.find((c) => c.name === "pairing")
    expect(pairing).toMatchObject({ ok: false, code: "SYNC_MISCONFIGURED" })
    expect(pairing!.fix).toContain("Connect a machine")
    expect(misconfigured.code).toBe(1)

    const bad = await cli(["doctor", "--json"], paired({ CATALOG_SYNC_TOKEN: `sync_${"W".repeat(43)}` }))
    const tokenLine = (bad.json as DoctorJson).checks.find((c) => c.name === "sync token")
    expect(tokenLine).toMatchObject({ ok: false, code: "SYNC_UNAUTHORIZED" })
    expect(tokenLine!.fix).toBeDefined()

    const server = http.createServer()
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const closed = `http://127.0.0.1:${(server.address() as { port: number }).port}`
    await new Promise<void>((r) => server.close(() => r()))
    const down = await cli(["doctor", "--json"], paired({ CATALOG_PORTAL_URL: closed }))
    expect((down.json as DoctorJson).checks.find((c) => c.name === "portal")).toMatchObject({
      ok: false,
      code: "SYNC_FAILED"
    })

    const human = await cli(["doctor"], paired())
    expect(human.stdout).toContain("sync token: accepted")
    expect(human.stdout).not.toContain(token)
  })

  it("a portal answering with another signing key is refused (SYNC_FAILED), nothing sent", async () => {
    const pinned = fs.readFileSync(keyFile, "utf8")
    const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString()
    fs.writeFileSync(keyFile, other)
    try {
      const before = (await syncStatus(token)).lastUploadAt
      const push = await cli(["push", "--json"], paired())
      expect(errorOf(push).code).toBe("SYNC_FAILED")
      expect(errorOf(push).message).toContain("signing key changed since this machine was paired")
      expect(errorOf(push).fix).toContain("Only if they confirm it, delete")
      expect((await syncStatus(token)).lastUploadAt).toBe(before)
      const doctor = await cli(["doctor", "--json"], paired())
      expect((doctor.json as DoctorJson).checks.find((c) => c.name === "portal key")).toMatchObject({
        ok: false,
        code: "SYNC_FAILED"
      })
    } finally {
      fs.writeFileSync(keyFile, pinned, { mode: 0o600 })
    }
  })

  it("a revoked token is SYNC_UNAUTHORIZED; a superseded claim is CLAIM_NOT_SYNCABLE", async () => {
    const spare = await createToken("spare")
    const revoked = await form(`${claimPath}/sync-tokens/revoke`, `id=${tokenId}`)
    expect(revoked.status).toBe(303)
    const push = await cli(["push", "--json"], paired())
    expect(errorOf(push).code).toBe("SYNC_UNAUTHORIZED")
    const start = await cli(["start", "--json"], paired())
    expect(start.code).toBe(0)
    expect((start.json as { upload: Upload }).upload).toMatchObject({
      status: "failed",
      error: { code: "SYNC_UNAUTHORIZED" }
    })

    // The spare token works, and its first sync is a new pairing in the change-log.
    const withSpare = await cli(["push", "--json"], paired({ CATALOG_SYNC_TOKEN: spare.token }))
    expect(withSpare.code, withSpare.stderr).toBe(0)
    expect(withSpare.json as PushJson).toMatchObject({ tokenId: spare.id, firstPairing: true, keyPinned: false })

    // Re-invite the same record: the paired claim is superseded.
    const reinvite = await cli(["invite", "--unbound", "--yes", "--json"], {
      CATALOG_PORTAL_URL: portal.info.url,
      CATALOG_INGEST_TOKEN: ingestToken
    })
    expect(reinvite.code, reinvite.stderr).toBe(0)
    const stale = await cli(["push", "--json"], paired({ CATALOG_SYNC_TOKEN: spare.token }))
    expect(errorOf(stale).code).toBe("CLAIM_NOT_SYNCABLE")
    expect(errorOf(stale).fix).toContain("Connect a machine")
    const doctor = await cli(["doctor", "--json"], paired({ CATALOG_SYNC_TOKEN: spare.token }))
    expect((doctor.json as DoctorJson).checks.find((c) => c.name === "claim")).toMatchObject({
      ok: false,
      code: "CLAIM_NOT_SYNCABLE"
    })
    // The portal's log never carried a sync token.
    expect(portal.stderr()).not.toContain(token)
    expect(portal.stderr()).not.toContain(spare.token)
  })
})
