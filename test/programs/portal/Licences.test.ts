/**
 * Licences on the wire, on both back ends: GET /api/portal/v1/licences/revoked (public, declared in the
 * OpenAPI document) lists exactly the revoked ids; the machine's `verifyMachineLicence` (real PortalClient
 * over HTTP, real files, the pinned key in .catalog/) answers each code in order — missing, invalid (no
 * pinned key, another portal's key), tenant mismatch, expired, revoked — and, with the portal unreachable,
 * SYNC_FAILED when sealing (`refuse`) or an answer saying the list was not checked (`warn`).
 */
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { portalKeyFileName, revokedLicencesPath } from "../../../src/domain/Sync.js"
import { NodeFilesLive } from "../../../src/layers/NodeFiles.js"
import { portalStoreLayer } from "../../../src/layers/portal/PortalSql.js"
import { PortalClientLive } from "../../../src/layers/PortalClient.js"
import { AppEnv } from "../../../src/services/AppEnv.js"
import { issueLicence } from "../../../src/services/Licence.js"
import { verifyMachineLicence } from "../../../src/services/LicenceCheck.js"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { PortalKey } from "../../../src/services/PortalKey.js"
import { type Backend, type Portal, request, startTestPortal, tempDir } from "./harness.js"

const keyDir = tempDir("ldc-licence-key-")
const { privateKey } = generateKeyPairSync("ed25519")
const keyFile = path.join(keyDir, "signing.pem")
fs.writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
const publicPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString()

const licence = (id: string, claimId: string, expiresAt: string, key: KeyObject = privateKey) =>
  issueLicence({ v: 1, id, claimId, issuedAt: "2026-01-01T00:00:00.000Z", expiresAt }, key)

/** A machine folder with (or without) the pinned key, and its environment. */
const machine = (licenceKey: string | undefined, pinned: string | null = publicPem) => {
  const cwd = tempDir("ldc-machine-")
  if (pinned !== null) {
    fs.mkdirSync(path.join(cwd, ".catalog"), { recursive: true })
    fs.writeFileSync(path.join(cwd, ".catalog", portalKeyFileName), pinned)
  }
  return Layer.mergeAll(PortalKey.Default, PortalClientLive).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Layer.succeed(AppEnv, {
        cwd,
        env: licenceKey === undefined ? {} : { CATALOG_LICENCE_KEY: licenceKey },
        interactive: false,
        stderrIsTTY: false
      }),
      NodeFilesLive
    ))
  )
}

describe.each<Backend>(["sqlite", "postgres"])("licences on %s", (backend) => {
  let portal: Portal
  let licences: LicenceStore["Type"]
  let close: () => Promise<void>

  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_PORTAL_SIGNING_KEY: keyFile })
    const scope = Effect.runSync(Scope.make())
    const ctx = await Effect.runPromise(Layer.buildWithScope(portalStoreLayer(portal.where), scope))
    licences = Context.get(ctx, LicenceStore)
    close = () => Effect.runPromise(Scope.close(scope, Exit.void))
    await Effect.runPromise(portal.store.ingest({
      claimId: "cl_a",
      tokenHash: "tok_a",
      recordKeyHash: "rec_a",
      recipient: "dpo@acme.example",
      unbound: false,
      body: "{}",
      bytes: 2,
      sha256: "sha_a",
      at: "2026-01-01T00:00:00.000Z"
    }))
  }, 60_000)
  afterAll(async () => {
    await close?.()
    await portal?.close()
  })

  it("GET licences/revoked lists the revoked ids (public, in the OpenAPI document)", async () => {
    const empty = await request(portal.url, revokedLicencesPath)
    expect(empty.status).toBe(200)
    expect((empty.json as { revoked: Array<string> }).revoked).toEqual([])
    for (const id of ["li_1", "li_2", "li_3"]) {
      await Effect.runPromise(licences.issue({
        id,
        claimId: "cl_a",
        issuedAt: "2026-01-01T00:00:00.000Z",
        expiresAt: "2099-01-01T00:00:00.000Z",
        issuedTo: null
      }))
    }
    await Effect.runPromise(licences.revoke("li_2", "2026-02-01T00:00:00.000Z"))
    await Effect.runPromise(licences.revoke("li_3", "2026-02-01T00:00:00.000Z"))
    const r = await request(portal.url, revokedLicencesPath)
    const body = r.json as { revoked: Array<string>; at: string }
    expect(body.revoked).toEqual(["li_2", "li_3"])
    expect(Number.isNaN(Date.parse(body.at))).toBe(false)
    const post = await request(portal.url, revokedLicencesPath, { method: "POST" })
    expect(post.status).toBe(404)
    const doc = (await request(portal.url, "/api/portal/v1/openapi.json")).json as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths)).toContain(revokedLicencesPath)
  })

  const verify = (
    key: string | undefined,
    opts: { pinned?: string | null; url?: string; mode?: "refuse" | "warn" } = {}
  ) =>
    Effect.runPromise(Effect.either(
      verifyMachineLicence({
        claimId: "cl_a",
        portalUrl: opts.url ?? portal.url,
        onRevocationUnavailable: opts.mode ?? "refuse"
      }).pipe(Effect.provide(machine(key, opts.pinned === undefined ? publicPem : opts.pinned)))
    ))
  const codeOf = async (p: ReturnType<typeof verify>) => {
    const r = await p
    return Either.isLeft(r) ? r.left.code : "ok"
  }

  it("verifyMachineLicence: active and not revoked → the licence, revocation checked", async () => {
    const r = await verify(licence("li_1", "cl_a", "2099-01-01T00:00:00.000Z"))
    expect(Either.isRight(r)).toBe(true)
    const ok = Either.getOrThrow(r)
    expect(ok.info).toMatchObject({ id: "li_1", claimId: "cl_a", state: "active" })
    expect(ok.revocation.checked).toBe(true)
  })

  it("verifyMachineLicence: each code in order", async () => {
    const other = generateKeyPairSync("ed25519").privateKey
    expect(await codeOf(verify(undefined))).toBe("LICENCE_MISSING")
    expect(await codeOf(verify("sync_abcdefabcdefabcdefabcdef"))).toBe("LICENCE_INVALID")
    expect(await codeOf(verify(licence("li_1", "cl_a", "2099-01-01T00:00:00.000Z"), { pinned: null }))).toBe(
      "LICENCE_INVALID"
    )
    expect(await codeOf(verify(licence("li_1", "cl_a", "2099-01-01T00:00:00.000Z"), { pinned: "not a key" }))).toBe(
      "LICENCE_INVALID"
    )
    expect(await codeOf(verify(licence("li_1", "cl_a", "2099-01-01T00:00:00.000Z", other)))).toBe("LICENCE_INVALID")
    expect(await codeOf(verify(licence("li_1", "cl_other", "2099-01-01T00:00:00.000Z")))).toBe(
      "LICENCE_TENANT_MISMATCH"
    )
    expect(await codeOf(verify(licence("li_2", "cl_a", "2020-01-01T00:00:00.000Z")))).toBe("LICENCE_EXPIRED")
    expect(await codeOf(verify(licence("li_2", "cl_a", "2099-01-01T00:00:00.000Z")))).toBe("LICENCE_REVOKED")
  })

  it("verifyMachineLicence: portal unreachable → SYNC_FAILED for sealing, a flagged answer with warn", async () => {
    const dead = "http://127.0.0.1:9"
    const key = licence("li_1", "cl_a", "2099-01-01T00:00:00.000Z")
    const refused = await verify(key, { url: dead })
    expect(Either.isLeft(refused) && refused.left.code).toBe("SYNC_FAILED")
    expect(Either.isLeft(refused) && refused.left.message).toContain("revocation list")
    expect(Either.isLeft(refused) && refused.left.message).not.toContain(key)
    const warned = await verify(key, { url: dead, mode: "warn" })
    const ok = Either.getOrThrow(warned)
    expect(ok.revocation.checked).toBe(false)
    // the offline checks still refuse without the portal
    expect(await codeOf(verify(licence("li_1", "cl_a", "2020-01-01T00:00:00.000Z"), { url: dead }))).toBe(
      "LICENCE_EXPIRED"
    )
    // a server that is not a portal
    expect(await codeOf(verify(key, { url: `${portal.url}/nothing-here` }))).toBe("SYNC_FAILED")
  })
})

afterAll(() => fs.rmSync(keyDir, { recursive: true, force: true }))
