/**
 * "Seal the record" in Debian's Chromium (JavaScript off), against the real portal (SQLite, with
 * CATALOG_TOS_VERSION set): the admin of an unbound claim opens it, sees the licence active, fills the form
 * (agreement, name, role), is refused OPEN_LEGAL_CALLS on the page (code, message, fix; nothing stored),
 * ticks the acknowledgment and seals — with the browser's own Origin and Sec-Fetch-Site headers, SameSite
 * cookies and the pages' content security policy. The claim page then says who sealed it, and the browser
 * downloads an artifact and its signature, which verify with node:crypto against the portal's public key.
 */
import { Effect } from "effect"
import { createPublicKey, verify } from "node:crypto"
import * as fs from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LicenceStore } from "../../../src/services/portal/LicenceStore.js"
import { SealStore } from "../../../src/services/portal/SealStore.js"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Portal, request, startTestPortal, upload, withPortalStores } from "./harness.js"

const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
const terms = "2026-11"

describe("seal the record in Chromium", () => {
  let portal: Portal
  let browser: Browser
  let claimUrl = ""
  let claimId = ""
  beforeAll(async () => {
    portal = await startTestPortal("sqlite", { CATALOG_TOS_VERSION: terms })
    const receipt = (await upload(portal, sampleSnapshot({ recipient: null, unbound: true }))).json as {
      claimUrl: string
      claimId: string
    }
    claimUrl = receipt.claimUrl
    claimId = receipt.claimId
    // The operator issued a licence after payment (`catalog admin licence issue`).
    await withPortalStores(
      portal,
      Effect.flatMap(LicenceStore, (l) =>
        l.issue({
          id: "li_chromium",
          claimId,
          issuedAt: "2026-01-01T00:00:00.000Z",
          expiresAt: "2099-01-01T00:00:00.000Z",
          issuedTo: null
        }))
    )
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await portal?.close()
  })

  it("refused over open calls, then sealed; an artifact and its signature downloaded and verified", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, acceptDownloads: true })
    const page = await context.newPage()
    await page.goto(claimUrl)
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])
    expect(await page.textContent("#seal-licence")).toContain("li_chromium")
    expect(await page.textContent("#seal-form")).toContain(`I accept the customer agreement (version ${terms})`)

    // Without the acknowledgment: OPEN_LEGAL_CALLS, shown on the page; what was typed is kept.
    await page.check("#seal-form input[name=acceptTerms]")
    await page.fill("#seal-form input[name=signerName]", "Ada Lovelace")
    await page.fill("#seal-form input[name=signerRole]", "DPO")
    const refused = await Promise.all([
      page.waitForNavigation(),
      page.click("#seal-form button[type=submit]")
    ])
    expect(refused[0]?.status()).toBe(409)
    const refusal = (await page.textContent("#seal-refusal"))!
    expect(refusal).toContain("OPEN_LEGAL_CALLS")
    expect(refusal).toContain("What to do:")
    expect(refusal).toContain("Nothing was stored.")
    expect(await page.inputValue("#seal-form input[name=signerName]")).toBe("Ada Lovelace")
    expect(await withPortalStores(portal, Effect.flatMap(SealStore, (s) => s.latest(claimId)))).toBeNull()

    // With it: sealed, 303 back to the claim.
    await page.check("#seal-form input[name=acceptTerms]")
    await page.check("#seal-form input[name=acknowledgeOpenCalls]")
    await Promise.all([page.waitForNavigation(), page.click("#seal-form button[type=submit]")])
    expect(page.url()).toContain("?saved=sealed")
    expect(await page.textContent("#sealed")).toMatch(/Sealed on .+ by Ada Lovelace, DPO/)

    // Download ropa.json and its signature through the page's links.
    const fetchDownload = async (selector: string) => {
      const [download] = await Promise.all([page.waitForEvent("download"), page.click(selector)])
      return { name: download.suggestedFilename(), bytes: fs.readFileSync((await download.path())!) }
    }
    const file = await fetchDownload("#sealed-artifacts a[href$='/sealed/ropa.json']")
    const sig = await fetchDownload("#sealed-artifacts a[href$='/sealed/ropa.json.sig']")
    expect(file.name).toBe("ropa.json")
    expect(sig.name).toBe("ropa.json.sig")
    const publicKey = createPublicKey((await request(portal.url, "/api/portal/v1/signing-key")).body)
    expect(verify(null, file.bytes, publicKey, sig.bytes)).toBe(true)
    expect((JSON.parse(file.bytes.toString("utf8")) as { seal: string }).seal).toBe("sealed")
    await context.close()
  })
})
