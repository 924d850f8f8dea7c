/**
 * What the agent surface is, as data: the eight read-only MCP tools (names, titles, descriptions)
 * and the registration block / command printed by `catalog mcp --print-config`. The MCP server, the
 * portal's Agents screen and the docs all read this one list.
 */

export interface McpToolInfo {
  readonly name: string
  readonly title: string
  readonly description: string
  /** Listed on the portal's Agents screen only when DORA scope is declared (it is always registered). */
  readonly doraOnly: boolean
}

export const mcpTools: ReadonlyArray<McpToolInfo> = [
  {
    name: "search_datasets",
    title: "Search the data catalog",
    description: "Find where data is stored: ranked hits across datasets (tables, views), columns and glossary terms for the words in `q`, each with `why` it matched and a `snippet`, plus the column's personal-data class. Start here for any 'where do we keep X?' question, then call get_dataset on a hit, then get_provenance before relying on the answer.",
    doraOnly: false
  },
  {
    name: "get_dataset",
    title: "Get one dataset",
    description: "One dataset by id (`<source>/<schema>/<table>`, from search_datasets): its columns and types, each column's personal-data flag (personal / special / criminal / not) with the matched rule, confidence and method (and whether a human set it), the planner row estimate, and lineage upstream and downstream.",
    doraOnly: false
  },
  {
    name: "get_lineage",
    title: "Get lineage",
    description: "Lineage edges (scan, dbt and human-asserted): all of them, or one dataset's upstream and downstream flows when `datasetId` is given. Use it to answer 'what feeds this table?' and 'where does this data go?'.",
    doraOnly: false
  },
  {
    name: "get_compliance_state",
    title: "Get the RoPA draft",
    description: "The GDPR Art. 30 record of processing activities as a DRAFT: activities, their systems, data categories and subjects, and the four legal fields (purpose, lawful basis, retention, transfers) with status suggested or confirmed (and who confirmed). Read-only: only a named human can confirm a legal field, with the CLI.",
    doraOnly: false
  },
  {
    name: "get_provenance",
    title: "Check provenance and freshness",
    description: "How far to trust the catalog: per-source reachability and staleness tier (fresh / stale-warn / stale-loud / never), the classifier-method roll-up, the change-log head, and seal 'draft'. Call it before relying on any answer and turn stale or unreachable sources into caveats.",
    doraOnly: false
  },
  {
    name: "get_changes",
    title: "Get recent changes",
    description: "The change-log, newest first: datasets and columns added or dropped, type changes, reclassifications and human corrections (with who). Default: since the last scan; `since` takes a change sequence number (0 = everything) or an ISO-8601 timestamp.",
    doraOnly: false
  },
  {
    name: "get_glossary",
    title: "Get the business glossary",
    description: "Business terms with their plain-English definitions and the datasets they relate to.",
    doraOnly: false
  },
  {
    name: "get_dora",
    title: "Get the DORA register draft",
    description: "The DORA Register of Information draft (tables, rows, validation problems) when the organisation declared DORA scope; otherwise {inScope: false, register: null}.",
    doraOnly: true
  }
]

/** The tools a human sees on the portal's Agents screen (seven when DORA is out of scope). */
export const listedTools = (doraInScope: boolean): ReadonlyArray<McpToolInfo> => mcpTools.filter((t) => doraInScope || !t.doraOnly)

export interface RegistrationPaths {
  /** Absolute path of the catalog folder. */
  readonly dataDir: string
  /** Absolute path of catalog.yml, when that file exists. */
  readonly configPath: string | null
}

/** The `mcpServers` block of SPEC.md §A rule 4, with the package version pinned. */
export const registrationBlock = (paths: RegistrationPaths, version: string) => ({
  mcpServers: {
    catalog: {
      command: "npx",
      args: ["-y", `local-data-catalog@${version}`, "mcp"],
      env: { CATALOG_DATA: paths.dataDir, ...(paths.configPath !== null ? { CATALOG_CONFIG: paths.configPath } : {}) }
    }
  }
})

const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`)

/** The one-line registration for a coding client; the server name comes before `--env` (a known CLI pitfall). */
export const registrationCommand = (paths: RegistrationPaths, version: string): string =>
  [
    "claude mcp add catalog",
    `--env CATALOG_DATA=${shellQuote(paths.dataDir)}`,
    ...(paths.configPath !== null ? [`--env CATALOG_CONFIG=${shellQuote(paths.configPath)}`] : []),
    `-- npx -y local-data-catalog@${version} mcp`
  ].join(" ")
