/**
 * DORA fills for a paired machine (issue 12 part 2):
 *
 *   GET /api/portal/v1/sync/dora  → DoraFills: the DORA cells filled on the claim page of the claim the
 *                                   sync token names (`x-catalog-sync-token`), each with who filled it and when
 *
 * Authorised like every sync route (Sync.ts `pairedClaim`: the ingest token when the operator set one —
 * 401 INGEST_UNAUTHORIZED —, then the sync token — 401 SYNC_UNAUTHORIZED —, then the claim live — 409
 * CLAIM_NOT_SYNCABLE). `catalog dora pull` applies the fills to the machine's local register under the
 * conflict rule of docs/dora.md.
 */
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import type { DoraFills } from "../../domain/Sync.js"
import { DoraFillStore } from "../../services/portal/DoraFillStore.js"
import { pairedClaim } from "./Sync.js"

/** GET /api/portal/v1/sync/dora */
export const doraSyncHandler = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const paired = yield* pairedClaim(request, "catalog push")
    if (Either.isLeft(paired)) return paired.left
    const claimId = paired.right.claim.id
    const fills = yield* (yield* DoraFillStore).list(claimId)
    const body: DoraFills = { claimId, fills }
    return HttpServerResponse.unsafeJson(body)
  })
