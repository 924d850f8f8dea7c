/**
 * What the settings in effect are (`catalog config`) and what the configured sources are, with the state
 * of their secrets and of their last scan (`catalog sources`): read from catalog.yml, the environment and
 * the catalog, never a secret's value.
 */
import { Effect } from "effect"
import type { SourceState } from "../domain/Catalog.js"
import type { SourceConfig } from "../domain/Config.js"
import { AppEnv, dataDir } from "./AppEnv.js"
import { ConfigFile } from "./ConfigFile.js"
import { secretState } from "./Secrets.js"

/** Whether a source's connection variable is usable: `secretSet` (kept for scripts) and the `secret` state. */
const secretFields = (env: Readonly<Record<string, string | undefined>>, ref: string | undefined) => {
  const secret = ref ? secretState(env, ref) : null
  return { secretSet: secret === null ? null : secret === "set", secret }
}

/** What names a configured source and where its metadata comes from (a variable's name, or a path). */
const sourceHead = (s: SourceConfig) => ({
  id: s.id,
  kind: s.kind,
  driver: s.driver,
  connectionRef: s.connectionRef ?? null,
  path: s.path ?? null
})

/** The variables `catalog config` reports (names the tool reads; never a secret). */
const reportedVariables = ["CATALOG_CONFIG", "CATALOG_DATA", "CATALOG_SIGNER_EMAIL"] as const

export class Settings extends Effect.Service<Settings>()("catalog/Settings", {
  effect: Effect.gen(function*() {
    const config = yield* ConfigFile
    const env = yield* AppEnv

    /** The settings in effect: files, catalog-only, controller, DORA scope, sources (variable names only), environment. */
    const show = Effect.fn("Settings.show")(function*() {
      const loaded = yield* config.loadOptional()
      const catalogOnly = loaded?.file.catalogOnly ?? false
      return {
        config: loaded?.path ?? null,
        dataDir: dataDir(env),
        catalogOnly,
        egress: catalogOnly
          ? "catalog-only: no metadata ever leaves this machine, even when paired"
          : "local; metadata leaves only through invite, watch, push or start once paired with a portal",
        controller: loaded?.file.controller ?? null,
        doraInScope: loaded?.file.dora?.inScope ?? false,
        sources: (loaded?.file.sources ?? []).map((s) => ({
          ...sourceHead(s),
          region: s.region ?? null,
          ...secretFields(env.env, s.connectionRef)
        })),
        environment: Object.fromEntries(reportedVariables.map((k) => [k, env.env[k] ?? null]))
      }
    })

    /**
     * The configured sources, each with its secret's state and, from `catalogStates` (the catalog's view,
     * read after catalog.yml; the caller decides where it comes from), its last scan: `never` when it was
     * never scanned.
     */
    const sources = <E, R>(catalogStates: Effect.Effect<ReadonlyArray<SourceState>, E, R>) =>
      Effect.gen(function*() {
        const cfg = yield* config.load()
        const states = yield* catalogStates
        const rows = cfg.file.sources.map((s) => {
          const st = states.find((x) => x.id === s.id)
          return {
            ...sourceHead(s),
            label: s.label ?? null,
            region: s.region ?? null,
            ...secretFields(env.env, s.connectionRef),
            status: st?.status ?? "never",
            staleness: st?.staleness ?? "never",
            datasets: st?.datasets ?? 0,
            lastScannedAt: st?.lastScannedAt ?? null
          }
        })
        return { config: cfg.path, sources: rows }
      }).pipe(Effect.withSpan("Settings.sources"))

    return { show, sources } as const
  })
}) {}
