/**
 * The record's seal on this machine (issue 12, parts 4 and 6): a seal pulled from the portal (the answer
 * to `catalog verify`, or `catalog seal pull` for a seal made on the claim page) is checked against the
 * portal key PINNED on this machine (`verifySealBundle`: every signature, SHA-256 and the signed
 * manifest); only then are its files written to `.catalog/sealed/<sealId>/` — each artifact's bytes,
 * `<name>.sig` (the raw 64-byte Ed25519 signature) and `signing-key.pem` (the pinned key) — built in a
 * staging folder and renamed into place, and its row stored with the change-log entry `seal.sealed`.
 * Any mismatch is SEAL_PULL_FAILED naming the artifact, and nothing is stored.
 *
 * The state every read surface shows (`sealStateOf`): sealed while the licence's expiry is in the future;
 * after it the record is a draft again (reason LICENCE_EXPIRED) and `last` keeps what was signed.
 */
import { DateTime, Effect, Either } from "effect"
import { createHash, createPublicKey, type KeyObject } from "node:crypto"
import * as path from "node:path"
import type { Activity } from "../domain/Compliance.js"
import {
  type AcknowledgedCall,
  type LicenceInfo,
  type SealBundle,
  sealedDirName,
  type SealState
} from "../domain/Sync.js"
import { type CatalogErrorShape, SealPullFailed } from "../errors/index.js"
import { actor, AppEnv, dataDir } from "./AppEnv.js"
import { Files } from "./Files.js"
import { PortalClient, type SyncRequest } from "./PortalClient.js"
import { PortalKey } from "./PortalKey.js"
import { type VerifiedSeal, verifySealBundle } from "./SealPull.js"
import { type SealRow, Store, StoreReader } from "./Store.js"

/** Change-log kinds of the seal (entity: the seal id). */
export const sealSealedKind = "seal.sealed"
export const sealLapsedKind = "seal.lapsed"

/** Every legal field of the RoPA not confirmed (suggested), or confirmed but needing review: the open calls. */
export const openLegalCalls = (
  activities: ReadonlyArray<Activity>
): ReadonlyArray<typeof AcknowledgedCall.Type> =>
  activities.flatMap((a) =>
    Object.values(a.legal).flatMap((f) =>
      f.status !== "confirmed"
        ? [{ activity: a.name, field: f.field, status: f.status }]
        : f.needsReview
        ? [{ activity: a.name, field: f.field, status: "needs review" }]
        : []
    )
  )

/** The seal a stored row describes, as read surfaces show it at `now`. */
export const sealStateOf = (row: SealRow | null, now: Date): SealState => {
  if (row === null) return { state: "draft", last: null, reason: null }
  const expired = !(Date.parse(row.licence_expires_at) > now.getTime())
  const acknowledged = JSON.parse(row.acknowledged) as ReadonlyArray<typeof AcknowledgedCall.Type>
  return {
    state: expired ? "draft" : "sealed",
    last: {
      id: row.id,
      sealedAt: row.sealed_at,
      signer: { name: row.signer_name, role: row.signer_role, email: row.signer_email },
      termsVersion: row.terms_version,
      acknowledgedOpenCalls: acknowledged,
      licence: {
        id: row.licence_id,
        claimId: row.claim_id,
        issuedAt: row.licence_issued_at,
        expiresAt: row.licence_expires_at,
        state: expired ? "expired" : "active"
      }
    },
    reason: expired ? "LICENCE_EXPIRED" : null
  }
}

const noPinnedKey = () =>
  new SealPullFailed({
    message: "No portal key is pinned on this machine, so a seal cannot be verified. Nothing was stored.",
    fix: "Run `catalog push` once (it pins the portal's signing key), then pull the seal again."
  })

/** The pinned key as a KeyObject (SEAL_PULL_FAILED when none is pinned or it is not an Ed25519 key). */
const pinnedKey = Effect.gen(function*() {
  const pem = yield* (yield* PortalKey).pinned.pipe(
    Effect.mapError((e) =>
      new SealPullFailed({ message: `${e.message} Nothing was stored.`, ...(e.fix !== null ? { fix: e.fix } : {}) })
    )
  )
  if (pem === null) return yield* noPinnedKey()
  let key: KeyObject | null = null
  try {
    key = createPublicKey(pem)
  } catch {
    key = null
  }
  if (key === null || key.asymmetricKeyType !== "ed25519") {
    return yield* new SealPullFailed({
      message: "The pinned portal key is not an Ed25519 public key (PEM). Nothing was stored.",
      fix: "Remove .catalog/portal-signing-key.pem and run `catalog push` to pin the portal's key again."
    })
  }
  return { pem, key }
})

export interface StoredSeal {
  readonly sealId: string
  readonly claimId: string
  readonly dir: string
  readonly artifacts: ReadonlyArray<string>
  /** False when this seal was stored already (nothing written again). */
  readonly inserted: boolean
  readonly row: SealRow
}

/**
 * Verifies `bundle` against the pinned key, then writes its files and row. `licence` is the licence the
 * seal was made under (the manifest names its id; a different one is SEAL_PULL_FAILED).
 */
export const storeSeal = (bundle: SealBundle, licence: LicenceInfo) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const files = yield* Files
    const store = yield* Store
    const { key, pem } = yield* pinnedKey
    const verified: VerifiedSeal = yield* Either.match(verifySealBundle(bundle, key), {
      onLeft: (e) => Effect.fail(e),
      onRight: (v) => Effect.succeed(v)
    })
    const m = verified.manifest
    if (m.licenceId !== licence.id) {
      return yield* new SealPullFailed({
        message:
          `The seal ${m.sealId} names licence ${m.licenceId}, not ${licence.id} as the portal reported. Nothing was stored.`,
        fix: "Pull again (`catalog seal pull`); if it persists, tell the portal's operator.",
        param: "manifest.json"
      })
    }
    const dir = path.join(dataDir(env), sealedDirName, m.sealId)
    const existing = yield* (yield* StoreReader).seal(m.sealId).pipe(Effect.orDie)
    const manifestFile = verified.artifacts.find((a) => a.name === "manifest.json")!
    const row: SealRow = {
      id: m.sealId,
      claim_id: m.claimId,
      sealed_at: m.sealedAt,
      signer_name: m.signer.name,
      signer_role: m.signer.role,
      signer_email: m.signer.email,
      terms_version: m.termsVersion,
      acknowledged: JSON.stringify(m.acknowledgedOpenCalls),
      licence_id: licence.id,
      licence_issued_at: licence.issuedAt,
      licence_expires_at: licence.expiresAt,
      dir,
      manifest_sha256: createHash("sha256").update(manifestFile.bytes).digest("hex"),
      stored_at: DateTime.formatIso(yield* DateTime.now)
    }
    const names = verified.artifacts.map((a) => a.name)
    if (existing !== null) {
      return { sealId: m.sealId, claimId: m.claimId, dir, artifacts: names, inserted: false, row: existing }
    }
    const writeFailed = (reason: string) =>
      new SealPullFailed({
        message: `The verified seal could not be written under ${dir} (${reason}). Nothing was stored.`,
        fix: "Check that the catalog folder is writable (CATALOG_DATA), then pull again with `catalog seal pull`."
      })
    yield* files.ensurePrivateDir(path.dirname(dir)).pipe(Effect.mapError((e) => writeFailed(e.reason)))
    const staging = yield* files.stagingFolder(dir).pipe(Effect.mapError((e) => writeFailed(e.reason)))
    yield* Effect.gen(function*() {
      for (const a of verified.artifacts) {
        yield* files.writePrivateFile(path.join(staging, a.name), a.bytes)
        yield* files.writePrivateFile(path.join(staging, `${a.name}.sig`), a.signature)
      }
      yield* files.writePrivateFile(path.join(staging, "signing-key.pem"), pem)
      yield* files.moveFolderInto(staging, dir)
    }).pipe(
      Effect.mapError((e) => writeFailed(e.reason)),
      Effect.tapError(() => Effect.ignore(files.remove(staging, { recursive: true })))
    )
    // The row, or nothing: files without their row are removed again (a later pull stores both).
    const result = yield* store.insertSeal(row, actor(env)).pipe(
      Effect.catchAll((e) =>
        Effect.zipRight(
          Effect.ignore(files.remove(dir, { recursive: true })),
          Effect.fail(writeFailed(`the catalog refused the seal's row: ${"message" in e ? e.message : String(e)}`))
        )
      )
    )
    return {
      sealId: m.sealId,
      claimId: m.claimId,
      dir,
      artifacts: names,
      inserted: result.inserted,
      row
    } satisfies StoredSeal
  })

/**
 * The change-log entry "unsealed: licence expired" (`seal.lapsed`), recorded the first time a writing
 * command (push, verify, seal pull) notices that the newest seal's licence expired. Read surfaces show
 * the lapse anyway (`sealStateOf`); this only records when it was first noticed.
 */
export const noteSealLapse = Effect.gen(function*() {
  const row = yield* (yield* StoreReader).latestSeal
  const now = yield* DateTime.now
  if (row === null || Date.parse(row.licence_expires_at) > DateTime.toEpochMillis(now)) return false
  return yield* (yield* Store).recordSealLapsed(
    { id: row.id, licenceId: row.licence_id, expiresAt: row.licence_expires_at },
    DateTime.formatIso(now)
  )
}).pipe(Effect.orDie)

/**
 * The newest seal's files as stored (for `evidence`): every file of `.catalog/sealed/<sealId>/`, or none
 * when the record was never sealed (or the folder is gone: the evidence then has no `sealed/`).
 */
export const sealedFiles = (sealId: string | null) =>
  Effect.gen(function*() {
    if (sealId === null || !/^seal_[A-Za-z0-9_-]{1,100}$/.test(sealId)) return []
    const dir = path.join(dataDir(yield* AppEnv), sealedDirName, sealId)
    const files = yield* Files
    const names = yield* files.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
    const out: Array<{ readonly name: string; readonly body: Uint8Array }> = []
    for (const name of [...names].sort()) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$/.test(name)) continue
      const p = path.join(dir, name)
      if ((yield* files.probe(p)).kind !== "file") continue
      out.push({ name, body: yield* files.readBytes(p).pipe(Effect.orDie) })
    }
    return out
  })

/**
 * After a push: when the portal reports a seal this machine has not stored (made on the claim page, or
 * by `verify` on another machine), pull it, verify it against the pinned key and store it. Never fails
 * the push: the outcome says what happened (`pulled`, `none`, or `failed` with the error's code).
 */
export const pullNewerSeal = (request: SyncRequest) =>
  Effect.gen(function*() {
    const client = yield* PortalClient
    const status = yield* client.syncStatus(request)
    const last = status.seal.last
    if (last === null) return { status: "none" as const, sealId: null }
    if ((yield* (yield* StoreReader).seal(last.id).pipe(Effect.orDie)) !== null) {
      return { status: "none" as const, sealId: last.id }
    }
    const bundle = yield* client.sealBundle(request)
    if (bundle.sealId !== last.id) return { status: "none" as const, sealId: null }
    const stored = yield* storeSeal(bundle, last.licence)
    return { status: "pulled" as const, sealId: stored.sealId }
  }).pipe(
    Effect.catchAll((e: CatalogErrorShape) =>
      Effect.succeed({ status: "failed" as const, sealId: null, error: { code: e.code, message: e.message } })
    )
  )
