/**
 * The portal through its real HTTP server, the same suite on both back ends (SQLite in a temp home,
 * PostgreSQL in a fresh database): health and signing key, ingest (happy path, token, rate limit, the
 * cap while streaming, malformed bodies, record key, supersede), the public claim state, the bound
 * one-time-code flow, the unbound first-opener flow, CSRF, and the request log.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toErrorBody } from "../../../src/errors/index.js"
import { claimNotFound } from "../../../src/programs/portal/Claims.js"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, recordKey, request, startTestPortal, upload } from "./harness.js"

interface Receipt {
  readonly claimId: string
  readonly claimUrl: string
  readonly supersedes: string | null
  readonly mail: { readonly status: string }
  readonly bytes: number
  readonly sha256: string
}
interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}

const runP = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)
const tokenOf = (claimUrl: string) => new URL(claimUrl).pathname.split("/")[2]!
const claimPath = (claimUrl: string) => new URL(claimUrl).pathname

describe.each<Backend>(["sqlite", "postgres"])("the portal on %s", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend)
  })
  afterAll(async () => {
    await portal?.close()
  })

  const form = (pathname: string, body: string, headers: Record<string, string> = {}) =>
    request(portal.url, pathname, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: portal.url,
        ...headers
      },
      body
    })

  it("answers health, the signing key (SPKI PEM) and its OpenAPI document", async () => {
    const health = await request(portal.url, "/api/portal/v1/health")
    expect(health.status).toBe(200)
    expect(health.json).toMatchObject({
      ok: true,
      service: "local-data-catalog-portal",
      storage: backend,
      ingestTokenRequired: false,
      uploadCapBytes: 5_000_000
    })
    const key = await request(portal.url, "/api/portal/v1/signing-key")
    expect(key.status).toBe(200)
    expect(key.headers["content-type"]).toContain("application/x-pem-file")
    expect(key.body).toMatch(/^-----BEGIN PUBLIC KEY-----/)
    expect(key.body).not.toContain("PRIVATE")
    const doc = await request(portal.url, "/api/portal/v1/openapi.json")
    expect(doc.status).toBe(200)
    const paths = Object.keys((doc.json as { paths: Record<string, unknown> }).paths)
    expect(paths.sort()).toEqual([
      "/api/portal/v1/claims/{token}",
      "/api/portal/v1/health",
      "/api/portal/v1/licences/revoked",
      "/api/portal/v1/openapi.json",
      "/api/portal/v1/signing-key",
      "/api/portal/v1/snapshots",
      "/api/portal/v1/sync",
      "/api/portal/v1/sync/dora",
      "/api/portal/v1/sync/seal",
      "/api/portal/v1/sync/snapshots"
    ])
    // The document passes an independent OpenAPI validator.
    await SwaggerParser.validate(structuredClone(doc.json) as Parameters<typeof SwaggerParser.validate>[0])
    // Security headers on every answer.
    expect(health.headers["content-security-policy"]).toContain("default-src 'none'")
    expect(health.headers["x-content-type-options"]).toBe("nosniff")
  })

  it("stores an upload as a live claim, mails the link, and answers the receipt", async () => {
    const before = portal.mails.length
    const snapshot = sampleSnapshot()
    const res = await upload(portal, snapshot)
    expect(res.status).toBe(201)
    const r = res.json as Receipt
    expect(r.claimId).toMatch(/^cl_/)
    expect(r.claimUrl).toMatch(new RegExp(`^${portal.publicUrl}/claim/clm_[A-Za-z0-9_-]{43}$`))
    expect(r.bytes).toBe(Buffer.byteLength(JSON.stringify(snapshot)))
    expect(r.supersedes).toBeNull()
    expect(r.mail.status).toBe("logged")
    expect(portal.mails.length).toBe(before + 1)
    expect(portal.mails.at(-1)!.to).toBe("dpo@acme.example")
    expect(portal.mails.at(-1)!.text).toContain(r.claimUrl)
    const info = await request(portal.url, `/api/portal/v1/claims/${tokenOf(r.claimUrl)}`)
    expect(info.json).toEqual({ claimId: r.claimId, state: "live", successorId: null })
    expect(await portal.store.snapshotOf(r.claimId).pipe(runP)).toBe(JSON.stringify(snapshot))
  })

  it("refuses a malformed or Schema-invalid snapshot (400 snapshot) and a bad record key, storing nothing", async () => {
    const tenants = await portal.store.tenants.pipe(runP)
    const notJson = await upload(portal, "{not json")
    expect(notJson.status).toBe(400)
    expect((notJson.json as ErrorJson).error).toMatchObject({ code: "INVALID_PARAM", param: "snapshot" })
    const planted = "planted-secret-value-9f3a"
    const invalid = await upload(portal, { ...sampleSnapshot(), version: planted })
    expect(invalid.status).toBe(400)
    const e = (invalid.json as ErrorJson).error
    expect(e).toMatchObject({ code: "INVALID_PARAM", param: "snapshot" })
    expect(e.message).toContain("version")
    expect(invalid.body).not.toContain(planted)
    const extra = await upload(portal, { ...sampleSnapshot(), rows: [planted] })
    expect(extra.status).toBe(400)
    expect(extra.body).not.toContain(planted)
    const noKey = await request(portal.url, "/api/portal/v1/snapshots", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sampleSnapshot())
    })
    expect(noKey.status).toBe(400)
    expect((noKey.json as ErrorJson).error.param).toBe("x-catalog-record-key")
    const badKey = await upload(portal, sampleSnapshot(), { key: "short" })
    expect((badKey.json as ErrorJson).error.param).toBe("x-catalog-record-key")
    const neither = await upload(portal, sampleSnapshot({ recipient: null, unbound: false }))
    expect(neither.status).toBe(400)
    expect(await portal.store.tenants.pipe(runP)).toEqual(tenants)
  })

  it("refuses JSON nested deeper than 64 levels cheaply, as INVALID_PARAM snapshot (never a defect)", async () => {
    const tenants = await portal.store.tenants.pipe(runP)
    const levels = 2_400_000 // under the 5,000,000-byte cap
    const started = performance.now()
    const deep = await upload(portal, "[".repeat(levels) + "]".repeat(levels))
    expect(deep.status).toBe(400)
    expect((deep.json as ErrorJson).error).toMatchObject({ code: "INVALID_PARAM", param: "snapshot" })
    expect((deep.json as ErrorJson).error.message).toContain("64")
    expect(performance.now() - started).toBeLessThan(3000)
    // Deep inside a valid snapshot's field: the same refusal, before the Schema sees it.
    const nested = JSON.stringify({ ...sampleSnapshot(), extra: JSON.parse("[".repeat(80) + "]".repeat(80)) })
    const inside = await upload(portal, nested)
    expect(inside.status).toBe(400)
    expect((inside.json as ErrorJson).error.message).toContain("64")
    // Brackets inside strings do not count: this one is refused by the Schema, naming the path.
    const quoted = await upload(portal, { ...sampleSnapshot(), version: "[".repeat(500) })
    expect(quoted.status).toBe(400)
    expect((quoted.json as ErrorJson).error.message).toContain("version")
    expect(quoted.body).not.toContain("[[[")
    // An unexpected field's name is not repeated either (it is the uploader's text).
    const oddKey = await upload(portal, { ...sampleSnapshot(), ["<script>planted\u001b[31m"]: 1 })
    expect(oddKey.status).toBe(400)
    expect(oddKey.body).not.toContain("planted")
    expect(await portal.store.tenants.pipe(runP)).toEqual(tenants)
    expect((await request(portal.url, "/api/portal/v1/health")).status).toBe(200)
  })

  it("a re-upload with the same record key supersedes the live claim", async () => {
    const key = recordKey()
    const first = (await upload(portal, sampleSnapshot(), { key })).json as Receipt
    const second = (await upload(portal, sampleSnapshot(), { key })).json as Receipt
    expect(second.supersedes).toBe(first.claimId)
    const info = await request(portal.url, `/api/portal/v1/claims/${tokenOf(first.claimUrl)}`)
    expect(info.json).toEqual({ claimId: first.claimId, state: "superseded", successorId: second.claimId })
    const page = await request(portal.url, claimPath(first.claimUrl))
    expect(page.status).toBe(200)
    expect(page.body).toContain("A newer draft replaced this one")
    expect(page.body).toContain(second.claimId)
  })

  it("answers CLAIM_NOT_FOUND (404) with the registry body for an unknown or removed claim", async () => {
    const unknown = await request(portal.url, `/api/portal/v1/claims/clm_${"x".repeat(43)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.json).toEqual(toErrorBody(claimNotFound()))
    const r = (await upload(portal, sampleSnapshot())).json as Receipt
    await portal.store.remove(r.claimId, new Date().toISOString()).pipe(runP)
    const removed = await request(portal.url, `/api/portal/v1/claims/${tokenOf(r.claimUrl)}`)
    expect(removed.status).toBe(404)
    expect(removed.json).toEqual(toErrorBody(claimNotFound()))
    const page = await request(portal.url, claimPath(r.claimUrl))
    expect(page.status).toBe(404)
    expect(page.body).toContain("CLAIM_NOT_FOUND")
  })

  it("removing the live claim removes its record: a predecessor's link is CLAIM_NOT_FOUND, not a pointer to it", async () => {
    const key = recordKey()
    const first = (await upload(portal, sampleSnapshot(), { key })).json as Receipt
    const second = (await upload(portal, sampleSnapshot(), { key })).json as Receipt
    // The superseded claim's page is a notice, so its snapshot was not kept.
    expect(await portal.store.snapshotOf(first.claimId).pipe(runP)).toBeNull()
    const removed = await portal.store.remove(second.claimId, new Date().toISOString()).pipe(runP)
    expect(removed?.claims).toEqual([first.claimId, second.claimId].sort())
    for (const r of [first, second]) {
      const info = await request(portal.url, `/api/portal/v1/claims/${tokenOf(r.claimUrl)}`)
      expect(info.status).toBe(404)
      expect(info.json).toEqual(toErrorBody(claimNotFound()))
      const page = await request(portal.url, claimPath(r.claimUrl))
      expect(page.status).toBe(404)
      expect(page.body).toContain("CLAIM_NOT_FOUND")
      expect(page.body).not.toContain(second.claimId)
    }
  })

  it("bound claim: the link alone opens nothing; a code mailed to the recipient opens the draft", async () => {
    const r = (await upload(portal, sampleSnapshot())).json as Receipt
    const path = claimPath(r.claimUrl)
    const gate = await request(portal.url, path)
    expect(gate.status).toBe(200)
    expect(gate.body).toContain("d•••@acme.example")
    expect(gate.body).not.toContain("Acme Bank AG")
    expect(gate.headers["content-security-policy"]).toContain("default-src 'none'")
    expect(gate.headers["referrer-policy"]).toBe("no-referrer")

    const sent = await form(`${path}/code`, "")
    expect(sent.status).toBe(303)
    expect(sent.headers.location).toBe(`${path}?code=sent`)
    const mail = portal.mails.at(-1)!
    expect(mail.to).toBe("dpo@acme.example")
    const code = /\b(\d{8})\b/.exec(mail.text)![1]!

    const wrong = await form(`${path}/verify`, `code=${code === "00000000" ? "11111111" : "00000000"}`)
    expect(wrong.status).toBe(400)
    expect(wrong.body).toContain("not right")
    const ok = await form(`${path}/verify`, `code=${code}`)
    expect(ok.status).toBe(303)
    expect(ok.headers.location).toBe(path)
    const cookie = ok.headers["set-cookie"]![0]!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect(cookie).toContain(`Path=${path}`)
    expect(cookie).toMatch(/Max-Age=2592000/)
    const session = cookie.split(";")[0]!

    // A link followed from a mail client (cross-site): reloaded once from the portal's own page, where the
    // SameSite=Strict session counts.
    const fromMail = await request(portal.url, path, { headers: { "sec-fetch-site": "cross-site" } })
    expect(fromMail.headers.refresh).toBe(`0; url=${path}?via=link`)
    const reloaded = await request(portal.url, `${path}?via=link`, {
      headers: { "sec-fetch-site": "same-origin", cookie: ok.headers["set-cookie"]![0]!.split(";")[0]! }
    })
    expect(reloaded.body).toContain("Acme Bank AG")

    const used = await form(`${path}/verify`, `code=${code}`)
    expect(used.status).not.toBe(303)

    const draft = await request(portal.url, path, { headers: { cookie: session } })
    expect(draft.status).toBe(200)
    expect(draft.body).toContain("DRAFT")
    expect(draft.body).toContain("Acme Bank AG")

    const saved = await form(`${path}/controller`, "name=Acme+Holding+SE&contact=dpo%40acme.example", {
      cookie: session
    })
    expect(saved.status).toBe(303)
    const after = await request(portal.url, path, { headers: { cookie: session } })
    expect(after.body).toContain("Acme Holding SE")

    // Without the session, the controller cannot be changed.
    const anonymous = await form(`${path}/controller`, "name=Mallory")
    expect(anonymous.status).toBe(403)
    // The logs never carry the token, the code or the cookie.
    const log = portal.logs.join("\n")
    expect(log).toContain("POST /claim/clm_…/verify 303")
    expect(log).not.toContain(tokenOf(r.claimUrl))
    expect(log).not.toContain(code)
    expect(log).not.toContain(session.split("=")[1]!)
  })

  it("refuses cross-site form posts (CSRF)", async () => {
    const r = (await upload(portal, sampleSnapshot())).json as Receipt
    const path = claimPath(r.claimUrl)
    const evil = await form(`${path}/code`, "", { origin: "https://evil.example" })
    expect(evil.status).toBe(403)
    const none = await request(portal.url, `${path}/code`, { method: "POST", body: "" })
    expect(none.status).toBe(403)
    const nullOrigin = await form(`${path}/code`, "", { origin: "null" })
    expect(nullOrigin.status).toBe(403)
    const crossSite = await form(`${path}/code`, "", { origin: "null", "sec-fetch-site": "cross-site" })
    expect(crossSite.status).toBe(403)
    // What a browser sends from the portal's own page (no referrer): Origin null, Sec-Fetch-Site same-origin.
    const ownPage = await form(`${path}/code`, "", { origin: "null", "sec-fetch-site": "same-origin" })
    expect(ownPage.status).toBe(303)
  })

  it("unbound claim: the first opener becomes the admin; later openers are told it has one", async () => {
    const r = (await upload(portal, sampleSnapshot({ recipient: null, unbound: true }))).json as Receipt
    expect(r.mail.status).toBe("not-needed")
    const path = claimPath(r.claimUrl)
    const gate = await request(portal.url, path)
    expect(gate.body).toContain("whoever opens it first becomes the record")
    const [a, b] = await Promise.all([form(`${path}/open`, ""), form(`${path}/open`, "")])
    const winners = [a, b].filter((x) => x.status === 303)
    expect(winners.length).toBe(1)
    expect([a, b].filter((x) => x.status === 403).length).toBe(1)
    const session = winners[0]!.headers["set-cookie"]![0]!.split(";")[0]!
    const draft = await request(portal.url, path, { headers: { cookie: session } })
    expect(draft.body).toContain("DRAFT")
    const later = await request(portal.url, path)
    expect(later.status).toBe(403)
    expect(later.body).toContain("already has an admin")
  })
})
