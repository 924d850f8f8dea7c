/**
 * The portal in-process, through its real HTTP server on port 0, over a real store: SQLite in a temp
 * home or a fresh PostgreSQL database. Mail is captured (a dev-like transport that records each message).
 */
import type { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, Scope } from "effect"
import { generateKeyPairSync, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import {
  portalSqlClient,
  portalStoreLayer,
  portalStoreOnClient,
  type PortalStores
} from "../../../src/layers/portal/PortalSql.js"
import { startPortal } from "../../../src/programs/portal/main.js"
import { loadSigningKey, parseSettings } from "../../../src/programs/portal/Settings.js"
import { Mail, type MailMessage, MailSendFailed, type MailShape } from "../../../src/services/Mail.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"

export type Backend = "sqlite" | "postgres"

export interface Portal {
  readonly url: string
  readonly port: number
  readonly publicUrl: string
  readonly mails: Array<MailMessage>
  readonly logs: Array<string>
  readonly store: PortalStore["Type"]
  /** The database (postgres) or home folder (sqlite) the store lives in. */
  readonly where: { readonly databaseUrl: string | null; readonly home: string }
  readonly close: () => Promise<void>
}

export const writeKey = (dir: string, kind: "ed25519" | "rsa" | "ed25519-public" = "ed25519"): string => {
  const file = path.join(dir, `key-${kind}-${randomBytes(3).toString("hex")}.pem`)
  if (kind === "rsa") {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
    fs.writeFileSync(file, privateKey.export({ type: "pkcs8", format: "pem" }))
  } else {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    fs.writeFileSync(
      file,
      kind === "ed25519-public"
        ? publicKey.export({ type: "spki", format: "pem" })
        : privateKey.export({ type: "pkcs8", format: "pem" })
    )
  }
  return file
}

export const tempDir = (prefix = "ldc-portal-"): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

/** Starts a portal; `env` adds to its environment (port 0, a fresh key and store are set). */
export const startTestPortal = async (
  backend: Backend,
  env: Record<string, string> = {},
  options: {
    readonly mail?: "capture" | "none" | "refused"
    readonly databaseUrl?: string
    /** false: a build without the official export (sealing answers PORTAL_NOT_INSTALLED). */
    readonly officialInstalled?: boolean
  } = {}
): Promise<Portal> => {
  const dir = tempDir()
  const scope = Effect.runSync(Scope.make())
  const mails: Array<MailMessage> = []
  const logs: Array<string> = []
  const databaseUrl = backend === "postgres"
    ? options.databaseUrl ?? (await Effect.runPromise(Scope.extend(makePgDatabase({ analyze: false }), scope))).url
    : null
  const fullEnv = {
    CATALOG_PORTAL_SIGNING_KEY: writeKey(dir),
    CATALOG_PORTAL_HOME: path.join(dir, "home"),
    ...(databaseUrl !== null ? { CATALOG_PORTAL_DATABASE_URL: databaseUrl } : {}),
    ...env
  }
  const capture: MailShape = {
    transport: "dev",
    send: (m) =>
      Effect.sync(() => {
        mails.push(m)
        return { transport: "dev" as const, messageId: null }
      })
  }
  const notConfigured = (await import("../../../src/layers/portal/Mail.js")).mailNotConfigured
  // A transport that refuses every message, its reason quoting the recipient (as Postmark's 422 does).
  const refused: MailShape = {
    transport: "provider",
    send: (m) =>
      Effect.fail(
        new MailSendFailed({
          transport: "provider",
          message: `Postmark refused the message (HTTP 422) (ErrorCode 406: You tried to send to ${m.to}, inactive).`,
          fix: "Check CATALOG_MAIL_FROM and the recipient's address."
        })
      )
  }
  const run = Effect.gen(function*() {
    const key = yield* loadSigningKey(fullEnv, dir, (p) => fs.readFileSync(p, "utf8"))
    const settings = yield* parseSettings({ env: fullEnv, cwd: dir, portFlag: "0", signingKey: key })
    const where = { databaseUrl, home: path.join(dir, "home") }
    const storeContext = yield* Layer.build(portalStoreLayer(where))
    const running = yield* startPortal(settings, {
      store: Layer.succeedContext(storeContext),
      mail: Layer.succeed(
        Mail,
        options.mail === "none" ? notConfigured : options.mail === "refused" ? refused : capture
      ),
      log: (line) => logs.push(line),
      ...(options.officialInstalled !== undefined ? { officialInstalled: options.officialInstalled } : {})
    })
    const store = yield* Effect.provide(PortalStore, storeContext)
    return { ...running, store, where }
  })
  const started = await Effect.runPromise(Scope.extend(run, scope))
  return {
    ...started,
    mails,
    logs,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export interface HttpResult {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: unknown
}

/** One request over node:http, no keep-alive. */
export const request = (
  url: string,
  target: string,
  opts: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string | Buffer
  } = {}
): Promise<HttpResult> =>
  new Promise((resolve, reject) => {
    const u = new URL(target, url)
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? "GET",
        headers: opts.headers,
        agent: false
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          let json: unknown = undefined
          try {
            json = JSON.parse(body)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
        })
      }
    )
    req.on("error", reject)
    req.end(opts.body)
  })

/** A fresh record key (43 characters base64url). */
export const recordKey = (): string => randomBytes(32).toString("base64url")

export const upload = (
  portal: { readonly url: string },
  snapshot: unknown,
  opts: { readonly key?: string; readonly headers?: Record<string, string> } = {}
) =>
  request(portal.url, "/api/portal/v1/snapshots", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(opts.key !== undefined ? { "x-catalog-record-key": opts.key } : { "x-catalog-record-key": recordKey() }),
      ...opts.headers
    },
    body: typeof snapshot === "string" ? snapshot : JSON.stringify(snapshot)
  })

/**
 * Runs `effect` on the portal's own store (a second connection to its database or SQLite file): for what
 * no page does, e.g. issuing a licence (`catalog admin licence issue` in real life) or moving a date.
 */
export const withPortalStores = async <A>(
  portal: Portal,
  effect: Effect.Effect<A, unknown, PortalStores | SqlClient.SqlClient>
): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  try {
    const context = await Effect.runPromise(
      Scope.extend(Layer.build(portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(portal.where)))), scope)
    )
    return await Effect.runPromise(Effect.provide(effect, context))
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
