/**
 * `PortalClient` over HTTP (Node's fetch): `POST <portal>/api/portal/v1/snapshots` with exactly the
 * snapshot bytes, the record key header and, when set, the ingest token. The answer is read as the
 * contract says: 201 → an IngestReceipt (decoded with its Schema); the portal's error envelope → the
 * registry error of that code; anything else → PORTAL_UNREACHABLE naming the address and what came back.
 *
 * The sync calls of a paired machine (GET sync, POST sync/snapshots, GET health, GET signing-key) read the
 * answer the same bounded way, raise only SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE, SNAPSHOT_TOO_LARGE,
 * INGEST_UNAUTHORIZED and INGEST_RATE_LIMITED as the portal named them, and make everything else SYNC_FAILED
 * with retry advice.
 */
import { Effect, Layer, Schema } from "effect"
import {
  healthPath,
  ingestPath,
  IngestReceipt,
  ingestTokenScheme,
  PortalHealth,
  recordKeyHeader,
  signingKeyPath
} from "../domain/Portal.js"
import {
  DoraFills,
  RevokedLicences,
  revokedLicencesPath,
  SealBundle,
  type SealRequest,
  syncDoraPath,
  syncPath,
  SyncReceipt,
  syncSealPath,
  syncSnapshotsPath,
  SyncStatus,
  syncTokenHeader
} from "../domain/Sync.js"
import {
  type CatalogErrorShape,
  ClaimNotSyncable,
  ControllerRequired,
  DoraPullFailed,
  IngestRateLimited,
  IngestUnauthorized,
  InvalidParam,
  LicenceExpired,
  LicenceInvalid,
  LicenceMissing,
  LicenceRevoked,
  LicenceTenantMismatch,
  OpenLegalCalls,
  PortalUnreachable,
  SchemaMigrationRequired,
  SealPullFailed,
  SignerNameRequired,
  SnapshotTooLarge,
  SyncFailed,
  SyncUnauthorized,
  TermsNotAccepted
} from "../errors/index.js"
import {
  type DoraFillsRequest,
  PortalClient,
  type RevokedLicencesRequest,
  revokedLicencesTimeoutMs,
  type SyncRequest,
  type UploadRequest,
  uploadTimeoutMs
} from "../services/PortalClient.js"
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

const decodeRevoked = Schema.decodeUnknownEither(RevokedLicences)

/** The revocation list's address under the portal's base address. */
export const revokedLicencesUrl = (portalUrl: string): string =>
  `${portalUrl.replace(/\/+$/, "")}${revokedLicencesPath}`

const revokedLicences = (r: RevokedLicencesRequest): Effect.Effect<RevokedLicences, CatalogErrorShape> =>
  Effect.gen(function*() {
    const url = revokedLicencesUrl(r.portalUrl)
    const failed = (why: string) =>
      new SyncFailed({
        message: `The portal's licence revocation list (${url}) could not be fetched: ${why}.`,
        fix:
          `Check that the portal runs at ${r.portalUrl} (CATALOG_PORTAL_URL) and that this machine can reach it, then retry.`
      })
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const res = await fetch(url, {
          method: "GET",
          headers: { accept: "application/json", "user-agent": `local-data-catalog/${version}` },
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(r.timeoutMs ?? revokedLicencesTimeoutMs)])
        })
        const { cut, text } = await readCapped(res, answerCapBytes * 16)
        return { status: res.status, text, cut, contentType: res.headers.get("content-type") }
      },
      catch: (e) => failed(networkReason(e))
    })
    if (answer.cut) return yield* Effect.fail(failed(`the answer is larger than ${answerCapBytes * 16} bytes`))
    let json: unknown = undefined
    try {
      json = JSON.parse(answer.text)
    } catch {
      json = undefined
    }
    if (answer.status === 200) {
      const list = decodeRevoked(json)
      if (list._tag === "Right") return list.right
    }
    const envelope = decodeEnvelope(json)
    return yield* Effect.fail(
      failed(
        envelope._tag === "Some"
          ? `HTTP ${answer.status} (${printable(envelope.value.error.code, 60)}: ${
            printable(envelope.value.error.message, 300)
          })`
          : `HTTP ${answer.status} with ${describeBody(answer.contentType, answer.text)}`
      )
    )
  })

// ── sync (issue 12): the same bounded read; a short allowlist of codes; everything else SYNC_FAILED ──

/** The codes a paired machine acts on, raised as the portal named them. */
const syncErrors = [
  SyncUnauthorized,
  ClaimNotSyncable,
  SnapshotTooLarge,
  IngestUnauthorized,
  IngestRateLimited
] as const

/** A sync call's default time limit (a push sends up to 5 MB). */
const syncTimeoutMs = 30_000

const syncRetry = (portal: string) =>
  `Check that the portal runs at ${portal} (CATALOG_PORTAL_URL), then retry \`catalog push\` in a few minutes; the local catalog is unchanged.`

const syncFailed = (message: string, portal: string) => new SyncFailed({ message, fix: syncRetry(portal) })

const baseOf = (portalUrl: string) => portalUrl.replace(/\/+$/, "")

/** One exchange with the portal: the answer, or SYNC_FAILED naming why nothing came back. */
const exchange = (
  portalUrl: string,
  target: string,
  init: { readonly method: "GET" | "POST"; readonly headers: Record<string, string>; readonly body?: string },
  timeoutMs: number,
  cap: number = answerCapBytes
) =>
  Effect.tryPromise({
    try: async (signal) => {
      const res = await fetch(`${baseOf(portalUrl)}${target}`, {
        method: init.method,
        headers: { "user-agent": `local-data-catalog/${version}`, ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
        redirect: "manual",
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
      })
      const { cut, text } = await readCapped(res, cap)
      let json: unknown = undefined
      try {
        json = cut ? undefined : JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: res.status, text, json, contentType: res.headers.get("content-type"), res }
    },
    catch: (e) => syncFailed(`The portal at ${portalUrl} cannot be reached: ${networkReason(e)}.`, portalUrl)
  })

type Answer = Effect.Effect.Success<ReturnType<typeof exchange>>

/** An answer that is not `expected`: the portal's allowed code, else SYNC_FAILED saying what came back. */
const syncRefusal = (answer: Answer, portalUrl: string, target: string): CatalogErrorShape => {
  const envelope = decodeEnvelope(answer.json)
  if (envelope._tag === "Some") {
    const env = envelope.value
    const cls = syncErrors.find((c) => c.code === env.error.code)
    if (cls !== undefined) {
      const after = answer.res.headers.get("retry-after")?.trim() ?? ""
      const wait = env.error.code === "INGEST_RATE_LIMITED" && after !== ""
        ? /^\d+$/.test(after) ? ` Retry after ${after} seconds.` : ` Retry after ${printable(after, 60)}.`
        : ""
      return new cls({
        message: `${printable(env.error.message)}${wait}`,
        ...(env.error.fix !== undefined && env.error.fix !== null ? { fix: printable(env.error.fix) } : {}),
        ...(env.error.param !== undefined ? { param: printable(env.error.param, 80) } : {})
      })
    }
    return syncFailed(
      `The portal at ${portalUrl} answered ${target} with HTTP ${answer.status} (${printable(env.error.code, 60)}: ${
        printable(env.error.message, 300)
      }).`,
      portalUrl
    )
  }
  return syncFailed(
    `The server at ${portalUrl} is not answering as a catalog portal: ${target} gave HTTP ${answer.status} (${
      describeBody(answer.contentType, answer.text)
    }).`,
    portalUrl
  )
}

const syncHeaders = (r: SyncRequest): Record<string, string> => ({
  [syncTokenHeader]: r.syncToken,
  ...(r.ingestToken !== null ? { authorization: `${ingestTokenScheme} ${r.ingestToken}` } : {})
})

/** The answer decoded with `schema` when its status is `expected`; else the refusal. */
const expect = <A, I>(
  answer: Answer,
  expected: number,
  schema: Schema.Schema<A, I>,
  portalUrl: string,
  target: string
): Effect.Effect<A, CatalogErrorShape> => {
  if (answer.status !== expected) return Effect.fail(syncRefusal(answer, portalUrl, target))
  const decoded = Schema.decodeUnknownEither(schema)(answer.json)
  return decoded._tag === "Right" ? Effect.succeed(decoded.right) : Effect.fail(syncFailed(
    `The server at ${portalUrl} answered ${target} with HTTP ${expected} but not as a catalog portal does (${
      describeBody(answer.contentType, answer.text)
    }).`,
    portalUrl
  ))
}

const syncStatus = (r: SyncRequest) =>
  Effect.flatMap(
    exchange(r.portalUrl, syncPath, { method: "GET", headers: syncHeaders(r) }, r.timeoutMs ?? syncTimeoutMs),
    (a) => expect(a, 200, SyncStatus, r.portalUrl, syncPath)
  )

const push = (r: SyncRequest & { readonly body: string }) =>
  Effect.flatMap(
    exchange(r.portalUrl, syncSnapshotsPath, {
      method: "POST",
      headers: { ...syncHeaders(r), "content-type": "application/json" },
      body: r.body
    }, r.timeoutMs ?? syncTimeoutMs),
    (a) => expect(a, 201, SyncReceipt, r.portalUrl, syncSnapshotsPath)
  )

const health = (portalUrl: string) =>
  Effect.flatMap(
    exchange(portalUrl, healthPath, { method: "GET", headers: {} }, 10_000),
    (a) => expect(a, 200, PortalHealth, portalUrl, healthPath)
  )

const pemPattern = /^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]{40,400}-----END PUBLIC KEY-----\r?\n?$/

const signingKey = (portalUrl: string) =>
  Effect.flatMap(exchange(portalUrl, signingKeyPath, { method: "GET", headers: {} }, 10_000), (a) => {
    if (a.status !== 200) return Effect.fail(syncRefusal(a, portalUrl, signingKeyPath))
    return pemPattern.test(a.text) ? Effect.succeed(a.text) : Effect.fail(syncFailed(
      `The server at ${portalUrl} answered ${signingKeyPath} without a public key (${
        describeBody(a.contentType, a.text)
      }).`,
      portalUrl
    ))
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

// ── sync/seal (issue 12 part 4) ─────────────────────────────────────────────────────────────────────

/** At most this much of a seal's answer is read (a snapshot ≤ 5 MB becomes a few artifacts, base64). */
export const sealAnswerCapBytes = 48 * 1024 * 1024

/** The codes POST sync/seal answers that the machine raises as the portal named them. */
const sealErrors = [
  SyncUnauthorized,
  ClaimNotSyncable,
  IngestUnauthorized,
  LicenceMissing,
  LicenceInvalid,
  LicenceTenantMismatch,
  LicenceExpired,
  LicenceRevoked,
  TermsNotAccepted,
  ControllerRequired,
  SignerNameRequired,
  OpenLegalCalls,
  InvalidParam
] as const
const sealPullErrors = [SyncUnauthorized, ClaimNotSyncable, IngestUnauthorized, SealPullFailed] as const

type Allowed = ReadonlyArray<
  new(args: { message: string; fix?: string; param?: string }) => CatalogErrorShape & { readonly code: string }
>

/** The portal's allowed code as it named it, else `other` (what came back, in words). */
const sealRefusal = (
  answer: Answer,
  allowed: Allowed,
  codes: ReadonlyArray<string>,
  other: (why: string) => CatalogErrorShape
) => {
  const envelope = decodeEnvelope(answer.json)
  if (envelope._tag === "Some") {
    const e = envelope.value.error
    const i = codes.indexOf(e.code)
    const cls = i >= 0 ? allowed[i] : undefined
    if (cls !== undefined) {
      return new cls({
        message: printable(e.message),
        ...(e.fix !== undefined && e.fix !== null ? { fix: printable(e.fix) } : {}),
        ...(e.param !== undefined ? { param: printable(e.param, 80) } : {})
      })
    }
    return other(`HTTP ${answer.status} (${printable(e.code, 60)}: ${printable(e.message, 300)})`)
  }
  return other(`HTTP ${answer.status} (${describeBody(answer.contentType, answer.text)})`)
}

const decodeBundle = Schema.decodeUnknownEither(SealBundle)

const seal = (r: SyncRequest & { readonly seal: SealRequest }) =>
  Effect.flatMap(
    exchange(
      r.portalUrl,
      syncSealPath,
      {
        method: "POST",
        headers: { ...syncHeaders(r), "content-type": "application/json" },
        body: JSON.stringify(r.seal)
      },
      r.timeoutMs ?? syncTimeoutMs,
      sealAnswerCapBytes
    ),
    (a): Effect.Effect<SealBundle, CatalogErrorShape> => {
      const failed = (why: string) =>
        new SyncFailed({
          message: `The portal at ${r.portalUrl} did not seal the record: ${syncSealPath} gave ${why}.`,
          fix:
            `Check that the portal runs at ${r.portalUrl} (CATALOG_PORTAL_URL), then run \`catalog verify\` again; if the seal was made meanwhile, \`catalog seal pull\` fetches it.`
        })
      if (a.status === 201) {
        const b = decodeBundle(a.json)
        return b._tag === "Right"
          ? Effect.succeed(b.right)
          : Effect.fail(failed(`HTTP 201 but not a seal (${describeBody(a.contentType, a.text.slice(0, 200))})`))
      }
      return Effect.fail(sealRefusal(a, sealErrors as unknown as Allowed, sealErrors.map((c) => c.code), failed))
    }
  )

const sealBundle = (r: SyncRequest) =>
  Effect.flatMap(
    exchange(
      r.portalUrl,
      syncSealPath,
      { method: "GET", headers: syncHeaders(r) },
      r.timeoutMs ?? syncTimeoutMs,
      sealAnswerCapBytes
    )
      .pipe(Effect.mapError((e) => new SealPullFailed({ message: e.message, fix: pullSealFix(r.portalUrl) }))),
    (a): Effect.Effect<SealBundle, CatalogErrorShape> => {
      const failed = (why: string) =>
        new SealPullFailed({
          message: `The seal could not be pulled from ${r.portalUrl}: ${syncSealPath} gave ${why}. Nothing was stored.`,
          fix: pullSealFix(r.portalUrl)
        })
      if (a.status === 200) {
        const b = decodeBundle(a.json)
        return b._tag === "Right"
          ? Effect.succeed(b.right)
          : Effect.fail(failed(`HTTP 200 but not a seal (${describeBody(a.contentType, a.text.slice(0, 200))})`))
      }
      return Effect.fail(
        sealRefusal(a, sealPullErrors as unknown as Allowed, sealPullErrors.map((c) => c.code), failed)
      )
    }
  )

const pullSealFix = (portal: string) =>
  `Check that the portal runs at ${portal} (CATALOG_PORTAL_URL) and CATALOG_SYNC_TOKEN, then run \`catalog seal pull\` again.`

export const PortalClientLive = Layer.succeed(
  PortalClient,
  PortalClient.of({ upload, revokedLicences, syncStatus, push, health, signingKey, doraFills, seal, sealBundle })
)
