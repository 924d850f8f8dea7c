/**
 * The wire contract of a paired machine and the official record (issue 12): sync tokens, the machine's
 * sync API, DORA fills pulled from the portal, licence keys, seals and their signed artifacts. The portal
 * declares these routes in its HttpApi (OpenAPI at /api/portal/v1/openapi.json); the machine decodes every
 * answer with the same Schemas.
 *
 * Credentials, never confusable: claim token `clm_…` (the link), sync token `sync_…` (a paired machine),
 * licence key `lic_…` (the unlock e-mail). Claim tokens and sync tokens are ≥ 256 random bits stored only
 * as SHA-256; a licence key is a payload signed with the portal's Ed25519 key, checked offline.
 */
import { Schema } from "effect"
import { portalApiPrefix } from "./Portal.js"

export const syncTokenPrefix = "sync_" as const
export const syncTokenIdPrefix = "st_" as const
export const licenceKeyPrefix = "lic_" as const
export const licenceIdPrefix = "li_" as const
export const sealIdPrefix = "seal_" as const

/**
 * The portal's public key as this machine first saw it (`.catalog/portal-signing-key.pem`), pinned at the
 * first successful contact (push, doctor, verify): licences and sealed artifacts are verified against it
 * offline; a portal answering with another key is refused.
 */
export const portalKeyFileName = "portal-signing-key.pem" as const
/** Sealed artifacts pulled from the portal: `.catalog/sealed/<sealId>/` (each artifact and `<name>.sig`). */
export const sealedDirName = "sealed" as const

/** The sync token travels in this header (Authorization stays the operator's ingest token, as for invite). */
export const syncTokenHeader = "x-catalog-sync-token" as const

/** GET: the paired claim as the portal sees it (doctor, push, verify). */
export const syncPath = `${portalApiPrefix}/sync` as const
/** POST: a refreshed snapshot for the paired claim (body: exactly the snapshot bytes, the 5 MB cap). */
export const syncSnapshotsPath = `${portalApiPrefix}/sync/snapshots` as const
/** GET: the DORA cells filled on the claim page. */
export const syncDoraPath = `${portalApiPrefix}/sync/dora` as const
/** POST: seal (from the verify command: licence, signer, acceptances); GET: the sealed artifacts. */
export const syncSealPath = `${portalApiPrefix}/sync/seal` as const
/** GET: the licence ids the operator revoked (public; the machine checks its licence against it). */
export const revokedLicencesPath = `${portalApiPrefix}/licences/revoked` as const

/** A sync token as the claim page lists it (never the token itself after it was shown once). */
export const SyncTokenInfo = Schema.Struct({
  id: Schema.String,
  label: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String)
})
export type SyncTokenInfo = typeof SyncTokenInfo.Type

/** The licence as the record knows it: no key material. */
export const LicenceInfo = Schema.Struct({
  id: Schema.String,
  claimId: Schema.String,
  issuedAt: Schema.String,
  expiresAt: Schema.String,
  state: Schema.Literal("active", "expired", "revoked")
})
export type LicenceInfo = typeof LicenceInfo.Type

/** The payload a licence key carries (signed): `lic_<base64url(JSON payload)>.<base64url(Ed25519 signature of those JSON bytes)>`. */
export const LicencePayload = Schema.Struct({
  v: Schema.Literal(1),
  id: Schema.String,
  claimId: Schema.String,
  issuedAt: Schema.String,
  expiresAt: Schema.String
})
export type LicencePayload = typeof LicencePayload.Type

/** GET licences/revoked: the ids of every revoked licence, and when the portal answered. */
export const RevokedLicences = Schema.Struct({
  revoked: Schema.Array(Schema.String),
  at: Schema.String
})
export type RevokedLicences = typeof RevokedLicences.Type

export const Signer = Schema.Struct({
  name: Schema.String,
  role: Schema.String,
  email: Schema.NullOr(Schema.String)
})
export type Signer = typeof Signer.Type

/** One open legal call acknowledged at sealing (sealed with it still open). */
export const AcknowledgedCall = Schema.Struct({
  activity: Schema.String,
  field: Schema.String,
  status: Schema.String
})

/** The record's seal as every read surface shows it. */
export const SealState = Schema.Struct({
  state: Schema.Literal("draft", "sealed"),
  /** The last seal, also when the record is back to a draft (licence expired): what was signed stays valid. */
  last: Schema.NullOr(Schema.Struct({
    id: Schema.String,
    sealedAt: Schema.String,
    signer: Signer,
    termsVersion: Schema.NullOr(Schema.String),
    acknowledgedOpenCalls: Schema.Array(AcknowledgedCall),
    licence: LicenceInfo
  })),
  /** Why the record is a draft again (e.g. LICENCE_EXPIRED), or null. */
  reason: Schema.NullOr(Schema.String)
})
export type SealState = typeof SealState.Type

/** GET sync: the paired claim. */
export const SyncStatus = Schema.Struct({
  claimId: Schema.String,
  state: Schema.Literal("live"),
  tokenId: Schema.String,
  lastUploadAt: Schema.NullOr(Schema.String),
  doraFills: Schema.Number,
  seal: SealState,
  termsVersion: Schema.NullOr(Schema.String)
})
export type SyncStatus = typeof SyncStatus.Type

/** POST sync/snapshots: accepted. */
export const SyncReceipt = Schema.Struct({
  claimId: Schema.String,
  bytes: Schema.Number,
  sha256: Schema.String,
  receivedAt: Schema.String
})
export type SyncReceipt = typeof SyncReceipt.Type

/** One DORA cell filled on the claim page. */
export const DoraFill = Schema.Struct({
  table: Schema.String,
  rowKey: Schema.String,
  field: Schema.String,
  value: Schema.String,
  by: Schema.String,
  at: Schema.String
})
export type DoraFill = typeof DoraFill.Type
export const DoraFills = Schema.Struct({ claimId: Schema.String, fills: Schema.Array(DoraFill) })
export type DoraFills = typeof DoraFills.Type

/** POST sync/seal: what the verify command sends after its checks (the portal checks again). */
export const SealRequest = Schema.Struct({
  licence: Schema.String,
  signer: Signer,
  /** The agreement version the human accepted (required when the portal sets CATALOG_TOS_VERSION). */
  acceptedTerms: Schema.NullOr(Schema.String),
  /** `--seal-with-open-calls`: seal over open legal calls, recording them. */
  acknowledgeOpenCalls: Schema.Boolean,
  /** The snapshot the human saw and seals (must be the claim's newest). */
  snapshotSha256: Schema.String
})
export type SealRequest = typeof SealRequest.Type

/** One signed artifact: its bytes (base64) and the detached Ed25519 signature of those bytes (base64). */
export const SealedArtifact = Schema.Struct({
  name: Schema.String,
  mediaType: Schema.String,
  sha256: Schema.String,
  content: Schema.String,
  signature: Schema.String
})
export type SealedArtifact = typeof SealedArtifact.Type

/** GET sync/seal (and the answer to POST): the sealed artifacts, `manifest.json` among them. */
export const SealBundle = Schema.Struct({
  sealId: Schema.String,
  claimId: Schema.String,
  sealedAt: Schema.String,
  artifacts: Schema.Array(SealedArtifact)
})
export type SealBundle = typeof SealBundle.Type

/** manifest.json, signed like every artifact: what was sealed, by whom, under which terms. */
export const SealManifest = Schema.Struct({
  format: Schema.Literal("local-data-catalog/seal"),
  version: Schema.Literal(1),
  sealId: Schema.String,
  claimId: Schema.String,
  sealedAt: Schema.String,
  signer: Signer,
  termsVersion: Schema.NullOr(Schema.String),
  acknowledgedOpenCalls: Schema.Array(AcknowledgedCall),
  licenceId: Schema.String,
  snapshotSha256: Schema.String,
  /** Every other artifact: name, bytes, SHA-256. */
  artifacts: Schema.Array(Schema.Struct({ name: Schema.String, bytes: Schema.Number, sha256: Schema.String }))
})
export type SealManifest = typeof SealManifest.Type
