/**
 * `push`: metadata sync to the paired portal — the refreshed draft (the snapshot `invite` builds, with no
 * recipient) uploaded to the claim CATALOG_SYNC_TOKEN names. Refusals in order: catalog-only (nothing
 * leaves), no catalog, the pairing (SYNC_MISCONFIGURED / SYNC_UNAUTHORIZED from the environment), then what
 * the portal says (services/Sync.ts).
 */
import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { officialInstalled } from "../../edition.js"
import { CatalogOnly, MapNotFound } from "../../errors/index.js"
import { WriteLive } from "../../layers/Main.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { Invite } from "../../services/Invite.js"
import { PortalKey } from "../../services/PortalKey.js"
import { noteSealLapse, pullNewerSeal } from "../../services/Seals.js"
import { notPaired, type PushResult, resolvePairing, Sync } from "../../services/Sync.js"
import { bold, dim, emit, green } from "./render.js"

/** Sync with the portal client and the pinned key, over a catalog the caller provides (`start`, `watch`: the scan's). */
export const SyncOnCatalog = Sync.Default.pipe(
  Layer.provide(Layer.mergeAll(Invite.Default, PortalKey.Default, PortalClientLive))
)

/**
 * Sync over the catalog (read and the change-log's writes). The catalog must exist (checked before:
 * MAP_NOT_FOUND), so the write layer never creates one.
 */
export const SyncLive = SyncOnCatalog.pipe(Layer.provideMerge(WriteLive))

/**
 * After a successful push: where the lead wires the DORA pull (issue 12 part 2, `dora pull`): the cells
 * filled on the claim page, pulled into the local register. Nothing yet.
 */
export const afterPush = (_pushed: PushResult): Effect.Effect<void> => Effect.void

/** The whole `push` run (exported for tests that drive it in-process). */
export const runPush = Effect.gen(function*() {
  const env = yield* AppEnv
  // (1) catalog-only (no catalog.yml means it is off: the missing catalog is the next refusal)
  const loaded = yield* (yield* ConfigFile).load().pipe(
    Effect.map((l): { readonly path: string; readonly file: { readonly catalogOnly: boolean } } => l),
    Effect.catchTag("ConfigNotFound", () => Effect.succeed({ path: "", file: { catalogOnly: false } }))
  )
  if (loaded.file.catalogOnly) {
    return yield* new CatalogOnly({
      message: `catalog-only is on in ${loaded.path}: no metadata leaves this machine, so push sends nothing.`,
      fix: "Switch it off with `catalog config catalog-only off` if this record should sync with its portal."
    })
  }
  // (2) the catalog exists (never created here)
  const dir = dataDir(env)
  if (!fs.existsSync(indexPath(dir))) {
    return yield* new MapNotFound({ message: `There is no local catalog at ${dir} yet: there is nothing to push.` })
  }
  // (3) the pairing
  const pairing = yield* resolvePairing(env.env)
  if (pairing.kind === "unpaired") return yield* notPaired()
  const pushed = yield* Effect.gen(function*() {
    // The seal's licence expired since the last writing command: "unsealed: licence expired" (once).
    yield* noteSealLapse
    const result = yield* (yield* Sync).push(pairing.request)
    // Hook: the DORA pull after a push (issue 12 part 2).
    yield* afterPush(result)
    // A seal the portal has and this machine has not (the full build only): pulled, verified, stored.
    const seal = officialInstalled ? yield* pullNewerSeal(pairing.request) : null
    return { ...result, seal }
  }).pipe(Effect.provide(Layer.mergeAll(PortalKey.Default, PortalClientLive)), Effect.provide(SyncLive))
  yield* emit(pushed, (p) =>
    [
      `${green("Pushed")} the draft to claim ${bold(p.claimId)} at ${p.portal}.`,
      `  ${p.bytes.toLocaleString("en")} bytes · sha256 ${p.sha256} · received ${p.receivedAt}`,
      ...(p.firstPairing ? [`Paired: this catalog now syncs with claim ${p.claimId} (token ${p.tokenId}).`] : []),
      ...(p.keyPinned ? [dim(`The portal's signing key was pinned in ${dir}/portal-signing-key.pem.`)] : []),
      ...(p.seal?.status === "pulled"
        ? [green(`Pulled and verified the record's seal ${p.seal.sealId} (catalog status shows it).`)]
        : []),
      ...(p.seal?.status === "failed" && "error" in p.seal
        ? [`The portal has a seal this machine could not store (${p.seal.error.code}): ${p.seal.error.message}`]
        : [])
    ].join("\n"))
})

export const push = Command.make("push", {}, () => runPush).pipe(
  Command.withDescription(
    "Metadata sync to the paired portal: upload the refreshed draft (the snapshot `invite` builds: names, types, flags and drafts, never a row value) to the claim CATALOG_SYNC_TOKEN names at CATALOG_PORTAL_URL, and print the claim, bytes, SHA-256 and time. Catalog-only wins (CATALOG_ONLY: nothing leaves). Pair a machine on the claim page under 'Connect a machine'."
  )
)
