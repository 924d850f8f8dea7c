/**
 * What every loopback-only server of the tool shares (`catalog open`, `catalog serve-claim`;
 * ARCHITECTURE.md §5.7): it binds 127.0.0.1 only, answers only requests whose Host is a loopback name
 * (the DNS-rebinding guard), sends the same security headers and no CORS header, and reads its port
 * from `--port`, else an environment variable, else a default, mapping a port it cannot take to
 * PORT_IN_USE (or INVALID_PARAM for a privileged one). Each program says only its own names.
 */
import { HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Context, Effect, Layer } from "effect"
import { createServer } from "node:http"
import { InvalidParam, PortInUse } from "../../errors/index.js"

/** Loopback only (ARCHITECTURE.md §5.7). */
export const listenHost = "127.0.0.1"

/** `localhost`, `127.0.0.1` or `[::1]`, with an optional port: the only Host values answered. */
export const isLoopbackHost = (host: string | undefined): boolean =>
  host !== undefined && /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i.test(host)

/** Sent on every answer of a loopback server. */
export const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin"
} as const

/** Which server a port belongs to: its command, the variable that sets its port, and its default. */
export interface LoopbackPort {
  /** As the user types it, e.g. `catalog open`. */
  readonly command: string
  /** e.g. `CATALOG_HTTP_PORT`. */
  readonly envVar: string
  readonly defaultPort: number
}

const portFix = (p: LoopbackPort) => `Pass --port <n> (1-65535, or 0 for any free port), or set ${p.envVar}.`

/** The port from `--port`, else the server's variable, else its default; 0 asks the system for a free one. */
export const resolvePort = (
  p: LoopbackPort,
  flag: string | undefined,
  env: string | undefined
): Effect.Effect<number, InvalidParam> => {
  const [raw, param] = flag !== undefined
    ? [flag, "--port"]
    : env !== undefined && env.trim() !== ""
    ? [env, p.envVar]
    : [undefined, undefined]
  if (raw === undefined) return Effect.succeed(p.defaultPort)
  const text = raw.trim()
  if (/^\d{1,5}$/.test(text) && Number(text) <= 65535) return Effect.succeed(Number(text))
  return Effect.fail(
    new InvalidParam({
      message: `${param} must be a port number from 0 to 65535; got "${raw}".`,
      fix: portFix(p),
      param
    })
  )
}

/** Why the listener could not start, as a registry error. */
export const listenFailed = (p: LoopbackPort, e: ServeError, port: number): PortInUse | InvalidParam => {
  const code = (e.cause as { code?: unknown } | null)?.code
  if (code === "EADDRINUSE") {
    return new PortInUse({
      message: `Port ${port} on ${listenHost} is already in use (is another \`${p.command}\` running?).`,
      fix: `Pass --port <n> (e.g. --port ${
        port === p.defaultPort ? p.defaultPort + 10 : p.defaultPort
      }), or set ${p.envVar}; or stop the program that holds port ${port}.`,
      param: "--port"
    })
  }
  if (code === "EACCES") {
    return new InvalidParam({
      message: `Listening on port ${port} is not permitted (ports below 1024 need privileges).`,
      fix: portFix(p),
      param: "--port"
    })
  }
  return new PortInUse({
    message: `Cannot listen on ${listenHost}:${port}: ${e.cause instanceof Error ? e.cause.message : String(e.cause)}`,
    fix: portFix(p),
    param: "--port"
  })
}

/** The refusal of a request whose Host is not a loopback name (answered 403 by each server in its own form). */
export const hostRefusal = (command: string, host: string | undefined): InvalidParam =>
  new InvalidParam({
    message: host === undefined
      ? "The request has no Host header."
      : `Host "${host}" is not a loopback name; this server answers only localhost, 127.0.0.1 and [::1].`,
    fix:
      `Open the URL that \`${command}\` printed (http://127.0.0.1:<port>/); requests through other host names are refused (DNS-rebinding guard).`,
    param: "Host"
  })

const isServeError = (e: unknown): e is ServeError =>
  typeof e === "object" && e !== null && "_tag" in e && e._tag === "ServeError"

/**
 * Builds `serve` (a layer that serves on the `HttpServer` in context) on a listener at
 * 127.0.0.1:`port`, in the current scope; a port it cannot take fails with `listenFailed`.
 * Returns the port actually bound (the system's choice for 0) and the URL to print.
 */
export const listenLoopback = <E, R>(p: LoopbackPort, port: number, serve: Layer.Layer<never, E, R>) =>
  Effect.gen(function*() {
    const listener = NodeHttpServer.layer(createServer, { port, host: listenHost })
    const context = yield* Layer.build(serve.pipe(Layer.provideMerge(listener))).pipe(
      Effect.catchIf(isServeError, (e) => Effect.fail(listenFailed(p, e, port)))
    )
    const address = Context.get(context, HttpServer.HttpServer).address
    const bound = address._tag === "TcpAddress" ? address.port : port
    return { port: bound, url: `http://${listenHost}:${bound}/` } as const
  })
