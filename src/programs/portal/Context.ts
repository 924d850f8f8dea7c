/**
 * What every portal route reads besides the store and the mailer: the settings in effect and the
 * public address claim links are written with (known once the listener is bound), plus the small
 * helpers the routes share (secrets, time, the caller's address, reading a capped body).
 */
import { type HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Context, DateTime, Effect, Option } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import type { PortalSettings } from "./Settings.js"

export interface PortalContextShape {
  readonly settings: PortalSettings
  /** Claim links are `${publicUrl}/claim/<token>`; no trailing slash. */
  readonly publicUrl: string
  /** Where the one line per request goes (stderr in the real program). */
  readonly log: (line: string) => void
}

export class PortalContext extends Context.Tag("portal/PortalContext")<PortalContext, PortalContextShape>() {}

/** SHA-256, hex: how every secret is stored. */
export const sha256Hex = (s: string | Uint8Array): string => createHash("sha256").update(s).digest("hex")

/** `n` random bytes, base64url. */
export const randomToken = (n: number): string => randomBytes(n).toString("base64url")

/** Constant-time comparison of two strings (of their SHA-256, so lengths never leak). */
export const sameSecret = (a: string, b: string): boolean =>
  timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest())

/** Now, ISO-8601 UTC, from Effect's Clock. */
export const nowIso = Effect.map(DateTime.now, DateTime.formatIso)
export const nowMillis = Effect.map(DateTime.now, DateTime.toEpochMillis)

/** The caller's address: the first X-Forwarded-For entry when the operator trusts the proxy, else the socket's. */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const xff = request.headers["x-forwarded-for"]
    const first = xff?.split(",")[0]?.trim()
    if (first !== undefined && first !== "") return first
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

export type ReadProblem = "too-large" | "aborted"

/**
 * Reads the request body from the socket with `cap` enforced while reading: a declared Content-Length
 * over the cap is refused before a byte is read, and a streamed body is cut off (reading stops) as
 * soon as it passes the cap. Never holds more than `cap` bytes.
 */
export const readCappedBody = (
  request: HttpServerRequest.HttpServerRequest,
  cap: number
): Effect.Effect<Buffer, ReadProblem> => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) return Effect.fail("too-large")
  const incoming = NodeHttpServerRequest.toIncomingMessage(request)
  return Effect.async<Buffer, ReadProblem>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let done = false
    const cleanup = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onAbort)
      incoming.off("close", onClose)
    }
    const finish = (result: Effect.Effect<Buffer, ReadProblem>) => {
      if (done) return
      done = true
      cleanup()
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > cap) {
        incoming.pause()
        chunks.length = 0
        return finish(Effect.fail("too-large"))
      }
      chunks.push(chunk)
    }
    const onEnd = () => finish(Effect.succeed(Buffer.concat(chunks, size)))
    const onAbort = () => finish(Effect.fail("aborted"))
    const onClose = () => {
      if (!incoming.complete) onAbort()
    }
    incoming.on("data", onData)
    incoming.on("end", onEnd)
    incoming.on("error", onAbort)
    incoming.on("close", onClose)
    return Effect.sync(cleanup)
  })
}

/** `/claim/clm_abc…/code` → `/claim/clm_…/code`: what the request log prints (never a token, never a query). */
export const redactPath = (url: string): string => {
  const q = url.indexOf("?")
  const pathname = q === -1 ? url : url.slice(0, q)
  return pathname.replace(/\/(claims?)\/[^/]+/g, "/$1/clm_…").replace(/clm_[^/]*/g, "clm_…")
}
