/**
 * The eight read-only tools of SPEC.md §A, as data: the Effect Schema that decodes each tool's
 * arguments (strict: an unknown key is an error, never stripped), the JSON Schemas `tools/list`
 * publishes (both derived from Schemas: the arguments' and the domain's), and the one Reader call
 * each tool makes. A tool's `structuredContent` is the Reader's value, unchanged.
 */
import { type Context, type Effect, JSONSchema, Schema } from "effect"
import { mcpTools } from "../../domain/Agents.js"
import { ChangeList, Dataset, LineageList, SearchResult } from "../../domain/Catalog.js"
import { DoraState, Glossary, Provenance, RopaDraft } from "../../domain/Compliance.js"
import type { DatasetNotFound, InvalidParam, SchemaMigrationRequired } from "../../errors/index.js"
import { changesLimits, type Reader, searchLimits } from "../../services/Reader.js"

/** A JSON Schema object, as published in `tools/list`. */
export type JsonSchemaObject = { readonly type: "object" } & Readonly<Record<string, unknown>>

/** Every tool answers with the same annotations: it reads the local catalog and nothing else. */
export const readOnlyAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
} as const

export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  /** The accepted argument names, in schema order. */
  readonly params: ReadonlyArray<string>
  /** Per argument, what a valid value looks like (used in -32602 messages). */
  readonly expects: Readonly<Record<string, string>>
  /** Strict decoder for `arguments`. */
  readonly input: Schema.Schema<unknown>
  readonly inputSchema: JsonSchemaObject
  readonly outputSchema: JsonSchemaObject
  readonly run: (
    args: unknown,
    reader: Context.Tag.Service<Reader>
  ) => Effect.Effect<unknown, DatasetNotFound | InvalidParam | SchemaMigrationRequired>
}

/** The error body every surface shares (`toErrorBody`): `isError` results carry it as `structuredContent`. */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    code: Schema.String,
    message: Schema.String,
    fix: Schema.optional(Schema.String),
    param: Schema.optional(Schema.String),
    details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  })
})

/**
 * Effect's JSON Schema, made portable: `$ref`s into `$defs` are inlined (our schemas are not
 * recursive), and `$schema`, `$id` and the generated `title`s are dropped. Without `$schema` a
 * schema is JSON Schema 2020-12 for MCP; the keywords left (type, properties, required,
 * additionalProperties, anyOf, enum, items, minimum, maximum, minLength) mean the same in draft-07,
 * which the SDK client's Ajv compiles by default.
 */
export const portableJsonSchema = (root: object): Record<string, unknown> => {
  const defs = (root as { $defs?: Record<string, unknown> }).$defs ?? {}
  const map = (o: unknown, f: (v: unknown) => unknown) =>
    Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [k, f(v)]))
  const node = (n: unknown): unknown => {
    if (typeof n !== "object" || n === null || Array.isArray(n)) return n
    const o = n as Record<string, unknown>
    const ref = typeof o["$ref"] === "string" ? o["$ref"] : undefined
    const out: Record<string, unknown> = ref !== undefined
      ? { ...(node(defs[decodeURIComponent(ref.replace(/^#\/\$defs\//, ""))]) as object) }
      : {}
    for (const [k, v] of Object.entries(o)) {
      if (k === "$ref" || k === "$defs" || k === "$schema" || k === "$id" || k === "title") continue
      if (k === "properties" || k === "patternProperties") out[k] = map(v, node)
      else if (k === "anyOf" || k === "oneOf" || k === "allOf" || k === "prefixItems") {
        out[k] = (v as Array<unknown>).map(node)
      } else if (k === "additionalProperties" && typeof v === "object" && v !== null) {
        // Effect spells "any value" as an empty schema; `true` says the same and says it on purpose.
        const inner = node(v) as Record<string, unknown>
        out[k] = Object.keys(inner).length === 0 ? true : inner
      } else if (k === "items" || k === "additionalProperties" || k === "not") out[k] = node(v)
      else out[k] = v
    }
    return out
  }
  return node(root) as Record<string, unknown>
}

const inputJson = (s: Schema.Schema.Any): JsonSchemaObject => portableJsonSchema(JSONSchema.make(s)) as JsonSchemaObject

/** No arguments: an empty Struct alone accepts any object, even with `onExcessProperty: "error"`; every key must fail. */
const noArgumentsDecoder = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Never }))

/** No arguments: the schema MCP recommends, written out (Effect's for an empty Struct is an anyOf). */
const noArguments: JsonSchemaObject = { type: "object", properties: {}, additionalProperties: false }

/** A tool's value, or the shared error envelope (`isError` results are validated by SDK clients too). */
const outputJson = (s: Schema.Schema.Any): JsonSchemaObject => ({
  type: "object",
  anyOf: [portableJsonSchema(JSONSchema.make(s)), portableJsonSchema(JSONSchema.make(ErrorEnvelope))]
})

const info = (name: string) => {
  const found = mcpTools.find((t) => t.name === name)
  if (found === undefined) throw new Error(`Tool ${name} is not in domain/Agents.ts`)
  return found
}

const define = <A, I, O, OI>(
  name: string,
  spec: {
    readonly input: Schema.Schema<A, I> | null
    readonly expects: { readonly [K in keyof A]-?: string }
    readonly output: Schema.Schema<O, OI>
    readonly run: (
      args: A,
      reader: Context.Tag.Service<Reader>
    ) => Effect.Effect<O, DatasetNotFound | InvalidParam | SchemaMigrationRequired>
  }
): Tool => {
  const input = (spec.input ?? noArgumentsDecoder) as unknown as Schema.Schema<unknown>
  return {
    name,
    title: info(name).title,
    description: info(name).description,
    params: Object.keys(spec.expects),
    expects: spec.expects as Readonly<Record<string, string>>,
    input,
    inputSchema: spec.input === null ? noArguments : inputJson(spec.input),
    outputSchema: outputJson(spec.output),
    run: (args, reader) => spec.run(args as A, reader)
  }
}

const datasetIdText =
  "a dataset id `<source>/<schema>/<table>` as returned by search_datasets (e.g. `shop/main/customers`)"
const searchLimitText = `an integer from 1 to ${searchLimits.max} (default ${searchLimits.default})`
const changesLimitText = `an integer from 1 to ${changesLimits.max} (default ${changesLimits.default})`
const sinceText =
  "a change sequence number (an integer >= 0; 0 = the whole change-log) or an ISO-8601 timestamp such as 2026-01-31T12:00:00Z (default: the last scan)"

/** The eight tools, in the fixed order `tools/list` returns them. */
export const tools: ReadonlyArray<Tool> = [
  define("search_datasets", {
    input: Schema.Struct({
      q: Schema.String.pipe(Schema.minLength(1)).annotations({
        description: "Words to look for in dataset, column and glossary names and comments, e.g. \"customer email\"."
      }),
      limit: Schema.optional(
        Schema.Int.pipe(Schema.between(1, searchLimits.max)).annotations({
          description: `Most hits to return: ${searchLimitText}.`
        })
      )
    }),
    expects: { q: "a non-empty string of words to look for", limit: searchLimitText },
    output: SearchResult,
    run: (a, reader) => reader.search(a.q, a.limit)
  }),
  define("get_dataset", {
    input: Schema.Struct({
      id: Schema.String.pipe(Schema.minLength(1)).annotations({ description: `The dataset: ${datasetIdText}.` })
    }),
    expects: { id: datasetIdText },
    output: Dataset,
    run: (a, reader) => reader.dataset(a.id)
  }),
  define("get_lineage", {
    input: Schema.Struct({
      datasetId: Schema.optional(
        Schema.String.pipe(Schema.minLength(1)).annotations({
          description: `Only this dataset's upstream and downstream edges: ${datasetIdText}. Omit for every edge.`
        })
      )
    }),
    expects: { datasetId: datasetIdText },
    output: LineageList,
    run: (a, reader) => reader.lineage(a.datasetId, "datasetId")
  }),
  define("get_compliance_state", {
    input: null,
    expects: {},
    output: RopaDraft,
    run: (_, reader) => reader.compliance
  }),
  define("get_provenance", { input: null, expects: {}, output: Provenance, run: (_, reader) => reader.provenance }),
  define("get_changes", {
    input: Schema.Struct({
      since: Schema.optional(
        Schema.Union(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)), Schema.String.pipe(Schema.minLength(1)))
          .annotations({ description: `Entries after ${sinceText}.` })
      ),
      limit: Schema.optional(
        Schema.Int.pipe(Schema.between(1, changesLimits.max)).annotations({
          description: `Most entries to return: ${changesLimitText}.`
        })
      )
    }),
    expects: { since: sinceText, limit: changesLimitText },
    output: ChangeList,
    run: (a, reader) => reader.changes(a.since, a.limit)
  }),
  define("get_glossary", { input: null, expects: {}, output: Glossary, run: (_, reader) => reader.glossary }),
  define("get_dora", { input: null, expects: {}, output: DoraState, run: (_, reader) => reader.dora })
]

export const toolNames: ReadonlyArray<string> = tools.map((t) => t.name)
