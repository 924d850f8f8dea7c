/**
 * The machine's side of the portal's wire contract (src/domain/Portal.ts): uploading a snapshot. The
 * implementation on HTTP is `layers/PortalClient.ts`; services and programs see only this interface.
 *
 * Every failure is a registry error: the portal's own error envelope becomes the error of its code
 * (INGEST_UNAUTHORIZED, INGEST_RATE_LIMITED, SNAPSHOT_TOO_LARGE, …); anything that is not the portal
 * answering (refused, DNS, timeout, an HTML page, a 5xx without an envelope) is PORTAL_UNREACHABLE
 * naming the address and what came back.
 */
import { Context, type Effect } from "effect"
import type { IngestReceipt } from "../domain/Portal.js"
import type { DoraFills } from "../domain/Sync.js"
import type { CatalogErrorShape, ClaimNotSyncable, DoraPullFailed, SyncUnauthorized } from "../errors/index.js"

export interface UploadRequest {
  /** The portal's base address (CATALOG_PORTAL_URL, already checked to be an http(s) URL). */
  readonly portalUrl: string
  /** Exactly the snapshot bytes (`JSON.stringify(snapshot)`), sent as they are. */
  readonly body: string
  /** The machine's record key (never printed, never in the snapshot). */
  readonly recordKey: string
  /** CATALOG_INGEST_TOKEN, when set. */
  readonly ingestToken: string | null
  /** How long to wait for the whole exchange (default 30 s). */
  readonly timeoutMs?: number
}

/** The default time an upload may take before it is PORTAL_UNREACHABLE. */
export const uploadTimeoutMs = 30_000

/** GET sync/dora: the paired claim's DORA fills (issue 12 part 2). */
export interface DoraFillsRequest {
  /** CATALOG_PORTAL_URL, already checked to be an http(s) URL. */
  readonly portalUrl: string
  /** CATALOG_SYNC_TOKEN (`sync_…`; never printed). */
  readonly syncToken: string
  /** CATALOG_INGEST_TOKEN, when set. */
  readonly ingestToken: string | null
  readonly timeoutMs?: number
}

export class PortalClient extends Context.Tag("catalog/PortalClient")<PortalClient, {
  readonly upload: (request: UploadRequest) => Effect.Effect<IngestReceipt, CatalogErrorShape>
  /**
   * GET sync/dora: SYNC_UNAUTHORIZED and CLAIM_NOT_SYNCABLE as the portal says them; anything else (the
   * network, another code, an answer that is not the portal's or is over the read cap) is DORA_PULL_FAILED.
   */
  readonly doraFills: (
    request: DoraFillsRequest
  ) => Effect.Effect<DoraFills, SyncUnauthorized | ClaimNotSyncable | DoraPullFailed>
}>() {}
