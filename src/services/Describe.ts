/**
 * Descriptions of datasets and columns: `describe list` (ids with their descriptions, paginated so a
 * 200k-column catalog never prints at once) and `describe draft <id>` (a description drafted from
 * metadata only — kind, size estimate, columns, personal-data classes present, keys, lineage — and
 * stored with `drafted = 1`). A description a human wrote (`drafted = 0`, e.g. from a team catalog
 * import) is never overwritten by a draft. Drafts land in the change-log as `description.drafted`.
 */
import { Context, DateTime, Effect, Layer } from "effect"
import type { Column } from "../domain/Catalog.js"
import { DescribeEntityUnknown, InvalidParam } from "../errors/index.js"
import { ChangeLog } from "./ChangeLog.js"
import { boundBytes, parseLimit, rowCountDisplay, toColumn } from "./Reader.js"
import { type DatasetRow, type EdgeRow, Store, type StoreError, StoreReader } from "./Store.js"

export const describeLimits = { default: 100, max: 1000 } as const
/** How many names a drafted description spells out before "… and N more". */
const maxNamed = 25

export interface DescriptionInfo {
  readonly text: string
  readonly drafted: boolean
  readonly by: string
  readonly at: string
}

export interface DescribedDataset {
  readonly id: string
  readonly kind: string
  readonly columns: number
  /** How many of its columns have a description. */
  readonly describedColumns: number
  readonly description: DescriptionInfo | null
}

export interface DescribedColumn {
  readonly id: string
  readonly name: string
  readonly type: string
  readonly classification: string
  readonly description: DescriptionInfo | null
}

/** One page of ids: datasets (default) or one dataset's columns (`dataset` set). */
export interface DescribeList {
  readonly dataset: string | null
  readonly entity: "datasets" | "columns"
  readonly offset: number
  readonly limit: number
  readonly returned: number
  readonly total: number
  readonly truncated: boolean
  /** Pass as --offset for the next page; null on the last page. */
  readonly nextOffset: number | null
  /** With `dataset`: that dataset's own description. */
  readonly datasetDescription?: DescriptionInfo | null
  readonly items: ReadonlyArray<DescribedDataset> | ReadonlyArray<DescribedColumn>
}

export interface DraftResult {
  readonly id: string
  readonly entity: "dataset" | "column"
  readonly text: string
  readonly drafted: true
  /** `created` / `updated` (stored), `unchanged` (same draft already stored), `kept-human` (a human description exists and was kept; the draft is only shown). */
  readonly outcome: "created" | "updated" | "unchanged" | "kept-human"
  readonly stored: boolean
  readonly by: string
  readonly at: string
  /** The human description that was kept (outcome `kept-human`). */
  readonly existing?: DescriptionInfo
}

export class Describe extends Context.Tag("catalog/Describe")<Describe, {
  readonly list: (
    opts: { readonly dataset?: string | undefined; readonly limit?: unknown; readonly offset?: unknown }
  ) => Effect.Effect<DescribeList, DescribeEntityUnknown | InvalidParam | StoreError>
  readonly draft: (id: string, by: string) => Effect.Effect<DraftResult, DescribeEntityUnknown | StoreError>
}>() {}

const parseOffset = (raw: unknown): Effect.Effect<number, InvalidParam> =>
  Effect.suspend(() => {
    if (raw === undefined || raw === null || raw === "") return Effect.succeed(0)
    const n = typeof raw === "number"
      ? raw
      : typeof raw === "string" && /^\d+$/.test(raw.trim())
      ? Number(raw)
      : Number.NaN
    return Number.isInteger(n) && n >= 0
      ? Effect.succeed(n)
      : Effect.fail(
        new InvalidParam({
          message: `offset must be a whole number ≥ 0; got ${JSON.stringify(raw)}.`,
          fix: "Pass --offset <n> from the previous page's nextOffset.",
          param: "offset"
        })
      )
  })

const info = (
  r: {
    readonly text: string | null
    readonly drafted: number | null
    readonly by: string | null
    readonly at: string | null
  }
): DescriptionInfo | null =>
  r.text === null ? null : { text: r.text, drafted: r.drafted === 1, by: r.by ?? "", at: r.at ?? "" }

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
const listed = (names: ReadonlyArray<string>): string =>
  names.length <= maxNamed
    ? names.join(", ")
    : `${names.slice(0, maxNamed).join(", ")} … and ${names.length - maxNamed} more`
const lastSegment = (id: string) => decodeURIComponent(id.split("/").slice(-1)[0] ?? id)

/** A dataset's description, from its metadata only. */
export const draftDatasetText = (
  d: DatasetRow,
  columns: ReadonlyArray<Column>,
  edges: ReadonlyArray<EdgeRow>
): string => {
  const kind = d.kind.replace(/_/g, " ")
  const parts: Array<string> = []
  parts.push(
    `${d.name} is a ${kind} in schema ${d.schema_name} of source ${d.source_id}, with ${
      plural(columns.length, "column")
    }; size ${rowCountDisplay(d.row_estimate)}.`
  )
  if (d.comment !== null && d.comment.trim() !== "") parts.push(`The source describes it as: "${d.comment.trim()}".`)
  if (columns.length > 0) {
    parts.push(
      `Columns: ${
        listed(columns.map((c) => `${c.name} (${c.type || "untyped"}${c.primaryKey ? ", primary key" : ""})`))
      }.`
    )
  }
  const flagged = columns.filter((c) => c.classification.value !== "not")
  if (flagged.length === 0) {
    parts.push(columns.length === 0 ? "No columns are recorded." : "No column is flagged as personal data.")
  } else {
    const byClass = (["criminal", "special", "personal"] as const)
      .map((v) => ({ v, cols: flagged.filter((c) => c.classification.value === v) }))
      .filter((g) => g.cols.length > 0)
      .map((g) =>
        `${
          g.v === "criminal"
            ? "criminal-offence data (Art. 10)"
            : g.v === "special"
            ? "special-category data (Art. 9)"
            : "personal data"
        } in ${
          listed(g.cols.map((c) =>
            c.classification.category !== null && c.classification.category !== g.v
              ? `${c.name} (${c.classification.category})`
              : c.name
          ))
        }`
      )
    parts.push(
      `It holds personal data in ${plural(flagged.length, "column")} of ${columns.length}: ${byClass.join("; ")}.`
    )
  }
  const pk = columns.filter((c) => c.primaryKey).map((c) => c.name)
  const fks = columns.filter((c) => c.references !== null).map((c) => `${c.name} → ${c.references}`)
  parts.push(
    [
      pk.length > 0 ? `Primary key: ${pk.join(", ")}.` : "No primary key is declared.",
      fks.length > 0 ? `Foreign keys: ${listed(fks)}.` : ""
    ].filter((s) => s !== "").join(" ")
  )
  const upstream = edges.filter((e) => e.to_id === d.id)
  const downstream = edges.filter((e) => e.from_id === d.id)
  if (upstream.length + downstream.length === 0) {
    parts.push("No lineage is known.")
  } else {
    if (upstream.length > 0) parts.push(`Reads from ${listed(upstream.map((e) => `${e.from_id} (${e.origin})`))}.`)
    if (downstream.length > 0) parts.push(`Feeds ${listed(downstream.map((e) => `${e.to_id} (${e.origin})`))}.`)
  }
  return parts.join(" ")
}

/** A column's description, from its metadata only. */
export const draftColumnText = (d: DatasetRow, c: Column): string => {
  const parts: Array<string> = []
  parts.push(
    `${c.name} is column ${c.position} of ${d.kind.replace(/_/g, " ")} ${d.id}, type ${c.type || "untyped"}, ${
      c.nullable ? "nullable" : "not null"
    }.`
  )
  if (c.comment !== null && c.comment.trim() !== "") parts.push(`The source describes it as: "${c.comment.trim()}".`)
  const k = c.classification
  if (k.value === "not") {
    parts.push(
      `It is not flagged as personal data${k.overridden ? ` (set by ${k.by ?? "a human"})` : ` (rule ${k.rule})`}.`
    )
  } else {
    const label = k.value === "criminal"
      ? "criminal-offence data (Art. 10)"
      : k.value === "special"
      ? "special-category data (Art. 9)"
      : "personal data"
    parts.push(
      `It is flagged as ${label}${k.category !== null && k.category !== k.value ? `, category ${k.category}` : ""}${
        k.overridden
          ? `, set by ${k.by ?? "a human"}`
          : `, by rule ${k.rule} (${Math.round(k.confidence * 100)}% confidence)`
      }.`
    )
  }
  if (c.primaryKey) parts.push(`It is a primary-key column of ${lastSegment(d.id)}.`)
  if (c.references !== null) parts.push(`It references ${c.references}.`)
  return parts.join(" ")
}

export const DescribeLive = Layer.effect(
  Describe,
  Effect.gen(function*() {
    const store = yield* StoreReader
    const writes = yield* Store
    const changeLog = yield* ChangeLog

    const findDataset = (id: string) =>
      Effect.gen(function*() {
        const resolved = yield* store.resolveDatasetId(id)
        return resolved === null ? null : yield* store.dataset(resolved)
      })

    const findColumn = (id: string) =>
      Effect.gen(function*() {
        const resolved = yield* store.resolveColumnId(id)
        return resolved === null ? null : yield* store.column(resolved)
      })

    const unknown = (id: string, param: string) =>
      new DescribeEntityUnknown({
        message: `No dataset or column with id "${id}".`,
        fix:
          "List dataset ids with `catalog describe list`, a dataset's column ids with `catalog describe list --dataset <datasetId>`.",
        param,
        details: { id }
      })

    const list: Describe["Type"]["list"] = (opts) =>
      Effect.gen(function*() {
        const limit = yield* parseLimit(opts.limit, describeLimits)
        const offset = yield* parseOffset(opts.offset)
        const page = <A>(all: ReadonlyArray<A>, total: number) => {
          const items = boundBytes(all)
          const next = offset + items.length
          return {
            offset,
            limit,
            returned: items.length,
            total,
            truncated: next < total,
            nextOffset: next < total ? next : null,
            items
          }
        }
        if (opts.dataset === undefined) {
          const { rows, total } = yield* store.describeDatasets({ limit, offset })
          const items = rows.map((r): DescribedDataset => ({
            id: r.id,
            kind: r.kind,
            columns: r.columns,
            describedColumns: r.described,
            description: info(r)
          }))
          return { dataset: null, entity: "datasets" as const, ...page(items, total) }
        }
        const d = yield* findDataset(opts.dataset)
        if (d === null) return yield* unknown(opts.dataset, "dataset")
        const own = yield* store.description(d.id)
        const { rows, total } = yield* store.describeColumns(d.id, { limit, offset })
        const items = rows.map((r): DescribedColumn => ({
          id: r.id,
          name: r.name,
          type: r.type,
          classification: r.value,
          description: info(r)
        }))
        return {
          dataset: d.id,
          entity: "columns" as const,
          datasetDescription: own !== null ? info(own) : null,
          ...page(items, total)
        }
      })

    const draft: Describe["Type"]["draft"] = (rawId, by) =>
      writes.transaction(Effect.gen(function*() {
        const id = rawId.trim()
        let entity: "dataset" | "column"
        let entityId: string
        let text: string
        let sourceId: string
        const d = yield* findDataset(id)
        if (d !== null) {
          entity = "dataset"
          entityId = d.id
          sourceId = d.source_id
          const cols = (yield* store.columnsOf(d.id)).map(toColumn)
          text = draftDatasetText(d, cols, yield* store.edges(d.id))
        } else {
          const c = yield* findColumn(id)
          if (c === null) return yield* unknown(id, "id")
          const owner = yield* store.dataset(c.dataset_id)
          if (owner === null) return yield* unknown(id, "id")
          entity = "column"
          entityId = c.id
          sourceId = owner.source_id
          text = draftColumnText(owner, toColumn(c))
        }
        const prev = yield* store.description(entityId)
        const at = DateTime.formatIso(yield* DateTime.now)
        if (prev !== null && prev.drafted === 0) {
          return {
            id: entityId,
            entity,
            text,
            drafted: true as const,
            outcome: "kept-human" as const,
            stored: false,
            by,
            at,
            existing: { text: prev.text, drafted: false, by: prev.by, at: prev.at }
          }
        }
        if (prev !== null && prev.text === text) {
          return {
            id: entityId,
            entity,
            text,
            drafted: true as const,
            outcome: "unchanged" as const,
            stored: true,
            by: prev.by,
            at: prev.at
          }
        }
        yield* writes.saveDraftDescription({ entityId, text, by, at })
        yield* changeLog.record({
          at,
          scanId: null,
          kind: "description.drafted",
          entity: entityId,
          sourceId,
          detail: { entity, drafted: true, length: text.length, preview: text.slice(0, 160), replaced: prev !== null },
          by
        })
        return {
          id: entityId,
          entity,
          text,
          drafted: true as const,
          outcome: prev !== null ? "updated" as const : "created" as const,
          stored: true,
          by,
          at
        }
      }))

    return Describe.of({ list, draft })
  })
)
