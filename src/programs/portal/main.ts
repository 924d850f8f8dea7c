/**
 * `catalog admin serve`: the portal, until SIGINT/SIGTERM (then exit 0). Loaded on demand by the CLI
 * (through admin.ts), so no other command loads it. Start-up order: PORTAL_NOT_READY (the signing key),
 * ADMIN_ENV_INCOMPLETE (every other setting), the store (opened and migrated), the listener (PORT_IN_USE).
 */
import { HttpServer } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import { Console, Context, Effect, Layer, type Scope } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import { defaultPortalPort, portalApiPrefix } from "../../domain/Portal.js"
import { AdminEnvIncomplete, InvalidParam, PortInUse } from "../../errors/index.js"
import { MailLive } from "../../layers/portal/Mail.js"
import { portalStoreLayer, type PortalStores } from "../../layers/portal/PortalSql.js"
import { AppEnv, stderrLine } from "../../services/AppEnv.js"
import { describeMailConfig, type Mail } from "../../services/Mail.js"
import { PortalContext } from "./Context.js"
import { PortalServerLive } from "./Server.js"
import { loadSigningKey, parseSettings, type PortalSettings } from "./Settings.js"

export interface ServeOptions {
  /** `--port`, as typed. */
  readonly port: string | undefined
  /** `--json`: one line `{ url, api, port, storage, publicUrl }` on stdout once listening. */
  readonly json: boolean
}

const listenFailed = (e: ServeError, settings: PortalSettings) => {
  const code = (e.cause as { code?: unknown } | null)?.code
  const where = `${settings.host}:${settings.port}`
  if (code === "EADDRINUSE") {
    return new PortInUse({
      message: `Port ${settings.port} on ${settings.host} is already in use (is another portal running?).`,
      fix: `Pass --port <n> (e.g. --port ${
        settings.port === defaultPortalPort ? defaultPortalPort + 10 : defaultPortalPort
      }) or set CATALOG_PORTAL_PORT; or stop the program that holds port ${settings.port}.`,
      param: "--port"
    })
  }
  if (code === "EACCES") {
    return new InvalidParam({
      message: `Listening on ${where} is not permitted (ports below 1024 need privileges).`,
      fix: "Pass --port <n> above 1023, or set CATALOG_PORTAL_PORT; put a reverse proxy in front for ports 80/443.",
      param: "--port"
    })
  }
  return new AdminEnvIncomplete({
    message: `Cannot listen on ${where}: ${e.cause instanceof Error ? e.cause.message : String(e.cause)}.`,
    fix: "Check CATALOG_PORTAL_HOST (an address of this machine) and CATALOG_PORTAL_PORT.",
    param: "CATALOG_PORTAL_HOST"
  })
}

const isServeError = (e: unknown): e is ServeError =>
  typeof e === "object" && e !== null && "_tag" in e && e._tag === "ServeError"

/**
 * Serves the portal with `settings` on the given store and mail, in the current scope: returns the
 * bound port, the local URL and the public address claim links use. Tests call this in-process.
 */
export const startPortal = (
  settings: PortalSettings,
  services: {
    readonly store: Layer.Layer<PortalStores>
    readonly mail: Layer.Layer<Mail>
    readonly log: (line: string) => void
    /** Tests only: run as a build without (false) the official export; default: this build's flag. */
    readonly officialInstalled?: boolean
  }
): Effect.Effect<
  { readonly port: number; readonly url: string; readonly publicUrl: string },
  PortInUse | InvalidParam | AdminEnvIncomplete,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const listener = NodeHttpServer.layer(createServer, { port: settings.port, host: settings.host })
    // The public address may name the port the system chose (port 0): it is read once bound.
    let publicUrl = settings.publicUrl ?? `http://127.0.0.1:${settings.port}`
    const portal = Layer.effect(
      PortalContext,
      Effect.sync(() => ({
        settings,
        publicUrl,
        log: services.log,
        officialInstalled: services.officialInstalled
      }))
    )
    const context = yield* Layer.build(
      Layer.unwrapEffect(Effect.map(HttpServer.HttpServer, (server) => {
        const address = server.address
        if (settings.publicUrl === null && address._tag === "TcpAddress") {
          publicUrl = `http://127.0.0.1:${address.port}`
        }
        return PortalServerLive.pipe(Layer.provide(Layer.mergeAll(portal, services.store, services.mail)))
      })).pipe(Layer.provideMerge(listener))
    ).pipe(Effect.catchIf(isServeError, (e) => Effect.fail(listenFailed(e, settings))))
    const address = Context.get(context, HttpServer.HttpServer).address
    const port = address._tag === "TcpAddress" ? address.port : settings.port
    const host = settings.host === "0.0.0.0" || settings.host === "::" ? "127.0.0.1" : settings.host
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    return { port, url, publicUrl }
  })

const readText = (p: string): string => fs.readFileSync(p, "utf8")

/** `catalog admin serve`: serves until interrupted (Ctrl+C / SIGTERM), then exits 0. */
export const serve = (options: ServeOptions) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const signingKey = yield* loadSigningKey(env.env, env.cwd, readText)
    const settings = yield* parseSettings({ env: env.env, cwd: env.cwd, portFlag: options.port, signingKey })
    if (settings.mail.transport === "none") {
      yield* stderrLine(
        "catalog admin serve: warning: no mail delivery is configured (MAIL_NOT_CONFIGURED): claim links are not mailed " +
          "and bound claims cannot be opened. Set CATALOG_POSTMARK_TOKEN + CATALOG_MAIL_FROM, CATALOG_SENDMAIL_CMD, or CATALOG_DEV_MODE=1."
      )
    }
    yield* Effect.scoped(Effect.gen(function*() {
      const storeSettings = {
        databaseUrl: settings.storage.kind === "postgres" ? settings.storage.url : null,
        home: settings.storage.kind === "sqlite" ? settings.storage.home : env.cwd
      }
      const store = yield* Layer.build(portalStoreLayer(storeSettings)).pipe(
        Effect.catchTag("SqlError", (e) =>
          Effect.fail(
            new AdminEnvIncomplete({
              message: `The portal's store cannot be opened (${
                settings.storage.kind === "postgres" ? "PostgreSQL at CATALOG_PORTAL_DATABASE_URL" : "SQLite"
              }): ${e.message}`,
              fix: settings.storage.kind === "postgres"
                ? "Check CATALOG_PORTAL_DATABASE_URL (host, port, database, user) and that the database is up."
                : "Check that CATALOG_PORTAL_HOME is a folder this user can write.",
              param: settings.storage.kind === "postgres" ? "CATALOG_PORTAL_DATABASE_URL" : "CATALOG_PORTAL_HOME"
            })
          ))
      )
      const running = yield* startPortal(settings, {
        store: Layer.succeedContext(store),
        mail: MailLive(settings.mail),
        log: (line) => process.stderr.write(line + "\n")
      })
      const storage = settings.storage.kind === "postgres" ? "postgres" : "sqlite"
      yield* stderrLine(
        `catalog admin serve: the portal is at ${running.url}/ (claim links: ${running.publicUrl}/claim/…)\n` +
          `  API: ${running.url}${portalApiPrefix} (OpenAPI: ${portalApiPrefix}/openapi.json)\n` +
          `  storage: ${storage}${settings.storage.kind === "sqlite" ? ` in ${settings.storage.home}` : ""}; ` +
          `${describeMailConfig(settings.mail)}; uploads: ${settings.rateLimit}/hour per address${
            settings.ingestToken !== null ? ", ingest token required" : ""
          }\n` +
          `  press Ctrl+C to stop.`
      )
      if (options.json) {
        yield* Console.log(JSON.stringify({
          url: `${running.url}/`,
          api: `${running.url}${portalApiPrefix}`,
          port: running.port,
          storage,
          publicUrl: running.publicUrl
        }))
      }
      return yield* Effect.never
    })).pipe(
      // The CLI runtime interrupts on SIGINT/SIGTERM; by now the listener and the store are closed.
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          process.stderr.write("catalog admin serve: stopped.\n")
          process.exit(0)
        })
      )
    )
  })
