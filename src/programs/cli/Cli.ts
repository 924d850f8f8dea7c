/**
 * The `catalog` command tree (@effect/cli). Handlers call services and print through `emit`; each
 * handler provides only the layers it needs, so `add` and `config` work before any scan and the
 * read commands fail with MAP_NOT_FOUND rather than create an empty catalog.
 */
import { Args, Command, Options, Prompt } from "@effect/cli"
import { Console, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { builtinKinds, defaultDriver, type SourceConfig } from "../../domain/Config.js"
import { type ClassValue, classValues } from "../../domain/Metadata.js"
import {
  AddInputInvalid,
  ClassifyInputInvalid,
  cliRegistry,
  ConfigInputInvalid,
  ConfirmRequired,
  DescribeEntityUnknown,
  InvalidParam,
  NoSources,
  SourceNotFound
} from "../../errors/index.js"
import { ConnectorsLazy, ReadLive, ScanLive, WriteLive } from "../../layers/Main.js"
import { indexPath } from "../../layers/Sql.js"
import { actor, AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { Connectors } from "../../services/Connectors.js"
import { readUserFile } from "../../services/Files.js"
import { Reader } from "../../services/Reader.js"
import { Scanner } from "../../services/Scanner.js"
import { Secrets, secretState } from "../../services/Secrets.js"
import { Store, StoreReader } from "../../services/Store.js"
import { version } from "../../version.js"
import { describe } from "./CatalogCommands.js"
import { runDoctor } from "./doctor.js"
import { discardNewCatalogOnFailure } from "./firstScan.js"
import { annotate, dora, glossary, lineage, provenance } from "./ReadCommands.js"
import { bold, classLabel, CliFlags, dim, emit, green, red, table, yellow } from "./render.js"
import { skillMarkdown } from "./skill.js"
import { commandDocs, environmentDocs, globalOptions } from "./spec.js"
import { evidence, exportCmd, importCmd } from "./TeamCommands.js"
import { needsSubcommand } from "./usage.js"
import { watch } from "./WatchCommand.js"

const pct = (n: number) => `${Math.round(n * 100)}%`

// ── start ────────────────────────────────────────────────────────────────────────────────────
const start = Command.make("start", {}, () =>
  Effect.gen(function*() {
    // Config problems are reported before the catalog file is created or opened.
    const loaded = yield* (yield* ConfigFile).load()
    if (loaded.file.sources.length === 0) return yield* new NoSources({ message: `${loaded.path} lists no sources.` })
    yield* discardNewCatalogOnFailure(scan)
  }))

const scan = Effect.gen(function*() {
  const scanner = yield* Scanner
  const env = yield* AppEnv
  const flags = yield* CliFlags
  const draw = env.stderrIsTTY && !flags.json
  const report = yield* scanner.run((e) => {
    if (!draw) return
    const bar = `[${e.done}/${e.total}]`
    process.stderr.write(
      e.phase === "start"
        ? `\r\u001b[K${bar} scanning ${e.source}…`
        : `\r\u001b[K${bar} ${e.source} ${e.phase === "done" ? "scanned" : "not reached"}\n`
    )
  })
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
      r.upload,
      dim("Next: catalog status · catalog search <words> · catalog log")
    ]
    return lines.join("\n")
  })
}).pipe(Effect.provide(ScanLive))

// ── status ───────────────────────────────────────────────────────────────────────────────────
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
        `Record: ${s.seal === "draft" ? "DRAFT, not an official record" : "sealed"}`,
        `Upload: ${s.upload}`
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive)))

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
  }).pipe(Effect.provide(ReadLive)))

const show = Command.make("show", { id: Args.text({ name: "datasetId" }) }, ({ id }) =>
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
  }).pipe(Effect.provide(ReadLive)))

// ── search / log ─────────────────────────────────────────────────────────────────────────────
const search = Command.make("search", {
  words: Args.text({ name: "words" }).pipe(Args.repeated),
  limit: Options.text("limit").pipe(Options.optional)
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
  }).pipe(Effect.provide(ReadLive)))

const log = Command.make("log", {
  since: Options.text("since").pipe(Options.optional),
  limit: Options.text("limit").pipe(Options.optional)
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
  }).pipe(Effect.provide(ReadLive)))

// ── classify ─────────────────────────────────────────────────────────────────────────────────
const requireColumn = (id: string) =>
  Effect.gen(function*() {
    const store = yield* StoreReader
    const col = yield* Effect.orDie(store.column(id))
    if (col === null) {
      return yield* new DescribeEntityUnknown({
        message: `No column with id "${id}".`,
        fix: "Column ids are <source>/<schema>/<table>/<column>; list them with `catalog show <datasetId>`.",
        param: "columnId"
      })
    }
    return col
  })

const classifySet = Command.make(
  "set",
  { args: Args.text({ name: "args" }).pipe(Args.repeated) },
  ({ args }) =>
    Effect.gen(function*() {
      const [id, value, ...extra] = args
      if (id === undefined || value === undefined || extra.length > 0) {
        return yield* new ClassifyInputInvalid({
          message: id === undefined
            ? "The column id is missing."
            : value === undefined
            ? "The class is missing."
            : `Unexpected arguments: ${extra.join(" ")}`,
          param: id === undefined ? "columnId" : "class",
          usage: true
        })
      }
      if (!classValues.includes(value as ClassValue)) {
        return yield* new ClassifyInputInvalid({
          message: `"${value}" is not a class; use personal, special, criminal or not.`,
          param: "class"
        })
      }
      const env = yield* AppEnv
      const store = yield* Store
      yield* requireColumn(id)
      const by = actor(env)
      const r = yield* Effect.orDie(store.setOverride(id, value as ClassValue, by))
      const col = yield* requireColumn(id)
      yield* emit(
        { column: id, value, previous: r.previous, machine: col.m_value, by, drift: col.m_value !== value },
        (x) =>
          `${x.column}: ${classLabel(x.previous)} → ${classLabel(x.value)} (by ${x.by}); survives re-scans${
            x.drift ? ` — the scan says ${x.machine}` : ""
          }.`
      )
    }).pipe(Effect.provide(WriteLive))
)

const classifyClear = Command.make(
  "clear",
  { args: Args.text({ name: "columnId" }).pipe(Args.repeated) },
  ({ args }) =>
    Effect.gen(function*() {
      const [id, ...extra] = args
      if (id === undefined || extra.length > 0) {
        return yield* new ClassifyInputInvalid({
          message: id === undefined ? "The column id is missing." : `Unexpected arguments: ${extra.join(" ")}`,
          param: "columnId",
          usage: true
        })
      }
      const env = yield* AppEnv
      const store = yield* Store
      yield* requireColumn(id)
      const r = yield* Effect.orDie(store.clearOverride(id, actor(env)))
      yield* emit({ column: id, cleared: r.cleared, value: r.restored }, (x) =>
        x.cleared
          ? `${x.column}: correction cleared; back to the scan's ${classLabel(x.value)}.`
          : `${x.column} had no correction; it stays ${classLabel(x.value)}.`)
    }).pipe(Effect.provide(WriteLive))
)

const classify = Command.make("classify", {}, () => needsSubcommand("classify", ["set", "clear"])).pipe(
  Command.withSubcommands([classifySet, classifyClear])
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
    const cfg = yield* (yield* ConfigFile).load()
    const env = yield* AppEnv
    const states = yield* Effect.gen(function*() {
      const reader = yield* Reader
      return yield* reader.sourceStates
    }).pipe(Effect.provide(ReadLive), Effect.catchTag("MapNotFound", () => Effect.succeed([])))
    const rows = cfg.file.sources.map((s) => {
      const st = states.find((x) => x.id === s.id)
      const ref = s.connectionRef
      const secret = ref ? secretState(env.env, ref) : null
      return {
        id: s.id,
        kind: s.kind,
        driver: s.driver,
        connectionRef: ref ?? null,
        path: s.path ?? null,
        label: s.label ?? null,
        region: s.region ?? null,
        secretSet: secret === null ? null : secret === "set",
        secret,
        status: st?.status ?? "never",
        staleness: st?.staleness ?? "never",
        datasets: st?.datasets ?? 0,
        lastScannedAt: st?.lastScannedAt ?? null
      }
    })
    yield* emit({ config: cfg.path, sources: rows }, (x) =>
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
  }))

const sourcesRemove = Command.make("remove", { id: Args.text({ name: "id" }) }, ({ id }) =>
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
  }))

const sources = sourcesList.pipe(Command.withSubcommands([sourcesRemove]))

const add = Command.make("add", {
  kind: Args.text({ name: "kind" }).pipe(Args.optional),
  ref: Options.text("ref").pipe(Options.optional),
  from: Options.text("from").pipe(Options.optional),
  id: Options.text("id").pipe(Options.optional),
  label: Options.text("label").pipe(Options.optional),
  region: Options.text("region").pipe(Options.optional),
  role: Options.text("role").pipe(Options.optional),
  target: Options.text("target").pipe(Options.optional)
}, (o) =>
  Effect.gen(function*() {
    const kind = Option.getOrUndefined(o.kind)
    if (kind === undefined) {
      return yield* new AddInputInvalid({
        message: "Which kind of source? The kind is missing.",
        fix: `Usage: catalog add <${builtinKinds.join("|")}> --ref <ENV_VAR_NAME> (manual: --from <schema.csv>).`,
        param: "kind",
        usage: true
      })
    }
    if (!(builtinKinds as ReadonlyArray<string>).includes(kind)) {
      const connectors = yield* Connectors
      yield* connectors.get(kind)
    }
    const role = Option.getOrUndefined(o.role)
    if (role !== undefined && role !== "controller" && role !== "processor") {
      return yield* new AddInputInvalid({
        message: `--role must be controller or processor; got "${role}".`,
        param: "role"
      })
    }
    const config = yield* ConfigFile
    const secrets = yield* Secrets
    const env = yield* AppEnv
    const existing = (yield* config.loadOptional())?.file.sources ?? []
    const ref = Option.getOrUndefined(o.ref)
    const from = Option.getOrUndefined(o.from)
    let source: SourceConfig
    let preview: { tables: number; columns: number } | null = null
    if (kind === "dbt") {
      // A lineage-only source: the manifest must parse and --target must name a configured warehouse source.
      const target = Option.getOrUndefined(o.target)?.trim()
      const warehouses = existing.filter((s) => s.kind !== "dbt").map((s) => s.id)
      const usage = `catalog add dbt --from target/manifest.json --target <${
        warehouses.join("|") || "warehouse-source-id"
      }> --yes`
      if (from === undefined) {
        return yield* new AddInputInvalid({
          message: "A dbt source needs --from <manifest.json> (dbt writes it to target/ on `dbt compile`).",
          fix: usage,
          param: "from"
        })
      }
      if (target === undefined || target === "") {
        return yield* new AddInputInvalid({
          message:
            "A dbt source needs --target <warehouse-source-id>: the configured source whose datasets the models map onto.",
          fix: usage,
          param: "target"
        })
      }
      // A folder, a pipe, an empty, missing or unreadable path is ADD_INPUT_INVALID naming --from (shared path checks).
      const { path: abs, text } = yield* readUserFile(env.cwd, from, {
        flag: "--from",
        what: "dbt's manifest.json",
        refuse: (message) =>
          new AddInputInvalid({
            message,
            fix: `Pass the path of dbt's manifest.json with --from (run \`dbt compile\` to write it). ${usage}`,
            param: "from"
          })
      })
      const warehouse = existing.find((s) => s.id === target)
      if (warehouse === undefined || warehouse.kind === "dbt") {
        return yield* new AddInputInvalid({
          message: warehouse === undefined
            ? `--target "${target}" is not a configured source.`
            : `--target "${target}" is itself a dbt source; it must name the warehouse source the models live in.`,
          fix: warehouses.length > 0
            ? `Use one of: ${warehouses.join(", ")}.`
            : "Add the warehouse first (e.g. catalog add postgres --ref DATABASE_URL), then add dbt with --target <its id>.",
          param: "target"
        })
      }
      const { readDbtManifest } = yield* Effect.promise(() => import("../../layers/connectors/Dbt.js"))
      const parsed = readDbtManifest(text, warehouse.id)
      if (parsed._tag === "Left") {
        return yield* new AddInputInvalid({
          message: `${from}: ${parsed.left}`,
          fix: `Pass dbt's target/manifest.json (schema v10–v12). ${usage}`,
          param: "from"
        })
      }
      const id = Option.getOrElse(o.id, () => "dbt")
      const prior = existing.find((s) => s.id === id)
      if (prior !== undefined && prior.kind === "dbt" && prior.target !== warehouse.id) {
        return yield* new AddInputInvalid({
          message: `dbt source "${id}" already exists with target "${prior.target ?? ""}".`,
          fix: `Pick another id with --id, or remove it first: catalog sources remove ${id} --yes`,
          param: "id"
        })
      }
      const cfgDir = path.dirname(config.find() ?? path.join(env.cwd, "catalog.yml"))
      source = { id, kind, driver: defaultDriver.dbt, path: path.relative(cfgDir, abs) || abs, target: warehouse.id }
    } else if (kind === "manual") {
      if (from === undefined) {
        return yield* new AddInputInvalid({
          message: "A manual source needs --from <schema.csv>.",
          fix: "catalog add manual --from <schema.csv> --yes (header: table,column,type[,description]).",
          param: "from"
        })
      }
      // A folder, a pipe, an empty or unreadable path is ADD_INPUT_INVALID naming --from (shared path checks).
      const { path: abs, text } = yield* readUserFile(env.cwd, from, {
        flag: "--from",
        what: "a data-dictionary CSV file (header table,column,type[,description])",
        refuse: (message) =>
          new AddInputInvalid({
            message,
            fix: "Pass the path of a data-dictionary CSV with --from: catalog add manual --from <schema.csv> --yes.",
            param: "from"
          })
      })
      const { parseSchemaCsv } = yield* Effect.promise(() => import("../../layers/connectors/ManualCsv.js"))
      const parsed = yield* parseSchemaCsv(text, from)
      preview = { tables: parsed.length, columns: parsed.reduce((n, d) => n + d.columns.length, 0) }
      const cfgDir = path.dirname(config.find() ?? path.join(env.cwd, "catalog.yml"))
      source = {
        id: Option.getOrElse(o.id, () => "manual"),
        kind,
        driver: defaultDriver.manual,
        path: path.relative(cfgDir, abs) || abs
      }
    } else {
      if (ref === undefined) {
        return yield* new AddInputInvalid({
          message:
            `A ${kind} source needs --ref <ENV_VAR_NAME>: the name of the variable holding its connection string.`,
          fix: `catalog add ${kind} --ref DATABASE_URL (then set DATABASE_URL in .env)`,
          param: "ref"
        })
      }
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(ref)) {
        return yield* new AddInputInvalid({
          message: "--ref takes the NAME of an environment variable, not a connection string or secret.",
          fix:
            `Put the connection string in .env (e.g. DATABASE_URL=…) and run catalog add ${kind} --ref DATABASE_URL.`,
          param: "ref"
        })
      }
      source = {
        id: Option.getOrElse(o.id, () => kind),
        kind,
        driver: (defaultDriver as Record<string, string>)[kind] ?? kind,
        connectionRef: ref
      }
    }
    const label = Option.getOrUndefined(o.label)
    const region = Option.getOrUndefined(o.region)
    source = {
      ...source,
      ...(label !== undefined ? { label } : {}),
      ...(region !== undefined ? { region } : {}),
      ...(role !== undefined ? { role: role as "controller" | "processor" } : {})
    }
    const same = existing.find((s) => s.id === source.id)
    if (same) {
      const identical = same.kind === source.kind && same.connectionRef === source.connectionRef &&
        same.path === source.path
      if (!identical || Option.isSome(o.id)) {
        if (!identical) {
          return yield* new AddInputInvalid({
            message: `A source with id "${source.id}" already exists with different settings.`,
            fix: `Pick another id with --id, or remove it first: catalog sources remove ${source.id} --yes`,
            param: "id"
          })
        }
      }
      yield* emit({
        added: false,
        source: same,
        config: config.find(),
        envPlaceholder: false,
        message: "already configured"
      }, () => `Source "${same.id}" is already configured; nothing to do.`)
      return
    }
    const file = yield* config.addSource(source)
    const placeholder = source.connectionRef ? yield* secrets.writePlaceholder(source.connectionRef, kind) : false
    yield* emit({ added: true, source, config: file, envPlaceholder: placeholder, preview }, (x) =>
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
  }).pipe(Effect.provide(Layer.merge(Secrets.Default, ConnectorsLazy))))

const test = Command.make("test", { id: Args.text({ name: "id" }) }, ({ id }) =>
  Effect.gen(function*() {
    const cfg = yield* (yield* ConfigFile).load()
    const source = cfg.file.sources.find((s) => s.id === id)
    if (!source) {
      return yield* new SourceNotFound({
        message: `No source with id "${id}" in ${cfg.path}.`,
        fix: "List the configured sources with `catalog sources`.",
        param: "id"
      })
    }
    const connector = yield* (yield* Connectors).get(source.kind)
    const secret = yield* (yield* Secrets).resolve(source, connector.needsSecret)
    const t0 = performance.now()
    const probe = yield* connector.probe({ source, secret, baseDir: cfg.baseDir })
    const ms = Math.round(performance.now() - t0)
    yield* emit(
      { id, kind: source.kind, reachable: true, target: probe.target, serverVersion: probe.serverVersion, ms },
      (x) =>
        `${green("reachable")} ${x.id} (${x.kind}) at ${x.target}${
          x.serverVersion ? ` — ${x.serverVersion}` : ""
        } in ${x.ms} ms`
    )
  }).pipe(Effect.provide(Layer.merge(Secrets.Default, ConnectorsLazy))))

// ── doctor / config / skill / help ───────────────────────────────────────────────────────────
const doctor = Command.make(
  "doctor",
  {},
  () => runDoctor.pipe(Effect.provide(Layer.merge(Secrets.Default, ConnectorsLazy)))
)

/** Whether a source's connection variable is usable: `secretSet` (kept for scripts) and the `secret` state. */
const secretFields = (env: Readonly<Record<string, string | undefined>>, ref: string | undefined) => {
  const secret = ref ? secretState(env, ref) : null
  return { secretSet: secret === null ? null : secret === "set", secret }
}

const configShow = Command.make("config", {}, () =>
  Effect.gen(function*() {
    const config = yield* ConfigFile
    const env = yield* AppEnv
    const loaded = yield* config.loadOptional()
    const dataDirPath = dataDir(env)
    const out = {
      config: loaded?.path ?? null,
      dataDir: dataDirPath,
      catalogOnly: loaded?.file.catalogOnly ?? false,
      egress: (loaded?.file.catalogOnly ?? false)
        ? "catalog-only: no metadata ever leaves this machine, even when paired"
        : "local; metadata leaves only through invite, watch, push or start once paired with a portal",
      controller: loaded?.file.controller ?? null,
      doraInScope: loaded?.file.dora?.inScope ?? false,
      sources: (loaded?.file.sources ?? []).map((s) => ({
        id: s.id,
        kind: s.kind,
        driver: s.driver,
        connectionRef: s.connectionRef ?? null,
        path: s.path ?? null,
        region: s.region ?? null,
        ...secretFields(env.env, s.connectionRef)
      })),
      environment: Object.fromEntries(
        ["CATALOG_CONFIG", "CATALOG_DATA", "CATALOG_SIGNER_EMAIL"].map((k) => [k, env.env[k] ?? null])
      )
    }
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
  }))

const catalogOnly = Command.make(
  "catalog-only",
  { value: Args.text({ name: "on|off" }).pipe(Args.repeated) },
  ({ value }) =>
    Effect.gen(function*() {
      const v = value[0]
      if (value.length !== 1 || (v !== "on" && v !== "off")) {
        return yield* new ConfigInputInvalid({
          message: value.length === 0
            ? "catalog-only needs on or off."
            : `catalog-only takes on or off; got "${value.join(" ")}".`,
          param: "catalog-only",
          usage: true
        })
      }
      const file = yield* (yield* ConfigFile).setKey("catalogOnly", v === "on")
      yield* emit({ catalogOnly: v === "on", config: file }, (x) =>
        x.catalogOnly
          ? `catalog-only is on: no metadata will ever leave this machine, even when paired (${x.config}).`
          : `catalog-only is off (${x.config}).`)
    })
)

const config = configShow.pipe(Command.withSubcommands([catalogOnly]))

// ── mcp (the agent server; its program and the MCP SDK load only when this command runs) ──────
const mcp = Command.make(
  "mcp",
  { printConfig: Options.boolean("print-config"), skill: Options.boolean("skill") },
  (options) =>
    Effect.flatMap(
      Effect.promise(() => import("../mcp/main.js")),
      (m) => Effect.flatMap(CliFlags, (f) => m.mcp({ ...options, json: f.json }))
    )
)

// ── open (the read API + local portal page; the HTTP stack loads only when this command runs) ─
const open = Command.make(
  "open",
  { port: Options.text("port").pipe(Options.optional) },
  ({ port }) =>
    Effect.flatMap(
      Effect.promise(() => import("../http/main.js")),
      (m) => Effect.flatMap(CliFlags, (f) => m.open({ port: Option.getOrUndefined(port), json: f.json }))
    )
)

const skill = Command.make(
  "skill",
  {},
  () =>
    Effect.flatMap(CliFlags, (f) =>
      f.json
        ? Console.log(JSON.stringify({ version, markdown: skillMarkdown(version) }, null, 2))
        : Console.log(skillMarkdown(version)))
)

/**
 * A summary's first sentence, for the one-line command list: it ends at a full stop that closes the
 * sentence, never inside parentheses ("The RoPA draft (Art. 30) …") or after an abbreviation.
 */
export const firstSentence = (text: string): string => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === "(" || ch === "[") depth++
    else if ((ch === ")" || ch === "]") && depth > 0) depth--
    else if (ch === "." && depth === 0) {
      const next = text.slice(i + 1)
      const word = /(\S+)$/.exec(text.slice(0, i))?.[1] ?? ""
      const abbreviation = /^(e\.g|i\.e|etc|vs|Art|No|cf)$/i.test(word)
      if (!abbreviation && (next === "" || /^\s+[A-Z`"(]/.test(next))) return text.slice(0, i)
    }
  }
  return text.replace(/\.$/, "")
}

/**
 * A registry fix as this build can honour it. Codes of later releases (the portal's) name commands
 * that have not shipped yet; until they do, the fix says so instead of sending a user to a command
 * that does not exist. Checked against the real command list, so it flips when the command lands.
 */
const availableFix = (fix: string | null): string | null => {
  if (fix === null) return null
  const known = new Set(commandDocs.map((c) => c.name))
  const missing = [...fix.matchAll(/`catalog ([a-z][a-z-]*)/g)].map((m) => m[1]!).find((w) => !known.has(w))
  return missing === undefined
    ? fix
    : `Not raised by this build: \`${missing}\` ships with the portal, in a later release.`
}

export const helpDocument = () => ({
  tool: "catalog",
  package: "local-data-catalog",
  version,
  usage: "catalog <command> [options]",
  globalOptions,
  exitCodes: {
    "0": "ok",
    "1": "error (a registry code)",
    "2": "usage (unknown command or flag, missing or invalid parameter)",
    "3": "a core RoPA field moved (watch --ci)"
  },
  commands: commandDocs,
  environment: environmentDocs,
  errors: cliRegistry.map((e) => ({
    code: e.code,
    group: e.group,
    message: e.message,
    fix: availableFix(e.fix),
    exitCode: e.exitCode
  }))
})

const showHelp = ({ command }: { readonly command: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const doc = helpDocument()
    if (command.length === 0) {
      yield* emit(doc, (d) =>
        [
          `${
            bold("catalog")
          } ${d.version} — maps where personal data lives (metadata only) and drafts the records that follow.`,
          "",
          table(["command", "what it does"], d.commands.map((c) => [c.name, firstSentence(c.summary)])),
          "",
          `Global: ${d.globalOptions.map((g) => g.flag).join(" · ")}`,
          `Exit codes: 0 ok · 1 error · 2 usage · 3 a core RoPA field moved`,
          dim("catalog help <command> for usage and examples; catalog help --json for the error registry.")
        ].join("\n"))
      return
    }
    const name = command.join(" ")
    const one = doc.commands.find((c) => c.name === name || c.name === command[0])
    if (!one) {
      return yield* new InvalidParam({
        message: `Unknown command "${name}".`,
        fix: `Known commands: ${doc.commands.map((c) => c.name).join(", ")}.`,
        param: "command"
      })
    }
    const errors = doc.errors.filter((e) => one.errors.includes(e.code))
    yield* emit({ ...one, errors }, (c) =>
      [
        bold(c.usage),
        "",
        c.summary,
        "",
        ...c.options.map((o) => `  ${o.flag.padEnd(28)} ${o.description}`),
        "",
        "Examples:",
        ...c.examples.map((e) => `  ${e}`),
        ...(c.errors.length > 0
          ? ["", "Errors:", ...c.errors.map((e) => `  ${e.code} — ${e.message}${e.fix ? ` Fix: ${e.fix}` : ""}`)]
          : [])
      ].join("\n"))
  })

const help = Command.make("help", { command: Args.text({ name: "command" }).pipe(Args.repeated) }, showHelp)

/** `catalog` alone prints the command list (as JSON with --json), like `catalog help`. */
export const root = Command.make("catalog", {}, () => showHelp({ command: [] })).pipe(
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
    open
  ])
)

export const cli = Command.run(root, { name: "catalog", version })
