/**
 * The claim flow in Debian's Chromium, against the real portal (SQLite): the recipient follows the
 * link from another site (as from a webmail), sends a code, enters the code from the captured mail,
 * sees the draft and saves the controller — all with the browser's own Origin headers and SameSite
 * cookies, no JavaScript. Following the link again from the other site opens the draft directly
 * (the one reload makes the SameSite=Strict session count).
 */
import * as http from "node:http"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Portal, startTestPortal, upload } from "./harness.js"

const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

describe("the bound claim flow in Chromium", () => {
  let portal: Portal
  let browser: Browser
  let mailbox: http.Server
  let mailboxUrl = ""
  let claimUrl = ""
  beforeAll(async () => {
    portal = await startTestPortal("sqlite")
    claimUrl = (JSON.parse((await upload(portal, sampleSnapshot())).body) as { claimUrl: string }).claimUrl
    // A "webmail" on another site (localhost vs 127.0.0.1) holding the link.
    mailbox = http.createServer((_, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(`<!doctype html><a id="link" href="${claimUrl}">Open the draft</a>`)
    })
    await new Promise<void>((resolve) => mailbox.listen(0, "localhost", resolve))
    mailboxUrl = `http://localhost:${(mailbox.address() as { port: number }).port}/`
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs })
  })
  afterAll(async () => {
    await browser?.close()
    mailbox?.close()
    await portal?.close()
  })

  it("proves the address with a mailed code, opens the draft, saves the controller, and reopens from the mail", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(mailboxUrl)
    await Promise.all([page.waitForURL(/\/claim\/clm_/), page.click("#link")])
    await page.waitForLoadState()
    expect(await page.textContent("body")).toContain("d•••@acme.example")
    await Promise.all([page.waitForURL(/code=sent/), page.click("button[type=submit]")])
    const code = /\b(\d{8})\b/.exec(portal.mails.at(-1)!.text)![1]!
    await page.fill("input[name=code]", code)
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])
    expect(await page.textContent("body")).toContain("Acme Bank AG")
    expect(await page.textContent("body")).toContain("DRAFT")

    await page.fill("input[name=name]", "Acme Holding SE")
    await Promise.all([page.waitForNavigation(), page.click("form[action$='/controller'] button[type=submit]")])
    expect(await page.textContent("body")).toContain("Acme Holding SE")

    // Back to the mail and the link again: the draft opens without another code.
    await page.goto(mailboxUrl)
    await Promise.all([page.waitForURL(/via=link/), page.click("#link")])
    await page.waitForLoadState()
    expect(await page.textContent("body")).toContain("Acme Holding SE")
    expect(portal.mails.filter((m) => m.subject.includes("one-time code")).length).toBe(1)
    await context.close()
  })
})
