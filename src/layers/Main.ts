/**
 * Layer composition. Read programs get `Reader` over a read-only store (no write methods exist in
 * their context); the CLI's write commands get `Store` as well. Each layer factory is bound once.
 */
import { Effect, Layer } from "effect"
import { AppEnv } from "../services/AppEnv.js"
import { ConfigFile } from "../services/ConfigFile.js"
import { ReaderConfigTag, ReaderLive } from "../services/Reader.js"
import { Secrets } from "../services/Secrets.js"
import { resolvePairing } from "../services/Sync.js"
import { SqlWriteLive, StoreReadOnlyLive } from "./Sql.js"

/** What the reader knows of catalog.yml, when there is one (a broken file only loses coverage detail). */
export const ReaderConfigLive = Layer.effect(
  ReaderConfigTag,
  Effect.gen(function*() {
    const cfg = yield* ConfigFile
    const env = yield* AppEnv
    const loaded = yield* cfg.loadOptional().pipe(Effect.orElseSucceed(() => null))
    const f = loaded?.file
    const pairing = yield* Effect.either(resolvePairing(env.env))
    return {
      controller: f?.controller ? { name: f.controller.name ?? null, contact: f.controller.contact ?? null } : null,
      dora: f?.dora
        ? {
          inScope: f.dora.inScope,
          entity: {
            lei: f.dora.entity?.lei ?? null,
            name: f.dora.entity?.name ?? null,
            country: f.dora.entity?.country ?? null,
            currency: f.dora.entity?.currency ?? null
          }
        }
        : null,
      configuredSources: loaded ? loaded.file.sources : null,
      catalogOnly: loaded?.file.catalogOnly ?? false,
      pairedWith: pairing._tag === "Right" && pairing.right.kind === "paired" ? pairing.right.request.portalUrl : null,
      now: () => new Date()
    }
  })
)

/** Read-only: Reader over an existing catalog (`MAP_NOT_FOUND` otherwise). */
export const ReadLive = ReaderLive.pipe(
  Layer.provide(ReaderConfigLive),
  Layer.provide(StoreReadOnlyLive)
)

/** Read and write, creating the catalog if needed. */
export const WriteLive = ReaderLive.pipe(
  Layer.provide(ReaderConfigLive),
  Layer.provideMerge(SqlWriteLive)
)

/**
 * The connectors (pg, mysql2, csv-parse) and the classifier's vocabularies are loaded only by the
 * commands that use them: a `status` never pays for them at start-up.
 */
export const ConnectorsLazy = Layer.unwrapEffect(
  Effect.promise(() => import("./connectors/index.js")).pipe(Effect.map((m) => m.ConnectorsLive))
)

/** Everything `start` needs (loaded on demand). */
export const ScanLive = Layer.unwrapEffect(
  Effect.promise(() => import("./Scan.js")).pipe(Effect.map((m) => m.ScanLive))
).pipe(
  Layer.provideMerge(WriteLive),
  Layer.provide(Secrets.Default)
)
