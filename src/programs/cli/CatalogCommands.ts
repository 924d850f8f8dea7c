/**
 * CLI write commands over the catalog's human facts: `lineage add` / `lineage remove` (user edges),
 * `glossary set`, and `describe list` / `describe draft`. Each needs an existing catalog
 * (`MAP_NOT_FOUND` otherwise: nothing is created by a write that has nothing to refer to) and
 * attributes its act to `CATALOG_SIGNER_EMAIL` or the OS user.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import {
  DescribeEntityUnknown,
  GlossaryTermUnknown,
  InvalidParam,
  LineageEndpointUnknown,
  MapNotFound
} from "../../errors/index.js"
import { indexPath, SqlReadLive, SqlWriteLive } from "../../layers/Sql.js"
import { StoreReaderLive } from "../../layers/store/index.js"
import { actor, AppEnv, dataDir } from "../../services/AppEnv.js"
import { Describe, type DescribedColumn, type DescribedDataset, DescribeLive } from "../../services/Describe.js"
import { Glossary, GlossaryLive } from "../../services/Glossary.js"
import { Lineage, LineageLive } from "../../services/Lineage.js"
import type { EdgeRow } from "../../services/Store.js"
import { bold, dim, emit, green, table, yellow } from "./render.js"
import { needsSubcommand } from "./usage.js"

/** The write services over the (migrated) catalog. */
const CatalogWriteLive = Layer.mergeAll(LineageLive, GlossaryLive, DescribeLive).pipe(
  Layer.provide(StoreReaderLive),
  Layer.provide(SqlWriteLive)
)
/** `describe list` only reads. */
const DescribeReadLive = DescribeLive.pipe(Layer.provide(StoreReaderLive), Layer.provide(SqlReadLive))

/** Fails with MAP_NOT_FOUND before any layer would create an empty catalog. */
const requireCatalog = Effect.gen(function*() {
  const dir = dataDir(yield* AppEnv)
  if (!fs.existsSync(indexPath(dir))) {
    return yield* new MapNotFound({
      message:
        `There is no local catalog at ${dir} yet; lineage, glossary terms and descriptions refer to its datasets.`
    })
  }
})

const writing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.zipRight(requireCatalog, effect.pipe(Effect.provide(CatalogWriteLive)))

const edgeJson = (e: EdgeRow) => ({
  id: e.id,
  from: e.from_id,
  to: e.to_id,
  origin: e.origin,
  resolvable: e.from_known > 0 && e.to_known > 0,
  createdAt: e.created_at,
  ...(e.by !== null ? { by: e.by } : {})
})

// ── lineage add / remove ──────────────────────────────────────────────────────────────────────
export const lineageAdd = Command.make("add", {
  args: Args.text({ name: "fromDatasetId toDatasetId" }).pipe(Args.repeated)
}, ({ args }) =>
  writing(Effect.gen(function*() {
    const [from, to, ...extra] = args
    if (from === undefined || to === undefined || extra.length > 0) {
      return yield* new LineageEndpointUnknown({
        message: from === undefined
          ? "The upstream dataset id is missing."
          : to === undefined
          ? "The downstream dataset id is missing."
          : `Unexpected arguments: ${extra.join(" ")}`,
        fix: "Usage: catalog lineage add <fromDatasetId> <toDatasetId> (data flows from the first to the second).",
        param: from === undefined ? "fromDatasetId" : "toDatasetId",
        usage: true
      })
    }
    const by = actor(yield* AppEnv)
    const r = yield* Effect.catchTag((yield* Lineage).add(from, to, by), "SqlError", Effect.die)
    yield* emit({ created: r.created, edge: edgeJson(r.edge) }, (x) =>
      `${x.created ? green("Added") : "Already asserted:"} user edge ${bold(x.edge.id)}: ${x.edge.from} → ${x.edge.to}${
        x.edge.by !== undefined ? dim(` (by ${x.edge.by})`) : ""
      }\n` +
      dim(`Scans never touch user edges. Remove it with: catalog lineage remove ${x.edge.id}`))
  })))

export const lineageRemove = Command.make(
  "remove",
  { args: Args.text({ name: "edgeId" }).pipe(Args.repeated) },
  ({ args }) =>
    writing(Effect.gen(function*() {
      const [id, ...extra] = args
      if (id === undefined || extra.length > 0) {
        return yield* new InvalidParam({
          message: id === undefined ? "The edge id is missing." : `Unexpected arguments: ${extra.join(" ")}`,
          fix:
            "Usage: catalog lineage remove <edgeId>; list removable edges with `catalog lineage list --origin user`.",
          param: "edgeId",
          usage: true
        })
      }
      const by = actor(yield* AppEnv)
      const r = yield* Effect.catchTag((yield* Lineage).remove(id, by), "SqlError", Effect.die)
      yield* emit({ id: r.id, removed: r.removed, edge: r.edge !== null ? edgeJson(r.edge) : null, by }, (x) =>
        x.removed && x.edge !== null
          ? `Removed user edge ${bold(x.id)}: ${x.edge.from} → ${x.edge.to}.`
          : `Edge ${x.id} was already removed; nothing to do.`)
    }))
)

// ── glossary set ──────────────────────────────────────────────────────────────────────────────
export const glossarySet = Command.make("set", {
  args: Args.text({ name: "term definition" }).pipe(Args.repeated),
  datasets: Options.text("datasets").pipe(Options.optional)
}, ({ args, datasets }) =>
  writing(Effect.gen(function*() {
    const [term, ...rest] = args
    const definition = rest.join(" ").trim()
    if (term === undefined || term.trim() === "" || definition === "") {
      return yield* new GlossaryTermUnknown({
        message: term === undefined || term.trim() === ""
          ? "The glossary term is missing."
          : `The definition of "${term}" is missing.`,
        fix: "Usage: catalog glossary set <term> <definition> [--datasets id,id] (quote a term of several words).",
        param: term === undefined || term.trim() === "" ? "term" : "definition",
        usage: true
      })
    }
    const ids = Option.map(datasets, (d) => d.split(",").map((s) => s.trim()).filter((s) => s !== ""))
    const r = yield* Effect.catchTag(
      (yield* Glossary).set({ term, definition, datasets: Option.getOrUndefined(ids), by: actor(yield* AppEnv) }),
      "SqlError",
      Effect.die
    )
    yield* emit(r, (x) =>
      [
        `${
          x.outcome === "unchanged" ? "Unchanged:" : green(x.outcome === "created" ? "Added" : "Updated")
        } glossary term ${bold(x.term)} — ${x.definition}`,
        x.datasets.length > 0
          ? dim(`  datasets: ${x.datasets.join(", ")}`)
          : dim("  no related datasets (add them with --datasets id,id)"),
        dim(`Find it with: catalog search ${x.term.split(" ")[0]}`)
      ].join("\n"))
  })))

// ── describe list / draft ─────────────────────────────────────────────────────────────────────
const describeList = Command.make("list", {
  dataset: Options.text("dataset").pipe(Options.optional),
  limit: Options.text("limit").pipe(Options.optional),
  offset: Options.text("offset").pipe(Options.optional)
}, ({ dataset, limit, offset }) =>
  Effect.gen(function*() {
    const r = yield* Effect.catchTag(
      (yield* Describe).list({
        dataset: Option.getOrUndefined(dataset),
        limit: Option.getOrUndefined(limit),
        offset: Option.getOrUndefined(offset)
      }),
      "SqlError",
      Effect.die
    )
    const mark = (
      d: { readonly description: { readonly drafted: boolean } | null }
    ) => (d.description === null ? dim("—") : d.description.drafted ? yellow("drafted") : green("written"))
    yield* emit(r, (x) => {
      const more = x.nextOffset !== null ? dim(` — next page: --offset ${x.nextOffset}`) : ""
      if (x.entity === "datasets") {
        const items = x.items as ReadonlyArray<DescribedDataset>
        return items.length === 0 ?
          (x.total === 0
            ? "No datasets yet: run `catalog start`."
            : `No datasets at offset ${x.offset} (there are ${x.total}).`) :
          [
            table(
              ["dataset", "kind", "columns", "described columns", "description"],
              items.map((d) => [d.id, d.kind, String(d.columns), String(d.describedColumns), mark(d)])
            ),
            dim(`${x.offset + 1}–${x.offset + x.returned} of ${x.total} datasets`) + more,
            dim("Column ids: catalog describe list --dataset <datasetId> · draft one: catalog describe draft <id>")
          ].join("\n")
      }
      const items = x.items as ReadonlyArray<DescribedColumn>
      return [
        `${bold(x.dataset ?? "")} ${
          x.datasetDescription
            ? (x.datasetDescription.drafted ? yellow("(drafted description)") : green("(described)"))
            : dim("(no description)")
        }`,
        items.length === 0
          ? "No columns on this page."
          : table(
            ["column", "type", "class", "description"],
            items.map((c) => [c.id, c.type, c.classification, mark(c)])
          ),
        dim(`${items.length === 0 ? 0 : x.offset + 1}–${x.offset + x.returned} of ${x.total} columns`) + more
      ].join("\n")
    })
  }).pipe(Effect.provide(DescribeReadLive)))

const describeDraft = Command.make(
  "draft",
  { args: Args.text({ name: "id" }).pipe(Args.repeated) },
  ({ args }) =>
    writing(Effect.gen(function*() {
      const [id, ...extra] = args
      if (id === undefined || extra.length > 0) {
        return yield* new DescribeEntityUnknown({
          message: id === undefined
            ? "The dataset or column id is missing."
            : `Unexpected arguments: ${extra.join(" ")}`,
          fix: "Usage: catalog describe draft <datasetId|columnId>; list ids with `catalog describe list`.",
          param: "id",
          usage: true
        })
      }
      const r = yield* Effect.catchTag((yield* Describe).draft(id, actor(yield* AppEnv)), "SqlError", Effect.die)
      yield* emit(r, (x) =>
        [
          x.outcome === "kept-human"
            ? yellow(
              `${x.id} already has a description written by ${
                x.existing?.by ?? "a human"
              }; it was kept. The draft below was not stored:`
            )
            : `${bold(x.id)} ${yellow("drafted")} ${
              dim(
                `(from metadata only; ${
                  x.outcome === "unchanged" ? "already stored" : x.outcome
                }; review before relying on it)`
              )
            }`,
          x.text
        ].join("\n"))
    }))
)

export const describe = Command.make("describe", {}, () => needsSubcommand("describe", ["list", "draft"])).pipe(
  Command.withSubcommands([describeList, describeDraft])
)
