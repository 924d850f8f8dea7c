/**
 * "Seal the record" on the claim page, through the portal's real HTTP server on both back ends (SQLite in a
 * temporary folder, the real PostgreSQL in a uniquely named database), with CATALOG_TOS_VERSION set:
 * every refusal in SPEC's order as the page shows it (code, message, fix; 400 the form's input, 409 the
 * record's state; nothing stored), the seal itself (303 → "Sealed on … by …"), each artifact and its
 * signature downloaded (attachment, content type) and verified with node:crypto against the portal's
 * published key, the manifest's SHA-256s; no session → 403, cross-site → 403; GET sync's seal state,
 * DORA fill count and terms version (sealed; after the licence's expiry a draft with LICENCE_EXPIRED, the
 * last seal kept); and a build without the official export (PORTAL_NOT_INSTALLED, 501, before any check).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash, createPublicKey, verify } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SealManifest, SyncStatus } from "../../../src/domain/Sync.js"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { SealStore } from "../../../src/services/portal/SealStore.js"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, recordKey, request, startTestPortal, upload, withPortalStores } from "./harness.js"

const terms = "2026-11"

interface Receipt {
  readonly claimId: string
  readonly claimUrl: string
}

let n = 0
const issue = (portal: Portal, claimId: string, kind: "active" | "expired" | "revoked") =>
  withPortalStores(
    portal,
    Effect.gen(function*() {
      const licences = yield* LicenceStore
      const id = `li_page${n++}${Date.now().toString(36)}`
      yield* licences.issue({
        id,
        claimId,
        // Newest first on the page: each later licence is issued later.
        issuedAt: new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString(),
        expiresAt: kind === "expired" ? "2021-01-01T00:00:00.000Z" : "2099-01-01T00:00:00.000Z",
        issuedTo: null
      })
      if (kind === "revoked") yield* licences.revoke(id, "2021-06-01T00:00:00.000Z")
      return id
    })
  )

const form = (portal: Portal, pathname: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  request(portal.url, pathname, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.url, ...headers },
    body: new URLSearchParams(body).toString()
  })

/** An unbound claim opened by its admin (the controller's contact missing unless `complete`). */
const adminClaim = async (portal: Portal, options: { complete?: boolean; dora?: boolean } = {}) => {
  const base = sampleSnapshot({ recipient: null, unbound: true, doraInScope: options.dora ?? false })
  const controller = options.complete === true ? base.controller : { name: "Acme Bank AG", contact: null }
  const snapshot = { ...base, controller, ropa: { ...base.ropa, controller } }
  const r = (await upload(portal, snapshot, { key: recordKey() })).json as Receipt
  const path = new URL(r.claimUrl).pathname
  const opened = await form(portal, `${path}/open`, {})
  expect(opened.status).toBe(303)
  return { path, session: opened.headers["set-cookie"]![0]!.split(";")[0]!, claimId: r.claimId }
}

const sealSection = (page: string) => /<section class="card" id="seal"[\s\S]*?<\/section>/.exec(page)?.[0] ?? ""
const refusalCode = (page: string) => /id="seal-refusal"><strong>Not sealed — <code>([A-Z_]+)<\/code>/.exec(page)?.[1]

const signer = { signerName: "Ada <Lovelace>", signerRole: "DPO", signerEmail: "" }

/** The draft hash the claim page's seal form posts back (the seal is of exactly the draft the page showed). */
const shownDraft = async (portal: { readonly url: string }, path: string, session: string) => {
  const page = (await request(portal.url, path, { headers: { cookie: session } })).body
  const m = /name="snapshotSha256" value="([0-9a-f]*)"/.exec(page)
  expect(m, "the seal form carries the draft's hash").not.toBeNull()
  return m![1]!
}

describe.each<Backend>(["sqlite", "postgres"])("Seal the record on the claim page (%s)", (backend) => {
  let portal: Portal
  let publicKeyPem = ""
  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_TOS_VERSION: terms, CATALOG_INGEST_RATE_LIMIT: "1000" })
    publicKeyPem = (await request(portal.url, "/api/portal/v1/signing-key")).body
  }, 60_000)
  afterAll(async () => {
    await portal?.close()
  })

  it("refuses in order from the page (code, message, fix; nothing stored), then seals; downloads verify", async () => {
    const { claimId, path, session } = await adminClaim(portal)
    const draft = await shownDraft(portal, path, session)
    const seal = (body: Record<string, string>) =>
      form(portal, `${path}/seal`, { snapshotSha256: draft, ...body }, { cookie: session })

    const before = sealSection((await request(portal.url, path, { headers: { cookie: session } })).body)
    expect(before).toContain("Seal the record")
    expect(before).toContain("No licence:")
    expect(before).toContain(`I accept the customer agreement (version ${terms})`)
    expect(before).toContain("Seal with these calls open (the acknowledgment is recorded)")
    expect(before).toContain("name=\"signerName\"")
    expect(before).toContain("name=\"signerRole\"")
    expect(before).toContain("name=\"signerEmail\"")
    expect(before).toMatch(/still open<\/strong>/)

    const everything = { acceptTerms: terms, ...signer, acknowledgeOpenCalls: "yes" }
    // 1. the licence: missing, expired, revoked (each with everything else in order)
    let r = await seal(everything)
    expect([r.status, refusalCode(r.body)]).toEqual([409, "LICENCE_MISSING"])
    expect(r.body).toContain("Nothing was stored.")
    expect(r.body).toContain("What to do:")
    await issue(portal, claimId, "expired")
    r = await seal(everything)
    expect([r.status, refusalCode(r.body)]).toEqual([409, "LICENCE_EXPIRED"])
    await issue(portal, claimId, "revoked")
    r = await seal(everything)
    expect([r.status, refusalCode(r.body)]).toEqual([409, "LICENCE_REVOKED"])
    const licenceId = await issue(portal, claimId, "active")
    const page = sealSection((await request(portal.url, path, { headers: { cookie: session } })).body)
    expect(page).toContain(`Licence <code>${licenceId}</code> is <strong>active</strong>`)

    // 3. the agreement: not ticked, with everything after it also missing
    r = await seal({})
    expect([r.status, refusalCode(r.body)]).toEqual([400, "TERMS_NOT_ACCEPTED"])
    expect(r.body).toContain(`version ${terms}`)
    // 4. the controller's contact
    r = await seal({ acceptTerms: terms })
    expect([r.status, refusalCode(r.body)]).toEqual([409, "CONTROLLER_REQUIRED"])
    expect(
      (await form(portal, `${path}/controller`, { name: "Acme Bank AG", contact: "privacy@acme.example" }, {
        cookie: session
      })).status
    ).toBe(303)
    // 5. the signer's role; what was typed comes back, escaped
    r = await seal({ acceptTerms: terms, signerName: "Ada <Lovelace>", signerRole: " " })
    expect([r.status, refusalCode(r.body)]).toEqual([400, "SIGNER_NAME_REQUIRED"])
    expect(sealSection(r.body)).toContain("value=\"Ada &lt;Lovelace&gt;\"")
    expect(r.body).not.toContain("<Lovelace>")
    // 6. the open legal calls, not acknowledged
    r = await seal({ acceptTerms: terms, ...signer })
    expect([r.status, refusalCode(r.body)]).toEqual([409, "OPEN_LEGAL_CALLS"])
    expect(await withPortalStores(portal, Effect.flatMap(SealStore, (s) => s.latest(claimId)))).toBeNull()
    expect(sealSection(r.body)).not.toContain("Sealed on")

    // A draft other than the one the page showed (a push landed since, or no hash at all): never sealed.
    for (const other of ["0".repeat(64), ""]) {
      r = await seal({ ...everything, snapshotSha256: other })
      expect([r.status, refusalCode(r.body)]).toEqual([400, "INVALID_PARAM"])
      expect(r.body).toContain("not the record&#39;s newest")
    }
    expect(await withPortalStores(portal, Effect.flatMap(SealStore, (s) => s.latest(claimId)))).toBeNull()

    // Sealed: 303 back to the claim, which shows who sealed it and the downloads.
    r = await seal(everything)
    expect(r.status).toBe(303)
    expect(r.headers.location).toBe(`${path}?saved=sealed#seal`)
    const sealed = (await request(portal.url, r.headers.location!, { headers: { cookie: session } })).body
    const section = sealSection(sealed)
    expect(section).toMatch(/Sealed on \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC by Ada &lt;Lovelace&gt;, DPO/)
    expect(section).toContain("href=\"/api/portal/v1/signing-key\"")
    const stored = await withPortalStores(portal, Effect.flatMap(SealStore, (s) => s.latest(claimId)))
    expect(stored).toMatchObject({ via: "claim-page", termsVersion: terms, licence: { id: licenceId } })
    expect(stored!.acknowledgedOpenCalls.length).toBeGreaterThan(0)
    expect(stored!.signer).toEqual({ name: "Ada <Lovelace>", role: "DPO", email: null })

    // Each artifact and its signature: attachments, verified against the published key.
    const key = createPublicKey(publicKeyPem)
    const names = [...section.matchAll(/href="([^"]+\/sealed\/([a-z.]+))" download>/g)].map((m) => m[2]!)
    expect(names.filter((x) => !x.endsWith(".sig")).sort()).toEqual(["manifest.json", "ropa.html", "ropa.json"])
    const download = (name: string) =>
      new Promise<{ status: number; type: string; disposition: string; bytes: Buffer }>((resolve, reject) => {
        import("node:http").then(({ get }) =>
          get(new URL(`${path}/sealed/${name}`, portal.url), { headers: { cookie: session } }, (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                type: String(res.headers["content-type"]),
                disposition: String(res.headers["content-disposition"]),
                bytes: Buffer.concat(chunks)
              }))
          }).on("error", reject)
        ).catch(reject)
      })
    const files = new Map<string, Buffer>()
    for (const name of ["ropa.json", "ropa.html", "manifest.json"]) {
      const file = await download(name)
      const sig = await download(`${name}.sig`)
      expect(file.status).toBe(200)
      expect(file.type).toBe(name.endsWith(".html") ? "text/html; charset=utf-8" : "application/json")
      expect(file.disposition).toBe(`attachment; filename="${name}"`)
      expect(sig.status).toBe(200)
      expect(sig.type).toBe("application/octet-stream")
      expect(sig.disposition).toBe(`attachment; filename="${name}.sig"`)
      expect(sig.bytes.length).toBe(64)
      expect(verify(null, file.bytes, key, sig.bytes), name).toBe(true)
      const tampered = Buffer.from(file.bytes)
      tampered[10] = tampered[10]! ^ 1
      expect(verify(null, tampered, key, sig.bytes)).toBe(false)
      files.set(name, file.bytes)
    }
    const manifest = JSON.parse(files.get("manifest.json")!.toString("utf8")) as SealManifest
    expect(manifest.termsVersion).toBe(terms)
    expect(manifest.licenceId).toBe(licenceId)
    for (const a of manifest.artifacts) {
      expect(createHash("sha256").update(files.get(a.name)!).digest("hex")).toBe(a.sha256)
      expect(files.get(a.name)!.length).toBe(a.bytes)
    }
    const ropa = JSON.parse(files.get("ropa.json")!.toString("utf8")) as { seal: string; controller: unknown }
    expect(ropa.seal).toBe("sealed")
    expect(ropa.controller).toEqual({ name: "Acme Bank AG", contact: "privacy@acme.example" })

    // No session: 403 for the downloads and the form; an unknown file: 404.
    expect((await request(portal.url, `${path}/sealed/ropa.json`)).status).toBe(403)
    expect((await request(portal.url, `${path}/sealed/secrets.txt`, { headers: { cookie: session } })).status).toBe(
      404
    )
    expect((await form(portal, `${path}/seal`, everything)).status).toBe(403)
    expect((await request(portal.url, `${path}/sealed/%E0%A4%A`, { headers: { cookie: session } })).status).toBe(404)
  })

  it("refuses a cross-site post and a session of another claim (403), storing nothing", async () => {
    const a = await adminClaim(portal, { complete: true })
    const b = await adminClaim(portal, { complete: true })
    await issue(portal, a.claimId, "active")
    const everything = { acceptTerms: terms, ...signer, acknowledgeOpenCalls: "yes" }
    const crossSite = await form(portal, `${a.path}/seal`, everything, {
      cookie: a.session,
      origin: "https://evil.example"
    })
    expect(crossSite.status).toBe(403)
    const fetchSite = await form(portal, `${a.path}/seal`, everything, {
      cookie: a.session,
      "sec-fetch-site": "cross-site"
    })
    expect(fetchSite.status).toBe(403)
    const otherSession = await form(portal, `${a.path}/seal`, everything, { cookie: b.session })
    expect(otherSession.status).toBe(403)
    expect(await withPortalStores(portal, Effect.flatMap(SealStore, (s) => s.latest(a.claimId)))).toBeNull()
    // And the downloads of another claim's session: 403.
    expect((await request(portal.url, `${a.path}/sealed/ropa.json`, { headers: { cookie: b.session } })).status)
      .toBe(403)
  })

  it("GET sync: DORA fills counted, the seal state (sealed; LICENCE_EXPIRED after expiry, last kept), the terms", async () => {
    const { claimId, path, session } = await adminClaim(portal, { complete: true, dora: true })
    const created = await form(portal, `${path}/sync-tokens`, { label: "laptop" }, { cookie: session })
    const token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(created.body)![1]!
    const status = async () =>
      (await request(portal.url, "/api/portal/v1/sync", { headers: { "x-catalog-sync-token": token } }))
        .json as SyncStatus
    expect(await status()).toMatchObject({
      claimId,
      doraFills: 0,
      seal: { state: "draft", last: null, reason: null },
      termsVersion: terms
    })
    for (const cell of [{ field: "c0050", value: "250000" }, { field: "c0040", value: "EUR" }]) {
      const r = await form(portal, `${path}/dora`, { table: "B_02.01", rowKey: "CTR-001", ...cell }, {
        cookie: session
      })
      expect(r.status).toBe(303)
    }
    expect((await status()).doraFills).toBe(2)

    const licenceId = await issue(portal, claimId, "active")
    const sealed = await form(portal, `${path}/seal`, {
      snapshotSha256: await shownDraft(portal, path, session),
      acceptTerms: terms,
      signerName: "Ada Lovelace",
      signerRole: "DPO",
      signerEmail: "ada@acme.example",
      acknowledgeOpenCalls: "yes"
    }, { cookie: session })
    expect(sealed.status).toBe(303)
    const now = await status()
    expect(now.seal.state).toBe("sealed")
    expect(now.seal.reason).toBeNull()
    expect(now.seal.last).toMatchObject({
      signer: { name: "Ada Lovelace", role: "DPO", email: "ada@acme.example" },
      termsVersion: terms,
      licence: { id: licenceId, claimId, state: "active" }
    })
    // The page offers dora.json too (DORA in scope).
    const page = sealSection((await request(portal.url, path, { headers: { cookie: session } })).body)
    expect(page).toContain(`${path}/sealed/dora.json`)

    // The licence expires: a draft again for new changes, the last seal kept.
    await withPortalStores(portal, expireLicence(licenceId))
    const expired = await status()
    expect(expired.seal.state).toBe("draft")
    expect(expired.seal.reason).toBe("LICENCE_EXPIRED")
    expect(expired.seal.last?.id).toBe(now.seal.last?.id)
    expect(expired.seal.last?.licence.state).toBe("expired")
    const after = sealSection((await request(portal.url, path, { headers: { cookie: session } })).body)
    expect(after).toContain("data-state=\"draft\"")
    expect(after).toContain("LICENCE_EXPIRED")
    expect(after).toContain("what was signed stays valid")
  })
})

/** Moves a licence's expiry into the past (what time would do). */
const expireLicence = (licenceId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE licences SET expires_at = ${"2021-01-01T00:00:00.000Z"} WHERE id = ${licenceId}`
  })

describe.each<Backend>(["sqlite", "postgres"])("a build without the official export (%s)", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_TOS_VERSION: terms }, { officialInstalled: false })
  }, 60_000)
  afterAll(async () => {
    await portal?.close()
  })

  it("the section says sealing is not installed; the POST answers PORTAL_NOT_INSTALLED (501) before any check", async () => {
    const { path, session } = await adminClaim(portal)
    const section = sealSection((await request(portal.url, path, { headers: { cookie: session } })).body)
    expect(section).toContain("data-code=\"PORTAL_NOT_INSTALLED\"")
    expect(section).toContain("the paid step")
    expect(section).not.toContain("id=\"seal-form\"")
    // No licence, nothing accepted: still PORTAL_NOT_INSTALLED first.
    const r = await form(portal, `${path}/seal`, {}, { cookie: session })
    expect(r.status).toBe(501)
    expect(r.body).toContain("PORTAL_NOT_INSTALLED")
  })
})
