/**
 * PLACEHOLDER for `catalog serve-claim`, to be replaced by the claim-page branch (the real module serves
 * the invite snapshot as the claim page on 127.0.0.1). It has the real module's shape so that the CLI's
 * wiring compiles: `serveClaim({ port, json })`. Without a snapshot it fails as the real one does
 * (INVITE_NOT_FOUND); with one, it says where the snapshot is and that this build cannot serve it yet.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { snapshotFileName } from "../../domain/Snapshot.js"
import { InviteNotFound, PortalNotInstalled } from "../../errors/index.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"

export interface ServeClaimOptions {
  /** `--port`, as typed. */
  readonly port: string | undefined
  /** `--json`: print one JSON line `{ url, port, snapshot }` on stdout once listening. */
  readonly json: boolean
}

export const serveClaim = (_options: ServeClaimOptions) =>
  Effect.gen(function*() {
    const file = path.join(dataDir(yield* AppEnv), snapshotFileName)
    if (!fs.existsSync(file)) {
      return yield* new InviteNotFound({ message: `There is no invite snapshot at ${file}.` })
    }
    return yield* new PortalNotInstalled({
      message: `The snapshot is at ${file}, but this build cannot serve the claim page yet.`
    })
  })
