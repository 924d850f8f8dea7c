/**
 * The portal's JSON interface, declared once as an `HttpApi` under /api/portal/v1: the handlers and
 * the OpenAPI document (/api/portal/v1/openapi.json) are derived from it. Every error body is the
 * registry's envelope `{ error: { code, message, fix?, param? } }`; each registry class carries its status.
 *
 * The upload route is served raw (Ingest.ts): its body is read as a stream under the 5,000,000-byte
 * cap, never decoded by the router (which would buffer it first). Its payload is declared here for
 * the document only.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import {
  ClaimState,
  healthPath,
  IngestReceipt,
  ingestTokenScheme,
  portalApiPrefix,
  PortalHealth,
  recordKeyHeader
} from "../../domain/Portal.js"
import { Snapshot, uploadCapBytes } from "../../domain/Snapshot.js"
import {
  DoraFills,
  RevokedLicences,
  SealBundle,
  SealRequest,
  SyncReceipt,
  SyncStatus,
  syncTokenHeader
} from "../../domain/Sync.js"
import {
  ClaimNotFound,
  ClaimNotSyncable,
  ControllerRequired,
  IngestRateLimited,
  IngestUnauthorized,
  InvalidParam,
  LicenceExpired,
  LicenceInvalid,
  LicenceMissing,
  LicenceRevoked,
  LicenceTenantMismatch,
  OpenLegalCalls,
  PortalNotInstalled,
  SchemaMigrationRequired,
  SealPullFailed,
  SignerNameRequired,
  SnapshotTooLarge,
  SyncUnauthorized,
  TermsNotAccepted
} from "../../errors/index.js"
import { version } from "../../version.js"

/** 500: an unexpected failure (a bug), still in the error envelope; not a registry code. */
export const InternalErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literal("INTERNAL_ERROR"),
    message: Schema.String,
    fix: Schema.optional(Schema.String)
  })
}).annotations(
  HttpApiSchema.annotations({ identifier: "InternalError", status: 500, description: "an unexpected failure (a bug)" })
)

/** GET claims/:token: what anyone holding the link may learn without proving anything. */
export const ClaimInfo = Schema.Struct({
  claimId: Schema.String,
  state: ClaimState,
  /** The claim that replaced this one (superseded), else null. */
  successorId: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ClaimInfo" })
export type ClaimInfo = typeof ClaimInfo.Type

const OpenApiDocument = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "OpenApiDocument",
  description: "an OpenAPI 3.1 document"
})

const portal = HttpApiGroup.make("portal")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(PortalHealth.annotations({ identifier: "PortalHealth" }))
      .annotate(OpenApi.Summary, "whether the portal is up, its storage, and what an upload must carry")
  )
  .add(
    HttpApiEndpoint.get("signingKey", "/signing-key")
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-pem-file" }))
      .annotate(OpenApi.Summary, "the public half of the portal's Ed25519 signing key (SubjectPublicKeyInfo, PEM)")
  )
  .add(
    HttpApiEndpoint.post("ingest", "/snapshots")
      .setPayload(Snapshot.annotations({ identifier: "Snapshot" }))
      .addSuccess(IngestReceipt.annotations({ identifier: "IngestReceipt" }), { status: 201 })
      .addError(InvalidParam)
      .addError(IngestUnauthorized)
      .addError(SnapshotTooLarge)
      .addError(IngestRateLimited)
      .annotate(OpenApi.Summary, "upload an invite snapshot; answers the claim link")
      .annotate(
        OpenApi.Description,
        `The body is exactly the snapshot's bytes (application/json, at most ${uploadCapBytes} bytes). ` +
          `Headers: \`${recordKeyHeader}\` (the machine's record key, 43 characters base64url; required: a second ` +
          `upload with the same key supersedes the first claim) and, when the operator set CATALOG_INGEST_TOKEN, ` +
          `\`Authorization: ${ingestTokenScheme} <token>\`. Checked in this order: the token (401 INGEST_UNAUTHORIZED), ` +
          `the per-address hourly limit (429 INGEST_RATE_LIMITED with Retry-After), the size while reading ` +
          `(413 SNAPSHOT_TOO_LARGE; the connection is closed), the snapshot (400 INVALID_PARAM, param "snapshot"), ` +
          `the record key (400 INVALID_PARAM, param "${recordKeyHeader}"). Stored whole or not at all.`
      )
  )
  .add(
    HttpApiEndpoint.get("claim", "/claims/:token")
      .setPath(Schema.Struct({ token: Schema.String.annotations({ description: "the claim token (clm_…)" }) }))
      .addSuccess(ClaimInfo)
      .addError(ClaimNotFound)
      .annotate(OpenApi.Summary, "a claim's public state: live, or superseded with its successor")
  )
  // ── sync (issue 12, pairing): served raw (Sync.ts), declared here for the document ──
  .add(
    HttpApiEndpoint.get("syncStatus", "/sync")
      .addSuccess(SyncStatus.annotations({ identifier: "SyncStatus" }))
      .addError(IngestUnauthorized)
      .addError(SyncUnauthorized)
      .addError(ClaimNotSyncable)
      .annotate(OpenApi.Summary, "the claim a paired machine's sync token names (doctor, push)")
      .annotate(
        OpenApi.Description,
        `Headers: \`${syncTokenHeader}: sync_…\` (created on the claim page under 'Connect a machine') and, when the ` +
          `operator set CATALOG_INGEST_TOKEN, \`Authorization: ${ingestTokenScheme} <token>\`. Checked in this order: ` +
          `the ingest token (401 INGEST_UNAUTHORIZED), the sync token — missing, unknown and revoked answer alike ` +
          `(401 SYNC_UNAUTHORIZED) —, the claim (409 CLAIM_NOT_SYNCABLE when superseded or removed).`
      )
  )
  .add(
    HttpApiEndpoint.post("syncSnapshots", "/sync/snapshots")
      .setPayload(Snapshot.annotations({ identifier: "Snapshot" }))
      .addSuccess(SyncReceipt.annotations({ identifier: "SyncReceipt" }), { status: 201 })
      .addError(InvalidParam)
      .addError(IngestUnauthorized)
      .addError(SyncUnauthorized)
      .addError(ClaimNotSyncable)
      .addError(IngestRateLimited)
      .addError(SnapshotTooLarge)
      .annotate(OpenApi.Summary, "a paired machine's refreshed snapshot: the claim's newest draft")
      .annotate(
        OpenApi.Description,
        `The body is exactly the snapshot's bytes (at most ${uploadCapBytes} bytes), as for POST /snapshots. ` +
          `Headers as GET /sync. Checked in this order: the ingest token (401 INGEST_UNAUTHORIZED), the sync token ` +
          `(401 SYNC_UNAUTHORIZED), the claim (409 CLAIM_NOT_SYNCABLE), the per-address hourly limit shared with ` +
          `uploads (429 INGEST_RATE_LIMITED), the size while reading (413 SNAPSHOT_TOO_LARGE), the snapshot ` +
          `(400 INVALID_PARAM, param "snapshot"). Stored as the claim's newest snapshot.`
      )
  )
  // ── seal (issue 12): a paired machine's sync token; docs/seal.md ──
  .add(
    HttpApiEndpoint.get("sealPull", "/sync/seal")
      .setHeaders(Schema.Struct({ [syncTokenHeader]: Schema.optional(Schema.String) }))
      .addSuccess(SealBundle.annotations({ identifier: "SealBundle" }))
      .addError(SyncUnauthorized)
      .addError(SealPullFailed, { status: 404 })
      .annotate(
        OpenApi.Summary,
        "the paired claim's newest seal: its signed artifacts (404 SEAL_PULL_FAILED: none yet)"
      )
  )
  .add(
    HttpApiEndpoint.post("seal", "/sync/seal")
      .setHeaders(Schema.Struct({ [syncTokenHeader]: Schema.optional(Schema.String) }))
      .setPayload(SealRequest.annotations({ identifier: "SealRequest" }))
      .addSuccess(SealBundle.annotations({ identifier: "SealBundle" }), { status: 201 })
      .addError(SyncUnauthorized)
      .addError(LicenceMissing)
      .addError(LicenceInvalid)
      .addError(LicenceTenantMismatch)
      .addError(LicenceExpired)
      .addError(LicenceRevoked)
      .addError(TermsNotAccepted)
      .addError(ControllerRequired)
      .addError(SignerNameRequired)
      .addError(OpenLegalCalls)
      .addError(PortalNotInstalled)
      .annotate(OpenApi.Summary, "seal the paired claim's newest draft (`catalog verify`, a human at a terminal)")
      .annotate(
        OpenApi.Description,
        "Checked in this order, as on the claim page: the sync token (401 SYNC_UNAUTHORIZED), the licence key " +
          "(LICENCE_MISSING, LICENCE_INVALID, LICENCE_TENANT_MISMATCH, LICENCE_EXPIRED, LICENCE_REVOKED), the " +
          "snapshot reviewed is the claim's newest (400 INVALID_PARAM snapshotSha256), TERMS_NOT_ACCEPTED (when the " +
          "portal sets CATALOG_TOS_VERSION), CONTROLLER_REQUIRED, SIGNER_NAME_REQUIRED, OPEN_LEGAL_CALLS (unless " +
          "acknowledgeOpenCalls: then recorded). Each artifact carries a detached Ed25519 signature by the portal's key."
      )
  )
  .add(
    HttpApiEndpoint.get("revokedLicences", "/licences/revoked")
      .addSuccess(RevokedLicences.annotations({ identifier: "RevokedLicences" }))
      .annotate(
        OpenApi.Summary,
        "the ids of every licence the operator revoked (public; machines check their key against it)"
      )
  )
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(OpenApiDocument)
      .annotate(OpenApi.Summary, "OpenAPI description of this API")
  )

/** DORA fills for a paired machine (issue 12 part 2; served raw by DoraFills.ts, declared here for the document). */
const doraSync = HttpApiGroup.make("doraSync")
  .add(
    HttpApiEndpoint.get("syncDora", "/sync/dora")
      .addSuccess(DoraFills.annotations({ identifier: "DoraFills" }))
      .addError(IngestUnauthorized)
      .addError(SyncUnauthorized)
      .addError(ClaimNotSyncable)
      .annotate(OpenApi.Summary, "the DORA cells filled on the claim page of the paired claim")
      .annotate(
        OpenApi.Description,
        `Header \`${syncTokenHeader}: sync_…\` (and the operator's ingest token when set, as for every sync route). ` +
          "Each fill: table code, row key, field (column code), value as the register stores it, who filled it and when; " +
          "one current value per cell. `catalog dora pull` applies them to the machine's register (docs/dora.md)."
      )
  )

/** `HttpApi.make` declares its own decode error on every route; the portal answers INVALID_PARAM instead. */
const dropDecodeError = (spec: Record<string, unknown>): Record<string, unknown> => {
  const out = structuredClone(spec) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    components: { schemas: Record<string, unknown> }
  }
  for (const item of Object.values(out.paths)) {
    for (const op of Object.values(item)) {
      op.responses["400"] = {
        description: "INVALID_PARAM: a parameter, header or the body is missing or malformed; `error.param` names it",
        content: { "application/json": { schema: { $ref: "#/components/schemas/InvalidParamError" } } }
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete out.components.schemas[name]
  return out
}

export class PortalApi extends HttpApi.make("portal")
  .add(portal)
  .add(doraSync)
  .addError(InvalidParam)
  .addError(SchemaMigrationRequired)
  .addError(InternalErrorBody)
  .prefix(portalApiPrefix)
  .annotate(OpenApi.Title, "local-data-catalog portal API")
  .annotate(OpenApi.Version, version)
  .annotate(OpenApi.Transform, dropDecodeError)
  .annotate(
    OpenApi.Description,
    `The portal served by \`catalog admin serve\`: machines upload invite snapshots (POST ${portalApiPrefix}/snapshots), ` +
      `recipients open the claim link (/claim/<token>, HTML). Health at ${healthPath}. Every error body is ` +
      "`{ \"error\": { \"code\", \"message\", \"fix\"?, \"param\"? } }` (docs/portal.md)."
  )
{}
