/**
 * `catalog admin …`: the portal operator's commands. The portal program (src/programs/portal) loads
 * only when one of them runs (`import()`), as `open` loads the HTTP stack. `admin` alone, or a
 * subcommand it does not have, is ADMIN_INPUT_INVALID (a usage error, exit 2: see usage.ts).
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { bold, CliFlags, dim, emit, stderrLine, table, yellow } from "./render.js"
import { needsSubcommand } from "./usage.js"

const portal = Effect.promise(() => import("../portal/admin.js"))

/**
 * A stored value as it may reach the operator's terminal: control characters (C0, DEL, C1 — ESC and CSI
 * included — backspace) and bidi overrides become U+FFFD, so a value written by an uploader can neither
 * drive the terminal nor reorder what it shows. Applied to every cell of the admin commands' human output.
 */
export const printable = (s: string): string => s.replace(/[\p{Cc}\u0080-\u009f\u202a-\u202e\u2066-\u2069]/gu, "\ufffd")

export const adminHelp = Command.make("help", {}, () =>
  Effect.flatMap(portal, (m) =>
    emit(m.adminHelp, (h) =>
      [
        bold("catalog admin: run and look after the portal"),
        "",
        ...h.subcommands.map((s) => `  ${s.usage}\n      ${dim(s.description)}`),
        "",
        bold("Environment (read by `admin serve`; `tenants` and `remove` read the store settings):"),
        ...h.environment.map((e) => `  ${e.name}\n      ${dim(e.description)}`),
        "",
        "docs/portal.md describes the portal, the claim flow and its JSON API."
      ].join("\n")))).pipe(
    Command.withDescription("List the admin subcommands and the portal's environment variables.")
  )

export const adminServe = Command.make(
  "serve",
  {
    port: Options.text("port").pipe(
      Options.withPseudoName("<n>"),
      Options.withDescription("serve: the portal's port (default 4330, or CATALOG_PORTAL_PORT; 0 picks a free port)"),
      Options.optional
    )
  },
  ({ port }) =>
    Effect.flatMap(
      portal,
      (m) => Effect.flatMap(CliFlags, (f) => m.serve({ port: Option.getOrUndefined(port), json: f.json }))
    )
).pipe(
  Command.withDescription(
    "Start the portal (settings from the environment: `catalog admin help`) until Ctrl+C; refuses to start without its Ed25519 signing key (PORTAL_NOT_READY)."
  )
)

export const adminTenants = Command.make(
  "tenants",
  {},
  () =>
    Effect.flatMap(portal, (m) =>
      Effect.flatMap(m.tenants, (r) =>
        emit(r, ({ tenants }) =>
          tenants.length === 0
            ? "No claims yet."
            : table(
              ["claim", "state", "successor", "recipient", "created", "last upload", "bytes"],
              tenants.map((t) =>
                [
                  t.claimId,
                  t.state,
                  t.successorId ?? "",
                  t.recipient ?? (t.unbound ? `(unbound${t.opened ? ", opened" : ""})` : ""),
                  t.createdAt,
                  t.lastUploadAt ?? "",
                  t.bytes === null ? "" : String(t.bytes)
                ].map(printable)
              )
            ))))
).pipe(
  Command.withDescription("List every claim on this portal (state, successor, recipient, created, last upload, bytes).")
)

export const adminRemove = Command.make("remove", {
  claimId: Args.text({ name: "claimId" }).pipe(
    Args.withDescription("a claim of the record to remove (cl_…)"),
    Args.repeated
  )
}, ({ claimId }) =>
  Effect.flatMap(portal, (m) =>
    Effect.flatMap(CliFlags, (f) =>
      Effect.flatMap(
        m.remove(claimId, f.yes),
        (r) =>
          emit(r, (x) =>
            [
              `Removed the record of ${printable(x.removed)}: ${x.claims.length} claim${
                x.claims.length === 1 ? "" : "s"
              } (${x.claims.map(printable).join(", ")}).`,
              "Their links now answer CLAIM_NOT_FOUND; their snapshots, sessions and codes are deleted."
            ].join("\n"))
      )))).pipe(
    Command.withDescription(
      "Remove the record a claim belongs to (needs --yes): every claim of it, live and superseded, stops working; their snapshots are deleted."
    )
  )

// ── admin licence ───────────────────────────────────────────────────────────────────────────────

export const adminLicenceIssue = Command.make("issue", {
  claimId: Args.text({ name: "claimId" }).pipe(
    Args.withDescription("the live claim of the record the licence is for (cl_…)"),
    Args.repeated
  ),
  expires: Options.text("expires").pipe(
    Options.withPseudoName("<YYYY-MM-DD>"),
    Options.withDescription("licence issue: valid through this day, UTC (default: one year from now)"),
    Options.optional
  )
}, ({ claimId, expires }) =>
  Effect.flatMap(portal, (m) =>
    Effect.flatMap(CliFlags, (f) =>
      Effect.gen(function*() {
        const r = yield* m.licenceIssue(claimId, Option.getOrUndefined(expires))
        const error = r.mail.error
        if (error !== null && !f.json) {
          yield* stderrLine(
            `${yellow(`warning: ${error.code}`)}: ${error.message} The licence exists; hand the key over yourself.${
              error.fix !== null ? `\n  fix: ${error.fix}` : ""
            }`
          )
        }
        yield* emit(r, (x) =>
          [
            `Issued licence ${x.licenceId} for ${printable(x.claimId)}, valid until ${x.expiresAt}.`,
            x.mailed
              ? `The key was mailed to ${printable(x.recipient ?? "the claim's recipient")} (the unlock e-mail).`
              : x.mail.status === "not-needed"
              ? "The claim is unbound: there is no address to mail. Hand this key to the record's admin yourself (it is shown once):"
              : x.mail.status === "logged"
              ? "The portal's mail is in dev mode: the unlock e-mail was written to the log, not sent. Hand this key over yourself (it is shown once):"
              : `The key was not mailed (${x.mail.status}). Hand it to ${
                printable(x.recipient ?? "the record's admin")
              } yourself (it is shown once):`,
            ...(x.key !== undefined ? [`  ${x.key}`, "They set it as CATALOG_LICENCE_KEY on the paired machine."] : [])
          ].join("\n"))
      })))).pipe(
    Command.withDescription(
      "Issue a licence key after payment (made outside the tool): signed with CATALOG_PORTAL_SIGNING_KEY, stored, and mailed to the claim's recipient (the unlock e-mail); an unbound claim, or mail that was not sent, prints the key instead."
    )
  )

export const adminLicenceRevoke = Command.make(
  "revoke",
  {
    licenceId: Args.text({ name: "licenceId" }).pipe(
      Args.withDescription("the licence to revoke (li_…; `catalog admin licence list`)"),
      Args.repeated
    )
  },
  ({ licenceId }) =>
    Effect.flatMap(
      portal,
      (m) =>
        Effect.flatMap(CliFlags, (f) =>
          Effect.flatMap(m.licenceRevoke(licenceId, f.yes), (r) =>
            emit(r, (x) =>
              x.alreadyRevoked
                ? `Licence ${x.licenceId} (${printable(x.claimId)}) was already revoked at ${x.revokedAt}.`
                : `Revoked licence ${x.licenceId} (${
                  printable(x.claimId)
                }): it is on the public revocation list and can no longer seal.`)))
    )
).pipe(
  Command.withDescription("Revoke a licence (needs --yes): it joins the portal's public revocation list.")
)

export const adminLicenceList = Command.make(
  "list",
  {},
  () =>
    Effect.flatMap(portal, (m) =>
      Effect.flatMap(m.licenceList, (r) =>
        emit(r, ({ licences }) =>
          licences.length === 0
            ? "No licences yet."
            : table(
              ["licence", "claim", "issued", "expires", "state", "mailed to"],
              licences.map((l) => [l.id, l.claimId, l.issuedAt, l.expiresAt, l.state, l.issuedTo ?? ""].map(printable))
            ))))
).pipe(
  Command.withDescription("List every licence: claim, issued, expires, state (active, expired, revoked), mailed to.")
)

export const adminLicence = Command.make("licence", {}, () => Effect.flatMap(portal, (m) => m.licenceNeedsVerb)).pipe(
  Command.withSubcommands([adminLicenceIssue, adminLicenceRevoke, adminLicenceList]),
  Command.withDescription(
    "Licence keys: `issue <claimId> [--expires <YYYY-MM-DD>]` after payment, `revoke <licenceId> --yes`, `list`."
  )
)

const subcommands = ["help", "serve", "tenants", "remove", "licence"]

export const admin = Command.make("admin", {}, () => needsSubcommand("admin", subcommands)).pipe(
  Command.withSubcommands([adminHelp, adminServe, adminTenants, adminRemove, adminLicence]),
  Command.withDescription(
    "Run the portal and look after it: `admin serve` starts it, `admin tenants` lists its claims, `admin remove` removes a record; `admin help` lists its environment."
  )
)
