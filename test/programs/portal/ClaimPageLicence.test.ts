/** The claim page's licence section: none, active until, expired, revoked; only on the portal; values escaped. */
import { describe, expect, it } from "vitest"
import type { LicenceInfo } from "../../../src/domain/Sync.js"
import { type ClaimPageContext, renderClaimPage } from "../../../src/programs/portal/ClaimPage.js"
import { sampleSnapshot } from "../../utils/snapshots.js"

const ctx = (licence: LicenceInfo | null | undefined, mode: "local" | "portal" = "portal"): ClaimPageContext => ({
  mode,
  claim: mode === "local" ? null : {
    id: "cl_a",
    state: "live",
    recipient: "dpo@acme.example",
    unbound: false,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastUploadAt: null,
    role: "recipient"
  },
  controller: null,
  controllerForm: null,
  notice: null,
  ...(licence === undefined ? {} : { licence })
})
const info = (state: LicenceInfo["state"], id = "li_abc"): LicenceInfo => ({
  id,
  claimId: "cl_a",
  issuedAt: "2026-01-01T00:00:00.000Z",
  expiresAt: "2027-01-01T00:00:00.000Z",
  state
})
const section = (page: string) => /<section class="card" id="licence"[\s\S]*?<\/section>/.exec(page)?.[0] ?? null

describe("the claim page's licence section", () => {
  const s = sampleSnapshot()
  it("says none, active until, expired, revoked", () => {
    expect(section(renderClaimPage(s, ctx(null)))).toContain("data-state=\"none\"")
    expect(section(renderClaimPage(s, ctx(null)))).toContain("No licence")
    const active = section(renderClaimPage(s, ctx(info("active"))))!
    expect(active).toContain("data-state=\"active\"")
    expect(active).toContain("Active")
    expect(active).toContain("li_abc")
    expect(active).toContain("2027")
    expect(section(renderClaimPage(s, ctx(info("expired"))))).toContain("Expired")
    expect(section(renderClaimPage(s, ctx(info("revoked"))))).toContain("Revoked")
  })
  it("is absent locally and when the caller gives no licence state", () => {
    expect(section(renderClaimPage(s, ctx(undefined)))).toBeNull()
    expect(section(renderClaimPage(s, ctx(info("active"), "local")))).toBeNull()
  })
  it("escapes the licence id", () => {
    const page = section(renderClaimPage(s, ctx(info("active", "li_<b>x</b>"))))!
    expect(page).not.toContain("<b>x</b>")
    expect(page).toContain("li_&lt;b&gt;x&lt;/b&gt;")
  })
})
