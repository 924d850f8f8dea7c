/**
 * Pairing on the portal, through its real HTTP server, on both back ends: 'Connect a machine' on the claim
 * page (the unbound claim's admin and the bound claim's proven recipient create tokens, shown once; listed
 * without the secret; revoked claim-scoped; CSRF and session checks), and the sync API — every code in its
 * order: INGEST_UNAUTHORIZED, SYNC_UNAUTHORIZED (missing, unknown, revoked, a claim token: one answer),
 * CLAIM_NOT_SYNCABLE (superseded, removed), INGEST_RATE_LIMITED, SNAPSHOT_TOO_LARGE, INVALID_PARAM — and a
 * push stored as the claim's newest snapshot, on its own claim only.
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, recordKey, request, startTestPortal, upload } from "./harness.js"

interface Receipt {
  readonly claimId: string
  readonly claimUrl: string
}
interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}

const claimPath = (claimUrl: string) => new URL(claimUrl).pathname
const codeOf = (r: { json: unknown }) => (r.json as ErrorJson).error.code

const form = (portal: Portal, pathname: string, body: string, headers: Record<string, string> = {}) =>
  request(portal.url, pathname, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.url, ...headers },
    body
  })

/** An unbound claim opened by its admin: its path, the admin's session cookie, its id and record key. */
const adminClaim = async (portal: Portal, key = recordKey()) => {
  const r = (await upload(portal, sampleSnapshot({ recipient: null, unbound: true }), { key })).json as Receipt
  const path = claimPath(r.claimUrl)
  const opened = await form(portal, `${path}/open`, "")
  expect(opened.status).toBe(303)
  return { path, session: opened.headers["set-cookie"]![0]!.split(";")[0]!, claimId: r.claimId, key }
}

/** 'Create a sync token' on the claim page: the token as shown once, and its id. */
const createToken = async (portal: Portal, path: string, session: string, label = "") => {
  const page = await form(portal, `${path}/sync-tokens`, `label=${encodeURIComponent(label)}`, { cookie: session })
  expect(page.status).toBe(200)
  const token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(page.body)?.[1]
  const id = /<code>(st_[A-Za-z0-9_-]+)<\/code>/.exec(page.body)?.[1]
  expect(token).toBeDefined()
  expect(id).toBeDefined()
  return { token: token!, id: id!, page }
}

const syncStatus = (portal: Portal, token: string | null, headers: Record<string, string> = {}) =>
  request(portal.url, "/api/portal/v1/sync", {
    headers: { ...(token !== null ? { "x-catalog-sync-token": token } : {}), ...headers }
  })

const push = (portal: Portal, token: string | null, body: string, headers: Record<string, string> = {}) =>
  request(portal.url, "/api/portal/v1/sync/snapshots", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token !== null ? { "x-catalog-sync-token": token } : {}),
      ...headers
    },
    body
  })

const refreshed = (datasetsNote: string) =>
  JSON.stringify(sampleSnapshot({ recipient: null, unbound: false, createdAt: datasetsNote }))

describe.each<Backend>(["sqlite", "postgres"])("pairing on the portal (%s)", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_INGEST_RATE_LIMIT: "1000" })
  })
  afterAll(async () => {
    await portal?.close()
  })

  it("the admin creates a token (shown once, with the two lines), sees it listed, and revokes it", async () => {
    const { path, session } = await adminClaim(portal)
    const before = await request(portal.url, path, { headers: { cookie: session } })
    expect(before.body).toContain("Connect a machine")
    expect(before.body).toContain("No machine is paired yet.")

    const { id, page, token } = await createToken(portal, path, session, "build <server>")
    expect(token).toMatch(/^sync_[A-Za-z0-9_-]{43}$/)
    expect(page.body).toContain(`CATALOG_PORTAL_URL=${portal.publicUrl}`)
    expect(page.body).toContain("build &lt;server&gt;")
    expect(page.headers["cache-control"]).toBe("no-store")

    const listed = await request(portal.url, path, { headers: { cookie: session } })
    expect(listed.body).toContain(id)
    expect(listed.body).toContain("build &lt;server&gt;")
    expect(listed.body).not.toContain(token)
    expect(listed.body).toContain("active")
    // Stored as SHA-256 only: the portal's log and pages never carry it.
    expect(portal.logs.join("\n")).not.toContain(token)

    const ok = await syncStatus(portal, token)
    expect(ok.status).toBe(200)
    expect(ok.json).toMatchObject({
      state: "live",
      tokenId: id,
      doraFills: 0,
      seal: { state: "draft", last: null, reason: null }
    })

    const revoked = await form(portal, `${path}/sync-tokens/revoke`, `id=${id}`, { cookie: session })
    expect(revoked.status).toBe(303)
    expect(revoked.headers.location).toContain(`${path}?saved=revoked`)
    const after = await request(portal.url, revoked.headers.location!, { headers: { cookie: session } })
    expect(after.body).toContain("Sync token revoked.")
    expect(after.body).toMatch(/badge bad">revoked/)
    const refused = await syncStatus(portal, token)
    expect(refused.status).toBe(401)
    expect(codeOf(refused)).toBe("SYNC_UNAUTHORIZED")
  })

  it("the bound claim's proven recipient is its admin: they connect machines", async () => {
    const r = (await upload(portal, sampleSnapshot())).json as Receipt
    const path = claimPath(r.claimUrl)
    // Holding only the link: no section, no token.
    const gate = await request(portal.url, path)
    expect(gate.body).not.toContain("Connect a machine")
    const anonymous = await form(portal, `${path}/sync-tokens`, "label=x")
    expect(anonymous.status).toBe(403)
    expect(await form(portal, `${path}/code`, "")).toMatchObject({ status: 303 })
    const code = /\b(\d{8})\b/.exec(portal.mails.at(-1)!.text)![1]!
    const verified = await form(portal, `${path}/verify`, `code=${code}`)
    const session = verified.headers["set-cookie"]![0]!.split(";")[0]!
    const page = await request(portal.url, path, { headers: { cookie: session } })
    expect(page.body).toContain("Connect a machine")
    const { token } = await createToken(portal, path, session)
    const status = await syncStatus(portal, token)
    expect(status.status).toBe(200)
    expect((status.json as { claimId: string }).claimId).toBe(r.claimId)
  })

  it("the forms are CSRF-checked and session-scoped; a session of another claim revokes nothing", async () => {
    const a = await adminClaim(portal)
    const b = await adminClaim(portal)
    const evil = await form(portal, `${a.path}/sync-tokens`, "label=x", {
      cookie: a.session,
      origin: "https://evil.example"
    })
    expect(evil.status).toBe(403)
    const crossSite = await form(portal, `${a.path}/sync-tokens`, "label=x", {
      cookie: a.session,
      origin: "null",
      "sec-fetch-site": "cross-site"
    })
    expect(crossSite.status).toBe(403)
    // B's session on A's page is no session (the cookie is checked against the claim).
    const wrongSession = await form(portal, `${a.path}/sync-tokens`, "label=x", { cookie: b.session })
    expect(wrongSession.status).toBe(403)

    const tokenA = await createToken(portal, a.path, a.session, "a")
    // B's admin names A's token on B's page: no such token of B, and A's stays active.
    const crossRevoke = await form(portal, `${b.path}/sync-tokens/revoke`, `id=${tokenA.id}`, { cookie: b.session })
    expect(crossRevoke.status).toBe(404)
    expect((await syncStatus(portal, tokenA.token)).status).toBe(200)
    const evilRevoke = await form(portal, `${a.path}/sync-tokens/revoke`, `id=${tokenA.id}`, {
      cookie: a.session,
      origin: "https://evil.example"
    })
    expect(evilRevoke.status).toBe(403)
    expect((await syncStatus(portal, tokenA.token)).status).toBe(200)
    const pageB = await request(portal.url, b.path, { headers: { cookie: b.session } })
    expect(pageB.body).not.toContain(tokenA.id)
  })

  it("a push becomes the claim's newest snapshot, on the token's own claim only", async () => {
    const a = await adminClaim(portal)
    const b = await adminClaim(portal)
    const { token } = await createToken(portal, a.path, a.session)
    const body = refreshed("2026-03-01T09:00:00.000Z")
    const pushed = await push(portal, token, body)
    expect(pushed.status).toBe(201)
    const receipt = pushed.json as { claimId: string; bytes: number; sha256: string; receivedAt: string }
    expect(receipt.claimId).toBe(a.claimId)
    expect(receipt.bytes).toBe(Buffer.byteLength(body))
    expect(receipt.sha256).toBe(createHash("sha256").update(body).digest("hex"))
    expect(await Effect.runPromise(portal.store.snapshotOf(a.claimId))).toBe(body)
    expect(await Effect.runPromise(portal.store.snapshotOf(b.claimId))).not.toBe(body)
    const claim = await Effect.runPromise(portal.store.claimById(a.claimId))
    expect(claim?.lastUploadAt).toBe(receipt.receivedAt)
    expect(claim?.sha256).toBe(receipt.sha256)
    const status = await syncStatus(portal, token)
    expect((status.json as { lastUploadAt: string }).lastUploadAt).toBe(receipt.receivedAt)
    // The page shows the new draft (drafted at the pushed snapshot's time).
    const page = await request(portal.url, a.path, { headers: { cookie: a.session } })
    expect(page.status).toBe(200)
    expect(page.body).toContain("datetime=\"2026-03-01T09:00:00.000Z\"")
  })

  it("SYNC_UNAUTHORIZED: missing, unknown, revoked and a claim token get one and the same answer", async () => {
    const a = await adminClaim(portal)
    const { id, token } = await createToken(portal, a.path, a.session)
    await form(portal, `${a.path}/sync-tokens/revoke`, `id=${id}`, { cookie: a.session })
    const answers = await Promise.all([
      syncStatus(portal, null),
      syncStatus(portal, `sync_${"A".repeat(43)}`),
      syncStatus(portal, token),
      syncStatus(portal, `clm_${"B".repeat(43)}`),
      push(portal, null, "{}"),
      push(portal, token, refreshed("2026-03-02T09:00:00.000Z"))
    ])
    for (const r of answers) {
      expect(r.status).toBe(401)
      expect(codeOf(r)).toBe("SYNC_UNAUTHORIZED")
    }
    const bodies = new Set(answers.map((r) => r.body))
    expect(bodies.size).toBe(1)
    expect(await Effect.runPromise(portal.store.snapshotOf(a.claimId))).not.toContain("2026-03-02T09:00:00.000Z")
  })

  it("CLAIM_NOT_SYNCABLE: a superseded claim, a removed one", async () => {
    const a = await adminClaim(portal)
    const { token } = await createToken(portal, a.path, a.session)
    // The same record re-invited: the paired claim is superseded.
    await upload(portal, sampleSnapshot(), { key: a.key })
    const status = await syncStatus(portal, token)
    expect(status.status).toBe(409)
    expect(codeOf(status)).toBe("CLAIM_NOT_SYNCABLE")
    expect((status.json as ErrorJson).error.message).toContain("superseded")
    const pushed = await push(portal, token, refreshed("2026-03-03T09:00:00.000Z"))
    expect(pushed.status).toBe(409)
    expect(codeOf(pushed)).toBe("CLAIM_NOT_SYNCABLE")
    expect(await Effect.runPromise(portal.store.snapshotOf(a.claimId))).toBeNull()

    const b = await adminClaim(portal)
    const tb = await createToken(portal, b.path, b.session)
    await Effect.runPromise(portal.store.remove(b.claimId, "2026-03-03T10:00:00.000Z"))
    const removed = await push(portal, tb.token, refreshed("2026-03-03T11:00:00.000Z"))
    expect(removed.status).toBe(409)
    expect(codeOf(removed)).toBe("CLAIM_NOT_SYNCABLE")
    expect((removed.json as ErrorJson).error.message).toContain("removed")
  })

  it("SNAPSHOT_TOO_LARGE while reading, INVALID_PARAM for a body that is not a snapshot", async () => {
    const a = await adminClaim(portal)
    const { token } = await createToken(portal, a.path, a.session)
    const large = await push(portal, token, "x".repeat(5_000_001))
    expect(large.status).toBe(413)
    expect(codeOf(large)).toBe("SNAPSHOT_TOO_LARGE")
    const junk = await push(portal, token, "not json")
    expect(junk.status).toBe(400)
    expect(junk.json).toMatchObject({ error: { code: "INVALID_PARAM", param: "snapshot" } })
    const wrongShape = await push(portal, token, JSON.stringify({ format: "something else" }))
    expect(wrongShape.status).toBe(400)
    expect(codeOf(wrongShape)).toBe("INVALID_PARAM")
  })

  it("the OpenAPI document declares the sync routes", async () => {
    const doc = (await request(portal.url, "/api/portal/v1/openapi.json")).json as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(Object.keys(doc.paths["/api/portal/v1/sync"]!.get!.responses)).toEqual(
      expect.arrayContaining(["200", "401", "409"])
    )
    expect(Object.keys(doc.paths["/api/portal/v1/sync/snapshots"]!.post!.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "409", "413", "429"])
    )
  })
})

describe.each<Backend>(["sqlite", "postgres"])("the sync API's first checks (%s)", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_INGEST_TOKEN: "operator-secret", CATALOG_INGEST_RATE_LIMIT: "2" })
  })
  afterAll(async () => {
    await portal?.close()
  })

  it("INGEST_UNAUTHORIZED before the sync token; INGEST_RATE_LIMITED shared with uploads", async () => {
    const auth = { authorization: "Bearer operator-secret" }
    const r = (await upload(portal, sampleSnapshot({ recipient: null, unbound: true }), { headers: auth }))
      .json as Receipt
    const path = claimPath(r.claimUrl)
    const opened = await form(portal, `${path}/open`, "")
    const session = opened.headers["set-cookie"]![0]!.split(";")[0]!
    const { token } = await createToken(portal, path, session)

    const noIngest = await syncStatus(portal, token)
    expect(noIngest.status).toBe(401)
    expect(codeOf(noIngest)).toBe("INGEST_UNAUTHORIZED")
    // The ingest token is checked first: even without a sync token the answer is INGEST_UNAUTHORIZED.
    const neither = await push(portal, null, "{}")
    expect(codeOf(neither)).toBe("INGEST_UNAUTHORIZED")
    expect((await syncStatus(portal, token, auth)).status).toBe(200)

    // The upload above counted once; one push fits, the next is over the limit of 2.
    const first = await push(portal, token, refreshed("2026-03-04T09:00:00.000Z"), auth)
    expect(first.status).toBe(201)
    const limited = await push(portal, token, refreshed("2026-03-04T09:01:00.000Z"), auth)
    expect(limited.status).toBe(429)
    expect(codeOf(limited)).toBe("INGEST_RATE_LIMITED")
    expect(limited.headers["retry-after"]).toMatch(/^\d+$/)
    expect((limited.json as ErrorJson).error.fix).toContain("catalog push")
  })
})
