/**
 * `push`: metadata sync to the paired portal — the refreshed draft (the snapshot `invite` builds, with no
 * recipient) uploaded to the claim CATALOG_SYNC_TOKEN names. Refusals in order: catalog-only (nothing
 * leaves), no catalog, the pairing (SYNC_MISCONFIGURED / SYNC_UNAUTHORIZED from the environment), then what
 * the portal says (services/Sync.ts). After the upload stood: the DORA cells filled on the claim page are
 * pulled (`afterPush`, the rule of `catalog dora pull`); a failed pull is only a DORA_PULL_FAILED warning.
 */
import { Command } from "@effect/cli"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { officialInstalled } from "../../edition.js"
import { CatalogOnly, DoraPullFailed, MapNotFound } from "../../errors/index.js"
import { WriteLive } from "../../layers/Main.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import type { Dora } from "../../services/Dora.js"
import type { PullConflict } from "../../services/DoraPull.js"
import { Invite } from "../../services/Invite.js"
import type { PortalClient, SyncRequest } from "../../services/PortalClient.js"
import { PortalKey } from "../../services/PortalKey.js"
import { noteSealLapse, pullNewerSeal } from "../../services/Seals.js"
import type { StoreReader } from "../../services/Store.js"
import { notPaired, resolvePairing, Sync } from "../../services/Sync.js"
import { bold, CliFlags, dim, emit, green, red, stderrLine, yellow } from "./render.js"

/** Sync with the portal client and the pinned key, over a catalog the caller provides (`start`, `watch`: the scan's). */
export const SyncOnCatalog = Sync.Default.pipe(
  Layer.provide(Layer.mergeAll(Invite.Default, PortalKey.Default, PortalClientLive))
)

/**
 * Sync over the catalog (read and the change-log's writes). The catalog must exist (checked before:
 * MAP_NOT_FOUND), so the write layer never creates one.
 */
export const SyncLive = SyncOnCatalog.pipe(Layer.provideMerge(WriteLive))

/** What `push` says about the DORA cells filled on the claim page, pulled after the upload. */
export type PushDora =
  | {
    readonly status: "pulled"
    readonly applied: number
    readonly unchanged: number
    readonly conflicts: number
    readonly refused: number
    /** The conflicts, each with both values and the fix (a person's local value is never replaced). */
    readonly conflictCells: ReadonlyArray<PullConflict>
  }
  /** DORA is not in scope here (dora.inScope in catalog.yml): nothing to pull. */
  | { readonly status: "not-in-scope" }
  /** The pull failed after the push stood (a warning; push still exits 0). */
  | {
    readonly status: "failed"
    readonly error: { readonly code: string; readonly message: string; readonly fix: string | null }
  }

const pullModule = Effect.promise(() => import("../../services/DoraPull.js"))
const doraModule = Effect.promise(() => import("../../services/Dora.js"))

/**
 * After a successful push: the DORA cells filled on the claim page, pulled into the local register under the
 * conflict rule of `catalog dora pull` (docs/dora.md). Never a failure: the push stood, so a pull that fails
 * is reported as DORA_PULL_FAILED (a warning) and push exits 0.
 */
export const afterPush = (
  request: SyncRequest,
  doraInScope: boolean
): Effect.Effect<PushDora, never, PortalClient | Dora | StoreReader | ConfigFile> =>
  Effect.gen(function*() {
    if (!doraInScope) return { status: "not-in-scope" } satisfies PushDora
    const { doraScope } = yield* doraModule
    const { pullDoraFills } = yield* pullModule
    const entity = yield* doraScope("pull into")
    const r = yield* pullDoraFills(entity, request)
    return {
      status: "pulled",
      applied: r.applied.length,
      unchanged: r.unchanged.length,
      conflicts: r.conflicts.length,
      refused: r.refused.length,
      conflictCells: r.conflicts
    } satisfies PushDora
  }).pipe(
    Effect.catchAll((e) => {
      const failed = e._tag === "DoraPullFailed"
        ? e
        : new DoraPullFailed({
          message: `The DORA cells could not be pulled after the push (${e.code}): ${e.message}`,
          fix: e.fix ?? "Run `catalog dora pull` to pull them again."
        })
      return Effect.succeed(
        {
          status: "failed",
          error: { code: failed.code, message: failed.message, fix: failed.fix ?? null }
        } satisfies PushDora
      )
    })
  )

interface LoadedForPush {
  readonly path: string
  readonly file: { readonly catalogOnly: boolean; readonly dora?: { readonly inScope?: boolean } | undefined }
}

/** The whole `push` run (exported for tests that drive it in-process). */
export const runPush = Effect.gen(function*() {
  const env = yield* AppEnv
  // (1) catalog-only (no catalog.yml means it is off: the missing catalog is the next refusal)
  const loaded = yield* (yield* ConfigFile).load().pipe(
    Effect.map((l): LoadedForPush => l),
    Effect.catchTag(
      "ConfigNotFound",
      (): Effect.Effect<LoadedForPush> => Effect.succeed({ path: "", file: { catalogOnly: false } })
    )
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
  const doraInScope = loaded.file.dora?.inScope === true
  const pushed = yield* Effect.gen(function*() {
    // The seal's licence expired since the last writing command: "unsealed: licence expired" (once).
    yield* noteSealLapse
    const result = yield* (yield* Sync).push(pairing.request)
    // The push stood; then the DORA cells filled on the claim page (a failure here is only a warning).
    const { Dora } = yield* doraModule
    const dora = yield* afterPush(pairing.request, doraInScope).pipe(
      Effect.provide(Layer.mergeAll(Dora.Default, PortalClientLive))
    )
    // A seal the portal has and this machine has not (the full build only): pulled, verified, stored.
    const seal = officialInstalled ? yield* pullNewerSeal(pairing.request) : null
    return { ...result, dora, seal }
  }).pipe(Effect.provide(Layer.mergeAll(PortalKey.Default, PortalClientLive)), Effect.provide(SyncLive))
  const flags = yield* CliFlags
  if (pushed.dora.status === "failed" && !flags.json) {
    yield* stderrLine(
      `${yellow(`warning: ${pushed.dora.error.code}`)}: ${pushed.dora.error.message} The push stood.${
        pushed.dora.error.fix !== null ? `\n  fix: ${pushed.dora.error.fix}` : ""
      }`
    )
  }
  yield* emit(pushed, (p) =>
    [
      `${green("Pushed")} the draft to claim ${bold(p.claimId)} at ${p.portal}.`,
      `  ${p.bytes.toLocaleString("en")} bytes · sha256 ${p.sha256} · received ${p.receivedAt}`,
      ...(p.firstPairing ? [`Paired: this catalog now syncs with claim ${p.claimId} (token ${p.tokenId}).`] : []),
      ...(p.keyPinned ? [dim(`The portal's signing key was pinned in ${dir}/portal-signing-key.pem.`)] : []),
      ...(p.dora.status === "pulled"
        ? [
          `DORA cells from the claim page: ${green(`${p.dora.applied} applied`)}, ${p.dora.unchanged} unchanged, ${
            p.dora.conflicts > 0 ? yellow(`${p.dora.conflicts} conflict(s)`) : "0 conflicts"
          }${p.dora.refused > 0 ? `, ${red(`${p.dora.refused} refused`)}` : ""}.`,
          ...p.dora.conflictCells.map((c) =>
            yellow(
              `  conflict  ${c.table} row ${c.rowKey}, ${c.field}: kept this machine's value ${
                JSON.stringify(c.local.value)
              } (portal: ${JSON.stringify(c.portal.value)})`
            )
          ),
          ...(p.dora.conflicts > 0 || p.dora.refused > 0 ? [dim("  Details and fixes: catalog dora pull")] : [])
        ]
        : p.dora.status === "failed"
        ? [yellow(`DORA cells not pulled (${p.dora.error.code}); the push stood.`)]
        : []),
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
    "Metadata sync to the paired portal: upload the refreshed draft (the snapshot `invite` builds: names, types, flags and drafts, never a row value) to the claim CATALOG_SYNC_TOKEN names at CATALOG_PORTAL_URL, and print the claim, bytes, SHA-256 and time; then pull the DORA cells filled on the claim page (as `catalog dora pull` does: a person's local value is kept and listed as a conflict; a failed pull is a DORA_PULL_FAILED warning, the push stands). Catalog-only wins (CATALOG_ONLY: nothing leaves). Pair a machine on the claim page under 'Connect a machine'."
  )
)
