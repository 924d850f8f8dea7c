/**
 * The claim pages (HTML, rendered on the server, forms and redirects, no JavaScript):
 *   GET  /claim/:token              the draft for a caller holding this claim's session; else the gate
 *                                   (bound: prove the address; unbound: become the admin) or a notice
 *   POST /claim/:token/code         mails an 8-digit one-time code to the bound recipient (15 minutes;
 *                                   at most 5 per claim per hour)
 *   POST /claim/:token/verify       checks it → a session cookie → 303 to the claim
 *   POST /claim/:token/open         unbound: the first opener becomes the record's admin (atomic)
 *   POST /claim/:token/controller   saves the controller block (session required)
 *   POST /claim/:token/dora         fills one DORA cell (session required; DORA in scope; checked like `dora set`)
 *   POST /claim/:token/sync-tokens[/revoke]  'Connect a machine' (ConnectMachine.ts; session required)
 *   POST /claim/:token/seal         "Seal the record" → sealClaim (Seal.ts; session required)
 *   GET  /claim/:token/sealed/<name>[.sig]  the newest seal's artifacts and signatures (session required)
 * Every POST must come from this portal's own pages (Origin / Referer / Sec-Fetch-Site; cookies SameSite=Strict).
 * Sessions: 32 random bytes, stored hashed, HttpOnly, SameSite=Strict, Path=/claim/<token>, Secure over
 * https, 30 days. The link alone opens nothing on a bound claim: the mailbox is the proof.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { randomInt } from "node:crypto"
import { claimPagePrefix, signingKeyPath } from "../../domain/Portal.js"
import { Snapshot } from "../../domain/Snapshot.js"
import type { LicenceInfo } from "../../domain/Sync.js"
import { checkCell } from "../../dora/cell.js"
import { doraTemplates } from "../../dora/templates.js"
import { ClaimNotFound, DoraInputInvalid, MailNotConfigured } from "../../errors/index.js"
import { licenceState } from "../../services/Licence.js"
import { Mail, mailOutcome, oneTimeCodeMessage } from "../../services/Mail.js"
import { DoraFillStore } from "../../services/portal/DoraFillStore.js"
import { LicenceStore } from "../../services/portal/LicenceStore.js"
import { SealStore } from "../../services/portal/SealStore.js"
import { type ClaimRecord, PortalStore } from "../../services/PortalStore.js"
import { renderClaimPage, renderGatePage, renderNoticePage, type SealView } from "./ClaimPage.js"
import { connectMachineView } from "./ConnectMachine.js"
import {
  codeCountKey,
  nowIso,
  nowMillis,
  officialInThisBuild,
  PortalContext,
  randomToken,
  readCappedBody,
  sha256Hex
} from "./Context.js"
import { openLegalCalls, type PortalLicences, sealClaim, type SealError, sealStateOf } from "./Seal.js"

export const sessionCookie = "catalog_claim_session"
export const codeValidMinutes = 15
export const codesPerHour = 5
const sessionDays = 30
const hourMs = 3_600_000
const formCap = 16_384

export const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers })

/** CLAIM_NOT_FOUND for a claim link: the same error (and so the same body) on the page and in the API. */
export const claimNotFound = () =>
  new ClaimNotFound({
    message: "There is no live claim for this link: it is unknown, was removed, or was replaced.",
    fix: "Ask the person who invited you for a new link (they re-run `catalog invite`)."
  })

/** CLAIM_NOT_FOUND for a claim id (`admin remove`). */
export const claimNotFoundById = (claimId: string) =>
  new ClaimNotFound({
    message: `No claim ${claimId} on this portal.`,
    fix: "List claims with `catalog admin tenants`."
  })

const claimNotFoundPage = () => {
  const e = claimNotFound()
  return html(
    renderNoticePage({ title: "Claim not found", code: e.code, message: e.message, fix: e.fix, status: 404 }),
    404
  )
}

/** `dpo@acme.example` → `d•••@acme.example`. */
export const maskAddress = (address: string): string => {
  const at = address.lastIndexOf("@")
  return at <= 0 ? "•••" : `${address[0]}•••${address.slice(at)}`
}

export const claimPath = (token: string) => `${claimPagePrefix}/${token}`

const codeHash = (claimId: string, code: string) => sha256Hex(`${claimId}:${code}`)

/** The claim behind a token, or the response that ends the request (not found / superseded). */
export const liveClaim = (token: string) =>
  Effect.gen(function*() {
    const store = yield* PortalStore
    const claim = token.length > 8 && token.length < 200 ? yield* store.claimByTokenHash(sha256Hex(token)) : null
    if (claim === null || claim.state === "removed" || (claim.state === "superseded" && claim.successorId === null)) {
      return Either.left(claimNotFoundPage())
    }
    if (claim.state === "superseded") {
      return Either.left(html(renderNoticePage({
        title: "A newer draft replaced this one",
        message: `This draft (${claim.id}) was replaced by a newer upload of the same record (${claim.successorId}).`,
        code: null,
        fix: "Open the newer link from the latest invitation mail, or ask the person who invited you for it."
      })))
    }
    return Either.right(claim)
  })

/** The session this request holds for `claim`, if any. */
export const sessionFor = (request: HttpServerRequest.HttpServerRequest, claim: ClaimRecord) =>
  Effect.gen(function*() {
    const value = request.cookies[sessionCookie]
    if (value === undefined || value === "") return null
    const store = yield* PortalStore
    const session = yield* store.sessionOf(sha256Hex(value), yield* nowIso)
    return session !== null && session.claimId === claim.id ? session : null
  })

/** A new session: stored hashed; the cookie carries the value. */
const startSession = (claim: ClaimRecord, token: string, role: "admin" | "recipient", opened: boolean) =>
  Effect.gen(function*() {
    const store = yield* PortalStore
    const { publicUrl } = yield* PortalContext
    const value = randomToken(32)
    const expiresAt = new Date((yield* nowMillis) + sessionDays * 24 * hourMs).toISOString()
    if (!opened) yield* store.createSession(claim.id, sha256Hex(value), role, expiresAt)
    return {
      value,
      expiresAt,
      cookie: `${sessionCookie}=${value}; Path=${claimPath(token)}; Max-Age=${
        sessionDays * 24 * 3600
      }; HttpOnly; SameSite=Strict${publicUrl.startsWith("https:") ? "; Secure" : ""}`
    }
  })

/**
 * Cross-site request forgery guard: a POST must come from this portal's own pages. The pages send no
 * referrer (the token is in their URL), so a browser sends `Origin: null` with their forms; it also sends
 * `Sec-Fetch-Site`, which no page can set. Accepted: an Origin (else a Referer) that is this portal's own
 * origin, or `Sec-Fetch-Site: same-origin`. Refused: anything else, including a request with neither.
 */
export const sameOrigin = (request: HttpServerRequest.HttpServerRequest, publicUrl: string): boolean => {
  const fetchSite = request.headers["sec-fetch-site"]
  if (fetchSite !== undefined && fetchSite !== "same-origin") return false
  const source = request.headers["origin"] ?? request.headers["referer"]
  if (source === undefined || source === "null") return fetchSite === "same-origin"
  let origin: string
  try {
    origin = new URL(source).origin
  } catch {
    return false
  }
  const host = request.headers["host"]
  const allowed = new Set([new URL(publicUrl).origin])
  if (host !== undefined) {
    allowed.add(`http://${host}`)
    allowed.add(`https://${host}`)
  }
  return allowed.has(origin)
}

export const forbidden = () =>
  html(
    renderNoticePage({
      title: "Request refused",
      message: "This form was not sent from this portal's own page (cross-site request refused).",
      code: null,
      fix: "Open the claim link again and use the page's own buttons.",
      status: 403
    }),
    403
  )

export const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(
    Effect.either(readCappedBody(request, formCap)),
    (r) => Either.isRight(r) ? new URLSearchParams(r.right.toString("utf8")) : new URLSearchParams()
  )

export const see = (location: string, cookie?: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location, ...(cookie !== undefined ? { "set-cookie": cookie } : {}) }
  })

type BindStep =
  | { readonly step: "ask" }
  | { readonly step: "enter"; readonly problem?: string }
  | { readonly step: "ask-again"; readonly problem: string }

const bindGate = (claim: ClaimRecord, token: string, step: BindStep) => {
  const masked = maskAddress(claim.recipient ?? "")
  if (step.step === "enter") {
    return renderGatePage({
      title: "Enter the code",
      message:
        `A one-time code was mailed to ${masked}. Enter it to open the draft (it works once, for ${codeValidMinutes} minutes). No mail? Open the link again to send a new code.`,
      notice: step.problem ?? null,
      form: {
        action: `${claimPath(token)}/verify`,
        fields: [{
          name: "code",
          label: "Code",
          type: "text",
          autocomplete: "one-time-code",
          inputmode: "numeric"
        }],
        submit: "Open the draft"
      }
    })
  }
  return renderGatePage({
    title: "Prove it is you",
    message:
      `This draft was shared with ${masked}. To open it, send a one-time code to that address and enter it on the next page.`,
    notice: step.step === "ask-again" ? step.problem : null,
    form: { action: `${claimPath(token)}/code`, fields: [], submit: "Send a code" }
  })
}

const unboundGate = (token: string) =>
  renderGatePage({
    title: "Open this draft",
    message:
      "This draft was shared without a recipient: whoever opens it first becomes the record's admin. Only open it if it was meant for you.",
    form: { action: `${claimPath(token)}/open`, fields: [], submit: "Open it and become the admin" }
  })

const alreadyAdmin = () =>
  html(
    renderNoticePage({
      title: "This draft already has an admin",
      message: "Someone opened this unbound draft first and became its admin; the link opens it only for them.",
      code: null,
      fix: "Ask the person who invited you to re-invite with `catalog invite --email <your address>`.",
      status: 403
    }),
    403
  )

/** GET /claim/:token */
export const showClaim = (token: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return found.left
    const claim = found.right
    const session = yield* sessionFor(request, claim)
    const query = new URL(request.url, "http://x").searchParams
    if (session === null && request.headers["sec-fetch-site"] === "cross-site" && query.get("via") === null) {
      // A link followed from a mail client is a cross-site navigation: the browser withholds SameSite=Strict
      // cookies from it. Reload once from this page (a same-site navigation) so a session already held counts.
      return html(
        renderNoticePage({
          title: "Opening the draft…",
          message: "Opening the draft shared with you.",
          code: null,
          fix: null
        }),
        200,
        { refresh: `0; url=${claimPath(token)}?via=link` }
      )
    }
    if (session === null) {
      if (claim.unbound) return claim.opened ? alreadyAdmin() : html(unboundGate(token))
      const sent = query.get("code") === "sent"
      return html(bindGate(claim, token, sent ? { step: "enter" } : { step: "ask" }))
    }
    return yield* claimPage(claim, token, session.role, query.get("saved"), null)
  })

/** What a refused seal attempt shows on the page it answers: the refusal and the form's values. */
export interface SealAttemptShown {
  readonly refusal: { readonly code: string; readonly message: string; readonly fix: string | null }
  readonly values: { readonly name: string; readonly role: string; readonly email: string }
  readonly status: number
}

/** The draft page of `claim` for a session holder (`refused`: a seal attempt's refusal, shown with its status). */
const claimPage = (
  claim: ClaimRecord,
  token: string,
  role: "admin" | "recipient",
  saved: string | null,
  refused: SealAttemptShown | null
) =>
  Effect.gen(function*() {
    const store = yield* PortalStore
    const body = yield* store.snapshotOf(claim.id)
    if (body === null) return claimNotFoundPage()
    const snapshot = yield* Schema.decodeUnknown(Schema.parseJson(Snapshot))(body).pipe(Effect.orDie)
    const licence = yield* claimLicence(claim.id)
    return html(
      renderClaimPage(snapshot, {
        mode: "portal",
        claim: {
          id: claim.id,
          state: claim.state,
          recipient: claim.recipient,
          unbound: claim.unbound,
          createdAt: claim.createdAt,
          lastUploadAt: claim.lastUploadAt,
          role
        },
        controller: claim.controllerUpdatedAt !== null
          ? { name: claim.controllerName, contact: claim.controllerContact, updatedAt: claim.controllerUpdatedAt }
          : null,
        controllerForm: { action: `${claimPath(token)}/controller`, csrf: null },
        notice: saved === "controller"
          ? "Controller saved."
          : saved === "revoked"
          ? "Sync token revoked."
          : saved === "dora"
          ? "DORA cell saved."
          : saved === "sealed"
          ? "The record is sealed: the signed artifacts are below."
          : null,
        licence,
        seal: yield* sealView(claim, token, snapshot, refused),
        connect: yield* connectMachineView(claim, token),
        doraFill: snapshot.dora.inScope
          ? { action: `${claimPath(token)}/dora`, fills: yield* (yield* DoraFillStore).list(claim.id) }
          : null
      }),
      refused?.status ?? 200
    )
  })

/** The claim's licence for its page: an active one if any, else the newest; null when none was issued. */
const claimLicence = (claimId: string) =>
  Effect.gen(function*() {
    const rows = yield* (yield* LicenceStore).byClaim(claimId)
    const now = new Date(yield* nowMillis)
    const all = rows.map((l): LicenceInfo => ({
      id: l.id,
      claimId: l.claimId,
      issuedAt: l.issuedAt,
      expiresAt: l.expiresAt,
      state: licenceState(l, now)
    }))
    return all.find((l) => l.state === "active") ?? all[0] ?? null
  })

/** POST /claim/:token/code */
export const sendCode = (token: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { publicUrl } = yield* PortalContext
    if (!sameOrigin(request, publicUrl)) return forbidden()
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return found.left
    const claim = found.right
    if (claim.unbound || claim.recipient === null) return see(claimPath(token))
    const store = yield* PortalStore
    const now = yield* nowMillis
    const windowStart = new Date(Math.floor(now / hourMs) * hourMs).toISOString()
    const key = codeCountKey(claim.id)
    if ((yield* store.countUpload(key, windowStart)) > codesPerHour) {
      yield* store.uncountUpload(key, windowStart)
      return html(
        bindGate(claim, token, {
          step: "ask-again",
          problem: `${codesPerHour} codes were already sent for this draft in the last hour; wait, then send a new one.`
        }),
        429
      )
    }
    const code = String(randomInt(0, 100_000_000)).padStart(8, "0")
    yield* store.saveCode(claim.id, codeHash(claim.id, code), new Date(now + codeValidMinutes * 60_000).toISOString())
    const outcome = yield* mailOutcome(
      yield* Mail,
      oneTimeCodeMessage({
        to: claim.recipient,
        code,
        claimUrl: `${publicUrl}${claimPath(token)}`,
        minutesValid: codeValidMinutes
      })
    )
    if (outcome.status === "not-configured" || outcome.status === "failed") {
      // Whoever holds the link sees no transport's reason (it may quote the recipient's address); the
      // operator reads it in the portal's log. The code itself is never logged.
      const e = outcome.error ?? new MailNotConfigured().body.error
      const { log } = yield* PortalContext
      log(`portal: the one-time code for claim ${claim.id} could not be mailed (${outcome.status}): ${e.message}`)
      return html(
        renderNoticePage({
          title: "The code could not be mailed",
          code: outcome.status === "not-configured" ? e.code : null,
          message: "The code could not be mailed; try again later or ask the person who shared it.",
          fix: "Open the link again later to send a new code, or ask the person who shared the draft with you.",
          status: 503
        }),
        503
      )
    }
    return see(`${claimPath(token)}?code=sent`)
  })

/** POST /claim/:token/verify */
export const verifyCode = (token: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { publicUrl } = yield* PortalContext
    if (!sameOrigin(request, publicUrl)) return forbidden()
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return found.left
    const claim = found.right
    if (claim.unbound) return see(claimPath(token))
    const form = yield* readForm(request)
    const code = (form.get("code") ?? "").replace(/[\s-]/g, "")
    const store = yield* PortalStore
    const result = /^\d{8}$/.test(code)
      ? yield* store.checkCode(claim.id, codeHash(claim.id, code), yield* nowIso)
      : "wrong"
    if (result !== "ok") {
      const problem = {
        wrong: "That code is not right. Check the latest mail and try again.",
        expired: `That code has expired (codes are valid ${codeValidMinutes} minutes). Send a new code.`,
        locked: "Too many wrong tries for this code. Send a new code.",
        none: "No code is waiting for this draft. Send a code first."
      }[result]
      return html(
        bindGate(claim, token, result === "wrong" ? { step: "enter", problem } : { step: "ask-again", problem }),
        result === "wrong" ? 400 : 409
      )
    }
    const session = yield* startSession(claim, token, "recipient", false)
    return see(claimPath(token), session.cookie)
  })

/** POST /claim/:token/open */
export const openUnbound = (token: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { publicUrl } = yield* PortalContext
    if (!sameOrigin(request, publicUrl)) return forbidden()
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return found.left
    const claim = found.right
    if (!claim.unbound) return see(claimPath(token))
    const session = yield* startSession(claim, token, "admin", true)
    const store = yield* PortalStore
    const won = yield* store.openUnbound(claim.id, sha256Hex(session.value), session.expiresAt)
    if (!won) return alreadyAdmin()
    return see(claimPath(token), session.cookie)
  })

/** POST /claim/:token/controller */
export const saveController = (token: string) =>
  Effect.gen(function*() {
    const post = yield* sessionPost(token, "change it")
    if (Either.isLeft(post)) return post.left
    const { claim, form } = post.right
    const clean = (v: string | null) => {
      const t = (v ?? "").trim().slice(0, 500)
      return t === "" ? null : t
    }
    const store = yield* PortalStore
    yield* store.setController(claim.id, clean(form.get("name")), clean(form.get("contact")), yield* nowIso)
    return see(`${claimPath(token)}?saved=controller`)
  })

// ── DORA fills (issue 12 part 2) ────────────────────────────────────────────────────────────────────

/** Who a fill is attributed to: the proven recipient's address, or "claim admin" for an unbound claim's admin. */
export const fillAuthor = (claim: ClaimRecord, role: "admin" | "recipient"): string =>
  role === "recipient" && claim.recipient !== null ? claim.recipient : "claim admin"

const fillCaps = { rowKey: 500, value: 1000 } as const

/** POST /claim/:token/dora: one cell (table, rowKey, field, value), checked like `catalog dora set`. */
export const saveDoraFill = (token: string) =>
  Effect.gen(function*() {
    const post = yield* sessionPost(token, "fill the DORA register")
    if (Either.isLeft(post)) return post.left
    const { claim, form, session } = post.right
    const store = yield* PortalStore
    const body = yield* store.snapshotOf(claim.id)
    if (body === null) return claimNotFoundPage()
    const snapshot = yield* Schema.decodeUnknown(Schema.parseJson(Snapshot))(body).pipe(Effect.orDie)
    const refuse = (e: DoraInputInvalid) =>
      html(
        renderNoticePage({
          title: "The cell was not saved",
          message: e.message,
          code: e.code,
          fix: `${e.fix ?? ""} Go back to the claim page and fill the cell again.`.trim(),
          status: 400
        }),
        400
      )
    if (!snapshot.dora.inScope) {
      return refuse(
        new DoraInputInvalid({
          message: "DORA is not in scope for this record, so it has no register to fill.",
          fix:
            "If the organisation is a financial entity under DORA, set dora.inScope in catalog.yml on the machine and upload again.",
          param: "dora.inScope"
        })
      )
    }
    const field = (name: string) => form.get(name) ?? undefined
    const rowKey = field("rowKey")
    const value = field("value")
    if ((rowKey?.length ?? 0) > fillCaps.rowKey || (value?.length ?? 0) > fillCaps.value) {
      return refuse(
        new DoraInputInvalid({
          message:
            `The row key (at most ${fillCaps.rowKey} characters) or the value (at most ${fillCaps.value}) is too long.`,
          fix: "Shorten it.",
          param: (rowKey?.length ?? 0) > fillCaps.rowKey ? "rowKey" : "value"
        })
      )
    }
    const checked = checkCell(doraTemplates(), { tableCode: field("table"), rowKey, field: field("field"), value })
    if (Either.isLeft(checked)) return refuse(checked.left)
    const cell = checked.right
    yield* (yield* DoraFillStore).put(claim.id, {
      ...cell,
      by: fillAuthor(claim, session.role),
      at: yield* nowIso
    })
    return see(`${claimPath(token)}?saved=dora#dora-fill`)
  })

// ── Seal the record (issue 12 part 4) ────────────────────────────────────────────────────────────────

/** The "Seal the record" section's data for a session holder's page. */
const sealView = (claim: ClaimRecord, token: string, snapshot: Snapshot, refused: SealAttemptShown | null) =>
  Effect.gen(function*() {
    const { settings } = yield* PortalContext
    const seals = yield* SealStore
    const latest = yield* seals.latest(claim.id)
    let sealed: SealView["sealed"] = null
    if (latest !== null) {
      const state = yield* sealStateOf(claim.id)
      const artifacts = yield* seals.artifacts(latest.id)
      sealed = {
        id: latest.id,
        sealedAt: latest.sealedAt,
        signer: latest.signer,
        termsVersion: latest.termsVersion,
        acknowledgedOpenCalls: latest.acknowledgedOpenCalls,
        licenceId: latest.licence.id,
        state: state.state,
        reason: state.reason,
        downloads: artifacts.map((a) => ({
          name: a.name,
          bytes: Buffer.from(a.content, "base64").length,
          sha256: a.sha256,
          href: `${claimPath(token)}/sealed/${a.name}`,
          signatureHref: `${claimPath(token)}/sealed/${a.name}.sig`
        }))
      }
    }
    const view: SealView = {
      installed: yield* officialInThisBuild,
      action: `${claimPath(token)}/seal`,
      termsVersion: settings.termsVersion,
      openCalls: openLegalCalls(snapshot.ropa.activities),
      snapshotSha256: claim.sha256,
      sealed,
      publicKeyHref: signingKeyPath,
      refusal: refused?.refusal ?? null,
      values: refused?.values ?? { name: "", role: "", email: "" }
    }
    return view
  })

const sessionRequired = (what: string) =>
  html(
    renderNoticePage({
      title: "Open the draft first",
      message: `Only the record's admin (the proven recipient, or an unbound draft's admin) can ${what}.`,
      code: null,
      fix: "Open the claim link and follow the steps there.",
      status: 403
    }),
    403
  )

/**
 * The guard of every claim-page POST: the same origin, a live claim, a session of that claim, then its form;
 * or the page that ends the request (403 cross-site, the claim's notice, 403 "open the draft first").
 */
export const sessionPost = (token: string, what: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { publicUrl } = yield* PortalContext
    if (!sameOrigin(request, publicUrl)) return Either.left(forbidden())
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return Either.left(found.left)
    const session = yield* sessionFor(request, found.right)
    if (session === null) return Either.left(sessionRequired(what))
    return Either.right({ request, claim: found.right, session, form: yield* readForm(request) })
  })

/** The status a refused seal answers on the page: the form's own input 400, the record's state 409. */
const refusalStatus = (code: string): number =>
  code === "TERMS_NOT_ACCEPTED" || code === "SIGNER_NAME_REQUIRED" || code === "INVALID_PARAM" ? 400 : 409

const isSealError = (e: unknown): e is SealError =>
  typeof e === "object" && e !== null && typeof (e as { readonly code?: unknown }).code === "string" &&
  (e as { readonly _tag?: unknown })._tag !== "SqlError"

/**
 * POST /claim/:token/seal: `acceptTerms`, `signerName`, `signerRole`, `signerEmail`, `acknowledgeOpenCalls`
 * → `sealClaim` (via "claim-page"), the same checks as `catalog verify`. Sealed: 303 to the claim. Refused:
 * the page again with the code, message and fix (400 the form's input, 409 the record's state; 501
 * PORTAL_NOT_INSTALLED in a build without the official export); nothing is stored.
 */
export const sealRecord = (token: string) =>
  Effect.gen(function*() {
    const post = yield* sessionPost(token, "seal it")
    if (Either.isLeft(post)) return post.left
    const { claim, form, session } = post.right
    const text = (name: string, cap: number) => (form.get(name) ?? "").slice(0, cap)
    const values = { name: text("signerName", 200), role: text("signerRole", 200), email: text("signerEmail", 254) }
    const accepted = form.get("acceptTerms")
    const result = yield* Effect.either(
      Effect.flatMap(LicenceStore, (store) =>
        sealClaim(claim, {
          via: "claim-page",
          licenceKey: null,
          acceptedTerms: accepted === null || accepted.trim() === "" ? null : accepted,
          signer: { name: values.name, role: values.role, email: values.email.trim() === "" ? null : values.email },
          acknowledgeOpenCalls: form.get("acknowledgeOpenCalls") === "yes",
          // The draft the page showed: a push that landed since is never sealed in the human's name.
          snapshotSha256: form.get("snapshotSha256") ?? ""
        }, { byClaim: store.byClaim, revokedIds: store.revokedIds } satisfies PortalLicences)).pipe(
          Effect.catchIf((e) => !isSealError(e), (e) => Effect.die(e))
        )
    )
    if (Either.isRight(result)) return see(`${claimPath(token)}?saved=sealed#seal`)
    const e = result.left
    if (e._tag === "PortalNotInstalled") {
      return html(
        renderNoticePage({
          title: "Sealing is not installed here",
          message: e.message,
          code: e.code,
          fix: null,
          status: 501
        }),
        501
      )
    }
    return yield* claimPage(claim, token, session.role, null, {
      refusal: { code: e.code, message: e.message, fix: e.fix ?? null },
      values,
      status: refusalStatus(e.code)
    })
  })

const sealedPrefix = "/sealed/"

/**
 * GET /claim/:token/sealed/<name> and /sealed/<name>.sig: an artifact of the record's newest seal, or its raw
 * 64-byte signature, as an attachment (session required: 403 without; 404 for a name the seal does not have).
 */
export const sealedDownload = (token: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const found = yield* liveClaim(token)
    if (Either.isLeft(found)) return found.left
    const claim = found.right
    const session = yield* sessionFor(request, claim)
    if (session === null) return sessionRequired("download the sealed record")
    const path = new URL(request.url, "http://x").pathname
    const at = path.indexOf(sealedPrefix)
    const raw = at === -1 ? "" : path.slice(at + sealedPrefix.length)
    let requested = ""
    try {
      requested = decodeURIComponent(raw)
    } catch {
      requested = "" // malformed escapes name no file: 404 below
    }
    const signature = requested.endsWith(".sig")
    const name = signature ? requested.slice(0, -".sig".length) : requested
    const seals = yield* SealStore
    const latest = yield* seals.latest(claim.id)
    const artifact = latest === null ? undefined : (yield* seals.artifacts(latest.id)).find((a) => a.name === name)
    if (artifact === undefined) {
      return html(
        renderNoticePage({
          title: "No such file",
          message: latest === null
            ? "This record has not been sealed yet: there is nothing to download."
            : "The record's seal has no file of that name.",
          code: null,
          fix: "Go back to the draft and use the links under “Seal the record”.",
          status: 404
        }),
        404
      )
    }
    return HttpServerResponse.uint8Array(Buffer.from(signature ? artifact.signature : artifact.content, "base64"), {
      status: 200,
      contentType: signature ? "application/octet-stream" : artifact.mediaType,
      headers: { "content-disposition": `attachment; filename="${signature ? `${name}.sig` : name}"` }
    })
  })
