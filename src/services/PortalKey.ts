/**
 * The portal's public signing key as this machine first saw it, pinned in `.catalog/portal-signing-key.pem`
 * (0600) at the first successful sync contact (push, the upload after a scan, doctor). Licences and sealed
 * artifacts are verified against the pinned key offline; a portal that later answers with another key is
 * refused (SYNC_FAILED: the key changed since pairing) until the operator confirms the rotation and the
 * pinned file is deleted by hand.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { portalKeyFileName } from "../domain/Sync.js"
import { InvalidParam, SyncFailed } from "../errors/index.js"
import { AppEnv, dataDir } from "./AppEnv.js"
import { Files } from "./Files.js"

/** A PEM compared by its content: line endings and surrounding blank space do not count. */
const normalise = (pem: string): string => pem.replace(/\r\n/g, "\n").trim()

export class PortalKey extends Effect.Service<PortalKey>()("catalog/PortalKey", {
  effect: Effect.gen(function*() {
    const files = yield* Files
    const env = yield* AppEnv
    const file = path.join(dataDir(env), portalKeyFileName)
    const refuse = (message: string) =>
      new InvalidParam({
        message,
        fix: "Set CATALOG_DATA to a folder you can write (default: .catalog in the working folder).",
        param: "CATALOG_DATA"
      })

    /** The pinned key (PEM), or null before the first contact. */
    const pinned = Effect.gen(function*() {
      const probe = yield* files.probe(file)
      if (probe.kind === "missing") return null
      if (probe.kind !== "file") return yield* refuse(`The pinned portal key ${file} is not a regular file.`)
      const text = yield* files.readRegularFile(file, 16_384).pipe(
        Effect.mapError((e) => refuse(`The pinned portal key ${file} cannot be read (${e.reason}).`))
      )
      return normalise(text) === "" ? null : normalise(text) + "\n"
    })

    /** Pins `pem` (0600, atomic), replacing whatever was pinned. */
    const pin = (pem: string) =>
      files.writePrivateFile(file, normalise(pem) + "\n").pipe(
        Effect.mapError((e) => refuse(`The portal key ${file} cannot be written (${e.reason}).`))
      )

    /**
     * The key `portalUrl` answers with, against the pinned one: "unpinned" (nothing pinned yet: the caller
     * pins it once the contact succeeded), "same", or SYNC_FAILED for another key (nothing is changed).
     */
    const check = (pem: string, portalUrl: string) =>
      Effect.gen(function*() {
        const current = yield* pinned
        if (current === null) return "unpinned" as const
        if (normalise(current) === normalise(pem)) return "same" as const
        return yield* new SyncFailed({
          message:
            `The portal at ${portalUrl} signs with another key than the one pinned at pairing (${file}): its signing key changed since this machine was paired. Nothing was sent.`,
          fix:
            `Ask the portal's operator whether they rotated the signing key. Only if they confirm it, delete ${file}; the next \`catalog push\` pins the new key. Otherwise do not sync: the address may not be your portal.`,
          details: { pinned: file }
        })
      })

    return { file, pinned, pin, check } as const
  })
}) {}
