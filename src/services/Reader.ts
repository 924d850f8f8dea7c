/**
 * The one read model. The CLI read commands, the MCP tools and the HTTP routes all serialise what
 * this returns, so the three surfaces cannot disagree. It is built on `StoreReader` only: no writes.
 * Its parts live in `./reader/`: input parsing, change summaries, search, resources and caches.
 */
import { Context, Effect, Layer } from "effect"
import type {
  ChangeList,
  Dataset,
  DatasetList,
  LineageList,
  SearchResult,
  SourceState,
  Status
} from "../domain/Catalog.js"
import type { DoraState, Glossary, Provenance, RopaDraft } from "../domain/Compliance.js"
import type { ClassValue } from "../domain/Metadata.js"
import { DatasetNotFound, type InvalidParam, type SchemaMigrationRequired } from "../errors/index.js"
import { makeReaderCaches } from "./reader/cache.js"
import {
  changesLimits,
  changeWindow,
  parseDatasetFilter,
  parseLimit,
  parseQuery,
  parseSince,
  searchLimits
} from "./reader/input.js"
import {
  boundBytes,
  type ConfiguredSource,
  coverageOf,
  toChange,
  toColumn,
  toDataset,
  toDatasetSummary,
  toEdge,
  toGlossaryTerm,
  toRopaColumn,
  toRopaSource,
  toSourceState
} from "./reader/resources.js"
import { ftsQuery, rankHits, searchCandidates, searchPage } from "./reader/search.js"
import { draftRopa } from "./Ropa.js"
import { sealStateOf } from "./Seals.js"
import { type DatasetRow, type SourceRow, type StoreError, StoreReader } from "./Store.js"

// What other modules read through the Reader's module (the parts themselves are in ./reader/).
export { changesLimits, parseLimit, searchLimits } from "./reader/input.js"
export { boundBytes, rowCountDisplay, toColumn } from "./reader/resources.js"

/** What the reader knows of the configuration (optional: the MCP server may run without catalog.yml). */
export interface ReaderConfig {
  readonly controller: { readonly name: string | null; readonly contact: string | null } | null
  readonly dora: {
    readonly inScope: boolean
    readonly entity: {
      readonly lei: string | null
      readonly name: string | null
      readonly country: string | null
      readonly currency: string | null
    }
  } | null
  readonly configuredSources: ReadonlyArray<ConfiguredSource> | null
  readonly catalogOnly: boolean
  /** The portal this machine is paired with (CATALOG_PORTAL_URL and CATALOG_SYNC_TOKEN both set), else null. */
  readonly pairedWith?: string | null
  readonly now: () => Date
}
/** A catalog row this version cannot read (the store's SCHEMA_MIGRATION_REQUIRED, naming the table). */
export type StoreRowInvalid = SchemaMigrationRequired

export class ReaderConfigTag extends Context.Tag("catalog/ReaderConfig")<ReaderConfigTag, ReaderConfig>() {}

export class Reader extends Context.Tag("catalog/Reader")<Reader, {
  readonly status: Effect.Effect<Status, StoreRowInvalid>
  readonly datasets: Effect.Effect<DatasetList, StoreRowInvalid>
  /**
   * One dataset. `param` is the caller's own name for the id (its surface's parameter): DATASET_NOT_FOUND
   * names it. It defaults to `id`, what get_dataset and /datasets/:id call it.
   */
  readonly dataset: (id: string, param?: string) => Effect.Effect<Dataset, DatasetNotFound | StoreRowInvalid>
  readonly search: (q: unknown, limit?: unknown) => Effect.Effect<SearchResult, InvalidParam | StoreRowInvalid>
  /**
   * Every lineage edge, or one dataset's. `param` is the caller's own name for that dataset id (HTTP
   * `dataset`, MCP `datasetId`, CLI `--dataset`): DATASET_NOT_FOUND and INVALID_PARAM (an empty id) name it.
   */
  readonly lineage: (
    datasetId?: string,
    param?: string
  ) => Effect.Effect<LineageList, DatasetNotFound | InvalidParam | StoreRowInvalid>
  readonly changes: (since?: unknown, limit?: unknown) => Effect.Effect<ChangeList, InvalidParam | StoreRowInvalid>
  readonly sourceStates: Effect.Effect<ReadonlyArray<SourceState>, StoreRowInvalid>
  readonly provenance: Effect.Effect<Provenance, StoreRowInvalid>
  /** The RoPA draft (Art. 30): activities and their legal fields with status. */
  readonly compliance: Effect.Effect<RopaDraft, StoreRowInvalid>
  readonly glossary: Effect.Effect<Glossary, StoreRowInvalid>
  /** The DORA register draft, or `{ inScope: false, register: null }`. */
  readonly dora: Effect.Effect<DoraState, StoreRowInvalid>
}>() {}

export const ReaderLive = Layer.effect(
  Reader,
  Effect.gen(function*() {
    const store = yield* StoreReader
    const cfg = yield* ReaderConfigTag
    const caches = makeReaderCaches()
    // A database failure is a defect (INTERNAL_ERROR); a row that does not decode stays the store's
    // coded error (SCHEMA_MIGRATION_REQUIRED), which every surface prints as it prints any registry error.
    const orDie = <A>(e: Effect.Effect<A, StoreError>): Effect.Effect<A, StoreRowInvalid> =>
      Effect.catchTag(e, "SqlError", (cause) => Effect.die(cause))

    const sourceStates = orDie(Effect.gen(function*() {
      const rows = yield* store.sources
      const byId = new Map<string, SourceRow>(rows.map((r) => [r.id, r]))
      const ids = cfg.configuredSources ? cfg.configuredSources.map((s) => s.id) : rows.map((r) => r.id)
      const now = cfg.now()
      return ids.map((id) => toSourceState(id, byId.get(id), cfg.configuredSources?.find((s) => s.id === id), now))
    }))

    /** The record's seal at `now`: sealed while the licence runs, a draft again after (LICENCE_EXPIRED). */
    const sealInfo = Effect.map(store.latestSeal, (row) => sealStateOf(row, cfg.now()))

    const status = orDie(Effect.gen(function*() {
      const info = yield* sealInfo
      const last = yield* store.lastScan
      const states = yield* sourceStates
      const counts = yield* store.classCounts
      const c: Record<ClassValue, number> = { personal: 0, special: 0, criminal: 0, not: 0 }
      for (const r of counts) c[r.value] = r.n
      const ds = yield* store.datasets
      const ov = yield* store.overrideStats
      const personalItems = c.personal + c.special + c.criminal
      return {
        scanned: last !== null,
        lastScanAt: last?.finished_at ?? null,
        sources: states.length,
        datasets: ds.length,
        columns: c.personal + c.special + c.criminal + c.not,
        classes: c,
        personalDataItems: personalItems,
        datasetsWithPersonalData: ds.filter((d) => d.personal + d.special + d.criminal > 0).length,
        overrides: ov.overrides,
        drift: ov.drift,
        coverage: coverageOf(states),
        seal: info.state,
        sealInfo: info,
        catalogOnly: cfg.catalogOnly,
        upload: cfg.catalogOnly
          ? "catalog-only is on: no metadata ever leaves this machine, even when paired."
          : cfg.pairedWith !== undefined && cfg.pairedWith !== null
          ? `paired with the portal at ${cfg.pairedWith}: start and watch upload the refreshed draft after each scan, push on demand.`
          : "local only: not paired with a portal, nothing was uploaded.",
        sourceStates: states
      } satisfies Status
    }))

    const datasets = orDie(Effect.map(store.datasets, (rows): DatasetList => {
      const list = rows.map(toDatasetSummary)
      return { returned: list.length, total: list.length, truncated: false, datasets: list }
    }))

    const fullDataset = (d: DatasetRow) =>
      orDie(Effect.gen(function*() {
        const cols = (yield* store.columnsOf(d.id)).map(toColumn)
        const edges = (yield* store.edges(d.id)).map(toEdge)
        return toDataset(d, cols, edges)
      }))

    /** The dataset row, or DATASET_NOT_FOUND naming the caller's parameter (none when it gave no name). */
    const findDataset = (id: string, param: string | undefined) =>
      Effect.flatMap(orDie(store.dataset(id)), (d) =>
        d === null
          ? Effect.fail(
            new DatasetNotFound({
              message: `No dataset with id "${id}".`,
              ...(param !== undefined ? { param } : {}),
              details: { id }
            })
          )
          : Effect.succeed(d))

    const dataset = (id: string, param = "id") =>
      Effect.flatMap(
        orDie(store.dataVersion),
        (version) => caches.datasets.get(id, version, () => Effect.flatMap(findDataset(id, param), fullDataset))
      )

    const search = (q: unknown, rawLimit?: unknown) =>
      Effect.gen(function*() {
        const query = yield* parseQuery(q)
        const limit = yield* parseLimit(rawLimit, searchLimits)
        const candidates = searchCandidates(limit)
        let rows = yield* orDie(store.searchDatasets(query.match, candidates))
        if (rows.length === 0) {
          rows = yield* orDie(store.searchDatasets(ftsQuery(query.words, "OR") ?? query.match, candidates))
        }
        const columns = yield* orDie(store.searchColumnsOf(rows.map((r) => r.id)))
        const glossary = yield* orDie(store.searchGlossary(query.match, 50))
        return searchPage(query.text, rankHits({ query, datasets: rows, columns, glossary }, caches.words), limit)
      })

    const lineage = (id?: string, param?: string) =>
      Effect.gen(function*() {
        const datasetId = yield* parseDatasetFilter(id, param)
        if (datasetId !== undefined) yield* findDataset(datasetId, param)
        const all = (yield* orDie(store.edges(datasetId))).map(toEdge)
        const edges = boundBytes(all)
        return {
          dataset: datasetId ?? null,
          returned: edges.length,
          total: all.length,
          truncated: edges.length < all.length,
          edges
        }
      })

    const changes = (rawSince?: unknown, rawLimit?: unknown) =>
      Effect.gen(function*() {
        const limit = yield* parseLimit(rawLimit, changesLimits)
        const since = yield* parseSince(rawSince)
        const last = since === undefined ? yield* orDie(store.lastScan) : null
        const range = changeWindow(since, last?.started_at ?? null)
        const { rows, total } = yield* orDie(
          store.changes({
            limit,
            ...(range.sinceSeq !== undefined ? { sinceSeq: range.sinceSeq } : {}),
            ...(range.sinceAt !== undefined ? { sinceAt: range.sinceAt } : {})
          })
        )
        const changes = boundBytes(rows.map(toChange))
        return {
          since: range.label,
          returned: changes.length,
          total,
          truncated: total > changes.length,
          changes
        } satisfies ChangeList
      })

    const provenance = orDie(Effect.gen(function*() {
      const info = yield* sealInfo
      const last = yield* store.lastScan
      const states = yield* sourceStates
      const head = yield* store.changes({ limit: 1 })
      const methods: Record<string, number> = {}
      for (const r of yield* store.methodCounts) methods[r.method] = r.n
      const h = head.rows[0]
      return {
        seal: info.state,
        sealInfo: info,
        stamp: "DRAFT, not an official record",
        generatedAt: cfg.now().toISOString(),
        lastScanAt: last?.finished_at ?? null,
        coverage: coverageOf(states),
        sources: states,
        classifierMethods: methods,
        changeLogHead: h ? { seq: h.seq, at: h.at } : null
      } satisfies Provenance
    }))

    const compliance = orDie(Effect.gen(function*() {
      const columns = (yield* store.ropaColumns).map(toRopaColumn)
      const edges = (yield* store.edges()).map((e) => ({ from: e.from_id, to: e.to_id }))
      const conf = new Map((cfg.configuredSources ?? []).map((s) => [s.id, s]))
      const sources = (yield* store.sources).map((s) => toRopaSource(s, conf.get(s.id)))
      const annotations = yield* store.annotations
      const info = yield* sealInfo
      const draft = draftRopa({ columns, edges, sources, controller: cfg.controller, annotations, now: cfg.now() })
      return { ...draft, seal: info.state, sealInfo: info } satisfies RopaDraft
    }))

    const glossary = orDie(Effect.gen(function*() {
      const terms = (yield* store.glossary).map(toGlossaryTerm)
      const kept = boundBytes(terms)
      return {
        returned: kept.length,
        total: terms.length,
        truncated: kept.length < terms.length,
        terms: kept
      } satisfies Glossary
    }))

    // The register module (templates, code lists) loads only when a DORA-scoped catalog is read.
    const dora = orDie(Effect.gen(function*() {
      if (cfg.dora?.inScope !== true) return { inScope: false, register: null } satisfies DoraState
      const { doraRegisterFrom } = yield* Effect.promise(() => import("../dora/register.js"))
      return {
        inScope: true,
        register: doraRegisterFrom(yield* store.doraCells, cfg.dora.entity, { now: cfg.now() })
      } satisfies DoraState
    }))

    return Reader.of({
      status,
      datasets,
      dataset,
      search,
      lineage,
      changes,
      sourceStates,
      provenance,
      compliance,
      glossary,
      dora
    })
  })
)
