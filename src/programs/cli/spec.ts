/**
 * What `help` says about each command that the @effect/cli tree in Cli.ts cannot hold: the order
 * commands are listed in, their usage lines, examples, the registry codes they can exit with, whether
 * they write, and what a global flag means for them. Summaries and option descriptions live on the
 * tree (`withDescription`); HelpDocument.ts joins the two, and a test checks every command has both.
 */
import { portalEnvironment } from "../../domain/Portal.js"

/** One command as `help` documents it. */
export interface CommandDoc {
  readonly name: string
  readonly usage: string
  readonly summary: string
  readonly options: ReadonlyArray<{ readonly flag: string; readonly description: string }>
  readonly examples: ReadonlyArray<string>
  /** Registry codes this command can exit with (beyond the global ones). */
  readonly errors: ReadonlyArray<string>
  readonly writes: boolean
}

/** The part of a command's documentation written here rather than on the command tree. */
export interface CommandNotes {
  readonly name: string
  readonly usage: string
  /** Global flags (stripped before the tree parses) with what they mean for this command; listed after its own. */
  readonly flags?: ReadonlyArray<{ readonly flag: string; readonly description: string }>
  readonly examples: ReadonlyArray<string>
  /** Registry codes this command can exit with (beyond the global ones). */
  readonly errors: ReadonlyArray<string>
  readonly writes: boolean
}

/** `--json`, listed last among every command's options. */
export const json = {
  flag: "--json",
  description: "machine-readable output on stdout; errors as {\"error\":{\"code\",\"message\",\"fix\"}}"
}

export const globalOptions = [
  json,
  { flag: "--yes, -y", description: "accept the recommended defaults and confirm destructive actions" },
  { flag: "--non-interactive", description: "never prompt (also implied off a TTY and when CI is set)" },
  { flag: "--help, -h", description: "human help for a command" },
  { flag: "--version", description: "print the tool version" }
] as const

/** In the order `help` lists the commands. */
export const commandNotes: ReadonlyArray<CommandNotes> = [
  {
    name: "start",
    usage: "catalog start [--json]",
    examples: ["catalog start", "catalog start --json | jq .coverage"],
    errors: [
      "CONFIG_NOT_FOUND",
      "CONFIG_INVALID",
      "NO_SOURCES",
      "NO_SOURCE_DETECTED",
      "SOURCE_UNREACHABLE",
      "SECRET_UNRESOLVED",
      "SECRET_PLACEHOLDER_UNREPLACED",
      "DRIVER_MISSING",
      "SCHEMA_MIGRATION_REQUIRED"
    ],
    writes: true
  },
  {
    name: "status",
    usage: "catalog status [--json]",
    examples: ["catalog status", "catalog status --json"],
    errors: ["MAP_NOT_FOUND", "SCHEMA_MIGRATION_REQUIRED"],
    writes: false
  },
  {
    name: "datasets",
    usage: "catalog datasets [--json]",
    examples: ["catalog datasets", "catalog datasets --json | jq '.datasets[] | select(.highest != \"not\") | .id'"],
    errors: ["MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "show",
    usage: "catalog show <datasetId> [--json]",
    examples: ["catalog show pg/public/customer", "catalog show pg/public/customer --json"],
    errors: ["MAP_NOT_FOUND", "DESCRIBE_ENTITY_UNKNOWN"],
    writes: false
  },
  {
    name: "search",
    usage: "catalog search <words...> [--limit <n>] [--json]",
    examples: ["catalog search email", "catalog search customer birth date --limit 5 --json"],
    errors: ["INVALID_PARAM", "MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "log",
    usage: "catalog log [--since <seq|ISO-8601>] [--limit <n>] [--json]",
    examples: ["catalog log", "catalog log --since 0 --limit 200", "catalog log --since 2026-11-01T00:00:00Z --json"],
    errors: ["INVALID_PARAM", "MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "classify",
    usage: "catalog classify set <columnId> <personal|special|criminal|not> | catalog classify clear <columnId>",
    examples: [
      "catalog classify set pg/public/customer/notes special",
      "catalog classify clear pg/public/customer/notes"
    ],
    errors: ["CLASSIFY_INPUT_INVALID", "DESCRIBE_ENTITY_UNKNOWN", "MAP_NOT_FOUND"],
    writes: true
  },
  {
    name: "sources",
    usage: "catalog sources [--json] | catalog sources remove <id> [--yes]",
    flags: [{ flag: "--yes", description: "confirm the removal (required off a TTY)" }],
    examples: ["catalog sources", "catalog sources remove legacy-crm --yes"],
    errors: ["SOURCE_NOT_FOUND", "CONFIRM_REQUIRED", "CONFIG_NOT_FOUND"],
    writes: true
  },
  {
    name: "add",
    usage:
      "catalog add <postgres|mysql|sqlite> --ref <ENV_VAR_NAME> [--id <id>] [--label <text>] [--region <region>] [--role controller] [--yes] | catalog add manual --from <schema.csv> [--id <id>] --yes | catalog add dbt --from <manifest.json> --target <warehouse-source-id> [--id <id>] --yes",
    flags: [{ flag: "--yes", description: "accept defaults" }],
    examples: [
      "catalog add postgres --ref DATABASE_URL",
      "catalog add mysql --ref SHOP_DB --region eu-west-1 --label 'Web shop'",
      "catalog add manual --from docs/schema.csv --yes",
      "catalog add dbt --from ../analytics/target/manifest.json --target warehouse --yes"
    ],
    errors: ["ADD_INPUT_INVALID", "DRIVER_MISSING", "CONFIG_INVALID"],
    writes: true
  },
  {
    name: "test",
    usage: "catalog test <id> [--json]",
    examples: ["catalog test pg", "catalog test pg --json"],
    errors: [
      "SOURCE_NOT_FOUND",
      "SOURCE_UNREACHABLE",
      "DRIVER_MISSING",
      "SECRET_UNRESOLVED",
      "SECRET_PLACEHOLDER_UNREPLACED"
    ],
    writes: false
  },
  {
    name: "doctor",
    usage: "catalog doctor [--json]",
    examples: ["catalog doctor", "catalog doctor --json | jq '.checks[] | select(.ok | not)'"],
    errors: [],
    writes: false
  },
  {
    name: "config",
    usage: "catalog config [--json] | catalog config catalog-only <on|off>",
    examples: ["catalog config", "catalog config catalog-only on"],
    errors: ["CONFIG_INPUT_INVALID", "CONFIG_INVALID"],
    writes: true
  },
  {
    name: "skill",
    usage: "catalog skill",
    examples: ["catalog skill > CATALOG_SKILL.md"],
    errors: [],
    writes: false
  },
  {
    name: "mcp",
    usage: "catalog mcp [--print-config | --skill]",
    examples: [
      "catalog mcp --print-config",
      "catalog mcp --print-config > .mcp.json",
      "catalog mcp --skill > CATALOG_MCP_SKILL.md"
    ],
    errors: ["INVALID_PARAM"],
    writes: false
  },
  {
    name: "open",
    usage: "catalog open [--port <n>] [--json]",
    examples: ["catalog open", "catalog open --port 8080", "CATALOG_HTTP_PORT=0 catalog open --json"],
    errors: ["MAP_NOT_FOUND", "PORT_IN_USE", "INVALID_PARAM", "SCHEMA_MIGRATION_REQUIRED"],
    writes: false
  },
  {
    name: "invite",
    usage: "catalog invite [--no-upload] [--yes] [--email <address> | --unbound] [--json]",
    flags: [{
      flag: "--yes",
      description: "upload without asking (off a terminal it is required), and send a stale catalog as it is"
    }],
    examples: [
      "catalog invite --no-upload",
      "catalog invite --email dpo@acme.example",
      "CATALOG_PORTAL_URL=https://portal.example.com catalog invite --email dpo@acme.example --yes --json",
      "catalog invite --unbound --yes"
    ],
    errors: [
      "INVITE_RECIPIENT_REQUIRED",
      "CATALOG_ONLY",
      "CONFIG_NOT_FOUND",
      "CONFIG_INVALID",
      "MAP_NOT_FOUND",
      "STALE_CATALOG",
      "SNAPSHOT_TOO_LARGE",
      "UPLOAD_NOT_CONFIRMED",
      "PORTAL_UNREACHABLE",
      "INGEST_UNAUTHORIZED",
      "INGEST_RATE_LIMITED",
      "MAIL_NOT_CONFIGURED",
      "SCHEMA_MIGRATION_REQUIRED",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "push",
    usage: "catalog push [--json]",
    examples: [
      "catalog push",
      "CATALOG_PORTAL_URL=https://portal.example.com CATALOG_SYNC_TOKEN=sync_… catalog push --json"
    ],
    errors: [
      "CATALOG_ONLY",
      "CONFIG_INVALID",
      "MAP_NOT_FOUND",
      "SYNC_MISCONFIGURED",
      "SYNC_UNAUTHORIZED",
      "SYNC_FAILED",
      "CLAIM_NOT_SYNCABLE",
      "SNAPSHOT_TOO_LARGE",
      "INGEST_UNAUTHORIZED",
      "INGEST_RATE_LIMITED",
      "SCHEMA_MIGRATION_REQUIRED",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "verify",
    usage: "catalog verify [--seal-with-open-calls] [--json]",
    examples: [
      "CATALOG_SIGNER_NAME='Ada Lovelace' CATALOG_SIGNER_ROLE=DPO catalog verify",
      "catalog verify --seal-with-open-calls"
    ],
    errors: [
      "PORTAL_NOT_INSTALLED",
      "CONFIRM_REQUIRED",
      "CATALOG_ONLY",
      "CONFIG_INVALID",
      "MAP_NOT_FOUND",
      "SYNC_MISCONFIGURED",
      "SYNC_UNAUTHORIZED",
      "SYNC_FAILED",
      "CLAIM_NOT_SYNCABLE",
      "LICENCE_MISSING",
      "LICENCE_INVALID",
      "LICENCE_TENANT_MISMATCH",
      "LICENCE_EXPIRED",
      "LICENCE_REVOKED",
      "TERMS_NOT_ACCEPTED",
      "CONTROLLER_REQUIRED",
      "SIGNER_NAME_REQUIRED",
      "OPEN_LEGAL_CALLS",
      "SNAPSHOT_TOO_LARGE",
      "INGEST_UNAUTHORIZED",
      "INGEST_RATE_LIMITED",
      "SEAL_PULL_FAILED",
      "SCHEMA_MIGRATION_REQUIRED",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "seal",
    usage: "catalog seal pull [--json]",
    examples: ["catalog seal pull", "catalog seal pull --json"],
    errors: [
      "PORTAL_NOT_INSTALLED",
      "CATALOG_ONLY",
      "CONFIG_INVALID",
      "MAP_NOT_FOUND",
      "SYNC_MISCONFIGURED",
      "SYNC_UNAUTHORIZED",
      "SYNC_FAILED",
      "CLAIM_NOT_SYNCABLE",
      "INGEST_UNAUTHORIZED",
      "SEAL_PULL_FAILED",
      "SCHEMA_MIGRATION_REQUIRED",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "serve-claim",
    usage: "catalog serve-claim [--port <n>] [--json]",
    examples: [
      "catalog invite --no-upload && catalog serve-claim",
      "catalog serve-claim --port 8080",
      "CATALOG_CLAIM_PORT=0 catalog serve-claim --json"
    ],
    errors: ["INVITE_NOT_FOUND", "PORT_IN_USE", "INVALID_PARAM"],
    writes: false
  },
  {
    name: "lineage",
    usage:
      "catalog lineage list [--dataset <datasetId>] [--origin scan|dbt|user] [--json] | catalog lineage add <fromDatasetId> <toDatasetId> | catalog lineage remove <edgeId>",
    examples: [
      "catalog lineage list",
      "catalog lineage list --dataset pg/public/orders --json",
      "catalog lineage list --origin dbt --json",
      "catalog lineage add crm/public/contacts pg/public/customer",
      "catalog lineage remove e_0123456789ab"
    ],
    errors: [
      "MAP_NOT_FOUND",
      "DESCRIBE_ENTITY_UNKNOWN",
      "INVALID_PARAM",
      "LINEAGE_ENDPOINT_UNKNOWN",
      "LINEAGE_EDGE_NOT_REMOVABLE"
    ],
    writes: true
  },
  {
    name: "provenance",
    usage: "catalog provenance [--json]",
    examples: ["catalog provenance", "catalog provenance --json | jq .coverage"],
    errors: ["MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "glossary",
    usage: "catalog glossary list [--json] | catalog glossary set <term> <definition> [--datasets id,id]",
    examples: [
      "catalog glossary list --json",
      "catalog glossary set 'Active customer' 'A customer with an order in the last 12 months' --datasets pg/public/customer,pg/public/orders",
      "catalog search active customer"
    ],
    errors: ["MAP_NOT_FOUND", "GLOSSARY_TERM_UNKNOWN", "DESCRIBE_ENTITY_UNKNOWN"],
    writes: true
  },
  {
    name: "describe",
    usage:
      "catalog describe list [--dataset <datasetId>] [--limit <n>] [--offset <n>] [--json] | catalog describe draft <datasetId|columnId> [--json]",
    examples: [
      "catalog describe list",
      "catalog describe list --dataset pg/public/customer --json",
      "catalog describe list --offset 100",
      "catalog describe draft pg/public/customer",
      "catalog describe draft pg/public/customer/email --json"
    ],
    errors: ["MAP_NOT_FOUND", "DESCRIBE_ENTITY_UNKNOWN", "INVALID_PARAM"],
    writes: true
  },
  {
    name: "annotate",
    usage:
      "catalog annotate list [--json] | catalog annotate set <activityKey> <purpose|lawfulBasis|retention|transfers> <value> [--confirm] [--json]",
    examples: [
      "catalog annotate list",
      "catalog annotate set shop.customers purpose \"Online orders and support\"",
      "CATALOG_SIGNER_EMAIL=dpo@example.com catalog annotate set shop.customers lawfulBasis \"Art. 6(1)(b)\" --confirm"
    ],
    errors: ["MAP_NOT_FOUND", "ROPA_INPUT_INVALID", "SIGNER_REQUIRED", "ROPA_NONE_UNCONFIRMED"],
    writes: true
  },
  {
    name: "dora",
    usage:
      "catalog dora show [--json] | catalog dora import <tableCode> <file.csv> [--merge] | catalog dora set <tableCode> <rowKey> <field> <value> | catalog dora set <tableCode> <rowKey> --remove | catalog dora export [--out <dir>] [--ref-date <YYYY-MM-DD>] [--level con|ind] | catalog dora pull [--json]",
    examples: [
      "catalog dora show --json",
      "catalog dora import B_05.01 providers.csv",
      "catalog dora set B_02.01 CTR-001 c0050 250000",
      "catalog dora set B_04.01 \"CTR-001|969500EXAMPLEBANK039|Not applicable\" c0030 x839",
      "catalog dora export --out ./dora-export --json",
      "catalog dora pull --json"
    ],
    errors: [
      "MAP_NOT_FOUND",
      "CONFIG_NOT_FOUND",
      "CONFIG_INVALID",
      "DORA_INPUT_INVALID",
      "DORA_NOT_SUBMITTABLE",
      "INVALID_PARAM",
      "DORA_PULL_FAILED",
      "SYNC_MISCONFIGURED",
      "SYNC_UNAUTHORIZED",
      "CLAIM_NOT_SYNCABLE",
      "CATALOG_ONLY"
    ],
    writes: true
  },
  {
    name: "watch",
    usage: "catalog watch [--ci] [--webhook <url>] [--json]",
    examples: ["catalog watch --ci", "catalog watch --webhook https://hooks.example.com/catalog --json"],
    errors: ["WEBHOOK_FAILED", "CONFIG_NOT_FOUND", "NO_SOURCES", "NO_SOURCE_DETECTED", "SOURCE_UNREACHABLE"],
    writes: true
  },
  {
    name: "export",
    usage: "catalog export [--out <file.json> [--yes]] [--json]",
    flags: [{ flag: "--yes", description: "replace an existing --out file" }],
    examples: [
      "catalog export --out team-catalog.json",
      "catalog export --out team-catalog.json --yes",
      "catalog export > team-catalog.json"
    ],
    errors: ["MAP_NOT_FOUND", "CONFIRM_REQUIRED", "INVALID_PARAM"],
    writes: false
  },
  {
    name: "import",
    usage: "catalog import <file.json> [--json]",
    examples: ["catalog import team-catalog.json"],
    errors: ["CATALOG_FILE_INVALID", "CATALOG_VERSION_UNSUPPORTED", "ROPA_CONFIRM_UNATTRIBUTED", "MAP_NOT_FOUND"],
    writes: true
  },
  {
    name: "evidence",
    usage: "catalog evidence [--out <dir> [--yes]] | catalog evidence --verify <dir> [--json]",
    flags: [{ flag: "--yes", description: "replace an earlier bundle in --out" }],
    examples: ["catalog evidence --out audit-2026-q4", "catalog evidence --verify audit-2026-q4"],
    errors: ["EVIDENCE_HASH_MISMATCH", "MAP_NOT_FOUND", "CONFIRM_REQUIRED", "INVALID_PARAM"],
    writes: false
  },
  {
    name: "admin",
    usage:
      "catalog admin help [--json] | catalog admin serve [--port <n>] [--json] | catalog admin tenants [--json] | catalog admin remove <claimId> --yes [--json] | catalog admin licence issue <claimId> [--expires <YYYY-MM-DD>] [--json] | catalog admin licence revoke <licenceId> --yes [--json] | catalog admin licence list [--json]",
    flags: [{
      flag: "--yes",
      description: "remove: confirm removing the claim; licence revoke: confirm revoking the licence"
    }],
    examples: [
      "catalog admin help",
      "CATALOG_PORTAL_SIGNING_KEY=portal-signing.pem CATALOG_DEV_MODE=1 catalog admin serve",
      "CATALOG_PORTAL_DATABASE_URL=postgres://portal@db/portal catalog admin tenants --json",
      "catalog admin remove cl_3h9KxQ2mVt0aZbYw --yes",
      "CATALOG_PORTAL_SIGNING_KEY=portal-signing.pem catalog admin licence issue cl_3h9KxQ2mVt0aZbYw --expires 2027-06-30",
      "catalog admin licence revoke li_Vd0cXk3mQ9aZbYwT --yes"
    ],
    errors: [
      "ADMIN_INPUT_INVALID",
      "ADMIN_ENV_INCOMPLETE",
      "ADMIN_NOT_CONFIRMED",
      "PORTAL_NOT_READY",
      "PORT_IN_USE",
      "CLAIM_NOT_FOUND",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "help",
    usage: "catalog help [command] [--json]",
    examples: ["catalog help --json", "catalog help start --json"],
    errors: ["INVALID_PARAM"],
    writes: false
  }
]

/** Every environment variable the tool reads. */
export const environmentDocs: ReadonlyArray<{ readonly name: string; readonly description: string }> = [
  { name: "CATALOG_CONFIG", description: "path of catalog.yml (default: ./catalog.yml, then .catalog/catalog.yml)" },
  { name: "CATALOG_DATA", description: "folder of the local catalog (default: ./.catalog); index.db lives there" },
  {
    name: "<connectionRef>",
    description:
      "each source's connection string, in the variable its connectionRef names (from the environment or ./.env)"
  },
  { name: "CATALOG_SECRET_<ref>", description: "alternative name for a source's connection string" },
  {
    name: "CATALOG_SIGNER_EMAIL",
    description: "who human acts (classification corrections) are attributed to; default: the OS user"
  },
  {
    name: "CATALOG_HTTP_PORT",
    description: "port of `catalog open` on 127.0.0.1 when --port is not given (default 4319)"
  },
  {
    name: "CATALOG_PORTAL_URL",
    description:
      "address of the portal `invite` uploads to and a paired machine syncs with (`push`, and the upload after `start` / `watch`); unset means `invite` answers PORTAL_UNREACHABLE (stay local with `invite --no-upload` and `serve-claim`)"
  },
  {
    name: "CATALOG_SYNC_TOKEN",
    description:
      "a paired machine's sync token (`sync_…`, created on the claim page under 'Connect a machine'): with CATALOG_PORTAL_URL, `push` and every `start` / `watch` upload the refreshed draft to that claim (never when catalog-only is on)"
  },
  {
    name: "CATALOG_INGEST_TOKEN",
    description:
      "invite: sent as `Authorization: Bearer <token>` with an upload; portal (`admin serve`): when set, uploads must present it"
  },
  {
    name: "CATALOG_CLAIM_PORT",
    description: "port of `catalog serve-claim` on 127.0.0.1 when --port is not given (default 4320)"
  },
  // The portal's own settings (`catalog admin serve`; `catalog admin help` lists them too).
  ...portalEnvironment.filter((v) => v.name !== "CATALOG_INGEST_TOKEN").map((v) => ({
    name: v.name,
    description: `portal (\`admin serve\`): ${v.description}`
  })),
  { name: "USER / LOGNAME", description: "the OS user, for attribution when CATALOG_SIGNER_EMAIL is not set" },
  { name: "CI", description: "when set (and not 0/false), never prompt" }
]
