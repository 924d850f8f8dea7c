/**
 * The machine's seal routes (a paired machine's sync token, see Seal.ts for the seal itself). The pairing is
 * checked as on every sync route (Sync.ts `pairedClaim`: INGEST_UNAUTHORIZED, SYNC_UNAUTHORIZED,
 * CLAIM_NOT_SYNCABLE — its answer ends the request as it is):
 *   GET  /api/portal/v1/sync/seal   the claim's newest seal as a SealBundle; 404 SEAL_PULL_FAILED when the
 *                                   claim has none yet (nothing to pull is a failed pull, said as such)
 *   POST /api/portal/v1/sync/seal   SealRequest → 201 SealBundle, after the same checks as the claim page
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect, Either } from "effect"
import type { SealRequest } from "../../domain/Sync.js"
import { SealPullFailed } from "../../errors/index.js"
import { LicenceStore } from "../../services/portal/LicenceStore.js"
import { latestBundle, type PortalLicences, sealClaim } from "./Seal.js"
import { pairedClaim } from "./Sync.js"

/** The portal's licences as the seal reads them (the licence store). */
export const portalLicences = Effect.map(LicenceStore, (store): PortalLicences => ({
  byClaim: store.byClaim,
  revokedIds: store.revokedIds
}))

/** GET sync/seal */
export const pullSeal = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const paired = yield* pairedClaim(request, "catalog seal pull")
    if (Either.isLeft(paired)) return paired.left
    const { claim } = paired.right
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
export const postSeal = (http: HttpServerRequest.HttpServerRequest, request: SealRequest) =>
  Effect.gen(function*() {
    const paired = yield* pairedClaim(http, "catalog verify")
    if (Either.isLeft(paired)) return paired.left
    const { claim } = paired.right
    return yield* sealClaim(claim, {
      via: "verify",
      licenceKey: request.licence,
      acceptedTerms: request.acceptedTerms,
      signer: request.signer,
      acknowledgeOpenCalls: request.acknowledgeOpenCalls,
      snapshotSha256: request.snapshotSha256
    }, yield* portalLicences)
  })
