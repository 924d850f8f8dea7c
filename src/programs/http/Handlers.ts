/**
 * The read API's handlers: one `HttpApiBuilder.group` per group of `Api`, each route one Reader
 * call. Each body is the Reader's value encoded through the success Schema the route declares
 * (`successSchemas`, the same values `Api` is built from), so the bytes cannot drift from the
 * OpenAPI document; the value's own key order is kept, so they are the CLI's `--json` bytes too.
 */
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { plainCheck } from "../../domain/PlainSchema.js"
import { Reader } from "../../services/Reader.js"
import { Api, declaredQueryParams, queryParamProblem, QueryParamsGuard, successSchemas } from "./Api.js"

/**
 * The response of a value through its route's declared success Schema. A value that breaks the
 * contract (a missing, extra or mistyped field) is a defect, answered 500 INTERNAL_ERROR: never sent.
 */
export const respond = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encode(schema, { onExcessProperty: "error", propertyOrder: "original" })
  // The Reader hands out the same value while the catalog has not changed (its dataset cache), and a
  // value is immutable: each one is encoded once.
  const encoded = new WeakMap<object, I>()
  // A plain resource that already is its encoded form is the body (domain/PlainSchema.ts); the encoder runs otherwise.
  const isEncoded = plainCheck(schema)
  const bodyOf = (a: A): Effect.Effect<I> => {
    const key = typeof a === "object" && a !== null ? a : null
    const hit = key === null ? undefined : encoded.get(key)
    if (hit !== undefined) return Effect.succeed(hit)
    if (isEncoded !== null && isEncoded(a)) {
      if (key !== null) encoded.set(key, a as unknown as I)
      return Effect.succeed(a as unknown as I)
    }
    return Effect.tap(Effect.orDie(encode(a)), (body) => {
      if (key !== null) encoded.set(key, body)
    })
  }
  return <E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
    Effect.flatMap(self, (a) => Effect.map(bodyOf(a), (body) => HttpServerResponse.unsafeJson(body)))
}

/** One responder per route, made once: its encoder (and the cache of values it encoded) serves every request. */
const responders = {
  datasets: respond(successSchemas.datasets),
  dataset: respond(successSchemas.dataset),
  search: respond(successSchemas.search),
  lineage: respond(successSchemas.lineage),
  changes: respond(successSchemas.changes),
  glossary: respond(successSchemas.glossary),
  complianceState: respond(successSchemas.complianceState),
  provenance: respond(successSchemas.provenance),
  dora: respond(successSchemas.dora),
  openapi: respond(successSchemas.openapi)
}

const CatalogHandlers = HttpApiBuilder.group(Api, "catalog", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    return handlers
      .handle("datasets", () => reader.datasets.pipe(responders.datasets))
      .handle("dataset", ({ path }) => reader.dataset(path.id, "id").pipe(responders.dataset))
      .handle("search", ({ urlParams }) => reader.search(urlParams.q, urlParams.limit).pipe(responders.search))
      .handle("lineage", ({ urlParams }) => reader.lineage(urlParams.dataset, "dataset").pipe(responders.lineage))
      .handle("changes", ({ urlParams }) => reader.changes(urlParams.since, urlParams.limit).pipe(responders.changes))
      .handle("glossary", () => reader.glossary.pipe(responders.glossary))
  }))

const ComplianceHandlers = HttpApiBuilder.group(Api, "compliance", (handlers) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    return handlers
      .handle("complianceState", () => reader.compliance.pipe(responders.complianceState))
      .handle("provenance", () => reader.provenance.pipe(responders.provenance))
      .handle("dora", () => reader.dora.pipe(responders.dora))
  }))

const MetaHandlers = HttpApiBuilder.group(Api, "meta", (handlers) =>
  // Built once: the document is a pure function of the contract.
  Effect.map(
    Effect.succeed({ ...OpenApi.fromApi(Api) }).pipe(responders.openapi),
    (document) => handlers.handle("openapi", () => Effect.succeed(document))
  ))

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
