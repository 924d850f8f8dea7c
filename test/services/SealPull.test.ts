/**
 * A pulled seal is checked before anything is stored: every signature against the PINNED key, each SHA-256,
 * the signed manifest's list. One changed byte, an artifact signed by another key, a dropped or extra
 * artifact — each SEAL_PULL_FAILED naming the artifact.
 */
import { Either } from "effect"
import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto"
import { describe, expect, it } from "vitest"
import type { SealBundle } from "../../src/domain/Sync.js"
import { verifySealBundle } from "../../src/services/SealPull.js"
import { signedArtifact, signedBundle } from "../utils/seals.js"

const { privateKey } = generateKeyPairSync("ed25519")
const pinned = createPublicKey(privateKey)

const artifact = signedArtifact(privateKey)

const bundle = (): SealBundle =>
  signedBundle(
    privateKey,
    {
      sealId: "seal_abc",
      claimId: "cl_1",
      sealedAt: "2026-11-25T10:00:00.000Z",
      signer: { name: "Ada Lovelace", role: "DPO", email: null },
      termsVersion: null,
      acknowledgedOpenCalls: [],
      licenceId: "li_1"
    },
    Buffer.from("{\"seal\":\"sealed\"}\n"),
    Buffer.from("<!doctype html><p>OFFICIAL RECORD</p>")
  )

const refusal = (b: SealBundle, key: KeyObject = pinned) => {
  const r = verifySealBundle(b, key)
  if (Either.isRight(r)) throw new Error("expected a refusal")
  return r.left
}

describe("verifySealBundle", () => {
  it("accepts a bundle signed by the pinned key, with its manifest", () => {
    const r = verifySealBundle(bundle(), pinned)
    expect(Either.isRight(r)).toBe(true)
    if (Either.isRight(r)) {
      expect(r.right.artifacts.map((a) => a.name)).toEqual(["ropa.json", "ropa.html", "manifest.json"])
      expect(r.right.artifacts.every((a) => a.signature.length === 64)).toBe(true)
      expect(r.right.manifest.signer.name).toBe("Ada Lovelace")
    }
  })

  it("refuses one changed byte in an artifact, naming it", () => {
    const b = bundle()
    const bytes = Buffer.from(b.artifacts[0]!.content, "base64")
    bytes[3] = bytes[3]! ^ 1
    const tampered = {
      ...b,
      artifacts: [{ ...b.artifacts[0]!, content: bytes.toString("base64") }, ...b.artifacts.slice(1)]
    }
    const e = refusal(tampered)
    expect(e.code).toBe("SEAL_PULL_FAILED")
    expect(e.param).toBe("ropa.json")
    expect(e.message).toContain("Nothing was stored")
  })

  it("refuses an artifact signed by another key, and a whole bundle checked against another pinned key", () => {
    const other = generateKeyPairSync("ed25519").privateKey
    const b = bundle()
    const bytes = Buffer.from(b.artifacts[1]!.content, "base64")
    const resigned = { ...b, artifacts: [b.artifacts[0]!, artifact("ropa.html", bytes, other), b.artifacts[2]!] }
    expect(refusal(resigned).param).toBe("ropa.html")
    expect(refusal(bundle(), createPublicKey(other)).code).toBe("SEAL_PULL_FAILED")
  })

  it("refuses an artifact missing from or not listed in the manifest, and a path in a name", () => {
    const b = bundle()
    expect(refusal({ ...b, artifacts: [b.artifacts[0]!, b.artifacts[2]!] }).param).toBe("ropa.html")
    const extra = artifact("extra.json", Buffer.from("{}"))
    expect(refusal({ ...b, artifacts: [...b.artifacts, extra] }).param).toBe("extra.json")
    const evil = artifact("../evil", Buffer.from("x"))
    expect(refusal({ ...b, artifacts: [evil, ...b.artifacts] }).code).toBe("SEAL_PULL_FAILED")
    // Names the machine writes itself beside the artifacts are never an artifact's.
    for (const name of ["ropa.json.sig", "signing-key.pem"]) {
      const clash = artifact(name, Buffer.from("x"))
      const r = refusal({ ...b, artifacts: [clash, ...b.artifacts] })
      expect(r.code).toBe("SEAL_PULL_FAILED")
      expect(r.message).toContain("is not allowed")
    }
  })
})
