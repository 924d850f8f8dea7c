/**
 * The read API contract served by `catalog open`: exactly the ten GET routes of SPEC.md §B, under
 * `/api/v1`, as one `HttpApi` value. The handlers, `/api/v1/openapi.json`, the `GET /api/v1` index
 * and the ENDPOINT_NOT_FOUND list are all derived from it, so none of them can drift from the routes.
 *
 * Success bodies are the Reader's values (their Schemas come from `domain/`); error bodies are the
 * registry's one shape `{ error: { code, message, fix?, param? } }`.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "@effect/platform"
import { Option, Schema, SchemaAST } from "effect"
import { ChangeList, Dataset, DatasetList, LineageList, SearchResult } from "../../domain/Catalog.js"
import { DoraState, Glossary, Provenance, RopaDraft } from "../../domain/Compliance.js"
import { DatasetNotFound, InvalidParam, SchemaMigrationRequired } from "../../errors/index.js"
import { changesLimits, searchLimits } from "../../services/Reader.js"
import { version } from "../../version.js"

/** The path prefix of every API route. */
export const apiPrefix = "/api/v1"

// ── Bodies ───────────────────────────────────────────────────────────────────────────────────────
// Registry errors (InvalidParam, DatasetNotFound) are declared as themselves: each class is its own
// Schema (instance <-> error envelope) and carries its HTTP status.

const invalidParamText =
  "INVALID_PARAM: a query parameter is unknown, repeated, missing or malformed; `error.param` names it"

/** 500: an unexpected failure (a bug), still in the error envelope; not a registry code. */
export const InternalErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literal("INTERNAL_ERROR"),
    message: Schema.String,
    fix: Schema.optional(Schema.String),
    param: Schema.optional(Schema.String).annotations({ description: "the request parameter at fault" }),
    details: Schema.optional(Schema.Unknown)
  })
}).annotations(
  HttpApiSchema.annotations({
    identifier: "InternalError",
    status: 500,
    description: "INTERNAL_ERROR: an unexpected failure (a bug)"
  })
)

/** The success body of each route, as the contract declares it; the handlers encode through these. */
export const successSchemas = {
  datasets: DatasetList.annotations({ identifier: "DatasetList" }),
  dataset: Dataset.annotations({ identifier: "Dataset" }),
  search: SearchResult.annotations({ identifier: "SearchResult" }),
  lineage: LineageList.annotations({ identifier: "LineageList" }),
  changes: ChangeList.annotations({ identifier: "ChangeList" }),
  glossary: Glossary.annotations({ identifier: "Glossary" }),
  complianceState: RopaDraft.annotations({ identifier: "RopaDraft" }),
  provenance: Provenance.annotations({ identifier: "Provenance" }),
  dora: DoraState.annotations({ identifier: "DoraState" }),
  /** The OpenAPI 3.1 document (loosely typed: it describes itself). */
  openapi: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    identifier: "OpenApiDocument",
    description: "an OpenAPI 3.1 document"
  })
} as const

// ── Parameters ───────────────────────────────────────────────────────────────────────────────────
/**
 * Query parameters reach the Reader as the raw strings, so that its own validation (the same as
 * the CLI's and MCP's) answers; the JSON Schema documents what it accepts.
 */
const limitParam = (bounds: { readonly default: number; readonly max: number }, what: string) =>
  Schema.String.annotations({
    description: `how many ${what} (integer 1 to ${bounds.max}, default ${bounds.default})`,
    jsonSchema: {
      type: "integer",
      minimum: 1,
      maximum: bounds.max,
      default: bounds.default,
      description: `how many ${what}`
    }
  })

const datasetId = Schema.String.annotations({
  description:
    "dataset id `<source>/<schema>/<table>`, percent-encoded as one segment (`pg%2Fpublic%2Fusers`) or raw (`pg/public/users`)"
})

/**
 * Every route takes exactly the query parameters its `setUrlParams` declares, each at most once: an
 * unknown or repeated one is 400 INVALID_PARAM naming it, as an MCP tool refuses an unknown argument.
 * Applied to every route (per group: an API-level middleware runs before routing, so it would not
 * know the route), before the route's parameters are decoded; implemented in Handlers.ts.
 */
export class QueryParamsGuard extends HttpApiMiddleware.Tag<QueryParamsGuard>()("catalog/QueryParamsGuard", {
  failure: InvalidParam
}) {}

// ── Routes ───────────────────────────────────────────────────────────────────────────────────────
const catalog = HttpApiGroup.make("catalog")
  .add(
    HttpApiEndpoint.get("datasets", "/datasets")
      .addSuccess(successSchemas.datasets)
      .annotate(OpenApi.Summary, "every dataset in the map")
  )
  .add(
    HttpApiEndpoint.get("dataset", "/datasets/:id")
      .setPath(Schema.Struct({ id: datasetId }))
      .addSuccess(successSchemas.dataset)
      .addError(DatasetNotFound)
      .annotate(OpenApi.Summary, "one dataset: columns, types, personal-data flags, lineage")
  )
  .add(
    HttpApiEndpoint.get("search", "/search")
      .setUrlParams(Schema.Struct({
        q: Schema.String.annotations({ description: "the words to look for (required, not empty)" }),
        limit: Schema.optional(limitParam(searchLimits, "hits"))
      }))
      .addSuccess(successSchemas.search)
      .addError(InvalidParam)
      .annotate(OpenApi.Summary, "ranked hits across datasets, columns and glossary terms")
  )
  .add(
    HttpApiEndpoint.get("lineage", "/lineage")
      .setUrlParams(Schema.Struct({ dataset: Schema.optional(datasetId) }))
      .addSuccess(successSchemas.lineage)
      .addError(InvalidParam)
      .addError(DatasetNotFound)
      .annotate(OpenApi.Summary, "lineage edges: all, or one dataset's upstream and downstream")
  )
  .add(
    HttpApiEndpoint.get("changes", "/changes")
      .setUrlParams(Schema.Struct({
        since: Schema.optional(Schema.String.annotations({
          description: "a change sequence number (`0` = the whole log) or an ISO-8601 timestamp; default: the last scan"
        })),
        limit: Schema.optional(limitParam(changesLimits, "entries"))
      }))
      .addSuccess(successSchemas.changes)
      .addError(InvalidParam)
      .annotate(OpenApi.Summary, "the change-log, newest first")
  )
  .add(
    HttpApiEndpoint.get("glossary", "/glossary")
      .addSuccess(successSchemas.glossary)
      .annotate(OpenApi.Summary, "business terms, definitions, related datasets")
  )
  .middleware(QueryParamsGuard)
  .annotate(OpenApi.Description, "The map of datasets and columns, search, lineage, the change-log and the glossary.")

const compliance = HttpApiGroup.make("compliance")
  .add(
    HttpApiEndpoint.get("complianceState", "/compliance/state")
      .addSuccess(successSchemas.complianceState)
      .annotate(OpenApi.Summary, "the RoPA draft (Art. 30): activities and legal fields with status")
  )
  .add(
    HttpApiEndpoint.get("provenance", "/provenance")
      .addSuccess(successSchemas.provenance)
      .annotate(OpenApi.Summary, "trust signal: reachability, staleness, classifier methods, change-log head")
  )
  .add(
    HttpApiEndpoint.get("dora", "/dora")
      .addSuccess(successSchemas.dora)
      .annotate(OpenApi.Summary, "the DORA register draft, or {inScope: false, register: null}")
  )
  .middleware(QueryParamsGuard)
  .annotate(OpenApi.Description, "The compliance drafts and the trust signal; all read-only DRAFTs.")

const meta = HttpApiGroup.make("meta")
  .add(
    HttpApiEndpoint.get("openapi", "/openapi.json")
      .addSuccess(successSchemas.openapi)
      .annotate(OpenApi.Summary, "OpenAPI description of this API")
  )
  .middleware(QueryParamsGuard)
  .annotate(OpenApi.Description, "This API's own description.")

/**
 * The one patch of the generated document. `HttpApi.make` declares its own decode error (400,
 * `HttpApiDecodeError`) on every route and cannot drop it; here it never reaches the wire (the
 * server answers INVALID_PARAM naming the parameter instead), and every route can answer 400
 * INVALID_PARAM (an unknown query parameter, at the least), so the document says exactly that.
 */
const documentParamErrors = (spec: Record<string, unknown>): Record<string, unknown> => {
  interface Op {
    responses: Record<string, unknown>
  }
  const out = structuredClone(spec) as {
    paths: Record<string, Record<string, Op>>
    components: { schemas: Record<string, unknown> }
  }
  for (const item of Object.values(out.paths)) {
    for (const op of Object.values(item)) {
      op.responses["400"] = {
        description: invalidParamText,
        content: { "application/json": { schema: { $ref: "#/components/schemas/InvalidParamError" } } }
      }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) {
    delete out.components.schemas[name]
  }
  return out
}

/** The read API: ten GET routes under /api/v1. */
export class Api extends HttpApi.make("catalog")
  .add(catalog)
  .add(compliance)
  .add(meta)
  .addError(InvalidParam)
  .addError(SchemaMigrationRequired)
  .addError(InternalErrorBody)
  .prefix(apiPrefix)
  .annotate(OpenApi.Title, "local-data-catalog read API")
  .annotate(OpenApi.Version, version)
  .annotate(OpenApi.Transform, documentParamErrors)
  .annotate(
    OpenApi.Description,
    "Read-only HTTP API served by `catalog open` on 127.0.0.1 (port 4319 by default). GET only: any other method, and any " +
      "unknown path, answers 404 ENDPOINT_NOT_FOUND with the list of endpoints (also at GET /api/v1). Every error body is " +
      "`{ \"error\": { \"code\", \"message\", \"fix\"?, \"param\"? } }`. A route takes only the query parameters listed " +
      "for it, each once: an unknown or repeated one is 400 INVALID_PARAM naming it. Requests whose Host header is not a " +
      "loopback name are refused (403)."
  )
{}

/**
 * The query parameters each route declares, by route path (`/api/v1/datasets/:id`): the keys of
 * its `setUrlParams` Struct, none for a route without one. Derived from `Api`, so it cannot drift.
 */
export const declaredQueryParams: ReadonlyMap<string, ReadonlyArray<string>> = (() => {
  const out = new Map<string, ReadonlyArray<string>>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      out.set(
        endpoint.path,
        Option.match(endpoint.urlParamsSchema, {
          onNone: () => [],
          onSome: (schema) => SchemaAST.getPropertySignatures(schema.ast).map((ps) => String(ps.name))
        })
      )
    }
  })
  return out
})()

/**
 * The first unknown or repeated query parameter of a request to `route`, as INVALID_PARAM naming it;
 * null when every parameter is declared (`accepted`) and given once.
 */
export const queryParamProblem = (
  route: string,
  accepted: ReadonlyArray<string>,
  query: Readonly<Record<string, string | ReadonlyArray<string>>>
): InvalidParam | null => {
  const takes = accepted.length === 0 ? "takes no query parameters" : `takes ${accepted.join(", ")}`
  for (const [name, value] of Object.entries(query)) {
    if (!accepted.includes(name)) {
      return new InvalidParam({
        message: `Unknown query parameter ${JSON.stringify(name)}: GET ${route} ${takes}.`,
        fix: `Remove it${
          accepted.length === 0 ? "" : ` or use one of ${accepted.join(", ")}`
        }; GET ${apiPrefix}/openapi.json lists each route's parameters.`,
        param: name
      })
    }
    if (typeof value !== "string") {
      return new InvalidParam({
        message: `The query parameter ${name} is given ${value.length} times; GET ${route} takes it once.`,
        fix: `Give ${name} once; GET ${apiPrefix}/openapi.json lists each route's parameters.`,
        param: name
      })
    }
  }
  return null
}
