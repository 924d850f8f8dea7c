/**
 * The portal's HTTP server: the JSON interface (`PortalApi`, under /api/portal/v1) and the claim
 * pages (/claim/:token, HTML) on one listener, routed by the HttpApi router:
 *   - the API's routes (Handlers below; the upload route raw, see Ingest.ts);
 *   - the claim pages (Claims.ts) as plain router routes;
 *   - every other method and path: 404 (ENDPOINT_NOT_FOUND under /api/portal/v1, else a notice page).
 * In front (`front`): the security headers and the content security policy on every answer, and one
 * log line per request (method, path with the token replaced by `clm_…`, status, milliseconds) — never
 * a token, a code, a cookie or a snapshot's content. Defects answer 500 INTERNAL_ERROR.
 */
import {
  HttpApiBuilder,
  HttpApiError,
  type HttpApp,
  HttpIncomingMessage,
  HttpMiddleware,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse,
  OpenApi
} from "@effect/platform"
import { Cause, Effect, Layer, Option } from "effect"
import { claimTokenPrefix, portalApiPrefix, type PortalHealth } from "../../domain/Portal.js"
import { uploadCapBytes } from "../../domain/Snapshot.js"
import { EndpointNotFound, InvalidParam } from "../../errors/index.js"
import type { PortalStores } from "../../layers/portal/PortalSql.js"
import { type Mail } from "../../services/Mail.js"
import { LicenceStore } from "../../services/portal/LicenceStore.js"
import { PortalStore } from "../../services/PortalStore.js"
import { version } from "../../version.js"
import { type InternalErrorBody, PortalApi } from "./Api.js"
import { claimPageCsp, renderNoticePage } from "./ClaimPage.js"
import {
  claimNotFound,
  openUnbound,
  saveController,
  saveDoraFill,
  sealedDownload,
  sealRecord,
  sendCode,
  showClaim,
  verifyCode
} from "./Claims.js"
import { createSyncToken, revokeSyncToken } from "./ConnectMachine.js"
import { nowIso, PortalContext, redactPath, sha256Hex } from "./Context.js"
import { doraSyncHandler } from "./DoraFills.js"
import { ingestHandler } from "./Ingest.js"
import { postSeal, pullSeal } from "./SealRoutes.js"
import { syncSnapshotHandler, syncStatusHandler } from "./Sync.js"

const securityHeaders = {
  "content-security-policy": claimPageCsp,
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
} as const

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** The claim a token names, as anyone holding the link may see it; CLAIM_NOT_FOUND as on every surface. */
const claimInfo = (token: string) =>
  Effect.gen(function*() {
    const store = yield* PortalStore
    const claim = token.startsWith(claimTokenPrefix) ? yield* store.claimByTokenHash(sha256Hex(token)) : null
    if (claim === null || claim.state === "removed" || (claim.state === "superseded" && claim.successorId === null)) {
      return yield* claimNotFound()
    }
    return { claimId: claim.id, state: claim.state, successorId: claim.successorId }
  })

/** Storage failures are defects here (500 INTERNAL_ERROR); the registry's own errors pass through. */
const sqlDies = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    self,
    (e): e is Extract<E, { readonly _tag: "SqlError" }> => (e as { _tag?: unknown })._tag === "SqlError",
    (e) => Effect.die(e)
  )

const HandlersLive = HttpApiBuilder.group(PortalApi, "portal", (handlers) =>
  handlers
    .handle("health", () =>
      Effect.gen(function*() {
        const { settings } = yield* PortalContext
        const store = yield* PortalStore
        const body: PortalHealth = {
          ok: true,
          service: "local-data-catalog-portal",
          version,
          storage: store.backend,
          ingestTokenRequired: settings.ingestToken !== null,
          uploadCapBytes
        }
        return body
      }))
    .handle("signingKey", () => Effect.map(PortalContext, (c) => c.settings.signingKey.publicKeyPem))
    .handleRaw("ingest", ({ request }) => sqlDies(ingestHandler(request)))
    .handle("claim", ({ path }) => sqlDies(claimInfo(path.token)))
    .handle("revokedLicences", () =>
      sqlDies(Effect.gen(function*() {
        const revoked = yield* (yield* LicenceStore).revokedIds
        return { revoked, at: yield* nowIso }
      })))
    .handle("sealPull", ({ request }) => sqlDies(pullSeal(request)))
    .handle("seal", ({ payload, request }) => sqlDies(postSeal(request, payload)))
    .handleRaw("syncStatus", ({ request }) => sqlDies(syncStatusHandler(request)))
    .handleRaw("syncSnapshots", ({ request }) => sqlDies(syncSnapshotHandler(request)))
    .handle("openapi", () => Effect.succeed(OpenApi.fromApi(PortalApi) as unknown as Record<string, unknown>)))

const DoraSyncLive = HttpApiBuilder.group(
  PortalApi,
  "doraSync",
  (handlers) => handlers.handleRaw("syncDora", ({ request }) => sqlDies(doraSyncHandler(request)))
)

const ApiLive = HttpApiBuilder.api(PortalApi).pipe(Layer.provide([HandlersLive, DoraSyncLive]))

const html = (body: string, status: number) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8" })

const internalPage = html(
  renderNoticePage({
    title: "Something went wrong",
    message: "The portal failed to answer this request (a bug, or its database is unavailable).",
    code: "INTERNAL_ERROR",
    fix: "Try again in a minute; if it persists, tell the portal's operator.",
    status: 500
  }),
  500
)

const notFound = (method: string, pathname: string) =>
  pathname === portalApiPrefix || pathname.startsWith(`${portalApiPrefix}/`)
    ? HttpServerResponse.unsafeJson(
      new EndpointNotFound({
        message: `No endpoint at ${method} ${pathname}.`,
        fix: `The portal's API is described at GET ${portalApiPrefix}/openapi.json.`,
        details: { method, path: pathname }
      }).body,
      { status: 404 }
    )
    : html(
      renderNoticePage({
        title: "Not found",
        message: `There is nothing at ${redactPath(pathname)}. Claim links look like /claim/clm_…`,
        code: null,
        fix: "Open the link exactly as it was mailed to you.",
        status: 404
      }),
      404
    )

/** The claim pages as router routes; the services they use are the layer's. */
const RoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<PortalStores | Mail | PortalContext>()
    const route = <E, R extends PortalStores | Mail | PortalContext | HttpServerRequest.HttpServerRequest>(
      handler: (token: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.flatMap(HttpRouter.RouteContext, (rc) => handler(rc.params["token"] ?? "")).pipe(
        Effect.provide(context),
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.as(Effect.logError("portal: request failed", cause), internalPage)
        )
      )
    yield* router.get("/claim/:token", route(showClaim))
    yield* router.post("/claim/:token/code", route(sendCode))
    yield* router.post("/claim/:token/verify", route(verifyCode))
    yield* router.post("/claim/:token/open", route(openUnbound))
    yield* router.post("/claim/:token/controller", route(saveController))
    yield* router.post("/claim/:token/dora", route(saveDoraFill))
    yield* router.post("/claim/:token/sync-tokens", route(createSyncToken))
    yield* router.post("/claim/:token/sync-tokens/revoke", route(revokeSyncToken))
    yield* router.post("/claim/:token/seal", route(sealRecord))
    yield* router.get("/claim/:token/sealed/:name", route(sealedDownload))
    yield* router.all(
      "*",
      Effect.map(HttpServerRequest.HttpServerRequest, (r) => notFound(r.method, pathOf(r.url)))
    )
  })
)

const internalError = (cause: Cause.Cause<unknown>): typeof InternalErrorBody.Type => ({
  error: {
    code: "INTERNAL_ERROR",
    message: `Unexpected failure: ${Cause.pretty(cause).split("\n")[0]}`,
    fix: "This is a bug, or the portal's database is unavailable; tell the portal's operator."
  }
})

/** HttpApi's own decode errors as INVALID_PARAM; a defect as 500 INTERNAL_ERROR (logged, never a value). */
const ErrorsLive = HttpApiBuilder.middleware(
  PortalApi,
  (app) =>
    Effect.catchAllCause(app, (cause): Effect.Effect<never, InvalidParam | typeof InternalErrorBody.Type> => {
      const failure = Cause.failureOption<unknown>(cause)
      if (Option.isNone(failure)) {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
        return Effect.zipRight(Effect.logError("portal: request failed", cause), Effect.fail(internalError(cause)))
      }
      if (!(failure.value instanceof HttpApiError.HttpApiDecodeError)) return Effect.failCause(cause)
      return Effect.fail(
        new InvalidParam({
          message: failure.value.message,
          fix: `See GET ${portalApiPrefix}/openapi.json for each route's parameters.`
        })
      )
    })
)

/**
 * Security headers on every answer, and the request log line. The log is written when the answer is
 * ready (its status known), from the method, the redacted path and the time taken.
 */
/**
 * The largest body the router itself decodes (claim-page forms, the seal request): 64 KiB. Uploads are
 * served raw and read under their own 5,000,000-byte cap (readCappedBody), which this does not touch;
 * without it the platform would read a decoded body of any size before a handler could refuse it.
 */
export const decodedBodyCapBytes = 64 * 1024

export const front = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | PortalContext> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { log } = yield* PortalContext
    const started = performance.now()
    const response = yield* app.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(decodedBodyCapBytes)),
      Effect.map(HttpServerResponse.setHeaders(securityHeaders)),
      Effect.onExit((exit) =>
        Effect.sync(() => {
          const status = exit._tag === "Success" ? exit.value.status : Cause.isInterruptedOnly(exit.cause) ? 499 : 500
          log(
            `portal: ${request.method} ${redactPath(request.url)} ${status} ${
              Math.round(performance.now() - started)
            }ms`
          )
        })
      )
    )
    return response
  })

/** Serves the portal on the `HttpServer` in context. */
export const PortalServerLive = Layer.unwrapEffect(
  Effect.map(
    HttpApiBuilder.httpApp.pipe(HttpRouter.withRouterConfig({ caseSensitive: true, maxParamLength: 512 })),
    (app) => HttpServer.serve(front(app)).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
  )
).pipe(
  Layer.provide([ErrorsLive, RoutesLive]),
  Layer.provide(ApiLive),
  Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer])
)
