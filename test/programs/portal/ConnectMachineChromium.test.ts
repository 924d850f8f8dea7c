/**
 * 'Connect a machine' in Debian's Chromium (JavaScript off), against the real portal (SQLite): the admin of
 * an unbound claim opens it, creates a sync token (shown once, with the two lines to set), goes back to
 * the draft, sees the token listed without its secret, and revokes it — all with the browser's own Origin
 * and Sec-Fetch-Site headers, SameSite cookies and the pages' content security policy. The token then
 * answers SYNC_UNAUTHORIZED.
 */
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Portal, request, startTestPortal, upload } from "./harness.js"

const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

describe("connect a machine in Chromium", () => {
  let portal: Portal
  let browser: Browser
  let claimUrl = ""
  beforeAll(async () => {
    portal = await startTestPortal("sqlite")
    claimUrl = (await upload(portal, sampleSnapshot({ recipient: null, unbound: true })).then((r) =>
      r.json as { claimUrl: string }
    )).claimUrl
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs })
  })
  afterAll(async () => {
    await browser?.close()
    await portal?.close()
  })

  it("creates a token shown once, lists it, and revokes it", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(claimUrl)
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])
    expect(await page.textContent("#connect")).toContain("No machine is paired yet.")

    await page.fill("#connect input[name=label]", "ci runner")
    await Promise.all([page.waitForNavigation(), page.click("#connect button[type=submit]")])
    const shown = (await page.textContent("#sync-env"))!
    const token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]{43})/.exec(shown)![1]!
    expect(shown).toContain(`CATALOG_PORTAL_URL=${portal.publicUrl}`)
    const synced = await request(portal.url, "/api/portal/v1/sync", { headers: { "x-catalog-sync-token": token } })
    expect(synced.status).toBe(200)

    await Promise.all([page.waitForNavigation(), page.click("text=Back to the draft")])
    const listed = (await page.textContent("#sync-tokens"))!
    expect(listed).toContain("ci runner")
    expect(listed).toContain("active")
    expect(await page.content()).not.toContain(token)

    await Promise.all([page.waitForNavigation(), page.click("#sync-tokens button[type=submit]")])
    expect(await page.textContent("#notice")).toContain("Sync token revoked.")
    expect(await page.textContent("#sync-tokens")).toContain("revoked")
    const refused = await request(portal.url, "/api/portal/v1/sync", { headers: { "x-catalog-sync-token": token } })
    expect(refused.status).toBe(401)
    expect((refused.json as { error: { code: string } }).error.code).toBe("SYNC_UNAUTHORIZED")
    await context.close()
  })
})
