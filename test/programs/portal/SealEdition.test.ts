/**
 * `sealClaim` in a build without the official export: PORTAL_NOT_INSTALLED before any other check (the flag
 * injected through PortalContext.officialInstalled), on both paths (claim page and verify); with the flag
 * on, the same attempt reaches the licence check. Nothing is stored either way.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { PortalNotInstalled } from "../../../src/errors/index.js"
import { portalSqlClient, portalStoreOnClient } from "../../../src/layers/portal/PortalSql.js"
import { PortalContext } from "../../../src/programs/portal/Context.js"
import { type SealAttempt, sealClaim } from "../../../src/programs/portal/Seal.js"
import type { PortalSettings } from "../../../src/programs/portal/Settings.js"
import { SealStore } from "../../../src/services/portal/SealStore.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { sampleSnapshot } from "../../utils/snapshots.js"

const { privateKey } = generateKeyPairSync("ed25519")
const publicKeyPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString()

const context = (officialInstalled: boolean | undefined) =>
  Layer.succeed(PortalContext, {
    settings: {
      signingKey: { path: "/dev/null", privateKey, publicKeyPem },
      termsVersion: null
    } as unknown as PortalSettings,
    publicUrl: "http://127.0.0.1:1",
    log: () => undefined,
    officialInstalled
  })

const stores = Layer.unwrapScoped(
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-seal-edition-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    ),
    (home) => portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient({ databaseUrl: null, home })))
  )
)

const sha = (s: string) => createHash("sha256").update(s).digest("hex")
let n = 0
const liveClaim = Effect.gen(function*() {
  const id = `cl_edition${n++}`
  const body = JSON.stringify(sampleSnapshot())
  const { claim } = yield* (yield* PortalStore).ingest({
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
  return claim
})

const attempt = (via: SealAttempt["via"]): SealAttempt => ({
  via,
  licenceKey: via === "verify" ? "lic_x.y" : null,
  acceptedTerms: null,
  signer: { name: "Ada", role: "DPO", email: null },
  acknowledgeOpenCalls: true,
  snapshotSha256: null
})

const noLicences = { byClaim: () => Effect.succeed([]), revokedIds: Effect.succeed([]) }

const codeOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(self), (r) => Either.isLeft(r) ? String((r.left as { code?: unknown }).code) : "sealed")

describe("sealClaim and the build's flag", () => {
  layer(Layer.merge(stores, context(false)), { excludeTestServices: true })((it) => {
    it.effect("flag off: PORTAL_NOT_INSTALLED first, on the page's path and verify's; nothing stored", () =>
      Effect.gen(function*() {
        const claim = yield* liveClaim
        assert.strictEqual(yield* codeOf(sealClaim(claim, attempt("claim-page"), noLicences)), "PORTAL_NOT_INSTALLED")
        assert.strictEqual(yield* codeOf(sealClaim(claim, attempt("verify"), noLicences)), "PORTAL_NOT_INSTALLED")
        const refused = yield* Effect.flip(sealClaim(claim, attempt("claim-page"), noLicences))
        assert.strictEqual(refused._tag, "PortalNotInstalled")
        assert.strictEqual((refused as PortalNotInstalled).spec.status, 501)
        assert.isNull(yield* (yield* SealStore).latest(claim.id))
      }))
  })
  layer(Layer.merge(stores, context(true)), { excludeTestServices: true })((it) => {
    it.effect("flag on: the same attempt goes on to the licence check", () =>
      Effect.gen(function*() {
        const claim = yield* liveClaim
        assert.strictEqual(yield* codeOf(sealClaim(claim, attempt("claim-page"), noLicences)), "LICENCE_MISSING")
      }))
  })
  layer(Layer.merge(stores, context(undefined)), { excludeTestServices: true })((it) => {
    it.effect("no flag injected: this build's own (the full build in tests): the licence check", () =>
      Effect.gen(function*() {
        const claim = yield* liveClaim
        assert.strictEqual(yield* codeOf(sealClaim(claim, attempt("claim-page"), noLicences)), "LICENCE_MISSING")
      }))
  })
})
