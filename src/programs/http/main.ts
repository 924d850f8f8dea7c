/**
 * `catalog open`: the read API (/api/v1) and the local portal page on 127.0.0.1 until Ctrl+C.
 * Loaded on demand by the CLI (`import("../http/main.js")`), so no other command loads the HTTP stack.
 *
 * Before the first scan it fails fast with MAP_NOT_FOUND (as every read command does) rather than
 * serve an empty catalog; once started it reads the live catalog, so a `catalog start` run beside
 * it shows up on the next request. SIGINT/SIGTERM close the listener and exit 0.
 */
import { Console, Effect, Layer } from "effect"
import type { InvalidParam } from "../../errors/index.js"
import {
  listenHost,
  listenLoopback,
  type LoopbackPort,
  resolvePort as resolveLoopbackPort
} from "../../layers/http/LoopbackServer.js"
import { ReadLive } from "../../layers/Main.js"
import { AppEnv, stderrLine } from "../../services/AppEnv.js"
import { apiPrefix } from "./Api.js"
import { ServerLive } from "./Server.js"

/** SPEC.md §B: the read API's port unless `--port` or `CATALOG_HTTP_PORT` says otherwise. */
export const defaultPort = 4319
export { listenHost }

export interface OpenOptions {
  /** `--port`, as typed. */
  readonly port: string | undefined
  /** `--json`: print one JSON line `{ url, api, port }` on stdout once listening. */
  readonly json: boolean
}

const openPort: LoopbackPort = { command: "catalog open", envVar: "CATALOG_HTTP_PORT", defaultPort }

/** The port from `--port`, else `CATALOG_HTTP_PORT`, else 4319; 0 asks the system for a free one. */
export const resolvePort = (flag: string | undefined, env: string | undefined): Effect.Effect<number, InvalidParam> =>
  resolveLoopbackPort(openPort, flag, env)

/** Serves until interrupted (Ctrl+C / SIGTERM), then exits 0. */
export const open = (options: OpenOptions) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const port = yield* resolvePort(options.port, env.env["CATALOG_HTTP_PORT"])
    yield* Effect.scoped(Effect.gen(function*() {
      // The catalog first: no catalog is MAP_NOT_FOUND before anything listens.
      const reader = yield* Layer.build(ReadLive)
      const { port: bound, url } = yield* listenLoopback(
        openPort,
        port,
        ServerLive.pipe(Layer.provide(Layer.succeedContext(reader)))
      )
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
