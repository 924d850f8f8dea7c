/**
 * `catalog serve-claim`: the local invite snapshot (`<data dir>/invite-snapshot.json`, written by
 * `catalog invite --no-upload`) served on 127.0.0.1 as the claim page its recipient would see, so a
 * user can look before anything leaves the machine. Read-only, marked local, nothing is sent.
 * Loaded on demand by the CLI (`import("../portal/serveClaim.js")`), like `catalog open`.
 *
 *   GET /               the claim page, the snapshot re-read on every request (a new
 *                       `invite --no-upload` shows without a restart)
 *   GET /snapshot.json  exactly the snapshot's bytes (what `invite` would upload)
 *   anything else       404 (a notice page); a method other than GET/HEAD is 405
 *
 * The listener, the Host guard (DNS rebinding), the security headers and the port rules are those of
 * `catalog open` (layers/http/LoopbackServer.ts). No snapshot, or one that does not decode, is
 * INVITE_NOT_FOUND before anything listens. SIGINT/SIGTERM close the listener and exit 0.
 */
import { HttpMiddleware, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Console, Effect, Either, Schema } from "effect"
import * as path from "node:path"
import { defaultClaimPort } from "../../domain/Portal.js"
import { Snapshot, snapshotFileName, snapshotFormat, snapshotVersion } from "../../domain/Snapshot.js"
import { type CatalogErrorShape, InviteNotFound } from "../../errors/index.js"
import {
  hostRefusal,
  isLoopbackHost,
  listenLoopback,
  type LoopbackPort,
  resolvePort,
  securityHeaders
} from "../../layers/http/LoopbackServer.js"
import { AppEnv, dataDir, stderrLine } from "../../services/AppEnv.js"
import { Files } from "../../services/Files.js"
import { claimPageCsp, renderClaimPage, renderNoticePage } from "./ClaimPage.js"

export interface ServeClaimOptions {
  /** `--port`, as typed. */
  readonly port: string | undefined
  /** `--json`: print one JSON line `{ url, snapshot, port }` on stdout once listening. */
  readonly json: boolean
}

const claimPort: LoopbackPort = {
  command: "catalog serve-claim",
  envVar: "CATALOG_CLAIM_PORT",
  defaultPort: defaultClaimPort
}

const inviteFix =
  "Run `catalog invite --no-upload` first: it writes the snapshot on this machine and sends nothing; then run `catalog serve-claim` again."

/** The snapshot file's text and its decoded value. */
interface Loaded {
  readonly text: string
  readonly snapshot: Snapshot
}

const decodeSnapshot = Schema.decodeUnknownEither(Schema.parseJson(Snapshot))

/** Reads and decodes the snapshot file; a missing, unreachable or undecodable one is INVITE_NOT_FOUND. */
const loadSnapshot = (dir: string, file: string): Effect.Effect<Loaded, InviteNotFound, Files> =>
  Effect.gen(function*() {
    const files = yield* Files
    const folder = yield* files.probe(dir)
    if (folder.kind === "missing") {
      return yield* new InviteNotFound({
        message: `There is no invite snapshot: there is no catalog folder at ${dir}.`,
        fix: inviteFix
      })
    }
    const text = yield* files.readRegularFile(file).pipe(
      Effect.mapError((e) =>
        new InviteNotFound({
          message: `There is no invite snapshot: ${file} ${e.reason}.`,
          fix: inviteFix
        })
      )
    )
    const decoded = decodeSnapshot(text)
    if (Either.isLeft(decoded)) {
      return yield* new InviteNotFound({
        message:
          `The invite snapshot ${file} is unreadable: it is not a ${snapshotFormat} version ${snapshotVersion} file this build can read.`,
        fix: "Re-run `catalog invite --no-upload` to write it again, then reload the page."
      })
    }
    return { text, snapshot: decoded.right }
  })

const htmlResponse = (body: string, status: number) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { "content-security-policy": claimPageCsp }
  })

const noticeResponse = (e: CatalogErrorShape, title: string, status = e.spec.status) =>
  htmlResponse(renderNoticePage({ title, message: e.message, code: e.code, fix: e.fix ?? null, status }), status)

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

const notFound = (pathname: string) =>
  htmlResponse(
    renderNoticePage({
      title: "Nothing here",
      message: `This local preview serves only the claim page (/) and the snapshot (/snapshot.json), not ${pathname}.`,
      code: null,
      fix: "Open / for the claim page.",
      status: 404
    }),
    404
  )

const methodNotAllowed = (method: string) =>
  htmlResponse(
    renderNoticePage({
      title: "Read-only",
      message: `The local preview is read-only: it answers GET only, not ${method}.`,
      code: null,
      fix:
        "The controller block and every legal field are completed on the portal after `catalog invite`, or in catalog.yml and with `catalog annotate` on this machine.",
      status: 405
    }),
    405
  ).pipe(HttpServerResponse.setHeader("allow", "GET, HEAD"))

const internalError = (cause: Cause.Cause<unknown>) =>
  htmlResponse(
    renderNoticePage({
      title: "Something went wrong",
      message: `Unexpected failure: ${Cause.pretty(cause).split("\n")[0] ?? ""}`,
      code: "INTERNAL_ERROR",
      fix: "This is a bug; please report it with the request that caused it.",
      status: 500
    }),
    500
  )

/** The whole server: the Host guard, then the two routes; every answer carries the security headers. */
const claimApp = (dir: string, file: string) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const host = request.headers["host"]
    if (!isLoopbackHost(host)) {
      return Effect.succeed(noticeResponse(hostRefusal(claimPort.command, host), "Refused", 403))
    }
    if (request.method !== "GET" && request.method !== "HEAD") return Effect.succeed(methodNotAllowed(request.method))
    const pathname = pathOf(request.url)
    if (pathname === "/") {
      return loadSnapshot(dir, file).pipe(
        Effect.map(({ snapshot }) =>
          htmlResponse(
            renderClaimPage(snapshot, {
              mode: "local",
              claim: null,
              controller: null,
              controllerForm: null,
              notice: null
            }),
            200
          )
        ),
        Effect.catchTag("InviteNotFound", (e) => Effect.succeed(noticeResponse(e, "No invite snapshot")))
      )
    }
    if (pathname === "/snapshot.json") {
      return loadSnapshot(dir, file).pipe(
        Effect.map(({ text }) => HttpServerResponse.text(text, { contentType: "application/json" })),
        Effect.catchTag("InviteNotFound", (e) => Effect.succeed(HttpServerResponse.unsafeJson(e.body, { status: 404 })))
      )
    }
    return Effect.succeed(notFound(pathname))
  }).pipe(
    Effect.catchAllCause((cause) =>
      // A client that hung up interrupts its request; nothing is left to answer.
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(Effect.logError("catalog serve-claim: request failed", cause), internalError(cause))
    ),
    Effect.map(HttpServerResponse.setHeaders(securityHeaders))
  )

/** Serves until interrupted (Ctrl+C / SIGTERM), then exits 0. The same shape as `open`. */
export const serveClaim = (options: ServeClaimOptions) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const port = yield* resolvePort(claimPort, options.port, env.env[claimPort.envVar])
    const dir = dataDir(env)
    const file = path.join(dir, snapshotFileName)
    // The snapshot first: none (or an unreadable one) is INVITE_NOT_FOUND before anything listens.
    yield* loadSnapshot(dir, file)
    yield* Effect.scoped(Effect.gen(function*() {
      const served = yield* listenLoopback(
        claimPort,
        port,
        HttpServer.serve(claimApp(dir, file)).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
      )
      yield* stderrLine(
        `catalog serve-claim: the claim page of the local invite snapshot is at ${served.url}\n` +
          `  snapshot: ${file} (read again on every request; raw bytes at ${served.url}snapshot.json)\n` +
          `  local preview: read-only, nothing is sent; loopback only; press Ctrl+C to stop.`
      )
      if (options.json) yield* Console.log(JSON.stringify({ url: served.url, snapshot: file, port: served.port }))
      return yield* Effect.never
    })).pipe(
      // The CLI runtime interrupts on SIGINT/SIGTERM; by now the listener is closed.
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          process.stderr.write("catalog serve-claim: stopped.\n")
          process.exit(0)
        })
      )
    )
  })
