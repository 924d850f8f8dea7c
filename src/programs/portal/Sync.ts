/**
 * A paired machine's API (issue 12, pairing): the sync token `sync_…` in `x-catalog-sync-token` names the
 * claim; `Authorization` stays the operator's ingest token, as for invite.
 *
 *   GET  /api/portal/v1/sync            → SyncStatus (doctor, push, verify)
 *   POST /api/portal/v1/sync/snapshots  → 201 SyncReceipt: the refreshed snapshot, a new snapshot row of the
 *                                         paired claim (its newest body)
 *
 * Checked in this order (both routes, the last three only on POST):
 *   1. the ingest token, when the operator set one (401 INGEST_UNAUTHORIZED, as ingest does);
 *   2. the sync token: missing, unknown or revoked → 401 SYNC_UNAUTHORIZED, one answer for all three (no
 *      oracle: a guesser learns nothing about which tokens exist);
 *   3. the claim: superseded or removed → 409 CLAIM_NOT_SYNCABLE;
 *   4. the per-address hourly limit, the ingest's count (429 INGEST_RATE_LIMITED);
 *   5. the body under the 5,000,000-byte cap while reading (413 SNAPSHOT_TOO_LARGE);
 *   6. JSON + the Snapshot Schema (400 INVALID_PARAM "snapshot").
 * A token that passes has its `last_used_at` touched.
 */
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import {
  type SealState,
  type SyncReceipt,
  type SyncStatus,
  syncTokenHeader,
  syncTokenPrefix
} from "../../domain/Sync.js"
import { ClaimNotSyncable, SyncUnauthorized } from "../../errors/index.js"
import { SyncTokenStore } from "../../services/portal/SyncTokenStore.js"
import { type ClaimRecord, PortalStore } from "../../services/PortalStore.js"
import { nowIso, PortalContext, sha256Hex } from "./Context.js"
import { errorResponse, ingestTokenRefusal, readSnapshot, type Rerun, withUploadCount } from "./Ingest.js"
import { portalSealState } from "./Seal.js"

/**
 * What the sync status reports beyond the pairing itself: the DORA cells filled on the claim page, the
 * record's seal and the agreement version. Issue 12's other parts (DORA fills, licences, seals) wire their
 * services in here; the seal is the claim's newest (Seal.ts `portalSealState`), the terms version the
 * portal's CATALOG_TOS_VERSION; until the DORA part: no fills.
 */
export const syncStatusExtras = (claim: ClaimRecord) =>
  Effect.gen(function*() {
    const seal = yield* portalSealState(claim.id)
    const { settings } = yield* PortalContext
    const extras: { readonly doraFills: number; readonly seal: SealState; readonly termsVersion: string | null } = {
      doraFills: 0,
      seal,
      termsVersion: settings.termsVersion
    }
    return extras
  })

const unauthorized = () =>
  errorResponse(
    new SyncUnauthorized({
      message: "The sync token is missing, unknown or revoked (or for a record no longer on this portal).",
      fix:
        "On the claim page, under 'Connect a machine', create a new token and set CATALOG_SYNC_TOKEN to it (and CATALOG_PORTAL_URL to this portal)."
    }),
    { connection: "close" }
  )

const notSyncable = (claim: ClaimRecord) =>
  errorResponse(
    new ClaimNotSyncable({
      message: claim.state === "superseded"
        ? `Claim ${claim.id} was superseded by a newer invite of the same record (${
          claim.successorId ?? "removed since"
        }); this machine's token pairs it with the old claim.`
        : `Claim ${claim.id} was removed from this portal.`,
      fix: claim.state === "superseded"
        ? "Open the newer claim's link, create a token under 'Connect a machine' there, and set CATALOG_SYNC_TOKEN to it."
        : "Ask the portal's operator, or re-invite with `catalog invite` and pair with the new claim."
    }),
    { connection: "close" }
  )

/**
 * Steps 1–3: the paired, live claim and the token's id, or the response that ends the request. A token
 * that passes is touched (last used now).
 */
export const pairedClaim = (request: HttpServerRequest.HttpServerRequest, rerun: Rerun) =>
  Effect.gen(function*() {
    const refused = yield* ingestTokenRefusal(request, rerun)
    if (refused !== null) return Either.left(refused)
    const presented = (request.headers[syncTokenHeader] ?? "").trim()
    const tokens = yield* SyncTokenStore
    const store = yield* PortalStore
    const match = presented.startsWith(syncTokenPrefix) && presented.length < 200
      ? yield* tokens.findByHash(sha256Hex(presented))
      : null
    if (match === null || match.revoked) return Either.left(unauthorized())
    const claim = yield* store.claimById(match.claimId)
    if (claim === null) return Either.left(unauthorized())
    if (claim.state !== "live") return Either.left(notSyncable(claim))
    yield* tokens.touch(match.tokenId, yield* nowIso)
    return Either.right({ claim, tokenId: match.tokenId })
  })

/** GET /api/portal/v1/sync */
export const syncStatusHandler = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const paired = yield* pairedClaim(request, "catalog push")
    if (Either.isLeft(paired)) return paired.left
    const { claim, tokenId } = paired.right
    const extras = yield* syncStatusExtras(claim)
    const status: SyncStatus = {
      claimId: claim.id,
      state: "live",
      tokenId,
      lastUploadAt: claim.lastUploadAt,
      doraFills: extras.doraFills,
      seal: extras.seal,
      termsVersion: extras.termsVersion
    }
    return HttpServerResponse.unsafeJson(status)
  })

/** POST /api/portal/v1/sync/snapshots */
export const syncSnapshotHandler = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const paired = yield* pairedClaim(request, "catalog push")
    if (Either.isLeft(paired)) return paired.left
    const { claim } = paired.right
    return yield* withUploadCount(request, "catalog push", (committed) =>
      Effect.gen(function*() {
        const read = yield* readSnapshot(request)
        if (Either.isLeft(read)) return read.left
        const { body } = read.right
        const sha256 = sha256Hex(body)
        const at = yield* nowIso
        const stored = yield* (yield* SyncTokenStore).appendSnapshot({
          claimId: claim.id,
          body: body.toString("utf8"),
          bytes: body.length,
          sha256,
          at
        })
        if (stored === "not-live") {
          // Superseded or removed while the body was read.
          const now = yield* (yield* PortalStore).claimById(claim.id)
          return notSyncable(now ?? { ...claim, state: "removed" })
        }
        committed.done = true
        const receipt: SyncReceipt = { claimId: claim.id, bytes: body.length, sha256, receivedAt: at }
        return HttpServerResponse.unsafeJson(receipt, { status: 201 })
      }))
  })
