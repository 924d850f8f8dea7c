/**
 * The portal's mail: one service, three transports chosen by configuration (the implementations are in
 * layers/portal/Mail.ts) — a provider's HTTP API (Postmark), `CATALOG_SENDMAIL_CMD` (the whole message piped
 * to the command) or `CATALOG_DEV_MODE=1` (written to the portal's stderr, not sent). With none of them every
 * send fails with MAIL_NOT_CONFIGURED.
 *
 * This module holds what does not depend on a technology: the service's interface, reading the settings from
 * the environment (`mailConfigFrom`, pure), the two messages the portal sends (`claimLinkMessage`,
 * `oneTimeCodeMessage`, built as plain data with every interpolated value escaped in the HTML part), the
 * recipient check every transport runs first, and `mailOutcome`, which turns a send into the `MailOutcome`
 * of the portal's wire contract.
 */
import { Context, Data, Effect, Either, Redacted } from "effect"
import addressparser from "nodemailer/lib/addressparser"
import type { MailOutcome } from "../domain/Portal.js"
import { MailNotConfigured } from "../errors/index.js"

/** The transports, in order of precedence when several are configured. */
export type MailTransport = "provider" | "sendmail" | "dev"

/** One message: a single recipient, a subject, and both a plain-text and an HTML part. */
export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** What a successful send reports: the transport that took the message and its id, when it has one. */
export interface MailReceipt {
  readonly transport: MailTransport
  /** Postmark's MessageID (provider), the message's Message-ID header (sendmail, dev). */
  readonly messageId: string | null
}

/**
 * The configured transport refused or failed (a provider's 401/422, a 5xx after one retry, a network
 * failure, a timeout, a sendmail command's non-zero exit). Not a registry code: it never reaches a surface
 * as an error — `mailOutcome` turns it into `MailOutcome { status: "failed" }`, because the claim exists
 * whatever happened to its mail. `message` never holds the message's body, a token or a code.
 */
export class MailSendFailed extends Data.TaggedError("MailSendFailed")<{
  readonly transport: MailTransport
  readonly message: string
  readonly fix: string
}> {}

export type MailError = MailNotConfigured | MailSendFailed

/** The Mail service. */
export interface MailShape {
  /** The configured transport (null: not configured, every send fails with MAIL_NOT_CONFIGURED). */
  readonly transport: MailTransport | null
  readonly send: (message: MailMessage) => Effect.Effect<MailReceipt, MailError>
}

export class Mail extends Context.Tag("portal/Mail")<Mail, MailShape>() {}

// ── Settings ────────────────────────────────────────────────────────────────────────────────────

/** The provider's API key variable (Postmark's Server API token). */
export const postmarkTokenVar = "CATALOG_POSTMARK_TOKEN"
/** The sender: required with the provider (a confirmed sender signature there); used by sendmail and dev too. */
export const mailFromVar = "CATALOG_MAIL_FROM"
/** Where Postmark's API is (tests point it at a local fake). */
export const postmarkUrlVar = "CATALOG_POSTMARK_URL"
/** A command that reads one whole RFC 5322 message on stdin, run through `/bin/sh -c`. */
export const sendmailCmdVar = "CATALOG_SENDMAIL_CMD"
/** `1` (or `true`): mail is written to the portal's stderr, not sent. */
export const devModeVar = "CATALOG_DEV_MODE"

export const defaultPostmarkUrl = "https://api.postmarkapp.com"
/** The sender for sendmail and dev mode when CATALOG_MAIL_FROM is not set. */
export const defaultMailFrom = "Local Data Catalog <no-reply@localhost>"

/** The mail settings, read once at the portal's start (`mailConfigFrom`). */
export type MailConfig =
  | {
    readonly transport: "provider"
    readonly token: Redacted.Redacted<string>
    readonly from: string
    /** Base address of the API, without a trailing slash; the message is POSTed to `${url}/email`. */
    readonly url: string
  }
  | { readonly transport: "sendmail"; readonly command: string; readonly from: string }
  | { readonly transport: "dev"; readonly from: string }
  | { readonly transport: "none" }

/** Why the mail settings cannot be used: variables that are required and missing, or set and malformed. */
export interface MailConfigProblem {
  /** Variable names, e.g. `CATALOG_MAIL_FROM`. */
  readonly missing: ReadonlyArray<string>
  /** `NAME (what is wrong)`, e.g. `CATALOG_POSTMARK_URL (not an http or https address)`. */
  readonly malformed: ReadonlyArray<string>
}

const setting = (env: Readonly<Record<string, string | undefined>>, name: string): string | null => {
  const v = env[name]?.trim()
  return v === undefined || v === "" ? null : v
}

// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u001f\u007f]/

/**
 * The one plain address `value` names (`dpo@acme.example`, `Acme Privacy <privacy@acme.example>`), or null:
 * several addresses, a group, no `@`, or a control character (a CR/LF would otherwise let a value carry
 * another header or, through a group, another recipient).
 */
export const singleAddress = (value: string): { readonly name: string; readonly address: string } | null => {
  if (controlChars.test(value)) return null
  const parsed = addressparser(value)
  if (parsed.length !== 1) return null
  const one = parsed[0]
  if (one === undefined || one.group !== undefined || one.address === undefined) return null
  const address = one.address
  const at = address.lastIndexOf("@")
  if (at <= 0 || at === address.length - 1 || /\s/.test(address)) return null
  return { name: one.name, address }
}

/**
 * The recipient of a message as a bare address, or null when `to` is not exactly one bare address. The
 * portal's recipients come from `invite --email`: a name, a list or a group there is refused, not guessed.
 */
export const recipientAddress = (to: string): string | null => {
  const trimmed = to.trim()
  const one = singleAddress(trimmed)
  return one !== null && one.name === "" && one.address === trimmed ? one.address : null
}

const devModeOn = (value: string): boolean | null => {
  const v = value.toLowerCase()
  return v === "1" || v === "true" ? true : v === "0" || v === "false" ? false : null
}

/**
 * The mail settings from the environment (pure). Precedence when several are set: the provider
 * (`CATALOG_POSTMARK_TOKEN` + `CATALOG_MAIL_FROM`) > `CATALOG_SENDMAIL_CMD` > `CATALOG_DEV_MODE=1`; none of
 * them → `{ transport: "none" }` (sends fail with MAIL_NOT_CONFIGURED, the portal still starts). A token
 * without `CATALOG_MAIL_FROM`, or any of these variables set to something malformed, is a problem the portal
 * reports at start-up (ADMIN_ENV_INCOMPLETE naming the variables).
 */
export const mailConfigFrom = (
  env: Readonly<Record<string, string | undefined>>
): Either.Either<MailConfig, MailConfigProblem> => {
  const missing: Array<string> = []
  const malformed: Array<string> = []
  const token = setting(env, postmarkTokenVar)
  const from = setting(env, mailFromVar)
  const urlSetting = setting(env, postmarkUrlVar)
  const command = setting(env, sendmailCmdVar)
  const dev = setting(env, devModeVar)

  if (token !== null && controlChars.test(token)) malformed.push(`${postmarkTokenVar} (contains a control character)`)
  if (from !== null && singleAddress(from) === null) {
    malformed.push(`${mailFromVar} (not one e-mail address, e.g. \`Acme Privacy <privacy@acme.example>\`)`)
  }
  let url = defaultPostmarkUrl
  if (urlSetting !== null) {
    const parsed = URL.canParse(urlSetting) ? new URL(urlSetting) : null
    if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      malformed.push(`${postmarkUrlVar} (not an http or https address)`)
    } else {
      url = urlSetting.replace(/\/+$/, "")
    }
  }
  const devOn = dev === null ? false : devModeOn(dev)
  if (devOn === null) malformed.push(`${devModeVar} (use 1 to log mail instead of sending it, or 0)`)
  if (token !== null && from === null) missing.push(mailFromVar)

  if (missing.length > 0 || malformed.length > 0) return Either.left({ missing, malformed })
  if (token !== null && from !== null) {
    return Either.right({ transport: "provider", token: Redacted.make(token), from, url })
  }
  if (command !== null) return Either.right({ transport: "sendmail", command, from: from ?? defaultMailFrom })
  if (devOn === true) return Either.right({ transport: "dev", from: from ?? defaultMailFrom })
  return Either.right({ transport: "none" })
}

/** One sentence for an error message: what is missing and what is malformed. */
export const describeMailConfigProblem = (p: MailConfigProblem): string =>
  [
    p.missing.length > 0 ? `missing: ${p.missing.join(", ")}` : null,
    p.malformed.length > 0 ? `malformed: ${p.malformed.join("; ")}` : null
  ].filter((s) => s !== null).join("; ")

/**
 * A line for the portal's start-up log saying how mail is delivered: never the token, nor the sendmail
 * command (it may carry a password), nor anything but the origin of the provider's address.
 */
export const describeMailConfig = (c: MailConfig): string => {
  switch (c.transport) {
    case "provider":
      return `mail: Postmark at ${new URL(c.url).origin}, from ${c.from}`
    case "sendmail":
      return `mail: piped to the command in ${sendmailCmdVar}, from ${c.from}`
    case "dev":
      return `mail: ${devModeVar}=1, every message is written to this log instead of being sent`
    case "none":
      return `mail: not configured (${
        new MailNotConfigured().code
      }); claim links must be handed over by the person who invited`
  }
}

// ── Outcome ─────────────────────────────────────────────────────────────────────────────────────

/**
 * Sends `message` and reports what happened as the wire contract's `MailOutcome`; never fails, because a
 * claim exists whatever happened to its mail. A refused or failed send is `status: "failed"` with the
 * registry's mail code, MAIL_NOT_CONFIGURED (there is no other mail code: a transport that refuses — a
 * wrong token, an unconfirmed sender, a command that exits non-zero — is mail that is not configured to
 * work), the transport's own reason as the message and a fix for that transport.
 */
export const mailOutcome = (mail: MailShape, message: MailMessage): Effect.Effect<MailOutcome> =>
  mail.send(message).pipe(
    Effect.map((r): MailOutcome => ({
      status: r.transport === "dev" ? "logged" : "sent",
      transport: r.transport,
      error: null
    })),
    Effect.catchTags({
      MailNotConfigured: (e) =>
        Effect.succeed<MailOutcome>({
          status: "not-configured",
          transport: null,
          error: { code: e.code, message: e.message, fix: e.fix }
        }),
      MailSendFailed: (e) =>
        Effect.succeed<MailOutcome>({
          status: "failed",
          transport: e.transport,
          error: { code: MailNotConfigured.code, message: e.message, fix: e.fix }
        })
    })
  )

// ── Messages ────────────────────────────────────────────────────────────────────────────────────

/** `value` safe inside HTML text and double- or single-quoted attributes. */
export const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === "\"" ? "&quot;" : "&#39;"
  )

/** Control characters a line of text must not carry: C0 (CR/LF included), DEL, C1, and bidi overrides. */
// eslint-disable-next-line no-control-regex
const lineBreakers = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** A value for a header or a single text line: control characters (CR/LF included) become spaces. */
const oneLine = (value: string): string => value.replace(lineBreakers, " ").replace(/ +/g, " ").trim()

/** The most of an uploader's name a message repeats (subject and body). */
export const mailNameCap = 100

/** `value` cut to `max` characters (code points), an ellipsis marking the cut. */
const capped = (value: string, max: number): string => {
  const chars = [...value]
  return chars.length > max ? chars.slice(0, max).join("") + "…" : value
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`

const page = (title: string, body: string): string =>
  [
    "<!doctype html>",
    "<html><head><meta charset=\"utf-8\"><title>" + escapeHtml(title) + "</title></head>",
    "<body style=\"font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; max-width: 40em\">",
    body,
    "</body></html>"
  ].join("\n")

const link = (url: string): string =>
  `<p><a href="${escapeHtml(url)}" style="font-weight: 600">${escapeHtml(url)}</a></p>`

export interface ClaimLinkInput {
  readonly to: string
  readonly claimUrl: string
  /** The controller named in the draft, when the machine's catalog names one. */
  readonly controllerName: string | null
  readonly datasets: number
  /** How many columns the draft flags as personal data. */
  readonly personalItems: number
  /** A sentence on how long the link works, when it expires. */
  readonly expiresNote?: string
}

/**
 * The claim-link mail: says the record is a DRAFT, what it holds (metadata only, never a row value) and
 * that opening it takes a one-time code mailed to this same address.
 */
export const claimLinkMessage = (input: ClaimLinkInput): MailMessage => {
  const controller = input.controllerName === null ? null : capped(oneLine(input.controllerName), mailNameCap)
  const named = controller !== null && controller !== ""
  const subject = named
    ? `A draft record of processing was shared with you (${controller})`
    : "A draft record of processing was shared with you"
  const whose = named
    ? `A draft record of processing activities for ${controller}`
    : "A draft record of processing activities"
  const holds = `It covers ${plural(input.datasets, "dataset", "datasets")} and ${
    plural(input.personalItems, "item", "items")
  } flagged as personal data.`
  const metadata =
    "It holds metadata only: dataset and column names, classifications, lineage and the drafted record. It holds no row values: nothing from the data itself left the machine it was drafted on."
  const draft =
    "It is a DRAFT, generated by the Local Data Catalog from the metadata of the systems it scanned, and not yet reviewed: every legal field is marked with its status."
  const code =
    `Opening it requires a one-time code, which is mailed to this address (${input.to}) when you follow the link. The link is meant for you: please do not forward it.`
  const expires = input.expiresNote !== undefined ? oneLine(input.expiresNote) : null
  const ignore = "If you did not expect this message, you can ignore it: nothing happens unless the link is opened."
  const text = [
    `${whose} was shared with you through the Local Data Catalog.`,
    "",
    draft,
    holds,
    metadata,
    "",
    "Open the draft:",
    input.claimUrl,
    "",
    code,
    ...(expires !== null && expires !== "" ? [expires] : []),
    "",
    ignore,
    ""
  ].join("\n")
  const html = page(
    subject,
    [
      `<p>${escapeHtml(whose)} was shared with you through the Local Data Catalog.</p>`,
      `<p><strong>It is a DRAFT</strong>, generated by the Local Data Catalog from the metadata of the systems it scanned, and not yet reviewed: every legal field is marked with its status.</p>`,
      `<p>${escapeHtml(holds)} ${escapeHtml(metadata)}</p>`,
      "<p>Open the draft:</p>",
      link(input.claimUrl),
      `<p>${escapeHtml(code)}</p>`,
      ...(expires !== null && expires !== "" ? [`<p>${escapeHtml(expires)}</p>`] : []),
      `<p style="color: #555">${escapeHtml(ignore)}</p>`
    ].join("\n")
  )
  return { to: input.to, subject, text, html }
}

export interface OneTimeCodeInput {
  readonly to: string
  readonly code: string
  readonly claimUrl: string
  readonly minutesValid: number
}

/** The one-time-code mail: the code, how long it works, and the claim it opens. */
export const oneTimeCodeMessage = (input: OneTimeCodeInput): MailMessage => {
  const subject = "Your one-time code for the shared draft record of processing"
  const valid = `It works once and for ${plural(input.minutesValid, "minute", "minutes")}.`
  const where = "Enter it on the page that asked for it, the draft shared with you at:"
  const notYou =
    "If you did not ask for a code, someone else followed the link to this draft; the code is of no use without this mailbox, and you can ignore this message."
  const text = [
    "Your one-time code to open the draft record of processing shared with you:",
    "",
    `    ${input.code}`,
    "",
    valid,
    where,
    input.claimUrl,
    "",
    notYou,
    ""
  ].join("\n")
  const html = page(
    subject,
    [
      "<p>Your one-time code to open the draft record of processing shared with you:</p>",
      `<p style="font-size: 1.6em; font-family: ui-monospace, monospace; letter-spacing: 0.15em"><strong>${
        escapeHtml(input.code)
      }</strong></p>`,
      `<p>${escapeHtml(valid)} ${escapeHtml(where)}</p>`,
      link(input.claimUrl),
      `<p style="color: #555">${escapeHtml(notYou)}</p>`
    ].join("\n")
  )
  return { to: input.to, subject, text, html }
}

export interface LicenceUnlockInput {
  readonly to: string
  /** The licence key (`lic_…`): the point of this message. */
  readonly key: string
  readonly licenceId: string
  readonly claimId: string
  /** ISO date-time the licence stops unlocking sealing. */
  readonly expiresAt: string
}

/**
 * The unlock mail (`catalog admin licence issue`): the licence key, that payment happened outside the tool,
 * that it unlocks sealing of this record, how to set CATALOG_LICENCE_KEY, and when it expires.
 */
export const licenceUnlockMessage = (input: LicenceUnlockInput): MailMessage => {
  const subject = "Your licence key: sealing the record of processing is unlocked"
  const intro =
    `Thank you: your payment was received (it was handled outside the Local Data Catalog). This is the licence key for the record ${input.claimId} (licence ${input.licenceId}).`
  const unlocks =
    "It unlocks sealing: a person with the authority to sign seals the record on its claim page, or with `catalog verify` on the machine paired with it, and the portal produces the signed official record."
  const how =
    "Set it on the machine paired with this record, as an environment variable (keep it private, like a password):"
  const setLine = `    export CATALOG_LICENCE_KEY=${input.key}`
  const expiry =
    `It is valid until ${input.expiresAt}. After that the record goes back to a draft for new changes; what was already sealed stays valid and verifiable.`
  const notYou = "If you did not expect this message, tell the operator of the portal that sent it."
  const text = [intro, "", unlocks, "", how, "", setLine, "", expiry, "", notYou, ""].join("\n")
  const html = page(
    subject,
    [
      `<p>${escapeHtml(intro)}</p>`,
      `<p>${escapeHtml(unlocks)}</p>`,
      `<p>${escapeHtml(how)}</p>`,
      `<pre style="font-family: ui-monospace, monospace; white-space: pre-wrap; word-break: break-all">export CATALOG_LICENCE_KEY=${
        escapeHtml(input.key)
      }</pre>`,
      `<p>${escapeHtml(expiry)}</p>`,
      `<p style="color: #555">${escapeHtml(notYou)}</p>`
    ].join("\n")
  )
  return { to: input.to, subject, text, html }
}
