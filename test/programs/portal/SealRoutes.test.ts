/**
 * The machine's seal routes through the real HTTP server, on both back ends: the pairing is checked as on
 * every sync route (Sync.ts `pairedClaim`: a missing, unknown or revoked sync token answers 401
 * SYNC_UNAUTHORIZED), GET answers 404 SEAL_PULL_FAILED before the first seal, POST seals the paired claim
 * with a licence for it (201 SealBundle), GET then answers that seal and GET /sync reports it.
 */
import { createHash, generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SealBundle } from "../../../src/domain/Sync.js"
import { issueLicence } from "../../../src/services/Licence.js"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, recordKey, request, startTestPortal, tempDir, upload } from "./harness.js"

interface ErrorJson {
  readonly error: { readonly code: string }
}
const codeOf = (r: { json: unknown }) => (r.json as ErrorJson).error.code

const keyDir = tempDir("ldc-seal-routes-key-")
const { privateKey } = generateKeyPairSync("ed25519")
const keyFile = path.join(keyDir, "signing.pem")
fs.writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })

const form = (portal: Portal, pathname: string, body: string, headers: Record<string, string> = {}) =>
  request(portal.url, pathname, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.url, ...headers },
    body
  })

const sealPath = "/api/portal/v1/sync/seal"

describe.each<Backend>(["sqlite", "postgres"])("seal routes on %s", (backend) => {
  let portal: Portal
  beforeAll(async () => {
    portal = await startTestPortal(backend, { CATALOG_PORTAL_SIGNING_KEY: keyFile })
  })
  afterAll(async () => {
    await portal.close()
  })

  it("checks the sync token as every sync route does, answers 404 before a seal, seals with a licence", async () => {
    const snapshot = sampleSnapshot({ recipient: null, unbound: true })
    const body = JSON.stringify(snapshot)
    const receipt = (await upload(portal, body, { key: recordKey() })).json as { claimId: string; claimUrl: string }
    const claimPath = new URL(receipt.claimUrl).pathname
    const opened = await form(portal, `${claimPath}/open`, "")
    const session = opened.headers["set-cookie"]![0]!.split(";")[0]!
    const page = await form(portal, `${claimPath}/sync-tokens`, "label=", { cookie: session })
    const token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(page.body)![1]!

    // No token, a wrong token: one answer, 401 SYNC_UNAUTHORIZED (the stub refused everything; the real
    // lookup accepts the paired machine only).
    const none = await request(portal.url, sealPath)
    expect(none.status).toBe(401)
    expect(codeOf(none)).toBe("SYNC_UNAUTHORIZED")
    const wrong = await request(portal.url, sealPath, { headers: { "x-catalog-sync-token": `${token}x` } })
    expect(wrong.status).toBe(401)
    expect(codeOf(wrong)).toBe("SYNC_UNAUTHORIZED")

    // Paired, not sealed yet: nothing to pull.
    const before = await request(portal.url, sealPath, { headers: { "x-catalog-sync-token": token } })
    expect(before.status).toBe(404)
    expect(codeOf(before)).toBe("SEAL_PULL_FAILED")

    const licence = issueLicence({
      v: 1,
      id: `li_routes${backend}`,
      claimId: receipt.claimId,
      issuedAt: "2026-01-01T00:00:00.000Z",
      expiresAt: "2099-01-01T00:00:00.000Z"
    }, privateKey)
    const sealRequest = {
      licence,
      signer: { name: "Ada Lovelace", role: "DPO", email: null },
      acceptedTerms: null,
      acknowledgeOpenCalls: true,
      snapshotSha256: createHash("sha256").update(body).digest("hex")
    }
    const unpaired = await request(portal.url, sealPath, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sealRequest)
    })
    expect(unpaired.status).toBe(401)
    expect(codeOf(unpaired)).toBe("SYNC_UNAUTHORIZED")

    const sealed = await request(portal.url, sealPath, {
      method: "POST",
      headers: { "content-type": "application/json", "x-catalog-sync-token": token },
      body: JSON.stringify(sealRequest)
    })
    expect(sealed.status).toBe(201)
    const bundle = sealed.json as SealBundle
    expect(bundle.claimId).toBe(receipt.claimId)
    expect(bundle.artifacts.map((a) => a.name)).toEqual(expect.arrayContaining(["ropa.json", "manifest.json"]))

    const after = await request(portal.url, sealPath, { headers: { "x-catalog-sync-token": token } })
    expect(after.status).toBe(200)
    expect((after.json as SealBundle).sealId).toBe(bundle.sealId)
    // GET /sync reports the seal (what seal pull and push read), sealed while the licence runs.
    const status = await request(portal.url, "/api/portal/v1/sync", { headers: { "x-catalog-sync-token": token } })
    expect(status.json).toMatchObject({
      seal: {
        state: "sealed",
        reason: null,
        last: {
          id: bundle.sealId,
          signer: { name: "Ada Lovelace", role: "DPO" },
          licence: { id: `li_routes${backend}`, expiresAt: "2099-01-01T00:00:00.000Z", state: "active" }
        }
      },
      termsVersion: null
    })
  })
})
