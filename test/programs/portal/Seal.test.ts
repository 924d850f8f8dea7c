/**
 * The seal function on both back ends (SQLite in a temporary folder, the real PostgreSQL in a uniquely
 * named database): every code in SPEC's order (licence → terms → controller → signer → open calls), the
 * acknowledgment and the terms version recorded, the artifacts stored whole and each signature verifying
 * with node:crypto and with the real `openssl` binary over the exact bytes; the manifest's SHA-256s.
 */
import type { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Either, Layer, Schema } from "effect"
import { execFileSync } from "node:child_process"
import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SealManifest } from "../../../src/domain/Sync.js"
import { portalSqlClient, portalStoreOnClient } from "../../../src/layers/portal/PortalSql.js"
import { PortalContext } from "../../../src/programs/portal/Context.js"
import { openLegalCalls, type SealAttempt, sealClaim } from "../../../src/programs/portal/Seal.js"
import { portalLicences } from "../../../src/programs/portal/SealRoutes.js"
import type { PortalSettings } from "../../../src/programs/portal/Settings.js"
import { issueLicence } from "../../../src/services/Licence.js"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { SealStore } from "../../../src/services/portal/SealStore.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"
import { sampleSnapshot } from "../../utils/snapshots.js"

const tempHome = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-seal-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const { privateKey } = generateKeyPairSync("ed25519")
const publicKey = createPublicKey(privateKey)
const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString()

const context = (termsVersion: string | null) =>
  Layer.succeed(PortalContext, {
    settings: {
      signingKey: { path: "/dev/null", privateKey, publicKeyPem },
      termsVersion
    } as unknown as PortalSettings,
    publicUrl: "http://127.0.0.1:1",
    log: () => undefined
  })

type Stores = PortalStore | LicenceStore | SealStore | SqlClient.SqlClient

const backends: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<Stores, unknown> }> = [
  {
    name: "sqlite",
    layer: Layer.unwrapScoped(Effect.map(tempHome, (home) =>
      portalStoreOnClient.pipe(
        Layer.provideMerge(portalSqlClient({ databaseUrl: null, home: path.join(home, "portal") }))
      )))
  },
  {
    name: "postgres",
    layer: Layer.unwrapScoped(
      Effect.map(
        makePgDatabase({ analyze: false }),
        (db) =>
          portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient({ databaseUrl: db.url, home: "/nonexistent" })))
      )
    )
  }
]

let n = 0
const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex")

/** A live claim with the sample snapshot (controller overridable), and optionally a licence. */
const claimWith = (options: {
  readonly controller?: { name: string | null; contact: string | null } | null
  readonly doraInScope?: boolean
  readonly licence?: "active" | "expired" | "revoked" | "none"
}) =>
  Effect.gen(function*() {
    const store = yield* PortalStore
    const licences = yield* LicenceStore
    const id = `cl_seal${Date.now().toString(36)}${n++}`
    const snapshot = sampleSnapshot({
      ...(options.controller !== undefined ? { controller: options.controller } : {}),
      doraInScope: options.doraInScope ?? false
    })
    const snap = options.controller !== undefined
      ? { ...snapshot, ropa: { ...snapshot.ropa, controller: options.controller } }
      : snapshot
    const body = JSON.stringify(snap)
    const { claim } = yield* store.ingest({
      claimId: id,
      tokenHash: sha(`t${id}`),
      recordKeyHash: sha(`r${id}`),
      recipient: "dpo@acme.example",
      unbound: false,
      body,
      bytes: Buffer.byteLength(body),
      sha256: sha(body),
      at: "2026-11-24T16:42:07.000Z"
    })
    const kind = options.licence ?? "active"
    let key: string | null = null
    if (kind !== "none") {
      const licenceId = `li_${id}`
      const expiresAt = kind === "expired" ? "2020-01-01T00:00:00.000Z" : "2099-01-01T00:00:00.000Z"
      yield* licences.issue({
        id: licenceId,
        claimId: id,
        issuedAt: "2019-01-01T00:00:00.000Z",
        expiresAt,
        issuedTo: null
      })
      if (kind === "revoked") yield* licences.revoke(licenceId, "2019-06-01T00:00:00.000Z")
      key = issueLicence(
        { v: 1, id: licenceId, claimId: id, issuedAt: "2019-01-01T00:00:00.000Z", expiresAt },
        privateKey
      )
    }
    return { claim, key, snapshot: snap }
  })

const page = (over: Partial<SealAttempt> = {}): SealAttempt => ({
  via: "claim-page",
  licenceKey: null,
  acceptedTerms: null,
  signer: { name: "Ada Lovelace", role: "DPO", email: null },
  acknowledgeOpenCalls: false,
  snapshotSha256: null,
  ...over
})

const codeOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(
    Effect.either(self),
    (r) => (Either.isLeft(r) ? String((r.left as { readonly code?: unknown }).code ?? r.left) : "sealed")
  )

const seal = (claim: Parameters<typeof sealClaim>[0], attempt: SealAttempt) =>
  Effect.flatMap(portalLicences, (l) => sealClaim(claim, attempt, l))

for (const backend of backends) {
  describe(`seal on ${backend.name}`, () => {
    layer(Layer.merge(backend.layer, context("2026-11")), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("checks in order: licence, terms, controller, signer, open calls; then seals", () =>
        Effect.gen(function*() {
          const none = yield* claimWith({ licence: "none" })
          assert.strictEqual(yield* codeOf(seal(none.claim, page())), "LICENCE_MISSING")
          const expired = yield* claimWith({ licence: "expired" })
          assert.strictEqual(yield* codeOf(seal(expired.claim, page())), "LICENCE_EXPIRED")
          const revoked = yield* claimWith({ licence: "revoked" })
          assert.strictEqual(yield* codeOf(seal(revoked.claim, page())), "LICENCE_REVOKED")

          const noController = yield* claimWith({ controller: { name: "Acme", contact: null } })
          // Terms first: nothing accepted, with everything else also wrong.
          assert.strictEqual(
            yield* codeOf(seal(noController.claim, page({ signer: { name: "", role: "", email: null } }))),
            "TERMS_NOT_ACCEPTED"
          )
          assert.strictEqual(
            yield* codeOf(seal(noController.claim, page({ acceptedTerms: "2025-01" }))),
            "TERMS_NOT_ACCEPTED"
          )
          assert.strictEqual(
            yield* codeOf(
              seal(noController.claim, page({ acceptedTerms: "2026-11", signer: { name: "", role: "", email: null } }))
            ),
            "CONTROLLER_REQUIRED"
          )
          // The claim page's fill completes the controller.
          const store = yield* PortalStore
          yield* store.setController(noController.claim.id, null, "privacy@acme.example", "2026-11-25T00:00:00.000Z")
          const filled = (yield* store.claimById(noController.claim.id))!
          assert.strictEqual(
            yield* codeOf(
              seal(filled, page({ acceptedTerms: "2026-11", signer: { name: "Ada", role: " ", email: null } }))
            ),
            "SIGNER_NAME_REQUIRED"
          )
          assert.strictEqual(yield* codeOf(seal(filled, page({ acceptedTerms: "2026-11" }))), "OPEN_LEGAL_CALLS")
          const sealStore = yield* SealStore
          assert.isNull(yield* sealStore.latest(filled.id), "nothing stored by a refused seal")
          const bundle = yield* seal(filled, page({ acceptedTerms: "2026-11", acknowledgeOpenCalls: true }))
          const saved = (yield* sealStore.latest(filled.id))!
          assert.strictEqual(saved.id, bundle.sealId)
          assert.strictEqual(saved.termsVersion, "2026-11")
          assert.deepStrictEqual(saved.acknowledgedOpenCalls, openLegalCalls(noController.snapshot.ropa.activities))
          assert.isAbove(saved.acknowledgedOpenCalls.length, 0)
          assert.strictEqual(saved.signer.name, "Ada Lovelace")
          assert.strictEqual(saved.via, "claim-page")
        }))

      it.effect("verify path: the licence key is checked (invalid, other claim), and a stale snapshot refused", () =>
        Effect.gen(function*() {
          const a = yield* claimWith({})
          const b = yield* claimWith({})
          const verifyAttempt = (key: string | null, sha256: string | null) =>
            page({
              via: "verify",
              licenceKey: key,
              snapshotSha256: sha256,
              acceptedTerms: "2026-11",
              acknowledgeOpenCalls: true
            })
          assert.strictEqual(yield* codeOf(seal(a.claim, verifyAttempt(null, a.claim.sha256))), "LICENCE_MISSING")
          const other = generateKeyPairSync("ed25519").privateKey
          const forged = issueLicence(
            {
              v: 1,
              id: "li_x",
              claimId: a.claim.id,
              issuedAt: "2019-01-01T00:00:00Z",
              expiresAt: "2099-01-01T00:00:00Z"
            },
            other
          )
          assert.strictEqual(yield* codeOf(seal(a.claim, verifyAttempt(forged, a.claim.sha256))), "LICENCE_INVALID")
          assert.strictEqual(
            yield* codeOf(seal(a.claim, verifyAttempt(b.key, a.claim.sha256))),
            "LICENCE_TENANT_MISMATCH"
          )
          assert.strictEqual(yield* codeOf(seal(a.claim, verifyAttempt(a.key, "0".repeat(64)))), "INVALID_PARAM")
          const bundle = yield* seal(a.claim, verifyAttempt(a.key, a.claim.sha256))
          assert.strictEqual((yield* (yield* SealStore).latest(a.claim.id))!.via, "verify")
          assert.strictEqual(bundle.claimId, a.claim.id)
        }))

      it.effect("artifacts: ropa.json, ropa.html, dora.json, manifest.json — signed, verifiable with node:crypto and openssl", () =>
        Effect.gen(function*() {
          const { claim } = yield* claimWith({ doraInScope: true })
          const bundle = yield* seal(claim, page({ acceptedTerms: "2026-11", acknowledgeOpenCalls: true }))
          assert.deepStrictEqual(bundle.artifacts.map((a) => a.name), [
            "ropa.json",
            "ropa.html",
            "dora.json",
            "manifest.json"
          ])
          const stored = yield* (yield* SealStore).artifacts(bundle.sealId)
          assert.deepStrictEqual(stored, bundle.artifacts)
          const dir = fs.mkdtempSync(path.join(os.tmpdir(), "seal-openssl-"))
          fs.writeFileSync(path.join(dir, "signing-key.pem"), publicKeyPem)
          for (const a of bundle.artifacts) {
            const bytes = Buffer.from(a.content, "base64")
            const signature = Buffer.from(a.signature, "base64")
            assert.strictEqual(signature.length, 64)
            assert.strictEqual(sha(bytes), a.sha256)
            assert.isTrue(verify(null, bytes, publicKey, signature), a.name)
            fs.writeFileSync(path.join(dir, a.name), bytes)
            fs.writeFileSync(path.join(dir, `${a.name}.sig`), signature)
            const out = execFileSync("openssl", [
              "pkeyutl",
              "-verify",
              "-pubin",
              "-inkey",
              "signing-key.pem",
              "-rawin",
              "-in",
              a.name,
              "-sigfile",
              `${a.name}.sig`
            ], { cwd: dir, encoding: "utf8" })
            assert.match(out, /Signature Verified Successfully/)
          }
          // One changed byte: openssl refuses it.
          const tampered = Buffer.from(fs.readFileSync(path.join(dir, "ropa.json")))
          tampered[10] = tampered[10]! ^ 1
          fs.writeFileSync(path.join(dir, "ropa.json"), tampered)
          assert.throws(() =>
            execFileSync("openssl", [
              "pkeyutl",
              "-verify",
              "-pubin",
              "-inkey",
              "signing-key.pem",
              "-rawin",
              "-in",
              "ropa.json",
              "-sigfile",
              "ropa.json.sig"
            ], { cwd: dir, stdio: "pipe" })
          )
          fs.rmSync(dir, { recursive: true, force: true })

          const byName = new Map(bundle.artifacts.map((a) => [a.name, Buffer.from(a.content, "base64")]))
          const manifest = Schema.decodeUnknownSync(SealManifest)(
            JSON.parse(byName.get("manifest.json")!.toString("utf8"))
          )
          assert.strictEqual(manifest.sealId, bundle.sealId)
          assert.strictEqual(manifest.termsVersion, "2026-11")
          assert.strictEqual(manifest.snapshotSha256, claim.sha256)
          assert.deepStrictEqual(manifest.artifacts.map((a) => a.name), ["ropa.json", "ropa.html", "dora.json"])
          for (const m of manifest.artifacts) {
            assert.strictEqual(m.bytes, byName.get(m.name)!.length)
            assert.strictEqual(m.sha256, sha(byName.get(m.name)!))
          }
          const ropa = JSON.parse(byName.get("ropa.json")!.toString("utf8")) as Record<string, unknown>
          assert.strictEqual(ropa["seal"], "sealed")
          assert.deepStrictEqual(ropa["controller"], { name: "Acme Bank AG", contact: "privacy@acme.example" })
          const page_ = byName.get("ropa.html")!.toString("utf8")
          assert.match(page_, /OFFICIAL RECORD — sealed .* by Ada Lovelace, DPO/)
          assert.notMatch(page_, /<script/i)
          assert.notMatch(page_, /DRAFT — not an official record/)
        }))
    })
  })
}

describe("seal without CATALOG_TOS_VERSION", () => {
  layer(Layer.merge(backends[0]!.layer, context(null)), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("needs no acceptance and records none", () =>
      Effect.gen(function*() {
        const { claim } = yield* claimWith({})
        const bundle = yield* seal(claim, page({ acknowledgeOpenCalls: true }))
        const saved = (yield* (yield* SealStore).latest(claim.id))!
        assert.strictEqual(saved.id, bundle.sealId)
        assert.isNull(saved.termsVersion)
      }))
  })
})
