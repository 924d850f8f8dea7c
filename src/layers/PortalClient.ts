/**
 * `PortalClient` over HTTP (Node's fetch): `POST <portal>/api/portal/v1/snapshots` with exactly the
 * snapshot bytes, the record key header and, when set, the ingest token. The answer is read as the
 * contract says: 201 → an IngestReceipt (decoded with its Schema); the portal's error envelope → the
 * registry error of that code; anything else → PORTAL_UNREACHABLE naming the address and what came back.
 */
import { Effect, Layer, Schema } from "effect"
import { ingestPath, IngestReceipt, ingestTokenScheme, recordKeyHeader } from "../domain/Portal.js"
import { type CatalogErrorShape, errorClasses, PortalUnreachable } from "../errors/index.js"
import { PortalClient, type UploadRequest, uploadTimeoutMs } from "../services/PortalClient.js"
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

/** The ingest address under the portal's base address (a base path is kept; a trailing slash is not doubled). */
export const ingestUrl = (portalUrl: string): string => `${portalUrl.replace(/\/+$/, "")}${ingestPath}`

/** A short, printable account of a body that is not the portal's (HTML, text): its type and first words. */
const describeBody = (contentType: string | null, text: string): string => {
  const kind = contentType?.split(";")[0]?.trim() || "no content type"
  const words = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim().slice(0, 80)
  return words === "" ? `an empty ${kind} body` : `${kind}: "${words}${text.length > 80 ? "…" : ""}"`
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
  const cls = errorClasses.find((c) => c.code === env.error.code)
  if (cls === undefined) {
    return new PortalUnreachable({
      message:
        `The portal at ${portal} answered HTTP ${status} with an error this build does not know (${env.error.code}: ${env.error.message}).`,
      fix: "Update local-data-catalog, or ask the portal's operator."
    })
  }
  // Retry-After is a number of seconds or an HTTP date.
  const after = retryAfter?.trim() ?? ""
  const wait = after === "" ? "" : /^\d+$/.test(after) ? ` Retry after ${after} seconds.` : ` Retry after ${after}.`
  return new cls({
    message: `${env.error.message}${env.error.code === "INGEST_RATE_LIMITED" ? wait : ""}`,
    ...(env.error.fix !== undefined && env.error.fix !== null ? { fix: env.error.fix } : {}),
    ...(env.error.param !== undefined ? { param: env.error.param } : {})
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
        const text = await res.text()
        return { status: res.status, text, contentType: res.headers.get("content-type"), res }
      },
      catch: (e) =>
        new PortalUnreachable({
          message: `The portal at ${r.portalUrl} cannot be reached: ${networkReason(e)}.`,
          fix: unreachableFix(r.portalUrl)
        })
    })
    let json: unknown = undefined
    try {
      json = JSON.parse(answer.text)
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

export const PortalClientLive = Layer.succeed(PortalClient, PortalClient.of({ upload }))
