/**
 * The PortalClient's sync calls (issue 12) against real local servers: the answers decoded with their
 * Schemas, the headers sent (sync token, ingest token), the short allowlist of codes raised as the portal
 * named them, and everything else — the network, a 5xx, an unknown code, an HTML page, a 200 that is not a
 * portal's answer, an endless answer — SYNC_FAILED with retry advice, never PORTAL_UNREACHABLE.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { PortalClientLive } from "../../src/layers/PortalClient.js"
import { PortalClient } from "../../src/services/PortalClient.js"
import { withLocalServer } from "../utils/localServer.js"

const withServer = <A, E>(handler: http.RequestListener, use: (url: string) => Effect.Effect<A, E, PortalClient>) =>
  withLocalServer(handler, use).pipe(Effect.provide(PortalClientLive))

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}
const envelope = (code: string, message = "refused") => ({ error: { code, message, fix: "do this" } })

const status = {
  claimId: "cl_a",
  state: "live",
  tokenId: "st_a",
  lastUploadAt: null,
  doraFills: 0,
  seal: { state: "draft", last: null, reason: null },
  termsVersion: null
}
const sync = { syncToken: "sync_secret", ingestToken: "op" }

describe("PortalClient sync calls (HTTP)", () => {
  it.live("syncStatus and push send both tokens and decode the answers", () => {
    const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = []
    return withServer((req, res) => {
      let body = ""
      req.on("data", (d: Buffer) => (body += d.toString()))
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
        if (req.url === "/base/api/portal/v1/sync") return json(res, 200, status)
        return json(res, 201, { claimId: "cl_a", bytes: 2, sha256: "ab", receivedAt: "2026-01-01T00:00:00.000Z" })
      })
    }, (url) =>
      Effect.gen(function*() {
        const client = yield* PortalClient
        const s = yield* client.syncStatus({ portalUrl: `${url}/base/`, ...sync })
        assert.strictEqual(s.tokenId, "st_a")
        const r = yield* client.push({ portalUrl: `${url}/base`, ...sync, body: "{}" })
        assert.strictEqual(r.claimId, "cl_a")
        assert.deepStrictEqual(seen.map((x) => [x.method, x.url]), [
          ["GET", "/base/api/portal/v1/sync"],
          ["POST", "/base/api/portal/v1/sync/snapshots"]
        ])
        for (const x of seen) {
          assert.strictEqual(x.headers["x-catalog-sync-token"], "sync_secret")
          assert.strictEqual(x.headers["authorization"], "Bearer op")
        }
        assert.strictEqual(seen[1]!.body, "{}")
        assert.strictEqual(seen[1]!.headers["content-type"], "application/json")
      }))
  })

  it.live("the allowed codes pass through as the portal named them, Retry-After included", () =>
    Effect.forEach(
      ["SYNC_UNAUTHORIZED", "CLAIM_NOT_SYNCABLE", "SNAPSHOT_TOO_LARGE", "INGEST_UNAUTHORIZED", "INGEST_RATE_LIMITED"],
      (code) =>
        withServer((_req, res) => json(res, 409, envelope(code, `the portal says ${code}`), { "retry-after": "42" }), (
          url
        ) =>
          Effect.gen(function*() {
            const e = yield* Effect.flip(
              Effect.flatMap(PortalClient, (c) => c.push({ portalUrl: url, ...sync, body: "{}" }))
            )
            assert.strictEqual(e.code, code)
            assert.include(e.message, `the portal says ${code}`)
            assert.strictEqual(e.fix, "do this")
            if (code === "INGEST_RATE_LIMITED") assert.include(e.message, "Retry after 42 seconds")
          }))
    ))

  it.live("anything else is SYNC_FAILED with retry advice: an unknown code, a 5xx, HTML, a 200 that is not a status", () =>
    Effect.forEach(
      [
        (res: http.ServerResponse) => json(res, 404, envelope("ENDPOINT_NOT_FOUND")),
        (res: http.ServerResponse) => json(res, 400, envelope("INVALID_PARAM")),
        (res: http.ServerResponse) => {
          res.writeHead(502, { "content-type": "text/html" })
          res.end("<html><body>Bad gateway</body></html>")
        },
        (res: http.ServerResponse) => json(res, 200, { hello: "world" })
      ],
      (answer) =>
        withServer((_req, res) => answer(res), (url) =>
          Effect.gen(function*() {
            const e = yield* Effect.flip(Effect.flatMap(PortalClient, (c) => c.syncStatus({ portalUrl: url, ...sync })))
            assert.strictEqual(e.code, "SYNC_FAILED")
            assert.include(e.message, url)
            assert.include(e.fix ?? "", "retry")
            assert.notInclude(e.message, "sync_secret")
          }))
    ))

  it.live("the network: refused, and no answer in time", () =>
    Effect.gen(function*() {
      // A port that was just free (nothing listens there now).
      const closed = yield* Effect.promise(() =>
        new Promise<string>((resolve) => {
          const s = http.createServer()
          s.listen(0, "127.0.0.1", () => {
            const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}`
            s.close(() => resolve(url))
          })
        })
      )
      const refused = yield* Effect.flip(
        Effect.flatMap(PortalClient, (c) => c.syncStatus({ portalUrl: closed, ...sync }))
      )
      assert.strictEqual(refused.code, "SYNC_FAILED")
      assert.include(refused.message, "refused")
      const silent = yield* withServer(() => {
        // never answers
      }, (url) =>
        Effect.flip(Effect.flatMap(PortalClient, (c) =>
          c.syncStatus({ portalUrl: url, ...sync, timeoutMs: 300 }))))
      assert.strictEqual(silent.code, "SYNC_FAILED")
      assert.include(silent.message, "no answer within the time allowed")
    }).pipe(Effect.provide(PortalClientLive)))

  it.live("an endless answer is read only up to its cap", () =>
    withServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" })
      const chunk = Buffer.alloc(64 * 1024, "a")
      let sent = 0
      const write = () => {
        while (sent < 200 && res.write(chunk)) sent++
        if (sent < 200) res.once("drain", write)
        else res.end()
      }
      write()
    }, (url) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(Effect.flatMap(PortalClient, (c) => c.syncStatus({ portalUrl: url, ...sync })))
        assert.strictEqual(e.code, "SYNC_FAILED")
      })))

  it.live("health and signing-key: decoded, or SYNC_FAILED for a body that is not a key", () =>
    withServer((req, res) => {
      if (req.url === "/api/portal/v1/health") {
        return json(res, 200, {
          ok: true,
          service: "local-data-catalog-portal",
          version: "1.0.0",
          storage: "sqlite",
          ingestTokenRequired: true,
          uploadCapBytes: 5_000_000
        })
      }
      res.writeHead(200, { "content-type": "text/plain" })
      res.end("not a key")
    }, (url) =>
      Effect.gen(function*() {
        const client = yield* PortalClient
        assert.strictEqual((yield* client.health(url)).storage, "sqlite")
        const e = yield* Effect.flip(client.signingKey(url))
        assert.strictEqual(e.code, "SYNC_FAILED")
        assert.include(e.message, "without a public key")
      })))
})
