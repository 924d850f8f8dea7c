/**
 * CLI read commands that answer the same questions as the MCP tools and HTTP routes: each prints
 * exactly the Reader's value with --json (a parity test compares the three surfaces).
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import type { RopaDraft } from "../../domain/Compliance.js"
import { DescribeEntityUnknown, InvalidParam } from "../../errors/index.js"
import { ReadLive } from "../../layers/Main.js"
import { Reader } from "../../services/Reader.js"
import { glossarySet, lineageAdd, lineageRemove } from "./CatalogCommands.js"
import { annotateSet } from "./ComplianceCommands.js"
import { doraExport, doraImport, doraPull, doraSet } from "./DoraCommands.js"
import { bold, dim, emit, green, table, yellow } from "./render.js"
import { needsSubcommand } from "./usage.js"

const origins = ["scan", "dbt", "user"] as const

export const lineageList = Command.make("list", {
  dataset: Options.text("dataset").pipe(
    Options.withPseudoName("<id>"),
    Options.withDescription("list: only this dataset's edges"),
    Options.optional
  ),
  origin: Options.text("origin").pipe(
    Options.withPseudoName("<origin>"),
    Options.withDescription("list: only edges of this origin (scan, dbt, user)"),
    Options.optional
  )
}, ({ dataset, origin }) =>
  Effect.gen(function*() {
    const o = Option.getOrUndefined(origin)
    if (o !== undefined && !(origins as ReadonlyArray<string>).includes(o)) {
      return yield* new InvalidParam({ message: `--origin must be scan, dbt or user; got "${o}".`, param: "origin" })
    }
    const reader = yield* Reader
    const id = Option.getOrUndefined(dataset)
    const all = yield* reader.lineage(id).pipe(Effect.catchTag("DatasetNotFound", () =>
      new DescribeEntityUnknown({
        message: `No dataset with id "${id}".`,
        fix: "List dataset ids with `catalog datasets`.",
        param: "dataset"
      })))
    const value = o === undefined ? all : (() => {
      const edges = all.edges.filter((e) => e.origin === o)
      return { ...all, returned: edges.length, total: edges.length, truncated: false, edges }
    })()
    yield* emit(value, (v) =>
      v.edges.length === 0 ? "No lineage edges." : [
        table(
          ["edge", "from", "to", "origin"],
          v.edges.map((e) => [e.id, e.from, e.to, e.origin + (e.resolvable ? "" : dim(" (unresolved endpoint)"))])
        ),
        dim(`${v.returned} of ${v.total} edges`)
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "Lineage edges (scan, dbt and user): all, or one dataset's upstream and downstream flows."
  ))

export const provenance = Command.make("provenance", {}, () =>
  Effect.gen(function*() {
    const p = yield* (yield* Reader).provenance
    yield* emit(p, (p) =>
      [
        `${bold("Provenance")} · seal ${p.seal} (${p.stamp}) · last scan ${p.lastScanAt ?? "never"}`,
        `${p.coverage.complete ? green("Coverage:") : yellow("Coverage:")} ${p.coverage.line}`,
        table(
          ["source", "kind", "status", "staleness", "last scanned"],
          p.sources.map((s) => [s.id, s.kind, s.status, s.staleness, s.lastScannedAt ?? "never"])
        ),
        `Classifier methods: ${Object.entries(p.classifierMethods).map(([m, n]) => `${m} ${n}`).join(", ") || "none"}`,
        `Change-log head: ${p.changeLogHead ? `#${p.changeLogHead.seq} at ${p.changeLogHead.at}` : "empty"}`
      ].join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "How far to trust the catalog: per-source reachability and staleness tier, classifier-method roll-up, change-log head, seal draft (what get_provenance returns)."
  ))

export const glossaryList = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const g = yield* (yield* Reader).glossary
    yield* emit(g, (g) =>
      g.terms.length === 0 ?
        "No glossary terms yet. Add one with `catalog glossary set <term> <definition>`." :
        g.terms.map((t) =>
          `${bold(t.term)} — ${t.definition}${
            t.datasets.length > 0 ? dim(`\n  datasets: ${t.datasets.join(", ")}`) : ""
          }`
        ).join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "Business terms with their definitions and related datasets."
  ))

export const annotateList = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const r = yield* (yield* Reader).compliance
    yield* emit(r, (r): string =>
      [
        `${bold("Record of processing activities")} — ${r.stamp}`,
        `Controller: ${
          r.controller
            ? `${r.controller.name ?? "?"} <${r.controller.contact ?? "?"}>`
            : "not set (controller.name / controller.contact in catalog.yml)"
        }`,
        r.activities.length === 0
          ? "No activities yet: run `catalog start` to scan sources holding personal data."
          : "",
        ...r.activities.map((a: RopaDraft["activities"][number]) =>
          [
            `${bold(a.key)} ${a.name} · ${a.datasets.length} datasets${a.special ? " · special" : ""}${
              a.criminal ? " · criminal" : ""
            }`,
            ...[a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers].map((f) =>
              `  ${f.field.padEnd(12)} ${f.status === "confirmed" ? green("confirmed") : yellow("suggested")}${
                f.needsReview ? yellow(" (needs review)") : ""
              } ${f.value ?? dim("(empty)")}${f.confirmedBy ? dim(` — ${f.confirmedBy}`) : ""}`
            )
          ].join("\n")
        ),
        `Open legal calls: ${r.openLegalCalls}`
      ].filter((l) => l !== "").join("\n"))
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "The RoPA draft: activity keys, their legal fields and each field's status."
  ))

export const doraShow = Command.make("show", {}, () =>
  Effect.gen(function*() {
    const d = yield* (yield* Reader).dora
    yield* emit(d, (d) =>
      d.inScope && d.register
        ? [
          `${bold("DORA Register of Information")} — DRAFT, not an official record`,
          `Entity: ${d.register.entity.name ?? "?"} (LEI ${d.register.entity.lei ?? "?"})`,
          `${d.register.tables.length} tables filled; ${d.register.validation.violations.length} validation problems`
        ].join("\n")
        : "DORA is not in scope (set dora.inScope: true in catalog.yml if the organisation is a financial entity).")
  }).pipe(Effect.provide(ReadLive))).pipe(Command.withDescription(
    "The DORA Register of Information draft with its validation problems."
  ))

/** `catalog lineage`: list, add, remove. */
export const lineage = Command.make("lineage", {}, () => needsSubcommand("lineage", ["list", "add", "remove"])).pipe(
  Command.withSubcommands([lineageList, lineageAdd, lineageRemove]),
  Command.withDescription(
    "Lineage edges (scan, dbt and human-asserted): all, or one dataset's upstream and downstream flows (what the MCP tool get_lineage returns). An edge whose endpoint is known only from a dbt manifest (never scanned) is listed with resolvable: false. `add` asserts a user edge (both datasets must exist; attributed to CATALOG_SIGNER_EMAIL or the OS user; never touched by scans); `remove` removes a user edge — scan and dbt edges are regenerated by every scan and cannot be removed."
  )
)
export const glossary = Command.make("glossary", {}, () => needsSubcommand("glossary", ["list", "set"])).pipe(
  Command.withSubcommands([glossaryList, glossarySet]),
  Command.withDescription(
    "Business terms with definitions and related datasets (what get_glossary returns). `set` adds or updates a term (matched case-insensitively; attributed to CATALOG_SIGNER_EMAIL or the OS user); terms are found by `catalog search`. Without --datasets an update keeps the term's datasets; --datasets replaces them, and every id must be a dataset of the catalog (else DESCRIBE_ENTITY_UNKNOWN)."
  )
)
export const annotate = Command.make("annotate", {}, () => needsSubcommand("annotate", ["list", "set"])).pipe(
  Command.withSubcommands([annotateList, annotateSet]),
  Command.withDescription(
    "The RoPA draft (Art. 30): activity keys, their legal fields and each field's status (list: what get_compliance_state returns). set saves a draft fill (stays suggested); --confirm makes it confirmed, recording CATALOG_SIGNER_EMAIL and the time. 'None' closes a field as 'does not apply' and needs --confirm."
  )
)
export const dora = Command.make("dora", {}, () => needsSubcommand("dora", ["show", "import", "set", "export"])).pipe(
  Command.withSubcommands([doraShow, doraImport, doraSet, doraExport, doraPull]),
  Command.withDescription(
    "The DORA Register of Information draft (tables by code, rows by row key, fields by column code). `show` prints it with its validation problems, or {inScope: false, register: null} (what get_dora returns); `import` replaces a table's rows with a CSV file (header row of column codes plus data rows; --merge keeps the other rows); `set` writes one cell (\"\" clears it); `export` writes the xBRL-CSV report package (<out>/<name>.zip and the same files unpacked in <out>/<name>/) only when the whole register validates. A composite row key joins the key-column values with |. See docs/dora.md."
  )
)
