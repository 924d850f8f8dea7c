/**
 * The read API's handlers: one `HttpApiBuilder.group` per group of `Api`, each route one Reader
 * call. The body is the Reader's value serialised as is (`JSON.stringify`, as the CLI's `--json`
 * and the MCP tools do), so the three surfaces answer with the same JSON; the Schema given to
 * `json` only ties the value's type to the one the contract declares.
 */
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer, type Schema } from "effect"
import { ChangeList, Dataset, DatasetList, LineageList, SearchResult } from "../../domain/Catalog.js"
import { DoraState, Glossary, Provenance, RopaDraft } from "../../domain/Compliance.js"
import { Reader } from "../../services/Reader.js"
import { Api, declaredQueryParams, queryParamProblem, QueryParamsGuard } from "./Api.js"

/** Serialises a Reader value whose type is the declared success Schema's type, unchanged. */
const json =
  <A, I>(_schema: Schema.Schema<A, I>) =>
  <E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
    Effect.map(self, (a) => HttpServerResponse.unsafeJson(a))

const CatalogHandlers = HttpApiBuilder.group(Api, "catalog", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    return handlers
      .handle("datasets", () => reader.datasets.pipe(json(DatasetList)))
      .handle("dataset", ({ path }) => reader.dataset(path.id, "id").pipe(json(Dataset)))
      .handle("search", ({ urlParams }) => reader.search(urlParams.q, urlParams.limit).pipe(json(SearchResult)))
      .handle("lineage", ({ urlParams }) => reader.lineage(urlParams.dataset, "dataset").pipe(json(LineageList)))
      .handle("changes", ({ urlParams }) => reader.changes(urlParams.since, urlParams.limit).pipe(json(ChangeList)))
      .handle("glossary", () => reader.glossary.pipe(json(Glossary)))
  }))

const ComplianceHandlers = HttpApiBuilder.group(Api, "compliance", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    return handlers
      .handle("complianceState", () => reader.compliance.pipe(json(RopaDraft)))
      .handle("provenance", () => reader.provenance.pipe(json(Provenance)))
      .handle("dora", () => reader.dora.pipe(json(DoraState)))
  }))

const MetaHandlers = HttpApiBuilder.group(Api, "meta", (handlers) => {
  // Built once: the document is a pure function of the contract.
  const document = HttpServerResponse.unsafeJson(OpenApi.fromApi(Api))
  return handlers.handle("openapi", () => Effect.succeed(document))
})

/** The matched route's query parameters against the ones it declares: unknown or repeated is INVALID_PARAM. */
const QueryParamsGuardLive = Layer.succeed(
  QueryParamsGuard,
  Effect.gen(function*() {
    const { route } = yield* HttpRouter.RouteContext
    const query = yield* HttpServerRequest.ParsedSearchParams
    const problem = queryParamProblem(route.path, declaredQueryParams.get(route.path) ?? [], query)
    if (problem !== null) return yield* problem
  })
)

/** Every route of `Api`, over one Reader. */
export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([CatalogHandlers, ComplianceHandlers, MetaHandlers]),
  Layer.provide(QueryParamsGuardLive)
)
