/** `doctor`: resolves and probes the whole setup; every problem is printed with its fix. */
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { isCatalogError } from "../../errors/index.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { indexPath, schemaVersion } from "../../layers/Sql.js"
import { storedSchemaVersion } from "../../layers/store/schemaVersion.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"
import { configCandidates, ConfigFile } from "../../services/ConfigFile.js"
import { Connectors } from "../../services/Connectors.js"
import { PortalClient } from "../../services/PortalClient.js"
import { PortalKey } from "../../services/PortalKey.js"
import { Secrets } from "../../services/Secrets.js"
import { resolvePairing } from "../../services/Sync.js"
import { bold, emit, green, red, yellow } from "./render.js"

export interface Check {
  readonly name: string
  readonly ok: boolean
  /** `warn` checks do not fail the run. */
  readonly level: "ok" | "warn" | "error"
  readonly message: string
  readonly code?: string
  readonly fix?: string
}

const fromError = (name: string, e: unknown): Check => {
  if (isCatalogError(e)) {
    return {
      name,
      ok: false,
      level: "error",
      message: e.message,
      code: e.code,
      ...(e.fix !== null ? { fix: e.fix } : {})
    }
  }
  return { name, ok: false, level: "error", message: String(e) }
}

/**
 * Pairing, end to end, when CATALOG_PORTAL_URL or CATALOG_SYNC_TOKEN is set: the variables, the address
 * reachable (GET health), the token accepted (GET sync), the claim live, the portal's signing key against
 * the one pinned at pairing (pinned here when the catalog exists and nothing is pinned yet). Each failure
 * is a check line with its code and fix; the checks after a failed one are not run.
 */
export const pairingChecks = Effect.gen(function*() {
  const env = yield* AppEnv
  const set = (k: string) => (env.env[k]?.trim() ?? "") !== ""
  if (!set("CATALOG_PORTAL_URL") && !set("CATALOG_SYNC_TOKEN")) return [] as ReadonlyArray<Check>
  const checks: Array<Check> = []
  const pairing = yield* Effect.either(resolvePairing(env.env))
  if (pairing._tag === "Left") return [fromError("pairing", pairing.left)]
  if (pairing.right.kind === "unpaired") return []
  const request = pairing.right.request
  const client = yield* PortalClient
  const health = yield* Effect.either(client.health(request.portalUrl))
  if (health._tag === "Left") return [fromError("portal", health.left)]
  checks.push({
    name: "portal",
    ok: true,
    level: "ok",
    message: `reachable at ${request.portalUrl} (portal ${health.right.version}, ${health.right.storage})`
  })
  const status = yield* Effect.either(client.syncStatus(request))
  if (status._tag === "Left") {
    const e = status.left
    checks.push(fromError(e.code === "CLAIM_NOT_SYNCABLE" ? "claim" : "sync token", e))
    return checks
  }
  checks.push({ name: "sync token", ok: true, level: "ok", message: `accepted (token ${status.right.tokenId})` })
  checks.push({
    name: "claim",
    ok: true,
    level: "ok",
    message: `claim ${status.right.claimId} is live; last upload ${status.right.lastUploadAt ?? "never"}`
  })
  const key = yield* PortalKey
  const pinned = yield* Effect.either(
    Effect.flatMap(
      client.signingKey(request.portalUrl),
      (pem) =>
        Effect.flatMap(key.check(pem, request.portalUrl), (state) =>
          state === "same"
            ? Effect.succeed("matches the key pinned at pairing")
            : fs.existsSync(dataDir(env))
            ? Effect.as(key.pin(pem), `pinned now in ${key.file}`)
            : Effect.succeed("not pinned yet (the first `catalog push` pins it)"))
    )
  )
  checks.push(
    pinned._tag === "Right"
      ? { name: "portal key", ok: true, level: "ok", message: pinned.right }
      : fromError("portal key", pinned.left)
  )
  return checks
}).pipe(Effect.provide(Layer.merge(PortalClientLive, PortalKey.Default)))

export const runDoctor = Effect.gen(function*() {
  const env = yield* AppEnv
  const config = yield* ConfigFile
  const secrets = yield* Secrets
  const connectors = yield* Connectors
  const checks: Array<Check> = []
  checks.push({ name: "runtime", ok: true, level: "ok", message: `Node.js ${process.versions.node} (needs ≥ 22.18)` })

  const envFile = path.join(env.cwd, ".env")
  checks.push(
    fs.existsSync(envFile)
      ? { name: ".env", ok: true, level: "ok", message: `${envFile} loaded` }
      : {
        name: ".env",
        ok: true,
        level: "warn",
        message: "no .env in the working folder; connection strings must come from the environment",
        fix:
          "Put each source's connection string in .env as NAME=value (it is loaded automatically and never committed)."
      }
  )

  const loaded = yield* Effect.either(config.load())
  if (loaded._tag === "Left") {
    checks.push(fromError("config", loaded.left))
  } else {
    const cfg = loaded.right
    checks.push({
      name: "config",
      ok: true,
      level: "ok",
      message: `${cfg.path}: ${cfg.file.sources.length} source(s)${cfg.file.catalogOnly ? ", catalog-only on" : ""}`
    })
    if (cfg.file.sources.length === 0) {
      checks.push({
        name: "sources",
        ok: false,
        level: "error",
        code: "NO_SOURCES",
        message: "catalog.yml lists no sources.",
        fix: "Add one with `catalog add <postgres|mysql|sqlite|manual> --ref <VAR>`."
      })
    }
    for (const source of cfg.file.sources) {
      const result = yield* Effect.either(Effect.gen(function*() {
        const connector = yield* connectors.get(source.kind)
        const secret = yield* secrets.resolve(source, connector.needsSecret)
        if (connector.needsSecret) {
          checks.push({ name: `secret ${source.id}`, ok: true, level: "ok", message: `${source.connectionRef} is set` })
        }
        const t0 = performance.now()
        const probe = yield* connector.probe({ source, secret, baseDir: cfg.baseDir })
        return { probe, ms: Math.round(performance.now() - t0) }
      }))
      checks.push(
        result._tag === "Right"
          ? {
            name: `source ${source.id}`,
            ok: true,
            level: "ok",
            message: `reachable at ${result.right.probe.target}${
              result.right.probe.serverVersion ? ` (${result.right.probe.serverVersion})` : ""
            } in ${result.right.ms} ms`
          }
          : fromError(`source ${source.id}`, result.left)
      )
    }
  }

  const file = indexPath(dataDir(env))
  if (!fs.existsSync(file)) {
    checks.push({
      name: "store",
      ok: true,
      level: "warn",
      code: "MAP_NOT_FOUND",
      message: `no local catalog at ${file} yet`,
      fix: "Run `catalog start` to scan the configured sources."
    })
  } else {
    const found = yield* storedSchemaVersion(file)
    checks.push(
      found === schemaVersion
        ? { name: "store", ok: true, level: "ok", message: `${file} (schema version ${found})` }
        : found > schemaVersion
        ? {
          name: "store",
          ok: false,
          level: "error",
          code: "SCHEMA_MIGRATION_REQUIRED",
          message: `${file} has schema version ${found}; this build understands up to ${schemaVersion}.`,
          fix: "Upgrade local-data-catalog, or delete .catalog and re-run `catalog start`."
        }
        : found < 0
        ? {
          name: "store",
          ok: false,
          level: "error",
          code: "SCHEMA_MIGRATION_REQUIRED",
          message: `${file} is not a catalog this tool can read.`,
          fix: "Delete .catalog and re-run `catalog start`."
        }
        : {
          name: "store",
          ok: true,
          level: "warn",
          message: `${file} has schema version ${found}; the next \`catalog start\` migrates it to ${schemaVersion}.`
        }
    )
  }
  checks.push(...(yield* pairingChecks))
  const failed = checks.filter((c) => !c.ok)
  const first = failed[0]
  const report = {
    ok: failed.length === 0,
    configLookedAt: configCandidates(env),
    checks,
    ...(first?.code !== undefined
      ? {
        error: {
          code: first.code,
          message: `${failed.length} check(s) failed; first: ${first.name}: ${first.message}`,
          ...(first.fix ? { fix: first.fix } : {})
        }
      }
      : {})
  }
  yield* emit(report, (r) =>
    [
      bold("catalog doctor"),
      ...r.checks.map((c) =>
        `${c.level === "ok" ? green("✓") : c.level === "warn" ? yellow("!") : red("✗")} ${c.name}: ${c.message}${
          c.code ? ` [${c.code}]` : ""
        }${c.fix ? `\n    fix: ${c.fix}` : ""}`
      ),
      r.ok ? green("All checks passed.") : red(`${failed.length} check(s) failed.`)
    ].join("\n"))
  if (!report.ok) {
    yield* Effect.sync(() => {
      process.exitCode = 1
    })
  }
})
