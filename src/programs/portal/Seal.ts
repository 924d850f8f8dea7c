/**
 * The seal (issue 12, part 4): ONE function, `sealClaim`, used by both human paths — the claim page's
 * "Seal the record" form (a session of the claim) and POST /api/portal/v1/sync/seal (`catalog verify` on a
 * terminal: a paired machine's sync token and the licence key). The checks run in this order, each with
 * SPEC.md's code, and nothing is stored until all pass:
 *
 *   1. the licence: a licence for this claim, active — LICENCE_MISSING / LICENCE_INVALID /
 *      LICENCE_TENANT_MISMATCH / LICENCE_EXPIRED / LICENCE_REVOKED (`checkLicence` for a key; the claim's
 *      newest licence in the portal's store for the page);
 *   2. the snapshot (verify only): the one the human saw must be the claim's newest (INVALID_PARAM
 *      `snapshotSha256`: push, look again, then verify);
 *   3. TERMS_NOT_ACCEPTED — only when the portal sets CATALOG_TOS_VERSION; the accepted version must equal it
 *      and is recorded;
 *   4. CONTROLLER_REQUIRED — controller name and contact (the claim page's fill over the snapshot's);
 *   5. SIGNER_NAME_REQUIRED — signer name and role;
 *   6. OPEN_LEGAL_CALLS — a legal field of the snapshot's RoPA not confirmed (or confirmed and needing
 *      review), unless acknowledged: then it seals and records the list.
 *
 * Then the artifacts, each signed with the portal's Ed25519 key (a detached signature over the exact
 * bytes): `ropa.json` (the official RoPA: the snapshot's RoPA, the controller and the seal block),
 * `ropa.html` (the claim page's official variant: printable, no script), `dora.json` (when DORA is in
 * scope) and `manifest.json` (SealManifest: every other artifact's name, bytes and SHA-256, the signer, the
 * time, the terms version, the acknowledgments, the licence and the snapshot), stored in one transaction.
 */
import { Effect, Either, Schema } from "effect"
import { createHash, createPublicKey, sign } from "node:crypto"
import { Snapshot } from "../../domain/Snapshot.js"
import {
  type LicenceInfo,
  type SealBundle,
  type SealedArtifact,
  sealIdPrefix,
  type SealManifest,
  SealManifest as SealManifestSchema,
  type SealState
} from "../../domain/Sync.js"
import {
  ControllerRequired,
  InvalidParam,
  LicenceExpired,
  LicenceMissing,
  LicenceRevoked,
  OpenLegalCalls,
  PortalNotInstalled,
  SignerNameRequired,
  TermsNotAccepted
} from "../../errors/index.js"
import { checkLicence, type LicenceError, licenceState } from "../../services/Licence.js"
import { LicenceStore } from "../../services/portal/LicenceStore.js"
import { type SealRecord, SealStore } from "../../services/portal/SealStore.js"
import { type ClaimRecord, PortalStore, type PortalStoreError } from "../../services/PortalStore.js"
import { openLegalCalls } from "../../services/Seals.js"
import { officialStampText, renderClaimPage } from "./ClaimPage.js"
import { nowIso, nowMillis, officialInThisBuild, PortalContext, randomToken } from "./Context.js"

/** A licence as the portal's licence store keeps it (no key material). */
export interface PortalLicence {
  readonly id: string
  readonly claimId: string
  readonly issuedAt: string
  readonly expiresAt: string
  readonly revokedAt: string | null
}

/** What the seal reads of the portal's licences. */
export interface PortalLicences {
  /** The claim's licences, newest first. */
  readonly byClaim: (claimId: string) => Effect.Effect<ReadonlyArray<PortalLicence>, PortalStoreError>
  readonly revokedIds: Effect.Effect<ReadonlyArray<string>, PortalStoreError>
}

export interface SealAttempt {
  readonly via: "claim-page" | "verify"
  /** The licence key (`catalog verify`); null on the claim page (the claim's licence in the portal's store). */
  readonly licenceKey: string | null
  readonly acceptedTerms: string | null
  readonly signer: { readonly name: string | null; readonly role: string | null; readonly email: string | null }
  readonly acknowledgeOpenCalls: boolean
  /** The snapshot the human saw (verify); null on the claim page (it shows the newest). */
  readonly snapshotSha256: string | null
}

export type SealError =
  | PortalNotInstalled
  | LicenceError
  | InvalidParam
  | TermsNotAccepted
  | ControllerRequired
  | SignerNameRequired
  | OpenLegalCalls

export const sealArtifactNames = {
  ropaJson: "ropa.json",
  ropaHtml: "ropa.html",
  doraJson: "dora.json",
  manifest: "manifest.json"
} as const

const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

const clean = (v: string | null | undefined, cap = 200): string | null => {
  const t = (v ?? "").replace(/\s+/g, " ").trim().slice(0, cap)
  return t === "" ? null : t
}

/** The open calls: one definition for the portal and `catalog verify` (services/Seals.ts). */
export { openLegalCalls }

/** The controller the seal uses: each field filled on the claim page wins over the snapshot's. */
export const controllerOf = (claim: ClaimRecord, snapshot: Snapshot) => {
  const base = snapshot.controller ?? snapshot.ropa.controller
  const filled = claim.controllerUpdatedAt !== null
  return {
    name: clean((filled ? claim.controllerName : null) ?? base?.name ?? null, 500),
    contact: clean((filled ? claim.controllerContact : null) ?? base?.contact ?? null, 500)
  }
}

/** The claim's licence state for the claim page: the active one, else why none is. */
const licenceFromStore = (
  claimId: string,
  licences: ReadonlyArray<PortalLicence>,
  now: Date
): Either.Either<LicenceInfo, LicenceError> => {
  const active = licences.find((l) => licenceState(l, now) === "active")
  if (active !== undefined) return Either.right({ ...active, state: "active" })
  const newest = licences[0]
  if (newest === undefined) {
    return Either.left(
      new LicenceMissing({
        message: `No licence was issued for this record (${claimId}): sealing needs one.`,
        fix:
          "Ask the portal's operator for a licence (`catalog admin licence issue <claimId>` after payment); it is mailed to the record's admin."
      })
    )
  }
  if (licenceState({ ...newest, revokedAt: null }, now) === "expired") {
    return Either.left(
      new LicenceExpired({
        message:
          `The record's licence ${newest.id} expired at ${newest.expiresAt}; the record is back to a draft for new changes (what was signed stays valid).`,
        fix: "Renew the licence with the portal's operator, then seal again."
      })
    )
  }
  return Either.left(
    new LicenceRevoked({
      message: `The record's licence ${newest.id} was revoked by the portal's operator.`,
      fix: "Ask the portal's operator about the licence, or for a new one."
    })
  )
}

/** The claim's licence for this attempt: the key's (verify) or the store's (claim page); step 1. */
export const licenceForSeal = (claim: ClaimRecord, attempt: SealAttempt, licences: PortalLicences) =>
  Effect.gen(function*() {
    const { settings } = yield* PortalContext
    const now = new Date(yield* nowMillis)
    if (attempt.via === "claim-page") {
      return yield* licenceFromStore(claim.id, yield* licences.byClaim(claim.id), now)
    }
    const revoked = new Set(yield* licences.revokedIds)
    const payload = yield* checkLicence(attempt.licenceKey ?? undefined, {
      publicKey: createPublicKey(settings.signingKey.privateKey),
      claimId: claim.id,
      now,
      revoked
    })
    const info: LicenceInfo = {
      id: payload.id,
      claimId: payload.claimId,
      issuedAt: payload.issuedAt,
      expiresAt: payload.expiresAt,
      state: "active"
    }
    return info
  })

/** The seal's checks 2–6 over the claim's newest snapshot (see the module comment for the order). */
export const checkSeal = (
  claim: ClaimRecord,
  snapshot: Snapshot,
  attempt: SealAttempt,
  termsVersion: string | null
) =>
  Effect.gen(function*() {
    if (attempt.snapshotSha256 !== null && attempt.snapshotSha256 !== claim.sha256) {
      return yield* new InvalidParam({
        message:
          "The draft you reviewed is not the record's newest on the portal (another upload came in since); nothing was sealed.",
        fix:
          "Review the newest draft — reload the claim page, or run `catalog push` and `catalog annotate list` — then seal again (the page, or `catalog verify`).",
        param: "snapshotSha256"
      })
    }
    if (termsVersion !== null && clean(attempt.acceptedTerms) !== termsVersion) {
      return yield* new TermsNotAccepted({
        message: attempt.acceptedTerms === null || clean(attempt.acceptedTerms) === null
          ? `Sealing needs acceptance of the customer agreement (version ${termsVersion}).`
          : `The accepted agreement version (${
            clean(attempt.acceptedTerms)
          }) is not the portal's current one (${termsVersion}).`,
        fix:
          `Accept the customer agreement version ${termsVersion} (the claim page's checkbox, or the prompt of \`catalog verify\`).`,
        param: "acceptedTerms",
        details: { termsVersion }
      })
    }
    const controller = controllerOf(claim, snapshot)
    if (controller.name === null || controller.contact === null) {
      const missing = [controller.name === null ? "name" : null, controller.contact === null ? "contact" : null]
        .filter((m): m is string => m !== null)
      return yield* new ControllerRequired({
        message: `The controller's ${missing.join(" and ")} ${
          missing.length > 1 ? "are" : "is"
        } missing; a RoPA names its controller (Art. 30(1)(a)).`,
        fix:
          "Complete the Controller block on the claim page, or set controller.name and controller.contact in catalog.yml and push.",
        details: { missing }
      })
    }
    const name = clean(attempt.signer.name)
    const role = clean(attempt.signer.role)
    if (name === null || role === null) {
      return yield* new SignerNameRequired({
        message: `Sealing needs the signer's ${
          [name === null ? "name" : null, role === null ? "role" : null].filter((x) => x !== null).join(" and ")
        }: a person signs, not an address.`,
        fix: attempt.via === "verify"
          ? "Set CATALOG_SIGNER_NAME and CATALOG_SIGNER_ROLE (and CATALOG_SIGNER_EMAIL if you like), then run `catalog verify` again."
          : "Fill in your name and role in the Seal form.",
        param: name === null ? "signer.name" : "signer.role"
      })
    }
    const open = openLegalCalls(snapshot.ropa.activities)
    if (open.length > 0 && !attempt.acknowledgeOpenCalls) {
      return yield* new OpenLegalCalls({
        message: `${open.length} legal call${open.length === 1 ? " is" : "s are"} still open: ${
          open.slice(0, 10).map((c) => `${c.activity} — ${c.field} (${c.status})`).join("; ")
        }${open.length > 10 ? "; …" : ""}.`,
        fix: attempt.via === "verify"
          ? "Confirm them with `catalog annotate set … --confirm` and push, or run `catalog verify --seal-with-open-calls` to seal with them open (recorded)."
          : "Confirm them on the machine (`catalog annotate set … --confirm`) and push, or tick “Seal with these calls open (recorded)”.",
        details: { openCalls: open }
      })
    }
    return {
      controller: { name: controller.name, contact: controller.contact },
      signer: { name, role, email: clean(attempt.signer.email, 254) },
      termsVersion,
      acknowledged: attempt.acknowledgeOpenCalls ? open : []
    }
  })

const jsonBytes = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8")

/** PORTAL_NOT_INSTALLED: this build has no official export and attestation (the free build). */
export const sealNotInstalled = () =>
  new PortalNotInstalled({
    message:
      "Sealing (the official export and attestation) is the paid step and is not installed in this build of the portal; nothing was sealed."
  })

/** A push, a re-invite or a removal came in while sealing: nothing is stored, the human looks again. */
const draftMoved = () =>
  new InvalidParam({
    message:
      "The record's draft changed while it was being sealed (a newer upload, a re-invite or a removal came in); nothing was sealed.",
    fix:
      "Review the newest draft — reload the claim page, or run `catalog push` and `catalog annotate list` — then seal again (the page, or `catalog verify`).",
    param: "snapshotSha256"
  })

/**
 * Seals the claim's newest snapshot (checks in order; see the module comment) and stores the signed
 * artifacts; answers the bundle. Before any check: PORTAL_NOT_INSTALLED when this build has no official
 * export (src/edition.ts; a test injects the flag through PortalContext.officialInstalled).
 */
export const sealClaim = (claim: ClaimRecord, attempt: SealAttempt, licences: PortalLicences) =>
  Effect.gen(function*() {
    if (!(yield* officialInThisBuild)) return yield* sealNotInstalled()
    const { settings } = yield* PortalContext
    const store = yield* PortalStore
    const seals = yield* SealStore
    const licence = yield* licenceForSeal(claim, attempt, licences)
    const body = yield* store.snapshotOf(claim.id)
    if (body === null) return yield* Effect.dieMessage(`claim ${claim.id} is live without a snapshot`)
    const snapshot = yield* Schema.decodeUnknown(Schema.parseJson(Snapshot))(body).pipe(Effect.orDie)
    const ok = yield* checkSeal(claim, snapshot, attempt, settings.termsVersion)

    const sealId = `${sealIdPrefix}${randomToken(12)}`
    const sealedAt = yield* nowIso
    // The hash of exactly the body that is rendered and signed (not the claim's, read earlier).
    const snapshotSha256 = sha256Hex(Buffer.from(body, "utf8"))
    if (claim.sha256 !== null && claim.sha256 !== snapshotSha256) return yield* draftMoved()
    const sealBlock = {
      id: sealId,
      claimId: claim.id,
      sealedAt,
      signer: ok.signer,
      termsVersion: ok.termsVersion,
      acknowledgedOpenCalls: ok.acknowledged,
      licenceId: licence.id,
      snapshotSha256
    }
    const official = {
      sealId,
      sealedAt,
      signerName: ok.signer.name,
      signerRole: ok.signer.role,
      termsVersion: ok.termsVersion,
      licenceId: licence.id,
      acknowledgedOpenCalls: ok.acknowledged
    }
    const stampText = officialStampText(official)
    const officialRopa = {
      format: "local-data-catalog/official-ropa",
      version: 1,
      ...snapshot.ropa,
      seal: "sealed",
      stamp: stampText,
      controller: ok.controller,
      sealInfo: sealBlock
    }
    const officialSnapshot: Snapshot = {
      ...snapshot,
      controller: ok.controller,
      status: { ...snapshot.status, seal: "sealed" },
      ropa: { ...snapshot.ropa, seal: "sealed", stamp: stampText, controller: ok.controller },
      provenance: { ...snapshot.provenance, seal: "sealed", stamp: stampText }
    }
    const files: Array<{ readonly name: string; readonly mediaType: string; readonly bytes: Buffer }> = [
      { name: sealArtifactNames.ropaJson, mediaType: "application/json", bytes: jsonBytes(officialRopa) },
      {
        name: sealArtifactNames.ropaHtml,
        mediaType: "text/html; charset=utf-8",
        bytes: Buffer.from(
          renderClaimPage(officialSnapshot, {
            mode: "portal",
            claim: null,
            controller: null,
            controllerForm: null,
            notice: null,
            official
          }),
          "utf8"
        )
      }
    ]
    if (snapshot.dora.inScope) {
      files.push({
        name: sealArtifactNames.doraJson,
        mediaType: "application/json",
        bytes: jsonBytes({
          format: "local-data-catalog/official-dora",
          version: 1,
          stamp: stampText,
          register: snapshot.dora.register,
          sealInfo: sealBlock
        })
      })
    }
    const manifest: SealManifest = {
      format: "local-data-catalog/seal",
      version: 1,
      sealId,
      claimId: claim.id,
      sealedAt,
      signer: ok.signer,
      termsVersion: ok.termsVersion,
      acknowledgedOpenCalls: ok.acknowledged,
      licenceId: licence.id,
      snapshotSha256,
      artifacts: files.map((f) => ({ name: f.name, bytes: f.bytes.length, sha256: sha256Hex(f.bytes) }))
    }
    files.push({
      name: sealArtifactNames.manifest,
      mediaType: "application/json",
      bytes: jsonBytes(Schema.encodeSync(SealManifestSchema)(manifest))
    })
    const key = settings.signingKey.privateKey
    const artifacts: ReadonlyArray<SealedArtifact> = files.map((f) => ({
      name: f.name,
      mediaType: f.mediaType,
      sha256: sha256Hex(f.bytes),
      content: f.bytes.toString("base64"),
      signature: sign(null, f.bytes, key).toString("base64")
    }))
    const record: SealRecord = {
      id: sealId,
      claimId: claim.id,
      sealedAt,
      signer: ok.signer,
      termsVersion: ok.termsVersion,
      acknowledgedOpenCalls: ok.acknowledged,
      licence: { id: licence.id, issuedAt: licence.issuedAt, expiresAt: licence.expiresAt },
      snapshotSha256,
      via: attempt.via
    }
    if (!(yield* seals.save(record, artifacts))) return yield* draftMoved()
    const bundle: SealBundle = { sealId, claimId: claim.id, sealedAt, artifacts }
    return bundle
  })

/** The claim's newest seal as a bundle, or null. */
export const latestBundle = (claimId: string) =>
  Effect.gen(function*() {
    const seals = yield* SealStore
    const seal = yield* seals.latest(claimId)
    if (seal === null) return null
    const bundle: SealBundle = {
      sealId: seal.id,
      claimId: seal.claimId,
      sealedAt: seal.sealedAt,
      artifacts: yield* seals.artifacts(seal.id)
    }
    return { seal, bundle }
  })

/**
 * The record's seal as every surface shows it (GET sync, the claim page): `sealed` while the licence it was
 * sealed under is active; after that licence expires (or is revoked) the record is a `draft` again for new
 * changes, with the reason (LICENCE_EXPIRED, LICENCE_REVOKED) and `last` kept: what was signed stays valid.
 */
export const sealStateOf = (claimId: string) =>
  Effect.gen(function*() {
    const seal = yield* (yield* SealStore).latest(claimId)
    if (seal === null) {
      const draft: SealState = { state: "draft", last: null, reason: null }
      return draft
    }
    const stored = yield* (yield* LicenceStore).get(seal.licence.id)
    const now = new Date(yield* nowMillis)
    const licenceNow = licenceState(
      { expiresAt: stored?.expiresAt ?? seal.licence.expiresAt, revokedAt: stored?.revokedAt ?? null },
      now
    )
    const last: NonNullable<SealState["last"]> = {
      id: seal.id,
      sealedAt: seal.sealedAt,
      signer: seal.signer,
      termsVersion: seal.termsVersion,
      acknowledgedOpenCalls: seal.acknowledgedOpenCalls,
      licence: {
        id: seal.licence.id,
        claimId,
        issuedAt: seal.licence.issuedAt,
        expiresAt: stored?.expiresAt ?? seal.licence.expiresAt,
        state: licenceNow
      }
    }
    const state: SealState = licenceNow === "active"
      ? { state: "sealed", last, reason: null }
      : { state: "draft", last, reason: licenceNow === "expired" ? "LICENCE_EXPIRED" : "LICENCE_REVOKED" }
    return state
  })
