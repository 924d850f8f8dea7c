/**
 * The `catalog` command tree (@effect/cli). Handlers call services and print through `emit`; each
 * handler provides only the layers it needs, so `add` and `config` work before any scan and the
 * read commands fail with MAP_NOT_FOUND rather than create an empty catalog.
 */
import { Args, Command, Options, Prompt } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import { builtinKinds } from "../../domain/Config.js"
import type { SealState } from "../../domain/Sync.js"
import {
  AddInputInvalid,
  ClassifyInputInvalid,
  ConfigInputInvalid,
  ConfirmRequired,
  DescribeEntityUnknown,
  NoSources,
  SourceNotFound
} from "../../errors/index.js"
import { ConnectorsLazy, ReadLive, ScanLive, WriteLive } from "../../layers/Main.js"
import { indexPath } from "../../layers/Sql.js"
import { actor, AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { Corrections } from "../../services/Corrections.js"
import { Reader } from "../../services/Reader.js"
import { Scanner } from "../../services/Scanner.js"
import { Secrets } from "../../services/Secrets.js"
import { Settings } from "../../services/Settings.js"
import { SourceAdd } from "../../services/SourceAdd.js"
import { SourceProbe } from "../../services/SourceProbe.js"
import { Store } from "../../services/Store.js"
import { Sync } from "../../services/Sync.js"
import { version } from "../../version.js"
import { admin } from "./AdminCommands.js"
import { describe } from "./CatalogCommands.js"
import { runDoctor } from "./doctor.js"
import { discardNewCatalogOnFailure } from "./firstScan.js"
import { type HelpDocument, helpDocumentFor, showHelp } from "./HelpDocument.js"
import { invite, serveClaim } from "./InviteCommands.js"
import { annotate, dora, glossary, lineage, provenance } from "./ReadCommands.js"
import { bold, classLabel, CliFlags, dim, emit, green, red, table, yellow } from "./render.js"
import { skillMarkdown } from "./skill.js"
import { push, SyncOnCatalog } from "./SyncCommands.js"
import { evidence, exportCmd, importCmd } from "./TeamCommands.js"
import { needsSubcommand, positionals } from "./usage.js"
import { seal, verify } from "./VerifyCommands.js"
import { watch } from "./WatchCommand.js"

const pct = (n: number) => `${Math.round(n * 100)}%`

// ── start ────────────────────────────────────────────────────────────────────────────────────
const start = Command.make("start", {}, () =>
  Effect.gen(function*() {
    // Config problems are reported before the catalog file is created or opened.
    const loaded = yield* (yield* ConfigFile).load()
    if (loaded.file.sources.length === 0) return yield* new NoSources({ message: `${loaded.path} lists no sources.` })
    yield* discardNewCatalogOnFailure(scan)
  })).pipe(Command.withDescription(
    "Scan every configured source (metadata only), classify every column and write the local catalog in one transaction; reports coverage. Stays local until the machine is paired with a portal."
  ))

const scan = Effect.gen(function*() {
  const scanner = yield* Scanner
  const env = yield* AppEnv
  const flags = yield* CliFlags
  const draw = env.stderrIsTTY && !flags.json
  const scanned = yield* scanner.run((e) => {
    if (!draw) return
    const bar = `[${e.done}/${e.total}]`
    process.stderr.write(
      e.phase === "start"
        ? `\r\u001b[K${bar} scanning ${e.source}…`
        : `\r\u001b[K${bar} ${e.source} ${e.phase === "done" ? "scanned" : "not reached"}\n`
    )
  })
  // A paired machine uploads the refreshed draft; whatever happens there, the scan stands (exit 0).
  const report = { ...scanned, upload: yield* (yield* Sync).afterScan(scanned.upload) }
  yield* emit(report, (r) => {
    const lines = [
      bold("Scan complete") + dim(` (scan #${r.summary.scanId})`),
      table(
        ["source", "kind", "reached", "datasets", "columns", "personal-type", "time"],
        r.sources.map((s) => [
          s.id,
          s.kind,
          s.reached ? green("yes") : red("no"),
          String(s.datasets),
          String(s.columns),
          String(s.personal),
          `${s.ms} ms`
        ])
      ),
      "",
      `${r.coverage.complete ? green("Coverage:") : yellow("Coverage:")} ${r.coverage.line}`,
      ...r.sources.filter((s) => s.error).map((s) =>
        `  ${red(s.error!.code)} ${s.id}: ${s.error!.message}${s.error!.fix ? `\n    fix: ${s.error!.fix}` : ""}`
      ),
      `Changes: ${r.summary.changes} (${r.summary.added} datasets added, ${r.summary.dropped} dropped, ${r.summary.changed} changed, ${r.summary.unchanged} unchanged, ${r.summary.reclassified} columns reclassified)`,
      r.upload.error !== undefined
        ? `${yellow(r.upload.message)}${r.upload.error.fix !== null ? `\n  fix: ${r.upload.error.fix}` : ""}`
        : r.upload.message,
      dim("Next: catalog status · catalog search <words> · catalog log")
    ]
    return lines.join("\n")
  })
}).pipe(Effect.provide(SyncOnCatalog), Effect.provide(ScanLive))

// ── status ───────────────────────────────────────────────────────────────────────────────────
const day = (iso: string) => iso.slice(0, 10)

/** The status line of the record's seal (SPEC's Record seal table). */
export const recordLine = (info: SealState | undefined): string => {
  const last = info?.last ?? null
  if (info === undefined || last === null) return "DRAFT, not an official record"
  const who = `${last.signer.name} (${last.signer.role})`
  if (info.state === "sealed") {
    return `${green("SEALED")} by ${who} on ${day(last.sealedAt)}, licence until ${day(last.licence.expiresAt)}`
  }
  return `DRAFT (the seal of ${day(last.sealedAt)} lapsed with the licence: ${
    info.reason ?? "LICENCE_EXPIRED"
  }; what was signed stays valid)`
}

const status = Command.make("status", {}, () =>
  Effect.gen(function*() {
    const reader = yield* Reader
    const s = yield* reader.status
    yield* emit(s, (s) =>
      [
        `${bold("Catalog")}: ${s.datasets} datasets, ${s.columns} columns, last scan ${s.lastScanAt ?? "never"}`,
        `Personal-data items: ${s.personalDataItems} columns in ${s.datasetsWithPersonalData} datasets — ${
          classLabel("personal")
        } ${s.classes.personal}, ${classLabel("special")} ${s.classes.special}, ${
          classLabel("criminal")
        } ${s.classes.criminal}, ${classLabel("not")} ${s.classes.not}`,
        `Human corrections: ${s.overrides}${
          s.drift > 0 ? yellow(` (${s.drift} now disagree with the scan — review them)`) : ""
        }`,
        `${s.coverage.complete ? green("Coverage:") : yellow("Coverage:")} ${s.coverage.line}`,
        ...s.sourceStates.map((x) =>
          `  ${x.id} (${x.kind}) ${
            x.reachable ? green("reached") : red(x.status)
          } · ${x.staleness} · ${x.datasets} datasets${x.lastScannedAt ? ` · scanned ${x.lastScannedAt}` : ""}`
        ),
        `Record: ${recordLine(s.sealInfo)}`,
        `Upload: ${s.upload}`
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "Counts of datasets, columns and personal-data items per class, the coverage line, catalog-only and the record's seal (draft, or sealed: by whom, when, licence until)."
  ))

// ── datasets / show ──────────────────────────────────────────────────────────────────────────
const datasets = Command.make("datasets", {}, () =>
  Effect.gen(function*() {
    const list = yield* (yield* Reader).datasets
    yield* emit(list, (l) =>
      l.datasets.length === 0
        ? "No datasets."
        : table(
          ["dataset", "kind", "rows", "columns", "highest"],
          l.datasets.map((d) => [d.id, d.kind, d.rowCount.display, String(d.columnCount), classLabel(d.highest)])
        ))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "List every dataset with its row estimate, column count and highest personal-data class."
  ))

const show = Command.make("show", {
  id: Args.text({ name: "datasetId" }).pipe(Args.withDescription("the dataset id, <source>/<schema>/<table>"))
}, ({ id }) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    const d = yield* reader.dataset(id).pipe(Effect.catchTag("DatasetNotFound", () =>
      new DescribeEntityUnknown({
        message: `No dataset with id "${id}".`,
        fix: "List dataset ids with `catalog datasets` or find one with `catalog search <words>`.",
        param: "datasetId"
      })))
    yield* emit(d, (d) =>
      [
        `${bold(d.id)} ${dim(`(${d.kind})`)} · ${d.rowCount.display}${d.comment ? `\n${d.comment}` : ""}`,
        // Column ids, as `classify set` and `describe draft` take them.
        table(
          ["column id", "type", "flag", "confidence", "rule", "method"],
          d.columns.map((c) => [
            c.id + (c.primaryKey ? dim(" pk") : "") + (c.references ? dim(` → ${c.references}`) : ""),
            c.type,
            classLabel(c.classification.value) +
            (c.classification.category ? dim(` ${c.classification.category}`) : "") +
            (c.classification.overridden ? yellow(` (set by ${c.classification.by ?? "a human"})`) : "") +
            (c.classification.drift ? red(" drift") : ""),
            pct(c.classification.confidence),
            c.classification.rule,
            c.classification.method
          ])
        ),
        d.lineage.upstream.length + d.lineage.downstream.length === 0 ? dim("No lineage.") : [
          ...d.lineage.upstream.map((e) => `  ← ${e.from} ${dim(`(${e.origin})`)}`),
          ...d.lineage.downstream.map((e) => `  → ${e.to} ${dim(`(${e.origin})`)}`)
        ].join("\n")
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "One dataset: columns, types, flags with rule, confidence and method, row estimate, lineage (what the MCP tool get_dataset returns)."
  ))

// ── search / log ─────────────────────────────────────────────────────────────────────────────
const search = Command.make("search", {
  words: Args.text({ name: "words" }).pipe(Args.withDescription("what to look for"), Args.repeated),
  limit: Options.text("limit").pipe(
    Options.withPseudoName("<n>"),
    Options.withDescription("how many hits (default 20, max 100)"),
    Options.optional
  )
}, ({ limit, words }) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    const r = yield* reader.search(words.join(" "), Option.getOrUndefined(limit))
    yield* emit(r, (r) =>
      r.hits.length === 0 ? `No hits for "${r.q}".` : [
        ...r.hits.map((h) =>
          `${bold(h.title)} ${
            dim(`[${h.kind}${h.classification ? ` · ${h.classification}` : ""}] score ${h.score}`)
          }\n  ${h.why}\n  ${dim(h.snippet)}`
        ),
        dim(`${r.returned} of ${r.total} hits`)
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "Ranked hits across datasets, columns and glossary terms, each with why it matched and a snippet."
  ))

const log = Command.make("log", {
  since: Options.text("since").pipe(
    Options.withPseudoName("<seq|timestamp>"),
    Options.withDescription("a change sequence number or an ISO-8601 timestamp (default: the last scan)"),
    Options.optional
  ),
  limit: Options.text("limit").pipe(
    Options.withPseudoName("<n>"),
    Options.withDescription("how many entries (default 50, max 1000)"),
    Options.optional
  )
}, ({ limit, since }) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    const r = yield* reader.changes(Option.getOrUndefined(since), Option.getOrUndefined(limit))
    yield* emit(r, (r) =>
      r.changes.length === 0 ? `No changes${r.since ? ` since ${r.since}` : ""}.` : [
        // Summaries of human acts already begin with who did them; name the person once.
        ...r.changes.map((c) =>
          `${dim(`#${c.seq} ${c.at}`)} ${c.summary}${c.by && !c.summary.includes(c.by) ? dim(` — ${c.by}`) : ""}`
        ),
        dim(
          `${r.returned} of ${r.total} entries${r.since ? ` since ${r.since}` : ""}${
            r.truncated ? " (use --limit or --since for more)" : ""
          }`
        )
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "The append-only change-log, newest first: datasets and columns added or dropped, type changes, reclassifications, human corrections (with who). Default: since the last scan; --since 0 for everything."
  ))

// ── classify ─────────────────────────────────────────────────────────────────────────────────
const CorrectionsLive = Corrections.Default.pipe(Layer.provide(WriteLive))

const classifySet = Command.make(
  "set",
  {
    args: Args.text({ name: "args" }).pipe(
      Args.withDescription("<columnId> <personal|special|criminal|not>: the column and its class"),
      Args.repeated
    )
  },
  ({ args }) =>
    Effect.gen(function*() {
      const [id, value] = yield* positionals(args, {
        error: ClassifyInputInvalid,
        params: [{ param: "columnId", missing: "The column id is missing." }, {
          param: "class",
          missing: "The class is missing."
        }]
      })
      const r = yield* (yield* Corrections).set(id, value)
      yield* emit(r, (x) =>
        `${x.column}: ${classLabel(x.previous)} → ${classLabel(x.value)} (by ${x.by}); survives re-scans${
          x.drift ? ` — the scan says ${x.machine}` : ""
        }.`)
    }).pipe(Effect.provide(CorrectionsLive))
).pipe(Command.withDescription("Set a column's personal-data class; the correction survives every re-scan."))

const classifyClear = Command.make(
  "clear",
  {
    args: Args.text({ name: "columnId" }).pipe(
      Args.withDescription("the column id, <source>/<schema>/<table>/<column>"),
      Args.repeated
    )
  },
  ({ args }) =>
    Effect.gen(function*() {
      const [id] = yield* positionals(args, {
        error: ClassifyInputInvalid,
        params: [{ param: "columnId", missing: "The column id is missing." }]
      })
      const r = yield* (yield* Corrections).clear(id)
      yield* emit(r, (x) =>
        x.cleared
          ? `${x.column}: correction cleared; back to the scan's ${classLabel(x.value)}.`
          : `${x.column} had no correction; it stays ${classLabel(x.value)}.`)
    }).pipe(Effect.provide(CorrectionsLive))
).pipe(Command.withDescription("Remove a column's correction: it returns to the scan's own class."))

const classify = Command.make("classify", {}, () => needsSubcommand("classify", ["set", "clear"])).pipe(
  Command.withSubcommands([classifySet, classifyClear]),
  Command.withDescription(
    "Correct a column's personal-data flag (survives every re-scan, attributed to CATALOG_SIGNER_EMAIL or the OS user), or clear the correction to return to the scan's own value."
  )
)

// ── sources / add / test ─────────────────────────────────────────────────────────────────────
const confirm = (message: string) =>
  Effect.gen(function*() {
    const flags = yield* CliFlags
    if (flags.yes) return true
    const env = yield* AppEnv
    if (!env.interactive) return false
    return yield* Prompt.confirm({ message, initial: false })
  })

const sourcesList = Command.make("sources", {}, () =>
  Effect.gen(function*() {
    // The catalog's view of each source, when there is a catalog (this command never creates one).
    const states = Effect.flatMap(Reader, (reader) => reader.sourceStates).pipe(
      Effect.provide(ReadLive),
      Effect.catchTag("MapNotFound", () => Effect.succeed([]))
    )
    const list = yield* (yield* Settings).sources(states)
    yield* emit(list, (x) =>
      x.sources.length === 0 ? "No sources. Add one with `catalog add <kind> --ref <VAR>`." : table(
        ["id", "kind", "ref / path", "secret", "status", "staleness", "datasets"],
        x.sources.map((s) => [
          s.id,
          s.kind,
          s.connectionRef ?? s.path ?? "",
          s.secret === null
            ? "-"
            : s.secret === "set"
            ? green("set")
            : s.secret === "placeholder"
            ? red("placeholder (replace it in .env)")
            : red("missing"),
          s.status,
          s.staleness,
          String(s.datasets)
        ])
      ))
  }).pipe(Effect.provide(Settings.Default)))

const sourcesRemove = Command.make("remove", {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("the id of the source to remove"))
}, ({ id }) =>
  Effect.gen(function*() {
    const config = yield* ConfigFile
    const cfg = yield* config.load()
    if (!cfg.file.sources.some((s) => s.id === id)) {
      return yield* new SourceNotFound({ message: `No source with id "${id}" in ${cfg.path}.`, param: "id" })
    }
    if (!(yield* confirm(`Remove source "${id}" from catalog.yml and its datasets from the catalog?`))) {
      return yield* new ConfirmRequired({
        message: `Removing source "${id}" permanently deletes its datasets, flags and scan lineage from the catalog.`,
        fix: `Re-run with --yes: catalog sources remove ${id} --yes`,
        param: "yes"
      })
    }
    const env = yield* AppEnv
    yield* config.removeSource(id)
    const hasIndex = fs.existsSync(indexPath(dataDir(env)))
    const removed = hasIndex ?
      yield* Effect.gen(function*() {
        const store = yield* Store
        return yield* Effect.orDie(store.removeSource(id, actor(env)))
      }).pipe(Effect.provide(WriteLive)) :
      { datasets: 0 }
    yield* emit({ removed: id, datasets: removed.datasets }, (x) =>
      `Removed source ${x.removed} (${x.datasets} datasets left the catalog).`)
  })).pipe(Command.withDescription(
    "Remove a source from catalog.yml and its datasets from the catalog (confirm with --yes off a TTY)."
  ))

const sources = sourcesList.pipe(
  Command.withSubcommands([sourcesRemove]),
  Command.withDescription(
    "List the configured sources with reachability and staleness, or remove one (from catalog.yml and, with its datasets, from the catalog)."
  )
)

const add = Command.make("add", {
  kind: Args.text({ name: "kind" }).pipe(
    Args.withDescription(`the source kind: ${builtinKinds.join(", ")}, or one a configured connector provides`),
    Args.optional
  ),
  ref: Options.text("ref").pipe(
    Options.withPseudoName("<ENV_VAR_NAME>"),
    Options.withDescription(
      "name of the variable holding the connection string (postgres://…, mysql://…, or a SQLite file path)"
    ),
    Options.optional
  ),
  from: Options.text("from").pipe(
    Options.withPseudoName("<schema.csv>"),
    Options.withDescription(
      "manual: a data-dictionary CSV with header table,column,type[,description]; dbt: dbt's target/manifest.json"
    ),
    Options.optional
  ),
  target: Options.text("target").pipe(
    Options.withPseudoName("<source-id>"),
    Options.withDescription("dbt: the configured warehouse source the manifest's relations map onto (required)"),
    Options.optional
  ),
  id: Options.text("id").pipe(
    Options.withPseudoName("<id>"),
    Options.withDescription("source id (default: the kind)"),
    Options.optional
  ),
  label: Options.text("label").pipe(
    Options.withPseudoName("<text>"),
    Options.withDescription("a human label"),
    Options.optional
  ),
  region: Options.text("region").pipe(
    Options.withPseudoName("<region>"),
    Options.withDescription("where the data is hosted (e.g. eu-west-1, us-east-1)"),
    Options.optional
  ),
  role: Options.text("role").pipe(
    Options.withPseudoName("controller"),
    Options.withDescription("the organisation's role for this source's data"),
    Options.optional
  )
}, (o) =>
  Effect.gen(function*() {
    const [kind] = yield* positionals(Option.toArray(o.kind), {
      error: AddInputInvalid,
      fix: `Usage: catalog add <${builtinKinds.join("|")}> --ref <ENV_VAR_NAME> (manual: --from <schema.csv>).`,
      params: [{ param: "kind", missing: "Which kind of source? The kind is missing." }]
    })
    const r = yield* (yield* SourceAdd).add({
      kind,
      ref: Option.getOrUndefined(o.ref),
      from: Option.getOrUndefined(o.from),
      target: Option.getOrUndefined(o.target),
      id: Option.getOrUndefined(o.id),
      label: Option.getOrUndefined(o.label),
      region: Option.getOrUndefined(o.region),
      role: Option.getOrUndefined(o.role)
    })
    if (!r.added) {
      yield* emit(r, (x) => `Source "${x.source.id}" is already configured; nothing to do.`)
      return
    }
    yield* emit(r, (x) =>
      [
        `Added source ${bold(x.source.id)} (${x.source.kind}) to ${x.config}.`,
        ...(x.preview ? [`It describes ${x.preview.tables} tables and ${x.preview.columns} columns.`] : []),
        ...(x.envPlaceholder
          ? [
            yellow(
              `${x.source.connectionRef} was not set: a placeholder line was added to .env — replace it with the real connection string.`
            )
          ]
          : []),
        dim(`Next: catalog test ${x.source.id} · catalog start`)
      ].join("\n"))
  }).pipe(Effect.provide(SourceAdd.Default.pipe(Layer.provide(ConnectorsLazy))))).pipe(Command.withDescription(
    "Add a source to catalog.yml. Only the variable's name is written; when the variable is not set, a placeholder line is added to .env for you to replace. `add dbt` adds a lineage-only source: the manifest (dbt v10–v12) must parse and --target must name a configured non-dbt source; its models, seeds, snapshots and sources map onto that source's datasets at each scan."
  ))

const test = Command.make("test", {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("the id of a configured source"))
}, ({ id }) =>
  Effect.gen(function*() {
    const r = yield* (yield* SourceProbe).probe(id)
    yield* emit(r, (x) =>
      `${green("reachable")} ${x.id} (${x.kind}) at ${x.target}${
        x.serverVersion ? ` — ${x.serverVersion}` : ""
      } in ${x.ms} ms`)
  }).pipe(Effect.provide(SourceProbe.Default.pipe(Layer.provide(ConnectorsLazy))))).pipe(Command.withDescription(
    "Probe one source: resolve its secret, connect, report the server version and round-trip time."
  ))

// ── doctor / config / skill / help ───────────────────────────────────────────────────────────
const doctor = Command.make(
  "doctor",
  {},
  () => runDoctor.pipe(Effect.provide(Layer.merge(Secrets.Default, ConnectorsLazy)))
).pipe(Command.withDescription(
  "Check the setup end to end (runtime, catalog.yml, .env, each secret, each source reachable, the store's version; when paired, the portal reachable, the sync token accepted, the claim live and the portal's key) and print the fix for each problem."
))

const configShow = Command.make("config", {}, () =>
  Effect.gen(function*() {
    const out = yield* (yield* Settings).show()
    yield* emit(out, (o) =>
      [
        `config file:   ${o.config ?? red("none (run `catalog add` or copy catalog.yml.example)")}`,
        `catalog data:  ${o.dataDir}`,
        `catalog-only:  ${o.catalogOnly ? "on" : "off"} — ${o.egress}`,
        `controller:    ${o.controller ? `${o.controller.name ?? "?"} <${o.controller.contact ?? "?"}>` : "not set"}`,
        `DORA scope:    ${o.doraInScope ? "in scope" : "not in scope"}`,
        `sources:       ${
          o.sources.length === 0
            ? "none"
            : o.sources.map((s) =>
              `${s.id} (${s.kind}, ${s.connectionRef ? `$${s.connectionRef} ${s.secret ?? "missing"}` : s.path})`
            ).join(", ")
        }`
      ].join("\n"))
  }).pipe(Effect.provide(Settings.Default)))

const catalogOnly = Command.make(
  "catalog-only",
  { value: Args.text({ name: "on|off" }).pipe(Args.withDescription("on or off"), Args.repeated) },
  ({ value }) =>
    Effect.gen(function*() {
      const unexpected = (given: ReadonlyArray<string>) => `catalog-only takes on or off; got "${given.join(" ")}".`
      const [v] = yield* positionals(value, {
        error: ConfigInputInvalid,
        params: [{ param: "catalog-only", missing: "catalog-only needs on or off." }],
        unexpected
      })
      if (v !== "on" && v !== "off") {
        return yield* new ConfigInputInvalid({ message: unexpected(value), param: "catalog-only", usage: true })
      }
      const file = yield* (yield* ConfigFile).setKey("catalogOnly", v === "on")
      yield* emit({ catalogOnly: v === "on", config: file }, (x) =>
        x.catalogOnly
          ? `catalog-only is on: no metadata will ever leave this machine, even when paired (${x.config}).`
          : `catalog-only is off (${x.config}).`)
    })
).pipe(Command.withDescription(
  "Switch catalog-only: when on, no metadata ever leaves this machine, even when paired."
))

const config = configShow.pipe(
  Command.withSubcommands([catalogOnly]),
  Command.withDescription(
    "Show the settings in effect (files, sources with their variable names, catalog-only, environment), or switch catalog-only: when on, no metadata ever leaves this machine, even when paired."
  )
)

// ── mcp (the agent server; its program and the MCP SDK load only when this command runs) ──────
const mcp = Command.make(
  "mcp",
  {
    printConfig: Options.boolean("print-config").pipe(Options.withDescription(
      "print the mcpServers block that starts this build (absolute Node + dist/bin.js; `npx -y local-data-catalog@<version>` only when installed from a registry) with absolute CATALOG_DATA and CATALOG_CONFIG; warns on stderr before the first scan"
    )),
    skill: Options.boolean("skill").pipe(Options.withDescription(
      "print the versioned markdown playbook for the assistant (tool order, trust vocabulary, Hard Rule #4)"
    ))
  },
  (options) =>
    Effect.flatMap(
      Effect.promise(() => import("../mcp/main.js")),
      (m) => Effect.flatMap(CliFlags, (f) => m.mcp({ ...options, json: f.json }))
    )
).pipe(Command.withDescription(
  "The read-only agent (MCP) server over stdio, started by the AI application: eight read tools, no write tool, no network; logs on stderr; ends when stdin closes. --print-config prints the mcpServers registration block on stdout (the one-line `claude mcp add` command and any warning on stderr); --skill prints the assistant's playbook."
))

// ── open (the read API + local portal page; the HTTP stack loads only when this command runs) ─
const open = Command.make(
  "open",
  {
    port: Options.text("port").pipe(
      Options.withPseudoName("<n>"),
      Options.withDescription(
        "port on 127.0.0.1 (default 4319, or CATALOG_HTTP_PORT; 0 picks a free port and prints it)"
      ),
      Options.optional
    )
  },
  ({ port }) =>
    Effect.flatMap(
      Effect.promise(() => import("../http/main.js")),
      (m) => Effect.flatMap(CliFlags, (f) => m.open({ port: Option.getOrUndefined(port), json: f.json }))
    )
).pipe(Command.withDescription(
  "Serve the local portal page (/) and the read-only HTTP API (/api/v1: ten GET routes, OpenAPI at /api/v1/openapi.json) on 127.0.0.1 until Ctrl+C; a human runs it in its own terminal. Loopback only: requests whose Host is not localhost/127.0.0.1/[::1] are refused. Prints the URL on stderr (with --json, one line {url, api, port} on stdout once listening)."
))

const skill = Command.make(
  "skill",
  {},
  () =>
    Effect.flatMap(CliFlags, (f) =>
      f.json
        ? Console.log(JSON.stringify({ version, markdown: skillMarkdown(version) }, null, 2))
        : Console.log(skillMarkdown(version)))
).pipe(Command.withDescription("Print the versioned markdown playbook for a coding agent driving this CLI."))

// ── help (generated from this tree: HelpDocument.ts) ───────────────────────────────────────────
const help = Command.make("help", {
  command: Args.text({ name: "command" }).pipe(
    Args.withDescription("the command to document (default: all of them)"),
    Args.repeated
  )
}, ({ command }) => Effect.suspend(() => showHelp(helpDocument(), command))).pipe(Command.withDescription(
  "Every command with usage and examples, the environment variables read, and the full error registry (code, message, fix)."
))

/** `catalog` alone prints the command list (as JSON with --json), like `catalog help`. */
export const root = Command.make("catalog", {}, () => Effect.suspend(() => showHelp(helpDocument(), []))).pipe(
  Command.withSubcommands([
    start,
    status,
    datasets,
    show,
    search,
    log,
    classify,
    sources,
    add,
    test,
    doctor,
    config,
    skill,
    help,
    lineage,
    provenance,
    glossary,
    describe,
    annotate,
    dora,
    watch,
    exportCmd,
    importCmd,
    evidence,
    mcp,
    open,
    invite,
    push,
    verify,
    seal,
    serveClaim,
    admin
  ]),
  Command.withDescription("Maps where personal data lives (metadata only) and drafts the records that follow.")
)

/** The help document of this tree (read once per process). */
export const helpDocument: () => HelpDocument = helpDocumentFor(root)

export const cli = Command.run(root, { name: "catalog", version })
