/**
 * The HTTP server of `catalog open`: the read API (`Api` + `ApiLive`) and the local portal page on
 * one loopback listener. In front of the HttpApi router sits one small function that
 *   1. refuses a request whose Host header is not a loopback name (DNS-rebinding guard, 403);
 *   2. answers any method but GET, and any unknown path, with 404 ENDPOINT_NOT_FOUND listing the endpoints;
 *   3. answers `GET /api/v1` with that list (it takes no query parameter, as every route takes only its own);
 *   4. lets a dataset id through raw (`/datasets/pg/public/users`) by re-encoding it as one segment;
 *   5. serves the portal page and its assets outside /api/v1;
 *   6. turns a defect into 500 INTERNAL_ERROR, in the error envelope.
 * No CORS header is ever sent.
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
import { EndpointNotFound, InvalidParam, toErrorBody } from "../../errors/index.js"
import { version } from "../../version.js"
import { Api, apiPrefix, queryParamProblem } from "./Api.js"
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

/** `localhost`, `127.0.0.1` or `[::1]`, with an optional port: the only Host values answered. */
export const isLoopbackHost = (host: string | undefined): boolean =>
  host !== undefined && /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i.test(host)

const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin"
} as const

const errorResponse = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

const endpointNotFound = (method: string, path: string) =>
  errorResponse(
    404,
    toErrorBody(
      new EndpointNotFound({
        message: method === "GET"
          ? `No endpoint at GET ${path}.`
          : `${method} is not served: the read API answers GET only (${method} ${path}).`,
        details: { method, path, endpoints }
      })
    )
  )

const hostRefused = (host: string | undefined) =>
  errorResponse(
    403,
    toErrorBody(
      new InvalidParam({
        message: host === undefined
          ? "The request has no Host header."
          : `Host "${host}" is not a loopback name; this server answers only localhost, 127.0.0.1 and [::1].`,
        fix:
          "Open the URL that `catalog open` printed (http://127.0.0.1:<port>/); requests through other host names are refused (DNS-rebinding guard).",
        param: "Host"
      })
    )
  )

const internalError = (cause: Cause.Cause<unknown>) =>
  Effect.as(
    Effect.logError("catalog open: request failed", cause),
    errorResponse(500, {
      error: {
        code: "INTERNAL_ERROR",
        message: `Unexpected failure: ${Cause.pretty(cause).split("\n")[0]}`,
        fix: "This is a bug; please report it with the request that caused it."
      }
    })
  )

const indexResponse = HttpServerResponse.unsafeJson(indexBody)

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
    400,
    toErrorBody(
      new InvalidParam({
        message: `The path ${pathname} is not valid percent-encoding.`,
        fix:
          "Encode a dataset id with encodeURIComponent (a \"%\" in an id is %25), e.g. /api/v1/datasets/pg%2Fpublic%2Fusers.",
        param: pathname.startsWith(datasetsPrefix) ? "id" : "path"
      })
    )
  )

/** The front of the server, around the HttpApi app. */
export const front = <R>(api: HttpApp.Default<unknown, R>): HttpApp.Default<never, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const host = request.headers["host"]
    if (!isLoopbackHost(host)) return Effect.succeed(hostRefused(host))
    const url = request.url
    const q = url.indexOf("?")
    const pathname = q === -1 ? url : url.slice(0, q)
    if (request.method !== "GET") return Effect.succeed(endpointNotFound(request.method, pathname))
    if (pathname === apiPrefix || pathname === `${apiPrefix}/`) {
      // Parsed as the router parses a routed request's query (a repeated name maps to all its values).
      const problem = q === -1
        ? null
        : queryParamProblem(apiPrefix, [], HttpServerRequest.searchParamsFromURL(new URL(url, "http://localhost")))
      return Effect.succeed(problem === null ? indexResponse : errorResponse(400, toErrorBody(problem)))
    }
    if (pathname.startsWith(`${apiPrefix}/`)) {
      if (!wellEncoded(pathname)) return Effect.succeed(badlyEncoded(pathname))
      const routed = routedUrl(url, pathname)
      const app = routed === url
        ? api
        : Effect.provideService(api, HttpServerRequest.HttpServerRequest, request.modify({ url: routed }))
      return Effect.catchAllCause(app, (cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.failureOption(cause)
        if (Option.isSome(failure) && (failure.value as { _tag?: unknown } | null)?._tag === "RouteNotFound") {
          return Effect.succeed(endpointNotFound("GET", pathname))
        }
        return internalError(cause)
      })
    }
    const asset = portalAsset(pathname)
    if (asset === null) return Effect.succeed(endpointNotFound("GET", pathname))
    return Effect.succeed(
      typeof asset.body === "string"
        ? HttpServerResponse.text(asset.body, { contentType: asset.contentType })
        : HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType })
    )
  }).pipe(
    // A client that hung up interrupts its request; nothing is left to answer.
    Effect.catchAllCause((
      cause
    ) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : internalError(cause))),
    Effect.map(HttpServerResponse.setHeaders(securityHeaders))
  )

/** HttpApi's own decode errors (a missing or malformed query parameter) in the registry's shape, naming the parameter. */
const DecodeErrorsLive = HttpApiBuilder.middleware(Api, (app) =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
    if (Option.isNone(failure) || !(failure.value instanceof HttpApiError.HttpApiDecodeError)) {
      return Effect.failCause(cause)
    }
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
  }))

/**
 * Serves `front(api)` on the `HttpServer` in context. The router is case-sensitive and takes long
 * dataset ids (find-my-way caps a parameter at 100 characters by default).
 */
export const ServerLive = Layer.unwrapEffect(
  Effect.map(
    HttpApiBuilder.httpApp.pipe(HttpRouter.withRouterConfig({ caseSensitive: true, maxParamLength: 4096 })),
    // No tracer is installed: skip the per-request span (URL parsing, header copies) it would cost.
    (app) => HttpServer.serve(front(app)).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
  )
).pipe(
  Layer.provide(DecodeErrorsLive),
  Layer.provide(ApiLive),
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer])
)
