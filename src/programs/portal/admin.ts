/**
 * `catalog admin …` on the portal machine, loaded on demand by the CLI (AdminCommands.ts):
 * `serve` (main.ts), `help` (the subcommands and the portal's environment), `tenants` (every claim) and
 * `remove <claimId> --yes` (the whole record the claim belongs to). `tenants` and `remove` read the store the portal's environment names
 * (CATALOG_PORTAL_DATABASE_URL, else `portal.db` in CATALOG_PORTAL_HOME) and never create one: with no
 * store on this machine they answer ADMIN_ENV_INCOMPLETE. The CLI prints what these return.
 */
import { Context, DateTime, Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { MailOutcome, TenantRow } from "../../domain/Portal.js"
import { defaultPortalHome, portalEnvironment } from "../../domain/Portal.js"
import { licenceIdPrefix, type LicenceInfo } from "../../domain/Sync.js"
import { AdminEnvIncomplete, AdminInputInvalid, AdminNotConfirmed, ClaimNotFound } from "../../errors/index.js"
import { makeMail } from "../../layers/portal/Mail.js"
import { portalStoreExists, portalStoreLayer, type PortalStoreSettings } from "../../layers/portal/PortalSql.js"
import { AppEnv } from "../../services/AppEnv.js"
import { issueLicence, licenceState } from "../../services/Licence.js"
import { licenceUnlockMessage, mailConfigFrom, mailOutcome } from "../../services/Mail.js"
import { type LicenceRecord, LicenceStore } from "../../services/portal/LicenceStore.js"
import { PortalStore } from "../../services/PortalStore.js"
import { claimNotFoundById } from "./Claims.js"
import { nowIso, randomToken } from "./Context.js"
import { loadSigningKey } from "./Settings.js"

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
  },
  {
    usage: "catalog admin licence issue <claimId> [--expires <YYYY-MM-DD>] [--json]",
    description:
      "after payment (outside the tool): sign a licence key for the claim's record with CATALOG_PORTAL_SIGNING_KEY (valid through the given day, UTC; default one year) and mail it to the claim's recipient; an unbound claim, or mail that cannot be sent, prints the key for you to hand over"
  },
  {
    usage: "catalog admin licence revoke <licenceId> --yes",
    description:
      "revoke a licence: it joins the public revocation list (GET /api/portal/v1/licences/revoked) and can no longer seal"
  },
  {
    usage: "catalog admin licence list [--json]",
    description: "every licence: id, claim, issued, expires, state (active, expired, revoked), mailed to"
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

const withStores = <A, E>(
  use: (store: PortalStore["Type"], licences: LicenceStore["Type"]) => Effect.Effect<A, E>
) =>
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
        (ctx) => use(Context.get(ctx, PortalStore), Context.get(ctx, LicenceStore))
      )
    )
  })

const withStore = <A, E>(use: (store: PortalStore["Type"]) => Effect.Effect<A, E>) => withStores((store) => use(store))

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

// ── admin licence ───────────────────────────────────────────────────────────────────────────────

const licenceUsage =
  "Usage: `catalog admin licence issue <claimId> [--expires <YYYY-MM-DD>]`, `catalog admin licence revoke <licenceId> --yes` or `catalog admin licence list`."

/** `admin licence` alone: a usage error naming its verbs (ADMIN_INPUT_INVALID, exit 2). */
export const licenceNeedsVerb = Effect.fail(
  new AdminInputInvalid({
    message: "`catalog admin licence` needs a verb: issue, revoke or list.",
    fix: licenceUsage,
    param: "subcommand",
    usage: true
  })
)

const oneArgument = (args: ReadonlyArray<string>, param: string, what: string) =>
  Effect.suspend(() => {
    const [value, ...extra] = args
    if (value === undefined || value.trim() === "" || extra.length > 0) {
      return Effect.fail(
        new AdminInputInvalid({
          message: value === undefined || value.trim() === "" ? what : `Unexpected arguments: ${extra.join(" ")}.`,
          fix: licenceUsage,
          param,
          usage: true
        })
      )
    }
    return Effect.succeed(value.trim())
  })

const expiresInvalid = (message: string) =>
  new AdminInputInvalid({
    message,
    fix:
      "Pass --expires <YYYY-MM-DD>, a date from today on (the licence is valid through that day, UTC), or leave it out for one year from now.",
    param: "--expires",
    usage: true
  })

/**
 * `--expires <YYYY-MM-DD>`: the licence is valid through that day (it expires at its last millisecond, UTC);
 * a malformed, impossible or past date is ADMIN_INPUT_INVALID naming --expires. Absent: one year from now.
 */
export const expiryFrom = (given: string | undefined, now: DateTime.Utc): Either.Either<string, AdminInputInvalid> => {
  if (given === undefined) return Either.right(DateTime.formatIso(DateTime.add(now, { years: 1 })))
  const day = given.trim()
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (m === null) return Either.left(expiresInvalid(`--expires must be a date written YYYY-MM-DD; got "${given}".`))
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const parsed = DateTime.make({ year: y, month: mo, day: d })
  if (
    parsed._tag === "None" || DateTime.getPartUtc(parsed.value, "year") !== y ||
    DateTime.getPartUtc(parsed.value, "month") !== mo || DateTime.getPartUtc(parsed.value, "day") !== d
  ) {
    return Either.left(expiresInvalid(`--expires names a day that does not exist: "${day}".`))
  }
  const today = DateTime.formatIso(now).slice(0, 10)
  if (day < today) {
    return Either.left(
      expiresInvalid(
        `--expires ${day} is in the past (today is ${today}, UTC): the licence would never unlock anything.`
      )
    )
  }
  return Either.right(`${day}T23:59:59.999Z`)
}

const readText = (p: string): string => fs.readFileSync(p, "utf8")

export interface LicenceIssued {
  readonly licenceId: string
  readonly claimId: string
  readonly expiresAt: string
  /** Whether the key was handed to a mail transport that sends it (`sent`); dev mode's log is not mailing it. */
  readonly mailed: boolean
  /** What happened to the unlock e-mail (`not-needed`: an unbound claim has no address). */
  readonly mail: MailOutcome
  /** The address it was mailed (or was to be mailed) to; null for an unbound claim. */
  readonly recipient: string | null
  /** The key, only when it was not mailed: the operator hands it over. */
  readonly key?: string
}

/**
 * `admin licence issue <claimId> [--expires <date>]`, checked in this order: the arguments
 * (ADMIN_INPUT_INVALID), the signing key (PORTAL_NOT_READY, as `admin serve`), the mail settings and the store
 * (ADMIN_ENV_INCOMPLETE), the claim (CLAIM_NOT_FOUND: unknown, removed or superseded). Then signs, stores and
 * mails the key to the bound claim's recipient; an unbound claim or mail that was not sent prints the key.
 */
export const licenceIssue = (args: ReadonlyArray<string>, expires: string | undefined) =>
  Effect.gen(function*() {
    const claimId = yield* oneArgument(
      args,
      "claimId",
      "`catalog admin licence issue` needs the claim id (cl_…; `catalog admin tenants` lists them)."
    )
    const now = yield* DateTime.now
    const expiresAt = yield* expiryFrom(expires, now)
    const env = yield* AppEnv
    const signingKey = yield* loadSigningKey(env.env, env.cwd, readText)
    const mailConfig = mailConfigFrom(env.env)
    if (Either.isLeft(mailConfig)) {
      const names = [...mailConfig.left.missing, ...mailConfig.left.malformed.map((m) => m.split(" ")[0]!)]
      return yield* new AdminEnvIncomplete({
        message: `The portal's mail settings are incomplete: ${names.join(", ")}.`,
        fix: `Fix ${names.join(", ")} in the portal's environment; \`catalog admin help\` lists every variable.`,
        param: names[0]!
      })
    }
    const mail = makeMail(mailConfig.right)
    const issuedAt = DateTime.formatIso(now)
    return yield* withStores((store, licences) =>
      Effect.gen(function*() {
        const claim = yield* store.claimById(claimId)
        if (claim === null || claim.state === "removed") return yield* claimNotFoundById(claimId)
        if (claim.state === "superseded") {
          return yield* new ClaimNotFound({
            message: `The claim ${claimId} was superseded${
              claim.successorId !== null ? ` by ${claim.successorId}` : ""
            }: a licence is issued for the record's live claim.`,
            fix: claim.successorId !== null
              ? `Issue it for the live claim: \`catalog admin licence issue ${claim.successorId}\`.`
              : "List claims with `catalog admin tenants`."
          })
        }
        const licenceId = `${licenceIdPrefix}${randomToken(12)}`
        const key = issueLicence(
          { v: 1, id: licenceId, claimId, issuedAt, expiresAt },
          signingKey.privateKey
        )
        yield* licences.issue({ id: licenceId, claimId, issuedAt, expiresAt, issuedTo: null })
        const to = claim.unbound ? null : claim.recipient
        const outcome: MailOutcome = to === null
          ? { status: "not-needed", transport: null, error: null }
          : yield* mailOutcome(mail, licenceUnlockMessage({ to, key, licenceId, claimId, expiresAt }))
        const mailed = outcome.status === "sent"
        if (mailed && to !== null) yield* licences.markMailed(licenceId, to)
        const issued: LicenceIssued = {
          licenceId,
          claimId,
          expiresAt,
          mailed,
          mail: outcome,
          recipient: to,
          ...(mailed ? {} : { key })
        }
        return issued
      })
    )
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.die(e)))

const licenceUnknown = (licenceId: string) =>
  new AdminInputInvalid({
    message: `No licence ${licenceId} on this portal.`,
    fix: "List licences with `catalog admin licence list`.",
    param: "licenceId"
  })

/**
 * `admin licence revoke <licenceId> --yes`: ADMIN_NOT_CONFIRMED without --yes; an unknown id is
 * ADMIN_INPUT_INVALID (exit 1; CLAIM_NOT_FOUND is about claims). Revoking twice keeps the first time.
 */
export const licenceRevoke = (args: ReadonlyArray<string>, yes: boolean) =>
  Effect.gen(function*() {
    const licenceId = yield* oneArgument(
      args,
      "licenceId",
      "`catalog admin licence revoke` needs the licence id (li_…; `catalog admin licence list` lists them)."
    )
    if (!yes) {
      return yield* new AdminNotConfirmed({
        message:
          `Revoking ${licenceId} puts it on the portal's public revocation list: it can no longer seal (LICENCE_REVOKED); it needs --yes.`,
        fix: `Re-run with --yes: \`catalog admin licence revoke ${licenceId} --yes\`.`
      })
    }
    const at = yield* nowIso
    return yield* withStores((_, licences) =>
      Effect.gen(function*() {
        const before = yield* licences.get(licenceId)
        if (before === null) return yield* licenceUnknown(licenceId)
        const after = yield* licences.revoke(licenceId, at)
        if (after === null) return yield* licenceUnknown(licenceId)
        return {
          licenceId,
          claimId: after.claimId,
          revokedAt: after.revokedAt ?? at,
          alreadyRevoked: before.revokedAt !== null
        }
      })
    )
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.die(e)))

/** One licence as `admin licence list` shows it. */
export interface LicenceListed extends LicenceRecord {
  readonly state: LicenceInfo["state"]
}

/** `admin licence list`: every licence, newest first, with its state now. */
export const licenceList = Effect.gen(function*() {
  const now = new Date(DateTime.toEpochMillis(yield* DateTime.now))
  return yield* withStores((_, licences) =>
    Effect.map(licences.list, (rows): { readonly licences: ReadonlyArray<LicenceListed> } => ({
      licences: rows.map((l) => ({ ...l, state: licenceState(l, now) }))
    }))
  )
}).pipe(Effect.catchTag("SqlError", (e) => Effect.die(e)))
