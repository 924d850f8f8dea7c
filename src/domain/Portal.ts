/**
 * The wire contract between a machine (`invite`, later `push`) and the portal (`admin serve`), and the
 * shapes the portal's claim pages and admin commands share. The portal's full JSON interface is an
 * HttpApi under `portalApiPrefix`, described by its OpenAPI document (docs/portal.md).
 */
import { Schema } from "effect"

/** The portal's JSON interface lives under this prefix. */
export const portalApiPrefix = "/api/portal/v1" as const
/** Upload a snapshot (body: exactly the snapshot bytes, `application/json`). */
export const ingestPath = `${portalApiPrefix}/snapshots` as const
/** The public half of the portal's Ed25519 signing key, PEM (SubjectPublicKeyInfo). */
export const signingKeyPath = `${portalApiPrefix}/signing-key` as const
export const openApiPath = `${portalApiPrefix}/openapi.json` as const
export const healthPath = `${portalApiPrefix}/health` as const
/** The claim page: `${claimPagePrefix}/<claim token>`. */
export const claimPagePrefix = "/claim" as const

/**
 * The machine's record key: 32 random bytes (base64url), kept in `.catalog/record-key` (0600). Every
 * upload of the same catalog carries it in this header, so the portal knows a re-invite of the same
 * record (and supersedes its live claim). The portal stores only its SHA-256. It is never in the snapshot.
 */
export const recordKeyHeader = "x-catalog-record-key" as const
/** `Authorization: Bearer <CATALOG_INGEST_TOKEN>` when the operator requires an ingest token. */
export const ingestTokenScheme = "Bearer" as const

/** Token prefixes: never confusable with one another (sync tokens and licence keys get their own). */
export const claimTokenPrefix = "clm_" as const
export const claimIdPrefix = "cl_" as const

/** Default ports and the default uploads-per-address-per-hour limit. */
export const defaultPortalPort = 4330
export const defaultClaimPort = 4320
export const defaultIngestRateLimit = 30

export const ClaimState = Schema.Literal("live", "superseded", "removed")
export type ClaimState = typeof ClaimState.Type

/** What happened to the claim-link mail. */
export const MailOutcome = Schema.Struct({
  /**
   * sent: handed to the provider or the sendmail command; logged: CATALOG_DEV_MODE, written to the portal's
   * log instead; not-needed: an unbound claim (no recipient to mail); not-configured: MAIL_NOT_CONFIGURED
   * (the claim exists; give the link yourself); failed: the transport refused (the claim exists).
   */
  status: Schema.Literal("sent", "logged", "not-needed", "not-configured", "failed"),
  transport: Schema.NullOr(Schema.Literal("provider", "sendmail", "dev")),
  error: Schema.NullOr(
    Schema.Struct({ code: Schema.String, message: Schema.String, fix: Schema.NullOr(Schema.String) })
  )
})
export type MailOutcome = typeof MailOutcome.Type

/** The portal's answer to an accepted upload (HTTP 201). */
export const IngestReceipt = Schema.Struct({
  claimId: Schema.String,
  /** The claim link: `<public url>/claim/<token>`; the token is shown once and stored only as a hash. */
  claimUrl: Schema.String,
  state: Schema.Literal("live"),
  recipient: Schema.NullOr(Schema.String),
  unbound: Schema.Boolean,
  bytes: Schema.Number,
  sha256: Schema.String,
  receivedAt: Schema.String,
  /** The claim this upload superseded (the same record's previous live claim), if any. */
  supersedes: Schema.NullOr(Schema.String),
  mail: MailOutcome
})
export type IngestReceipt = typeof IngestReceipt.Type

/** GET health: what a client (or `doctor`) learns before it uploads. */
export const PortalHealth = Schema.Struct({
  ok: Schema.Literal(true),
  service: Schema.Literal("local-data-catalog-portal"),
  version: Schema.String,
  storage: Schema.Literal("postgres", "sqlite"),
  ingestTokenRequired: Schema.Boolean,
  uploadCapBytes: Schema.Number
})
export type PortalHealth = typeof PortalHealth.Type

/** One claim as `admin tenants` lists it. */
export const TenantRow = Schema.Struct({
  claimId: Schema.String,
  state: ClaimState,
  successorId: Schema.NullOr(Schema.String),
  recipient: Schema.NullOr(Schema.String),
  unbound: Schema.Boolean,
  /** Unbound: whether someone has opened it and become its admin; bound: whether the recipient proved the address. */
  opened: Schema.Boolean,
  createdAt: Schema.String,
  lastUploadAt: Schema.NullOr(Schema.String),
  bytes: Schema.NullOr(Schema.Number)
})
export type TenantRow = typeof TenantRow.Type

/** The listen address when CATALOG_PORTAL_HOST is not set. */
export const defaultPortalHost = "127.0.0.1"
/** Where the SQLite store lives when neither variable says otherwise (relative to the working folder). */
export const defaultPortalHome = ".catalog-portal"

/** The portal's environment variables, as `admin help` and docs/portal.md list them. */
export const portalEnvironment: ReadonlyArray<{ readonly name: string; readonly description: string }> = [
  {
    name: "CATALOG_PORTAL_SIGNING_KEY",
    description:
      "path of the operator's Ed25519 private key (PEM; required: `openssl genpkey -algorithm ed25519 -out portal-signing.pem`); its public half is served at /api/portal/v1/signing-key"
  },
  {
    name: "CATALOG_PORTAL_DATABASE_URL",
    description:
      "a postgres:// URL (hosted: several portal processes may share it); unset → SQLite in CATALOG_PORTAL_HOME"
  },
  { name: "CATALOG_PORTAL_HOME", description: `folder of the SQLite store (default ./${defaultPortalHome}/)` },
  { name: "CATALOG_PORTAL_PORT", description: `port when --port is not given (default ${defaultPortalPort})` },
  {
    name: "CATALOG_PORTAL_HOST",
    description:
      `listen address (default ${defaultPortalHost}; a hosted portal sits behind a reverse proxy or load balancer)`
  },
  {
    name: "CATALOG_PORTAL_PUBLIC_URL",
    description:
      "the http(s) origin written into claim links, no path: the portal is served at the root of its host (default http://127.0.0.1:<port>)"
  },
  {
    name: "CATALOG_PORTAL_TRUST_PROXY",
    description:
      "number of reverse proxies in front (default 0): the upload rate limit keys on the address the outermost one saw, the n-th X-Forwarded-For entry from the right (1 = the right-most); 0 = the socket's address"
  },
  {
    name: "CATALOG_INGEST_TOKEN",
    description: "when set, uploads must present it (`Authorization: Bearer <token>`; `invite` sends its own)"
  },
  {
    name: "CATALOG_INGEST_RATE_LIMIT",
    description: `uploads per address per hour (positive integer, default ${defaultIngestRateLimit})`
  },
  {
    name: "CATALOG_POSTMARK_TOKEN",
    description:
      "mail through the provider's HTTP API (Postmark server token; needs CATALOG_MAIL_FROM). Mail transports, first configured wins: provider, sendmail, dev; none → the portal starts, warns, and claim mail reports MAIL_NOT_CONFIGURED"
  },
  { name: "CATALOG_MAIL_FROM", description: "the From address of the portal's mail (required with the provider)" },
  {
    name: "CATALOG_POSTMARK_URL",
    description: "the provider's API address (default https://api.postmarkapp.com; a test points it at a fake)"
  },
  {
    name: "CATALOG_SENDMAIL_CMD",
    description: "mail piped, whole, to this command (e.g. `/usr/sbin/sendmail -t -i`)"
  },
  { name: "CATALOG_DEV_MODE", description: "1: mail is written to the portal's log, not sent (a test or a demo)" }
]
