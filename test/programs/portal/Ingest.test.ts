/**
 * The upload's guards, in order, on both back ends: the ingest token (401, store untouched), the
 * per-address hourly limit (429 + Retry-After, only for that address), the 5,000,000-byte cap enforced
 * while reading (a streamed 50 MB body cut off without being buffered; a declared Content-Length over
 * the cap refused before reading; a Content-Length that lies), and an upload whose mail cannot be sent.
 */
import { Effect } from "effect"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, recordKey, request, startTestPortal, upload } from "./harness.js"

const runP = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)
const ingestToken = "operator-token-0123456789abcdef"

/** Streams `total` bytes of a JSON-looking body, chunked, until the server answers or closes. */
const streamUpload = (url: string, total: number, route = "/api/portal/v1/snapshots") =>
  new Promise<{ status: number | null; body: string; written: number; connection: string | undefined }>(
    (resolve) => {
      const u = new URL(route, url)
      let written = 0
      let status: number | null = null
      let body = ""
      let connection: string | undefined
      let settled = false
      const done = () => {
        if (settled) return
        settled = true
        resolve({ status, body, written, connection })
      }
      const req = http.request({
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "x-catalog-record-key": recordKey(),
          authorization: `Bearer ${ingestToken}`
        }
      }, (res) => {
        status = res.statusCode ?? null
        connection = res.headers.connection
        res.on("data", (c: Buffer) => (body += c.toString("utf8")))
        res.on("end", done)
        res.on("error", done)
      })
      req.on("error", done)
      req.on("close", () => setTimeout(done, 50))
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (written < total && !req.destroyed && status === null) {
          written += chunk.length
          if (!req.write(chunk)) return req.once("drain", pump)
        }
        if (written >= total && !req.destroyed) req.end()
      }
      req.write("{\"format\":\"")
      pump()
    }
  )

/** Starts an upload that declares `declared` bytes, sends a few, then drops the connection mid-body. */
const abandonUpload = (url: string, address: string) =>
  new Promise<void>((resolve) => {
    const u = new URL("/api/portal/v1/snapshots", url)
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": "100000",
        "x-catalog-record-key": recordKey(),
        authorization: `Bearer ${ingestToken}`,
        "x-forwarded-for": address
      }
    })
    req.on("error", () => {})
    req.on("close", () => resolve())
    req.write("{\"format\":\"local-data-catalog/invite-snapshot\",")
    // Long enough for the portal to have counted the upload and started reading its body.
    setTimeout(() => req.destroy(), 150)
  })

/** One upload of the sample snapshot over a keep-alive connection: its status and `Connection` header. */
const keepAliveUpload = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const u = new URL("/api/portal/v1/snapshots", url)
    const agent = new http.Agent({ keepAlive: true })
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "x-catalog-record-key": recordKey(), ...headers }
    }, (res) => {
      res.resume()
      res.on("end", () => {
        agent.destroy()
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection })
      })
    })
    req.on("error", reject)
    req.end(JSON.stringify(sampleSnapshot()))
  })

describe.each<Backend>(["sqlite", "postgres"])("uploads on %s", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend, {
      CATALOG_INGEST_TOKEN: ingestToken,
      CATALOG_INGEST_RATE_LIMIT: "4",
      CATALOG_PORTAL_TRUST_PROXY: "1"
    })
  })
  afterAll(async () => {
    await portal?.close()
  })
  const auth = (address: string) => ({ authorization: `Bearer ${ingestToken}`, "x-forwarded-for": address })

  it("refuses an upload without the ingest token, or with another, leaving the store unchanged (401)", async () => {
    const before = await runP(portal.store.tenants)
    const none = await upload(portal, sampleSnapshot(), { headers: { "x-forwarded-for": "10.0.0.1" } })
    expect(none.status).toBe(401)
    expect(none.json).toMatchObject({ error: { code: "INGEST_UNAUTHORIZED" } })
    expect(none.headers["www-authenticate"]).toBe("Bearer")
    const wrong = await upload(portal, sampleSnapshot(), {
      headers: { authorization: `Bearer ${ingestToken}x`, "x-forwarded-for": "10.0.0.1" }
    })
    expect(wrong.status).toBe(401)
    expect(wrong.body).not.toContain(ingestToken)
    expect(await runP(portal.store.tenants)).toEqual(before)
    const right = await upload(portal, sampleSnapshot(), { headers: auth("10.0.0.1") })
    expect(right.status).toBe(201)
    expect((await runP(portal.store.tenants)).length).toBe(before.length + 1)
  })

  it("trips the hourly limit at N uploads for one address only (429, Retry-After)", async () => {
    const address = "10.0.1.1"
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++) {
      statuses.push((await upload(portal, sampleSnapshot(), { headers: auth(address) })).status)
    }
    expect(statuses).toEqual([201, 201, 201, 201])
    const limited = await upload(portal, sampleSnapshot(), { headers: auth(address) })
    expect(limited.status).toBe(429)
    expect(limited.json).toMatchObject({ error: { code: "INGEST_RATE_LIMITED" } })
    const retry = Number(limited.headers["retry-after"])
    expect(retry).toBeGreaterThan(0)
    expect(retry).toBeLessThanOrEqual(3600)
    // Still limited, and another address is not.
    expect((await upload(portal, sampleSnapshot(), { headers: auth(address) })).status).toBe(429)
    expect((await upload(portal, sampleSnapshot(), { headers: auth("10.0.1.2") })).status).toBe(201)
  })

  it("an upload abandoned mid-body gives its count back", async () => {
    const address = "10.0.4.1"
    for (let i = 0; i < 6; i++) await abandonUpload(portal.url, address)
    // The give-back runs when the portal notices the dropped connection: poll, an upload refused (429)
    // gives its own count back so polling uses nothing up.
    await expect.poll(
      async () => (await upload(portal, sampleSnapshot(), { headers: auth(address) })).status,
      { timeout: 10_000, interval: 100 }
    ).toBe(201)
  })

  it("401 and 429 answers close a keep-alive connection (the body that follows is not read)", async () => {
    const none = await keepAliveUpload(portal.url, { "x-forwarded-for": "10.0.5.1" })
    expect(none.status).toBe(401)
    expect(none.connection).toBe("close")
    for (let i = 0; i < 4; i++) {
      expect((await upload(portal, sampleSnapshot(), { headers: auth("10.0.5.2") })).status).toBe(201)
    }
    const limited = await keepAliveUpload(portal.url, auth("10.0.5.2"))
    expect(limited.status).toBe(429)
    expect(limited.connection).toBe("close")
    // A keep-alive answer that reads the whole body, for contrast: the connection stays open.
    const ok = await keepAliveUpload(portal.url, auth("10.0.5.3"))
    expect(ok.status).toBe(201)
    expect(ok.connection).toBe("keep-alive")
  })

  it("behind one proxy, keys on the address it appended (the right-most), not on what the caller wrote", async () => {
    for (let i = 0; i < 4; i++) {
      const spoofed = { ...auth(`203.0.113.${i}, 10.0.6.1`) }
      expect((await upload(portal, sampleSnapshot(), { headers: spoofed })).status).toBe(201)
    }
    const fifth = await upload(portal, sampleSnapshot(), { headers: auth("203.0.113.99, 10.0.6.1") })
    expect(fifth.status).toBe(429)
  })

  it("a refused upload gives its count back (invalid bodies do not use up the limit)", async () => {
    const address = "10.0.2.1"
    for (let i = 0; i < 6; i++) {
      expect((await upload(portal, "{bad", { headers: auth(address) })).status).toBe(400)
    }
    expect((await upload(portal, sampleSnapshot(), { headers: auth(address) })).status).toBe(201)
  })

  it("cuts off a streamed 50 MB body past the cap without buffering it (413, connection closed)", async () => {
    const before = await runP(portal.store.tenants)
    global.gc?.()
    const rss = process.memoryUsage().rss
    const r = await streamUpload(portal.url, 50_000_000)
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: "SNAPSHOT_TOO_LARGE" } })
    expect(r.connection).toBe("close")
    // The portal stopped reading: the client could not push the whole 50 MB through.
    expect(r.written).toBeLessThan(50_000_000)
    expect(process.memoryUsage().rss - rss).toBeLessThan(40_000_000)
    expect(await runP(portal.store.tenants)).toEqual(before)
  })

  it("a body the router decodes (the seal request, claim-page forms) is capped at 64 KiB: 30 MB to POST sync/seal is refused without being read", async () => {
    global.gc?.()
    const rss = process.memoryUsage().rss
    const r = await streamUpload(portal.url, 30_000_000, "/api/portal/v1/sync/seal")
    // Refused (a 4xx, or the connection closed) long before the body was read: before the cap, the whole
    // 30 MB went through and was parsed before the route could refuse it.
    if (r.status !== null) expect(r.status >= 400 && r.status < 500).toBe(true)
    expect(r.written).toBeLessThan(30_000_000)
    expect((await fetch(new URL("/api/portal/v1/health", portal.url))).status).toBe(200)
    expect(process.memoryUsage().rss - rss).toBeLessThan(40_000_000)
  })

  it("refuses a declared Content-Length over the cap before reading, and a Content-Length that lies", async () => {
    const before = await runP(portal.store.tenants)
    const declared = await new Promise<number>((resolve, reject) => {
      const u = new URL(portal.url)
      const req = http.request({
        host: u.hostname,
        port: u.port,
        path: "/api/portal/v1/snapshots",
        method: "POST",
        agent: false,
        headers: { ...auth("10.0.3.1"), "content-length": "6000000", "x-catalog-record-key": recordKey() }
      }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", reject)
      req.write("{") // nothing more: the answer comes before the body
    })
    expect(declared).toBe(413)
    // Content-Length says 40 bytes; the body is longer: only 40 bytes are read, and they are not a snapshot.
    const text = JSON.stringify(sampleSnapshot())
    const lie = await new Promise<number>((resolve) => {
      const u = new URL(portal.url)
      const req = http.request({
        host: u.hostname,
        port: u.port,
        path: "/api/portal/v1/snapshots",
        method: "POST",
        agent: false,
        headers: { ...auth("10.0.3.1"), "content-length": "40", "x-catalog-record-key": recordKey() }
      }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", () => resolve(-1))
      req.socket?.setNoDelay(true)
      req.end(text.slice(0, 40))
    })
    expect(lie).toBe(400)
    expect(await runP(portal.store.tenants)).toEqual(before)
  })
})

describe("the one-time-code budget and the upload limit", () => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal("sqlite", { CATALOG_PORTAL_TRUST_PROXY: "1" })
  })
  afterAll(async () => {
    await portal?.close()
  })
  it("are counted apart: an uploader naming a claim in X-Forwarded-For cannot use up its codes", async () => {
    const r = (await upload(portal, sampleSnapshot())).json as { claimId: string; claimUrl: string }
    for (const forged of [`claim-code:${r.claimId}`, `code:${r.claimId}`]) {
      for (let i = 0; i < 6; i++) {
        await upload(portal, sampleSnapshot(), { headers: { "x-forwarded-for": forged } })
      }
    }
    const path = new URL(r.claimUrl).pathname
    const sent = await request(portal.url, `${path}/code`, {
      method: "POST",
      headers: { origin: portal.url },
      body: ""
    })
    expect(sent.status).toBe(303)
    expect(portal.mails.at(-1)!.subject).toContain("one-time code")
  })
})

describe("a code the mail transport refuses", () => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal("sqlite", {}, { mail: "refused" })
  })
  afterAll(async () => {
    await portal?.close()
  })
  it("answers a generic 503 page to whoever holds the link; the reason goes to the portal's log only", async () => {
    const res = await upload(portal, sampleSnapshot())
    expect(res.status).toBe(201)
    const path = new URL((res.json as { claimUrl: string }).claimUrl).pathname
    const code = await request(portal.url, `${path}/code`, {
      method: "POST",
      headers: { origin: portal.url },
      body: ""
    })
    expect(code.status).toBe(503)
    expect(code.body).toContain("The code could not be mailed; try again later or ask the person who shared it.")
    expect(code.body).not.toContain("dpo@acme.example")
    expect(code.body).not.toContain("Postmark")
    const detail = portal.logs.find((l) => l.includes("could not be mailed"))
    expect(detail).toContain("ErrorCode 406")
    expect(detail).not.toMatch(/\b\d{8}\b/)
  })
})

describe("uploads when no mail is configured", () => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal("sqlite", {}, { mail: "none" })
  })
  afterAll(async () => {
    await portal?.close()
  })
  it("keep the claim and report MAIL_NOT_CONFIGURED in the receipt", async () => {
    const res = await upload(portal, sampleSnapshot())
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({
      state: "live",
      mail: { status: "not-configured", transport: null, error: { code: "MAIL_NOT_CONFIGURED" } }
    })
    const tenants = await runP(portal.store.tenants)
    expect(tenants.length).toBe(1)
    const path = new URL((res.json as { claimUrl: string }).claimUrl).pathname
    const code = await request(portal.url, `${path}/code`, {
      method: "POST",
      headers: { origin: portal.url },
      body: ""
    })
    expect(code.status).toBe(503)
    expect(code.body).toContain("MAIL_NOT_CONFIGURED")
  })
})
