/**
 * A paired machine's sync (issue 12, pairing): the refreshed draft — exactly the snapshot `invite` builds,
 * with no recipient — uploaded to the claim the sync token names, on `catalog push` and after each scan of
 * `start` and `watch`. Catalog-only always wins: nothing leaves.
 *
 * Pairing comes from the environment: CATALOG_PORTAL_URL (the portal) and CATALOG_SYNC_TOKEN (`sync_…`,
 * created on the claim page under 'Connect a machine'); CATALOG_INGEST_TOKEN is sent too when set.
 *
 * A push, in order: the token's format (never a licence key or a claim token pasted by mistake), the size
 * (SNAPSHOT_TOO_LARGE before anything is sent), the portal's signing key against the pinned one (PortalKey),
 * the pairing (GET sync: SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE before 5 MB travel), the upload; then the key
 * is pinned if it was not, and the change-log records the pairing (the first time this catalog sees the
 * token) and the push, with who (AppEnv.actor).
 */
import { DateTime, Effect } from "effect"
import { claimTokenPrefix } from "../domain/Portal.js"
import { licenceKeyPrefix, syncTokenPrefix } from "../domain/Sync.js"
import { type CatalogErrorShape, SyncMisconfigured, SyncUnauthorized } from "../errors/index.js"
import { actor, AppEnv } from "./AppEnv.js"
import { ChangeLog } from "./ChangeLog.js"
import { checkSize, Invite } from "./Invite.js"
import { portalAddress, PortalClient, type SyncRequest } from "./PortalClient.js"
import { PortalKey } from "./PortalKey.js"
import type { UploadOutcome } from "./Scanner.js"

/** Change-log kinds of pairing (entity: the token id, resp. the claim id). */
export const pairedKind = "sync.paired"
export const pushedKind = "sync.pushed"

export type Pairing =
  | { readonly kind: "unpaired" }
  | { readonly kind: "paired"; readonly request: SyncRequest }

const howToPair =
  "On the claim page, open 'Connect a machine', create a sync token, and set CATALOG_PORTAL_URL and CATALOG_SYNC_TOKEN to the two lines it shows (e.g. in .env)."

const set = (v: string | undefined): string | null => {
  const t = v?.trim() ?? ""
  return t === "" ? null : t
}

/** What a value in CATALOG_SYNC_TOKEN looks like when it is not a sync token (never the value itself). */
const lookalike = (token: string): string =>
  token.startsWith(licenceKeyPrefix)
    ? "a licence key (lic_…; it belongs in CATALOG_LICENCE_KEY)"
    : token.startsWith(claimTokenPrefix)
    ? "a claim token (clm_…, the end of a claim link), which pairs nothing"
    : `not a sync token (sync tokens start with ${syncTokenPrefix})`

/**
 * The pairing the environment describes: unpaired (neither variable), paired, or the refusal —
 * SYNC_MISCONFIGURED (one of the two missing, or the address unusable), SYNC_UNAUTHORIZED (the token is
 * something else: a licence key, a claim token).
 */
export const resolvePairing = (
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<Pairing, SyncMisconfigured | SyncUnauthorized> => {
  const rawUrl = set(env["CATALOG_PORTAL_URL"])
  const token = set(env["CATALOG_SYNC_TOKEN"])
  if (rawUrl === null && token === null) return Effect.succeed({ kind: "unpaired" })
  if (token === null) {
    return Effect.fail(
      new SyncMisconfigured({
        message: "CATALOG_PORTAL_URL is set but CATALOG_SYNC_TOKEN is not: this machine is not paired with a claim.",
        fix: howToPair,
        param: "CATALOG_SYNC_TOKEN"
      })
    )
  }
  if (rawUrl === null) {
    return Effect.fail(
      new SyncMisconfigured({
        message: "CATALOG_SYNC_TOKEN is set but CATALOG_PORTAL_URL is not: there is no portal to sync with.",
        fix: "Set CATALOG_PORTAL_URL to the portal's address (the first of the two lines 'Connect a machine' showed).",
        param: "CATALOG_PORTAL_URL"
      })
    )
  }
  const address = portalAddress(rawUrl)
  if (address.url === null) {
    return Effect.fail(
      new SyncMisconfigured({
        message: address.problem ?? "CATALOG_PORTAL_URL is not an http(s) address.",
        fix: "Set CATALOG_PORTAL_URL to the portal's address, e.g. https://portal.example.com.",
        param: "CATALOG_PORTAL_URL"
      })
    )
  }
  if (!token.startsWith(syncTokenPrefix)) {
    return Effect.fail(
      new SyncUnauthorized({
        message: `CATALOG_SYNC_TOKEN holds ${lookalike(token)}. Nothing was sent.`,
        fix: howToPair,
        param: "CATALOG_SYNC_TOKEN"
      })
    )
  }
  return Effect.succeed({
    kind: "paired",
    request: { portalUrl: address.url, syncToken: token, ingestToken: set(env["CATALOG_INGEST_TOKEN"]) }
  })
}

/** SYNC_MISCONFIGURED for `push` on a machine that is not paired at all. */
export const notPaired = () =>
  new SyncMisconfigured({
    message:
      "This machine is not paired with a portal: neither CATALOG_PORTAL_URL nor CATALOG_SYNC_TOKEN is set. Nothing was sent.",
    fix: howToPair
  })

export interface PushResult {
  readonly claimId: string
  readonly tokenId: string
  readonly portal: string
  readonly bytes: number
  readonly sha256: string
  readonly receivedAt: string
  /** This push paired the catalog with the token (its first successful sync with it). */
  readonly firstPairing: boolean
  /** The portal's signing key was pinned by this push (the first contact). */
  readonly keyPinned: boolean
}

export class Sync extends Effect.Service<Sync>()("catalog/Sync", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv
    const invite = yield* Invite
    const client = yield* PortalClient
    const key = yield* PortalKey
    const changeLog = yield* ChangeLog

    /** Uploads the refreshed draft of this catalog to the paired claim (the caller checked catalog-only and the map). */
    const push = (request: SyncRequest) =>
      Effect.gen(function*() {
        const built = yield* invite.build({ recipient: null, unbound: false })
        yield* checkSize(built.bytes)
        const pem = yield* client.signingKey(request.portalUrl)
        const pinState = yield* key.check(pem, request.portalUrl)
        const status = yield* client.syncStatus(request)
        const receipt = yield* client.push({ ...request, body: built.body })
        if (pinState === "unpinned") yield* key.pin(pem)
        const at = DateTime.formatIso(yield* DateTime.now)
        const by = actor(env)
        const seen = yield* Effect.orDie(changeLog.recorded(pairedKind, status.tokenId))
        if (!seen) {
          yield* Effect.orDie(changeLog.record({
            at,
            scanId: null,
            kind: pairedKind,
            entity: status.tokenId,
            sourceId: null,
            detail: { claimId: receipt.claimId, portal: request.portalUrl },
            by
          }))
        }
        yield* Effect.orDie(changeLog.record({
          at,
          scanId: null,
          kind: pushedKind,
          entity: receipt.claimId,
          sourceId: null,
          detail: { bytes: receipt.bytes, sha256: receipt.sha256, tokenId: status.tokenId },
          by
        }))
        return {
          claimId: receipt.claimId,
          tokenId: status.tokenId,
          portal: request.portalUrl,
          bytes: receipt.bytes,
          sha256: receipt.sha256,
          receivedAt: receipt.receivedAt,
          firstPairing: !seen,
          keyPinned: pinState === "unpinned"
        } satisfies PushResult
      })

    /**
     * After a scan (`start`, `watch`): the upload when paired, as an outcome — never a failure: the scan
     * stands whatever happens here. `scanned` is the scanner's own outcome: anything but `local` (catalog-only
     * is on) is kept as it is, and nothing leaves.
     */
    const afterScan = (scanned: UploadOutcome): Effect.Effect<UploadOutcome> =>
      Effect.gen(function*() {
        if (scanned.status !== "local") return scanned
        const pairing = yield* Effect.either(resolvePairing(env.env))
        if (pairing._tag === "Left") {
          const e = pairing.left
          const error = { code: e.code, message: e.message, fix: e.fix }
          return e._tag === "SyncMisconfigured"
            ? {
              status: "skipped",
              message: `Push skipped (${e.code}): ${e.message} The local scan still stands.`,
              error
            } satisfies UploadOutcome
            : {
              status: "failed",
              message: `Upload failed (${e.code}): ${e.message} The local scan still stands.`,
              error
            } satisfies UploadOutcome
        }
        if (pairing.right.kind === "unpaired") return scanned
        const result = yield* Effect.either(push(pairing.right.request))
        if (result._tag === "Left") {
          const e: CatalogErrorShape = result.left
          return {
            status: "failed",
            message: `Upload failed (${e.code}): ${e.message} The local scan still stands.`,
            error: { code: e.code, message: e.message, fix: e.fix }
          } satisfies UploadOutcome
        }
        const r = result.right
        return {
          status: "uploaded",
          message: `Uploaded the refreshed draft to claim ${r.claimId} at ${r.portal} (${
            r.bytes.toLocaleString("en")
          } bytes).`,
          claimId: r.claimId,
          bytes: r.bytes,
          sha256: r.sha256
        } satisfies UploadOutcome
      })

    return { push, afterScan } as const
  })
}) {}
