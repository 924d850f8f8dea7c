/**
 * The HTTP server of `catalog open`: the read API (`Api` + `ApiLive`) and the local portal page on
 * one loopback listener, all routed by the HttpApi router:
 *   - the ten routes of `Api`;
 *   - `GET /api/v1`, the list of endpoints (not an API route: the contract lists exactly the ten);
 *   - a fallback for every other method and path: the portal page and its assets on GET, else 404
 *     ENDPOINT_NOT_FOUND listing the endpoints;
 *   - HttpApi's own decode errors become INVALID_PARAM and a defect 500 INTERNAL_ERROR, both encoded
 *     through the error schemas `Api` declares (`ErrorsLive`).
 * In front of the router (`front`) sits only what the router cannot do; no CORS header is ever sent.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiError,
  type HttpApp,
  HttpMiddleware,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Cause, Context, Effect, Layer, Option } from "effect"
import { type CatalogErrorShape, EndpointNotFound, InvalidParam } from "../../errors/index.js"
import { hostRefusal, isLoopbackHost, securityHeaders } from "../../layers/http/LoopbackServer.js"
import { version } from "../../version.js"
import { Api, apiPrefix, type InternalErrorBody, queryParamProblem } from "./Api.js"
import { ApiLive } from "./Handlers.js"
import { portalAsset } from "./portal/assets.js"

/** One served endpoint, as listed by `GET /api/v1` and in ENDPOINT_NOT_FOUND bodies. */
export interface EndpointInfo {
  readonly method: string
  readonly path: string
  readonly description: string
}

/** Every served endpoint: the index itself, then the ten routes of the contract. */
export const endpoints: ReadonlyArray<EndpointInfo> = (() => {
  const list: Array<EndpointInfo> = [{ method: "GET", path: apiPrefix, description: "this list of served endpoints" }]
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      list.push({
        method: endpoint.method,
        path: endpoint.path,
        description: Context.getOrElse(endpoint.annotations, OpenApi.Summary, () => endpoint.name)
      })
    }
  })
  return list
})()

/** The body of `GET /api/v1`. */
export const indexBody = { api: "v1", version, openapi: `${apiPrefix}/openapi.json`, endpoints } as const

/** A registry error answered outside the HttpApi router, in its own envelope. */
const errorResponse = (e: CatalogErrorShape, status = e.spec.status) =>
  HttpServerResponse.unsafeJson(e.body, { status })

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

const endpointNotFound = (method: string, path: string) =>
  errorResponse(
    new EndpointNotFound({
      message: method === "GET"
        ? `No endpoint at GET ${path}.`
        : `${method} is not served: the read API answers GET only (${method} ${path}).`,
      details: { method, path, endpoints }
    })
  )

const hostRefused = (host: string | undefined) => errorResponse(hostRefusal("catalog open", host), 403)

const datasetsPrefix = `${apiPrefix}/datasets/`

/**
 * A dataset id may arrive raw (`/datasets/pg/public/users`): its segments are joined with `%2F` so
 * that the router's `:id` takes the whole id, decoded once. An already encoded id passes unchanged.
 */
export const routedUrl = (url: string, pathname: string): string => {
  if (!pathname.startsWith(datasetsPrefix)) return url
  const rest = pathname.slice(datasetsPrefix.length).replace(/\/+$/, "")
  if (!rest.includes("/")) return url
  return datasetsPrefix + rest.split("/").join("%2F") + url.slice(pathname.length)
}

const wellEncoded = (pathname: string): boolean => {
  try {
    decodeURIComponent(pathname)
    return true
  } catch {
    return false
  }
}

const badlyEncoded = (pathname: string) =>
  errorResponse(
    new InvalidParam({
      message: `The path ${pathname} is not valid percent-encoding.`,
      fix:
        "Encode a dataset id with encodeURIComponent (a \"%\" in an id is %25), e.g. /api/v1/datasets/pg%2Fpublic%2Fusers.",
      param: pathname.startsWith(datasetsPrefix) ? "id" : "path"
    })
  )

/**
 * The front of the server, around the router: only what routing cannot do.
 *   - Host guard: the router does not look at Host; a non-loopback name is refused (DNS rebinding, 403).
 *   - Bad percent-encoding: the router finds no route for it at all (not even the fallback), so it is
 *     answered here: 400 INVALID_PARAM under /api/v1 (GET), else 404 ENDPOINT_NOT_FOUND.
 *   - Raw dataset ids: `:id` is one segment, and a wildcard route would change the contract's path.
 *   - The security headers, on every answer including the front's own (a serve middleware runs
 *     after the response is written, so it cannot add them).
 */
export const front = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const host = request.headers["host"]
    if (!isLoopbackHost(host)) return Effect.succeed(hostRefused(host))
    const pathname = pathOf(request.url)
    const get = request.method === "GET"
    if (!wellEncoded(pathname)) {
      return Effect.succeed(
        get && pathname.startsWith(`${apiPrefix}/`)
          ? badlyEncoded(pathname)
          : endpointNotFound(request.method, pathname)
      )
    }
    const routed = get ? routedUrl(request.url, pathname) : request.url
    return routed === request.url
      ? app
      : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ url: routed }))
  }).pipe(Effect.map(HttpServerResponse.setHeaders(securityHeaders)))

const indexResponse = HttpServerResponse.unsafeJson(indexBody)

/** `GET /api/v1`: the endpoint list; it takes no query parameter, as every route takes only its own. */
const index = Effect.flatMap(HttpServerRequest.ParsedSearchParams, (query) => {
  const problem = queryParamProblem(apiPrefix, [], query)
  return problem === null ? Effect.succeed(indexResponse) : Effect.fail(problem)
})

/** Every other method and path: the portal page and its assets on GET, else ENDPOINT_NOT_FOUND. */
const fallback = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const pathname = pathOf(request.url)
  const asset = request.method === "GET" ? portalAsset(pathname) : null
  if (asset === null) return endpointNotFound(request.method, pathname)
  return typeof asset.body === "string"
    ? HttpServerResponse.text(asset.body, { contentType: asset.contentType })
    : HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType })
})

const RoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.all([router.get(apiPrefix, index), router.all("*", fallback)])
)

/** A defect, in the error envelope (INTERNAL_ERROR is not a registry code: nothing raises it on purpose). */
const internalError = (cause: Cause.Cause<unknown>): typeof InternalErrorBody.Type => ({
  error: {
    code: "INTERNAL_ERROR",
    message: `Unexpected failure: ${Cause.pretty(cause).split("\n")[0]}`,
    fix: "This is a bug; please report it with the request that caused it."
  }
})

/**
 * HttpApi's own decode errors (a missing or malformed query parameter) as INVALID_PARAM naming the
 * parameter, and any defect as 500 INTERNAL_ERROR: failures of the declared error schemas, which
 * the platform then encodes.
 */
const ErrorsLive = HttpApiBuilder.middleware(
  Api,
  (app) =>
    Effect.catchAllCause(app, (cause): Effect.Effect<never, InvalidParam | typeof InternalErrorBody.Type> => {
      // The app's failures are typed `never`, but HttpApi's decode errors travel in them.
      const failure = Cause.failureOption<unknown>(cause)
      if (Option.isNone(failure)) {
        // A client that hung up interrupts its request; nothing is left to answer.
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
        return Effect.zipRight(
          Effect.logError("catalog open: request failed", cause),
          Effect.fail(internalError(cause))
        )
      }
      if (!(failure.value instanceof HttpApiError.HttpApiDecodeError)) return Effect.failCause(cause)
      const decode = failure.value
      const issue = decode.issues[0]
      const param = issue !== undefined && issue.path.length > 0 ? String(issue.path[0]) : undefined
      return Effect.fail(
        new InvalidParam({
          message: param === undefined
            ? decode.message
            : issue?._tag === "Missing"
            ? `The query parameter ${param} is required.`
            : `The query parameter ${param} is malformed: ${issue?.message ?? ""}`.trim(),
          fix:
            `See GET ${apiPrefix}/openapi.json for each route's parameters, e.g. ${apiPrefix}/search?q=customer+email&limit=10.`,
          ...(param !== undefined ? { param } : {})
        })
      )
    })
)

/**
 * Serves `front(router)` on the `HttpServer` in context. The router is case-sensitive and takes long dataset ids (find-my-way caps a parameter at 100
 * characters by default).
 */
export const ServerLive = Layer.unwrapEffect(
  Effect.map(
    HttpApiBuilder.httpApp.pipe(HttpRouter.withRouterConfig({ caseSensitive: true, maxParamLength: 4096 })),
    (app) =>
      HttpServer.serve(front(app)).pipe(
        // No tracer is installed: skip the per-request span (URL parsing, header copies) it would cost.
        HttpMiddleware.withTracerDisabledWhen(() => true)
      )
  )
).pipe(
  Layer.provide([ErrorsLive, RoutesLive]),
  Layer.provide(ApiLive),
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer])
)
