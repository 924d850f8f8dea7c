/**
 * `catalog open`: the read API (/api/v1) and the local portal page on 127.0.0.1 until Ctrl+C.
 * Loaded on demand by the CLI (`import("../http/main.js")`), so no other command loads the HTTP stack.
 *
 * Before the first scan it fails fast with MAP_NOT_FOUND (as every read command does) rather than
 * serve an empty catalog; once started it reads the live catalog, so a `catalog start` run beside
 * it shows up on the next request. SIGINT/SIGTERM close the listener and exit 0.
 */
import { HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Console, Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { InvalidParam, PortInUse } from "../../errors/index.js"
import { ReadLive } from "../../layers/Main.js"
import { AppEnv, stderrLine } from "../../services/AppEnv.js"
import { apiPrefix } from "./Api.js"
import { ServerLive } from "./Server.js"

/** SPEC.md §B: the read API's port unless `--port` or `CATALOG_HTTP_PORT` says otherwise. */
export const defaultPort = 4319
/** Loopback only (ARCHITECTURE.md §5.7). */
export const listenHost = "127.0.0.1"

export interface OpenOptions {
  /** `--port`, as typed. */
  readonly port: string | undefined
  /** `--json`: print one JSON line `{ url, api, port }` on stdout once listening. */
  readonly json: boolean
}

const portFix = "Pass --port <n> (1-65535, or 0 for any free port), or set CATALOG_HTTP_PORT."

/** The port from `--port`, else `CATALOG_HTTP_PORT`, else 4319; 0 asks the system for a free one. */
export const resolvePort = (flag: string | undefined, env: string | undefined): Effect.Effect<number, InvalidParam> => {
  const [raw, param] = flag !== undefined
    ? [flag, "--port"]
    : env !== undefined && env.trim() !== ""
    ? [env, "CATALOG_HTTP_PORT"]
    : [undefined, undefined]
  if (raw === undefined) return Effect.succeed(defaultPort)
  const text = raw.trim()
  if (/^\d{1,5}$/.test(text) && Number(text) <= 65535) return Effect.succeed(Number(text))
  return Effect.fail(
    new InvalidParam({ message: `${param} must be a port number from 0 to 65535; got "${raw}".`, fix: portFix, param })
  )
}

const listenFailed = (e: ServeError, port: number) => {
  const code = (e.cause as { code?: unknown } | null)?.code
  if (code === "EADDRINUSE") {
    return new PortInUse({
      message: `Port ${port} on ${listenHost} is already in use (is another \`catalog open\` running?).`,
      fix: `Pass --port <n> (e.g. --port ${
        port === defaultPort ? defaultPort + 10 : defaultPort
      }), or set CATALOG_HTTP_PORT; or stop the program that holds port ${port}.`,
      param: "--port"
    })
  }
  if (code === "EACCES") {
    return new InvalidParam({
      message: `Listening on port ${port} is not permitted (ports below 1024 need privileges).`,
      fix: portFix,
      param: "--port"
    })
  }
  return new PortInUse({
    message: `Cannot listen on ${listenHost}:${port}: ${e.cause instanceof Error ? e.cause.message : String(e.cause)}`,
    fix: portFix,
    param: "--port"
  })
}

/** Serves until interrupted (Ctrl+C / SIGTERM), then exits 0. */
export const open = (options: OpenOptions) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const port = yield* resolvePort(options.port, env.env["CATALOG_HTTP_PORT"])
    yield* Effect.scoped(Effect.gen(function*() {
      // The catalog first: no catalog is MAP_NOT_FOUND before anything listens.
      const reader = yield* Layer.build(ReadLive)
      const listener = NodeHttpServer.layer(createServer, { port, host: listenHost })
      const context = yield* Layer.build(
        ServerLive.pipe(Layer.provide(Layer.succeedContext(reader)), Layer.provideMerge(listener))
      ).pipe(
        Effect.catchTag("ServeError", (e) => Effect.fail(listenFailed(e, port)))
      )
      const address = Context.get(context, HttpServer.HttpServer).address
      const bound = address._tag === "TcpAddress" ? address.port : port
      const url = `http://${listenHost}:${bound}/`
      yield* stderrLine(
        `catalog open: the local portal and the read API are at ${url}\n` +
          `  read API: ${url.slice(0, -1)}${apiPrefix} (OpenAPI: ${apiPrefix}/openapi.json)\n` +
          `  loopback only; press Ctrl+C to stop.`
      )
      if (options.json) yield* Console.log(JSON.stringify({ url, api: `${url.slice(0, -1)}${apiPrefix}`, port: bound }))
      return yield* Effect.never
    })).pipe(
      // The CLI runtime interrupts on SIGINT/SIGTERM; by now the listener and the catalog are closed.
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          process.stderr.write("catalog open: stopped.\n")
          process.exit(0)
        })
      )
    )
  })
