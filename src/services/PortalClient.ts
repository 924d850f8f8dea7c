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
import type { IngestReceipt, PortalHealth } from "../domain/Portal.js"
import type { DoraFills, RevokedLicences, SealBundle, SealRequest, SyncReceipt, SyncStatus } from "../domain/Sync.js"
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

export interface RevokedLicencesRequest {
  /** The portal's base address (CATALOG_PORTAL_URL, already checked to be an http(s) URL). */
  readonly portalUrl: string
  /** How long to wait for the whole exchange (default 10 s). */
  readonly timeoutMs?: number
}

/** The default time the revocation list may take before it is SYNC_FAILED. */
export const revokedLicencesTimeoutMs = 10_000

/** A paired machine's call (issue 12): the portal, the sync token and, when set, the ingest token. */
export interface SyncRequest {
  /** CATALOG_PORTAL_URL, already checked to be an http(s) URL. */
  readonly portalUrl: string
  /** CATALOG_SYNC_TOKEN (`sync_…`; never printed). */
  readonly syncToken: string
  /** CATALOG_INGEST_TOKEN, when set. */
  readonly ingestToken: string | null
  readonly timeoutMs?: number
}

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

/**
 * The sync calls (`syncStatus`, `push`, `health`, `signingKey`) fail with the portal's own code when it is
 * one a paired machine acts on (SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE, SNAPSHOT_TOO_LARGE,
 * INGEST_UNAUTHORIZED, INGEST_RATE_LIMITED), and with SYNC_FAILED (retry advice) for everything else: the
 * network, a 5xx, an answer that is not the portal's.
 */
export class PortalClient extends Context.Tag("catalog/PortalClient")<PortalClient, {
  readonly upload: (request: UploadRequest) => Effect.Effect<IngestReceipt, CatalogErrorShape>
  /** GET sync: the paired claim as the portal sees it. */
  readonly syncStatus: (request: SyncRequest) => Effect.Effect<SyncStatus, CatalogErrorShape>
  /** POST sync/snapshots: exactly the snapshot bytes, as the claim's newest draft. */
  readonly push: (request: SyncRequest & { readonly body: string }) => Effect.Effect<SyncReceipt, CatalogErrorShape>
  /** GET health (no credentials). */
  readonly health: (portalUrl: string) => Effect.Effect<PortalHealth, CatalogErrorShape>
  /** GET signing-key: the portal's public key, PEM (SubjectPublicKeyInfo). */
  readonly signingKey: (portalUrl: string) => Effect.Effect<string, CatalogErrorShape>
  /**
   * GET the portal's public revocation list (licence ids). Anything but the portal answering the list
   * (network, timeout, an error envelope, another body, an answer over the read cap) is SYNC_FAILED naming
   * the address and what came back.
   */
  readonly revokedLicences: (request: RevokedLicencesRequest) => Effect.Effect<RevokedLicences, CatalogErrorShape>
  /**
   * GET sync/dora: SYNC_UNAUTHORIZED and CLAIM_NOT_SYNCABLE as the portal says them; anything else (the
   * network, another code, an answer that is not the portal's or is over the read cap) is DORA_PULL_FAILED.
   */
  readonly doraFills: (
    request: DoraFillsRequest
  ) => Effect.Effect<DoraFills, SyncUnauthorized | ClaimNotSyncable | DoraPullFailed>
  /**
   * POST sync/seal (`catalog verify`): the codes the seal route answers pass through as the portal named
   * them (SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE, INGEST_UNAUTHORIZED, LICENCE_*, TERMS_NOT_ACCEPTED,
   * CONTROLLER_REQUIRED, SIGNER_NAME_REQUIRED, OPEN_LEGAL_CALLS, INVALID_PARAM for a snapshot that is no
   * longer the newest); anything else is SYNC_FAILED. The answer is not yet verified: see services/Seals.ts.
   */
  readonly seal: (request: SyncRequest & { readonly seal: SealRequest }) => Effect.Effect<SealBundle, CatalogErrorShape>
  /**
   * GET sync/seal: the claim's newest seal. SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE, INGEST_UNAUTHORIZED and
   * SEAL_PULL_FAILED (nothing sealed yet) pass through; anything else is SEAL_PULL_FAILED.
   */
  readonly sealBundle: (request: SyncRequest) => Effect.Effect<SealBundle, CatalogErrorShape>
}>() {}

/** A value quoted for a message: JSON escapes, plus the C1 and bidi controls JSON leaves as they are. */
export const quoted = (v: string): string =>
  JSON.stringify(v).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

/**
 * The portal address from CATALOG_PORTAL_URL: unset → null; set but not a plain http(s) address (no user or
 * password, no query, no fragment) → the problem in words (never echoing a password), which the caller
 * raises as its own code (`invite`: PORTAL_UNREACHABLE; a paired machine: SYNC_MISCONFIGURED).
 */
export const portalAddress = (
  raw: string | undefined
): { readonly url: string | null; readonly problem: string | null } => {
  const v = raw?.trim() ?? ""
  if (v === "") return { url: null, problem: null }
  let u: URL
  try {
    u = new URL(v)
  } catch {
    return { url: null, problem: `CATALOG_PORTAL_URL is ${quoted(v)}, which is not an http(s) address.` }
  }
  if (u.username !== "" || u.password !== "") {
    return {
      url: null,
      problem:
        `CATALOG_PORTAL_URL carries a user name or password (${u.protocol}//…@${u.host}); the portal takes none (an ingest token goes in CATALOG_INGEST_TOKEN).`
    }
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "") {
    return { url: null, problem: `CATALOG_PORTAL_URL is ${quoted(v)}, which is not an http(s) address.` }
  }
  if (u.search !== "" || u.hash !== "") {
    return {
      url: null,
      problem: `CATALOG_PORTAL_URL has a query or fragment (${quoted(v)}); give the portal's address only.`
    }
  }
  return { url: v, problem: null }
}
