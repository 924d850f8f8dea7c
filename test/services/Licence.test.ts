/**
 * Licence keys: issue then check, and every refusal in its order — missing, each kind of invalid (prefix,
 * shape, base64, JSON, Schema, another key, one byte tampered in the payload or the signature, a sync
 * token, a claim token, no pinned key), another claim, expired, revoked — with the key never echoed.
 */
import { Either } from "effect"
import { generateKeyPairSync, sign } from "node:crypto"
import { assert, describe, it } from "vitest"
import type { LicencePayload } from "../../src/domain/Sync.js"
import { checkLicence, issueLicence, type LicenceContext, licenceState } from "../../src/services/Licence.js"

const { privateKey, publicKey } = generateKeyPairSync("ed25519")
const other = generateKeyPairSync("ed25519")

const payload: LicencePayload = {
  v: 1,
  id: "li_0123456789abcdef",
  claimId: "cl_abc",
  issuedAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2027-01-01T00:00:00.000Z"
}
const ctx: LicenceContext = {
  publicKey,
  claimId: "cl_abc",
  now: new Date("2026-06-01T00:00:00.000Z"),
  revoked: new Set()
}

const refused = (key: string | undefined, c: LicenceContext = ctx) => {
  const result = checkLicence(key, c)
  if (Either.isRight(result)) throw new Error("expected a refusal")
  const error = result.left
  if (key !== undefined && key.length > 8) {
    assert.notInclude(error.message, key, "the key is never echoed")
    assert.notInclude(error.fix ?? "", key)
  }
  return error
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64url")
/** A key over arbitrary payload bytes, properly signed (to reach the checks after the signature). */
const signedOver = (bytes: Buffer) => `lic_${b64(bytes)}.${b64(sign(null, bytes, privateKey))}`

describe("Licence", () => {
  it("issues lic_<payload>.<signature> over exactly the payload's JSON bytes, and checks it", () => {
    const key = issueLicence(payload, privateKey)
    assert.match(key, /^lic_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    const [p, s] = key.slice(4).split(".")
    const bytes = Buffer.from(p!, "base64url")
    assert.deepStrictEqual(JSON.parse(bytes.toString("utf8")), payload)
    assert.strictEqual(Buffer.from(s!, "base64url").length, 64)
    const result = checkLicence(key, ctx)
    assert.isTrue(Either.isRight(result))
    assert.deepStrictEqual(Either.getOrThrow(result), payload)
    // surrounding white space (a copied line) is forgiven; no claim id skips the tenant check
    assert.isTrue(Either.isRight(checkLicence(` ${key}\n`, { ...ctx, claimId: null })))
    // an unreachable revocation list (null) still passes the offline checks
    assert.isTrue(Either.isRight(checkLicence(key, { ...ctx, revoked: null })))
  })

  it("LICENCE_MISSING when unset or empty", () => {
    for (const key of [undefined, "", "   "]) {
      const e = refused(key)
      assert.strictEqual(e.code, "LICENCE_MISSING")
      assert.include(e.fix ?? "", "CATALOG_LICENCE_KEY")
    }
  })

  it("LICENCE_INVALID naming what a sync token or a claim token looks like", () => {
    const sync = refused("sync_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert.strictEqual(sync.code, "LICENCE_INVALID")
    assert.include(sync.message, "sync token")
    assert.include(sync.fix ?? "", "CATALOG_SYNC_TOKEN")
    const claim = refused("clm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
    assert.strictEqual(claim.code, "LICENCE_INVALID")
    assert.include(claim.message, "claim token")
  })

  it("LICENCE_INVALID saying which check failed", () => {
    const key = issueLicence(payload, privateKey)
    const [p, s] = key.slice(4).split(".") as [string, string]
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["xyz_" + p + "." + s, "does not begin with lic_"],
      ["lic_" + p, "two parts"],
      ["lic_" + p + "." + s + ".x", "two parts"],
      ["lic_." + s, "two parts"],
      ["lic_" + p + "!." + s, "not base64url"],
      ["lic_" + p + "." + s + "=", "not base64url"],
      [signedOver(Buffer.from("not json")), "not JSON"],
      [signedOver(Buffer.from(JSON.stringify({ ...payload, v: 2 }))), "not a licence"],
      [signedOver(Buffer.from(JSON.stringify({ id: "li_x" }))), "not a licence"],
      [signedOver(Buffer.from(JSON.stringify({ ...payload, extra: 1 }))), "not a licence"],
      [signedOver(Buffer.from(JSON.stringify({ ...payload, expiresAt: "soon" }))), "not ISO"],
      [issueLicence(payload, other.privateKey), "signature does not match"],
      ["lic_" + p + "." + b64(Buffer.alloc(64)), "signature does not match"],
      ["lic_" + p + "." + b64(Buffer.alloc(3)), "signature does not match"]
    ]
    for (const [bad, why] of cases) {
      const e = refused(bad)
      assert.strictEqual(e.code, "LICENCE_INVALID", why)
      assert.include(e.message, why)
      assert.strictEqual(e.param, "CATALOG_LICENCE_KEY")
    }
  })

  it("LICENCE_INVALID when one byte of the payload or of the signature is changed", () => {
    const key = issueLicence(payload, privateKey)
    const [p, s] = key.slice(4).split(".") as [string, string]
    const bytes = Buffer.from(p, "base64url")
    const sig = Buffer.from(s, "base64url")
    for (let i = 0; i < bytes.length; i += 7) {
      const t = Buffer.from(bytes)
      t[i] = t[i]! ^ 0x01
      const e = refused(`lic_${b64(t)}.${s}`)
      assert.strictEqual(e.code, "LICENCE_INVALID", `payload byte ${i}`)
    }
    // a byte that keeps the JSON valid: a later expiry (2027 → 2028) is refused by the signature
    const later = Buffer.from(bytes.toString("utf8").replace("2027", "2028"), "utf8")
    assert.include(refused(`lic_${b64(later)}.${s}`).message, "signature does not match")
    for (let i = 0; i < sig.length; i += 5) {
      const t = Buffer.from(sig)
      t[i] = t[i]! ^ 0x80
      const e = refused(`lic_${p}.${b64(t)}`)
      assert.strictEqual(e.code, "LICENCE_INVALID", `signature byte ${i}`)
      assert.include(e.message, "signature does not match")
    }
  })

  it("LICENCE_INVALID when no portal key is pinned", () => {
    const e = refused(issueLicence(payload, privateKey), { ...ctx, publicKey: null })
    assert.strictEqual(e.code, "LICENCE_INVALID")
    assert.include(e.message, "not pinned")
  })

  it("LICENCE_TENANT_MISMATCH for another claim's licence (checked before expiry)", () => {
    const e = refused(issueLicence(payload, privateKey), { ...ctx, claimId: "cl_other", now: new Date("2030-01-01") })
    assert.strictEqual(e.code, "LICENCE_TENANT_MISMATCH")
    assert.include(e.message, "cl_abc")
    assert.include(e.message, "cl_other")
  })

  it("LICENCE_EXPIRED at and after the expiry (checked before revocation)", () => {
    const key = issueLicence(payload, privateKey)
    for (const now of ["2027-01-01T00:00:00.000Z", "2028-01-01T00:00:00.000Z"]) {
      const e = refused(key, { ...ctx, now: new Date(now), revoked: new Set([payload.id]) })
      assert.strictEqual(e.code, "LICENCE_EXPIRED")
      assert.include(e.message, payload.expiresAt)
    }
    assert.isTrue(Either.isRight(checkLicence(key, { ...ctx, now: new Date("2026-12-31T23:59:59.999Z") })))
  })

  it("LICENCE_REVOKED when its id is in the revocation list", () => {
    const e = refused(issueLicence(payload, privateKey), { ...ctx, revoked: new Set(["li_else", payload.id]) })
    assert.strictEqual(e.code, "LICENCE_REVOKED")
    assert.include(e.message, payload.id)
  })

  it("licenceState: active, expired, revoked", () => {
    const now = new Date("2026-06-01T00:00:00.000Z")
    assert.strictEqual(licenceState({ expiresAt: "2027-01-01T00:00:00.000Z", revokedAt: null }, now), "active")
    assert.strictEqual(licenceState({ expiresAt: "2026-01-01T00:00:00.000Z", revokedAt: null }, now), "expired")
    assert.strictEqual(
      licenceState({ expiresAt: "2027-01-01T00:00:00.000Z", revokedAt: "2026-02-01T00:00:00.000Z" }, now),
      "revoked"
    )
  })
})
