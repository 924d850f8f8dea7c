/**
 * Checking a pulled seal (issue 12, part 4) before anything is stored: every artifact's detached Ed25519
 * signature against the portal key PINNED on this machine (`.catalog/portal-signing-key.pem`, never the
 * key the portal sends now), its SHA-256, and the signed manifest's list (every other artifact named there
 * with its bytes and SHA-256, and nothing else). Any mismatch is SEAL_PULL_FAILED naming the artifact.
 * Pure: the caller stores the result (src/layers/SealFiles.ts) only when this succeeds.
 */
import { Either, Schema } from "effect"
import { createHash, type KeyObject, verify } from "node:crypto"
import { type SealBundle, SealManifest } from "../domain/Sync.js"
import { SealPullFailed } from "../errors/index.js"

export interface VerifiedArtifact {
  readonly name: string
  readonly mediaType: string
  readonly bytes: Buffer
  /** The raw 64-byte Ed25519 signature (what `<name>.sig` holds). */
  readonly signature: Buffer
}

export interface VerifiedSeal {
  readonly manifest: SealManifest
  readonly artifacts: ReadonlyArray<VerifiedArtifact>
}

const refuse = (message: string, artifact: string | null): SealPullFailed =>
  new SealPullFailed({
    message: `${message} Nothing was stored.`,
    fix:
      "Pull again (`catalog seal pull`); if it persists, the portal or something between it and this machine changed the files: tell the portal's operator.",
    ...(artifact !== null ? { param: artifact } : {}),
    details: { artifact }
  })

/** A safe file name for `.catalog/sealed/<sealId>/` (no path, no hidden file). */
/** A plain file name, never one the machine writes itself beside the artifacts (`<name>.sig`, `signing-key.pem`). */
const safeName = (name: string): boolean =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name) && !name.includes("..") && !name.endsWith(".sig") &&
  name !== "signing-key.pem"

/** Verifies a bundle against the pinned key; see the module comment. */
export const verifySealBundle = (
  bundle: SealBundle,
  pinnedKey: KeyObject
): Either.Either<VerifiedSeal, SealPullFailed> => {
  if (!/^seal_[A-Za-z0-9_-]{1,100}$/.test(bundle.sealId)) {
    return Either.left(refuse(`The seal id ${JSON.stringify(bundle.sealId.slice(0, 40))} is malformed.`, null))
  }
  const artifacts: Array<VerifiedArtifact> = []
  const seen = new Set<string>()
  for (const a of bundle.artifacts) {
    if (!safeName(a.name) || seen.has(a.name)) {
      return Either.left(refuse(`The artifact name ${JSON.stringify(a.name.slice(0, 100))} is not allowed.`, null))
    }
    seen.add(a.name)
    const bytes = Buffer.from(a.content, "base64")
    const signature = Buffer.from(a.signature, "base64")
    let good = false
    try {
      good = signature.length === 64 && verify(null, bytes, pinnedKey, signature)
    } catch {
      good = false
    }
    if (!good) {
      return Either.left(
        refuse(
          `The signature of ${a.name} does not verify against the portal key pinned on this machine (altered, or signed by another key).`,
          a.name
        )
      )
    }
    if (createHash("sha256").update(bytes).digest("hex") !== a.sha256) {
      return Either.left(refuse(`The SHA-256 of ${a.name} is not the one the portal announced.`, a.name))
    }
    artifacts.push({ name: a.name, mediaType: a.mediaType, bytes, signature })
  }
  const manifestFile = artifacts.find((a) => a.name === "manifest.json")
  if (manifestFile === undefined) return Either.left(refuse("The seal has no manifest.json.", "manifest.json"))
  let json: unknown
  try {
    json = JSON.parse(manifestFile.bytes.toString("utf8"))
  } catch {
    return Either.left(refuse("manifest.json is not JSON.", "manifest.json"))
  }
  const manifest = Schema.decodeUnknownEither(SealManifest)(json)
  if (Either.isLeft(manifest)) return Either.left(refuse("manifest.json is not a seal manifest.", "manifest.json"))
  const m = manifest.right
  if (m.sealId !== bundle.sealId || m.claimId !== bundle.claimId) {
    return Either.left(refuse("manifest.json names another seal or record than the bundle.", "manifest.json"))
  }
  const others = artifacts.filter((a) => a.name !== "manifest.json")
  for (const a of others) {
    const listed = m.artifacts.find((x) => x.name === a.name)
    if (listed === undefined) {
      return Either.left(refuse(`${a.name} is not listed in the signed manifest.`, a.name))
    }
    if (listed.bytes !== a.bytes.length || listed.sha256 !== createHash("sha256").update(a.bytes).digest("hex")) {
      return Either.left(refuse(`${a.name} does not match the signed manifest (size or SHA-256).`, a.name))
    }
  }
  for (const listed of m.artifacts) {
    if (!others.some((a) => a.name === listed.name)) {
      return Either.left(refuse(`${listed.name} is listed in the manifest but missing from the seal.`, listed.name))
    }
  }
  return Either.right({ manifest: m, artifacts })
}
