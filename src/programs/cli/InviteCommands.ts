/**
 * `invite`: drafts the record into a metadata-only snapshot, shows exactly what would be sent, and
 * uploads it to the portal once a human said yes; `--no-upload` writes the snapshot only.
 * `serve-claim`: serves that snapshot on this machine as the claim page (its program loads on demand).
 *
 * Refusals come in SPEC.md's order: recipient, catalog-only, map missing, stale, size, confirmation,
 * portal address. The snapshot file always holds exactly the bytes an upload sends.
 */
import { Command, Options, Prompt } from "@effect/cli"
import { Effect, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import { RecipientEmail, uploadCapBytes } from "../../domain/Snapshot.js"
import {
  CatalogOnly,
  InviteRecipientRequired,
  MailNotConfigured,
  MapNotFound,
  PortalUnreachable,
  StaleCatalog,
  UploadNotConfirmed
} from "../../errors/index.js"
import { ReaderConfigLive } from "../../layers/Main.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { indexPath, StoreReadOnlyLive } from "../../layers/Sql.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { checkSize, Invite, type InvitePreview } from "../../services/Invite.js"
import { portalAddress, PortalClient, quoted } from "../../services/PortalClient.js"
import { ReaderLive } from "../../services/Reader.js"
import { bold, CliFlags, dim, emit, green, red, stderrLine, yellow } from "./render.js"

const isRecipient = Schema.is(RecipientEmail)

/** Reader and the store's read half over the existing catalog (MAP_NOT_FOUND otherwise), and the invite service over them. */
const InviteLive = Invite.Default.pipe(
  Layer.provide(ReaderLive.pipe(Layer.provide(ReaderConfigLive), Layer.provideMerge(StoreReadOnlyLive)))
)

const unboundWarning =
  "--unbound: whoever holds the claim link becomes the record's admin. Give the link only to the person who should own the record."

const stayLocal = "or stay local: `catalog invite --no-upload`, then `catalog serve-claim` shows the claim page here."

const portalRefusal = (problem: string | null) =>
  problem === null
    ? new PortalUnreachable({
      message:
        "The hosted portal is not switched on yet, so nothing was tried: CATALOG_PORTAL_URL is not set. Nothing was sent.",
      fix: `Set CATALOG_PORTAL_URL to the address of a running portal, ${stayLocal}`,
      param: "CATALOG_PORTAL_URL"
    })
    : new PortalUnreachable({
      message: `${problem} Nothing was sent.`,
      fix: `Set CATALOG_PORTAL_URL to the portal's address, e.g. https://portal.example.com, ${stayLocal}`,
      param: "CATALOG_PORTAL_URL"
    })

const fmtBytes = (n: number) => n.toLocaleString("en")

const statusWord = (s: string) => (s === "confirmed" ? green(s) : s === "needs review" ? red(s) : yellow(s))

/** The preview as a human reads it (stdout). */
export const previewText = (p: InvitePreview, file: string, bytes: number, sha256: string): string =>
  [
    bold("Invite: exactly what would be sent") + dim(` (${p.stamp})`),
    `  recipient:   ${
      p.recipient !== null
        ? p.recipient
        : p.unbound
        ? "unbound (whoever opens the link first becomes the record's admin)"
        : "none chosen (pass --email <address> or --unbound to upload)"
    }`,
    `  portal:      ${p.portal ?? "not set (CATALOG_PORTAL_URL)"}`,
    `  controller:  ${
      p.controller
        ? `${p.controller.name ?? "(name missing)"} <${p.controller.contact ?? "contact missing"}>`
        : "not set"
    }`,
    `  catalog:     ${p.sources} sources, ${p.datasets} datasets, ${p.columns} columns, ${p.lineageEdges} lineage edges, ${p.glossaryTerms} glossary terms`,
    `  personal:    ${p.personalDataItems} personal-data items (personal ${p.classes.personal}, special ${p.classes.special}, criminal ${p.classes.criminal})`,
    `  RoPA:        ${p.ropa.activities.length} activities, ${p.ropa.openLegalCalls} open legal calls`,
    ...p.ropa.activities.map((a) =>
      `    ${a.name} ${dim(`(${a.key}, ${a.datasets} datasets)`)}: purpose ${
        statusWord(a.legal.purpose)
      } · lawful basis ${statusWord(a.legal.lawfulBasis)} · retention ${statusWord(a.legal.retention)} · transfers ${
        statusWord(a.legal.transfers)
      }`
    ),
    `  DORA:        ${p.dora.inScope ? `in scope (${p.dora.tables} tables, ${p.dora.rows} rows)` : "not in scope"}`,
    `  coverage:    ${p.coverage.line}`,
    `  staleness:   last scan ${p.lastScanAt ?? "never"}; ${
      p.staleness.map((s) => `${s.source} ${s.staleness}`).join(", ") || "no sources"
    }`,
    `  contents:    ${p.contents}`,
    `Snapshot: ${file}`,
    `  ${fmtBytes(bytes)} bytes · sha256 ${sha256}`
  ].join("\n")

export interface InviteOptions {
  readonly noUpload: boolean
  readonly email: string | undefined
  readonly unbound: boolean
}

/** The whole `invite` run (exported for tests that drive it in-process). */
export const runInvite = (o: InviteOptions) =>
  Effect.gen(function*() {
    const flags = yield* CliFlags
    const env = yield* AppEnv
    // (1) recipient
    if (o.email !== undefined && o.unbound) {
      return yield* new InviteRecipientRequired({
        message: "--email and --unbound cannot be used together: a claim is either locked to one address or unbound.",
        fix: "Pass either --email <address> or --unbound, not both.",
        param: "email"
      })
    }
    if (o.email !== undefined && !isRecipient(o.email)) {
      return yield* new InviteRecipientRequired({
        message: `--email ${quoted(o.email)} is not one email address (local@domain, no spaces, no list).`,
        fix: "Pass one address, e.g. --email dpo@acme.example, or --unbound.",
        param: "email"
      })
    }
    if (!o.noUpload && o.email === undefined && !o.unbound) {
      return yield* new InviteRecipientRequired({
        message: "An invite needs a recipient: the claim link is locked to the address it is mailed to.",
        param: "email"
      })
    }
    if (o.unbound) yield* stderrLine(yellow(`warning: ${unboundWarning}`))
    // (2) catalog-only (no catalog.yml means it is off: the missing catalog is the next refusal, not this one)
    const loaded = yield* (yield* ConfigFile).load().pipe(
      Effect.map((l): { readonly path: string; readonly file: { readonly catalogOnly: boolean } } => l),
      Effect.catchTag("ConfigNotFound", () => Effect.succeed({ path: "", file: { catalogOnly: false } }))
    )
    if (loaded.file.catalogOnly && !o.noUpload) {
      return yield* new CatalogOnly({
        message: `catalog-only is on in ${loaded.path}: no metadata leaves this machine, so invite does not upload.`
      })
    }
    // (3) the catalog exists (never created here)
    const dir = dataDir(env)
    if (!fs.existsSync(indexPath(dir))) {
      return yield* new MapNotFound({
        message: `There is no local catalog at ${dir} yet: there is nothing to draft.`
      })
    }
    return yield* Effect.gen(function*() {
      const invite = yield* Invite
      // (4) stale
      const stale = yield* invite.staleness
      if (stale.length > 0 && !flags.yes) {
        return yield* new StaleCatalog({
          message: `The catalog is stale: ${stale.map((s) => `${s.source} ${s.reason}`).join("; ")}.`,
          fix: "Re-run `catalog start` to refresh it, or pass --yes to send it as it is.",
          details: { sources: stale }
        })
      }
      const portal = portalAddress(env.env["CATALOG_PORTAL_URL"])
      const built = yield* invite.build({ recipient: o.email ?? null, unbound: o.unbound })
      const file = yield* invite.write(built)
      const preview = invite.preview(
        built,
        portal.url ?? (portal.problem !== null ? "not usable: CATALOG_PORTAL_URL is set but invalid (see below)" : null)
      )
      const tooLarge = built.bytes > uploadCapBytes
      if (o.noUpload) {
        const warnings = tooLarge
          ? [
            `The snapshot is ${
              fmtBytes(built.bytes)
            } bytes, over the 5 MB upload cap (${uploadCapBytes} bytes): it could not be uploaded (SNAPSHOT_TOO_LARGE).`
          ]
          : []
        yield* emit({
          snapshot: file,
          bytes: built.bytes,
          sha256: built.sha256,
          recipient: built.snapshot.recipient,
          unbound: built.snapshot.unbound,
          uploaded: false,
          preview,
          warnings,
          next: "catalog serve-claim"
        }, (x) =>
          [
            previewText(x.preview, x.snapshot, x.bytes, x.sha256),
            ...x.warnings.map((w) => yellow(`warning: ${w}`)),
            "Nothing was sent.",
            dim("Next: catalog serve-claim (the claim page, from this snapshot, on this machine)")
          ].join("\n"))
        return
      }
      // From here on the preview is shown before any refusal (JSON: the refusal alone).
      if (!flags.json) yield* emit(null, () => previewText(preview, file, built.bytes, built.sha256))
      // (5) size
      yield* checkSize(built.bytes)
      // (6) confirmation
      if (!flags.yes) {
        if (!env.interactive) {
          return yield* new UploadNotConfirmed({
            message: "There is no terminal to confirm the upload (or --non-interactive / CI is set); nothing was sent.",
            fix: "Pass --yes to upload this snapshot, or --no-upload to write the snapshot only."
          })
        }
        const yes = yield* Prompt.confirm({
          message: `Upload this snapshot (${fmtBytes(built.bytes)} bytes) to ${preview.portal ?? "the portal"}?`,
          initial: false
        })
        if (!yes) {
          return yield* new UploadNotConfirmed({
            message: "You did not confirm the upload; nothing was sent.",
            fix: "Re-run and answer yes, pass --yes, or use --no-upload to write the snapshot only."
          })
        }
      }
      // (7) portal address
      if (portal.url === null) return yield* portalRefusal(portal.problem)
      const token = env.env["CATALOG_INGEST_TOKEN"]?.trim()
      const receipt = yield* (yield* PortalClient).upload({
        portalUrl: portal.url,
        body: built.body,
        recordKey: yield* invite.recordKey,
        ingestToken: token !== undefined && token !== "" ? token : null
      })
      const notConfigured = receipt.mail.status === "not-configured"
      const mailError = receipt.mail.error ?? (notConfigured
        ? { code: MailNotConfigured.code, message: new MailNotConfigured().message, fix: MailNotConfigured.spec.fix }
        : null)
      const mail = { ...receipt.mail, error: mailError }
      if (mailError !== null && !flags.json) {
        yield* stderrLine(
          `${yellow(`warning: ${mailError.code}`)}: ${mailError.message} The claim exists; give the link yourself.${
            mailError.fix ? `\n  fix: ${mailError.fix}` : ""
          }`
        )
      }
      yield* emit({
        claimUrl: receipt.claimUrl,
        claimId: receipt.claimId,
        bytes: built.bytes,
        sha256: built.sha256,
        recipient: receipt.recipient,
        unbound: receipt.unbound,
        mailed: receipt.mail.status === "sent" || receipt.mail.status === "logged",
        mail,
        supersedes: receipt.supersedes,
        portal: portal.url,
        snapshot: file
      }, (x) =>
        [
          `${green("Uploaded")} ${fmtBytes(x.bytes)} bytes to ${x.portal} (claim ${x.claimId}).`,
          ...(x.supersedes !== null ? [`supersedes ${x.supersedes}`] : []),
          `Claim link: ${bold(x.claimUrl)}`,
          x.mail.status === "sent"
            ? `The link was mailed to ${x.recipient ?? "the recipient"}.`
            : x.mail.status === "logged"
            ? "The portal is in dev mode: the mail was written to its log, not sent."
            : x.mail.status === "not-needed"
            ? "Unbound: no mail was sent; give the link to the person who should own the record."
            : `The link was not mailed (${x.mail.status}); give it to ${x.recipient ?? "the recipient"} yourself.`
        ].join("\n"))
    }).pipe(Effect.provide(Layer.merge(InviteLive, PortalClientLive)))
  })

export const invite = Command.make("invite", {
  noUpload: Options.boolean("no-upload").pipe(Options.withDescription(
    "write the snapshot to .catalog/invite-snapshot.json and print what would be sent; nothing leaves the machine (a recipient is optional)"
  )),
  email: Options.text("email").pipe(
    Options.withPseudoName("<address>"),
    Options.withDescription("lock the claim link to this recipient; the portal mails the link there"),
    Options.optional
  ),
  unbound: Options.boolean("unbound").pipe(Options.withDescription(
    "no recipient: whoever opens the claim link first becomes the record's admin (a warning is printed)"
  ))
}, (o) => runInvite({ noUpload: o.noUpload, email: Option.getOrUndefined(o.email), unbound: o.unbound })).pipe(
  Command.withDescription(
    "Draft the RoPA (and the DORA register when in scope) into a metadata-only snapshot, print exactly what would be sent (a readable preview, its size in bytes and the SHA-256 of the payload), ask for a yes, upload it to the portal at CATALOG_PORTAL_URL and print the claim link. --no-upload writes the snapshot only (then `catalog serve-claim`). Refusals, in order: recipient, catalog-only, no catalog, stale catalog (unless --yes), over 5,000,000 bytes, no confirmation, no portal address."
  )
)

export const serveClaim = Command.make(
  "serve-claim",
  {
    port: Options.text("port").pipe(
      Options.withPseudoName("<n>"),
      Options.withDescription(
        "port on 127.0.0.1 (default 4320, or CATALOG_CLAIM_PORT; 0 picks a free port and prints it)"
      ),
      Options.optional
    )
  },
  ({ port }) =>
    Effect.flatMap(
      Effect.promise(() => import("../portal/serveClaim.js")),
      (m) => Effect.flatMap(CliFlags, (f) => m.serveClaim({ port: Option.getOrUndefined(port), json: f.json }))
    )
).pipe(Command.withDescription(
  "Serve the local invite snapshot (.catalog/invite-snapshot.json, written by `invite --no-upload`) on 127.0.0.1 as the claim page its recipient would see, until Ctrl+C: read-only, marked local, nothing is sent; re-read on every request; its exact bytes at /snapshot.json. Loopback only (Host guard as `open`). Prints the URL on stderr (with --json, one line {url, snapshot, port} on stdout once listening). INVITE_NOT_FOUND without a snapshot."
))
