/**
 * `PortalClient` over HTTP (Node's fetch): `POST <portal>/api/portal/v1/snapshots` with exactly the
 * snapshot bytes, the record key header and, when set, the ingest token. The answer is read as the
 * contract says: 201 → an IngestReceipt (decoded with its Schema); the portal's error envelope → the
 * registry error of that code; anything else → PORTAL_UNREACHABLE naming the address and what came back.
 */
import { Effect, Layer, Schema } from "effect"
import { ingestPath, IngestReceipt, ingestTokenScheme, recordKeyHeader } from "../domain/Portal.js"
import { DoraFills, syncDoraPath, syncTokenHeader } from "../domain/Sync.js"
import {
  type CatalogErrorShape,
  ClaimNotSyncable,
  DoraPullFailed,
  IngestRateLimited,
  IngestUnauthorized,
  PortalUnreachable,
  SchemaMigrationRequired,
  SnapshotTooLarge,
  SyncUnauthorized
} from "../errors/index.js"
import { type DoraFillsRequest, PortalClient, type UploadRequest, uploadTimeoutMs } from "../services/PortalClient.js"
import { version } from "../version.js"

/** The portal's error envelope, as it is on the wire. */
const Envelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    fix: Schema.optional(Schema.NullOr(Schema.String)),
    param: Schema.optional(Schema.String)
  })
})
const decodeEnvelope = Schema.decodeUnknownOption(Envelope)
const decodeReceipt = Schema.decodeUnknownEither(IngestReceipt)

const unreachableFix = (portal: string) =>
  `Check that the portal runs at ${portal} and that CATALOG_PORTAL_URL names it, or stay local with \`catalog invite --no-upload\` and \`catalog serve-claim\`.`

/**
 * The codes a portal may answer an upload with that `invite` raises as they are. Any other code (e.g.
 * ENDPOINT_NOT_FOUND from a `catalog open` read API, or INVALID_PARAM from a portal that reads another
 * snapshot version — not a usage error of this command line) is PORTAL_UNREACHABLE quoting it.
 */
const uploadErrors = [IngestUnauthorized, IngestRateLimited, SnapshotTooLarge, SchemaMigrationRequired] as const

/** At most this much of an answer is read (a receipt is about 1 KB); a longer one is cut off. */
export const answerCapBytes = 64 * 1024

/** Reads at most `cap` bytes of a body as UTF-8 text, then cancels the rest. */
const readCapped = async (res: Response, cap: number): Promise<{ text: string; cut: boolean }> => {
  if (res.body === null) return { text: "", cut: false }
  const reader = res.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  let cut = false
  while (true) {
    const { done, value } = await reader.read()
    if (done) break
    const room = cap - size
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room))
      size = cap
      cut = true
      await reader.cancel().catch(() => undefined)
      break
    }
    chunks.push(value)
    size += value.byteLength
  }
  return { text: Buffer.concat(chunks, size).toString("utf8"), cut }
}

/** The ingest address under the portal's base address (a base path is kept; a trailing slash is not doubled). */
export const ingestUrl = (portalUrl: string): string => `${portalUrl.replace(/\/+$/, "")}${ingestPath}`

/** Text from the server, safe for a terminal: control and bidi characters replaced, at most `max` characters. */
const printable = (text: string, max = 500): string => {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "\ufffd")
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}

/** A short, printable account of a body that is not the portal's (HTML, text): its type and first words. */
const describeBody = (contentType: string | null, text: string): string => {
  const kind = contentType?.split(";")[0]?.trim() || "no content type"
  const words = printable(text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim(), 80)
  return words === "" ? `an empty ${printable(kind, 80)} body` : `${printable(kind, 80)}: "${words}"`
}

/** Why fetch failed, in plain words: refused, unknown host, timeout… */
const networkReason = (e: unknown): string => {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) {
    return "no answer within the time allowed"
  }
  const cause = e instanceof Error ? e.cause : undefined
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
  switch (code) {
    case "ECONNREFUSED":
      return "the connection was refused (nothing listens there)"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve"
    case "ECONNRESET":
      return "the connection was reset"
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "the connection timed out"
    case "CERT_HAS_EXPIRED":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
      return `its TLS certificate was refused (${code})`
    default:
      return cause instanceof Error ? cause.message : e instanceof Error ? e.message : String(e)
  }
}

/** The registry error the portal named, raised again here with the portal's message and fix. */
const fromEnvelope = (
  env: typeof Envelope.Type,
  status: number,
  retryAfter: string | null,
  portal: string
): CatalogErrorShape => {
  const cls = uploadErrors.find((c) => c.code === env.error.code)
  if (cls === undefined) {
    return new PortalUnreachable({
      message: `The server at ${portal} refused the upload with HTTP ${status} (${printable(env.error.code, 60)}: ${
        printable(env.error.message, 300)
      }).`,
      fix:
        `Check that CATALOG_PORTAL_URL names a catalog portal (\`catalog admin serve\`), not another service, and that it runs this version of local-data-catalog; or stay local with \`catalog invite --no-upload\`.`
    })
  }
  // Retry-After is a number of seconds or an HTTP date.
  const after = retryAfter?.trim() ?? ""
  const wait = after === "" ? "" : /^\d+$/.test(after) ? ` Retry after ${after} seconds.` : ` Retry after ${after}.`
  return new cls({
    message: `${printable(env.error.message)}${env.error.code === "INGEST_RATE_LIMITED" ? printable(wait, 80) : ""}`,
    ...(env.error.fix !== undefined && env.error.fix !== null ? { fix: printable(env.error.fix) } : {}),
    ...(env.error.param !== undefined ? { param: printable(env.error.param, 80) } : {})
  })
}

const upload = (r: UploadRequest): Effect.Effect<IngestReceipt, CatalogErrorShape> =>
  Effect.gen(function*() {
    const url = ingestUrl(r.portalUrl)
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": `local-data-catalog/${version}`,
      [recordKeyHeader]: r.recordKey
    }
    if (r.ingestToken !== null) headers["authorization"] = `${ingestTokenScheme} ${r.ingestToken}`
    const timeout = r.timeoutMs ?? uploadTimeoutMs
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const res = await fetch(url, {
          method: "POST",
          headers,
          body: r.body,
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeout)])
        })
        const { cut, text } = await readCapped(res, answerCapBytes)
        return { status: res.status, text, cut, contentType: res.headers.get("content-type"), res }
      },
      catch: (e) =>
        new PortalUnreachable({
          message: `The portal at ${r.portalUrl} cannot be reached: ${networkReason(e)}.`,
          fix: unreachableFix(r.portalUrl)
        })
    })
    let json: unknown = undefined
    try {
      json = answer.cut ? undefined : JSON.parse(answer.text)
    } catch {
      json = undefined
    }
    if (answer.status === 201) {
      const receipt = decodeReceipt(json)
      if (receipt._tag === "Right") return receipt.right
      return yield* Effect.fail(
        new PortalUnreachable({
          message: `The server at ${r.portalUrl} answered HTTP 201 but not with a catalog portal's receipt (${
            describeBody(answer.contentType, answer.text)
          }).`,
          fix: unreachableFix(r.portalUrl)
        })
      )
    }
    const envelope = decodeEnvelope(json)
    if (envelope._tag === "Some") {
      return yield* Effect.fail(
        fromEnvelope(envelope.value, answer.status, answer.res.headers.get("retry-after"), r.portalUrl)
      )
    }
    return yield* Effect.fail(
      new PortalUnreachable({
        message:
          `The server at ${r.portalUrl} is not answering as a catalog portal: ${url} gave HTTP ${answer.status} (${
            describeBody(answer.contentType, answer.text)
          }).`,
        fix: unreachableFix(r.portalUrl)
      })
    )
  })

// ── GET sync/dora (issue 12 part 2) ───────────────────────────────────────────────────────────────────

/** At most this much of a DORA fills answer is read (a fill is ~200 bytes: some 40,000 cells). */
export const doraFillsCapBytes = 8 * 1024 * 1024
const decodeDoraFills = Schema.decodeUnknownEither(DoraFills)
const pullErrors = [SyncUnauthorized, ClaimNotSyncable] as const
const pullFix = (portal: string) =>
  `Check that the portal runs at ${portal} (CATALOG_PORTAL_URL) and that CATALOG_SYNC_TOKEN (and CATALOG_INGEST_TOKEN when the operator requires one) are set, then run \`catalog dora pull\` again.`

const doraFills = (
  r: DoraFillsRequest
): Effect.Effect<DoraFills, SyncUnauthorized | ClaimNotSyncable | DoraPullFailed> =>
  Effect.gen(function*() {
    const url = `${r.portalUrl.replace(/\/+$/, "")}${syncDoraPath}`
    const headers: Record<string, string> = {
      accept: "application/json",
      "user-agent": `local-data-catalog/${version}`,
      [syncTokenHeader]: r.syncToken
    }
    if (r.ingestToken !== null) headers["authorization"] = `${ingestTokenScheme} ${r.ingestToken}`
    const failed = (why: string) =>
      new DoraPullFailed({
        message: `The DORA fills could not be pulled from ${r.portalUrl}: ${why}. Nothing was changed.`,
        fix: pullFix(r.portalUrl)
      })
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const res = await fetch(url, {
          method: "GET",
          headers,
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(r.timeoutMs ?? uploadTimeoutMs)])
        })
        const { cut, text } = await readCapped(res, doraFillsCapBytes)
        return { status: res.status, text, cut, contentType: res.headers.get("content-type") }
      },
      catch: (e) => failed(`the portal cannot be reached (${networkReason(e)})`)
    })
    if (answer.cut) return yield* failed(`its answer is larger than ${doraFillsCapBytes} bytes`)
    let json: unknown = undefined
    try {
      json = JSON.parse(answer.text)
    } catch {
      json = undefined
    }
    if (answer.status === 200) {
      const fills = decodeDoraFills(json)
      if (fills._tag === "Right") return fills.right
      return yield* failed(
        `HTTP 200 but not a catalog portal's DORA fills (${describeBody(answer.contentType, answer.text)})`
      )
    }
    const envelope = decodeEnvelope(json)
    if (envelope._tag === "Some") {
      const e = envelope.value.error
      const cls = pullErrors.find((c) => c.code === e.code)
      if (cls !== undefined) {
        return yield* new cls({
          message: printable(e.message),
          ...(e.fix !== undefined && e.fix !== null ? { fix: printable(e.fix) } : {})
        })
      }
      return yield* new DoraPullFailed({
        message: `The portal at ${r.portalUrl} refused the DORA pull with HTTP ${answer.status} (${
          printable(e.code, 60)
        }: ${printable(e.message, 300)}). Nothing was changed.`,
        fix: e.fix !== undefined && e.fix !== null ? printable(e.fix) : pullFix(r.portalUrl)
      })
    }
    return yield* failed(
      `${url} gave HTTP ${answer.status} (${
        describeBody(answer.contentType, answer.text)
      }), not a catalog portal's answer`
    )
  })

export const PortalClientLive = Layer.succeed(PortalClient, PortalClient.of({ upload, doraFills }))
