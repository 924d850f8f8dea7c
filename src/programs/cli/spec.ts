/**
 * What `help` says about each command: usage, summary, examples, the options it takes. The
 * @effect/cli tree in Cli.ts parses; this table documents. A test keeps the two in step.
 */
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

const json = {
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

export const commandDocs: ReadonlyArray<CommandDoc> = [
  {
    name: "start",
    usage: "catalog start [--json]",
    summary:
      "Scan every configured source (metadata only), classify every column and write the local catalog in one transaction; reports coverage. Stays local until the machine is paired with a portal.",
    options: [json],
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
    summary:
      "Counts of datasets, columns and personal-data items per class, the coverage line, catalog-only and the seal (draft).",
    options: [json],
    examples: ["catalog status", "catalog status --json"],
    errors: ["MAP_NOT_FOUND", "SCHEMA_MIGRATION_REQUIRED"],
    writes: false
  },
  {
    name: "datasets",
    usage: "catalog datasets [--json]",
    summary: "List every dataset with its row estimate, column count and highest personal-data class.",
    options: [json],
    examples: ["catalog datasets", "catalog datasets --json | jq '.datasets[] | select(.highest != \"not\") | .id'"],
    errors: ["MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "show",
    usage: "catalog show <datasetId> [--json]",
    summary:
      "One dataset: columns, types, flags with rule, confidence and method, row estimate, lineage (what the MCP tool get_dataset returns).",
    options: [json],
    examples: ["catalog show pg/public/customer", "catalog show pg/public/customer --json"],
    errors: ["MAP_NOT_FOUND", "DESCRIBE_ENTITY_UNKNOWN"],
    writes: false
  },
  {
    name: "search",
    usage: "catalog search <words...> [--limit <n>] [--json]",
    summary: "Ranked hits across datasets, columns and glossary terms, each with why it matched and a snippet.",
    options: [{ flag: "--limit <n>", description: "how many hits (default 20, max 100)" }, json],
    examples: ["catalog search email", "catalog search customer birth date --limit 5 --json"],
    errors: ["INVALID_PARAM", "MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "log",
    usage: "catalog log [--since <seq|ISO-8601>] [--limit <n>] [--json]",
    summary:
      "The append-only change-log, newest first: datasets and columns added or dropped, type changes, reclassifications, human corrections (with who). Default: since the last scan; --since 0 for everything.",
    options: [
      {
        flag: "--since <seq|timestamp>",
        description: "a change sequence number or an ISO-8601 timestamp (default: the last scan)"
      },
      { flag: "--limit <n>", description: "how many entries (default 50, max 1000)" },
      json
    ],
    examples: ["catalog log", "catalog log --since 0 --limit 200", "catalog log --since 2026-11-01T00:00:00Z --json"],
    errors: ["INVALID_PARAM", "MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "classify",
    usage: "catalog classify set <columnId> <personal|special|criminal|not> | catalog classify clear <columnId>",
    summary:
      "Correct a column's personal-data flag (survives every re-scan, attributed to CATALOG_SIGNER_EMAIL or the OS user), or clear the correction to return to the scan's own value.",
    options: [json],
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
    summary:
      "List the configured sources with reachability and staleness, or remove one (from catalog.yml and, with its datasets, from the catalog).",
    options: [{ flag: "--yes", description: "confirm the removal (required off a TTY)" }, json],
    examples: ["catalog sources", "catalog sources remove legacy-crm --yes"],
    errors: ["SOURCE_NOT_FOUND", "CONFIRM_REQUIRED", "CONFIG_NOT_FOUND"],
    writes: true
  },
  {
    name: "add",
    usage:
      "catalog add <postgres|mysql|sqlite> --ref <ENV_VAR_NAME> [--id <id>] [--label <text>] [--region <region>] [--role controller] [--yes] | catalog add manual --from <schema.csv> [--id <id>] --yes | catalog add dbt --from <manifest.json> --target <warehouse-source-id> [--id <id>] --yes",
    summary:
      "Add a source to catalog.yml. Only the variable's name is written; when the variable is not set, a placeholder line is added to .env for you to replace. `add dbt` adds a lineage-only source: the manifest (dbt v10–v12) must parse and --target must name a configured non-dbt source; its models, seeds, snapshots and sources map onto that source's datasets at each scan.",
    options: [
      {
        flag: "--ref <ENV_VAR_NAME>",
        description:
          "name of the variable holding the connection string (postgres://…, mysql://…, or a SQLite file path)"
      },
      {
        flag: "--from <schema.csv>",
        description:
          "manual: a data-dictionary CSV with header table,column,type[,description]; dbt: dbt's target/manifest.json"
      },
      {
        flag: "--target <source-id>",
        description: "dbt: the configured warehouse source the manifest's relations map onto (required)"
      },
      { flag: "--id <id>", description: "source id (default: the kind)" },
      { flag: "--label <text>", description: "a human label" },
      { flag: "--region <region>", description: "where the data is hosted (e.g. eu-west-1, us-east-1)" },
      { flag: "--role controller", description: "the organisation's role for this source's data" },
      { flag: "--yes", description: "accept defaults" },
      json
    ],
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
    summary: "Probe one source: resolve its secret, connect, report the server version and round-trip time.",
    options: [json],
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
    summary:
      "Check the setup end to end (runtime, catalog.yml, .env, each secret, each source reachable, the store's version) and print the fix for each problem.",
    options: [json],
    examples: ["catalog doctor", "catalog doctor --json | jq '.checks[] | select(.ok | not)'"],
    errors: [],
    writes: false
  },
  {
    name: "config",
    usage: "catalog config [--json] | catalog config catalog-only <on|off>",
    summary:
      "Show the settings in effect (files, sources with their variable names, catalog-only, environment), or switch catalog-only: when on, no metadata ever leaves this machine, even when paired.",
    options: [json],
    examples: ["catalog config", "catalog config catalog-only on"],
    errors: ["CONFIG_INPUT_INVALID", "CONFIG_INVALID"],
    writes: true
  },
  {
    name: "skill",
    usage: "catalog skill",
    summary: "Print the versioned markdown playbook for a coding agent driving this CLI.",
    options: [json],
    examples: ["catalog skill > CATALOG_SKILL.md"],
    errors: [],
    writes: false
  },
  {
    name: "mcp",
    usage: "catalog mcp [--print-config | --skill]",
    summary:
      "The read-only agent (MCP) server over stdio, started by the AI application: eight read tools, no write tool, no network; logs on stderr; ends when stdin closes. --print-config prints the mcpServers registration block on stdout (the one-line `claude mcp add` command and any warning on stderr); --skill prints the assistant's playbook.",
    options: [
      {
        flag: "--print-config",
        description:
          "print the mcpServers block that starts this build (absolute Node + dist/bin.js; `npx -y local-data-catalog@<version>` only when installed from a registry) with absolute CATALOG_DATA and CATALOG_CONFIG; warns on stderr before the first scan"
      },
      {
        flag: "--skill",
        description:
          "print the versioned markdown playbook for the assistant (tool order, trust vocabulary, Hard Rule #4)"
      },
      json
    ],
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
    summary:
      "Serve the local portal page (/) and the read-only HTTP API (/api/v1: ten GET routes, OpenAPI at /api/v1/openapi.json) on 127.0.0.1 until Ctrl+C; a human runs it in its own terminal. Loopback only: requests whose Host is not localhost/127.0.0.1/[::1] are refused. Prints the URL on stderr (with --json, one line {url, api, port} on stdout once listening).",
    options: [
      {
        flag: "--port <n>",
        description: "port on 127.0.0.1 (default 4319, or CATALOG_HTTP_PORT; 0 picks a free port and prints it)"
      },
      json
    ],
    examples: ["catalog open", "catalog open --port 8080", "CATALOG_HTTP_PORT=0 catalog open --json"],
    errors: ["MAP_NOT_FOUND", "PORT_IN_USE", "INVALID_PARAM", "SCHEMA_MIGRATION_REQUIRED"],
    writes: false
  },
  {
    name: "lineage",
    usage:
      "catalog lineage list [--dataset <datasetId>] [--origin scan|dbt|user] [--json] | catalog lineage add <fromDatasetId> <toDatasetId> | catalog lineage remove <edgeId>",
    summary:
      "Lineage edges (scan, dbt and human-asserted): all, or one dataset's upstream and downstream flows (what the MCP tool get_lineage returns). An edge whose endpoint is known only from a dbt manifest (never scanned) is listed with resolvable: false. `add` asserts a user edge (both datasets must exist; attributed to CATALOG_SIGNER_EMAIL or the OS user; never touched by scans); `remove` removes a user edge — scan and dbt edges are regenerated by every scan and cannot be removed.",
    options: [{ flag: "--dataset <id>", description: "list: only this dataset's edges" }, {
      flag: "--origin <origin>",
      description: "list: only edges of this origin (scan, dbt, user)"
    }, json],
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
    summary:
      "How far to trust the catalog: per-source reachability and staleness tier, classifier-method roll-up, change-log head, seal draft (what get_provenance returns).",
    options: [json],
    examples: ["catalog provenance", "catalog provenance --json | jq .coverage"],
    errors: ["MAP_NOT_FOUND"],
    writes: false
  },
  {
    name: "glossary",
    usage: "catalog glossary list [--json] | catalog glossary set <term> <definition> [--datasets id,id]",
    summary:
      "Business terms with definitions and related datasets (what get_glossary returns). `set` adds or updates a term (matched case-insensitively; attributed to CATALOG_SIGNER_EMAIL or the OS user); terms are found by `catalog search`. Without --datasets an update keeps the term's datasets; --datasets replaces them, and every id must be a dataset of the catalog (else DESCRIBE_ENTITY_UNKNOWN).",
    options: [{
      flag: "--datasets <id,id>",
      description: "set: the related dataset ids, comma-separated (\"\" clears them)"
    }, json],
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
    summary:
      "list: dataset ids with their column count, how many columns are described and their own description (drafted or written); with --dataset, that dataset's column ids and descriptions. Pages of --limit (default 100, max 1000) from --offset; the JSON carries total and nextOffset. draft: writes a description drafted from metadata only (kind, size estimate, columns, personal-data classes present, keys, lineage), stored and marked drafted; a description a human wrote is kept, never overwritten.",
    options: [
      { flag: "--dataset <id>", description: "list: this dataset's columns instead of the datasets" },
      { flag: "--limit <n>", description: "list: page size (default 100, max 1000)" },
      { flag: "--offset <n>", description: "list: where the page starts (the previous page's nextOffset)" },
      json
    ],
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
    summary:
      "The RoPA draft (Art. 30): activity keys, their legal fields and each field's status (list: what get_compliance_state returns). set saves a draft fill (stays suggested); --confirm makes it confirmed, recording CATALOG_SIGNER_EMAIL and the time. 'None' closes a field as 'does not apply' and needs --confirm.",
    options: [
      { flag: "--confirm", description: "confirm the legal call as the person named by CATALOG_SIGNER_EMAIL" },
      json
    ],
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
      "catalog dora show [--json] | catalog dora import <tableCode> <file.csv> [--merge] | catalog dora set <tableCode> <rowKey> <field> <value> | catalog dora set <tableCode> <rowKey> --remove | catalog dora export [--out <dir>] [--ref-date <YYYY-MM-DD>] [--level con|ind]",
    summary:
      "The DORA Register of Information draft (tables by code, rows by row key, fields by column code). `show` prints it with its validation problems, or {inScope: false, register: null} (what get_dora returns); `import` replaces a table's rows with a CSV file (header row of column codes plus data rows; --merge keeps the other rows); `set` writes one cell (\"\" clears it); `export` writes the xBRL-CSV report package (<out>/<name>.zip and the same files unpacked in <out>/<name>/) only when the whole register validates. A composite row key joins the key-column values with |. See docs/dora.md.",
    options: [
      {
        flag: "--merge",
        description: "import: update the file's rows and keep the table's other rows (default: replace the table)"
      },
      { flag: "--remove", description: "set: remove the whole row" },
      { flag: "--out <dir>", description: "export: folder the package is written to (default ./dora-export)" },
      {
        flag: "--ref-date <YYYY-MM-DD>",
        description: "export: reference date of the collection (default: 31 December of the previous year)"
      },
      {
        flag: "--level <con|ind>",
        description:
          "export: consolidated or individual register (default: con when B_01.02 lists more than one entity)"
      },
      json
    ],
    examples: [
      "catalog dora show --json",
      "catalog dora import B_05.01 providers.csv",
      "catalog dora set B_02.01 CTR-001 c0050 250000",
      "catalog dora set B_04.01 \"CTR-001|969500EXAMPLEBANK039|Not applicable\" c0030 x839",
      "catalog dora export --out ./dora-export --json"
    ],
    errors: [
      "MAP_NOT_FOUND",
      "CONFIG_NOT_FOUND",
      "CONFIG_INVALID",
      "DORA_INPUT_INVALID",
      "DORA_NOT_SUBMITTABLE",
      "INVALID_PARAM"
    ],
    writes: true
  },
  {
    name: "watch",
    usage: "catalog watch [--ci] [--webhook <url>] [--json]",
    summary:
      "Re-scan every source, then report what moved in the RoPA draft. --ci exits 3 when a core RoPA field moved (activities, legal fields, data categories or subjects, special/criminal data, systems) and says which; --webhook POSTs a JSON change summary (metadata only; skipped when catalog-only is on).",
    options: [{ flag: "--ci", description: "exit 3 when a core RoPA field moved" }, {
      flag: "--webhook <url>",
      description: "POST the change summary to this http(s) URL"
    }, json],
    examples: ["catalog watch --ci", "catalog watch --webhook https://hooks.example.com/catalog --json"],
    errors: ["WEBHOOK_FAILED", "CONFIG_NOT_FOUND", "NO_SOURCES", "NO_SOURCE_DETECTED", "SOURCE_UNREACHABLE"],
    writes: true
  },
  {
    name: "export",
    usage: "catalog export [--out <file.json> [--yes]] [--json]",
    summary:
      "Write the team catalog file: every human-made fact (classification overrides, user lineage edges, glossary, descriptions, RoPA fills and confirmations with who confirmed, DORA cells) as deterministic JSON with format and integer version. Without --out it prints the file. An existing file is replaced only with --yes (atomically); the file is private to your account (0600).",
    options: [{ flag: "--out <file>", description: "write to this file instead of stdout" }, {
      flag: "--yes",
      description: "replace an existing --out file"
    }, json],
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
    summary:
      "Merge a team catalog file (newer rows win on conflicts). All or nothing: a file that is not a team catalog, from a newer version, or with a confirmed answer naming no confirmer imports nothing.",
    options: [json],
    examples: ["catalog import team-catalog.json"],
    errors: ["CATALOG_FILE_INVALID", "CATALOG_VERSION_UNSUPPORTED", "ROPA_CONFIRM_UNATTRIBUTED", "MAP_NOT_FOUND"],
    writes: true
  },
  {
    name: "evidence",
    usage: "catalog evidence [--out <dir> [--yes]] | catalog evidence --verify <dir> [--json]",
    summary:
      "Write an evidence bundle (RoPA draft as JSON and Markdown, DORA draft, provenance, change-log extract) with a manifest of SHA-256 fingerprints; --verify recomputes them and names any artifact that changed. --out must be a new or empty folder, or an earlier bundle (replaced whole, with --yes); a folder holding other files is refused.",
    options: [
      { flag: "--out <dir>", description: "folder to write (default evidence-<timestamp>)" },
      { flag: "--verify <dir>", description: "check a bundle against its manifest" },
      { flag: "--yes", description: "replace an earlier bundle in --out" },
      json
    ],
    examples: ["catalog evidence --out audit-2026-q4", "catalog evidence --verify audit-2026-q4"],
    errors: ["EVIDENCE_HASH_MISMATCH", "MAP_NOT_FOUND", "CONFIRM_REQUIRED", "INVALID_PARAM"],
    writes: false
  },
  {
    name: "help",
    usage: "catalog help [command] [--json]",
    summary:
      "Every command with usage and examples, the environment variables read, and the full error registry (code, message, fix).",
    options: [json],
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
  { name: "USER / LOGNAME", description: "the OS user, for attribution when CATALOG_SIGNER_EMAIL is not set" },
  { name: "CI", description: "when set (and not 0/false), never prompt" }
]
