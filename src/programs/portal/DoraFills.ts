/**
 * DORA fills for a paired machine (issue 12 part 2):
 *
 *   GET /api/portal/v1/sync/dora  → DoraFills: the DORA cells filled on the claim page of the claim the
 *                                   sync token names (`x-catalog-sync-token`), each with who filled it and when
 *
 * Authorised like every sync route (the ingest token when the operator set one, then the sync token, then
 * the claim live); `catalog dora pull` (and `push`) apply the fills to the machine's local register under
 * the conflict rule of docs/dora.md.
 */
import { type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import type { DoraFills } from "../../domain/Sync.js"
import { ClaimNotSyncable, SyncUnauthorized } from "../../errors/index.js"
import type { CatalogErrorShape } from "../../errors/index.js"
import { DoraFillStore } from "../../services/portal/DoraFillStore.js"

const errorResponse = (e: CatalogErrorShape) =>
  HttpServerResponse.unsafeJson(e.body, { status: e.spec.status, headers: { connection: "close" } })

// ── STUB: sync-token authorisation, until branch `sync` (SyncTokenStore) is merged ───────────────────
/**
 * The claim a request's sync token names. STUB: refuses every request with SYNC_UNAUTHORIZED until the
 * "sync" helper's token store lands; then this is replaced by their check (ingest token, sync token, live claim).
 */
export const authorisedClaim = (
  _request: HttpServerRequest.HttpServerRequest
): Effect.Effect<string, SyncUnauthorized | ClaimNotSyncable> =>
  Effect.fail(
    new SyncUnauthorized({
      message: "The sync token is missing, unknown or revoked.",
      fix: "On the claim page, under 'Connect a machine', create a token and set CATALOG_SYNC_TOKEN to it."
    })
  )
void ClaimNotSyncable
// ── end of STUB ─────────────────────────────────────────────────────────────────────────────────────

/** GET /api/portal/v1/sync/dora */
export const doraSyncHandler = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const claimId = yield* authorisedClaim(request)
    const fills = yield* (yield* DoraFillStore).list(claimId)
    const body: DoraFills = { claimId, fills }
    return HttpServerResponse.unsafeJson(body)
  }).pipe(
    Effect.catchTags({
      SyncUnauthorized: errorResponse,
      ClaimNotSyncable: errorResponse
    })
  )
