/**
 * The error registry: one tagged error class per code of SPEC.md's Errors tables. Codes are a
 * contract — never renamed, only added. `help --json` is generated from `registry` below.
 */
import { type CatalogErrorShape, defineError, type ErrorBody, type ErrorSpec } from "./define.js"

const setup = (message: string, fix: string | null, status = 400): ErrorSpec => ({
  group: "setup",
  message,
  fix,
  status,
  exitCode: 1,
  cli: true
})
const sources = (message: string, fix: string | null, status = 400): ErrorSpec => ({
  group: "sources",
  message,
  fix,
  status,
  exitCode: 1,
  cli: true
})
const compliance = (message: string, fix: string | null, status = 400): ErrorSpec => ({
  group: "compliance",
  message,
  fix,
  status,
  exitCode: 1,
  cli: true
})
const portal = (message: string, fix: string | null, status = 502): ErrorSpec => ({
  group: "portal",
  message,
  fix,
  status,
  exitCode: 1,
  cli: true
})

// ── Setup and config ────────────────────────────────────────────────────────────────────────────
/** The runtime is older than Node 22.18. */
export class NodeVersionUnsupported extends defineError(
  "NodeVersionUnsupported",
  "NODE_VERSION_UNSUPPORTED",
  setup(
    "This Node.js is older than 22.18, the minimum the catalog needs.",
    "Install Node.js 22.18 or newer (https://nodejs.org), or run through `npx`/`npm run` in this repository, which uses the bundled node@22."
  )
) {}
/** No catalog.yml where it was looked for. */
export class ConfigNotFound extends defineError(
  "ConfigNotFound",
  "CONFIG_NOT_FOUND",
  setup(
    "No catalog.yml was found.",
    "Copy catalog.yml.example to catalog.yml, run `catalog add <kind> --ref <VAR>`, or set CATALOG_CONFIG to the file's path.",
    404
  )
) {}
/** catalog.yml cannot be parsed or fails validation. */
export class ConfigInvalid extends defineError(
  "ConfigInvalid",
  "CONFIG_INVALID",
  setup(
    "catalog.yml cannot be parsed.",
    "Fix the key and line named in the message; catalog.yml.example documents every key."
  )
) {}
/** Bad `config` input. */
export class ConfigInputInvalid extends defineError(
  "ConfigInputInvalid",
  "CONFIG_INPUT_INVALID",
  setup("Bad `config` input.", "Usage: `catalog config` or `catalog config catalog-only <on|off>`.")
) {}
/** A server port is taken. */
export class PortInUse extends defineError(
  "PortInUse",
  "PORT_IN_USE",
  setup(
    "The server port is already in use.",
    "Pass --port <n>, or set CATALOG_HTTP_PORT (open) or CATALOG_CLAIM_PORT (serve-claim).",
    409
  )
) {}
/** The local store is from another schema version. */
export class SchemaMigrationRequired extends defineError(
  "SchemaMigrationRequired",
  "SCHEMA_MIGRATION_REQUIRED",
  setup(
    "The local catalog was written by another version of the tool.",
    "Run `catalog start` with a tool version that can migrate it, or delete .catalog and re-scan.",
    409
  )
) {}
/** CATALOG_DATA_KEY is not a 32-byte key. */
export class DataKeyInvalid extends defineError(
  "DataKeyInvalid",
  "DATA_KEY_INVALID",
  setup(
    "CATALOG_DATA_KEY is not a 32-byte key.",
    "Set CATALOG_DATA_KEY to 32 bytes as base64 (44 characters) or 64 hex characters, e.g. `openssl rand -hex 32`."
  )
) {}
/** A permanent deletion needs --yes. */
export class ConfirmRequired extends defineError(
  "ConfirmRequired",
  "CONFIRM_REQUIRED",
  setup("This permanently deletes data and needs confirmation.", "Re-run with --yes.")
) {}

// ── Sources ─────────────────────────────────────────────────────────────────────────────────────
/** No sources in config. */
export class NoSources extends defineError(
  "NoSources",
  "NO_SOURCES",
  sources(
    "catalog.yml lists no sources.",
    "Add one with `catalog add <postgres|mysql|sqlite|manual> --ref <VAR>`; each source needs id, kind, driver and connectionRef.",
    404
  )
) {}
/** Sources are configured but none can be scanned. */
export class NoSourceDetected extends defineError(
  "NoSourceDetected",
  "NO_SOURCE_DETECTED",
  sources(
    "Nothing to scan: no configured source could be resolved.",
    "Set the connection variable named by each source's connectionRef (in .env or the environment) and re-run `catalog start`, or run `catalog add`.",
    404
  )
) {}
/** Bad `add` input. */
export class AddInputInvalid extends defineError(
  "AddInputInvalid",
  "ADD_INPUT_INVALID",
  sources(
    "Bad `add` input.",
    "See `catalog help add`: `catalog add <postgres|mysql|sqlite> --ref <ENV_VAR_NAME>` or `catalog add manual --from <schema.csv> --yes`."
  )
) {}
/** Bad `connectors` input or name. */
export class ConnectorInputInvalid extends defineError(
  "ConnectorInputInvalid",
  "CONNECTOR_INPUT_INVALID",
  sources(
    "Bad `connectors` input or name.",
    "A connector name uses letters, digits, - and _ and cannot be a built-in kind."
  )
) {}
/** A connector file exists. */
export class ConnectorExists extends defineError(
  "ConnectorExists",
  "CONNECTOR_EXISTS",
  sources(
    "The connector file already exists.",
    "Pick another name, edit the existing file, or pass --force to overwrite it.",
    409
  )
) {}
/** No source with that id. */
export class SourceNotFound extends defineError(
  "SourceNotFound",
  "SOURCE_NOT_FOUND",
  sources("No source with that id.", "List the configured sources with `catalog sources`.", 404)
) {}
/** A source cannot be reached. */
export class SourceUnreachable extends defineError(
  "SourceUnreachable",
  "SOURCE_UNREACHABLE",
  sources("The source cannot be reached.", "Check the host and port, then run `catalog test <id>`.", 502)
) {}
/** A required secret is missing. */
export class SecretUnresolved extends defineError(
  "SecretUnresolved",
  "SECRET_UNRESOLVED",
  sources(
    "A required secret is missing.",
    "Set the variable named by the source's connectionRef (or CATALOG_SECRET_<ref>) in the environment or in .env."
  )
) {}
/** The connection variable still holds the written placeholder. */
export class SecretPlaceholderUnreplaced extends defineError(
  "SecretPlaceholderUnreplaced",
  "SECRET_PLACEHOLDER_UNREPLACED",
  sources(
    "The connection variable still holds the placeholder written by `catalog add`.",
    "Replace the placeholder in .env with the real connection string."
  )
) {}
/** No driver for the source kind. */
export class DriverMissing extends defineError(
  "DriverMissing",
  "DRIVER_MISSING",
  sources(
    "No driver is registered for this source kind.",
    "Use one of the built-in kinds: postgres, mysql, sqlite, manual, dbt. Connectors for other systems are not in this build yet."
  )
) {}
/** No local map yet. */
export class MapNotFound extends defineError(
  "MapNotFound",
  "MAP_NOT_FOUND",
  sources("There is no local catalog yet.", "Run `catalog start` to scan the configured sources.", 404)
) {}
/** Catalog stale for invite. */
export class StaleCatalog extends defineError(
  "StaleCatalog",
  "STALE_CATALOG",
  sources("The catalog is stale.", "Re-run `catalog start` to refresh it, or pass --yes to use it as it is.", 409)
) {}

// ── Compliance and catalog ──────────────────────────────────────────────────────────────────────
export class RopaInputInvalid extends defineError(
  "RopaInputInvalid",
  "ROPA_INPUT_INVALID",
  compliance(
    "The annotation cannot be applied.",
    "Run `catalog annotate list` for the activity keys and exact field names."
  )
) {}
export class SignerRequired extends defineError(
  "SignerRequired",
  "SIGNER_REQUIRED",
  compliance(
    "Confirming a legal field needs a named person.",
    "Set CATALOG_SIGNER_EMAIL to your e-mail address; without --confirm the answer saves as a draft fill."
  )
) {}
export class SignerNameRequired extends defineError(
  "SignerNameRequired",
  "SIGNER_NAME_REQUIRED",
  compliance("Signing needs a person's name, not just an e-mail.", "Set CATALOG_SIGNER_NAME and CATALOG_SIGNER_ROLE.")
) {}
export class ControllerRequired extends defineError(
  "ControllerRequired",
  "CONTROLLER_REQUIRED",
  compliance(
    "The controller's name or contact is missing.",
    "Set controller.name and controller.contact in catalog.yml."
  )
) {}
export class RopaNoneUnconfirmed extends defineError(
  "RopaNoneUnconfirmed",
  "ROPA_NONE_UNCONFIRMED",
  compliance(
    "'None' closes a legal field as 'does not apply', which is a legal confirmation.",
    "Re-run with --confirm (and CATALOG_SIGNER_EMAIL set), or give a draft value instead."
  )
) {}
export class OpenLegalCalls extends defineError(
  "OpenLegalCalls",
  "OPEN_LEGAL_CALLS",
  compliance(
    "Sealing over open legal calls was not acknowledged.",
    "Confirm the open fields with `catalog annotate set … --confirm`, or pass --seal-with-open-calls.",
    409
  )
) {}
export class RopaConfirmUnattributed extends defineError(
  "RopaConfirmUnattributed",
  "ROPA_CONFIRM_UNATTRIBUTED",
  compliance(
    "An imported confirmed answer names no confirmer; the whole import was refused.",
    "Add a `by` value (the confirmer's e-mail) to each row named in the message and import again."
  )
) {}
export class DoraInputInvalid extends defineError(
  "DoraInputInvalid",
  "DORA_INPUT_INVALID",
  compliance(
    "Bad `dora import` or `dora set` input.",
    "Check the table code, row key, column code and value against the register's templates."
  )
) {}
export class DoraNotSubmittable extends defineError(
  "DoraNotSubmittable",
  "DORA_NOT_SUBMITTABLE",
  compliance(
    "The register failed validation; no xBRL-CSV was produced.",
    "Fix every violation listed, then run `catalog dora export` again.",
    422
  )
) {}
export class TermsNotAccepted extends defineError(
  "TermsNotAccepted",
  "TERMS_NOT_ACCEPTED",
  compliance(
    "Sealing needs acceptance of the customer agreement.",
    "Accept the agreement version named by CATALOG_TOS_VERSION on the portal's seal page.",
    409
  )
) {}
export class ClassifyInputInvalid extends defineError(
  "ClassifyInputInvalid",
  "CLASSIFY_INPUT_INVALID",
  compliance(
    "The column or the class is missing or invalid.",
    "Usage: `catalog classify set <columnId> <personal|special|criminal|not>`; list column ids with `catalog describe list` or `catalog show <datasetId>`."
  )
) {}
export class DescribeEntityUnknown extends defineError(
  "DescribeEntityUnknown",
  "DESCRIBE_ENTITY_UNKNOWN",
  compliance(
    "No dataset or column with that id.",
    "List dataset and column ids with `catalog datasets` and `catalog show <datasetId>`.",
    404
  )
) {}
export class LineageEndpointUnknown extends defineError(
  "LineageEndpointUnknown",
  "LINEAGE_ENDPOINT_UNKNOWN",
  compliance("A lineage edge needs two datasets that exist.", "List dataset ids with `catalog datasets`.", 404)
) {}
export class LineageEdgeNotRemovable extends defineError(
  "LineageEdgeNotRemovable",
  "LINEAGE_EDGE_NOT_REMOVABLE",
  compliance(
    "Only human-asserted (user) edges can be removed; scan and dbt edges are regenerated by each scan.",
    "List removable edges with `catalog lineage list --origin user`.",
    409
  )
) {}
export class GlossaryTermUnknown extends defineError(
  "GlossaryTermUnknown",
  "GLOSSARY_TERM_UNKNOWN",
  compliance(
    "The glossary action lacks a term (and a definition, for set).",
    "Usage: `catalog glossary set <term> <definition> [--datasets id,id]`."
  )
) {}
export class CatalogFileInvalid extends defineError(
  "CatalogFileInvalid",
  "CATALOG_FILE_INVALID",
  compliance(
    "The import file is not a team catalog file.",
    "Import a file written by `catalog export`: it needs the `format` field and an integer `version`."
  )
) {}
export class CatalogVersionUnsupported extends defineError(
  "CatalogVersionUnsupported",
  "CATALOG_VERSION_UNSUPPORTED",
  compliance(
    "The catalog file was exported by a newer version of the tool; nothing was imported.",
    "Upgrade local-data-catalog and import again."
  )
) {}
export class EvidenceHashMismatch extends defineError(
  "EvidenceHashMismatch",
  "EVIDENCE_HASH_MISMATCH",
  compliance(
    "An artifact no longer matches its manifest fingerprint.",
    "Regenerate the bundle with `catalog evidence`; the named artifact was changed after it was written.",
    409
  )
) {}

// ── Portal and sync ─────────────────────────────────────────────────────────────────────────────
export class InviteNotFound extends defineError(
  "InviteNotFound",
  "INVITE_NOT_FOUND",
  portal("There is no invite snapshot.", "Run `catalog invite --no-upload` first.", 404)
) {}
export class UploadNotConfirmed extends defineError(
  "UploadNotConfirmed",
  "UPLOAD_NOT_CONFIRMED",
  portal(
    "There is no terminal to confirm the upload.",
    "Pass --yes to upload, or --no-upload to write the snapshot only.",
    400
  )
) {}
export class InviteRecipientRequired extends defineError(
  "InviteRecipientRequired",
  "INVITE_RECIPIENT_REQUIRED",
  portal(
    "An invite needs a recipient.",
    "Pass --email <address>, or --unbound (anyone holding the link becomes the record's admin).",
    400
  )
) {}
export class PortalUnreachable extends defineError(
  "PortalUnreachable",
  "PORTAL_UNREACHABLE",
  portal(
    "The portal cannot be reached.",
    "Check CATALOG_PORTAL_URL, or stay local with `catalog invite --no-upload`."
  )
) {}
export class PortalNotInstalled extends defineError(
  "PortalNotInstalled",
  "PORTAL_NOT_INSTALLED",
  portal("The official export and attestation are the paid step and are not installed in the free build.", null, 501)
) {}
export class PortalNotReady extends defineError(
  "PortalNotReady",
  "PORTAL_NOT_READY",
  portal(
    "The hosted portal cannot sign and refuses to start.",
    "Configure the signing key and publish its public half, then start the portal again.",
    503
  )
) {}
export class IngestUnauthorized extends defineError(
  "IngestUnauthorized",
  "INGEST_UNAUTHORIZED",
  portal(
    "The portal requires an ingest token.",
    "Set CATALOG_INGEST_TOKEN to the token the portal operator gave you.",
    401
  )
) {}
export class IngestRateLimited extends defineError(
  "IngestRateLimited",
  "INGEST_RATE_LIMITED",
  portal("Too many uploads from this address.", "Wait an hour, then re-run `catalog invite`.", 429)
) {}
export class SnapshotTooLarge extends defineError(
  "SnapshotTooLarge",
  "SNAPSHOT_TOO_LARGE",
  portal(
    "The snapshot exceeds the 5 MB upload cap.",
    "Remove sources you do not need from catalog.yml, or stay local with `catalog invite --no-upload`.",
    413
  )
) {}
export class SyncFailed extends defineError(
  "SyncFailed",
  "SYNC_FAILED",
  portal("Metadata sync failed.", "Check CATALOG_PORTAL_URL and CATALOG_SYNC_TOKEN, then run `catalog push` again.")
) {}
export class SyncMisconfigured extends defineError(
  "SyncMisconfigured",
  "SYNC_MISCONFIGURED",
  portal(
    "A portal address is set but the sync token is missing; push skipped.",
    "Generate a token under 'Connect a machine' on the claim page and set CATALOG_SYNC_TOKEN.",
    400
  )
) {}
export class SyncUnauthorized extends defineError(
  "SyncUnauthorized",
  "SYNC_UNAUTHORIZED",
  portal(
    "The sync token was revoked, mistyped or is for a different record.",
    "Generate a new token under 'Connect a machine' and set CATALOG_SYNC_TOKEN.",
    401
  )
) {}
export class ClaimNotSyncable extends defineError(
  "ClaimNotSyncable",
  "CLAIM_NOT_SYNCABLE",
  portal(
    "The claim was superseded or removed.",
    "Pair this machine with the live claim ('Connect a machine') and set the new CATALOG_SYNC_TOKEN.",
    409
  )
) {}
export class WebhookFailed extends defineError(
  "WebhookFailed",
  "WEBHOOK_FAILED",
  portal(
    "Webhook delivery failed; the local re-scan stands.",
    "Check the webhook URL and re-run `catalog watch --webhook <url>` to retry."
  )
) {}
export class DoraPullFailed extends defineError(
  "DoraPullFailed",
  "DORA_PULL_FAILED",
  portal("Cannot pull the claim-side DORA fills.", "Check CATALOG_PORTAL_URL and the claim token, then retry.")
) {}
export class SealPullFailed extends defineError(
  "SealPullFailed",
  "SEAL_PULL_FAILED",
  portal("Cannot pull the sealed artifacts.", "Check CATALOG_PORTAL_URL and the claim token, then retry.")
) {}
export class LicenceMissing extends defineError(
  "LicenceMissing",
  "LICENCE_MISSING",
  portal("No licence key is set.", "Set CATALOG_LICENCE_KEY to the key from your unlock e-mail.", 401)
) {}
export class LicenceInvalid extends defineError(
  "LicenceInvalid",
  "LICENCE_INVALID",
  portal("The licence key is not valid.", "Copy CATALOG_LICENCE_KEY again from the unlock e-mail.", 401)
) {}
export class LicenceExpired extends defineError(
  "LicenceExpired",
  "LICENCE_EXPIRED",
  portal(
    "The licence has expired; the record is back to a draft (what was signed stays valid).",
    "Renew the licence on the portal and set the new CATALOG_LICENCE_KEY.",
    402
  )
) {}
export class LicenceRevoked extends defineError(
  "LicenceRevoked",
  "LICENCE_REVOKED",
  portal("The licence was revoked.", "Contact the portal operator for a new licence key.", 403)
) {}
export class LicenceTenantMismatch extends defineError(
  "LicenceTenantMismatch",
  "LICENCE_TENANT_MISMATCH",
  portal("The licence belongs to a different record.", "Use the licence key issued for this record's claim.", 403)
) {}
export class ClaimNotFound extends defineError(
  "ClaimNotFound",
  "CLAIM_NOT_FOUND",
  portal("No live claim for that token.", "List claims with `catalog admin tenants`.", 404)
) {}
export class MailNotConfigured extends defineError(
  "MailNotConfigured",
  "MAIL_NOT_CONFIGURED",
  portal(
    "No mail delivery is configured.",
    "Set a mail API key variable and CATALOG_MAIL_FROM, or CATALOG_SENDMAIL_CMD, or CATALOG_DEV_MODE=1 to log mail instead.",
    503
  )
) {}
export class AdminInputInvalid extends defineError(
  "AdminInputInvalid",
  "ADMIN_INPUT_INVALID",
  portal("The admin subcommand is missing or invalid.", "Run `catalog admin help`.", 400)
) {}
export class AdminNotConfirmed extends defineError(
  "AdminNotConfirmed",
  "ADMIN_NOT_CONFIRMED",
  portal("A destructive admin action needs --yes.", "Re-run with --yes.", 400)
) {}
export class AdminEnvIncomplete extends defineError(
  "AdminEnvIncomplete",
  "ADMIN_ENV_INCOMPLETE",
  portal("The portal settings are not loaded.", "Run the admin command through `catalog` on the portal machine.", 500)
) {}

// ── Agents and API ──────────────────────────────────────────────────────────────────────────────
/** A required parameter is missing or invalid (also every CLI usage error, exit 2). */
export class InvalidParam extends defineError("InvalidParam", "INVALID_PARAM", {
  group: "agents",
  message: "A required parameter is missing or invalid.",
  fix: "See `catalog help <command>` for the accepted parameters.",
  status: 400,
  exitCode: 2,
  cli: true
}) {}
/** No dataset with that id (read API and agent tools only). */
export class DatasetNotFound extends defineError("DatasetNotFound", "DATASET_NOT_FOUND", {
  group: "agents",
  message: "No dataset with that id.",
  fix: "Find dataset ids with search_datasets or GET /api/v1/datasets.",
  status: 404,
  exitCode: 1,
  cli: false
}) {}
/** Route or method not served (read API only). */
export class EndpointNotFound extends defineError("EndpointNotFound", "ENDPOINT_NOT_FOUND", {
  group: "agents",
  message: "No such endpoint; the read API serves GET routes only.",
  fix: "Use one of the endpoints listed in this body (GET /api/v1).",
  status: 404,
  exitCode: 1,
  cli: false
}) {}

/** Every registry class, in SPEC.md order. */
export const errorClasses = [
  NodeVersionUnsupported,
  ConfigNotFound,
  ConfigInvalid,
  ConfigInputInvalid,
  PortInUse,
  SchemaMigrationRequired,
  DataKeyInvalid,
  ConfirmRequired,
  NoSources,
  NoSourceDetected,
  AddInputInvalid,
  ConnectorInputInvalid,
  ConnectorExists,
  SourceNotFound,
  SourceUnreachable,
  SecretUnresolved,
  SecretPlaceholderUnreplaced,
  DriverMissing,
  MapNotFound,
  StaleCatalog,
  RopaInputInvalid,
  SignerRequired,
  SignerNameRequired,
  ControllerRequired,
  RopaNoneUnconfirmed,
  OpenLegalCalls,
  RopaConfirmUnattributed,
  DoraInputInvalid,
  DoraNotSubmittable,
  TermsNotAccepted,
  ClassifyInputInvalid,
  DescribeEntityUnknown,
  LineageEndpointUnknown,
  LineageEdgeNotRemovable,
  GlossaryTermUnknown,
  CatalogFileInvalid,
  CatalogVersionUnsupported,
  EvidenceHashMismatch,
  InviteNotFound,
  UploadNotConfirmed,
  InviteRecipientRequired,
  PortalUnreachable,
  PortalNotInstalled,
  PortalNotReady,
  IngestUnauthorized,
  IngestRateLimited,
  SnapshotTooLarge,
  SyncFailed,
  SyncMisconfigured,
  SyncUnauthorized,
  ClaimNotSyncable,
  WebhookFailed,
  DoraPullFailed,
  SealPullFailed,
  LicenceMissing,
  LicenceInvalid,
  LicenceExpired,
  LicenceRevoked,
  LicenceTenantMismatch,
  ClaimNotFound,
  MailNotConfigured,
  AdminInputInvalid,
  AdminNotConfirmed,
  AdminEnvIncomplete,
  InvalidParam,
  DatasetNotFound,
  EndpointNotFound
] as const

/** Any registry error. */
export type AppError = InstanceType<(typeof errorClasses)[number]>

/** The registry as data: code → spec. */
export const registry: ReadonlyArray<{ readonly code: string } & ErrorSpec> = errorClasses.map((c) => ({
  code: c.code,
  ...c.spec
}))

/** The CLI registry: every code a CLI command can exit with (all but DATASET_NOT_FOUND and ENDPOINT_NOT_FOUND). */
export const cliRegistry = registry.filter((e) => e.cli)

/** True for any value raised from the registry. */
export const isCatalogError = (u: unknown): u is CatalogErrorShape =>
  typeof u === "object" && u !== null && "code" in u && "spec" in u && typeof (u as { code: unknown }).code === "string"

/** The one error body of every surface. */
export const toErrorBody = (e: CatalogErrorShape): ErrorBody => ({
  error: {
    code: e.code,
    message: e.message,
    ...(e.fix !== null ? { fix: e.fix } : {}),
    ...(e.param !== undefined ? { param: e.param } : {}),
    ...(e.details !== undefined ? { details: e.details } : {})
  }
})
