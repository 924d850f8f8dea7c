/**
 * The claim page renderers (programs/portal/ClaimPage.ts): every part of the draft is on the page, every
 * value from the snapshot or the request is escaped (planted markup never comes out raw), the DORA part
 * only when in scope, the controller form only when asked for, and the notice and gate pages. The
 * stylesheet hash in the CSP is checked against the <style> element actually written.
 */
import { Schema } from "effect"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Snapshot } from "../../../src/domain/Snapshot.js"
import {
  type ClaimPageContext,
  claimPageCsp,
  claimPageStyleHash,
  escapeHtml,
  renderClaimPage,
  renderGatePage,
  renderNoticePage
} from "../../../src/programs/portal/ClaimPage.js"
import { sampleDataset, sampleSnapshot } from "../../utils/snapshots.js"

const local: ClaimPageContext = { mode: "local", claim: null, controller: null, controllerForm: null, notice: null }
const portal = (over: Partial<ClaimPageContext> = {}): ClaimPageContext => ({
  mode: "portal",
  claim: {
    id: "cl_0123456789",
    state: "live",
    recipient: "dpo@acme.example",
    unbound: false,
    createdAt: "2026-11-24T17:00:00.000Z",
    lastUploadAt: "2026-11-24T17:00:00.000Z",
    role: "recipient"
  },
  controller: null,
  controllerForm: null,
  notice: null,
  ...over
})

const evil = `<script>alert("x")</script>`
const evilAttr = `" onmouseover="alert(1)`
const evilAmp = `R&D <b>bold</b> 'quoted'`

/** The text of a section by id, tags stripped (for "is this value shown in that part"). */
const sectionText = (page: string, id: string): string => {
  const start = page.indexOf(`id="${id}"`)
  expect(start, `section ${id}`).toBeGreaterThan(-1)
  const end = page.indexOf("</section>", start)
  return page.slice(start, end).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ")
}

/** A snapshot with markup planted in every kind of value the page shows. */
const planted = () => {
  const base = sampleSnapshot({ doraInScope: true })
  const dataset = sampleDataset("shop", evilAmp, evil, [
    { name: "id", type: "integer", primaryKey: true },
    { name: evil, type: evilAttr, cls: "personal", category: evilAmp },
    { name: "ok", type: "text", cls: "special", rule: evil, category: "health" }
  ])
  const [first, second] = base.ropa.activities
  const activity = {
    ...first!,
    key: evilAttr,
    name: evil,
    description: evilAmp,
    systems: [evil],
    dataSubjects: [evilAmp],
    recipients: [evil],
    dataCategories: [{ category: evil, class: "personal" as const, columns: 1 }],
    legal: {
      ...first!.legal,
      purpose: { ...first!.legal.purpose, value: evil, suggestion: evilAmp },
      lawfulBasis: { ...first!.legal.lawfulBasis, confirmedBy: evil }
    }
  }
  const register = base.dora.register!
  return sampleSnapshot({
    doraInScope: true,
    controller: { name: evil, contact: evilAttr },
    datasets: [...base.datasets, dataset],
    lineage: [...base.lineage, { ...base.lineage[0]!, from: evil, to: evilAmp, by: evil }],
    glossary: {
      ...base.glossary,
      terms: [{ term: evil, definition: evilAmp, datasets: [evil], updatedAt: "2026-11-01T00:00:00.000Z" }]
    },
    ropa: { ...base.ropa, activities: [activity, second!] },
    dora: {
      inScope: true,
      register: {
        ...register,
        entity: { ...register.entity, name: evil },
        tables: [{
          code: evil,
          name: evilAmp,
          rows: [{ key: evilAttr, cells: { [evil]: evil }, prefilled: [evil] }]
        }],
        validation: { valid: false, violations: [{ table: evil, rowKey: evil, column: evil, reason: evilAmp }] }
      }
    },
    provenance: {
      ...base.provenance,
      coverage: { ...base.provenance.coverage, line: evil },
      classifierMethods: { [evil]: 3 },
      sources: [{ ...base.provenance.sources[0]!, id: evil, label: evilAmp, region: evilAttr }]
    },
    tool: { name: evil, version: evilAttr },
    createdAt: evil
  })
}

describe("escapeHtml", () => {
  it("escapes the five characters that matter in text and quoted attributes", () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;"
    )
    expect(escapeHtml("plain text, é ✓")).toBe("plain text, é ✓")
  })
})

describe("the sample snapshot", () => {
  it("decodes with the Snapshot Schema (in and out of DORA scope)", () => {
    const decode = Schema.decodeUnknownSync(Snapshot)
    expect(() => decode(JSON.parse(JSON.stringify(sampleSnapshot())))).not.toThrow()
    expect(() => decode(JSON.parse(JSON.stringify(sampleSnapshot({ doraInScope: true }))))).not.toThrow()
    expect(() => decode(JSON.parse(JSON.stringify(planted())))).not.toThrow()
  })
})

describe("renderClaimPage", () => {
  it("is a complete UTF-8 document with every part of the draft", () => {
    const s = sampleSnapshot({ doraInScope: true })
    const page = renderClaimPage(s, local)
    expect(page.startsWith("<!doctype html>\n<html lang=\"en\">")).toBe(true)
    expect(page).toContain("<meta charset=\"utf-8\">")
    expect(page.trimEnd().endsWith("</html>")).toBe(true)
    expect(page).toContain("DRAFT — not an official record; nothing here is signed")
    for (
      const id of [
        "mode-banner",
        "draft-stamp",
        "overview",
        "controller",
        "ropa",
        "dora",
        "data-map",
        "lineage",
        "glossary",
        "provenance"
      ]
    ) {
      expect(page, id).toContain(`id="${id}"`)
    }
    // who drafted it and when, with which tool
    expect(page).toContain("24 Nov 2026, 16:42 UTC")
    expect(page).toContain("local-data-catalog 0.9.0")
    expect(page).toContain("dpo@acme.example")
    // the controller from the snapshot
    expect(sectionText(page, "controller")).toContain("Acme Bank AG")
    expect(sectionText(page, "controller")).toContain("privacy@acme.example")
    // activities, categories, flags and the four legal fields with their status
    const ropa = sectionText(page, "ropa")
    for (const a of s.ropa.activities) {
      expect(ropa).toContain(a.name)
      for (const c of a.dataCategories) expect(ropa).toContain(c.category)
    }
    for (const label of ["Purpose", "Lawful basis", "Retention", "Transfers"]) expect(ropa).toContain(label)
    expect(ropa).toContain("Special-category data (Art. 9) yes")
    expect(ropa).toContain("Criminal-offence data (Art. 10) yes")
    expect(ropa).toContain("Fulfilling customer orders and running customer accounts")
    expect(ropa).toContain(`${s.ropa.openLegalCalls} open legal calls`)
    expect(page.match(/<tr class="legal confirmed"/g)).toHaveLength(3)
    expect(page.match(/<tr class="legal suggested"/g)).toHaveLength(5)
    expect(ropa).toContain("by dpo@acme.example")
    expect(ropa).toContain("21 Nov 2026, 10:30 UTC")
    expect(ropa).toContain("The data under it changed since it was confirmed")
    expect(ropa).toContain("not filled")
    // DORA: entity, tables with rows, the problems
    const dora = sectionText(page, "dora")
    expect(dora).toContain("529900T8BM49AURSDO55")
    expect(dora).toContain("B_05.01 — ICT third-party service providers")
    expect(dora).toContain("Example Cloud GmbH")
    expect(dora).toContain("required value missing (country)")
    expect(dora).toContain("2 problems")
    // the data map: every dataset with counts, personal columns with class, rule and confidence
    const map = sectionText(page, "data-map")
    for (const d of s.datasets) expect(map).toContain(d.id)
    expect(map).toContain("~310,455")
    expect(map).toContain("name:email")
    expect(map).toContain("97%")
    expect(map).toContain("Special category")
    expect(map).toContain("Criminal offence")
    expect(map).toContain("set by dpo@acme.example")
    expect(map).not.toContain("loyalty_tier") // non-personal columns are counted, not listed
    expect(map).toContain("3 other columns not flagged")
    // lineage and provenance
    const lineage = sectionText(page, "lineage")
    expect(lineage).toContain("analytics.vip_summary")
    expect(lineage).toContain("dbt manifest")
    const prov = sectionText(page, "provenance")
    expect(prov).toContain("All 2 sources reached.")
    expect(prov).toContain("stale-warn")
    expect(prov).toContain("entry #42")
  })

  it("marks a local preview as local, and a portal claim with its state and viewer", () => {
    const s = sampleSnapshot()
    const localPage = renderClaimPage(s, local)
    expect(localPage).toContain("Local preview — served from this machine's snapshot; nothing has been sent")
    expect(localPage).toContain("href=\"/snapshot.json\">/snapshot.json</a>")
    const portalPage = renderClaimPage(s, portal())
    expect(portalPage).not.toContain("Local preview")
    expect(portalPage).toContain("Live claim")
    expect(portalPage).toContain("cl_0123456789")
    expect(portalPage).toContain("You proved you are the recipient (dpo@acme.example).")
    const superseded = renderClaimPage(s, portal({ claim: { ...portal().claim!, state: "superseded", role: "admin" } }))
    expect(superseded).toContain("Superseded: a newer draft replaced this one")
    expect(superseded).toContain("viewing as this record&#39;s admin")
    const unbound = renderClaimPage(
      sampleSnapshot({ recipient: null, unbound: true }),
      portal({ claim: { ...portal().claim!, recipient: null, unbound: true, role: "admin" } })
    )
    expect(unbound).toContain("whoever opens it first becomes the record's admin")
    expect(unbound).toContain("You opened this unbound link first")
  })

  it("shows the DORA part only when the snapshot is in scope", () => {
    const out = renderClaimPage(sampleSnapshot(), local)
    expect(out).not.toContain("id=\"dora\"")
    expect(out).not.toContain("href=\"#dora\"")
    expect(sectionText(out, "overview")).toContain("DORA not in scope")
    const inScope = renderClaimPage(sampleSnapshot({ doraInScope: true }), local)
    expect(inScope).toContain("id=\"dora\"")
    const undrafted = renderClaimPage(sampleSnapshot({ dora: { inScope: true, register: null } }), local)
    expect(sectionText(undrafted, "dora")).toContain("no register was drafted")
  })

  it("shows the controller form only when asked, with the portal's fill over the snapshot's", () => {
    const s = sampleSnapshot({ controller: null, ropa: { ...sampleSnapshot().ropa, controller: null } })
    const without = renderClaimPage(s, portal())
    expect(without).not.toContain("<form")
    expect(sectionText(without, "controller")).toContain("not set — complete it")
    const withForm = renderClaimPage(
      s,
      portal({ controllerForm: { action: "/claim/clm_x/controller", csrf: "c-token" }, notice: "Controller saved." })
    )
    expect(withForm).toContain("<form class=\"fields\" method=\"post\" action=\"/claim/clm_x/controller\">")
    expect(withForm).toContain("<input type=\"hidden\" name=\"csrf\" value=\"c-token\">")
    expect(withForm).toContain("name=\"name\" value=\"\"")
    expect(withForm).toContain("name=\"contact\" value=\"\"")
    expect(withForm).toContain("Controller saved.")
    const noCsrf = renderClaimPage(s, portal({ controllerForm: { action: "/c", csrf: null } }))
    expect(noCsrf).toContain("<form")
    expect(noCsrf).not.toContain("name=\"csrf\"")
    const filled = renderClaimPage(
      sampleSnapshot(),
      portal({
        controller: { name: "Acme Holding SE", contact: null, updatedAt: "2026-11-25T08:00:00.000Z" },
        controllerForm: { action: "/c", csrf: null }
      })
    )
    const ctrl = sectionText(filled, "controller")
    expect(ctrl).toContain("Acme Holding SE")
    expect(ctrl).not.toContain("Acme Bank AG")
    expect(ctrl).toContain("privacy@acme.example") // the snapshot's contact where the fill has none
    expect(ctrl).toContain("Completed on the portal, 25 Nov 2026, 08:00 UTC")
    expect(filled).toContain("name=\"name\" value=\"Acme Holding SE\"")
  })

  it("escapes every planted value: no raw markup, no broken attribute, & as &amp;", () => {
    const s = planted()
    const pages = [
      renderClaimPage(s, local),
      renderClaimPage(
        s,
        portal({
          controller: { name: evil, contact: evilAttr, updatedAt: evil },
          controllerForm: { action: evilAttr, csrf: evil },
          notice: evil,
          claim: { ...portal().claim!, id: evil, recipient: evil }
        })
      )
    ]
    for (const page of pages) {
      expect(page).not.toContain("<script")
      expect(page).not.toContain("<b>")
      expect(page).not.toMatch(/\sonmouseover="/)
      expect(page).not.toMatch(/\son[a-z]+\s*=\s*["'a-z]/i)
      expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
      expect(page).toContain("R&amp;D &lt;b&gt;bold&lt;/b&gt; &#39;quoted&#39;")
      expect(page).toContain("&quot; onmouseover=&quot;alert(1)")
      // no "&" that does not start an entity
      expect(page.replace(/<style>[\s\S]*<\/style>/, "")).not.toMatch(/&(?![a-z]+;|#\d+;)/)
    }
    // the planted values really are on the page (escaped), in the parts that show them
    expect(sectionText(pages[0]!, "ropa")).toContain("&lt;script&gt;")
    expect(sectionText(pages[0]!, "data-map")).toContain("R&amp;D")
    expect(sectionText(pages[0]!, "dora")).toContain("&lt;script&gt;")
    expect(sectionText(pages[1]!, "controller")).toContain("&lt;script&gt;")
  })

  it("allows exactly its own stylesheet in the CSP, and needs nothing else", () => {
    const page = renderClaimPage(sampleSnapshot({ doraInScope: true }), local)
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)]
    expect(styles).toHaveLength(1)
    const hash = `'sha256-${createHash("sha256").update(styles[0]![1]!, "utf8").digest("base64")}'`
    expect(hash).toBe(claimPageStyleHash)
    expect(claimPageCsp).toBe(
      `default-src 'none'; style-src ${hash}; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`
    )
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\sstyle="/)
    // print: no chrome, a break before each part, the stamp on every page, links as text
    expect(page).toContain("@media print")
    expect(page).toMatch(/\.part \{[^}]*break-before: page/)
    expect(page).toMatch(/@top-center \{ content: "DRAFT — not an official record; nothing here is signed"/)
    expect(page).toContain("a[href]:not([href^=\"#\"]):not(.bare)::after { content: \" <\" attr(href) \">\"")
  })

  it("keeps a catalog of thousands of columns to compact rows", () => {
    const wide = sampleDataset(
      "dwh",
      "public",
      "events",
      Array.from({ length: 5000 }, (_, i) => ({
        name: `attr_${i}`,
        type: "text",
        ...(i % 10 === 0 ? { cls: "personal" as const, category: "contact" } : {})
      }))
    )
    const page = renderClaimPage(sampleSnapshot({ datasets: [wide] }), local)
    expect(page).toContain("4,500 other columns not flagged")
    expect(page.match(/<tr><th scope="row"><code>attr_/g)).toHaveLength(500)
    expect(page.length).toBeLessThan(400_000)
  })
})

describe("renderNoticePage", () => {
  it("says what happened, the code and the fix, escaped", () => {
    const page = renderNoticePage({
      title: "This claim was replaced",
      message: `A newer draft replaced this one ${evil}.`,
      code: "CLAIM_NOT_FOUND",
      fix: "Open the newest link you were sent.",
      status: 404
    })
    expect(page.startsWith("<!doctype html>")).toBe(true)
    expect(page).toContain("<h1>This claim was replaced</h1>")
    expect(page).toContain("CLAIM_NOT_FOUND")
    expect(page).toContain("(HTTP 404)")
    expect(page).toContain("What to do:</strong> Open the newest link you were sent.")
    expect(page).not.toContain("<script")
    expect(page).toContain("role=\"alert\"")
    const plain = renderNoticePage({ title: "Removed", message: "The operator removed it.", code: null, fix: null })
    expect(plain).not.toContain("What to do")
    expect(plain).not.toContain("Error <code>")
    expect(plain).toContain("role=\"status\"")
  })
})

describe("renderGatePage", () => {
  it("renders the form with labelled fields and hidden ones, escaped", () => {
    const page = renderGatePage({
      title: "Prove you are the recipient",
      message: `We mailed a code to ${evil}.`,
      form: {
        action: "/claim/clm_abc/verify",
        fields: [
          {
            name: "code",
            label: "The code from the mail",
            type: "text",
            inputmode: "numeric",
            autocomplete: "one-time-code"
          },
          { name: "csrf", label: "", type: "hidden", value: evilAttr }
        ],
        submit: "Open the draft"
      },
      notice: "That code is wrong or expired."
    })
    expect(page).toContain("<form class=\"fields\" method=\"post\" action=\"/claim/clm_abc/verify\">")
    expect(page).toContain(
      "<label>The code from the mail<input type=\"text\" name=\"code\" autocomplete=\"one-time-code\" inputmode=\"numeric\" required maxlength=\"320\"></label>"
    )
    expect(page).toContain("<input type=\"hidden\" name=\"csrf\" value=\"&quot; onmouseover=&quot;alert(1)\">")
    expect(page).toContain("<button type=\"submit\">Open the draft</button>")
    expect(page).toContain("That code is wrong or expired.")
    expect(page).not.toContain("<script")
    const noForm = renderGatePage({ title: "Check your mail", message: "We sent a link.", form: null })
    expect(noForm).not.toContain("<form")
    expect(noForm).not.toContain("id=\"notice\"")
  })
})
