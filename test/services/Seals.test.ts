/**
 * The seal on this machine: a pulled bundle is verified against the PINNED key before anything is stored
 * (one changed byte → SEAL_PULL_FAILED naming the artifact, no folder, no row); a good one is written to
 * .catalog/sealed/<sealId>/ (bytes, raw 64-byte `.sig`, signing-key.pem) with its row and the change-log
 * entry "sealed by <name> (<role>)". Every read surface (status, provenance, the RoPA) says sealed while the
 * licence runs and draft with LICENCE_EXPIRED after it (the Reader's `now`), keeping `last`; the stored
 * artifacts still verify; "unsealed: licence expired" is recorded once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, TestClock } from "effect"
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { LicenceInfo, SealBundle } from "../../src/domain/Sync.js"
import { AppEnv, dataDir } from "../../src/services/AppEnv.js"
import { PortalKey } from "../../src/services/PortalKey.js"
import { Reader, ReaderConfigTag, ReaderLive } from "../../src/services/Reader.js"
import { noteSealLapse, sealStateOf, storeSeal } from "../../src/services/Seals.js"
import { StoreReader } from "../../src/services/Store.js"
import { signedBundle } from "../utils/seals.js"
import { CatalogTest, catalogYaml } from "../utils/TestLayers.js"

const { privateKey } = generateKeyPairSync("ed25519")
const publicPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString()

const licence: LicenceInfo = {
  id: "li_unit",
  claimId: "cl_unit",
  issuedAt: "2025-01-01T00:00:00.000Z",
  expiresAt: "2026-01-01T23:59:59.999Z",
  state: "active"
}

const bundle = (): SealBundle =>
  signedBundle(
    privateKey,
    {
      sealId: "seal_unit1",
      claimId: "cl_unit",
      sealedAt: "2025-06-01T10:00:00.000Z",
      signer: { name: "Ada Lovelace", role: "DPO", email: "ada@acme.example" },
      termsVersion: "2025-01",
      acknowledgedOpenCalls: [{ activity: "Customers", field: "retention", status: "suggested" }],
      licenceId: "li_unit"
    },
    Buffer.from("{\"seal\":\"sealed\",\"activities\":[]}\n"),
    Buffer.from("<!doctype html><p>OFFICIAL RECORD</p>")
  )

const base = () => CatalogTest([], catalogYaml([], ["controller: { name: Acme GmbH, contact: privacy@acme.example }"]))
const machine = () => PortalKey.Default.pipe(Layer.provideMerge(base()))

/** The real Reader over the same store, reading at `now`. */
const readerAt = (now: Date) =>
  ReaderLive.pipe(
    Layer.provide(Layer.succeed(ReaderConfigTag, {
      controller: null,
      dora: null,
      configuredSources: null,
      catalogOnly: false,
      now: () => now
    }))
  )

const sealedDir = Effect.map(AppEnv, (env) => path.join(dataDir(env), "sealed"))

describe("storeSeal", () => {
  it.effect("one changed byte: SEAL_PULL_FAILED naming the artifact, nothing stored", () =>
    Effect.gen(function*() {
      yield* (yield* PortalKey).pin(publicPem)
      const b = bundle()
      const bytes = Buffer.from(b.artifacts[1]!.content, "base64")
      bytes[5] = bytes[5]! ^ 1
      const tampered: SealBundle = {
        ...b,
        artifacts: b.artifacts.map((a, i) => (i === 1 ? { ...a, content: bytes.toString("base64") } : a))
      }
      const r = yield* Effect.either(storeSeal(tampered, licence))
      assert.isTrue(Either.isLeft(r))
      if (Either.isLeft(r)) {
        assert.strictEqual(r.left.code, "SEAL_PULL_FAILED")
        assert.include(r.left.message, "ropa.html")
        assert.include(r.left.message, "Nothing was stored")
      }
      assert.isFalse(fs.existsSync(yield* sealedDir))
      assert.isNull(yield* (yield* StoreReader).latestSeal)
    }).pipe(Effect.provide(machine())))

  it.effect("no pinned key: SEAL_PULL_FAILED, nothing stored; another key: refused", () =>
    Effect.gen(function*() {
      const none = yield* Effect.either(storeSeal(bundle(), licence))
      assert.isTrue(Either.isLeft(none) && none.left.code === "SEAL_PULL_FAILED")
      const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString()
      yield* (yield* PortalKey).pin(other)
      const wrong = yield* Effect.either(storeSeal(bundle(), licence))
      assert.isTrue(Either.isLeft(wrong) && wrong.left.code === "SEAL_PULL_FAILED")
      assert.isFalse(fs.existsSync(yield* sealedDir))
      assert.isNull(yield* (yield* StoreReader).latestSeal)
    }).pipe(Effect.provide(machine())))

  it.effect("stores, shows sealed while the licence runs, draft with LICENCE_EXPIRED after; the files still verify", () =>
    Effect.gen(function*() {
      yield* (yield* PortalKey).pin(publicPem)
      const stored = yield* storeSeal(bundle(), licence)
      assert.isTrue(stored.inserted)
      const dir = path.join(yield* sealedDir, "seal_unit1")
      assert.strictEqual(stored.dir, dir)
      assert.sameMembers(fs.readdirSync(dir), [
        "ropa.json",
        "ropa.json.sig",
        "ropa.html",
        "ropa.html.sig",
        "manifest.json",
        "manifest.json.sig",
        "signing-key.pem"
      ])
      // Again: already stored, nothing written.
      assert.isFalse((yield* storeSeal(bundle(), licence)).inserted)

      const before = yield* Effect.provide(
        Effect.gen(function*() {
          const r = yield* Reader
          return { status: yield* r.status, provenance: yield* r.provenance, ropa: yield* r.compliance }
        }),
        readerAt(new Date("2025-12-01T00:00:00Z"))
      )
      for (const s of [before.status, before.provenance, before.ropa]) {
        assert.strictEqual(s.seal, "sealed")
        assert.strictEqual(s.sealInfo?.state, "sealed")
        assert.strictEqual(s.sealInfo?.last?.signer.name, "Ada Lovelace")
        assert.strictEqual(s.sealInfo?.last?.licence.state, "active")
        assert.deepStrictEqual(s.sealInfo?.last?.acknowledgedOpenCalls, [
          { activity: "Customers", field: "retention", status: "suggested" }
        ])
      }
      const after = yield* Effect.provide(
        Effect.gen(function*() {
          const r = yield* Reader
          return { status: yield* r.status, provenance: yield* r.provenance, ropa: yield* r.compliance }
        }),
        readerAt(new Date("2026-01-02T00:00:00Z"))
      )
      for (const s of [after.status, after.provenance, after.ropa]) {
        assert.strictEqual(s.seal, "draft")
        assert.strictEqual(s.sealInfo?.state, "draft")
        assert.strictEqual(s.sealInfo?.reason, "LICENCE_EXPIRED")
        assert.strictEqual(s.sealInfo?.last?.id, "seal_unit1")
        assert.strictEqual(s.sealInfo?.last?.licence.state, "expired")
      }
      // What was signed stays valid: every stored file verifies against the stored key.
      const key = createPublicKey(fs.readFileSync(path.join(dir, "signing-key.pem"), "utf8"))
      for (const f of ["ropa.json", "ropa.html", "manifest.json"]) {
        const sig = fs.readFileSync(path.join(dir, `${f}.sig`))
        assert.strictEqual(sig.length, 64)
        assert.isTrue(verify(null, fs.readFileSync(path.join(dir, f)), key, sig), f)
      }
      // The lapse is recorded once, when a command first runs after the expiry; the log says who sealed.
      assert.isFalse(yield* noteSealLapse) // the test clock starts in 1970: still sealed
      yield* TestClock.setTime(Date.parse("2026-01-02T00:00:00Z"))
      assert.isTrue(yield* noteSealLapse)
      assert.isFalse(yield* noteSealLapse)
      const log = yield* (yield* StoreReader).changes({ limit: 10 })
      const kinds = log.rows.map((r) => r.kind)
      assert.includeMembers(kinds, ["seal.sealed", "seal.lapsed"])
      const changes = yield* Effect.provide(
        Effect.flatMap(Reader, (r) => r.changes()),
        readerAt(new Date("2026-01-02T00:00:00Z"))
      )
      const summaries = JSON.stringify(changes)
      assert.include(summaries, "sealed by Ada Lovelace (DPO)")
      assert.include(summaries, "unsealed: licence expired")
    }).pipe(Effect.provide(machine())))

  it("sealStateOf: no seal is a plain draft", () => {
    assert.deepStrictEqual(sealStateOf(null, new Date()), { state: "draft", last: null, reason: null })
  })
})
