/**
 * The HTTP PortalClient against real local servers: the receipt decoded, the portal's envelopes raised as
 * their registry errors (an unknown code too), a 201 that is not a receipt, a server that never answers
 * (timeout), the ingest address under a base path, and the headers it sends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type * as http from "node:http"
import { ingestUrl, PortalClientLive } from "../../src/layers/PortalClient.js"
import { PortalClient } from "../../src/services/PortalClient.js"
import { withLocalServer } from "../utils/localServer.js"

/** A server answering every request with `handler`; closed after `use`. */
const withServer = <A, E>(handler: http.RequestListener, use: (url: string) => Effect.Effect<A, E, PortalClient>) =>
  withLocalServer(handler, use).pipe(Effect.provide(PortalClientLive))

const snapshotBody = JSON.stringify({ hello: "not a snapshot, the fake below does not validate" })
const request = (portalUrl: string, extra: { timeoutMs?: number; ingestToken?: string | null } = {}) =>
  Effect.flatMap(PortalClient, (c) =>
    c.upload({
      portalUrl,
      body: snapshotBody,
      recordKey: "k".repeat(43),
      ingestToken: extra.ingestToken ?? null,
      ...(extra.timeoutMs !== undefined ? { timeoutMs: extra.timeoutMs } : {})
    }))

describe("PortalClient (HTTP)", () => {
  it("the ingest address keeps a base path and never doubles a slash", () => {
    assert.strictEqual(ingestUrl("https://p.example"), "https://p.example/api/portal/v1/snapshots")
    assert.strictEqual(ingestUrl("https://p.example/"), "https://p.example/api/portal/v1/snapshots")
    assert.strictEqual(ingestUrl("https://p.example/base/"), "https://p.example/base/api/portal/v1/snapshots")
  })

  it.live("a server that never answers is PORTAL_UNREACHABLE once the time allowed has passed", () =>
    withServer(() => {
      // never answers
    }, (url) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(request(url, { timeoutMs: 300 }))
        assert.strictEqual(e.code, "PORTAL_UNREACHABLE")
        assert.include(e.message, url)
        assert.include(e.message, "no answer within the time allowed")
      })))

  it.live("an envelope of a code this build does not know, and a 201 that is not a receipt, are PORTAL_UNREACHABLE", () =>
    Effect.gen(function*() {
      yield* withServer((_req, res) => {
        res.writeHead(418, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { code: "TEAPOT_FULL", message: "Short and stout.", fix: "Pour." } })
        )
      }, (url) =>
        Effect.gen(function*() {
          const e = yield* Effect.flip(request(url))
          assert.strictEqual(e.code, "PORTAL_UNREACHABLE")
          assert.include(e.message, "TEAPOT_FULL")
        }))
      yield* withServer((_req, res) => {
        res.writeHead(201, { "content-type": "application/json" }).end("{\"ok\":true}")
      }, (url) =>
        Effect.gen(function*() {
          const e = yield* Effect.flip(request(url))
          assert.strictEqual(e.code, "PORTAL_UNREACHABLE")
          assert.include(e.message, "not with a catalog portal's receipt")
        }))
    }))

  it.live("a registry envelope is raised as that error with the portal's message, fix and param; Retry-After as a date", () =>
    withServer((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" }).end(
        JSON.stringify({ error: { code: "INGEST_RATE_LIMITED", message: "Slow down.", fix: "Wait.", param: "x" } })
      )
    }, (url) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(request(url))
        assert.strictEqual(e.code, "INGEST_RATE_LIMITED")
        assert.strictEqual(e.message, "Slow down. Retry after Wed, 21 Oct 2026 07:28:00 GMT.")
        assert.strictEqual(e.fix, "Wait.")
        assert.strictEqual(e.param, "x")
        assert.strictEqual(e.exitCode, 1)
      })))

  it.live("headers: content-type, record key, user agent; the token only when given", () =>
    Effect.gen(function*() {
      const seen: Array<http.IncomingHttpHeaders> = []
      yield* withServer((req, res) => {
        seen.push(req.headers)
        res.writeHead(401, { "content-type": "application/json" }).end(
          JSON.stringify({ error: { code: "INGEST_UNAUTHORIZED", message: "Token.", fix: "Set it." } })
        )
      }, (url) =>
        Effect.gen(function*() {
          yield* Effect.flip(request(url))
          yield* Effect.flip(request(url, { ingestToken: "tok" }))
        }))
      assert.strictEqual(seen[0]!["content-type"], "application/json")
      assert.strictEqual(seen[0]!["x-catalog-record-key"], "k".repeat(43))
      assert.match(String(seen[0]!["user-agent"]), /^local-data-catalog\//)
      assert.isUndefined(seen[0]!["authorization"])
      assert.strictEqual(seen[1]!["authorization"], "Bearer tok")
    }))

  it.live("a huge answer is read only up to the cap (64 KiB): a 50 MB error page is PORTAL_UNREACHABLE, quickly, without reading it all", () =>
    Effect.gen(function*() {
      let written = 0
      yield* withServer((_req, res) => {
        res.writeHead(500, { "content-type": "text/html" })
        const chunk = Buffer.alloc(1024 * 1024, "<p>x</p>")
        const pump = () => {
          while (written < 50 * 1024 * 1024) {
            written += chunk.length
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          res.end()
        }
        res.on("close", () => undefined)
        pump()
      }, (url) =>
        Effect.gen(function*() {
          const e = yield* Effect.flip(request(url))
          assert.strictEqual(e.code, "PORTAL_UNREACHABLE")
          assert.include(e.message, "HTTP 500")
          assert.isBelow(e.message.length, 1000)
        }))
      // The client stopped reading: the server could not push the whole 50 MB through.
      assert.isBelow(written, 50 * 1024 * 1024)
    }))

  it.live("only the upload's own codes pass through: ENDPOINT_NOT_FOUND (a read API) and INVALID_PARAM (another snapshot version) are PORTAL_UNREACHABLE, never a usage error", () =>
    Effect.gen(function*() {
      for (const code of ["ENDPOINT_NOT_FOUND", "INVALID_PARAM", "DATASET_NOT_FOUND"]) {
        yield* withServer((_req, res) => {
          res.writeHead(code === "INVALID_PARAM" ? 400 : 404, { "content-type": "application/json" }).end(
            JSON.stringify({ error: { code, message: "No such thing.", fix: "Do another thing." } })
          )
        }, (url) =>
          Effect.gen(function*() {
            const e = yield* Effect.flip(request(url))
            assert.strictEqual(e.code, "PORTAL_UNREACHABLE")
            assert.include(e.message, code)
            assert.include(e.fix ?? "", "CATALOG_PORTAL_URL")
          }))
      }
    }))

  it.live("text from the server is made safe for a terminal: control and bidi characters are replaced", () =>
    withServer((_req, res) => {
      res.writeHead(401, { "content-type": "application/json" }).end(
        JSON.stringify({
          error: { code: "INGEST_UNAUTHORIZED", message: "Bad \u001bc\u009b2J token\u202e.", fix: "Set\u0007 it." }
        })
      )
    }, (url) =>
      Effect.gen(function*() {
        const e = yield* Effect.flip(request(url))
        assert.strictEqual(e.code, "INGEST_UNAUTHORIZED")
        // eslint-disable-next-line no-control-regex
        assert.notMatch(e.message, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/)
        // eslint-disable-next-line no-control-regex
        assert.notMatch(e.fix ?? "", /[\u0000-\u001f\u007f-\u009f]/)
        assert.include(e.message, "token")
      })))
})
