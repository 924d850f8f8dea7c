/**
 * The one redaction step every stored or served error message passes. It removes, wherever they
 * appear in a text:
 *
 * - the secret values it is given (a source's resolved connection string and the password inside
 *   it), in their raw, trimmed, URL-encoded, URL-decoded and JSON-escaped spellings;
 * - URL credentials: `scheme://user:pass@host` → `scheme://user:***@host`;
 * - key=value secrets: `password=…`, `pwd=…`, `PGPASSWORD=…`, `secret=…`, `token=…`, `apikey=…`,
 *   `"password": "…"` and friends, and `Bearer …` tokens.
 *
 * The result is a `RedactedText`, the only kind of message the Store accepts for a failed source, so
 * an unredacted message cannot reach `index.db` by construction.
 */

/** A text that has been through `redact`. */
export type RedactedText = string & { readonly __redacted: unique symbol }

/** What replaces a secret. */
export const mask = "***"

/** Shorter values are not searched for on their own (a 2-letter password would shred every message); URL and key=value rules still apply. */
const minLiteralLength = 4

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/**
 * The secret-bearing parts of a connection string: the whole value and, when it is a URL or a
 * key=value DSN, its password (and any other secret-named parameter).
 */
export const secretParts = (connection: string | null | undefined): ReadonlyArray<string> => {
  if (connection === null || connection === undefined || connection.trim() === "") return []
  const parts = [connection, connection.trim()]
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(connection.trim())
  if (userinfo !== null) {
    const colon = userinfo[1]!.indexOf(":")
    if (colon >= 0) parts.push(userinfo[1]!.slice(colon + 1))
  }
  for (const m of connection.matchAll(keyValuePattern())) {
    const value = m[3]!.replace(/^["']|["']$/g, "")
    parts.push(value)
  }
  return parts
}

/** Key names whose value is a secret (matched anywhere in the key: `PGPASSWORD`, `db_password`, `x-api-key`). */
const secretKey = String
  .raw`[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|authorization)[A-Za-z0-9_.\-]*|pass`

const keyValuePattern = (): RegExp =>
  new RegExp(
    String
      .raw`(?<![A-Za-z0-9_])(["']?(?:${secretKey})["']?)(\s*[=:]\s*)((?:(?:Bearer|Basic|Token)\s+)?(?:"[^"]*"|'[^']*'|[^\s"'&;,()<>\[\]{}]+))`,
    "gi"
  )

const urlCredentials = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/'"<>]*):([^\s'"<>]*)@/gi

const bearer = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g

const spellings = (s: string): ReadonlyArray<string> => {
  const json = JSON.stringify(s).slice(1, -1)
  return [s, s.trim(), encodeURIComponent(s), decode(s), json]
}

/** `text` with every secret value, URL credential and key=value secret replaced by `***`. */
export const redact = (text: string, secrets: ReadonlyArray<string | null | undefined> = []): RedactedText => {
  let out = text
  const literals = new Set<string>()
  for (const secret of secrets) {
    for (const part of secretParts(secret)) {
      for (const form of spellings(part)) if (form.length >= minLiteralLength) literals.add(form)
    }
  }
  // Longest first, so a connection string goes whole before its password is searched for.
  for (const literal of [...literals].sort((a, b) => b.length - a.length)) out = out.split(literal).join(mask)
  out = out.replace(urlCredentials, (_m, scheme: string, user: string) => `${scheme}${user}:${mask}@`)
  out = out.replace(
    keyValuePattern(),
    (m, key: string, sep: string, value: string) =>
      value === mask || value === `"${mask}"` || value === `'${mask}'` ? m : `${key}${sep}${mask}`
  )
  out = out.replace(bearer, (_m, scheme: string) => `${scheme} ${mask}`)
  return out as RedactedText
}

/** `redact` for an optional text (a fix that may be absent). */
export const redactOptional = (
  text: string | null | undefined,
  secrets: ReadonlyArray<string | null | undefined> = []
): RedactedText | null => text === null || text === undefined ? null : redact(text, secrets)
