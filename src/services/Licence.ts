/**
 * Licence keys (CATALOG_LICENCE_KEY): a payload signed with the portal's Ed25519 key, checked offline.
 *
 *   lic_<base64url(JSON payload bytes)>.<base64url(Ed25519 signature over exactly those JSON bytes)>
 *
 * The signature covers the JSON bytes as they travel (never a re-serialisation), so the check needs no
 * canonical form: decode the first part, verify the signature over those bytes, then parse them.
 *
 * `checkLicence` is pure (the time, the pinned key, the paired claim and the revocation list are its
 * inputs) and decides in this order: missing → LICENCE_MISSING; malformed or not signed by the pinned key →
 * LICENCE_INVALID (saying which, never echoing the key); another claim → LICENCE_TENANT_MISMATCH; past its
 * expiry → LICENCE_EXPIRED; in the revocation list → LICENCE_REVOKED.
 */
import { Either, Schema } from "effect"
import { type KeyObject, sign, verify } from "node:crypto"
import { claimTokenPrefix } from "../domain/Portal.js"
import { licenceKeyPrefix, LicencePayload, syncTokenPrefix } from "../domain/Sync.js"
import {
  LicenceExpired,
  LicenceInvalid,
  LicenceMissing,
  LicenceRevoked,
  LicenceTenantMismatch
} from "../errors/index.js"

export type LicenceError = LicenceMissing | LicenceInvalid | LicenceTenantMismatch | LicenceExpired | LicenceRevoked

export interface LicenceContext {
  /** The portal's public key as this machine pinned it; null when none is pinned (nothing can be verified). */
  readonly publicKey: KeyObject | null
  /** The claim this machine is paired with; null skips the tenant check (e.g. the portal checks its own claim). */
  readonly claimId: string | null
  readonly now: Date
  /** Revoked licence ids; null when the list could not be fetched (the caller says so). */
  readonly revoked: ReadonlySet<string> | null
}

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

/** Strict base64url (no padding, only the URL-safe alphabet): Buffer.from would skip stray characters. */
const base64urlPattern = /^[A-Za-z0-9_-]+$/
const fromBase64url = (text: string): Buffer | null =>
  base64urlPattern.test(text) && text.length % 4 !== 1 ? Buffer.from(text, "base64url") : null

/** A licence key for `payload`, signed with the portal's Ed25519 private key. */
export const issueLicence = (payload: LicencePayload, privateKey: KeyObject): string => {
  const bytes = Buffer.from(JSON.stringify(Schema.encodeSync(LicencePayload)(payload)), "utf8")
  const signature = sign(null, bytes, privateKey)
  return `${licenceKeyPrefix}${base64url(bytes)}.${base64url(signature)}`
}

const invalid = (why: string, fix?: string): LicenceInvalid =>
  new LicenceInvalid({
    message: `CATALOG_LICENCE_KEY is not a valid licence key: ${why}.`,
    ...(fix === undefined ? {} : { fix }),
    param: "CATALOG_LICENCE_KEY"
  })

const decodePayload = Schema.decodeUnknownEither(LicencePayload, { onExcessProperty: "error" })

/** An ISO date-time that parses; NaN otherwise. */
const instant = (iso: string): number => {
  const t = Date.parse(iso)
  return Number.isNaN(t) ? Number.NaN : t
}

/** Check a licence key offline (see the module comment for the order); never echoes the key. */
export const checkLicence = (
  key: string | undefined,
  ctx: LicenceContext
): Either.Either<LicencePayload, LicenceError> => {
  const given = key?.trim() ?? ""
  if (given === "") {
    return Either.left(
      new LicenceMissing({
        message: "CATALOG_LICENCE_KEY is not set: sealing needs the licence key from the unlock e-mail.",
        param: "CATALOG_LICENCE_KEY"
      })
    )
  }
  if (given.startsWith(syncTokenPrefix)) {
    return Either.left(
      invalid(
        `it looks like a sync token (${syncTokenPrefix}…), which pairs a machine; a licence key begins with ${licenceKeyPrefix}`,
        "Keep the sync token in CATALOG_SYNC_TOKEN, and set CATALOG_LICENCE_KEY to the key from the unlock e-mail."
      )
    )
  }
  if (given.startsWith(claimTokenPrefix)) {
    return Either.left(
      invalid(
        `it looks like a claim token (${claimTokenPrefix}…, from the claim link); a licence key begins with ${licenceKeyPrefix}`,
        "Set CATALOG_LICENCE_KEY to the key from the unlock e-mail, not the claim link."
      )
    )
  }
  if (!given.startsWith(licenceKeyPrefix)) {
    return Either.left(invalid(`it does not begin with ${licenceKeyPrefix}`))
  }
  const parts = given.slice(licenceKeyPrefix.length).split(".")
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "") {
    return Either.left(invalid("it is not two parts joined by a dot (payload.signature); it may be cut short"))
  }
  const payloadBytes = fromBase64url(parts[0]!)
  const signature = fromBase64url(parts[1]!)
  if (payloadBytes === null || signature === null) {
    return Either.left(invalid("it is not base64url; it may have been altered when copied"))
  }
  let json: unknown
  try {
    json = JSON.parse(payloadBytes.toString("utf8"))
  } catch {
    return Either.left(invalid("its payload is not JSON"))
  }
  const decoded = decodePayload(json)
  if (Either.isLeft(decoded)) {
    return Either.left(invalid("its payload is not a licence (unknown version or missing fields)"))
  }
  const payload = decoded.right
  if (Number.isNaN(instant(payload.expiresAt)) || Number.isNaN(instant(payload.issuedAt))) {
    return Either.left(invalid("its dates are not ISO date-times"))
  }
  if (ctx.publicKey === null) {
    return Either.left(
      invalid(
        "the portal's public key is not pinned on this machine, so the signature cannot be checked",
        "Run `catalog push` or `catalog doctor` once with CATALOG_PORTAL_URL and CATALOG_SYNC_TOKEN set, to pin the portal's key."
      )
    )
  }
  let good = false
  try {
    good = verify(null, payloadBytes, ctx.publicKey, signature)
  } catch {
    good = false
  }
  if (!good) {
    return Either.left(
      invalid(
        "its signature does not match the portal's key (altered, or issued by another portal)"
      )
    )
  }
  if (ctx.claimId !== null && payload.claimId !== ctx.claimId) {
    return Either.left(
      new LicenceTenantMismatch({
        message:
          `The licence ${payload.id} was issued for the record ${payload.claimId}, not for ${ctx.claimId}, the record this machine is paired with.`,
        param: "CATALOG_LICENCE_KEY"
      })
    )
  }
  if (instant(payload.expiresAt) <= ctx.now.getTime()) {
    return Either.left(
      new LicenceExpired({
        message:
          `The licence ${payload.id} expired at ${payload.expiresAt}; the record is back to a draft for new changes (what was signed stays valid).`,
        param: "CATALOG_LICENCE_KEY"
      })
    )
  }
  if (ctx.revoked !== null && ctx.revoked.has(payload.id)) {
    return Either.left(
      new LicenceRevoked({
        message: `The licence ${payload.id} was revoked by the portal operator.`,
        param: "CATALOG_LICENCE_KEY"
      })
    )
  }
  return Either.right(payload)
}

/** The state a licence is in at `now` (for the claim page and `admin licence list`). */
export const licenceState = (
  licence: { readonly expiresAt: string; readonly revokedAt: string | null },
  now: Date
): "active" | "expired" | "revoked" =>
  licence.revokedAt !== null ? "revoked" : instant(licence.expiresAt) <= now.getTime() ? "expired" : "active"
