/**
 * The portal's settings: the signing key first (PORTAL_NOT_READY says which check failed: unset,
 * unreadable, a public key, an RSA key, not PEM), then every other variable (ADMIN_ENV_INCOMPLETE names
 * every offending one at once), and the defaults.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadSigningKey, parseSettings } from "../../../src/programs/portal/Settings.js"
import { tempDir, writeKey } from "./harness.js"

const dir = tempDir()
const read = (p: string) => fs.readFileSync(p, "utf8")
const keyError = (env: Record<string, string>) => {
  const r = Effect.runSync(Effect.either(loadSigningKey(env, dir, read)))
  if (Either.isRight(r)) throw new Error("expected PORTAL_NOT_READY")
  return r.left
}

describe("the signing key", () => {
  it("is required, readable, private and Ed25519", () => {
    const unset = keyError({})
    expect(unset.code).toBe("PORTAL_NOT_READY")
    expect(unset.message).toContain("is not set")
    expect(unset.fix).toContain("openssl genpkey -algorithm ed25519")
    expect(keyError({ CATALOG_PORTAL_SIGNING_KEY: "missing.pem" }).message).toContain("cannot be read (ENOENT)")
    expect(keyError({ CATALOG_PORTAL_SIGNING_KEY: writeKey(dir, "rsa") }).message).toContain("RSA key, not Ed25519")
    expect(keyError({ CATALOG_PORTAL_SIGNING_KEY: writeKey(dir, "ed25519-public") }).message).toContain(
      "public key, not a private key"
    )
    const junk = path.join(dir, "junk.pem")
    fs.writeFileSync(junk, "not a key")
    expect(keyError({ CATALOG_PORTAL_SIGNING_KEY: junk }).message).toContain("not a PEM private key")
    const ok = Effect.runSync(loadSigningKey({ CATALOG_PORTAL_SIGNING_KEY: writeKey(dir) }, dir, read))
    expect(ok.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/)
    expect(ok.privateKey.asymmetricKeyType).toBe("ed25519")
  })
})

describe("the other settings", () => {
  const signingKey = Effect.runSync(loadSigningKey({ CATALOG_PORTAL_SIGNING_KEY: writeKey(dir) }, dir, read))
  const parse = (env: Record<string, string>, portFlag?: string) =>
    Effect.runSync(Effect.either(parseSettings({ env, cwd: dir, portFlag, signingKey })))

  it("default to port 4330 on 127.0.0.1, SQLite in ./.catalog-portal, 30 uploads per hour, no token, no mail", () => {
    const r = parse({})
    expect(Either.isRight(r)).toBe(true)
    if (Either.isLeft(r)) return
    expect(r.right).toMatchObject({
      port: 4330,
      host: "127.0.0.1",
      publicUrl: null,
      storage: { kind: "sqlite", home: path.join(dir, ".catalog-portal") },
      ingestToken: null,
      rateLimit: 30,
      trustProxyHops: 0,
      mail: { transport: "none" }
    })
  })

  it("read every variable", () => {
    const r = parse({
      CATALOG_PORTAL_PORT: "8080",
      CATALOG_PORTAL_HOST: "0.0.0.0",
      CATALOG_PORTAL_PUBLIC_URL: "https://portal.example/",
      CATALOG_PORTAL_DATABASE_URL: "postgresql://u@db.example:5432/portal",
      CATALOG_INGEST_TOKEN: "t0ken",
      CATALOG_INGEST_RATE_LIMIT: "5",
      CATALOG_PORTAL_TRUST_PROXY: "1",
      CATALOG_DEV_MODE: "1"
    })
    if (Either.isLeft(r)) throw r.left
    expect(r.right).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      publicUrl: "https://portal.example",
      storage: { kind: "postgres", url: "postgresql://u@db.example:5432/portal" },
      ingestToken: "t0ken",
      rateLimit: 5,
      trustProxyHops: 1,
      mail: { transport: "dev" }
    })
    const hops = parse({ CATALOG_PORTAL_TRUST_PROXY: "2" })
    expect(Either.isRight(hops) && hops.right.trustProxyHops).toBe(2)
    const flag = parse({ CATALOG_PORTAL_PORT: "8080" }, "9090")
    expect(Either.isRight(flag) && flag.right.port).toBe(9090)
  })

  it("name every malformed variable at once (ADMIN_ENV_INCOMPLETE); a bad --port is a usage error", () => {
    const r = parse({
      CATALOG_PORTAL_PORT: "99999",
      CATALOG_PORTAL_PUBLIC_URL: "ftp://x",
      CATALOG_PORTAL_DATABASE_URL: "mysql://db/portal",
      CATALOG_INGEST_RATE_LIMIT: "0",
      CATALOG_PORTAL_TRUST_PROXY: "yes",
      CATALOG_POSTMARK_TOKEN: "pm-token"
    })
    if (Either.isRight(r)) throw new Error("expected ADMIN_ENV_INCOMPLETE")
    expect(r.left.code).toBe("ADMIN_ENV_INCOMPLETE")
    for (
      const name of [
        "CATALOG_PORTAL_PORT",
        "CATALOG_PORTAL_PUBLIC_URL",
        "CATALOG_PORTAL_DATABASE_URL",
        "CATALOG_INGEST_RATE_LIMIT",
        "CATALOG_PORTAL_TRUST_PROXY",
        "CATALOG_MAIL_FROM"
      ]
    ) expect(r.left.message).toContain(name)
    expect(r.left.message).not.toContain("pm-token")
    for (
      const bad of [
        "https://example.com/portal",
        "https://example.com/portal/",
        "https://example.com/?a=1",
        "https://example.com/#x",
        "https://example.com?",
        "https://user:pw@example.com"
      ]
    ) {
      const refused = parse({ CATALOG_PORTAL_PUBLIC_URL: bad })
      if (Either.isRight(refused)) throw new Error(`expected ${bad} to be refused`)
      expect(refused.left.code).toBe("ADMIN_ENV_INCOMPLETE")
      expect(refused.left.param).toBe("CATALOG_PORTAL_PUBLIC_URL")
      expect(refused.left.message).toContain("root of its host")
      expect(refused.left.message).not.toContain("pw")
    }
    const root = parse({ CATALOG_PORTAL_PUBLIC_URL: "https://example.com:8443/" })
    expect(Either.isRight(root) && root.right.publicUrl).toBe("https://example.com:8443")
    const port = parse({}, "http")
    if (Either.isRight(port)) throw new Error("expected INVALID_PARAM")
    expect(port.left.code).toBe("INVALID_PARAM")
    expect(port.left.exitCode).toBe(2)
  })
})
