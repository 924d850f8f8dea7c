/**
 * `dora import`, `dora set`, `dora export`: fill the DORA Register of Information draft and export
 * it as an xBRL-CSV report package. Scope is checked first, before the catalog is opened, so an
 * out-of-scope catalog is refused without being touched. The templates, CSV and zip code load only
 * when one of these commands runs.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import type { DoraViolation } from "../../domain/Compliance.js"
import { CatalogOnly, DoraInputInvalid, type SyncMisconfigured } from "../../errors/index.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { SqlWriteLive, StoreReadOnlyLive } from "../../layers/Sql.js"
import { AppEnv } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import type { DoraFillsRequest } from "../../services/PortalClient.js"
import { StoreReader } from "../../services/Store.js"
import { notPaired, resolvePairing } from "../../services/Sync.js"
import { bold, dim, emit, green, red, yellow } from "./render.js"

const doraModule = Effect.promise(() => import("../../services/Dora.js"))
const CellsReadLive = StoreReadOnlyLive

const open = (vs: ReadonlyArray<DoraViolation>, where: string, max = 20): string => {
  if (vs.length === 0) return green(`No validation problems left in ${where}.`)
  const lines = vs.slice(0, max).map((v) =>
    `  ${v.rowKey !== null ? `row ${v.rowKey}` : "table"}${v.column !== null ? `, ${v.column}` : ""}: ${v.reason}`
  )
  return [
    yellow(`${vs.length} problem(s) still stop an export in ${where}:`),
    ...lines,
    ...(vs.length > max ? [dim(`  … and ${vs.length - max} more (catalog dora show --json)`)] : [])
  ].join("\n")
}

const tooMany = (args: ReadonlyArray<string>, expected: number, usage: string) =>
  args.length > expected
    ? Effect.fail(
      new DoraInputInvalid({
        message: `Unexpected argument "${args[expected]}".`,
        fix: `Usage: ${usage}`,
        param: "args",
        usage: true
      })
    )
    : Effect.void

export const doraImport = Command.make("import", {
  args: Args.text({ name: "tableCode file.csv" }).pipe(
    Args.withDescription("the table code (e.g. B_05.01) and the CSV file of its rows"),
    Args.repeated
  ),
  merge: Options.boolean("merge").pipe(Options.withDescription(
    "import: update the file's rows and keep the table's other rows (default: replace the table)"
  ))
}, ({ args, merge }) =>
  Effect.gen(function*() {
    const { Dora, doraScope } = yield* doraModule
    const entity = yield* doraScope("import into")
    yield* tooMany(args, 2, "catalog dora import <tableCode> <file.csv> [--merge]")
    const [tableCode, file] = args
    const r = yield* Effect.flatMap(Dora, (d) => d.importCsv(entity, tableCode, file, merge ? "merge" : "replace"))
      .pipe(Effect.provide(Dora.Default.pipe(Layer.provide(SqlWriteLive))))
    yield* emit(r, (r) =>
      [
        `${bold(r.table)}: imported ${r.rows} row(s), ${r.cells} cell(s) from ${r.file}${
          r.mode === "replace" ? ` (replacing ${r.previousRows} row(s))` : " (merged)"
        } — by ${r.by}`,
        open(r.violations, r.table)
      ].join("\n"))
  })).pipe(Command.withDescription("Replace a table's rows with those of a CSV file (--merge keeps the other rows)."))

export const doraSet = Command.make("set", {
  args: Args.text({ name: "tableCode rowKey field value" }).pipe(
    Args.withDescription("the table code, the row key, the column code and the value (\"\" clears the cell)"),
    Args.repeated
  ),
  remove: Options.boolean("remove").pipe(Options.withDescription("set: remove the whole row"))
}, ({ args, remove }) =>
  Effect.gen(function*() {
    const { Dora, doraScope } = yield* doraModule
    const entity = yield* doraScope("fill")
    if (remove) yield* tooMany(args, 2, "catalog dora set <tableCode> <rowKey> --remove")
    const [tableCode, rowKey, field, ...rest] = args
    const input = { tableCode, rowKey, field, value: rest.length === 0 ? undefined : rest.join(" "), remove }
    if (!remove && field !== undefined && input.value === undefined) {
      return yield* new DoraInputInvalid({
        message: "The value is missing.",
        fix: `Usage: catalog dora set <tableCode> <rowKey> <field> <value>; pass "" to clear a cell.`,
        param: "value",
        usage: true
      })
    }
    const r = yield* Effect.flatMap(Dora, (d) => d.set(entity, input)).pipe(
      Effect.provide(Dora.Default.pipe(Layer.provide(SqlWriteLive)))
    )
    yield* emit(r, (r) =>
      [
        r.deleted
          ? `${bold(r.table)} row ${r.rowKey} removed`
          : `${bold(r.table)} row ${r.rowKey}, ${r.column}: ${r.value === null ? "cleared" : r.value}${
            r.previous !== null ? dim(` (was ${r.previous})`) : ""
          } — by ${r.by}`,
        open(r.violations, `${r.table} row ${r.rowKey}`)
      ].join("\n"))
  })).pipe(Command.withDescription("Write one cell of the register, or remove a whole row with --remove."))

export const doraExport = Command.make("export", {
  out: Options.text("out").pipe(
    Options.withPseudoName("<dir>"),
    Options.withDescription("export: folder the package is written to (default ./dora-export)"),
    Options.optional
  ),
  refDate: Options.text("ref-date").pipe(
    Options.withPseudoName("<YYYY-MM-DD>"),
    Options.withDescription("export: reference date of the collection (default: 31 December of the previous year)"),
    Options.optional
  ),
  level: Options.text("level").pipe(
    Options.withPseudoName("<con|ind>"),
    Options.withDescription(
      "export: consolidated or individual register (default: con when B_01.02 lists more than one entity)"
    ),
    Options.optional
  )
}, ({ level, out, refDate }) =>
  Effect.gen(function*() {
    const { doraScope, exportDora } = yield* doraModule
    const entity = yield* doraScope("export")
    const lv = Option.getOrUndefined(level)?.toUpperCase()
    if (lv !== undefined && lv !== "CON" && lv !== "IND") {
      return yield* new DoraInputInvalid({
        message: `--level must be con or ind; got "${lv.toLowerCase()}".`,
        fix:
          "con: consolidated or sub-consolidated register; ind: individual (default: con when B_01.02 lists more than one entity).",
        param: "level"
      })
    }
    // No catalog yet means no cells: the register is then reported as empty rather than created.
    const cells = yield* Effect.flatMap(StoreReader, (s) => Effect.orDie(s.doraCells)).pipe(
      Effect.provide(CellsReadLive),
      Effect.catchTag("MapNotFound", () => Effect.succeed([]))
    )
    const o = Option.getOrUndefined(out)
    const d = Option.getOrUndefined(refDate)
    const r = yield* exportDora(cells, entity, {
      ...(o !== undefined ? { out: o } : {}),
      ...(d !== undefined ? { refDate: d } : {}),
      ...(lv !== undefined ? { level: lv } : {})
    })
    yield* emit(r, (r) =>
      [
        `${bold("DORA xBRL-CSV package written")} — DRAFT, not an official record`,
        `  package: ${r.package}`,
        `  folder:  ${r.folder}`,
        `  ${Object.entries(r.parameters).map(([k, v]) => `${k}=${v}`).join(" · ")}`,
        `  ${
          r.tables.filter((t) => t.rows > 0).map((t) => `${t.code} ${t.rows}`).join(", ")
        } (rows); all ${r.filingIndicators.length} templates reported`
      ].join("\n"))
  })).pipe(Command.withDescription(
    "Write the xBRL-CSV report package, only when the whole register validates."
  ))

// ── dora pull (issue 12 part 2) ─────────────────────────────────────────────────────────────────────

/**
 * The pairing from the environment, resolved exactly as `push` resolves it (services/Sync.ts
 * `resolvePairing`): SYNC_MISCONFIGURED when the machine is not paired or half paired, SYNC_UNAUTHORIZED for
 * a value that is not a sync token.
 */
const doraPullPairing = (env: Readonly<Record<string, string | undefined>>) =>
  Effect.flatMap(
    resolvePairing(env),
    (pairing): Effect.Effect<DoraFillsRequest, SyncMisconfigured> =>
      pairing.kind === "unpaired" ? Effect.fail(notPaired()) : Effect.succeed(pairing.request)
  )

const pullModule = Effect.promise(() => import("../../services/DoraPull.js"))

export const doraPull = Command.make("pull", {}, () =>
  Effect.gen(function*() {
    const { Dora, doraScope } = yield* doraModule
    const entity = yield* doraScope("pull into")
    const loaded = yield* (yield* ConfigFile).load()
    if (loaded.file.catalogOnly) {
      return yield* new CatalogOnly({
        message:
          `catalog-only is on in ${loaded.path}: this machine does not talk to the portal, so nothing was pulled.`,
        fix:
          "Fill the register here with `catalog dora set`, or switch catalog-only off with `catalog config catalog-only off`."
      })
    }
    const request = yield* doraPullPairing((yield* AppEnv).env)
    const { pullDoraFills } = yield* pullModule
    const r = yield* pullDoraFills(entity, request).pipe(
      Effect.provide(Layer.mergeAll(Dora.Default, PortalClientLive).pipe(Layer.provideMerge(SqlWriteLive)))
    )
    yield* emit(r, (r) =>
      [
        `${bold("DORA fills pulled")} from ${r.portal} (claim ${r.claimId}): ${r.fills} on the portal — ${
          green(`${r.applied.length} applied`)
        }, ${r.unchanged.length} unchanged, ${
          r.conflicts.length > 0 ? yellow(`${r.conflicts.length} conflict(s)`) : "0 conflicts"
        }${r.refused.length > 0 ? `, ${red(`${r.refused.length} refused`)}` : ""}`,
        ...r.applied.map((a) =>
          `  applied   ${a.table} row ${a.rowKey}, ${a.field}: ${a.value} — from the portal, by ${a.by}${
            a.previous !== null ? dim(` (was ${a.previous})`) : ""
          }`
        ),
        ...r.conflicts.flatMap((c) => [
          yellow(`  conflict  ${c.table} row ${c.rowKey}, ${c.field}: kept this machine's value`),
          `            here:   ${c.local.value} (set by ${c.local.by}, ${c.local.at})`,
          `            portal: ${c.portal.value} (filled by ${c.portal.by}, ${c.portal.at})`,
          dim(`            ${c.fix}`)
        ]),
        ...r.refused.map((x) => red(`  refused   ${x.table} row ${x.rowKey}, ${x.field}: ${x.reason}`))
      ].join("\n"))
  })).pipe(Command.withDescription(
    "Pull the DORA cells filled on the claim page into this register (a value a person set here is kept; differences are listed as conflicts)."
  ))
