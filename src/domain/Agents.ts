/**
 * What the agent surface is, as data: the eight read-only MCP tools (names, titles, descriptions)
 * and the registration block / command printed by `catalog mcp --print-config`. The MCP server, the
 * portal's Agents screen and the docs all read this one list.
 *
 * No I/O of its own: the facts about the running install (the Node binary, the entry file, a way to
 * read the lockfiles) are passed in by the caller at run time; `node:path` is string arithmetic.
 */
import * as path from "node:path"

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
    description:
      "Find where data is stored: ranked hits across datasets (tables, views), columns and glossary terms for the words in `q`, each with `why` it matched and a `snippet`, plus the column's personal-data class. Start here for any 'where do we keep X?' question, then call get_dataset on a hit, then get_provenance before relying on the answer.",
    doraOnly: false
  },
  {
    name: "get_dataset",
    title: "Get one dataset",
    description:
      "One dataset by id (`<source>/<schema>/<table>`, from search_datasets): its columns and types, each column's personal-data flag (personal / special / criminal / not) with the matched rule, confidence and method (and whether a human set it), the planner row estimate, and lineage upstream and downstream.",
    doraOnly: false
  },
  {
    name: "get_lineage",
    title: "Get lineage",
    description:
      "Lineage edges (scan, dbt and human-asserted): all of them, or one dataset's upstream and downstream flows when `datasetId` is given. Use it to answer 'what feeds this table?' and 'where does this data go?'.",
    doraOnly: false
  },
  {
    name: "get_compliance_state",
    title: "Get the RoPA draft",
    description:
      "The GDPR Art. 30 record of processing activities as a DRAFT: activities, their systems, data categories and subjects, and the four legal fields (purpose, lawful basis, retention, transfers) with status suggested or confirmed (and who confirmed). Read-only: only a named human can confirm a legal field, with the CLI.",
    doraOnly: false
  },
  {
    name: "get_provenance",
    title: "Check provenance and freshness",
    description:
      "How far to trust the catalog: per-source reachability and staleness tier (fresh / stale-warn / stale-loud / never), the classifier-method roll-up, the change-log head, and seal 'draft'. Call it before relying on any answer and turn stale or unreachable sources into caveats.",
    doraOnly: false
  },
  {
    name: "get_changes",
    title: "Get recent changes",
    description:
      "The change-log, newest first: datasets and columns added or dropped, type changes, reclassifications and human corrections (with who). Default: since the last scan; `since` takes a change sequence number (0 = everything) or an ISO-8601 timestamp.",
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
    description:
      "The DORA Register of Information draft (tables, rows, validation problems) when the organisation declared DORA scope; otherwise {inScope: false, register: null}.",
    doraOnly: true
  }
]

/** The tools a human sees on the portal's Agents screen (seven when DORA is out of scope). */
export const listedTools = (doraInScope: boolean): ReadonlyArray<McpToolInfo> =>
  mcpTools.filter((t) => doraInScope || !t.doraOnly)

export interface RegistrationPaths {
  /** Absolute path of the catalog folder. */
  readonly dataDir: string
  /** Absolute path of catalog.yml, when that file exists. */
  readonly configPath: string | null
}

/** How an AI application starts the agent server: an executable and its arguments (the env is added by the block). */
export interface LaunchCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** The npm package name (package.json `name`): what `npx` is asked for. */
export const packageName = "local-data-catalog"

/** `npx -y local-data-catalog@<version> mcp`: resolves only where the package is on a registry. */
export const npxLaunch = (version: string): LaunchCommand => ({
  command: "npx",
  args: ["-y", `${packageName}@${version}`, "mcp"]
})

/**
 * True when `resolved` (an npm lockfile's record of where this package came from) is the registry
 * tarball of exactly this version: `http(s)://<registry>/<name>/-/<name>-<version>.tgz`. A clone, an
 * `npm link`, a `file:` tarball or folder, a git URL or no record at all are not.
 */
export const isRegistryTarball = (resolved: string, version: string): boolean => {
  if (!/^https?:\/\//i.test(resolved)) return false
  try {
    return new URL(resolved).pathname.endsWith(`/${packageName}/-/${packageName}-${version}.tgz`)
  } catch {
    return false
  }
}

/** What the running install can tell about itself, passed in at run time by the caller (files are read only through `readText`). */
export interface InstallFacts {
  /** Absolute path of the Node binary running now (`process.execPath`: src/bin.ts has checked it is ≥ 22.18). */
  readonly nodePath: string
  /** Absolute path of this build's entry file (`<package root>/dist/bin.js`). */
  readonly entry: string
  /** Reads a text file; null when it does not exist or cannot be read. */
  readonly readText: (absolutePath: string) => string | null
}

/**
 * Where npm recorded this package's origin: for each `node_modules` folder above the package (the
 * nearest first), its hidden lockfile `node_modules/.package-lock.json`, then the project's
 * `package-lock.json`, looked up under the package's path from that project (`node_modules/<name>`,
 * or deeper when nested). The first lockfile that lists the package decides; its `resolved` (or
 * null when it has none) is returned. Null when no lockfile lists it (a clone, yarn, pnpm…).
 */
export const recordedOrigin = (facts: InstallFacts): string | null => {
  const packageRoot = path.dirname(path.dirname(facts.entry))
  for (let dir = path.dirname(packageRoot); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") continue
    const project = path.dirname(dir)
    const key = path.relative(project, packageRoot).split(path.sep).join("/")
    for (const lockfile of [path.join(dir, ".package-lock.json"), path.join(project, "package-lock.json")]) {
      const text = facts.readText(lockfile)
      if (text === null) continue
      let listed: unknown
      try {
        listed = (JSON.parse(text) as { packages?: Record<string, unknown> } | null)?.packages?.[key]
      } catch {
        continue
      }
      if (typeof listed !== "object" || listed === null) continue
      const resolved = (listed as { resolved?: unknown }).resolved
      return typeof resolved === "string" ? resolved : null
    }
  }
  return null
}

/**
 * The command that starts this very build, wherever the AI application runs it from:
 * - installed from a registry (npm recorded a registry tarball of this version as its origin):
 *   `npx -y local-data-catalog@<version> mcp`, which that registry will resolve again;
 * - anything else (a clone, a local or linked install, a `file:` tarball, no lockfile): the Node
 *   binary running now and this build's entry file, both absolute, then `mcp`.
 */
export const launchCommand = (facts: InstallFacts, version: string): LaunchCommand => {
  const origin = recordedOrigin(facts)
  return origin !== null && isRegistryTarball(origin, version)
    ? npxLaunch(version)
    : { command: facts.nodePath, args: [facts.entry, "mcp"] }
}

/** The `mcpServers` block of SPEC.md §A rule 4, starting the server with `launch`. */
export const registrationBlock = (paths: RegistrationPaths, launch: LaunchCommand) => ({
  mcpServers: {
    catalog: {
      command: launch.command,
      args: [...launch.args],
      env: { CATALOG_DATA: paths.dataDir, ...(paths.configPath !== null ? { CATALOG_CONFIG: paths.configPath } : {}) }
    }
  }
})

/** Quotes a word for a POSIX shell when it needs it. */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`)

/** The one-line registration for a coding client; the server name comes before `--env` (a known CLI pitfall). */
export const registrationCommand = (paths: RegistrationPaths, launch: LaunchCommand): string =>
  [
    "claude mcp add catalog",
    `--env CATALOG_DATA=${shellQuote(paths.dataDir)}`,
    ...(paths.configPath !== null ? [`--env CATALOG_CONFIG=${shellQuote(paths.configPath)}`] : []),
    "--",
    ...[launch.command, ...launch.args].map(shellQuote)
  ].join(" ")
