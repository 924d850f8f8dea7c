/**
 * `catalog admin …` on the portal machine, loaded on demand by the CLI (AdminCommands.ts):
 * `serve` (main.ts), `help` (the subcommands and the portal's environment), `tenants` (every claim) and
 * `remove <claimId> --yes` (the whole record the claim belongs to). `tenants` and `remove` read the store the portal's environment names
 * (CATALOG_PORTAL_DATABASE_URL, else `portal.db` in CATALOG_PORTAL_HOME) and never create one: with no
 * store on this machine they answer ADMIN_ENV_INCOMPLETE. The CLI prints what these return.
 */
import { Context, Effect, Layer } from "effect"
import * as path from "node:path"
import type { TenantRow } from "../../domain/Portal.js"
import { defaultPortalHome, portalEnvironment } from "../../domain/Portal.js"
import { AdminEnvIncomplete, AdminInputInvalid, AdminNotConfirmed } from "../../errors/index.js"
import { portalStoreExists, portalStoreLayer, type PortalStoreSettings } from "../../layers/portal/PortalSql.js"
import { AppEnv } from "../../services/AppEnv.js"
import { PortalStore } from "../../services/PortalStore.js"
import { claimNotFoundById } from "./Claims.js"
import { nowIso } from "./Context.js"

export { serve } from "./main.js"

/** The admin subcommands, as `admin help` lists them. */
export const adminSubcommands: ReadonlyArray<{ readonly usage: string; readonly description: string }> = [
  { usage: "catalog admin help [--json]", description: "this list: the subcommands and the portal's environment" },
  {
    usage: "catalog admin serve [--port <n>] [--json]",
    description:
      "start the portal (JSON API under /api/portal/v1, claim pages under /claim/) until Ctrl+C; with --json one line {url, api, port, storage} once listening"
  },
  {
    usage: "catalog admin tenants [--json]",
    description: "every claim: id, state, successor, recipient, created, last upload, bytes"
  },
  {
    usage: "catalog admin remove <claimId> --yes",
    description:
      "remove the record a claim belongs to: every claim of it (live and superseded) stops working (CLAIM_NOT_FOUND); their snapshots, sessions and codes are deleted"
  }
]

export const adminHelp = { subcommands: adminSubcommands, environment: portalEnvironment } as const

const notLoaded = (detail: string) =>
  new AdminEnvIncomplete({
    message: `The portal settings are not loaded: ${detail}.`,
    fix:
      "Run it on the portal machine with its environment (CATALOG_PORTAL_DATABASE_URL, or CATALOG_PORTAL_HOME where the SQLite store lives).",
    param: "CATALOG_PORTAL_DATABASE_URL"
  })

/** The store this machine's portal environment names; ADMIN_ENV_INCOMPLETE when there is none. */
const storeSettings = Effect.gen(function*() {
  const env = yield* AppEnv
  const url = env.env["CATALOG_PORTAL_DATABASE_URL"]?.trim()
  const homeVar = env.env["CATALOG_PORTAL_HOME"]?.trim()
  const home = path.resolve(env.cwd, homeVar !== undefined && homeVar !== "" ? homeVar : defaultPortalHome)
  if (url !== undefined && url !== "") {
    if (!/^postgres(?:ql)?:\/\//.test(url)) {
      return yield* notLoaded("CATALOG_PORTAL_DATABASE_URL is not a postgres:// URL")
    }
    return { databaseUrl: url, home } satisfies PortalStoreSettings
  }
  const settings: PortalStoreSettings = { databaseUrl: null, home }
  if (!(yield* portalStoreExists(settings))) {
    return yield* notLoaded(`no CATALOG_PORTAL_DATABASE_URL and no portal store in ${home}`)
  }
  return settings
})

const withStore = <A, E>(use: (store: PortalStore["Type"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const settings = yield* storeSettings
    return yield* Effect.scoped(
      Effect.flatMap(
        Layer.build(portalStoreLayer(settings)).pipe(
          Effect.catchTag(
            "SqlError",
            (e) => Effect.fail(notLoaded(`the portal's store cannot be opened (${e.message})`))
          )
        ),
        (ctx) => use(Context.get(ctx, PortalStore))
      )
    )
  })

/** `admin tenants`: every claim, newest first as the store lists them. */
export const tenants = withStore((store) =>
  Effect.map(store.tenants, (rows): { readonly tenants: ReadonlyArray<TenantRow> } => ({ tenants: rows }))
).pipe(Effect.catchTag("SqlError", (e) => Effect.die(e)))

/** `admin remove <claimId> --yes`: removes the claim's record (every claim with its record key). */
export const remove = (args: ReadonlyArray<string>, yes: boolean) =>
  Effect.gen(function*() {
    const [claimId, ...extra] = args
    if (claimId === undefined || extra.length > 0) {
      return yield* new AdminInputInvalid({
        message: claimId === undefined
          ? "`catalog admin remove` needs the claim id (cl_…; `catalog admin tenants` lists them)."
          : `Unexpected arguments: ${extra.join(" ")}.`,
        fix: "Usage: `catalog admin remove <claimId> --yes`.",
        param: "claimId",
        usage: true
      })
    }
    if (!yes) {
      return yield* new AdminNotConfirmed({
        message:
          `Removing ${claimId} removes its record — every claim of the same record key: their links stop working and their snapshots, sessions and codes are deleted; it needs --yes.`,
        fix: `Re-run with --yes: \`catalog admin remove ${claimId} --yes\`.`
      })
    }
    const at = yield* nowIso
    const removed = yield* withStore((store) => store.remove(claimId, at)).pipe(
      Effect.catchTag("SqlError", (e) => Effect.die(e))
    )
    if (removed === null) return yield* claimNotFoundById(claimId)
    return { removed: removed.claim.id, state: removed.claim.state, claims: removed.claims }
  })
