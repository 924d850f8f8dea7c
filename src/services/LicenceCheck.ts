/**
 * The machine's licence check (what `catalog verify` runs before it seals): CATALOG_LICENCE_KEY from the
 * environment, checked offline against the pinned portal key (`.catalog/portal-signing-key.pem`) and the
 * paired claim, then online against the portal's public revocation list.
 *
 * Order (as `checkLicence`): LICENCE_MISSING (before any I/O), LICENCE_INVALID, LICENCE_TENANT_MISMATCH,
 * LICENCE_EXPIRED (all offline), then the revocation list → LICENCE_REVOKED.
 *
 * When the revocation list cannot be fetched, the offline checks still stand and the caller chooses:
 * `"refuse"` → SYNC_FAILED (what sealing uses: a seal must never be made with a licence that may be
 * revoked), `"warn"` → the licence is answered with `revocation.checked: false` and the reason (for a
 * read-only status line such as `doctor`).
 */
import { DateTime, Effect, Either } from "effect"
import { createPublicKey, type KeyObject } from "node:crypto"
import type { LicenceInfo, LicencePayload } from "../domain/Sync.js"
import { LicenceInvalid, SyncFailed } from "../errors/index.js"
import { AppEnv } from "./AppEnv.js"
import { checkLicence, type LicenceError, licenceMissing } from "./Licence.js"
import { PortalClient } from "./PortalClient.js"
import { PortalKey } from "./PortalKey.js"

export const licenceKeyVar = "CATALOG_LICENCE_KEY"

export interface MachineLicenceInput {
  /** The claim this machine is paired with (GET /api/portal/v1/sync answers it). */
  readonly claimId: string
  /** The portal's base address (CATALOG_PORTAL_URL), for the revocation list. */
  readonly portalUrl: string
  /** What an unreachable revocation list means: SYNC_FAILED (`refuse`, for sealing) or a flagged answer (`warn`). */
  readonly onRevocationUnavailable: "refuse" | "warn"
}

export interface MachineLicence {
  readonly payload: LicencePayload
  /** As read surfaces show it (no key material). */
  readonly info: LicenceInfo
  /** Whether the revocation list was consulted: when, or why not (`warn` only). */
  readonly revocation:
    | { readonly checked: true; readonly at: string }
    | { readonly checked: false; readonly reason: string }
}

export type MachineLicenceError = LicenceError | SyncFailed

/**
 * The pinned portal key (PortalKey.pinned, `.catalog/portal-signing-key.pem`; null when none is pinned
 * yet). A file that cannot be read or is not an Ed25519 public key is LICENCE_INVALID naming it.
 */
export const readPinnedPortalKeyFile = (): Effect.Effect<KeyObject | null, LicenceInvalid, PortalKey> =>
  Effect.gen(function*() {
    const portalKey = yield* PortalKey
    const refit =
      `Remove ${portalKey.file} and run \`catalog push\` or \`catalog doctor\` once to pin the portal's key again.`
    const text = yield* portalKey.pinned.pipe(
      Effect.mapError((e) =>
        new LicenceInvalid({
          message: `${e.message} The licence cannot be checked.`,
          fix: refit,
          param: licenceKeyVar
        })
      )
    )
    if (text === null) return null
    try {
      const key = createPublicKey(text)
      if (key.asymmetricKeyType === "ed25519") return key
    } catch {
      // not a PEM public key: refused below
    }
    return yield* new LicenceInvalid({
      message:
        `The pinned portal key ${portalKey.file} is not an Ed25519 public key (PEM), so the licence cannot be checked.`,
      fix: refit,
      param: licenceKeyVar
    })
  })

/** The machine's licence check (see the module comment for the order and the unreachable-list choice). */
export const verifyMachineLicence = (
  input: MachineLicenceInput
): Effect.Effect<MachineLicence, MachineLicenceError, AppEnv | PortalKey | PortalClient> =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const key = env.env[licenceKeyVar]
    // Before any file or network: the one thing the human must do first.
    if (key === undefined || key.trim() === "") return yield* Effect.fail(licenceMissing())
    const publicKey = yield* readPinnedPortalKeyFile()
    const now = new Date(DateTime.toEpochMillis(yield* DateTime.now))
    const ctx = { publicKey, claimId: input.claimId, now }
    const offline = checkLicence(key, { ...ctx, revoked: null })
    if (Either.isLeft(offline)) return yield* Effect.fail(offline.left)
    const payload = offline.right
    const info: LicenceInfo = {
      id: payload.id,
      claimId: payload.claimId,
      issuedAt: payload.issuedAt,
      expiresAt: payload.expiresAt,
      state: "active"
    }
    const list = yield* Effect.either((yield* PortalClient).revokedLicences({ portalUrl: input.portalUrl }))
    if (Either.isLeft(list)) {
      const reason = list.left.message
      if (input.onRevocationUnavailable === "refuse") {
        return yield* new SyncFailed({
          message:
            `The licence ${payload.id} passes the offline checks, but the portal's revocation list could not be fetched, and nothing is sealed with a licence that may be revoked. ${reason}`,
          fix: `Check CATALOG_PORTAL_URL (${input.portalUrl}) and the network, then run it again.`
        })
      }
      const unchecked: MachineLicence = { payload, info, revocation: { checked: false, reason } }
      return unchecked
    }
    const online = checkLicence(key, { ...ctx, revoked: new Set(list.right.revoked) })
    if (Either.isLeft(online)) return yield* Effect.fail(online.left)
    const checked: MachineLicence = { payload, info, revocation: { checked: true, at: list.right.at } }
    return checked
  })
