/**
 * POST /api/portal/v1/snapshots: an invite snapshot becomes a live claim. In this order:
 *   1. the ingest token, when the operator set one (401 INGEST_UNAUTHORIZED; constant-time compare);
 *   2. the per-address hourly limit, counted atomically in the store (429 INGEST_RATE_LIMITED, Retry-After);
 *   3. the body, read from the socket under the 5,000,000-byte cap (413 SNAPSHOT_TOO_LARGE, connection closed);
 *   4. JSON + the Snapshot Schema (400 INVALID_PARAM "snapshot": the first problem's path, never a value);
 *   5. the record key header (400 INVALID_PARAM "x-catalog-record-key");
 *   6. store.ingest (one transaction: the record's previous live claim is superseded);
 *   7. the claim link mailed to a bound recipient (a mail problem is reported, never loses the upload).
 * Once counted, an upload that is not stored — refused, abandoned by the client mid-body (interrupted), or
 * failed — gives its count back, and leaves nothing else in the store.
 */
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, ParseResult, Schema } from "effect"
import {
  claimIdPrefix,
  claimPagePrefix,
  claimTokenPrefix,
  type IngestReceipt,
  ingestTokenScheme,
  type MailOutcome,
  recordKeyHeader
} from "../../domain/Portal.js"
import { Snapshot, uploadCapBytes } from "../../domain/Snapshot.js"
import {
  type CatalogErrorShape,
  IngestRateLimited,
  IngestUnauthorized,
  InvalidParam,
  SnapshotTooLarge
} from "../../errors/index.js"
import { claimLinkMessage, Mail, mailOutcome } from "../../services/Mail.js"
import { PortalStore } from "../../services/PortalStore.js"
import {
  clientAddress,
  nowIso,
  nowMillis,
  PortalContext,
  randomToken,
  readCappedBody,
  sameSecret,
  sha256Hex,
  uploadCountKey
} from "./Context.js"

const hourMs = 3_600_000

export const errorResponse = (e: CatalogErrorShape, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(e.body, { status: e.spec.status, headers })

const decodeSnapshot = Schema.decodeUnknownEither(Snapshot, { errors: "first", onExcessProperty: "error" })

/** How deep a snapshot's JSON may nest (arrays and objects); `catalog invite` writes well under it. */
export const maxSnapshotDepth = 64

/**
 * Whether `body` (JSON text, as bytes) opens more than `max` arrays or objects inside one another, counted
 * outside strings: one pass, no recursion, so a body of millions of `[` costs a scan, not a stack. UTF-8
 * never puts these ASCII bytes inside a multi-byte character, so the bytes can be scanned as they are.
 */
export const nestedDeeperThan = (body: Uint8Array, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const b = body[i]
    if (inString) {
      if (b === 0x5c) i++ // a backslash escapes the next byte
      else if (b === 0x22) inString = false
    } else if (b === 0x22) inString = true
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true
    } else if (b === 0x5d || b === 0x7d) depth--
  }
  return false
}

/** A path segment as the message may show it: an index, or a field name of the snapshot's own shape. */
const segment = (p: PropertyKey): string =>
  typeof p === "number" || (typeof p === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(p)) ? String(p) : "(a field)"

/** What is wrong with a snapshot, named by path; the offending value (or an unknown field's name) is never repeated. */
export const snapshotProblem = (body: Buffer): InvalidParam | { readonly snapshot: Snapshot } => {
  const fix =
    "Upload the snapshot exactly as `catalog invite` writes it (JSON, format local-data-catalog/invite-snapshot, version 1)."
  const refuse = (message: string) => new InvalidParam({ message, fix, param: "snapshot" })
  if (nestedDeeperThan(body, maxSnapshotDepth)) {
    return refuse(
      `The snapshot nests arrays or objects more than ${maxSnapshotDepth} levels deep; it is not a snapshot.`
    )
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body))
  } catch {
    return refuse("The body is not JSON (UTF-8).")
  }
  try {
    const decoded = decodeSnapshot(parsed)
    if (Either.isRight(decoded)) return { snapshot: decoded.right }
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    const where = issue === undefined || issue.path.length === 0 ? "the top level" : issue.path.map(segment).join(".")
    const what = issue?._tag === "Missing"
      ? "is missing"
      : issue?._tag === "Unexpected"
      ? "is not a field of the snapshot"
      : "has the wrong type or value"
    return refuse(`The snapshot is not valid: ${where} ${what}.`)
  } catch {
    // Whatever the Schema or its formatter throws on a hostile body is a refusal of that body, not a defect.
    return refuse("The snapshot is not valid (it could not be checked against the snapshot's shape).")
  }
}

const recordKeyPattern = /^[A-Za-z0-9_-]{43}$/

/** Which command a refusal tells the user to re-run (`catalog invite`, or `catalog push` for a paired machine). */
export type Rerun = "catalog invite" | "catalog push" | "catalog verify" | "catalog seal pull"

/**
 * Step 1 of every machine upload: the ingest token, when the operator set one (constant-time compare).
 * The refusal (401 INGEST_UNAUTHORIZED, connection closed: the body is never read), or null when it passes.
 */
export const ingestTokenRefusal = (request: HttpServerRequest.HttpServerRequest, rerun: Rerun) =>
  Effect.map(PortalContext, ({ settings }) => {
    if (settings.ingestToken === null) return null
    const auth = request.headers["authorization"] ?? ""
    const presented = auth.startsWith(`${ingestTokenScheme} `) ? auth.slice(ingestTokenScheme.length + 1).trim() : ""
    if (sameSecret(presented, settings.ingestToken)) return null
    return errorResponse(
      new IngestUnauthorized({
        message: presented === ""
          ? "This portal requires an ingest token and the upload presented none."
          : "The ingest token presented does not match this portal's.",
        fix: `Set CATALOG_INGEST_TOKEN to the token the portal operator gave you, then re-run \`${rerun}\`.`
      }),
      // The body that follows is never read: close the connection rather than drain it (keep-alive).
      { "www-authenticate": ingestTokenScheme, connection: "close" }
    )
  })

/**
 * The per-address hourly limit around `run` (counted atomically across every portal process on the store):
 * over the limit → 429 INGEST_RATE_LIMITED with Retry-After. Once counted, an upload that is not stored —
 * refused, abandoned by the client mid-body (interrupted), or failed — gives its count back (never below
 * zero); `run` sets `committed.done` once it has stored the upload.
 */
export const withUploadCount = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  rerun: Rerun,
  run: (committed: { done: boolean }) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.gen(function*() {
    const { settings } = yield* PortalContext
    const store = yield* PortalStore
    const address = uploadCountKey(clientAddress(request, settings.trustProxyHops))
    const now = yield* nowMillis
    const windowStartMs = Math.floor(now / hourMs) * hourMs
    const windowStart = new Date(windowStartMs).toISOString()
    const count = yield* store.countUpload(address, windowStart)
    const committed = { done: false }
    const verdict = Effect.suspend(() => {
      if (count <= settings.rateLimit) return run(committed)
      const retryAfter = Math.max(1, Math.ceil((windowStartMs + hourMs - now) / 1000))
      return Effect.succeed(errorResponse(
        new IngestRateLimited({
          message: `Too many uploads from this address: the limit is ${settings.rateLimit} per hour.`,
          fix: `Wait ${Math.ceil(retryAfter / 60)} minute(s) (Retry-After), then re-run \`${rerun}\`.`
        }),
        { "retry-after": String(retryAfter), connection: "close" }
      ))
    })
    return yield* Effect.onExit(
      verdict,
      () => committed.done ? Effect.void : Effect.ignore(store.uncountUpload(address, windowStart))
    )
  })

/**
 * The body, read from the socket under the snapshot cap, then checked against the Snapshot Schema: the
 * snapshot and its bytes, or the response that ends the request (400 for an abandoned body, 413
 * SNAPSHOT_TOO_LARGE with the connection closed, 400 INVALID_PARAM "snapshot").
 */
export const readSnapshot = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const read = yield* Effect.either(readCappedBody(request, uploadCapBytes))
    if (Either.isLeft(read)) {
      if (read.left === "aborted") {
        return Either.left(HttpServerResponse.empty({ status: 400, headers: { connection: "close" } }))
      }
      return Either.left(errorResponse(
        new SnapshotTooLarge({
          message: `The upload is larger than the ${uploadCapBytes}-byte cap; the portal stopped reading it.`
        }),
        { connection: "close" }
      ))
    }
    const body = read.right
    const checked = snapshotProblem(body)
    if (checked instanceof InvalidParam) return Either.left(errorResponse(checked))
    return Either.right({ body, snapshot: checked.snapshot })
  })

/** Steps 3 to 7 of an upload already counted; sets `committed.done` once it is stored. */
const afterCounting = (request: HttpServerRequest.HttpServerRequest, committed: { done: boolean }) =>
  Effect.gen(function*() {
    const { publicUrl } = yield* PortalContext
    const store = yield* PortalStore
    const mailer = yield* Mail

    // 3–4. The body, under the cap while reading; the snapshot.
    const read = yield* readSnapshot(request)
    if (Either.isLeft(read)) return read.left
    const { body, snapshot } = read.right
    if ((snapshot.recipient === null) === !snapshot.unbound) {
      return errorResponse(
        new InvalidParam({
          message: snapshot.recipient === null
            ? "The snapshot names no recipient and is not unbound: it was written by `catalog invite --no-upload`."
            : "The snapshot names a recipient and is also unbound; it must be one or the other.",
          fix: "Re-run `catalog invite --email <address>` (or `--unbound`) to upload.",
          param: "snapshot"
        })
      )
    }

    // 5. The record key.
    const recordKey = request.headers[recordKeyHeader]
    if (recordKey === undefined || !recordKeyPattern.test(recordKey)) {
      return errorResponse(
        new InvalidParam({
          message: recordKey === undefined
            ? `The upload has no ${recordKeyHeader} header.`
            : `The ${recordKeyHeader} header is not a record key (43 characters of base64url).`,
          fix: "Upload with `catalog invite`, which sends this machine's record key (.catalog/record-key).",
          param: recordKeyHeader
        })
      )
    }

    // 6. Stored whole, in one transaction.
    const token = `${claimTokenPrefix}${randomToken(32)}`
    const claimId = `${claimIdPrefix}${randomToken(12)}`
    const sha256 = sha256Hex(body)
    const at = yield* nowIso
    const { claim, supersedes } = yield* store.ingest({
      claimId,
      tokenHash: sha256Hex(token),
      recordKeyHash: sha256Hex(recordKey),
      recipient: snapshot.recipient,
      unbound: snapshot.unbound,
      body: body.toString("utf8"),
      bytes: body.length,
      sha256,
      at
    })
    committed.done = true
    const claimUrl = `${publicUrl}${claimPagePrefix}/${token}`

    // 7. The claim link, to a bound recipient.
    const mail: MailOutcome = snapshot.recipient === null
      ? { status: "not-needed", transport: null, error: null }
      : yield* mailOutcome(
        mailer,
        claimLinkMessage({
          to: snapshot.recipient,
          claimUrl,
          controllerName: snapshot.controller?.name ?? null,
          datasets: snapshot.datasets.length,
          personalItems: snapshot.datasets.reduce(
            (n, d) => n + d.classes.personal + d.classes.special + d.classes.criminal,
            0
          )
        })
      )

    const receipt: IngestReceipt = {
      claimId: claim.id,
      claimUrl,
      state: "live",
      recipient: claim.recipient,
      unbound: claim.unbound,
      bytes: body.length,
      sha256,
      receivedAt: at,
      supersedes,
      mail
    }
    return HttpServerResponse.unsafeJson(receipt, { status: 201 })
  })

/** The one raw handler of the upload route. */
export const ingestHandler = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    // 1. The ingest token.
    const refused = yield* ingestTokenRefusal(request, "catalog invite")
    if (refused !== null) return refused
    // 2. The per-address hourly limit; then the rest, its count given back unless the upload is stored.
    return yield* withUploadCount(request, "catalog invite", (committed) => afterCounting(request, committed))
  })
