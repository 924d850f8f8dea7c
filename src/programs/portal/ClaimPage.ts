/**
 * The claim page: the invite snapshot as its recipient sees it, rendered on the server as one complete
 * HTML document — readable without JavaScript (there is none), printable (a DPO prints it or saves it as
 * PDF: no navigation in print, a page break before each part, the DRAFT stamp on every printed page,
 * links printed as text) and with every value from the snapshot or the request escaped. Both the hosted
 * portal (`admin serve`) and `catalog serve-claim` render it with these functions; they also render
 * their notice pages (unknown, superseded or removed claims, errors) and gate pages (prove you are the
 * recipient, open as the admin) here, so every page shares one look and one stylesheet.
 *
 * The stylesheet is inline and fixed: the servers send `claimPageCsp`, which allows exactly it (by its
 * SHA-256), no script, no other origin, forms posting only to the same origin.
 *
 * Pure: no I/O, no clock (every date shown comes from the snapshot or the context).
 */
import { createHash } from "node:crypto"
import type { Column, Dataset, LineageEdge, SourceState } from "../../domain/Catalog.js"
import type { Activity, DoraRegister, LegalField } from "../../domain/Compliance.js"
import type { Snapshot } from "../../domain/Snapshot.js"
import type { AcknowledgedCall, DoraFill, LicenceInfo, Signer } from "../../domain/Sync.js"
import { doraTemplates } from "../../dora/templates.js"

type ClassValue = Column["classification"]["value"]

// ── escaping and a tiny HTML builder ──────────────────────────────────────────────────────────────

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Escapes text for an HTML text node or a quoted attribute value (`&`, `<`, `>`, `"`, `'`). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c] ?? c)

/** Markup already built (and escaped) by `html`. */
class Html {
  constructor(readonly value: string) {}
}

type Part = Html | string | number | boolean | null | undefined | ReadonlyArray<Part>

const render = (part: Part): string => {
  if (part instanceof Html) return part.value
  if (Array.isArray(part)) return (part as ReadonlyArray<Part>).map(render).join("")
  if (part === null || part === undefined || part === false || part === true) return ""
  return escapeHtml(String(part))
}

/** A template whose every interpolated value is escaped unless it is itself `html`. */
const html = (strings: TemplateStringsArray, ...parts: ReadonlyArray<Part>): Html => {
  let out = strings[0] ?? ""
  for (let i = 0; i < parts.length; i++) out += render(parts[i]) + (strings[i + 1] ?? "")
  return new Html(out)
}

// ── formatting ─────────────────────────────────────────────────────────────────────────────────────

const numberFormat = new Intl.NumberFormat("en")
const dateFormat = new Intl.DateTimeFormat("en-GB", {
  timeZone: "UTC",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false
})

const num = (n: number): string => numberFormat.format(n)
const plural = (n: number, one: string, many = `${one}s`): string => `${num(n)} ${n === 1 ? one : many}`

/** An ISO-8601 instant as "24 Nov 2026, 16:42 UTC" (plain text; anything unparsable as given). */
const whenText = (iso: string): string => {
  const t = Date.parse(iso)
  return Number.isNaN(t) ? iso : `${dateFormat.format(t)} UTC`
}

/** An ISO-8601 instant as "24 Nov 2026, 16:42 UTC" in a <time>; anything unparsable is shown as given. */
const when = (iso: string | null | undefined, missing = "never"): Html => {
  if (iso === null || iso === undefined || iso === "") return html`<span class="muted">${missing}</span>`
  const t = Date.parse(iso)
  if (Number.isNaN(t)) return html`${iso}`
  return html`<time datetime="${iso}">${dateFormat.format(new Date(t))} UTC</time>`
}

const classLabel: Record<ClassValue, string> = {
  personal: "Personal",
  special: "Special category",
  criminal: "Criminal offence",
  not: "Not personal"
}
const classGlyph: Record<ClassValue, string> = { personal: "●", special: "▲", criminal: "◆", not: "○" }

const classBadge = (c: ClassValue): Html =>
  html`<span class="badge cls-${c}"><span class="glyph" aria-hidden="true">${classGlyph[c]}</span> ${
    classLabel[c]
  }</span>`

const muted = (text: string): Html => html`<span class="muted">${text}</span>`
const list = (items: ReadonlyArray<string>, none: string): Html | string =>
  items.length === 0 ? muted(none) : items.join(", ")

const facts = (rows: ReadonlyArray<readonly [string, Part]>): Html =>
  html`<dl class="facts">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`

// ── the stylesheet (fixed text: the CSP allows it by hash) ───────────────────────────────────────────

const stamp = "DRAFT — not an official record; nothing here is signed"

const style = `
:root {
  --bg: #f5f6f8; --surface: #ffffff; --surface-2: #f9fafb; --border: #e2e5ea; --border-strong: #cdd2da;
  --text: #1b2330; --muted: #5a6473; --accent: #234e7a; --accent-2: #2f6aa6; --accent-soft: #e8f0f8; --focus: #1a73e8;
  --personal: #0072b2; --personal-bg: #e5f1fa; --personal-text: #00507e;
  --special: #d55e00; --special-bg: #fdeee3; --special-text: #9a3f00;
  --criminal: #b3447f; --criminal-bg: #f8e9f1; --criminal-text: #85285c;
  --not: #8a94a3; --not-bg: #f0f2f5; --not-text: #4a5361;
  --ok: #1a7f4b; --ok-bg: #e4f4eb; --warn: #8a5a00; --warn-bg: #fff3d6; --warn-line: #e0a400;
  --bad: #b42318; --bad-bg: #fde9e7; --radius: 10px;
  --shadow: 0 1px 2px rgba(16, 24, 40, 0.05), 0 1px 3px rgba(16, 24, 40, 0.06);
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", "DejaVu Sans", Arial, sans-serif;
  --mono: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace;
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.5 var(--font); }
a { color: var(--accent-2); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 4px; }
code, .mono { font-family: var(--mono); font-size: 0.92em; overflow-wrap: anywhere; }
h1, h2, h3 { line-height: 1.25; margin: 0; }
h1 { font-size: 1.6rem; font-weight: 650; letter-spacing: -0.01em; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; font-weight: 650; margin-bottom: 12px; }
h3 { font-size: 1rem; font-weight: 650; margin: 16px 0 6px; overflow-wrap: anywhere; }
p { margin: 0 0 10px; }
.muted { color: var(--muted); }
.small { font-size: 0.86em; }
.num { font-variant-numeric: tabular-nums; text-align: right; }
.skip { position: absolute; left: 8px; top: -40px; background: var(--accent); color: #fff; padding: 8px 12px; border-radius: 6px; }
.skip:focus { top: 8px; }
.topbar { display: flex; flex-wrap: wrap; align-items: center; gap: 10px 16px; padding: 12px 24px; background: var(--accent); color: #fff; }
.brand { font-weight: 650; font-size: 1.02rem; }
.topbar .badge { margin-left: auto; background: rgba(255, 255, 255, 0.16); color: #fff; border-color: rgba(255, 255, 255, 0.45); }
main { max-width: 1180px; margin: 0 auto; padding: 24px 24px 48px; }
.page-head { margin: 0 0 16px; }
.lead { color: var(--muted); max-width: 80ch; margin-top: 6px; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 18px 20px; margin-bottom: 18px; box-shadow: var(--shadow); }
.part { margin-top: 28px; }
.part > h2 { font-size: 1.3rem; padding-bottom: 6px; border-bottom: 2px solid var(--border); }
.stamp { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 16px; margin: 0 0 18px; padding: 12px 18px; border: 2px solid var(--bad); border-radius: var(--radius); color: var(--bad); background: repeating-linear-gradient(-45deg, #fff7f6, #fff7f6 12px, #fdeeec 12px, #fdeeec 24px); }
.stamp strong { font-size: 1.05rem; letter-spacing: 0.04em; }
.stamp span { color: var(--text); font-size: 0.9em; }
.stamp.official { border-color: var(--ok); color: var(--ok); background: var(--ok-bg); }
.banner { padding: 12px 16px; border-radius: var(--radius); margin: 0 0 16px; border: 1px solid var(--border); border-left-width: 5px; background: var(--surface); }
.banner strong { display: block; }
.banner.local { border-left-color: var(--accent-2); background: var(--accent-soft); }
.banner.notice { border-left-color: var(--ok); background: var(--ok-bg); }
.banner.warn { border-left-color: var(--warn-line); background: var(--warn-bg); }
.banner.bad { border-left-color: var(--bad); background: var(--bad-bg); }
.badge { display: inline-flex; align-items: center; gap: 2px; white-space: nowrap; padding: 1px 8px; border-radius: 999px; font-size: 0.8rem; font-weight: 600; line-height: 1.6; border: 1px solid transparent; vertical-align: middle; }
.badge .glyph { font-size: 0.85em; }
.cls-personal.badge { background: var(--personal-bg); color: var(--personal-text); border-color: var(--personal); }
.cls-special.badge { background: var(--special-bg); color: var(--special-text); border-color: var(--special); }
.cls-criminal.badge { background: var(--criminal-bg); color: var(--criminal-text); border-color: var(--criminal); }
.cls-not.badge { background: var(--not-bg); color: var(--not-text); border-color: var(--border-strong); font-weight: 500; }
.badge.ok { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); }
.badge.warn { background: var(--warn-bg); color: var(--warn); border-color: var(--warn-line); }
.badge.bad { background: var(--bad-bg); color: var(--bad); border-color: var(--bad); }
.badge.neutral { background: var(--surface-2); color: var(--muted); border-color: var(--border-strong); font-weight: 500; }
.stale-fresh { background: var(--ok-bg); color: var(--ok); border-color: var(--ok); }
.stale-stale-warn { background: var(--warn-bg); color: var(--warn); border-color: var(--warn-line); }
.stale-stale-loud { background: var(--bad-bg); color: var(--bad); border-color: var(--bad); }
.stale-never { background: var(--not-bg); color: var(--not-text); border-color: var(--border-strong); border-style: dashed; }
.missing { color: var(--bad); font-weight: 600; }
.facts { margin: 0; display: grid; gap: 8px; }
.facts > div { display: grid; grid-template-columns: minmax(120px, 30%) 1fr; gap: 12px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin: 0 0 18px; padding: 0; list-style: none; }
.stat { background: var(--surface); border: 1px solid var(--border); border-top: 4px solid var(--accent); border-radius: var(--radius); padding: 10px 14px; }
.stat.cls-personal { border-top-color: var(--personal); }
.stat.cls-special { border-top-color: var(--special); }
.stat.cls-criminal { border-top-color: var(--criminal); }
.stat.warn { border-top-color: var(--warn-line); }
.stat-label { display: block; font-size: 0.8rem; color: var(--muted); font-weight: 600; }
.stat-value { display: block; font-size: 1.6rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
.toc { margin: 0 0 18px; }
.toc ol { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 0; padding: 0; list-style: none; }
.table-wrap { overflow-x: auto; border: 1px solid var(--border); border-radius: 8px; margin: 6px 0 12px; }
.tbl { width: 100%; border-collapse: collapse; background: var(--surface); }
.tbl caption { text-align: left; padding: 8px 12px; font-weight: 600; caption-side: top; }
.tbl th, .tbl td { padding: 7px 10px; border-bottom: 1px solid var(--border); text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.tbl thead th { background: var(--surface-2); font-size: 0.76rem; font-weight: 650; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; white-space: nowrap; }
.tbl tbody th { font-weight: 500; }
.tbl tbody tr:last-child > * { border-bottom: 0; }
.tbl.compact th, .tbl.compact td { padding: 4px 8px; font-size: 0.92em; }
.tbl td.num, .tbl th.num { text-align: right; white-space: nowrap; }
.ds-name { display: block; font-weight: 600; color: var(--accent); overflow-wrap: anywhere; }
.ds-id { display: block; font-family: var(--mono); font-size: 0.8em; color: var(--muted); overflow-wrap: anywhere; }
.activity-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-bottom: 10px; }
.activity-head h3 { margin: 0; font-size: 1.1rem; }
.cats { margin: 0; padding: 0; list-style: none; display: grid; gap: 4px; }
.legal-table tr.suggested > th { box-shadow: inset 5px 0 0 var(--warn-line); }
.legal-table tr.confirmed > th { box-shadow: inset 5px 0 0 var(--ok); }
.legal-table tr.suggested > td.value { font-style: italic; }
.review { display: block; margin-top: 4px; padding: 2px 8px; background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 6px; font-size: 0.86em; color: #5c3d00; }
.prefilled { color: var(--muted); font-size: 0.78em; }
.violations { margin: 6px 0 0; padding-left: 20px; }
.glossary dt { font-weight: 650; }
.glossary dd { margin: 0 0 10px; }
form.fields { display: grid; gap: 12px; max-width: 520px; margin-top: 14px; padding-top: 14px; border-top: 1px solid var(--border); }
form.fields label { display: grid; gap: 4px; font-weight: 600; }
form.fields input { font: inherit; font-weight: 400; height: 38px; padding: 0 10px; border: 1px solid var(--border-strong); border-radius: 8px; background: var(--surface); color: var(--text); }
button { font: inherit; font-weight: 600; cursor: pointer; border-radius: 8px; padding: 8px 16px; border: 1px solid var(--accent); background: var(--accent); color: #fff; justify-self: start; }
button:hover { background: var(--accent-2); }
form.fields label.check { display: flex; align-items: flex-start; gap: 8px; font-weight: 500; }
form.fields label.check input { height: auto; margin-top: 4px; }
.print-only { display: none; }
footer.foot { max-width: 1180px; margin: 0 auto; padding: 0 24px 32px; color: var(--muted); font-size: 0.86em; }
@page {
  size: A4;
  margin: 18mm 14mm 16mm;
  @top-center { content: "DRAFT — not an official record; nothing here is signed"; color: #b42318; font: 600 8pt sans-serif; }
  @bottom-right { content: "Page " counter(page) " of " counter(pages); color: #5a6473; font: 8pt sans-serif; }
}
@media print {
  html, body { background: #fff; font-size: 10pt; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .topbar, .toc, .skip, .no-print, form { display: none !important; }
  .print-only { display: block; }
  .print-watermark { position: fixed; top: 40%; left: 0; right: 0; text-align: center; font: 700 88pt sans-serif; letter-spacing: 0.1em; color: rgba(180, 35, 24, 0.08); transform: rotate(-28deg); z-index: 0; pointer-events: none; }
  main, footer.foot { max-width: none; padding: 0; }
  .card, .stat { box-shadow: none; }
  .part { margin-top: 0; break-before: page; }
  h2, h3, .activity-head { break-after: avoid; }
  tr, .stat, .facts > div, .stamp, .banner { break-inside: avoid; }
  thead { display: table-header-group; }
  .table-wrap { overflow: visible; border-radius: 0; }
  a { color: inherit; text-decoration: none; }
  a[href]:not([href^="#"]):not(.bare)::after { content: " <" attr(href) ">"; font-family: var(--mono); font-size: 0.85em; color: var(--muted); }
}
`

/** The official record's stylesheet: the same, with the printed page header saying what it is. */
const officialStyle = style.replace(
  `@top-center { content: "${stamp}"; color: #b42318;`,
  `@top-center { content: "OFFICIAL RECORD — sealed; see the first page for who and when"; color: #1a7f4b;`
).replace("color: rgba(180, 35, 24, 0.08)", "color: rgba(26, 127, 75, 0.08)")

/** The SHA-256 of the inline stylesheet, as CSP names it (`'sha256-…'`). */
export const claimPageStyleHash = `'sha256-${createHash("sha256").update(style, "utf8").digest("base64")}'`
/** The official record's stylesheet hash (for serving `ropa.html` from the portal under the CSP). */
export const officialStyleHash = `'sha256-${createHash("sha256").update(officialStyle, "utf8").digest("base64")}'`

/**
 * The Content-Security-Policy every page rendered here needs, and all it needs: its one inline
 * stylesheet, no script, images only as data: URLs, forms posting to the same origin, no framing.
 */
export const claimPageCsp =
  `default-src 'none'; style-src ${claimPageStyleHash}; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`

const document = (title: string, badge: string, body: Html, css: string = style): string =>
  "<!doctype html>\n" +
  html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light">
<title>${title}</title>
<style>${new Html(css)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="topbar"><span class="brand">Local Data Catalog</span><span class="brand-sub">${title}</span><span class="badge">${badge}</span></header>
${body}
</body>
</html>
`.value

// ── the claim page ───────────────────────────────────────────────────────────────────────────────────

export interface ClaimInfo {
  readonly id: string
  readonly state: "live" | "superseded" | "removed"
  readonly recipient: string | null
  readonly unbound: boolean
  readonly createdAt: string
  readonly lastUploadAt: string | null
  /** Who is looking: the claim's admin (an unbound claim's first opener) or its proven recipient. */
  readonly role: "admin" | "recipient"
}

export interface ClaimPageContext {
  /** `local`: served by `catalog serve-claim` from this machine's snapshot; `portal`: a claim on the portal. */
  readonly mode: "local" | "portal"
  readonly claim: ClaimInfo | null
  /** The controller block as completed on the portal; each field set here wins over the snapshot's. */
  readonly controller: {
    readonly name: string | null
    readonly contact: string | null
    readonly updatedAt: string | null
  } | null
  /** When set, the controller block is an editable form POSTing `name`, `contact` (and `csrf` when given). */
  readonly controllerForm: { readonly action: string; readonly csrf: string | null } | null
  /** A one-line message shown at the top (e.g. "Controller saved."). */
  readonly notice: string | null
  /** The claim's newest licence (portal mode), null when none was issued; absent: no licence section. */
  readonly licence?: LicenceInfo | null
  /**
   * The official variant (the sealed `ropa.html`): the DRAFT stamp, watermark and badge are replaced by
   * "OFFICIAL RECORD — sealed <date> by <name>, <role>"; no form, no link back to the portal.
   */
  readonly official?: OfficialStamp | undefined
  /** The portal's "Fill the DORA register" forms (POSTing table, rowKey, field, value) and the cells filled so far. */
  readonly doraFill?: { readonly action: string; readonly fills: ReadonlyArray<DoraFill> } | null
  /** The portal's 'Connect a machine' section (the record's admin only): sync tokens, create and revoke. */
  readonly connect?: ConnectMachineView | null
  /** The portal's "Seal the record" section (a session of the claim): the form, or the seal and its downloads. */
  readonly seal?: SealView | null
}

/** The licence state of a claim on the portal: none, active until …, expired, revoked (issue 12). */
const licenceSection = (ctx: ClaimPageContext): Html => {
  if (ctx.mode !== "portal" || ctx.licence === undefined) return html``
  const l = ctx.licence
  const state = l === null
    ? html`<strong>No licence</strong>: this record can be reviewed and completed, but not sealed. The portal's operator issues a licence key after payment and mails it to the record's admin.`
    : l.state === "active"
    ? html`<strong>Active</strong> until ${when(l.expiresAt)} (licence <code>${l.id}</code>): sealing is unlocked.`
    : l.state === "expired"
    ? html`<strong>Expired</strong> at ${
      when(l.expiresAt)
    } (licence <code>${l.id}</code>): the record is a draft for new changes; what was sealed stays valid.`
    : html`<strong>Revoked</strong> (licence <code>${l.id}</code>): it can no longer seal. Ask the portal's operator for a new key.`
  return html`<section class="card" id="licence" aria-labelledby="licence-h">
<h2 id="licence-h">Licence</h2>
<p id="licence-state" data-state="${l === null ? "none" : l.state}">${state}</p>
</section>`
}

export interface OfficialStamp {
  readonly sealId: string
  readonly sealedAt: string
  readonly signerName: string
  readonly signerRole: string
  readonly termsVersion: string | null
  readonly licenceId: string
  readonly acknowledgedOpenCalls: ReadonlyArray<
    { readonly activity: string; readonly field: string; readonly status: string }
  >
}

/** "OFFICIAL RECORD — sealed 24 Nov 2026, 16:42 UTC by Ada Lovelace, DPO". */
export const officialStampText = (o: OfficialStamp): string =>
  `OFFICIAL RECORD — sealed ${whenText(o.sealedAt)} by ${o.signerName}, ${o.signerRole}`

const officialStamp = (o: OfficialStamp): Html =>
  html`<div class="stamp official" role="note" id="official-stamp"><strong>${
    officialStampText(o)
  }</strong><span>Seal <code>${o.sealId}</code> under licence <code>${o.licenceId}</code>${
    o.termsVersion !== null ? html`; customer agreement version <code>${o.termsVersion}</code> accepted` : ""
  }. Each file of this record carries a detached Ed25519 signature by the portal's key (see manifest.json).${
    o.acknowledgedOpenCalls.length > 0
      ? html` Sealed with ${plural(o.acknowledgedOpenCalls.length, "open legal call")} acknowledged: ${
        o.acknowledgedOpenCalls.map((c, i) => html`${i > 0 ? "; " : ""}${c.activity} — ${c.field} (${c.status})`)
      }.`
      : ""
  }</span></div>`

// ── seal the record (issue 12 part 4) ──────────────────────────────────────────────────────────────

/** One sealed artifact as the claim page offers it for download, with its detached signature. */
export interface SealedDownload {
  readonly name: string
  readonly bytes: number
  readonly sha256: string
  /** GET: the artifact (attachment). */
  readonly href: string
  /** GET: its raw 64-byte Ed25519 signature (attachment). */
  readonly signatureHref: string
}

export interface SealView {
  /** false: the free build — sealing is the paid step and is not installed here (no form). */
  readonly installed: boolean
  /** POST: `acceptTerms` (= the version), `signerName`, `signerRole`, `signerEmail`, `acknowledgeOpenCalls`. */
  readonly action: string
  /** CATALOG_TOS_VERSION: the agreement's checkbox is shown only when set. */
  readonly termsVersion: string | null
  /** The open legal calls of the newest draft (a seal acknowledges them or waits until they are closed). */
  readonly openCalls: ReadonlyArray<typeof AcknowledgedCall.Type>
  /** The SHA-256 of the draft this page shows: posted back, so a seal is of exactly the draft the human saw. */
  readonly snapshotSha256: string | null
  /** The record's newest seal, if any, with its downloads and the state now (sealed, or a draft again and why). */
  readonly sealed: {
    readonly id: string
    readonly sealedAt: string
    readonly signer: Signer
    readonly termsVersion: string | null
    readonly acknowledgedOpenCalls: ReadonlyArray<typeof AcknowledgedCall.Type>
    readonly licenceId: string
    readonly state: "sealed" | "draft"
    readonly reason: string | null
    readonly downloads: ReadonlyArray<SealedDownload>
  } | null
  /** The portal's public key (PEM): what the signatures verify against. */
  readonly publicKeyHref: string
  /** The refusal of the last attempt (its code, message and fix), shown above the form. */
  readonly refusal: { readonly code: string; readonly message: string; readonly fix: string | null } | null
  /** What the form held when it was refused (so nothing typed is lost). */
  readonly values: { readonly name: string; readonly role: string; readonly email: string }
}

const openCallList = (calls: ReadonlyArray<typeof AcknowledgedCall.Type>): Html =>
  html`<ul class="open-calls">${
    calls.map((c) => html`<li>${c.activity} — <code>${c.field}</code> (${c.status})</li>`)
  }</ul>`

const sealForm = (view: SealView, ctx: ClaimPageContext): Html => {
  const l = ctx.licence
  const licenceLine = l === null || l === undefined
    ? html`<p id="seal-licence" data-state="none"><strong>No licence:</strong> sealing needs an active licence. The portal's operator issues one after payment.</p>`
    : l.state === "active"
    ? html`<p id="seal-licence" data-state="active">Licence <code>${l.id}</code> is <strong>active</strong> until ${
      when(l.expiresAt)
    }: sealing is unlocked.</p>`
    : html`<p id="seal-licence" data-state="${l.state}">Licence <code>${l.id}</code> is <strong>${l.state}</strong>: sealing needs an active licence.</p>`
  return html`${licenceLine}
${
    view.refusal !== null
      ? html`<div class="banner bad" role="alert" id="seal-refusal"><strong>Not sealed — <code>${view.refusal.code}</code></strong><span>${view.refusal.message}${
        view.refusal.fix !== null ? html` <strong>What to do:</strong> ${view.refusal.fix}` : ""
      } Nothing was stored.</span></div>`
      : ""
  }
<form class="fields" method="post" action="${view.action}" id="seal-form">
<input type="hidden" name="snapshotSha256" value="${view.snapshotSha256 ?? ""}">
${
    view.termsVersion !== null
      ? html`<label class="check"><input type="checkbox" name="acceptTerms" value="${view.termsVersion}"> I accept the customer agreement (version ${view.termsVersion})</label>`
      : ""
  }
<label>Your name (the signer)<input type="text" name="signerName" maxlength="200" autocomplete="name" value="${view.values.name}"></label>
<label>Your role (e.g. Data Protection Officer)<input type="text" name="signerRole" maxlength="200" autocomplete="organization-title" value="${view.values.role}"></label>
<label>Your e-mail (optional)<input type="email" name="signerEmail" maxlength="254" autocomplete="email" value="${view.values.email}"></label>
${
    view.openCalls.length > 0
      ? html`<div id="seal-open-calls"><p><strong>${
        plural(view.openCalls.length, "legal call")
      } still open</strong> (suggested, or needing review):</p>${openCallList(view.openCalls)}
<label class="check"><input type="checkbox" name="acknowledgeOpenCalls" value="yes"> Seal with these calls open (the acknowledgment is recorded)</label></div>`
      : html`<p class="muted" id="seal-open-calls-none">No legal call is open.</p>`
  }
<button type="submit">Seal the record</button>
</form>`
}

/** "Seal the record" (portal, a session of the claim): the seal and its downloads, and the form. */
const sealSection = (ctx: ClaimPageContext): Html => {
  const view = ctx.seal
  if (ctx.mode !== "portal" || view === undefined || view === null) return html``
  const s = view.sealed
  const sealedBlock = s === null ?
    html`` :
    html`<div class="banner ${
      s.state === "sealed" ? "notice" : "warn"
    }" id="sealed" data-seal-id="${s.id}" data-state="${s.state}"><strong>Sealed on ${
      whenText(s.sealedAt)
    } by ${s.signer.name}, ${s.signer.role}</strong><span>Seal <code>${s.id}</code> under licence <code>${s.licenceId}</code>${
      s.termsVersion !== null ? html`; customer agreement version <code>${s.termsVersion}</code> accepted` : ""
    }${
      s.acknowledgedOpenCalls.length > 0
        ? html`; sealed with ${plural(s.acknowledgedOpenCalls.length, "open legal call")} acknowledged`
        : ""
    }.${
      s.state === "draft"
        ? html` The record is a draft again for new changes (<code>${
          s.reason ?? "LICENCE_EXPIRED"
        }</code>); what was signed stays valid.`
        : ""
    }</span></div>
<div class="table-wrap"><table class="tbl compact" id="sealed-artifacts"><caption>The signed artifacts</caption>
<thead><tr><th scope="col">File</th><th scope="col">Bytes</th><th scope="col">SHA-256</th><th scope="col">Signature</th></tr></thead>
<tbody>${
      s.downloads.map((d) =>
        html`<tr><td><a href="${d.href}" download>${d.name}</a></td><td>${
          num(d.bytes)
        }</td><td><code>${d.sha256}</code></td><td><a href="${d.signatureHref}" download>${d.name}.sig</a></td></tr>`
      )
    }</tbody></table></div>
<p class="small">Each file carries a detached Ed25519 signature by this portal's key: <a href="${view.publicKeyHref}" id="seal-public-key">the portal's public key</a> (PEM). Anyone verifies a file with <code>openssl pkeyutl -verify -pubin -inkey signing-key.pem -rawin -in ropa.json -sigfile ropa.json.sig</code>.</p>`
  const body = !view.installed
    ? html`<p id="seal-not-installed" data-code="PORTAL_NOT_INSTALLED">The official record — sealing and the signed export — is the paid step, and it is not installed in this build of the portal (<code>PORTAL_NOT_INSTALLED</code>). The draft can still be reviewed, completed and shared.</p>`
    : s === null
    ? sealForm(view, ctx)
    : html`<details class="seal-again"${
      view.refusal !== null ? html` open` : ""
    }><summary>Seal again (a newer draft)</summary>${sealForm(view, ctx)}</details>`
  return html`<section class="card" id="seal" aria-labelledby="seal-h">
<h2 id="seal-h">Seal the record</h2>
<p class="lead">Sealing makes this draft the official record: the portal signs the RoPA (and the DORA register when in scope) as JSON and as a printable document, with your name and role, the time${
    view.termsVersion !== null ? ", the agreement version" : ""
  } and any open calls you acknowledge. A person signs — never a tool.</p>
${sealedBlock}
${body}
</section>`
}

// ── connect a machine (sync tokens) ───────────────────────────────────────────────────────────────────

/** A sync token as the claim page lists it (never the token itself). */
export interface SyncTokenRow {
  readonly id: string
  readonly label: string | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export interface ConnectMachineView {
  /** POST `label` → a new token, shown once. */
  readonly createAction: string
  /** POST `id` → that token revoked. */
  readonly revokeAction: string
  readonly tokens: ReadonlyArray<SyncTokenRow>
}

const connectSection = (view: ConnectMachineView): Html =>
  html`<section class="card" id="connect" aria-labelledby="connect-h">
<h2 id="connect-h">Connect a machine</h2>
<p class="lead">A machine paired with this record uploads its refreshed draft after each scan (<code>catalog start</code>, <code>catalog watch</code>) and on <code>catalog push</code>. Create a token for it; the token is shown once, then only its label and dates are listed here. Revoke a token to unpair its machine.</p>
<form class="fields" method="post" action="${view.createAction}">
<label>Label (optional, e.g. the machine's name)<input type="text" name="label" maxlength="100"></label>
<button type="submit">Create a sync token</button>
</form>
${
    view.tokens.length === 0
      ? html`<p class="muted" id="sync-tokens-none">No machine is paired yet.</p>`
      : html`<div class="table-wrap"><table class="tbl compact" id="sync-tokens"><caption>Sync tokens</caption>
<thead><tr><th scope="col">Token</th><th scope="col">Label</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th><th scope="col"></th></tr></thead>
<tbody>${
        view.tokens.map((t) =>
          html`<tr data-token-id="${t.id}"><td><code>${t.id}</code></td><td>${t.label ?? muted("—")}</td><td>${
            when(t.createdAt)
          }</td><td>${when(t.lastUsedAt)}</td><td>${
            t.revokedAt === null
              ? html`<span class="badge ok">active</span>`
              : html`<span class="badge bad">revoked</span> ${when(t.revokedAt)}`
          }</td><td>${
            t.revokedAt === null
              ? html`<form method="post" action="${view.revokeAction}"><input type="hidden" name="id" value="${t.id}"><button type="submit">Revoke</button></form>`
              : ""
          }</td></tr>`
        )
      }</tbody></table></div>`
  }
</section>`

/** The page after 'Create a sync token': the token, shown this once, and the two lines to set on the machine. */
export const renderSyncTokenCreatedPage = (created: {
  readonly id: string
  readonly label: string | null
  readonly token: string
  readonly portalUrl: string
  readonly backTo: string
}): string =>
  document(
    "Sync token created",
    "Draft record",
    html`<main id="main"><section class="card gate-page" id="sync-token-created"><h1>Sync token created</h1>
<p class="lead">Token <code>${created.id}</code>${
      created.label !== null ? html` (${created.label})` : ""
    }. Copy it now: it is shown only on this page, and the portal keeps only its hash.</p>
<p>Set these two variables on the machine (for example in its <code>.env</code>), then run <code>catalog push</code>; <code>catalog start</code> and <code>catalog watch</code> upload after each scan from then on.</p>
<pre class="mono" id="sync-env">CATALOG_PORTAL_URL=${created.portalUrl}
CATALOG_SYNC_TOKEN=${created.token}</pre>
<p class="small muted">Anyone holding the token can upload drafts to this record. Revoke it on the claim page if it leaks.</p>
<p><a href="${created.backTo}">Back to the draft</a></p>
</section></main>`
  )

const modeBanner = (snapshot: Snapshot, ctx: ClaimPageContext): Html => {
  if (ctx.mode === "local") {
    return html`<div class="banner local" role="note" id="mode-banner"><strong>Local preview — served from this machine's snapshot; nothing has been sent</strong>
<span>This is the claim page the recipient would see. It is read from this machine's <code>invite-snapshot.json</code> (written by <code>catalog invite --no-upload</code>) on each request; the exact bytes <code>catalog invite</code> would upload are at <a class="bare" href="/snapshot.json">/snapshot.json</a>.</span></div>`
  }
  const claim = ctx.claim
  if (claim === null) return html``
  const tone = claim.state === "live" ? "notice" : claim.state === "superseded" ? "warn" : "bad"
  const state = claim.state === "live"
    ? "Live claim"
    : claim.state === "superseded"
    ? "Superseded: a newer draft replaced this one"
    : "Removed by the portal's operator"
  const who = claim.role === "admin"
    ? claim.unbound
      ? "You opened this unbound link first, so you are this record's admin."
      : "You are viewing as this record's admin."
    : `You proved you are the recipient (${claim.recipient ?? snapshot.recipient ?? "unknown"}).`
  return html`<div class="banner ${tone}" role="note" id="mode-banner"><strong>${state}</strong>
<span>${who} Claim <code>${claim.id}</code>, created ${when(claim.createdAt)}; last upload ${
    when(claim.lastUploadAt, "none")
  }.</span></div>`
}

const recipientLine = (snapshot: Snapshot, ctx: ClaimPageContext): Part => {
  const recipient = ctx.claim?.recipient ?? snapshot.recipient
  if (recipient !== null) return html`<strong>${recipient}</strong>`
  if (ctx.claim?.unbound ?? snapshot.unbound) {
    return html`unbound link: <span class="missing">whoever opens it first becomes the record's admin</span>`
  }
  return muted("not chosen yet (a local preview)")
}

const overview = (snapshot: Snapshot, ctx: ClaimPageContext): Html => {
  const s = snapshot.status
  const dora = snapshot.dora.inScope
    ? snapshot.dora.register === null ? "in scope, not drafted" : "in scope (register drafted below)"
    : "not in scope"
  const stat = (label: string, value: number, cls = "") =>
    html`<li class="stat ${cls}"><span class="stat-label">${label}</span><span class="stat-value">${
      num(value)
    }</span></li>`
  return html`<div class="card" id="overview">${
    facts([
      ["Drafted", when(snapshot.createdAt)],
      ["Drafted with", `${snapshot.tool.name} ${snapshot.tool.version}`],
      ["Shared with", recipientLine(snapshot, ctx)],
      ["Last scan", when(s.lastScanAt)],
      ["Coverage", snapshot.provenance.coverage.line],
      ["DORA", dora],
      [
        "Record",
        html`<span class="badge ${snapshot.ropa.seal === "draft" ? "bad" : "ok"}">${
          snapshot.ropa.seal === "draft" ? "Draft" : "Sealed"
        }</span> ${snapshot.ropa.stamp}`
      ]
    ])
  }</div>
<ul class="stats" aria-label="Summary">
${stat("Datasets", s.datasets)}${stat("Columns", s.columns)}${
    stat("Personal data items", s.personalDataItems, "cls-personal")
  }${stat("Datasets with personal data", s.datasetsWithPersonalData, "cls-personal")}${
    stat("Special-category columns", s.classes.special, "cls-special")
  }${stat("Criminal-offence columns", s.classes.criminal, "cls-criminal")}${
    stat("Open legal calls", snapshot.ropa.openLegalCalls, snapshot.ropa.openLegalCalls > 0 ? "warn" : "")
  }
</ul>`
}

const controllerSection = (snapshot: Snapshot, ctx: ClaimPageContext): Html => {
  const base = snapshot.controller ?? snapshot.ropa.controller
  const fill = ctx.controller
  const name = fill?.name ?? base?.name ?? null
  const contact = fill?.contact ?? base?.contact ?? null
  const value = (v: string | null) => v === null ? html`<span class="missing">not set — complete it</span>` : v
  const source = fill !== null && (fill.name !== null || fill.contact !== null)
    ? html`Completed on the portal${fill.updatedAt !== null ? html`, ${when(fill.updatedAt)}` : ""}.`
    : base !== null && (base.name !== null || base.contact !== null)
    ? html`From <code>catalog.yml</code> (<code>controller:</code>) on the machine that drafted this.`
    : ctx.mode === "local"
    ? html`Not set: add <code>controller: { name, contact }</code> to <code>catalog.yml</code>, or let the recipient complete it on the claim page.`
    : html`Not set: the controller's name and a reachable contact are required in a RoPA (Art. 30(1)(a)).`
  const form = ctx.controllerForm
  return html`<section class="card" id="controller" aria-labelledby="controller-h">
<h2 id="controller-h">Controller</h2>
${facts([["Name", value(name)], ["Contact", value(contact)]])}
<p class="small muted">${source}</p>
${
    form === null ? "" : html`<form class="fields" method="post" action="${form.action}">
${form.csrf !== null ? html`<input type="hidden" name="csrf" value="${form.csrf}">` : ""}
<label>Company name<input type="text" name="name" value="${
      name ?? ""
    }" required maxlength="300" autocomplete="organization"></label>
<label>Reachable contact<input type="text" name="contact" value="${
      contact ?? ""
    }" required maxlength="300" autocomplete="email"></label>
<button type="submit">Save the controller block</button>
</form>`
  }
</section>`
}

const fieldLabel: Record<LegalField["field"], string> = {
  purpose: "Purpose",
  lawfulBasis: "Lawful basis",
  retention: "Retention",
  transfers: "Transfers"
}

const legalRow = (f: LegalField): Html => {
  const status = f.status === "confirmed"
    ? html`<span class="badge ok"><span class="glyph" aria-hidden="true">✓</span> Confirmed</span>`
    : html`<span class="badge warn"><span class="glyph" aria-hidden="true">?</span> Suggested</span>`
  const confirmed = f.status === "confirmed"
    ? html`by <strong>${f.confirmedBy ?? "unknown"}</strong>${
      f.confirmedAt !== undefined ? html`<br>${when(f.confirmedAt)}` : ""
    }`
    : muted("awaiting a named human")
  return html`<tr class="legal ${f.status}" data-field="${f.field}"><th scope="row">${fieldLabel[f.field]}</th>
<td class="value">${f.value ?? muted("not filled")}${
    f.suggestion !== null && f.suggestion !== f.value
      ? html`<div class="small muted">Suggested from the scan: ${f.suggestion}</div>`
      : ""
  }</td>
<td>${status}${
    f.needsReview ? html`<span class="review">⚠ The data under it changed since it was confirmed: review</span>` : ""
  }</td>
<td class="small">${confirmed}</td></tr>`
}

const activityCard = (a: Activity, index: number): Html => {
  const fields = [a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers]
  const open = fields.filter((f) => f.status !== "confirmed" || f.needsReview).length
  return html`<article class="card activity" id="activity-${index + 1}" aria-labelledby="activity-${index + 1}-h">
<header class="activity-head"><h3 id="activity-${index + 1}-h">${a.name}</h3><code class="small">${a.key}</code>${
    open > 0
      ? html`<span class="badge warn">${plural(open, "open legal call")}</span>`
      : html`<span class="badge ok">all confirmed</span>`
  }${a.special ? classBadge("special") : ""}${a.criminal ? classBadge("criminal") : ""}</header>
${a.description !== "" ? html`<p>${a.description}</p>` : ""}
${
    facts([
      ["Systems", list(a.systems, "none")],
      ["Data subjects", list(a.dataSubjects, "not drafted")],
      [
        "Data categories",
        a.dataCategories.length === 0 ?
          muted("none") :
          html`<ul class="cats">${
            a.dataCategories.map((c) =>
              html`<li>${classBadge(c.class)} ${c.category} <span class="muted">(${
                plural(c.columns, "column")
              })</span></li>`
            )
          }</ul>`
      ],
      ["Special-category data (Art. 9)", a.special ? html`<strong>yes</strong>` : "no"],
      ["Criminal-offence data (Art. 10)", a.criminal ? html`<strong>yes</strong>` : "no"],
      ["Recipients", list(a.recipients, "none recorded")],
      [
        "Datasets",
        a.datasets.length === 0
          ? muted("none")
          : html`${a.datasets.map((d, i) => html`${i > 0 ? ", " : ""}<code>${d}</code>`)}`
      ]
    ])
  }
<div class="table-wrap"><table class="tbl legal-table"><caption>Legal fields of ${a.name}</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Status</th><th scope="col">Confirmed</th></tr></thead>
<tbody>${fields.map(legalRow)}</tbody></table></div>
</article>`
}

const ropaSection = (snapshot: Snapshot): Html => {
  const r = snapshot.ropa
  return html`<section class="part" id="ropa" aria-labelledby="ropa-h">
<h2 id="ropa-h">Record of processing activities (GDPR Art. 30)</h2>
<p class="lead">${plural(r.activities.length, "activity", "activities")} drafted from the map on ${
    when(r.generatedAt)
  }. Purpose, lawful basis, retention and transfers are legal calls: the tool only <em>suggests</em> them; a field is <em>confirmed</em> only when a named human confirmed it. <strong>${
    plural(r.openLegalCalls, "open legal call")
  }</strong>.</p>
${r.activities.length === 0 ? html`<p class="card muted">No activity drafted: no personal data was found.</p>` : ""}
${r.activities.map(activityCard)}
</section>`
}

const doraTable = (t: DoraRegister["tables"][number]): Html => {
  const columns: Array<string> = []
  for (const row of t.rows) for (const c of Object.keys(row.cells)) if (!columns.includes(c)) columns.push(c)
  return html`<div class="table-wrap"><table class="tbl compact dora-table" data-table="${t.code}"><caption>${t.code} — ${t.name} <span class="muted">(${
    plural(t.rows.length, "row")
  })</span></caption>
<thead><tr><th scope="col">Row</th>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${
    t.rows.map((row) =>
      html`<tr><th scope="row"><code>${row.key}</code></th>${
        columns.map((c) => {
          const v = row.cells[c]
          const pre = row.prefilled?.includes(c) === true
          return html`<td>${v ?? muted("—")}${pre ? html` <span class="prefilled">(from catalog.yml)</span>` : ""}</td>`
        })
      }</tr>`
    )
  }</tbody></table></div>`
}

const doraSection = (snapshot: Snapshot): Html => {
  const reg = snapshot.dora.register
  if (reg === null) {
    return html`<section class="part" id="dora" aria-labelledby="dora-h"><h2 id="dora-h">DORA Register of Information</h2>
<p class="card">In DORA scope, but no register was drafted.</p></section>`
  }
  const v = reg.validation
  return html`<section class="part" id="dora" aria-labelledby="dora-h">
<h2 id="dora-h">DORA Register of Information</h2>
<p class="lead">The register as drafted from the map and <code>catalog.yml</code>. ${reg.stamp ?? ""}</p>
<div class="card">${
    facts([
      ["Entity", reg.entity.name ?? html`<span class="missing">not set</span>`],
      [
        "LEI",
        reg.entity.lei !== null ? html`<code>${reg.entity.lei}</code>` : html`<span class="missing">not set</span>`
      ],
      ["Country", reg.entity.country ?? muted("not set")],
      ["Currency", reg.entity.currency ?? muted("not set")],
      [
        "Validation",
        v.valid
          ? html`<span class="badge ok">valid</span>`
          : html`<span class="badge bad">${
            plural(v.violations.length, "problem")
          }</span> the register cannot be exported until these are fixed`
      ]
    ])
  }${
    v.violations.length === 0 ?
      "" :
      html`<ul class="violations" id="dora-violations">${
        v.violations.map((x) =>
          html`<li><code>${x.table}</code>${x.rowKey !== null ? html` row <code>${x.rowKey}</code>` : ""}${
            x.column !== null ? html` column <code>${x.column}</code>` : ""
          }: ${x.reason}</li>`
        )
      }</ul>`
  }</div>
${reg.tables.length === 0 ? html`<p class="card muted">No table holds a row yet.</p>` : reg.tables.map(doraTable)}
</section>`
}

/** "Fill the DORA register" (portal): one small form per register table, then the cells filled on the portal. */
const doraFillSection = (snapshot: Snapshot, ctx: ClaimPageContext): Html => {
  const fill = ctx.doraFill
  if (fill === undefined || fill === null) return html``
  const carried = new Map((snapshot.dora.register?.tables ?? []).map((t) => [t.code, t]))
  const forms = doraTemplates().tables.map((t) => {
    const rows = carried.get(t.code)?.rows ?? []
    const listId = `dora-keys-${t.code}`
    const shape = t.row_key.length === 0 ? "_" : t.row_key.join("|")
    return html`<details class="card dora-fill-table" data-table="${t.code}"${rows.length > 0 ? html` open` : ""}>
<summary><code>${t.code}</code> — ${t.title} <span class="muted">(${
      plural(rows.length, "row")
    } in the draft)</span></summary>
<form class="fields" method="post" action="${fill.action}">
<input type="hidden" name="table" value="${t.code}">
<label>Row key <span class="small muted">(${shape}: an existing row's key or a new one)</span><input type="text" name="rowKey" list="${listId}" required maxlength="500"></label>
<datalist id="${listId}">${rows.map((r) => html`<option value="${r.key}">`)}</datalist>
<label>Field<select name="field" required>${
      t.columns.map((c) => html`<option value="${c.code}">${c.code} — ${c.name}${c.key ? " (key)" : ""}</option>`)
    }</select></label>
<label>Value<input type="text" name="value" required maxlength="1000"></label>
<button type="submit">Fill the cell</button>
</form></details>`
  })
  return html`<section class="part" id="dora-fill" aria-labelledby="dora-fill-h">
<h2 id="dora-fill-h">Fill the DORA register</h2>
<p class="lead">Set one cell at a time; it is checked like <code>catalog dora set</code> on the machine. The machine pulls these cells into its register with <code>catalog dora pull</code>; a value a person set there is never overwritten — a different one is reported as a conflict.</p>
${forms}
<div class="table-wrap"><table class="tbl compact" id="dora-fills"><caption>Cells filled on the portal <span class="muted">(${
    plural(fill.fills.length, "cell")
  })</span></caption>
<thead><tr><th scope="col">Table</th><th scope="col">Row</th><th scope="col">Field</th><th scope="col">Value</th><th scope="col">By</th><th scope="col">At</th></tr></thead>
<tbody>${
    fill.fills.length === 0
      ? html`<tr><td colspan="6">${muted("No cell filled yet.")}</td></tr>`
      : fill.fills.map((f) =>
        html`<tr><td><code>${f.table}</code></td><td><code>${f.rowKey}</code></td><td><code>${f.field}</code></td><td>${f.value}</td><td>${f.by}</td><td>${
          when(f.at)
        }</td></tr>`
      )
  }</tbody></table></div>
</section>`
}

const flagged = (c: Column): boolean => c.classification.value !== "not"

const rowsOf = (d: Dataset): Html | string =>
  d.rowCount.estimate !== null ? `~${num(d.rowCount.estimate)}` : muted(d.rowCount.display || "unknown")

const datasetColumns = (d: Dataset): Html => {
  const cols = d.columns.filter(flagged)
  const others = d.columns.length - cols.length
  return html`<div class="dataset-cols" data-dataset="${d.id}"><h3><span class="ds-name">${d.name}</span><span class="ds-id">${d.id}</span></h3>
<div class="table-wrap"><table class="tbl compact columns-table">
<thead><tr><th scope="col">Column</th><th scope="col">Type</th><th scope="col">Class</th><th scope="col">Category</th><th scope="col">Rule</th><th scope="col" class="num">Confidence</th></tr></thead>
<tbody>${
    cols.map((c) => {
      const k = c.classification
      return html`<tr><th scope="row"><code>${c.name}</code></th><td><code>${c.type}</code></td><td>${
        classBadge(k.value)
      }${k.overridden ? html` <span class="small muted">set by ${k.by ?? "a human"}</span>` : ""}</td><td>${
        k.category ?? muted("—")
      }</td><td><code>${k.rule}</code></td><td class="num">${Math.round(k.confidence * 100)}%</td></tr>`
    })
  }</tbody></table></div>
${others > 0 ? html`<p class="small muted">${plural(others, "other column")} not flagged.</p>` : ""}</div>`
}

const dataMapSection = (snapshot: Snapshot): Html => {
  const withPersonal = snapshot.datasets.filter((d) => d.columns.some(flagged))
  return html`<section class="part" id="data-map" aria-labelledby="data-map-h">
<h2 id="data-map-h">Data map</h2>
<p class="lead">${plural(snapshot.datasets.length, "dataset")}, ${plural(snapshot.status.columns, "column")}; ${
    plural(withPersonal.length, "dataset")
  } hold personal data. Metadata only: names, types and flags — never a row value.</p>
<div class="table-wrap"><table class="tbl compact datasets-table"><caption>Datasets</caption>
<thead><tr><th scope="col">Dataset</th><th scope="col">Kind</th><th scope="col" class="num">Rows</th><th scope="col" class="num">Columns</th><th scope="col" class="num">Personal</th><th scope="col" class="num">Special</th><th scope="col" class="num">Criminal</th></tr></thead>
<tbody>${
    snapshot.datasets.map((d) =>
      html`<tr><th scope="row"><span class="ds-name">${d.name}</span><span class="ds-id">${d.id}</span></th><td>${d.kind}</td><td class="num">${
        rowsOf(d)
      }</td><td class="num">${num(d.columns.length)}</td><td class="num">${
        num(d.classes.personal)
      }</td><td class="num">${num(d.classes.special)}</td><td class="num">${num(d.classes.criminal)}</td></tr>`
    )
  }</tbody></table></div>
${withPersonal.length > 0 ? html`<h3>Personal-data columns by dataset</h3>` : ""}
${withPersonal.map(datasetColumns)}
</section>`
}

const originLabel: Record<LineageEdge["origin"], string> = {
  scan: "scan (view definition)",
  dbt: "dbt manifest",
  user: "added by a person"
}

const lineageSection = (snapshot: Snapshot): Html =>
  html`<section class="part" id="lineage" aria-labelledby="lineage-h">
<h2 id="lineage-h">Lineage</h2>
${
    snapshot.lineage.length === 0
      ? html`<p class="card muted">No lineage recorded.</p>`
      : html`<p class="lead">${
        plural(snapshot.lineage.length, "edge")
      }: where data flows from one dataset to another.</p>
<div class="table-wrap"><table class="tbl compact lineage-table"><thead><tr><th scope="col">From</th><th scope="col">To</th><th scope="col">Origin</th><th scope="col">Note</th></tr></thead>
<tbody>${
        snapshot.lineage.map((e) =>
          html`<tr><td><code>${e.from}</code></td><td><code>${e.to}</code></td><td>${
            originLabel[e.origin]
          }</td><td class="small">${e.resolvable ? "" : "an endpoint is known only from a manifest (never scanned)"}${
            e.by !== undefined ? html`by ${e.by}` : ""
          }</td></tr>`
        )
      }</tbody></table></div>`
  }
</section>`

const glossarySection = (snapshot: Snapshot): Html =>
  snapshot.glossary.terms.length === 0 ? html`` : html`<section class="part" id="glossary" aria-labelledby="glossary-h">
<h2 id="glossary-h">Glossary</h2>
<dl class="card glossary">${
    snapshot.glossary.terms.map((t) =>
      html`<dt>${t.term}</dt><dd>${t.definition}${
        t.datasets.length > 0 ? html`<div class="small muted">Datasets: ${t.datasets.join(", ")}</div>` : ""
      }</dd>`
    )
  }</dl>
</section>`

const sourceRow = (s: SourceState): Html =>
  html`<tr><th scope="row"><code>${s.id}</code>${
    s.label !== null ? html`<div class="small muted">${s.label}</div>` : ""
  }</th><td>${s.kind} <span class="muted small">(${s.driver})</span></td><td>${s.region ?? muted("—")}</td><td>${
    s.status === "ok"
      ? html`<span class="badge ok">reached</span>`
      : html`<span class="badge bad">${s.status}</span>${
        s.error !== null ? html`<div class="small">${s.error.code}: ${s.error.message}</div>` : ""
      }`
  }</td><td>${
    when(s.lastScannedAt)
  }</td><td><span class="badge stale-${s.staleness}">${s.staleness}</span></td><td class="num">${
    num(s.datasets)
  }</td></tr>`

const provenanceSection = (snapshot: Snapshot): Html => {
  const p = snapshot.provenance
  const methods = Object.entries(p.classifierMethods)
  return html`<section class="part" id="provenance" aria-labelledby="provenance-h">
<h2 id="provenance-h">Coverage and provenance</h2>
<div class="card">${
    facts([
      [
        "Coverage",
        html`${
          p.coverage.complete
            ? html`<span class="badge ok">complete</span>`
            : html`<span class="badge bad">incomplete</span>`
        } ${p.coverage.line}`
      ],
      ["Last scan", when(p.lastScanAt)],
      ["Generated", when(p.generatedAt)],
      [
        "Change log",
        p.changeLogHead === null
          ? muted("empty")
          : html`entry #${num(p.changeLogHead.seq)}, ${when(p.changeLogHead.at)}`
      ],
      [
        "Classifier methods",
        methods.length === 0
          ? muted("none")
          : methods.map(([m, n], i) => html`${i > 0 ? ", " : ""}<code>${m}</code> ${num(n)}`)
      ],
      ["Seal", html`<span class="badge ${p.seal === "sealed" ? "ok" : "bad"}">${p.seal}</span> ${p.stamp}`]
    ])
  }</div>
<div class="table-wrap"><table class="tbl compact sources-table"><caption>Sources</caption>
<thead><tr><th scope="col">Source</th><th scope="col">Kind</th><th scope="col">Region</th><th scope="col">Status</th><th scope="col">Last scanned</th><th scope="col">Staleness</th><th scope="col" class="num">Datasets</th></tr></thead>
<tbody>${p.sources.map(sourceRow)}</tbody></table></div>
</section>`
}

/** The claim page: the whole draft, as one HTML document (UTF-8). */
export const renderClaimPage = (snapshot: Snapshot, ctx: ClaimPageContext): string => {
  const inScope = snapshot.dora.inScope
  const toc: ReadonlyArray<readonly [string, string]> = [
    ["controller", "Controller"],
    ...(ctx.seal !== undefined && ctx.seal !== null ? [["seal", "Seal the record"] as const] : []),
    ...(ctx.connect !== undefined && ctx.connect !== null ? [["connect", "Connect a machine"] as const] : []),
    ["ropa", "Activities (RoPA)"],
    ...(inScope ? [["dora", "DORA register"] as const] : []),
    ["data-map", "Data map"],
    ["lineage", "Lineage"],
    ...(snapshot.glossary.terms.length > 0 ? [["glossary", "Glossary"] as const] : []),
    ["provenance", "Coverage and provenance"]
  ]
  const official = ctx.official
  const body = html`<div class="print-only print-watermark" aria-hidden="true">${
    official !== undefined ? "OFFICIAL" : "DRAFT"
  }</div>
<main id="main">
${ctx.notice !== null ? html`<div class="banner notice" role="status" id="notice">${ctx.notice}</div>` : ""}
${official !== undefined ? "" : modeBanner(snapshot, ctx)}
${
    official !== undefined
      ? officialStamp(official)
      : html`<div class="stamp" role="note" id="draft-stamp"><strong>${stamp}</strong><span>Drafted by a tool from metadata only. Legal calls marked “Suggested” are machine suggestions until a named human confirms them.</span></div>`
  }
<div class="page-head"><h1>${
    official !== undefined ? "Record of processing — official" : "Record of processing — draft"
  }</h1>
<p class="lead">Drafted ${when(snapshot.createdAt)} with ${snapshot.tool.name} ${snapshot.tool.version}${
    ctx.mode === "local" ? " on this machine" : ""
  }.</p></div>
${overview(snapshot, ctx)}
<nav class="toc card" aria-label="Contents"><ol>${
    toc.map(([id, label]) => html`<li><a href="#${id}">${label}</a></li>`)
  }</ol></nav>
${controllerSection(snapshot, ctx)}
${licenceSection(ctx)}
${sealSection(ctx)}
${ctx.connect !== undefined && ctx.connect !== null ? connectSection(ctx.connect) : ""}
${ropaSection(snapshot)}
${inScope ? doraSection(snapshot) : ""}
${inScope ? doraFillSection(snapshot, ctx) : ""}
${dataMapSection(snapshot)}
${lineageSection(snapshot)}
${glossarySection(snapshot)}
${provenanceSection(snapshot)}
</main>
<footer class="foot"><p>${
    official !== undefined ? officialStampText(official) : stamp
  }. Snapshot format ${snapshot.format} v${snapshot.version}, drafted ${when(snapshot.createdAt)}.</p></footer>`
  if (official !== undefined) return document("Record of processing — official", "Official record", body, officialStyle)
  return document(
    "Claim page — draft record",
    ctx.mode === "local" ? "Local preview · read-only" : "Draft",
    body
  )
}

// ── notice and gate pages ─────────────────────────────────────────────────────────────────────────────

export interface NoticePage {
  readonly title: string
  readonly message: string
  /** A registry code (e.g. CLAIM_NOT_FOUND), shown so a user can quote it. */
  readonly code: string | null
  readonly fix: string | null
  /** The HTTP status the server answers with (shown beside the code). */
  readonly status?: number
}

/** A page that says one thing: an unknown, superseded or removed claim, or an error. */
export const renderNoticePage = (notice: NoticePage): string =>
  document(
    notice.title,
    "Draft record",
    html`<main id="main"><section class="card notice-page" role="${
      notice.code !== null ? "alert" : "status"
    }"><h1>${notice.title}</h1>
<p class="lead">${notice.message}</p>
${notice.fix !== null ? html`<p><strong>What to do:</strong> ${notice.fix}</p>` : ""}
${
      notice.code !== null
        ? html`<p class="small muted">Error <code>${notice.code}</code>${
          notice.status !== undefined ? html` (HTTP ${notice.status})` : ""
        }</p>`
        : ""
    }
</section></main>`
  )

export interface GateField {
  readonly name: string
  readonly label: string
  readonly type: "text" | "email" | "hidden"
  readonly value?: string
  readonly autocomplete?: string
  readonly inputmode?: string
}

export interface GatePage {
  readonly title: string
  readonly message: string
  readonly form: { readonly action: string; readonly fields: ReadonlyArray<GateField>; readonly submit: string } | null
  /** A one-line message above the form (e.g. "That code is wrong or expired."). */
  readonly notice?: string | null
}

const gateField = (f: GateField): Html => {
  const attrs = html`${f.value !== undefined ? html` value="${f.value}"` : ""}${
    f.autocomplete !== undefined ? html` autocomplete="${f.autocomplete}"` : ""
  }${f.inputmode !== undefined ? html` inputmode="${f.inputmode}"` : ""}`
  return f.type === "hidden"
    ? html`<input type="hidden" name="${f.name}"${attrs}>`
    : html`<label>${f.label}<input type="${f.type}" name="${f.name}"${attrs} required maxlength="320"></label>`
}

/** A step before the claim page: prove you are the recipient (ask for a code, enter it) or open as the admin. */
export const renderGatePage = (gate: GatePage): string =>
  document(
    gate.title,
    "Draft record",
    html`<main id="main"><section class="card gate-page"><h1>${gate.title}</h1>
<p class="lead">${gate.message}</p>
${
      gate.notice !== undefined && gate.notice !== null
        ? html`<div class="banner warn" role="alert" id="notice">${gate.notice}</div>`
        : ""
    }
${
      gate.form === null ? "" : html`<form class="fields" method="post" action="${gate.form.action}">
${gate.form.fields.map(gateField)}
<button type="submit">${gate.form.submit}</button>
</form>`
    }
</section></main>`
  )
