/**
 * The error registry: one tagged error class per code of SPEC.md's Errors tables (each its own Schema), in SPEC.md
 * order. Codes are a contract — never renamed, only added. `registry` (and so `help --json`) is
 * derived from the classes as defined here; each class is also its own wire Schema (see define.ts).
 */
import { type CatalogErrorShape, definedErrors, defineError, type ErrorBody, type ErrorSpec } from "./define.js"

// ── Setup and config ────────────────────────────────────────────────────────────────────────────
/** The runtime is older than Node 22.18. */
export class NodeVersionUnsupported extends defineError<NodeVersionUnsupported>()("NodeVersionUnsupported", {
  code: "NODE_VERSION_UNSUPPORTED",
  group: "setup",
  status: 400,
  message: "This Node.js is older than 22.18, the minimum the catalog needs.",
  fix:
    "Install Node.js 22.18 or newer (https://nodejs.org), or run through `npx`/`npm run` in this repository, which uses the bundled node@22."
}) {}
/** No catalog.yml where it was looked for. */
export class ConfigNotFound extends defineError<ConfigNotFound>()("ConfigNotFound", {
  code: "CONFIG_NOT_FOUND",
  group: "setup",
  status: 404,
  message: "No catalog.yml was found.",
  fix:
    "Copy catalog.yml.example to catalog.yml, run `catalog add <kind> --ref <VAR>`, or set CATALOG_CONFIG to the file's path."
}) {}
/** catalog.yml cannot be parsed or fails validation. */
export class ConfigInvalid extends defineError<ConfigInvalid>()("ConfigInvalid", {
  code: "CONFIG_INVALID",
  group: "setup",
  status: 400,
  message: "catalog.yml cannot be parsed.",
  fix: "Fix the key and line named in the message; catalog.yml.example documents every key."
}) {}
/** Bad `config` input. */
export class ConfigInputInvalid extends defineError<ConfigInputInvalid>()("ConfigInputInvalid", {
  code: "CONFIG_INPUT_INVALID",
  group: "setup",
  status: 400,
  message: "Bad `config` input.",
  fix: "Usage: `catalog config` or `catalog config catalog-only <on|off>`."
}) {}
/** A server port is taken. */
export class PortInUse extends defineError<PortInUse>()("PortInUse", {
  code: "PORT_IN_USE",
  group: "setup",
  status: 409,
  message: "The server port is already in use.",
  fix: "Pass --port <n>, or set CATALOG_HTTP_PORT (open) or CATALOG_CLAIM_PORT (serve-claim)."
}) {}
/** The local store is from another schema version. */
export class SchemaMigrationRequired extends defineError<SchemaMigrationRequired>()("SchemaMigrationRequired", {
  code: "SCHEMA_MIGRATION_REQUIRED",
  group: "setup",
  status: 409,
  message: "The local catalog was written by another version of the tool.",
  fix: "Run `catalog start` with a tool version that can migrate it, or delete .catalog and re-scan."
}) {}
/** CATALOG_DATA_KEY is not a 32-byte key. */
export class DataKeyInvalid extends defineError<DataKeyInvalid>()("DataKeyInvalid", {
  code: "DATA_KEY_INVALID",
  group: "setup",
  status: 400,
  message: "CATALOG_DATA_KEY is not a 32-byte key.",
  fix: "Set CATALOG_DATA_KEY to 32 bytes as base64 (44 characters) or 64 hex characters, e.g. `openssl rand -hex 32`."
}) {}
/** A permanent deletion needs --yes. */
export class ConfirmRequired extends defineError<ConfirmRequired>()("ConfirmRequired", {
  code: "CONFIRM_REQUIRED",
  group: "setup",
  status: 400,
  message: "This permanently deletes data and needs confirmation.",
  fix: "Re-run with --yes."
}) {}
// ── Sources ─────────────────────────────────────────────────────────────────────────────────────
/** No sources in config. */
export class NoSources extends defineError<NoSources>()("NoSources", {
  code: "NO_SOURCES",
  group: "sources",
  status: 404,
  message: "catalog.yml lists no sources.",
  fix:
    "Add one with `catalog add <postgres|mysql|sqlite|manual> --ref <VAR>`; each source needs id, kind, driver and connectionRef."
}) {}
/** Sources are configured but none can be scanned. */
export class NoSourceDetected extends defineError<NoSourceDetected>()("NoSourceDetected", {
  code: "NO_SOURCE_DETECTED",
  group: "sources",
  status: 404,
  message: "Nothing to scan: no configured source could be resolved.",
  fix:
    "Set the connection variable named by each source's connectionRef (in .env or the environment) and re-run `catalog start`, or run `catalog add`."
}) {}
/** Bad `add` input. */
export class AddInputInvalid extends defineError<AddInputInvalid>()("AddInputInvalid", {
  code: "ADD_INPUT_INVALID",
  group: "sources",
  status: 400,
  message: "Bad `add` input.",
  fix:
    "See `catalog help add`: `catalog add <postgres|mysql|sqlite> --ref <ENV_VAR_NAME>` or `catalog add manual --from <schema.csv> --yes`."
}) {}
/** Bad `connectors` input or name. */
export class ConnectorInputInvalid extends defineError<ConnectorInputInvalid>()("ConnectorInputInvalid", {
  code: "CONNECTOR_INPUT_INVALID",
  group: "sources",
  status: 400,
  message: "Bad `connectors` input or name.",
  fix: "A connector name uses letters, digits, - and _ and cannot be a built-in kind."
}) {}
/** A connector file exists. */
export class ConnectorExists extends defineError<ConnectorExists>()("ConnectorExists", {
  code: "CONNECTOR_EXISTS",
  group: "sources",
  status: 409,
  message: "The connector file already exists.",
  fix: "Pick another name, edit the existing file, or pass --force to overwrite it."
}) {}
/** No source with that id. */
export class SourceNotFound extends defineError<SourceNotFound>()("SourceNotFound", {
  code: "SOURCE_NOT_FOUND",
  group: "sources",
  status: 404,
  message: "No source with that id.",
  fix: "List the configured sources with `catalog sources`."
}) {}
/** A source cannot be reached. */
export class SourceUnreachable extends defineError<SourceUnreachable>()("SourceUnreachable", {
  code: "SOURCE_UNREACHABLE",
  group: "sources",
  status: 502,
  message: "The source cannot be reached.",
  fix: "Check the host and port, then run `catalog test <id>`."
}) {}
/** A required secret is missing. */
export class SecretUnresolved extends defineError<SecretUnresolved>()("SecretUnresolved", {
  code: "SECRET_UNRESOLVED",
  group: "sources",
  status: 400,
  message: "A required secret is missing.",
  fix: "Set the variable named by the source's connectionRef (or CATALOG_SECRET_<ref>) in the environment or in .env."
}) {}
/** The connection variable still holds the written placeholder. */
export class SecretPlaceholderUnreplaced
  extends defineError<SecretPlaceholderUnreplaced>()("SecretPlaceholderUnreplaced", {
    code: "SECRET_PLACEHOLDER_UNREPLACED",
    group: "sources",
    status: 400,
    message: "The connection variable still holds the placeholder written by `catalog add`.",
    fix: "Replace the placeholder in .env with the real connection string."
  })
{}
/** No driver for the source kind. */
export class DriverMissing extends defineError<DriverMissing>()("DriverMissing", {
  code: "DRIVER_MISSING",
  group: "sources",
  status: 400,
  message: "No driver is registered for this source kind.",
  fix:
    "Use one of the built-in kinds: postgres, mysql, sqlite, manual, dbt. Connectors for other systems are not in this build yet."
}) {}
/** No local map yet. */
export class MapNotFound extends defineError<MapNotFound>()("MapNotFound", {
  code: "MAP_NOT_FOUND",
  group: "sources",
  status: 404,
  message: "There is no local catalog yet.",
  fix: "Run `catalog start` to scan the configured sources."
}) {}
/** Catalog stale for invite. */
export class StaleCatalog extends defineError<StaleCatalog>()("StaleCatalog", {
  code: "STALE_CATALOG",
  group: "sources",
  status: 409,
  message: "The catalog is stale.",
  fix: "Re-run `catalog start` to refresh it, or pass --yes to use it as it is."
}) {}
// ── Compliance and catalog ──────────────────────────────────────────────────────────────────────
/** The annotation cannot be applied. */
export class RopaInputInvalid extends defineError<RopaInputInvalid>()("RopaInputInvalid", {
  code: "ROPA_INPUT_INVALID",
  group: "compliance",
  status: 400,
  message: "The annotation cannot be applied.",
  fix: "Run `catalog annotate list` for the activity keys and exact field names."
}) {}
/** Confirming a legal field needs a named person. */
export class SignerRequired extends defineError<SignerRequired>()("SignerRequired", {
  code: "SIGNER_REQUIRED",
  group: "compliance",
  status: 400,
  message: "Confirming a legal field needs a named person.",
  fix: "Set CATALOG_SIGNER_EMAIL to your e-mail address; without --confirm the answer saves as a draft fill."
}) {}
/** Signing needs a person's name, not just an e-mail. */
export class SignerNameRequired extends defineError<SignerNameRequired>()("SignerNameRequired", {
  code: "SIGNER_NAME_REQUIRED",
  group: "compliance",
  status: 400,
  message: "Signing needs a person's name, not just an e-mail.",
  fix: "Set CATALOG_SIGNER_NAME and CATALOG_SIGNER_ROLE."
}) {}
/** The controller's name or contact is missing. */
export class ControllerRequired extends defineError<ControllerRequired>()("ControllerRequired", {
  code: "CONTROLLER_REQUIRED",
  group: "compliance",
  status: 400,
  message: "The controller's name or contact is missing.",
  fix: "Set controller.name and controller.contact in catalog.yml."
}) {}
/** 'None' closes a legal field as 'does not apply', which is a legal confirmation. */
export class RopaNoneUnconfirmed extends defineError<RopaNoneUnconfirmed>()("RopaNoneUnconfirmed", {
  code: "ROPA_NONE_UNCONFIRMED",
  group: "compliance",
  status: 400,
  message: "'None' closes a legal field as 'does not apply', which is a legal confirmation.",
  fix: "Re-run with --confirm (and CATALOG_SIGNER_EMAIL set), or give a draft value instead."
}) {}
/** Sealing over open legal calls was not acknowledged. */
export class OpenLegalCalls extends defineError<OpenLegalCalls>()("OpenLegalCalls", {
  code: "OPEN_LEGAL_CALLS",
  group: "compliance",
  status: 409,
  message: "Sealing over open legal calls was not acknowledged.",
  fix: "Confirm the open fields with `catalog annotate set … --confirm`, or pass --seal-with-open-calls."
}) {}
/** An imported confirmed answer names no confirmer; the whole import was refused. */
export class RopaConfirmUnattributed extends defineError<RopaConfirmUnattributed>()("RopaConfirmUnattributed", {
  code: "ROPA_CONFIRM_UNATTRIBUTED",
  group: "compliance",
  status: 400,
  message: "An imported confirmed answer names no confirmer; the whole import was refused.",
  fix: "Add a `by` value (the confirmer's e-mail) to each row named in the message and import again."
}) {}
/** Bad `dora import` or `dora set` input. */
export class DoraInputInvalid extends defineError<DoraInputInvalid>()("DoraInputInvalid", {
  code: "DORA_INPUT_INVALID",
  group: "compliance",
  status: 400,
  message: "Bad `dora import` or `dora set` input.",
  fix: "Check the table code, row key, column code and value against the register's templates."
}) {}
/** The register failed validation; no xBRL-CSV was produced. */
export class DoraNotSubmittable extends defineError<DoraNotSubmittable>()("DoraNotSubmittable", {
  code: "DORA_NOT_SUBMITTABLE",
  group: "compliance",
  status: 422,
  message: "The register failed validation; no xBRL-CSV was produced.",
  fix: "Fix every violation listed, then run `catalog dora export` again."
}) {}
/** Sealing needs acceptance of the customer agreement. */
export class TermsNotAccepted extends defineError<TermsNotAccepted>()("TermsNotAccepted", {
  code: "TERMS_NOT_ACCEPTED",
  group: "compliance",
  status: 409,
  message: "Sealing needs acceptance of the customer agreement.",
  fix: "Accept the agreement version named by CATALOG_TOS_VERSION on the portal's seal page."
}) {}
/** The column or the class is missing or invalid. */
export class ClassifyInputInvalid extends defineError<ClassifyInputInvalid>()("ClassifyInputInvalid", {
  code: "CLASSIFY_INPUT_INVALID",
  group: "compliance",
  status: 400,
  message: "The column or the class is missing or invalid.",
  fix:
    "Usage: `catalog classify set <columnId> <personal|special|criminal|not>`; list column ids with `catalog describe list` or `catalog show <datasetId>`."
}) {}
/** No dataset or column with that id. */
export class DescribeEntityUnknown extends defineError<DescribeEntityUnknown>()("DescribeEntityUnknown", {
  code: "DESCRIBE_ENTITY_UNKNOWN",
  group: "compliance",
  status: 404,
  message: "No dataset or column with that id.",
  fix: "List dataset and column ids with `catalog datasets` and `catalog show <datasetId>`."
}) {}
/** A lineage edge needs two datasets that exist. */
export class LineageEndpointUnknown extends defineError<LineageEndpointUnknown>()("LineageEndpointUnknown", {
  code: "LINEAGE_ENDPOINT_UNKNOWN",
  group: "compliance",
  status: 404,
  message: "A lineage edge needs two datasets that exist.",
  fix: "List dataset ids with `catalog datasets`."
}) {}
/** Only human-asserted (user) edges can be removed; scan and dbt edges are regenerated by each scan. */
export class LineageEdgeNotRemovable extends defineError<LineageEdgeNotRemovable>()("LineageEdgeNotRemovable", {
  code: "LINEAGE_EDGE_NOT_REMOVABLE",
  group: "compliance",
  status: 409,
  message: "Only human-asserted (user) edges can be removed; scan and dbt edges are regenerated by each scan.",
  fix: "List removable edges with `catalog lineage list --origin user`."
}) {}
/** The glossary action lacks a term (and a definition, for set). */
export class GlossaryTermUnknown extends defineError<GlossaryTermUnknown>()("GlossaryTermUnknown", {
  code: "GLOSSARY_TERM_UNKNOWN",
  group: "compliance",
  status: 400,
  message: "The glossary action lacks a term (and a definition, for set).",
  fix: "Usage: `catalog glossary set <term> <definition> [--datasets id,id]`."
}) {}
/** The import file is not a team catalog file. */
export class CatalogFileInvalid extends defineError<CatalogFileInvalid>()("CatalogFileInvalid", {
  code: "CATALOG_FILE_INVALID",
  group: "compliance",
  status: 400,
  message: "The import file is not a team catalog file.",
  fix: "Import a file written by `catalog export`: it needs the `format` field and an integer `version`."
}) {}
/** The catalog file was exported by a newer version of the tool; nothing was imported. */
export class CatalogVersionUnsupported extends defineError<CatalogVersionUnsupported>()("CatalogVersionUnsupported", {
  code: "CATALOG_VERSION_UNSUPPORTED",
  group: "compliance",
  status: 400,
  message: "The catalog file was exported by a newer version of the tool; nothing was imported.",
  fix: "Upgrade local-data-catalog and import again."
}) {}
/** An artifact no longer matches its manifest fingerprint. */
export class EvidenceHashMismatch extends defineError<EvidenceHashMismatch>()("EvidenceHashMismatch", {
  code: "EVIDENCE_HASH_MISMATCH",
  group: "compliance",
  status: 409,
  message: "An artifact no longer matches its manifest fingerprint.",
  fix: "Regenerate the bundle with `catalog evidence`; the named artifact was changed after it was written."
}) {}
// ── Portal and sync ─────────────────────────────────────────────────────────────────────────────
/** There is no invite snapshot. */
export class InviteNotFound extends defineError<InviteNotFound>()("InviteNotFound", {
  code: "INVITE_NOT_FOUND",
  group: "portal",
  status: 404,
  message: "There is no invite snapshot.",
  fix: "Run `catalog invite --no-upload` first."
}) {}
/** There is no terminal to confirm the upload. */
export class UploadNotConfirmed extends defineError<UploadNotConfirmed>()("UploadNotConfirmed", {
  code: "UPLOAD_NOT_CONFIRMED",
  group: "portal",
  status: 400,
  message: "There is no terminal to confirm the upload.",
  fix: "Pass --yes to upload, or --no-upload to write the snapshot only."
}) {}
/** An invite needs a recipient. */
export class InviteRecipientRequired extends defineError<InviteRecipientRequired>()("InviteRecipientRequired", {
  code: "INVITE_RECIPIENT_REQUIRED",
  group: "portal",
  status: 400,
  message: "An invite needs a recipient.",
  fix: "Pass --email <address>, or --unbound (anyone holding the link becomes the record's admin)."
}) {}
/** The portal cannot be reached. */
export class PortalUnreachable extends defineError<PortalUnreachable>()("PortalUnreachable", {
  code: "PORTAL_UNREACHABLE",
  group: "portal",
  status: 502,
  message: "The portal cannot be reached.",
  fix: "Check CATALOG_PORTAL_URL, or stay local with `catalog invite --no-upload`."
}) {}
/** The official export and attestation are the paid step and are not installed in the free build. */
export class PortalNotInstalled extends defineError<PortalNotInstalled>()("PortalNotInstalled", {
  code: "PORTAL_NOT_INSTALLED",
  group: "portal",
  status: 501,
  message: "The official export and attestation are the paid step and are not installed in the free build.",
  fix: null
}) {}
/** The hosted portal cannot sign and refuses to start. */
export class PortalNotReady extends defineError<PortalNotReady>()("PortalNotReady", {
  code: "PORTAL_NOT_READY",
  group: "portal",
  status: 503,
  message: "The hosted portal cannot sign and refuses to start.",
  fix: "Configure the signing key and publish its public half, then start the portal again."
}) {}
/** The portal requires an ingest token. */
export class IngestUnauthorized extends defineError<IngestUnauthorized>()("IngestUnauthorized", {
  code: "INGEST_UNAUTHORIZED",
  group: "portal",
  status: 401,
  message: "The portal requires an ingest token.",
  fix: "Set CATALOG_INGEST_TOKEN to the token the portal operator gave you."
}) {}
/** Too many uploads from this address. */
export class IngestRateLimited extends defineError<IngestRateLimited>()("IngestRateLimited", {
  code: "INGEST_RATE_LIMITED",
  group: "portal",
  status: 429,
  message: "Too many uploads from this address.",
  fix: "Wait an hour, then re-run `catalog invite`."
}) {}
/** The snapshot exceeds the 5 MB upload cap. */
export class SnapshotTooLarge extends defineError<SnapshotTooLarge>()("SnapshotTooLarge", {
  code: "SNAPSHOT_TOO_LARGE",
  group: "portal",
  status: 413,
  message: "The snapshot exceeds the 5 MB upload cap.",
  fix: "Remove sources you do not need from catalog.yml, or stay local with `catalog invite --no-upload`."
}) {}
/** Metadata sync failed. */
export class SyncFailed extends defineError<SyncFailed>()("SyncFailed", {
  code: "SYNC_FAILED",
  group: "portal",
  status: 502,
  message: "Metadata sync failed.",
  fix: "Check CATALOG_PORTAL_URL and CATALOG_SYNC_TOKEN, then run `catalog push` again."
}) {}
/** A portal address is set but the sync token is missing; push skipped. */
export class SyncMisconfigured extends defineError<SyncMisconfigured>()("SyncMisconfigured", {
  code: "SYNC_MISCONFIGURED",
  group: "portal",
  status: 400,
  message: "A portal address is set but the sync token is missing; push skipped.",
  fix: "Generate a token under 'Connect a machine' on the claim page and set CATALOG_SYNC_TOKEN."
}) {}
/** The sync token was revoked, mistyped or is for a different record. */
export class SyncUnauthorized extends defineError<SyncUnauthorized>()("SyncUnauthorized", {
  code: "SYNC_UNAUTHORIZED",
  group: "portal",
  status: 401,
  message: "The sync token was revoked, mistyped or is for a different record.",
  fix: "Generate a new token under 'Connect a machine' and set CATALOG_SYNC_TOKEN."
}) {}
/** The claim was superseded or removed. */
export class ClaimNotSyncable extends defineError<ClaimNotSyncable>()("ClaimNotSyncable", {
  code: "CLAIM_NOT_SYNCABLE",
  group: "portal",
  status: 409,
  message: "The claim was superseded or removed.",
  fix: "Pair this machine with the live claim ('Connect a machine') and set the new CATALOG_SYNC_TOKEN."
}) {}
/** Webhook delivery failed; the local re-scan stands. */
export class WebhookFailed extends defineError<WebhookFailed>()("WebhookFailed", {
  code: "WEBHOOK_FAILED",
  group: "portal",
  status: 502,
  message: "Webhook delivery failed; the local re-scan stands.",
  fix: "Check the webhook URL and re-run `catalog watch --webhook <url>` to retry."
}) {}
/** Cannot pull the claim-side DORA fills. */
export class DoraPullFailed extends defineError<DoraPullFailed>()("DoraPullFailed", {
  code: "DORA_PULL_FAILED",
  group: "portal",
  status: 502,
  message: "Cannot pull the claim-side DORA fills.",
  fix: "Check CATALOG_PORTAL_URL and the claim token, then retry."
}) {}
/** Cannot pull the sealed artifacts. */
export class SealPullFailed extends defineError<SealPullFailed>()("SealPullFailed", {
  code: "SEAL_PULL_FAILED",
  group: "portal",
  status: 502,
  message: "Cannot pull the sealed artifacts.",
  fix: "Check CATALOG_PORTAL_URL and the claim token, then retry."
}) {}
/** No licence key is set. */
export class LicenceMissing extends defineError<LicenceMissing>()("LicenceMissing", {
  code: "LICENCE_MISSING",
  group: "portal",
  status: 401,
  message: "No licence key is set.",
  fix: "Set CATALOG_LICENCE_KEY to the key from your unlock e-mail."
}) {}
/** The licence key is not valid. */
export class LicenceInvalid extends defineError<LicenceInvalid>()("LicenceInvalid", {
  code: "LICENCE_INVALID",
  group: "portal",
  status: 401,
  message: "The licence key is not valid.",
  fix: "Copy CATALOG_LICENCE_KEY again from the unlock e-mail."
}) {}
/** The licence has expired; the record is back to a draft (what was signed stays valid). */
export class LicenceExpired extends defineError<LicenceExpired>()("LicenceExpired", {
  code: "LICENCE_EXPIRED",
  group: "portal",
  status: 402,
  message: "The licence has expired; the record is back to a draft (what was signed stays valid).",
  fix: "Renew the licence on the portal and set the new CATALOG_LICENCE_KEY."
}) {}
/** The licence was revoked. */
export class LicenceRevoked extends defineError<LicenceRevoked>()("LicenceRevoked", {
  code: "LICENCE_REVOKED",
  group: "portal",
  status: 403,
  message: "The licence was revoked.",
  fix: "Contact the portal operator for a new licence key."
}) {}
/** The licence belongs to a different record. */
export class LicenceTenantMismatch extends defineError<LicenceTenantMismatch>()("LicenceTenantMismatch", {
  code: "LICENCE_TENANT_MISMATCH",
  group: "portal",
  status: 403,
  message: "The licence belongs to a different record.",
  fix: "Use the licence key issued for this record's claim."
}) {}
/** No live claim for that token. */
export class ClaimNotFound extends defineError<ClaimNotFound>()("ClaimNotFound", {
  code: "CLAIM_NOT_FOUND",
  group: "portal",
  status: 404,
  message: "No live claim for that token.",
  fix: "List claims with `catalog admin tenants`."
}) {}
/** No mail delivery is configured. */
export class MailNotConfigured extends defineError<MailNotConfigured>()("MailNotConfigured", {
  code: "MAIL_NOT_CONFIGURED",
  group: "portal",
  status: 503,
  message: "No mail delivery is configured.",
  fix:
    "Set a mail API key variable and CATALOG_MAIL_FROM, or CATALOG_SENDMAIL_CMD, or CATALOG_DEV_MODE=1 to log mail instead."
}) {}
/** The admin subcommand is missing or invalid. */
export class AdminInputInvalid extends defineError<AdminInputInvalid>()("AdminInputInvalid", {
  code: "ADMIN_INPUT_INVALID",
  group: "portal",
  status: 400,
  message: "The admin subcommand is missing or invalid.",
  fix: "Run `catalog admin help`."
}) {}
/** A destructive admin action needs --yes. */
export class AdminNotConfirmed extends defineError<AdminNotConfirmed>()("AdminNotConfirmed", {
  code: "ADMIN_NOT_CONFIRMED",
  group: "portal",
  status: 400,
  message: "A destructive admin action needs --yes.",
  fix: "Re-run with --yes."
}) {}
/** The portal settings are not loaded. */
export class AdminEnvIncomplete extends defineError<AdminEnvIncomplete>()("AdminEnvIncomplete", {
  code: "ADMIN_ENV_INCOMPLETE",
  group: "portal",
  status: 500,
  message: "The portal settings are not loaded.",
  fix: "Run the admin command through `catalog` on the portal machine."
}) {}
/** Catalog-only is on: nothing may leave this machine (added: SPEC.md names the refusal, not its code). */
export class CatalogOnly extends defineError<CatalogOnly>()("CatalogOnly", {
  code: "CATALOG_ONLY",
  group: "portal",
  status: 403,
  message: "catalog-only is on: no metadata leaves this machine.",
  fix:
    "Stay local with `catalog invite --no-upload` and `catalog serve-claim`, or switch it off with `catalog config catalog-only off`."
}) {}
// ── Agents and API ──────────────────────────────────────────────────────────────────────────────
/** A required parameter is missing or invalid (also every CLI usage error, exit 2). */
export class InvalidParam extends defineError<InvalidParam>()("InvalidParam", {
  code: "INVALID_PARAM",
  group: "agents",
  status: 400,
  message: "A required parameter is missing or invalid.",
  fix: "See `catalog help <command>` for the accepted parameters.",
  exitCode: 2
}) {}
/** No dataset with that id (read API and agent tools only). */
export class DatasetNotFound extends defineError<DatasetNotFound>()("DatasetNotFound", {
  code: "DATASET_NOT_FOUND",
  group: "agents",
  status: 404,
  message: "No dataset with that id.",
  fix: "Find dataset ids with search_datasets or GET /api/v1/datasets.",
  cli: false
}) {}
/** Route or method not served (read API only). */
export class EndpointNotFound extends defineError<EndpointNotFound>()("EndpointNotFound", {
  code: "ENDPOINT_NOT_FOUND",
  group: "agents",
  status: 404,
  message: "No such endpoint; the read API serves GET routes only.",
  fix: "Use one of the endpoints listed in this body (GET /api/v1).",
  cli: false
}) {}

/** Every registry class, in SPEC.md order (the order they are defined above). */
export const errorClasses = definedErrors

/** Any registry error. */
export type AppError = CatalogErrorShape

/** The registry as data: code → spec. */
export const registry: ReadonlyArray<{ readonly code: string } & ErrorSpec> = errorClasses.map((c) => ({
  code: c.code,
  ...c.spec
}))

/** The CLI registry: every code a CLI command can exit with (all but DATASET_NOT_FOUND and ENDPOINT_NOT_FOUND). */
export const cliRegistry = registry.filter((e) => e.cli)

/** True for any value raised from the registry. */
export const isCatalogError = (u: unknown): u is CatalogErrorShape => errorClasses.some((c) => u instanceof c)

/** The one error body of every surface: the error encoded through its own class. */
export const toErrorBody = (e: CatalogErrorShape): ErrorBody => e.body
