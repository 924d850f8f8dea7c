/**
 * Helpers shared by the built-in connectors: turning driver failures into `SourceUnreachable`
 * without ever echoing a password, parsing connection URLs for a printable target, reading a
 * source's file only when it is a regular file, the session limits of database connections, and
 * finding the relations a view's SQL reads from (for sources whose catalog does not record view
 * dependencies).
 */
import { SourceUnreachable } from "../../errors/index.js"
import { redact } from "../../services/Redact.js"

/**
 * Server-side limit on every statement a connector sends (PostgreSQL `statement_timeout`, MariaDB
 * `max_statement_time`, MySQL `max_execution_time`): a catalog query that runs longer is cancelled
 * by the server, so a scan can never hang on one.
 */
export const statementTimeoutMs = 60_000

/** How long a connection attempt may take before the source counts as unreachable. */
export const connectTimeoutMs = 10_000

/** How long closing a pool may take; after it the sockets are destroyed. */
export const closeTimeoutMs = 2_000

/** A connection URL taken apart; `password` is only kept so messages can be scrubbed of it. */
export interface ParsedUrl {
  readonly host: string
  readonly port: number
  readonly database: string | null
  readonly user: string | null
  readonly password: string | null
}

/** Parses `scheme://user:pass@host:port/db?…`; `null` when it is not such a URL. */
export const parseConnectionUrl = (
  raw: string,
  schemes: ReadonlyArray<string>,
  defaultPort: number
): ParsedUrl | null => {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return null
  }
  const scheme = url.protocol.replace(/:$/, "").toLowerCase()
  if (!schemes.includes(scheme)) return null
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  }
  // `postgres:///db?host=/var/run/postgresql` style: the host travels as a query parameter.
  const hostParam = url.searchParams.get("host")
  const host = url.hostname !== "" ? url.hostname.replace(/^\[(.*)\]$/, "$1") : hostParam ?? "localhost"
  const portText = url.port !== "" ? url.port : url.searchParams.get("port")
  const port = portText !== null && /^\d+$/.test(portText) ? Number(portText) : defaultPort
  const path = decode(url.pathname.replace(/^\//, ""))
  return {
    host,
    port,
    database: path === "" ? null : path,
    user: url.username === "" ? null : decode(url.username),
    password: url.password === "" ? null : decode(url.password)
  }
}

/** `host:port` with IPv6 hosts bracketed. */
export const hostPort = (p: ParsedUrl): string => `${p.host.includes(":") ? `[${p.host}]` : p.host}:${p.port}`

/** What a driver error says, found through `SqlError.cause` chains and `AggregateError`s. */
export interface DriverFailure {
  readonly code: string | null
  readonly message: string
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

export const driverFailure = (error: unknown): DriverFailure => {
  let current: unknown = error
  let code: string | null = null
  let message: string | null = null
  for (let depth = 0; depth < 6 && isRecord(current); depth++) {
    const c = current["code"]
    if (code === null && (typeof c === "string" || typeof c === "number")) code = String(c)
    const m = current["message"]
    // Prefer the innermost driver message over wrappers such as "Failed to execute statement".
    if (typeof m === "string" && m !== "") message = m
    const errors = current["errors"]
    if (code === null && Array.isArray(errors) && errors.length > 0 && isRecord(errors[0])) {
      const inner = errors[0]["code"]
      if (typeof inner === "string") code = inner
    }
    current = current["cause"]
  }
  return { code, message: message ?? String(error) }
}

/** Network-level failure codes shared by every TCP driver. */
export const networkReason = (code: string | null): string | null => {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host name not found"
    case "ETIMEDOUT":
    case "ECONNRESET":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "PROTOCOL_CONNECTION_LOST":
      return code === "ETIMEDOUT" ? "connection timed out" : `network error (${code})`
    default:
      return null
  }
}

/**
 * The standard unreachable error: message names the engine and target, fix names host and port.
 * Both pass the redaction step (`services/Redact.ts`) with the source's secrets, so a driver message
 * that quotes the connection string, or a URL with credentials, never leaves the connector.
 */
export const unreachable = (message: string, fix: string, secrets: ReadonlyArray<string | null>): SourceUnreachable =>
  new SourceUnreachable({ message: redact(message, secrets), fix: redact(fix, secrets) })

// ── Files named by a source ──────────────────────────────────────────────────────────────────────

/** Source files (SQLite, CSV dictionaries, dbt manifests) are checked and read like every file a user names. */
export { readRegularFile, regularFile } from "../NodeFiles.js"

// ── Relations referenced by a view's SQL ─────────────────────────────────────────────────────────

type Token =
  | { readonly kind: "ident"; readonly text: string; readonly quoted: boolean }
  | { readonly kind: "punct"; readonly text: string }

/** A tiny SQL lexer: identifiers (bare, "double", `back`, [bracket]), punctuation; strings and comments skipped. */
const tokenize = (sql: string): Array<Token> => {
  const tokens: Array<Token> = []
  const n = sql.length
  let i = 0
  while (i < n) {
    const ch = sql[i]!
    if (/\s/.test(ch)) {
      i++
    } else if (ch === "-" && sql[i + 1] === "-") {
      while (i < n && sql[i] !== "\n") i++
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2)
      i = end < 0 ? n : end + 2
    } else if (ch === "'") {
      i++
      while (i < n) {
        if (sql[i] === "\\" && i + 1 < n) i += 2
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2
        else if (sql[i] === "'") break
        else i++
      }
      i++
      tokens.push({ kind: "punct", text: "'" })
    } else if (ch === "\"" || ch === "`" || ch === "[") {
      const close = ch === "[" ? "]" : ch
      let text = ""
      i++
      while (i < n) {
        if (sql[i] === close && sql[i + 1] === close && close !== "]") {
          text += close
          i += 2
        } else if (sql[i] === close) {
          break
        } else {
          text += sql[i]
          i++
        }
      }
      i++
      tokens.push({ kind: "ident", text, quoted: true })
    } else if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      let j = i + 1
      while (j < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[j]!)) j++
      tokens.push({ kind: "ident", text: sql.slice(i, j), quoted: false })
      i = j
    } else {
      tokens.push({ kind: "punct", text: ch })
      i++
    }
  }
  return tokens
}

const clauseEnd = new Set([
  "where",
  "group",
  "order",
  "having",
  "limit",
  "union",
  "except",
  "intersect",
  "on",
  "using",
  "window",
  "join",
  "inner",
  "left",
  "right",
  "full",
  "cross",
  "natural",
  "outer",
  "straight_join",
  "select",
  "returning",
  "offset",
  "fetch",
  "for",
  "lateral",
  "as",
  "with",
  "values"
])

// Keywords that end a FROM list (at its own parenthesis depth).
const fromListEnd = new Set([
  "where",
  "group",
  "order",
  "having",
  "limit",
  "union",
  "except",
  "intersect",
  "window",
  "offset",
  "fetch",
  "for",
  "returning",
  "into",
  "qualify"
])

/**
 * The relations named after FROM / JOIN (and in comma-separated FROM lists) of a view definition,
 * as `{ schema, name }` with `schema` null when unqualified. Callers keep only names that exist, so
 * the odd false positive (a CTE name) falls away.
 */
export const relationsReadBy = (sql: string): Array<{ readonly schema: string | null; readonly name: string }> => {
  const tokens = tokenize(sql)
  const out: Array<{ schema: string | null; name: string }> = []
  const isKw = (t: Token | undefined, kw: string): boolean =>
    t !== undefined && t.kind === "ident" && !t.quoted && t.text.toLowerCase() === kw
  const isPunct = (t: Token | undefined, p: string): boolean => t !== undefined && t.kind === "punct" && t.text === p
  const readRef = (start: number): void => {
    let i = start
    while (isPunct(tokens[i], "(")) i++
    if (isKw(tokens[i], "only")) i++ // PostgreSQL `FROM ONLY t`
    const first = tokens[i]
    if (first === undefined || first.kind !== "ident") return
    if (!first.quoted && clauseEnd.has(first.text.toLowerCase())) return // a subquery, LATERAL, …
    const parts = [first.text]
    let j = i + 1
    while (isPunct(tokens[j], ".") && tokens[j + 1]?.kind === "ident") {
      parts.push((tokens[j + 1] as { readonly text: string }).text)
      j += 2
    }
    // A function call such as `json_each(x)` is not a relation.
    if (isPunct(tokens[j], "(")) return
    out.push({ schema: parts.length >= 2 ? parts[parts.length - 2]! : null, name: parts[parts.length - 1]! })
  }
  for (let i = 0; i < tokens.length; i++) {
    if (isKw(tokens[i], "join") || isKw(tokens[i], "straight_join")) readRef(i + 1)
    else if (isKw(tokens[i], "from")) {
      readRef(i + 1)
      // Further items of this FROM list follow top-level commas, until the list ends.
      let depth = 0
      for (let j = i + 1; j < tokens.length; j++) {
        const t = tokens[j]!
        if (t.kind === "punct") {
          if (t.text === "(") depth++
          else if (t.text === ")") {
            if (depth === 0) break
            depth--
          } else if (t.text === ";" && depth === 0) break
          else if (t.text === "," && depth === 0) readRef(j + 1)
        } else if (depth === 0 && !t.quoted && fromListEnd.has(t.text.toLowerCase())) break
      }
    }
  }
  return out
}
