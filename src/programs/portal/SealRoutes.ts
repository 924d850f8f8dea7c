/**
 * The machine's seal routes (a paired machine's sync token, see Seal.ts for the seal itself):
 *   GET  /api/portal/v1/sync/seal   the claim's newest seal as a SealBundle; 404 SEAL_PULL_FAILED when the
 *                                   claim has none yet (nothing to pull is a failed pull, said as such)
 *   POST /api/portal/v1/sync/seal   SealRequest → 201 SealBundle, after the same checks as the claim page
 */
import { Effect } from "effect"
import type { SealRequest } from "../../domain/Sync.js"
import { SealPullFailed, SyncUnauthorized } from "../../errors/index.js"
import { LicenceStore } from "../../services/portal/LicenceStore.js"
import type { ClaimRecord } from "../../services/PortalStore.js"
import { latestBundle, type PortalLicences, sealClaim } from "./Seal.js"

/** The portal's licences as the seal reads them (the licence store). */
export const portalLicences = Effect.map(LicenceStore, (store): PortalLicences => ({
  byClaim: store.byClaim,
  revokedIds: store.revokedIds
}))

/**
 * STUB until the "sync" branch lands: the live claim a sync token names (SYNC_UNAUTHORIZED /
 * CLAIM_NOT_SYNCABLE). Refuses every token for now.
 */
export const syncClaimStub = (token: string | undefined): Effect.Effect<ClaimRecord, SyncUnauthorized> =>
  Effect.fail(
    new SyncUnauthorized({
      message: token === undefined
        ? "No sync token was sent (x-catalog-sync-token)."
        : "The sync token is not accepted by this portal.",
      fix: "Generate a token under 'Connect a machine' on the claim page and set CATALOG_SYNC_TOKEN."
    })
  )

/** GET sync/seal */
export const pullSeal = (token: string | undefined) =>
  Effect.gen(function*() {
    const claim = yield* syncClaimStub(token)
    const latest = yield* latestBundle(claim.id)
    if (latest === null) {
      return yield* new SealPullFailed({
        message: `The record ${claim.id} has not been sealed yet: there is nothing to pull.`,
        fix: "Seal it on the claim page (Seal the record) or with `catalog verify`, then pull again."
      })
    }
    return latest.bundle
  })

/** POST sync/seal */
export const postSeal = (token: string | undefined, request: SealRequest) =>
  Effect.gen(function*() {
    const claim = yield* syncClaimStub(token)
    return yield* sealClaim(claim, {
      via: "verify",
      licenceKey: request.licence,
      acceptedTerms: request.acceptedTerms,
      signer: request.signer,
      acknowledgeOpenCalls: request.acknowledgeOpenCalls,
      snapshotSha256: request.snapshotSha256
    }, yield* portalLicences)
  })
