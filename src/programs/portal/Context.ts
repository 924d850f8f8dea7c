/**
 * What every portal route reads besides the store and the mailer: the settings in effect and the
 * public address claim links are written with (known once the listener is bound), plus the small
 * helpers the routes share (secrets, time, the caller's address, reading a capped body).
 */
import { type HttpServerRequest } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Context, DateTime, Effect, Option } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { isIP } from "node:net"
import { officialInstalled } from "../../edition.js"
import type { PortalSettings } from "./Settings.js"

export interface PortalContextShape {
  readonly settings: PortalSettings
  /** Claim links are `${publicUrl}/claim/<token>`; no trailing slash. */
  readonly publicUrl: string
  /** Where the one line per request goes (stderr in the real program). */
  readonly log: (line: string) => void
  /**
   * Whether this build has the official export and attestation (sealing): `officialInstalled` from
   * src/edition.ts unless a test says otherwise. Read through `officialInThisBuild`.
   */
  readonly officialInstalled?: boolean | undefined
}

export class PortalContext extends Context.Tag("portal/PortalContext")<PortalContext, PortalContextShape>() {}

/** Whether sealing is installed here (the build's flag, or the one a test injected into the context). */
export const officialInThisBuild = Effect.map(PortalContext, (c) => c.officialInstalled ?? officialInstalled)

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

/**
 * The address a trusted proxy saw, from an X-Forwarded-For value: proxies append the address they received
 * the request from, so with `hops` trusted proxies in front the caller is the `hops`-th entry from the right
 * (1 = the right-most). Entries further left are whatever the caller sent, and are never used. Null when
 * there are fewer entries, or that entry is not an IP address.
 */
export const forwardedAddress = (xff: string | undefined, hops: number): string | null => {
  if (xff === undefined || hops < 1) return null
  const entries = xff.split(",").map((e) => e.trim())
  const entry = entries[entries.length - hops]
  return entry !== undefined && isIP(entry) !== 0 ? entry : null
}

/**
 * The caller's address, as the rate limit keys it: with `trustProxyHops` > 0 (CATALOG_PORTAL_TRUST_PROXY) the
 * address the trusted proxy saw (`forwardedAddress`), else — or when that entry is missing or not an IP
 * address — the socket's.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustProxyHops: number): string =>
  forwardedAddress(request.headers["x-forwarded-for"], trustProxyHops) ??
    Option.getOrElse(request.remoteAddress, () => "unknown")

/**
 * The keys of the counts kept in `upload_counts`, one namespace each, so that no value of one can name a
 * count of the other: uploads per address (`ip:`; the address is an IP address, see clientAddress) and
 * one-time codes per claim (`code:`).
 */
export const uploadCountKey = (address: string): string => `ip:${address}`
export const codeCountKey = (claimId: string): string => `code:${claimId}`

export type ReadProblem = "too-large" | "aborted"

/** How long a refused upload's socket is drained (bytes discarded, never kept) before it is closed. */
export const lingerMs = 2_000

/**
 * A lingering close for a body refused mid-stream. Closing a socket with unread data makes the kernel send a
 * reset, and a reset can make the client drop the 413 it has already been sent. So the rest of the body is
 * read and thrown away (nothing is kept), the answer is sent and the write side closed as usual, and the
 * socket is destroyed only `lingerMs` later — the client has read the answer by then.
 */
const lingerAfterRefusal = (incoming: ReturnType<typeof NodeHttpServerRequest.toIncomingMessage>): void => {
  const socket = incoming.socket
  incoming.on("data", () => undefined) // discard: keeps the socket's receive buffer empty
  incoming.resume()
  socket.destroySoon = function(this: typeof socket) {
    if (this.writable) this.end()
    setTimeout(() => this.destroy(), lingerMs).unref()
  }
}

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
        chunks.length = 0
        lingerAfterRefusal(incoming)
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
