/**
 * `catalog verify` — the human-only unlock-and-sign path (issue 12 part 4, Hard Rule #4) — and
 * `catalog seal pull` (a seal made on the claim page, fetched, verified and stored the same way).
 *
 * `verify`, in order:
 *   1. the official export and attestation are installed (`officialInstalled`; else PORTAL_NOT_INSTALLED,
 *      exit 1: not a fault, the free build does not have the paid step);
 *   2. a human at a terminal: refused off a TTY, with --non-interactive and under CI (CONFIRM_REQUIRED: no
 *      flag turns that off);
 *   3. catalog-only (CATALOG_ONLY) and the catalog (MAP_NOT_FOUND), as `push`;
 *   4. the pairing (SYNC_MISCONFIGURED / SYNC_UNAUTHORIZED, as `push`), GET sync (the claim live, the terms
 *      version), the portal's key against the pinned one (pinned at this first contact if it was not);
 *   5. the licence (`verifyMachineLicence`, the revocation list required: LICENCE_*, SYNC_FAILED);
 *   6. the portal's checks in the portal's order: TERMS_NOT_ACCEPTED (asked when the portal sets a version),
 *      CONTROLLER_REQUIRED (catalog.yml's controller, as the snapshot carries it), SIGNER_NAME_REQUIRED
 *      (CATALOG_SIGNER_NAME, CATALOG_SIGNER_ROLE; CATALOG_SIGNER_EMAIL when set), OPEN_LEGAL_CALLS unless
 *      --seal-with-open-calls (then listed and confirmed as sealed open);
 *   7. push the current draft (the seal is of what this human sees), a summary and a final yes (default no);
 *   8. POST sync/seal; the answer verified against the pinned key and stored (services/Seals.ts).
 */
import { Command, Options, Prompt } from "@effect/cli"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import { officialInstalled } from "../../edition.js"
import {
  CatalogOnly,
  ConfirmRequired,
  ControllerRequired,
  MapNotFound,
  OpenLegalCalls,
  PortalNotInstalled,
  SealPullFailed,
  SignerNameRequired,
  TermsNotAccepted
} from "../../errors/index.js"
import { WriteLive } from "../../layers/Main.js"
import { PortalClientLive } from "../../layers/PortalClient.js"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, type AppEnvShape, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { Invite } from "../../services/Invite.js"
import { verifyMachineLicence } from "../../services/LicenceCheck.js"
import { PortalClient, type SyncRequest } from "../../services/PortalClient.js"
import { PortalKey } from "../../services/PortalKey.js"
import { noteSealLapse, openLegalCalls, type StoredSeal, storeSeal } from "../../services/Seals.js"
import { notPaired, resolvePairing, Sync } from "../../services/Sync.js"
import { bold, dim, emit, green, yellow } from "./render.js"
import { needsSubcommand } from "./usage.js"

const VerifyLive = Sync.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(Invite.Default, PortalKey.Default, PortalClientLive)),
  Layer.provideMerge(WriteLive)
)

/** Step 1: the free build has no official export (PORTAL_NOT_INSTALLED). A function of the build's flag, for tests. */
export const installedGate = (official: boolean): Effect.Effect<void, PortalNotInstalled> =>
  official ? Effect.void : Effect.fail(
    new PortalNotInstalled({
      message:
        "This build of local-data-catalog does not install the official export and attestation (sealing, `catalog verify`, `catalog seal pull`): it is the free build. The draft, `invite` and `push` work as they are.",
      fix:
        "Seal on the claim page of your portal (Seal the record), or use the full build (built from the repository with `npm run build`)."
    })
  )

/** Step 2: signing is a human act at a terminal (CONFIRM_REQUIRED otherwise, whatever the flags). */
export const terminalGate = (env: AppEnvShape): Effect.Effect<void, ConfirmRequired> =>
  env.interactive ? Effect.void : Effect.fail(
    new ConfirmRequired({
      message:
        "Signing the record is a human act done at a terminal: `catalog verify` runs only with a terminal on stdin and stderr, and never with --non-interactive or under CI. No flag turns that off. Nothing was sent.",
      fix: "Run `catalog verify` yourself in a terminal (not through an agent, a script or CI)."
    })
  )

const set = (v: string | undefined): string | null => {
  const t = v?.replace(/\s+/g, " ").trim() ?? ""
  return t === "" ? null : t
}

/** Steps 3–4: catalog-only, the catalog, the pairing (shared by verify and seal pull). */
const pairing = Effect.gen(function*() {
  const env = yield* AppEnv
  const loaded = yield* (yield* ConfigFile).load().pipe(
    Effect.map((l): { readonly path: string; readonly file: { readonly catalogOnly: boolean } } => l),
    Effect.catchTag("ConfigNotFound", () => Effect.succeed({ path: "", file: { catalogOnly: false } }))
  )
  if (loaded.file.catalogOnly) {
    return yield* new CatalogOnly({
      message: `catalog-only is on in ${loaded.path}: nothing leaves this machine, so there is no portal to seal with.`,
      fix: "Switch it off with `catalog config catalog-only off` if this record should be sealed on its portal."
    })
  }
  const dir = dataDir(env)
  if (!fs.existsSync(indexPath(dir))) {
    return yield* new MapNotFound({ message: `There is no local catalog at ${dir} yet: there is nothing to seal.` })
  }
  const p = yield* resolvePairing(env.env)
  if (p.kind === "unpaired") return yield* notPaired()
  return p.request
})

/** GET sync and the portal's key against the pinned one (pinned now when nothing was). */
const contact = (request: SyncRequest) =>
  Effect.gen(function*() {
    const client = yield* PortalClient
    const key = yield* PortalKey
    const pem = yield* client.signingKey(request.portalUrl)
    const pinState = yield* key.check(pem, request.portalUrl)
    const status = yield* client.syncStatus(request)
    if (pinState === "unpinned") yield* key.pin(pem)
    return status
  })

const storedText = (s: StoredSeal) =>
  [
    `${green("Sealed")}: ${
      bold(s.sealId)
    } of claim ${s.claimId}, by ${s.row.signer_name} (${s.row.signer_role}) on ${s.row.sealed_at}.`,
    `  Licence ${s.row.licence_id} until ${s.row.licence_expires_at}.`,
    `  Verified against the pinned portal key and stored in ${s.dir}:`,
    ...s.artifacts.map((a) => `    ${a}  (+ ${a}.sig)`),
    dim(`  Check them with openssl alone: see docs/seal.md ("Verify with openssl alone").`)
  ].join("\n")

const storedJson = (s: StoredSeal, extra: Record<string, unknown> = {}) => ({
  sealId: s.sealId,
  claimId: s.claimId,
  sealedAt: s.row.sealed_at,
  signer: { name: s.row.signer_name, role: s.row.signer_role, email: s.row.signer_email },
  termsVersion: s.row.terms_version,
  acknowledgedOpenCalls: JSON.parse(s.row.acknowledged) as unknown,
  licence: { id: s.row.licence_id, issuedAt: s.row.licence_issued_at, expiresAt: s.row.licence_expires_at },
  dir: s.dir,
  artifacts: s.artifacts,
  stored: s.inserted,
  ...extra
})

const ask = (message: string) => Prompt.confirm({ message, initial: false })

/** The whole `verify` run (exported for tests that drive it in-process). */
export const runVerify = (flags: { readonly sealWithOpenCalls: boolean }) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    yield* installedGate(officialInstalled)
    yield* terminalGate(env)
    const request = yield* pairing
    return yield* Effect.gen(function*() {
      yield* noteSealLapse
      const status = yield* contact(request)
      const licence = yield* verifyMachineLicence({
        claimId: status.claimId,
        portalUrl: request.portalUrl,
        onRevocationUnavailable: "refuse"
      })
      // TERMS_NOT_ACCEPTED
      let acceptedTerms: string | null = null
      if (status.termsVersion !== null) {
        yield* Console(`The portal's customer agreement is version ${bold(status.termsVersion)}.`)
        const yes = yield* ask(`Do you accept the customer agreement version ${status.termsVersion}?`)
        if (!yes) {
          return yield* new TermsNotAccepted({
            message: `You did not accept the customer agreement (version ${status.termsVersion}); nothing was sealed.`,
            fix: "Read the agreement your portal's operator published, then run `catalog verify` again and accept it."
          })
        }
        acceptedTerms = status.termsVersion
      }
      // CONTROLLER_REQUIRED (catalog.yml's controller, as the snapshot carries it)
      const built = yield* (yield* Invite).build({ recipient: null, unbound: false })
      const controller = built.snapshot.controller ?? built.snapshot.ropa.controller
      const missing = [
        set(controller?.name ?? undefined) === null ? "name" : null,
        set(controller?.contact ?? undefined) === null ? "contact" : null
      ].filter((m): m is string => m !== null)
      if (missing.length > 0) {
        return yield* new ControllerRequired({
          message: `The controller's ${missing.join(" and ")} ${
            missing.length > 1 ? "are" : "is"
          } missing in catalog.yml; a RoPA names its controller (Art. 30(1)(a)). Nothing was sealed.`,
          fix: "Set controller.name and controller.contact in catalog.yml, then run `catalog verify` again.",
          details: { missing }
        })
      }
      // SIGNER_NAME_REQUIRED
      const name = set(env.env["CATALOG_SIGNER_NAME"])
      const role = set(env.env["CATALOG_SIGNER_ROLE"])
      const email = set(env.env["CATALOG_SIGNER_EMAIL"])
      if (name === null || role === null) {
        return yield* new SignerNameRequired({
          message: `The signer's ${
            [name === null ? "name" : null, role === null ? "role" : null].filter(Boolean).join(" and ")
          } ${
            name === null && role === null ? "are" : "is"
          } not set: a seal names who signed and in which capacity. Nothing was sealed.`,
          fix:
            "Set CATALOG_SIGNER_NAME and CATALOG_SIGNER_ROLE (and CATALOG_SIGNER_EMAIL if you like), then run `catalog verify` again.",
          param: name === null ? "CATALOG_SIGNER_NAME" : "CATALOG_SIGNER_ROLE"
        })
      }
      // OPEN_LEGAL_CALLS
      const open = openLegalCalls(built.snapshot.ropa.activities)
      if (open.length > 0 && !flags.sealWithOpenCalls) {
        return yield* new OpenLegalCalls({
          message: `${open.length} legal call${open.length === 1 ? " is" : "s are"} still open: ${
            open.slice(0, 5).map((c) => `${c.activity} · ${c.field} (${c.status})`).join("; ")
          }${open.length > 5 ? "; …" : ""}. Nothing was sealed.`,
          fix:
            "Confirm them with `catalog annotate set … --confirm` (or on the claim page), or seal with them open and recorded: `catalog verify --seal-with-open-calls`.",
          details: { open }
        })
      }
      if (open.length > 0) {
        yield* Console(
          [
            yellow(`${open.length} legal call(s) will be sealed OPEN, and recorded as such in the seal:`),
            ...open.map((c) => `  - ${c.activity} · ${c.field} (${c.status})`)
          ].join("\n")
        )
        if (!(yield* ask("Seal with these calls open, recorded in the seal?"))) {
          return yield* new OpenLegalCalls({
            message: "You did not acknowledge the open legal calls; nothing was sealed.",
            fix: "Confirm them first, or answer yes to seal them open (recorded)."
          })
        }
      }
      // Push the draft this human sees, then the summary and the final yes.
      const pushed = yield* (yield* Sync).push(request)
      yield* Console(
        [
          bold("About to seal the official record:"),
          `  claim      ${pushed.claimId} at ${request.portalUrl}`,
          `  signer     ${name} (${role})${email !== null ? ` <${email}>` : ""}`,
          `  snapshot   sha256 ${pushed.sha256} (${pushed.bytes.toLocaleString("en")} bytes, just pushed)`,
          `  licence    ${licence.info.id} until ${licence.info.expiresAt}`,
          `  terms      ${acceptedTerms ?? "none required"}`,
          `  open calls ${open.length === 0 ? "none" : `${open.length} acknowledged (sealed open)`}`
        ].join("\n")
      )
      if (!(yield* ask("Sign and seal this record now?"))) {
        return yield* new ConfirmRequired({
          message: "You did not confirm the seal; nothing was sealed.",
          fix: "Run `catalog verify` again and answer yes when the summary is right."
        })
      }
      const bundle = yield* (yield* PortalClient).seal({
        ...request,
        seal: {
          licence: set(env.env["CATALOG_LICENCE_KEY"]) ?? "",
          signer: { name, role, email },
          acceptedTerms,
          acknowledgeOpenCalls: open.length > 0,
          snapshotSha256: pushed.sha256
        }
      })
      const stored = yield* storeSeal(bundle, licence.info)
      yield* emit(storedJson(stored), () => storedText(stored))
    }).pipe(Effect.provide(VerifyLive))
  })

const Console = (line: string) => Effect.sync(() => process.stderr.write(line + "\n"))

/** `catalog seal pull`: the claim's newest seal, verified against the pinned key and stored. */
export const runSealPull = Effect.gen(function*() {
  yield* installedGate(officialInstalled)
  const request = yield* pairing
  const env = yield* AppEnv
  yield* Effect.gen(function*() {
    yield* noteSealLapse
    const status = yield* contact(request)
    const bundle = yield* (yield* PortalClient).sealBundle(request)
    // The licence the seal was made under: as the portal reports it, else the machine's own key.
    const last = status.seal.last
    let licence = last !== null && last.id === bundle.sealId ? last.licence : null
    if (licence === null && set(env.env["CATALOG_LICENCE_KEY"]) !== null) {
      const own = yield* verifyMachineLicence({
        claimId: status.claimId,
        portalUrl: request.portalUrl,
        onRevocationUnavailable: "warn"
      }).pipe(Effect.option)
      if (own._tag === "Some") licence = own.value.info
    }
    if (licence === null) {
      return yield* new SealPullFailed({
        message:
          `The seal ${bundle.sealId} was pulled, but the licence it was made under is unknown here, so its expiry cannot be tracked. Nothing was stored.`,
        fix: "Set CATALOG_LICENCE_KEY to the licence key from the unlock e-mail, then run `catalog seal pull` again."
      })
    }
    const stored = yield* storeSeal(bundle, licence)
    yield* emit(
      storedJson(stored),
      () => (stored.inserted ? storedText(stored) : `${storedText(stored)}\n${dim("(already stored)")}`)
    )
  }).pipe(Effect.provide(VerifyLive))
})

export const verify = Command.make("verify", {
  sealWithOpenCalls: Options.boolean("seal-with-open-calls").pipe(Options.withDescription(
    "seal even with open legal calls: they are listed, you confirm, and the seal records them"
  ))
}, (flags) => runVerify(flags)).pipe(
  Command.withDescription(
    "The human-only unlock-and-sign path: at a terminal only (never --non-interactive, CI or an agent), checks the pairing, the licence (CATALOG_LICENCE_KEY), the agreement, the controller, the signer (CATALOG_SIGNER_NAME, CATALOG_SIGNER_ROLE) and open legal calls in the portal's order, pushes the draft, shows a summary, asks for a yes, seals on the portal and stores the signed artifacts (verified against the pinned key) in .catalog/sealed/<sealId>/."
  )
)

const pull = Command.make("pull", {}, () => runSealPull).pipe(
  Command.withDescription(
    "Fetch the record's newest seal (made on the claim page or by `verify`), verify every signature against the pinned portal key and store it in .catalog/sealed/<sealId>/ (SEAL_PULL_FAILED: nothing stored)."
  )
)

export const seal = Command.make("seal", {}, () => needsSubcommand("seal", ["pull"])).pipe(
  Command.withSubcommands([pull]),
  Command.withDescription("The record's seal on this machine: `catalog seal pull`.")
)
