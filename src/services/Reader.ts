/**
 * The one read model. The CLI read commands, the MCP tools and the HTTP routes all serialise what
 * this returns, so the three surfaces cannot disagree. It is built on `StoreReader` only: no writes.
 */
import { Context, Effect, Layer } from "effect"
import type {
  ChangeEntry,
  ChangeList,
  ClassCounts,
  Classification,
  Column,
  Coverage,
  Dataset,
  DatasetList,
  DatasetSummary,
  LineageEdge,
  LineageList,
  SearchHit,
  SearchResult,
  SourceState,
  StalenessTier,
  Status
} from "../domain/Catalog.js"
import { coverageLine } from "../domain/Catalog.js"
import type { DoraState, Glossary, Provenance, RopaDraft } from "../domain/Compliance.js"
import type { ClassValue } from "../domain/Metadata.js"
import { DatasetNotFound, InvalidParam } from "../errors/index.js"
import { redact } from "./Redact.js"
import { draftRopa } from "./Ropa.js"
import {
  type ChangeRow,
  type ColumnRow,
  type DatasetRow,
  type EdgeRow,
  searchWords,
  type SourceRow,
  StoreReader
} from "./Store.js"

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
  readonly configuredSources:
    | ReadonlyArray<
      {
        readonly id: string
        readonly kind: string
        readonly driver: string
        readonly label?: string | undefined
        readonly region?: string | undefined
        readonly role?: string | undefined
      }
    >
    | null
  readonly catalogOnly: boolean
  readonly now: () => Date
}
export class ReaderConfigTag extends Context.Tag("catalog/ReaderConfig")<ReaderConfigTag, ReaderConfig>() {}

export const searchLimits = { default: 20, max: 100 } as const

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
/** Column and dataset names repeat across a catalog: their search words are computed once. */
const wordsMemo = new Map<string, ReadonlyArray<string>>()
const searchWordsOf = (s: string): ReadonlyArray<string> => {
  const hit = wordsMemo.get(s)
  if (hit !== undefined) return hit
  const words = fold(searchWords(s)).split(/[^\p{L}\p{N}]+/u).filter((t) => t.length > 0)
  if (wordsMemo.size > 50_000) wordsMemo.clear()
  wordsMemo.set(s, words)
  return words
}
/** List results are cut to about this many bytes of JSON (with returned/total/truncated). */
export const maxListBytes = 100_000

/** The longest prefix of `items` whose JSON stays within `maxListBytes`. */
export const boundBytes = <A>(items: ReadonlyArray<A>, budget = maxListBytes): Array<A> => {
  const out: Array<A> = []
  let size = 2
  for (const item of items) {
    size += JSON.stringify(item).length + 1
    if (size > budget) break
    out.push(item)
  }
  return out
}
export const changesLimits = { default: 50, max: 1000 } as const
/** Staleness thresholds (hours): fresh < 24 h ≤ stale-warn < 7 d ≤ stale-loud. */
export const staleness = { warnHours: 24, loudHours: 24 * 7 } as const

const rank: Record<ClassValue, number> = { not: 0, personal: 1, special: 2, criminal: 3 }
export const highestClass = (
  c: ClassCounts
): ClassValue => (c.criminal > 0 ? "criminal" : c.special > 0 ? "special" : c.personal > 0 ? "personal" : "not")

export const rowCountDisplay = (estimate: number | null): string =>
  estimate === null
    ? "unknown (no planner estimate)"
    : `~${Math.round(estimate).toLocaleString("en-US")} rows (estimate)`

export const tierOf = (lastOk: string | null, now: Date): StalenessTier => {
  if (lastOk === null) return "never"
  const hours = (now.getTime() - Date.parse(lastOk)) / 3_600_000
  return hours < staleness.warnHours ? "fresh" : hours < staleness.loudHours ? "stale-warn" : "stale-loud"
}

const classification = (c: ColumnRow): Classification => {
  const machine = {
    value: c.m_value,
    rule: c.m_rule,
    confidence: c.m_confidence,
    method: c.m_method,
    category: c.m_category,
    evidence: JSON.parse(c.m_evidence) as Array<string>
  }
  if (c.o_value === null) {
    return {
      value: c.m_value,
      rule: c.m_rule,
      confidence: c.m_confidence,
      method: c.m_method,
      category: c.m_category,
      overridden: false,
      machine,
      drift: false
    }
  }
  return {
    value: c.o_value,
    rule: "human-override",
    confidence: 1,
    method: "human",
    category: c.o_value === c.m_value
      ? c.m_category
      : c.o_value === "not"
      ? null
      : c.o_value === "special"
      ? "special"
      : c.o_value === "criminal"
      ? "criminal"
      : "personal",
    overridden: true,
    ...(c.o_by !== null ? { by: c.o_by } : {}),
    ...(c.o_at !== null ? { at: c.o_at } : {}),
    machine,
    drift: c.o_value !== c.m_value
  }
}

export const toColumn = (c: ColumnRow): Column => ({
  id: c.id,
  name: c.name,
  position: c.position,
  type: c.type,
  nullable: c.nullable === 1,
  comment: c.comment,
  primaryKey: c.is_pk === 1,
  references: c.ref,
  classification: classification(c)
})

const toEdge = (e: EdgeRow): LineageEdge => ({
  id: e.id,
  from: e.from_id,
  to: e.to_id,
  origin: e.origin,
  resolvable: e.from_known > 0 && e.to_known > 0,
  createdAt: e.created_at,
  ...(e.by !== null ? { by: e.by } : {})
})

const summarizeChange = (r: ChangeRow, d: Record<string, unknown>): string => {
  switch (r.kind) {
    case "dataset.added":
      return `new ${String(d["kind"] ?? "dataset")} ${r.entity} (${String(d["columns"] ?? "?")} columns, ${
        String(d["personal"] ?? 0)
      } flagged)`
    case "dataset.dropped":
      return `dataset ${r.entity} is gone`
    case "column.added":
      return `new column ${r.entity} ${String(d["type"] ?? "")} → ${String(d["classification"] ?? "")}`
    case "column.dropped":
      return `column ${r.entity} is gone`
    case "column.type_changed":
      return `column ${r.entity} type ${String(d["from"])} → ${String(d["to"])}`
    case "column.reclassified":
      return `scan reclassified ${r.entity}: ${String(d["from"])} → ${String(d["to"])} (${String(d["rule"] ?? "")})`
    case "column.classified":
      return `${r.by ?? "someone"} set ${r.entity} to ${String(d["to"])} (was ${String(d["from"])})`
    case "column.classification_cleared":
      return `${r.by ?? "someone"} cleared the override on ${r.entity}; back to the scan's ${String(d["to"])}`
    case "source.added":
      return `source ${r.entity} (${String(d["kind"] ?? "")}) scanned for the first time`
    case "ropa.field_filled":
      return `${r.by ?? "someone"} filled ${r.entity} (draft, not confirmed): ${String(d["value"] ?? "")}`
    case "ropa.field_confirmed":
      return `${r.by ?? "someone"} confirmed ${r.entity}: ${String(d["value"] ?? "")}`
    case "lineage.added":
      return `${r.by ?? "someone"} added lineage ${String(d["from"] ?? "")} → ${String(d["to"] ?? "")}`
    case "lineage.removed":
      return `${r.by ?? "someone"} removed lineage ${String(d["from"] ?? "")} → ${String(d["to"] ?? "")}`
    case "glossary.set":
      return `${r.by ?? "someone"} set glossary term "${r.entity}"`
    case "description.drafted":
      return `description drafted for ${r.entity}`
    case "dora.import":
      return `${r.by ?? "someone"} imported DORA table ${r.entity}`
    case "dora.set":
      return `${r.by ?? "someone"} set DORA cell ${r.entity}`
    case "catalog.imported":
      return `${r.by ?? "someone"} imported the team catalog file ${r.entity}`
    case "source.removed":
      return `source ${r.entity} removed with its ${String(d["datasets"] ?? 0)} datasets`
    default:
      return `${r.kind} ${r.entity}`
  }
}

const toChange = (r: ChangeRow): ChangeEntry => {
  const detail = JSON.parse(r.detail) as Record<string, unknown>
  return {
    seq: r.seq,
    at: r.at,
    kind: r.kind,
    entity: r.entity,
    source: r.source_id,
    summary: summarizeChange(r, detail),
    detail,
    ...(r.by !== null ? { by: r.by } : {}),
    scanId: r.scan_id
  }
}

/**
 * The Reader's input parsing, shared by every surface: the CLI passes flag values as typed, HTTP the
 * raw query strings, MCP the decoded JSON values. Text must be exactly what it means: no surrounding
 * blanks, no sign, no exponent, no hex, no fraction. A bad value is INVALID_PARAM naming the parameter.
 */
const decimalInteger = /^[0-9]+$/

/** A count or sequence number: a safe integer, from a JSON number or from plain decimal digits; else NaN. */
const integerOf = (raw: unknown): number => {
  const n = typeof raw === "number"
    ? raw
    : typeof raw === "string" && decimalInteger.test(raw)
    ? Number(raw)
    : Number.NaN
  return Number.isSafeInteger(n) ? n : Number.NaN
}

/** Parses `limit` (an integer within bounds; absent = the default) or fails with `INVALID_PARAM` naming it. */
export const parseLimit = (
  raw: unknown,
  bounds: { readonly default: number; readonly max: number },
  param = "limit"
): Effect.Effect<number, InvalidParam> =>
  Effect.suspend(() => {
    if (raw === undefined) return Effect.succeed(bounds.default)
    const n = integerOf(raw)
    if (Number.isNaN(n) || n < 1 || n > bounds.max) {
      return Effect.fail(
        new InvalidParam({
          message: `${param} must be a whole number from 1 to ${bounds.max}, written in plain digits; got ${
            JSON.stringify(raw)
          }.`,
          fix: `Pass ${param} between 1 and ${bounds.max} (default ${bounds.default}).`,
          param
        })
      )
    }
    return Effect.succeed(n)
  })

const daysIn = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28)
    : [4, 6, 9, 11].includes(month)
    ? 30
    : 31

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and `Z` or `±HH[:]MM` (a space for the `T` too). */
const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/

/**
 * An ISO-8601 timestamp as an instant, or null when it is malformed or names no real time
 * (2026-02-30, 24:00, 12:60). Without an offset, a date is UTC midnight and a date-time is local
 * time, as JavaScript reads them.
 */
export const parseTimestamp = (text: string): Date | null => {
  const m = isoTimestamp.exec(text)
  if (m === null) return null
  const [, y, mo, d, hh, mi, ss, frac, zone, zh, zm] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null
  if (hh === undefined) return new Date(`${y}-${mo}-${d}T00:00:00.000Z`)
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss ?? "0") > 59) return null
  if (zh !== undefined && (Number(zh) > 23 || Number(zm) > 59)) return null
  const ms = frac === undefined ? "000" : frac.slice(0, 3).padEnd(3, "0")
  const offset = zone === undefined ? "" : zone === "Z" ? "Z" : `${zone[0]}${zh}:${zm}`
  const at = new Date(`${y}-${mo}-${d}T${hh}:${mi}:${ss ?? "00"}.${ms}${offset}`)
  return Number.isNaN(at.getTime()) ? null : at
}

/** `since`: a change sequence number (a safe integer >= 0), or an ISO-8601 timestamp; absent = the default. */
export const parseSince = (
  raw: unknown
): Effect.Effect<{ readonly seq: number } | { readonly at: string } | undefined, InvalidParam> =>
  Effect.suspend((): Effect.Effect<{ readonly seq: number } | { readonly at: string } | undefined, InvalidParam> => {
    if (raw === undefined) return Effect.succeed(undefined)
    const seq = integerOf(raw)
    if (!Number.isNaN(seq) && seq >= 0) return Effect.succeed({ seq } as const)
    const at = typeof raw === "string" ? parseTimestamp(raw) : null
    if (at !== null) return Effect.succeed({ at: at.toISOString() } as const)
    return Effect.fail(
      new InvalidParam({
        message:
          `since must be a change sequence number (0 to ${Number.MAX_SAFE_INTEGER}, plain digits) or an ISO-8601 timestamp; got ${
            JSON.stringify(raw)
          }.`,
        fix:
          "Pass since=0 for the whole change-log, a sequence number from a change entry, or a timestamp like 2026-01-31T12:00:00Z.",
        param: "since"
      })
    )
  })

/** Turns user words into an FTS5 query: each word a quoted prefix term. */
export const ftsQuery = (words: ReadonlyArray<string>, op: "AND" | "OR"): string | null => {
  const terms = words.flatMap((w) => searchWords(w).toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((t) => t.length > 0)
  if (terms.length === 0) return null
  return [...new Set(terms)].map((t) => `"${t}"*`).join(` ${op} `)
}

export class Reader extends Context.Tag("catalog/Reader")<Reader, {
  readonly status: Effect.Effect<Status>
  readonly datasets: Effect.Effect<DatasetList>
  /**
   * One dataset. `param` is the caller's own name for the id (its surface's parameter): DATASET_NOT_FOUND
   * names it. It defaults to `id`, what get_dataset and /datasets/:id call it.
   */
  readonly dataset: (id: string, param?: string) => Effect.Effect<Dataset, DatasetNotFound>
  readonly search: (q: unknown, limit?: unknown) => Effect.Effect<SearchResult, InvalidParam>
  /**
   * Every lineage edge, or one dataset's. `param` is the caller's own name for that dataset id (HTTP
   * `dataset`, MCP `datasetId`, CLI `--dataset`): DATASET_NOT_FOUND and INVALID_PARAM (an empty id) name it.
   */
  readonly lineage: (datasetId?: string, param?: string) => Effect.Effect<LineageList, DatasetNotFound | InvalidParam>
  readonly changes: (since?: unknown, limit?: unknown) => Effect.Effect<ChangeList, InvalidParam>
  readonly sourceStates: Effect.Effect<ReadonlyArray<SourceState>>
  readonly provenance: Effect.Effect<Provenance>
  /** The RoPA draft (Art. 30): activities and their legal fields with status. */
  readonly compliance: Effect.Effect<RopaDraft>
  readonly glossary: Effect.Effect<Glossary>
  /** The DORA register draft, or `{ inScope: false, register: null }`. */
  readonly dora: Effect.Effect<DoraState>
}>() {}

export const ReaderLive = Layer.effect(
  Reader,
  Effect.gen(function*() {
    const store = yield* StoreReader
    const cfg = yield* ReaderConfigTag
    const orDie = <A, E>(e: Effect.Effect<A, E>) => Effect.orDie(e)

    const sourceStates = orDie(Effect.gen(function*() {
      const rows = yield* store.sources
      const byId = new Map<string, SourceRow>(rows.map((r) => [r.id, r]))
      const ids = cfg.configuredSources ? cfg.configuredSources.map((s) => s.id) : rows.map((r) => r.id)
      const now = cfg.now()
      return ids.map((id): SourceState => {
        const r = byId.get(id)
        const conf = cfg.configuredSources?.find((s) => s.id === id)
        const kind = conf?.kind ?? r?.kind ?? "unknown"
        return {
          id,
          kind,
          driver: conf?.driver ?? r?.driver ?? "unknown",
          label: conf?.label ?? r?.label ?? null,
          region: conf?.region ?? r?.region ?? null,
          userAuthored: r ? r.user_authored === 1 : false,
          reachable: r?.status === "ok",
          status: r ? r.status : "never",
          // Redacted again on the way out: a catalog written before redaction existed may still hold a secret.
          error: r && r.error_code !== null ? { code: r.error_code, message: redact(r.error_message ?? "") } : null,
          serverVersion: r?.server_version ?? null,
          lastAttemptAt: r?.last_attempt_at ?? null,
          lastScannedAt: r?.last_ok_at ?? null,
          staleness: tierOf(r?.last_ok_at ?? null, now),
          datasets: r?.datasets ?? 0
        }
      })
    }))

    const coverageOf = (states: ReadonlyArray<SourceState>): Coverage => {
      const reached = states.filter((s) => s.status === "ok").map((s) => s.id)
      const missing = states.filter((s) => s.status !== "ok").map((s) => s.id)
      const line = coverageLine(
        states.length,
        states.filter((s) => s.status !== "ok").map((s) => ({
          id: s.id,
          reason: s.error ? s.error.code : "never scanned"
        }))
      )
      return { complete: states.length > 0 && missing.length === 0, reached, missing, line }
    }

    const status = orDie(Effect.gen(function*() {
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
        seal: "draft",
        catalogOnly: cfg.catalogOnly,
        upload: cfg.catalogOnly
          ? "catalog-only is on: no metadata ever leaves this machine, even when paired."
          : "local only: not paired with a portal, nothing was uploaded.",
        sourceStates: states
      } satisfies Status
    }))

    const datasets = orDie(Effect.gen(function*() {
      const rows = yield* store.datasets
      const list = rows.map((d): DatasetSummary => {
        const classes = {
          personal: d.personal ?? 0,
          special: d.special ?? 0,
          criminal: d.criminal ?? 0,
          not: d.columns - (d.personal ?? 0) - (d.special ?? 0) - (d.criminal ?? 0)
        }
        return {
          id: d.id,
          source: d.source_id,
          schema: d.schema_name,
          name: d.name,
          kind: d.kind,
          rowCount: {
            estimate: d.row_estimate,
            display: rowCountDisplay(d.row_estimate),
            source: d.row_estimate_source
          },
          columnCount: d.columns,
          classes,
          highest: highestClass(classes)
        }
      })
      return { returned: list.length, total: list.length, truncated: false, datasets: list }
    }))

    const fullDataset = (d: DatasetRow) =>
      orDie(Effect.gen(function*() {
        const cols = (yield* store.columnsOf(d.id)).map(toColumn)
        const edges = (yield* store.edges(d.id)).map(toEdge)
        const classes: Record<ClassValue, number> = { personal: 0, special: 0, criminal: 0, not: 0 }
        for (const c of cols) classes[c.classification.value]++
        return {
          id: d.id,
          source: d.source_id,
          schema: d.schema_name,
          name: d.name,
          kind: d.kind,
          comment: d.comment,
          rowCount: {
            estimate: d.row_estimate,
            display: rowCountDisplay(d.row_estimate),
            source: d.row_estimate_source
          },
          owners: [],
          classes,
          columns: cols,
          lineage: { upstream: edges.filter((e) => e.to === d.id), downstream: edges.filter((e) => e.from === d.id) },
          firstSeenAt: d.first_seen_at,
          scannedAt: d.scanned_at
        } satisfies Dataset
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

    // Long-running readers (open, mcp) answer the same datasets again and again; a dataset is rebuilt
    // only after another process committed (PRAGMA data_version moved) — a scan, a correction, an import.
    const datasetCache = new Map<string, Dataset>()
    let cachedVersion = ""
    const dataset = (id: string, param = "id") =>
      Effect.gen(function*() {
        const version = yield* orDie(store.dataVersion)
        if (version !== cachedVersion) {
          datasetCache.clear()
          cachedVersion = version
        }
        const hit = datasetCache.get(id)
        if (hit !== undefined) return hit
        const d = yield* Effect.flatMap(findDataset(id, param), fullDataset)
        if (datasetCache.size >= 2_000) datasetCache.delete(datasetCache.keys().next().value as string)
        datasetCache.set(id, d)
        return d
      })

    const search = (q: unknown, rawLimit?: unknown) =>
      Effect.gen(function*() {
        const words = typeof q === "string" ? q.split(/\s+/).filter((w) => w.length > 0) : []
        const match = ftsQuery(words, "AND")
        if (match === null) {
          return yield* new InvalidParam({
            message: "Search needs words to look for.",
            fix: "Give one or more words, e.g. `catalog search customer email`.",
            param: "q"
          })
        }
        const limit = yield* parseLimit(rawLimit, searchLimits)
        const qtext = words.join(" ")
        const terms = words.flatMap((w) => searchWords(w).toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((t) =>
          t.length > 0
        )
        const candidates = Math.min(200, Math.max(30, limit * 3))
        let rows = yield* orDie(store.searchDatasets(match, candidates))
        if (rows.length === 0) rows = yield* orDie(store.searchDatasets(ftsQuery(words, "OR")!, candidates))
        type SearchColumn = Effect.Effect.Success<ReturnType<typeof store.searchColumnsOf>>[number]
        const columnsByDataset = new Map<string, Array<SearchColumn>>()
        for (const c of yield* orDie(store.searchColumnsOf(rows.map((r) => r.id)))) {
          const list = columnsByDataset.get(c.dataset_id)
          if (list) list.push(c)
          else columnsByDataset.set(c.dataset_id, [c])
        }
        const wordsOf = searchWordsOf
        const folded = terms.map((t) => [t, fold(t)] as const)
        const matches = (s: string) => {
          const ws = wordsOf(s)
          return folded.filter(([, f]) => ws.some((w) => w.startsWith(f))).map(([t]) => t)
        }
        const hits: Array<SearchHit> = []
        for (const r of rows) {
          const name = r.id.split("/").slice(-1)[0] ?? r.id
          const dm = matches(name)
          if (dm.length > 0 || matches(r.schema_name).length > 0) {
            const cols = columnsByDataset.get(r.id) ?? []
            const snippet = `${r.kind} ${r.schema_name}.${r.name} · ${cols.length} columns${
              r.comment ? ` · ${r.comment.slice(0, 100)}` : ""
            }`
            hits.push({
              kind: "dataset",
              id: r.id,
              datasetId: r.id,
              title: r.id,
              score: r.score * 1.2,
              why: `dataset name matches ${dm.map((t) => `"${t}"`).join(", ") || `"${qtext}"`}`,
              snippet
            })
          }
          for (const c of columnsByDataset.get(r.id) ?? []) {
            const byName = matches(c.name)
            const byComment = c.comment ? matches(c.comment) : []
            if (byName.length === 0 && byComment.length === 0) continue
            const value = c.o_value ?? c.m_value
            const category = c.o_value === null || c.o_value === c.m_value
              ? c.m_category
              : c.o_value === "not"
              ? null
              : c.o_value
            const coverage = new Set([...byName, ...byComment, ...dm]).size / Math.max(1, new Set(terms).size)
            hits.push({
              kind: "column",
              id: c.id,
              datasetId: r.id,
              title: c.id,
              score: r.score * (byName.length > 0 ? 1 : 0.6) * coverage,
              why: byName.length > 0
                ? `column name matches ${byName.map((t) => `"${t}"`).join(", ")}${
                  dm.length > 0 ? " in a dataset whose name matches" : ""
                }`
                : `column comment mentions ${byComment.map((t) => `"${t}"`).join(", ")}`,
              snippet: `${c.name} ${c.type} · ${value}${category ? ` (${category})` : ""}${
                c.comment ? ` · ${c.comment.slice(0, 80)}` : ""
              }`,
              classification: value
            })
          }
        }
        const g = yield* orDie(store.searchGlossary(match, 50))
        for (const t of g) {
          hits.push({
            kind: "glossary",
            id: `glossary:${t.term}`,
            datasetId: null,
            title: t.term,
            score: t.score * 1.5,
            why: `glossary term matches "${qtext}"`,
            snippet: t.definition.slice(0, 160)
          })
        }
        hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
        const rounded = hits.map((h) => ({ ...h, score: Math.round(h.score * 1000) / 1000 }))
        const out = boundBytes(rounded.slice(0, limit))
        return {
          q: qtext,
          returned: out.length,
          total: hits.length,
          truncated: hits.length > out.length,
          hits: out
        } satisfies SearchResult
      })

    const lineage = (id?: string, param?: string) =>
      Effect.gen(function*() {
        if (id === "") {
          return yield* new InvalidParam({
            message: `${param ?? "The dataset id"} must be a dataset id <source>/<schema>/<table>; got an empty value.`,
            fix:
              "Leave it out for every edge, or give one dataset's id (list them with GET /api/v1/datasets or `catalog datasets`).",
            ...(param !== undefined ? { param } : {})
          })
        }
        if (id !== undefined) yield* findDataset(id, param)
        const all = (yield* orDie(store.edges(id))).map(toEdge)
        const edges = boundBytes(all)
        return {
          dataset: id ?? null,
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
        let sinceSeq: number | undefined
        let sinceAt: string | undefined
        let sinceLabel: string | null = null
        if (since === undefined) {
          const last = yield* orDie(store.lastScan)
          if (last !== null) {
            sinceAt = new Date(Date.parse(last.started_at) - 1).toISOString()
            sinceLabel = `last scan (${last.started_at})`
          }
        } else if ("seq" in since) {
          sinceSeq = since.seq
          sinceLabel = String(since.seq)
        } else {
          sinceAt = since.at
          sinceLabel = since.at
        }
        const { rows, total } = yield* orDie(
          store.changes({
            limit,
            ...(sinceSeq !== undefined ? { sinceSeq } : {}),
            ...(sinceAt !== undefined ? { sinceAt } : {})
          })
        )
        const changes = boundBytes(rows.map(toChange))
        return {
          since: sinceLabel,
          returned: changes.length,
          total,
          truncated: total > changes.length,
          changes
        } satisfies ChangeList
      })

    const provenance = orDie(Effect.gen(function*() {
      const last = yield* store.lastScan
      const states = yield* sourceStates
      const head = yield* store.changes({ limit: 1 })
      const methods: Record<string, number> = {}
      for (const r of yield* store.methodCounts) methods[r.method] = r.n
      const h = head.rows[0]
      return {
        seal: "draft",
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
      const cols = yield* store.ropaColumns
      const edges = yield* store.edges()
      const sources = yield* store.sources
      const annotations = yield* store.annotations
      const conf = new Map((cfg.configuredSources ?? []).map((s) => [s.id, s]))
      return draftRopa({
        columns: cols.map((c) => ({
          datasetId: c.dataset_id,
          source: c.source_id,
          schema: c.schema_name,
          table: c.table_name,
          kind: c.kind,
          column: c.name,
          value: c.value,
          category: c.category,
          primaryKey: c.is_pk === 1,
          ref: c.ref
        })),
        edges: edges.map((e) => ({ from: e.from_id, to: e.to_id })),
        sources: sources.map((s) => ({
          id: s.id,
          kind: s.kind,
          label: conf.get(s.id)?.label ?? s.label,
          region: conf.get(s.id)?.region ?? s.region,
          role: conf.get(s.id)?.role ?? null
        })),
        controller: cfg.controller,
        annotations,
        now: cfg.now()
      })
    }))

    const glossary = orDie(Effect.gen(function*() {
      const rows = yield* store.glossary
      const terms = rows.map((g) => ({
        term: g.term,
        definition: g.definition,
        datasets: JSON.parse(g.datasets) as Array<string>,
        updatedAt: g.updated_at,
        ...(g.by !== null ? { by: g.by } : {})
      }))
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

export { rank as classRank }
