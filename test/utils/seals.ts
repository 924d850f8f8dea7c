/**
 * Signed seal bundles for the machine-side tests (SealPull, Seals): artifacts signed with `privateKey`
 * (detached Ed25519 over the exact bytes) and a manifest listing each, as the portal answers GET sync/seal.
 */
import { createHash, type KeyObject, sign } from "node:crypto"
import type { SealBundle, SealManifest } from "../../src/domain/Sync.js"

export const sha = (b: Buffer): string => createHash("sha256").update(b).digest("hex")

/** One artifact as the bundle carries it; `key` signs it (another key makes a forged one). */
export const signedArtifact =
  (privateKey: KeyObject) => (name: string, bytes: Buffer, key: KeyObject = privateKey) => ({
    name,
    mediaType: "application/json",
    sha256: sha(bytes),
    content: bytes.toString("base64"),
    signature: sign(null, bytes, key).toString("base64")
  })

/** A bundle of `ropa.json`, `ropa.html` and the signed `manifest.json` describing the seal `seal`. */
export const signedBundle = (
  privateKey: KeyObject,
  seal: Omit<SealManifest, "format" | "version" | "artifacts" | "snapshotSha256">,
  ropa: Buffer,
  page: Buffer
): SealBundle => {
  const artifact = signedArtifact(privateKey)
  const manifest: SealManifest = {
    format: "local-data-catalog/seal",
    version: 1,
    ...seal,
    snapshotSha256: "0".repeat(64),
    artifacts: [
      { name: "ropa.json", bytes: ropa.length, sha256: sha(ropa) },
      { name: "ropa.html", bytes: page.length, sha256: sha(page) }
    ]
  }
  return {
    sealId: seal.sealId,
    claimId: seal.claimId,
    sealedAt: seal.sealedAt,
    artifacts: [
      artifact("ropa.json", ropa),
      artifact("ropa.html", page),
      artifact("manifest.json", Buffer.from(JSON.stringify(manifest)))
    ]
  }
}
