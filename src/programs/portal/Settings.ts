/**
 * The portal's settings (`catalog admin serve`), read from the environment and `--port` only: pure
 * parsing, so every refusal is decided before anything is opened or bound. In start-up order:
 *   1. the signing key (`CATALOG_PORTAL_SIGNING_KEY`, an Ed25519 private key, PEM) → PORTAL_NOT_READY;
 *   2. everything else missing or malformed → ADMIN_ENV_INCOMPLETE naming every offending variable;
 * then the program opens the store and binds (PORT_IN_USE). docs/portal.md lists every variable.
 */
import { Effect, Either } from "effect"
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto"
import * as path from "node:path"
import { defaultIngestRateLimit, defaultPortalHome, defaultPortalHost, defaultPortalPort } from "../../domain/Portal.js"
import { AdminEnvIncomplete, InvalidParam, PortalNotReady } from "../../errors/index.js"
import { type MailConfig, mailConfigFrom } from "../../services/Mail.js"

/** Where the portal keeps its data (the store's back end). */
export type PortalStorage =
  | { readonly kind: "postgres"; readonly url: string }
  | { readonly kind: "sqlite"; readonly home: string }

export interface SigningKey {
  readonly path: string
  readonly privateKey: KeyObject
  /** The public half, SubjectPublicKeyInfo PEM: served at GET /api/portal/v1/signing-key. */
  readonly publicKeyPem: string
}

export interface PortalSettings {
  readonly port: number
  /** The listen address (CATALOG_PORTAL_HOST, default 127.0.0.1). */
  readonly host: string
  /** The address written into claim links, without a trailing slash; null = `http://127.0.0.1:<bound port>`. */
  readonly publicUrl: string | null
  readonly storage: PortalStorage
  readonly signingKey: SigningKey
  /** When set, uploads must present `Authorization: Bearer <token>`. */
  readonly ingestToken: string | null
  /** Uploads per address per hour. */
  readonly rateLimit: number
  /**
   * How many reverse proxies in front append to X-Forwarded-For (CATALOG_PORTAL_TRUST_PROXY): the rate limit
   * keys on the address the outermost trusted one saw, the `n`-th entry from the right; 0 = the socket's address.
   */
  readonly trustProxyHops: number
  /** How mail is delivered (`transport: "none"`: the portal starts, warns, and mail reports MAIL_NOT_CONFIGURED). */
  readonly mail: MailConfig
  /**
   * The customer agreement's version (CATALOG_TOS_VERSION): when set, sealing needs its acceptance
   * (TERMS_NOT_ACCEPTED) and the seal records it; null = no acceptance required.
   */
  readonly termsVersion: string | null
}

export type Env = Readonly<Record<string, string | undefined>>

const set = (env: Env, name: string): string | undefined => {
  const v = env[name]
  return v === undefined || v.trim() === "" ? undefined : v.trim()
}

const keyFix =
  "Create one with `openssl genpkey -algorithm ed25519 -out portal-signing.pem` (keep it private, mode 0600) and set CATALOG_PORTAL_SIGNING_KEY to its path."

/** CATALOG_PORTAL_SIGNING_KEY: an Ed25519 private key, PEM; PORTAL_NOT_READY says which check failed. */
export const loadSigningKey = (env: Env, cwd: string, readFile: (p: string) => string): Effect.Effect<
  SigningKey,
  PortalNotReady
> =>
  Effect.suspend(() => {
    const given = set(env, "CATALOG_PORTAL_SIGNING_KEY")
    if (given === undefined) {
      return Effect.fail(
        new PortalNotReady({
          message:
            "CATALOG_PORTAL_SIGNING_KEY is not set: the portal signs what it seals and refuses to start without its Ed25519 key.",
          fix: keyFix,
          param: "CATALOG_PORTAL_SIGNING_KEY"
        })
      )
    }
    const file = path.resolve(cwd, given)
    let text: string
    try {
      text = readFile(file)
    } catch (e) {
      const code = (e as { code?: unknown }).code
      return Effect.fail(
        new PortalNotReady({
          message: `CATALOG_PORTAL_SIGNING_KEY names ${file}, which cannot be read (${
            typeof code === "string" ? code : "unreadable"
          }).`,
          fix: `Check the path and its permissions, or: ${keyFix}`,
          param: "CATALOG_PORTAL_SIGNING_KEY"
        })
      )
    }
    const refuse = (what: string) =>
      Effect.fail(
        new PortalNotReady({
          message: `CATALOG_PORTAL_SIGNING_KEY (${file}) ${what}; the portal needs an Ed25519 private key (PEM).`,
          fix: keyFix,
          param: "CATALOG_PORTAL_SIGNING_KEY"
        })
      )
    let privateKey: KeyObject
    try {
      privateKey = createPrivateKey(text)
    } catch {
      return refuse(
        /-----BEGIN PUBLIC KEY-----/.test(text)
          ? "is a public key, not a private key"
          : "is not a PEM private key"
      )
    }
    if (privateKey.asymmetricKeyType !== "ed25519") {
      return refuse(
        `is a${privateKey.asymmetricKeyType === "rsa" ? "n" : ""} ${
          (privateKey.asymmetricKeyType ?? "unknown").toUpperCase()
        } key, not Ed25519`
      )
    }
    const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString()
    return Effect.succeed({ path: file, privateKey, publicKeyPem })
  })

/** `--port` (usage error, exit 2) or CATALOG_PORTAL_PORT (a setting) or the default. */
const portFrom = (flag: string | undefined, env: Env): { port: number } | { problem: string } | InvalidParam => {
  const valid = (s: string) => /^\d{1,5}$/.test(s) && Number(s) <= 65535
  if (flag !== undefined) {
    if (valid(flag.trim())) return { port: Number(flag.trim()) }
    return new InvalidParam({
      message: `--port must be a port number from 0 to 65535; got "${flag}".`,
      fix: `Pass --port <n> (default ${defaultPortalPort}; 0 picks a free port), or set CATALOG_PORTAL_PORT.`,
      param: "--port",
      usage: true
    })
  }
  const v = set(env, "CATALOG_PORTAL_PORT")
  if (v === undefined) return { port: defaultPortalPort }
  return valid(v) ? { port: Number(v) } : { problem: `CATALOG_PORTAL_PORT must be a port number 0-65535` }
}

const httpUrl = (s: string): URL | null => {
  try {
    const u = new URL(s)
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "" ? u : null
  } catch {
    return null
  }
}

/** The settings other than the signing key: ADMIN_ENV_INCOMPLETE names every offending variable at once. */
export const parseSettings = (input: {
  readonly env: Env
  readonly cwd: string
  readonly portFlag: string | undefined
  readonly signingKey: SigningKey
}): Effect.Effect<PortalSettings, AdminEnvIncomplete | InvalidParam> =>
  Effect.suspend((): Effect.Effect<PortalSettings, AdminEnvIncomplete | InvalidParam> => {
    const { cwd, env } = input
    const problems: Array<{ readonly name: string; readonly problem: string }> = []
    const port = portFrom(input.portFlag, env)
    if (port instanceof InvalidParam) return Effect.fail(port)
    if ("problem" in port) problems.push({ name: "CATALOG_PORTAL_PORT", problem: port.problem })

    const host = set(env, "CATALOG_PORTAL_HOST") ?? defaultPortalHost
    if (/[\s/]/.test(host)) {
      problems.push({ name: "CATALOG_PORTAL_HOST", problem: "must be an address or host name to listen on" })
    }

    let publicUrl: string | null = null
    const pub = set(env, "CATALOG_PORTAL_PUBLIC_URL")
    if (pub !== undefined) {
      const u = httpUrl(pub)
      // Every path the portal writes (claim links, the cookie's Path, redirects, form actions) is from the
      // root of its host: an address with a path would break the flow behind a path prefix, so it is refused.
      if (
        u === null || u.pathname !== "/" || u.search !== "" || u.hash !== "" || u.username !== "" ||
        u.password !== "" || /[?#]/.test(pub)
      ) {
        problems.push({
          name: "CATALOG_PORTAL_PUBLIC_URL",
          problem:
            "must be an http:// or https:// origin (scheme, host, optional port) without a path, query, fragment or credentials: the portal is served at the root of its host"
        })
      } else publicUrl = u.origin
    }

    let storage: PortalStorage = {
      kind: "sqlite",
      home: path.resolve(cwd, set(env, "CATALOG_PORTAL_HOME") ?? defaultPortalHome)
    }
    const db = set(env, "CATALOG_PORTAL_DATABASE_URL")
    if (db !== undefined) {
      let ok = false
      try {
        const u = new URL(db)
        ok = (u.protocol === "postgres:" || u.protocol === "postgresql:") && u.hostname !== ""
      } catch {
        ok = false
      }
      if (ok) storage = { kind: "postgres", url: db }
      else {
        problems.push({
          name: "CATALOG_PORTAL_DATABASE_URL",
          problem: "must be a postgres:// or postgresql:// URL (unset it to use SQLite in CATALOG_PORTAL_HOME)"
        })
      }
    }

    const ingestToken = set(env, "CATALOG_INGEST_TOKEN") ?? null

    let rateLimit = defaultIngestRateLimit
    const rl = set(env, "CATALOG_INGEST_RATE_LIMIT")
    if (rl !== undefined) {
      if (/^\d{1,9}$/.test(rl) && Number(rl) > 0) rateLimit = Number(rl)
      else problems.push({ name: "CATALOG_INGEST_RATE_LIMIT", problem: "must be a positive whole number" })
    }

    let trustProxyHops = 0
    const tp = set(env, "CATALOG_PORTAL_TRUST_PROXY")
    if (tp !== undefined) {
      if (/^\d{1,2}$/.test(tp)) trustProxyHops = Number(tp)
      else if (tp === "true" || tp === "false") trustProxyHops = tp === "true" ? 1 : 0
      else {
        problems.push({
          name: "CATALOG_PORTAL_TRUST_PROXY",
          problem: "must be the number of trusted proxies in front (0 = none, 1 = one reverse proxy)"
        })
      }
    }

    const mail = mailConfigFrom(env)
    if (Either.isLeft(mail)) {
      for (const name of mail.left.missing) problems.push({ name, problem: "is required with the mail settings given" })
      for (const m of mail.left.malformed) {
        const name = m.split(" ")[0]!
        problems.push({ name, problem: `is malformed${m.slice(name.length)}` })
      }
    }

    if (problems.length > 0 || Either.isLeft(mail)) {
      return Effect.fail(
        new AdminEnvIncomplete({
          message: `The portal's settings are incomplete: ${problems.map((p) => `${p.name} ${p.problem}`).join("; ")}.`,
          fix: `Fix ${
            problems.map((p) => p.name).join(", ")
          } in the portal's environment; \`catalog admin help\` lists every variable.`,
          param: problems[0]!.name,
          details: { variables: problems.map((p) => p.name) }
        })
      )
    }
    return Effect.succeed({
      port: "port" in port ? port.port : defaultPortalPort,
      host,
      publicUrl,
      storage,
      signingKey: input.signingKey,
      ingestToken,
      rateLimit,
      trustProxyHops,
      mail: mail.right,
      termsVersion: set(env, "CATALOG_TOS_VERSION")?.slice(0, 100) ?? null
    })
  })
