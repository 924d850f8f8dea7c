/**
 * Sharing the draft, end to end, with real processes only: the built CLI (dist/bin.js) scans a real
 * PostgreSQL source and invites to a portal started as `catalog admin serve --port 0 --json` in its own
 * process, on SQLite and on PostgreSQL (the same scenario for both); the recipient is Debian's Chromium
 * (JavaScript off); mail goes to the fake Postmark (test/utils/fakePostmark.ts) or to the sendmail
 * capture script (test/utils/sendmail-capture.mjs).
 *
 * The scenario (issue 11, "How it is checked"): the ingest token (INGEST_UNAUTHORIZED), an invite mailed
 * to the recipient, the claim gate proven with a mailed one-time code, the draft and its controller block,
 * a re-invite superseding the first claim, `admin tenants` and `admin remove` (ADMIN_NOT_CONFIRMED,
 * CLAIM_NOT_FOUND on the page and the API), an unbound claim's first opener becoming its admin, the
 * upload rate limit (INGEST_RATE_LIMITED), the sendmail transport, MAIL_NOT_CONFIGURED reported without
 * losing the upload — and, after all of it, the planted password and row values absent from every
 * snapshot, stored body, mail, log and output, and no claim token or code in the portals' logs.
 */
import { Effect, Exit, Scope } from "effect"
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { type Browser, type BrowserContext, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, repoRoot, tempProject, writeFile } from "../utils/cli.js"
import { makePgDatabase, pgServer, psql } from "../utils/databases.js"
import { type FakePostmark, startFakePostmark } from "../utils/fakePostmark.js"
import { type PortalProcess, runCliAsync, startPortalProcess } from "../utils/portalProcess.js"

const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
const captureScript = path.join(repoRoot, "test", "utils", "sendmail-capture.mjs")

// ── planted values: none may ever leave the machine or reach a log ───────────────────────────────────
const password = "Pl4nted-Share-Pw-7731q"
const rowValues = [
  "quillon.rowvalue@planted.example",
  "Ysolde Plantedname",
  "PLANTED-IBAN-FR7630x",
  "5105-PLANT-9911",
  "Planted ticket body zephyr-4417"
]
const sourceSql = `
CREATE TABLE member_accounts (id serial PRIMARY KEY, email text, full_name text, iban text, card_number text, date_of_birth date);
INSERT INTO member_accounts (email, full_name, iban, card_number, date_of_birth) VALUES
  ('${rowValues[0]}', '${rowValues[1]}', '${rowValues[2]}', '${rowValues[3]}', '1971-03-04');
CREATE TABLE support_tickets (id serial PRIMARY KEY, member_id int REFERENCES member_accounts(id), body text, opened_at timestamptz);
INSERT INTO support_tickets (member_id, body, opened_at) VALUES (1, '${rowValues[4]}', now());`

const ingestToken = "ingest-share-e2e-token-5521"
const recipient = "dpo@acme.example"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

interface InviteJson {
  readonly claimUrl: string
  readonly claimId: string
  readonly bytes: number
  readonly sha256: string
  readonly recipient: string | null
  readonly unbound: boolean
  readonly mailed: boolean
  readonly mail: {
    readonly status: string
    readonly error: { readonly code: string; readonly message: string; readonly fix?: string } | null
  }
  readonly supersedes: string | null
  readonly snapshot: string
}

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex")

/** Quoted-printable soft breaks and escapes undone (the .eml's text and HTML parts). */
const decodeQuotedPrintable = (s: string): string =>
  s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))

/** Base64 MIME parts decoded (in case the composer chose base64 for a part). */
const decodeBase64Parts = (eml: string): string =>
  eml.split(/\r?\n\r?\n/).map((block) =>
    /^[A-Za-z0-9+/=\r\n]+$/.test(block.trim()) && block.trim().length > 40
      ? Buffer.from(block.replace(/\s+/g, ""), "base64").toString("utf8")
      : ""
  ).join("\n")

const tokenOf = (claimUrl: string) => new URL(claimUrl).pathname.split("/").at(-1)!

const waitFor = async (check: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

let browser: Browser
let postmark: FakePostmark
/** A "webmail" on another site (localhost, the portal is 127.0.0.1): `/mail/<n>` shows message n's HTML. */
let webmail: http.Server
let webmailUrl = ""
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs })
  postmark = await startFakePostmark()
  webmail = http.createServer((req, res) => {
    const n = Number(/^\/mail\/(\d+)$/.exec(req.url ?? "")?.[1] ?? "-1")
    const message = postmark.messages[n]
    res.writeHead(message === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" })
    res.end(message?.HtmlBody ?? "no such message")
  })
  await new Promise<void>((resolve) => webmail.listen(0, "localhost", resolve))
  webmailUrl = `http://localhost:${(webmail.address() as { port: number }).port}`
})
afterAll(async () => {
  await browser?.close()
  await postmark?.close()
  webmail?.close()
})

describe.each(["sqlite", "postgres"] as const)("sharing the draft end to end, portal on %s", (backend) => {
  const scope = Effect.runSync(Scope.make())
  // Created in beforeAll (a run filtered to the other back end creates nothing).
  let project: ReturnType<typeof tempProject> | null = null
  let dir = ""
  let workspace = ""
  let portalCwd = ""
  let captureDir = ""
  let snapshotFile = ""

  /** Everything to grep at the end. */
  const outputs: Array<{ readonly what: string; readonly text: string }> = []
  const snapshots: Array<string> = []
  const claimTokens: Array<string> = []
  const codes: Array<string> = []
  const portals: Array<{ readonly name: string; readonly p: PortalProcess }> = []
  let messagesBefore = 0

  let sourceUrl = ""
  let storeEnv: Record<string, string> = {}
  let rateStoreEnv: Record<string, string> = {}
  let portalDbName: string | null = null
  let rateDbName: string | null = null
  let publicKeyPem = ""
  let portalEnv: Record<string, string> = {}
  let main: PortalProcess

  /** Runs the CLI in the workspace; its output is kept for the leak check, the snapshot file too. */
  const cli = async (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd = workspace) => {
    const r = await runCliAsync(args, cwd, env)
    outputs.push({ what: `catalog ${args.join(" ")} stdout`, text: r.stdout })
    outputs.push({ what: `catalog ${args.join(" ")} stderr`, text: r.stderr })
    if (args[0] === "invite" && fs.existsSync(snapshotFile)) snapshots.push(fs.readFileSync(snapshotFile, "utf8"))
    const url = (r.json as { claimUrl?: unknown } | undefined)?.claimUrl
    if (typeof url === "string") claimTokens.push(tokenOf(url))
    const human = /Claim link: (\S+)/.exec(r.stdout)
    if (human !== null) claimTokens.push(tokenOf(human[1]!))
    return r
  }
  const admin = (args: ReadonlyArray<string>) => cli(["admin", ...args], storeEnv, portalCwd)
  const serve = async (name: string, env: Record<string, string>) => {
    const p = await startPortalProcess(portalCwd, env)
    portals.push({ name, p })
    return p
  }
  const invite = (args: ReadonlyArray<string>, portal: PortalProcess, env: Record<string, string> = {}) =>
    cli(["invite", ...args], { CATALOG_PORTAL_URL: portal.info.url, ...env })

  beforeAll(async () => {
    project = tempProject(`ldc-share-${backend}-`)
    dir = project.dir
    workspace = path.join(dir, "workspace")
    portalCwd = path.join(dir, "portal")
    captureDir = path.join(dir, "sendmail-capture")
    snapshotFile = path.join(workspace, ".catalog", "invite-snapshot.json")
    fs.mkdirSync(workspace)
    fs.mkdirSync(portalCwd)
    // 1. The source: a real PostgreSQL database with planted rows, reached with a planted password.
    const source = await Effect.runPromise(Scope.extend(makePgDatabase({ sql: sourceSql }), scope))
    sourceUrl = `postgres://${pgServer.user}:${password}@${pgServer.host}:${pgServer.port}/${source.name}`
    writeFile(workspace, ".env", `SOURCE_PG=${sourceUrl}\n`)
    writeFile(
      workspace,
      "catalog.yml",
      "sources:\n  - { id: members, kind: postgres, driver: pg, connectionRef: SOURCE_PG }\n"
    )
    // The portal's store, and a second one for the rate-limit portal.
    if (backend === "postgres") {
      const [a, b] = await Promise.all([
        Effect.runPromise(Scope.extend(makePgDatabase({ analyze: false }), scope)),
        Effect.runPromise(Scope.extend(makePgDatabase({ analyze: false }), scope))
      ])
      portalDbName = a.name
      rateDbName = b.name
      storeEnv = { CATALOG_PORTAL_DATABASE_URL: a.url }
      rateStoreEnv = { CATALOG_PORTAL_DATABASE_URL: b.url }
    } else {
      storeEnv = { CATALOG_PORTAL_HOME: path.join(dir, "portal-home") }
      rateStoreEnv = { CATALOG_PORTAL_HOME: path.join(dir, "rate-home") }
    }
    // 2. The operator's Ed25519 signing key, PEM, 0600.
    const { privateKey, publicKey } = generateKeyPairSync("ed25519")
    const keyFile = path.join(portalCwd, "portal-signing.pem")
    fs.writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
    publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString()
    portalEnv = {
      ...storeEnv,
      CATALOG_PORTAL_SIGNING_KEY: keyFile,
      CATALOG_INGEST_TOKEN: ingestToken
    }
    messagesBefore = postmark.messages.length
    main = await serve("main", {
      ...portalEnv,
      CATALOG_POSTMARK_TOKEN: postmark.token,
      CATALOG_POSTMARK_URL: postmark.url,
      CATALOG_MAIL_FROM: "Acme Privacy Portal <portal@acme.example>"
    })
  }, 120_000)

  afterAll(async () => {
    for (const { p } of portals) await p.stop()
    await Effect.runPromise(Scope.close(scope, Exit.void))
    project?.cleanup()
  })

  let first: InviteJson
  let second: InviteJson
  let firstBody = ""

  it("1. the workspace scans its PostgreSQL source (catalog start)", async () => {
    const r = await cli(["start", "--json"])
    expect(r.code, r.stderr).toBe(0)
  })

  it("2. the portal listens on its store and publishes the public half of its signing key", async () => {
    expect(main.info.storage).toBe(backend)
    expect(main.info.api).toBe(`${main.info.url.replace(/\/$/, "")}/api/portal/v1`)
    const res = await fetch(`${main.info.api}/signing-key`)
    expect(res.status).toBe(200)
    const pem = await res.text()
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----/)
    expect(pem).not.toMatch(/PRIVATE/)
    expect(createPublicKey(pem).export({ type: "spki", format: "pem" }).toString()).toBe(publicKeyPem)
    const health = (await (await fetch(`${main.info.api}/health`)).json()) as Record<string, unknown>
    expect(health).toMatchObject({ ok: true, storage: backend, ingestTokenRequired: true, uploadCapBytes: 5_000_000 })
  })

  it("3. invite: without the ingest token INGEST_UNAUTHORIZED (exit 1); with it the link, bytes and sha256 of the file, mailed", async () => {
    const refused = await invite(["--email", recipient, "--yes", "--json"], main)
    expect(refused.code).toBe(1)
    expect(errorOf(refused).code).toBe("INGEST_UNAUTHORIZED")
    expect(errorOf(refused).fix).toMatch(/CATALOG_INGEST_TOKEN/)
    expect(postmark.messages.length).toBe(messagesBefore)

    const r = await invite(["--email", recipient, "--yes", "--json"], main, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(r.code, r.stderr).toBe(0)
    first = r.json as InviteJson
    expect(first).toMatchObject({
      recipient,
      unbound: false,
      mailed: true,
      mail: { status: "sent", error: null },
      supersedes: null,
      snapshot: snapshotFile
    })
    expect(first.claimUrl).toMatch(new RegExp(`^${main.info.url.replace(/\/$/, "")}/claim/clm_[A-Za-z0-9_-]{43}$`))
    const file = fs.readFileSync(snapshotFile)
    expect(first.bytes).toBe(file.length)
    expect(first.sha256).toBe(sha256(file))
    firstBody = file.toString("utf8")
    // Metadata is really in it (the scan's tables and columns), so the leak checks below mean something.
    expect(firstBody).toContain("members/public/member_accounts")
    expect(firstBody).toContain("card_number")
    expect(r.stdout + r.stderr).not.toContain(ingestToken)

    await waitFor(() => postmark.messages.length === messagesBefore + 1, "the invitation mail")
    const mail = postmark.messages[messagesBefore]!
    expect(mail.To).toBe(recipient)
    expect(mail.From).toContain("portal@acme.example")
    expect(mail.TextBody).toContain(first.claimUrl)
    expect(mail.HtmlBody).toContain(first.claimUrl)
  })

  let recipientContext: BrowserContext

  it("4. Chromium (no JavaScript): the link from the mail opens the gate, not the draft; the mailed code opens it; the controller block is saved", async () => {
    recipientContext = await browser.newContext({ javaScriptEnabled: false })
    const page = await recipientContext.newPage()
    // The invitation as the recipient's webmail shows it (another site); the link in it is followed.
    await page.goto(`${webmailUrl}/mail/${messagesBefore}`)
    expect(await page.getAttribute("a[href*='/claim/']", "href")).toBe(first.claimUrl)
    await Promise.all([page.waitForURL(/via=link/), page.click("a[href*='/claim/']")])
    await page.waitForLoadState()
    const gateText = (await page.textContent("body"))!
    expect(gateText).toContain("Prove it is you")
    expect(gateText).toContain("d•••@acme.example")
    expect(gateText).not.toContain(recipient)
    for (const hidden of ["member_accounts", "support_tickets", "card_number", "Record of processing"]) {
      expect(gateText).not.toContain(hidden)
    }
    expect(await page.locator("#draft-stamp").count()).toBe(0)

    await Promise.all([page.waitForURL(/code=sent/), page.click("button[type=submit]")])
    expect(await page.textContent("h1")).toContain("Enter the code")
    await waitFor(() => postmark.messages.length === messagesBefore + 2, "the one-time code mail")
    const codeMail = postmark.messages[messagesBefore + 1]!
    expect(codeMail.To).toBe(recipient)
    expect(codeMail.Subject).toMatch(/one-time code/)
    const code = /\b(\d{8})\b/.exec(codeMail.TextBody ?? "")![1]!
    codes.push(code)
    await page.fill("input[name=code]", code)
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")])

    // The draft: the DRAFT stamp, an activity, its legal fields with their status, a dataset by name.
    expect(await page.textContent("#draft-stamp")).toContain("DRAFT")
    expect(await page.locator("article.activity").count()).toBeGreaterThan(0)
    const purpose = page.locator("article.activity").first().locator("tr.legal[data-field=purpose]")
    expect(await purpose.textContent()).toMatch(/Suggested|Confirmed/)
    for (const field of ["purpose", "lawfulBasis", "retention", "transfers"]) {
      expect(await page.locator(`tr.legal[data-field=${field}]`).count()).toBeGreaterThan(0)
    }
    expect(await page.textContent("#data-map")).toContain("member_accounts")
    expect(await page.textContent("#mode-banner")).toContain(`You proved you are the recipient (${recipient})`)
    expect(await page.textContent("#controller")).toContain("not set — complete it")

    await page.fill("#controller input[name=name]", "Acme Holding SE")
    await page.fill("#controller input[name=contact]", "privacy@acme-holding.example")
    await Promise.all([page.waitForNavigation(), page.click("#controller button[type=submit]")])
    expect(await page.textContent("#notice")).toContain("Controller saved.")
    await page.reload()
    const controller = (await page.textContent("#controller"))!
    expect(controller).toContain("Acme Holding SE")
    expect(controller).toContain("privacy@acme-holding.example")
    expect(controller).toContain("Completed on the portal")
    await page.close()
  })

  it("5. a re-invite supersedes; tenants lists both; remove needs --yes; a removed claim is CLAIM_NOT_FOUND on page and API", async () => {
    const r = await invite(["--email", recipient, "--yes", "--json"], main, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(r.code, r.stderr).toBe(0)
    second = r.json as InviteJson
    expect(second.supersedes).toBe(first.claimId)
    expect(second.claimId).not.toBe(first.claimId)
    expect(second.mailed).toBe(true)

    // The old link, in the recipient's browser: the superseded notice naming the new claim, no draft.
    const page = await recipientContext.newPage()
    await page.goto(first.claimUrl)
    const old = (await page.textContent("body"))!
    expect(old).toContain("A newer draft replaced this one")
    expect(old).toContain(second.claimId)
    expect(old).not.toContain("member_accounts")

    const tenants = await admin(["tenants", "--json"])
    expect(tenants.code, tenants.stderr).toBe(0)
    const rows = (tenants.json as {
      tenants: Array<{ claimId: string; state: string; successorId: string | null; recipient: string | null }>
    }).tenants
    expect(rows).toHaveLength(2)
    expect(rows).toEqual(expect.arrayContaining([
      expect.objectContaining({ claimId: first.claimId, state: "superseded", successorId: second.claimId, recipient }),
      expect.objectContaining({ claimId: second.claimId, state: "live", successorId: null, recipient })
    ]))

    const unconfirmed = await admin(["remove", second.claimId, "--json"])
    expect(unconfirmed.code).toBe(1)
    expect(errorOf(unconfirmed).code).toBe("ADMIN_NOT_CONFIRMED")
    expect(errorOf(unconfirmed).fix).toMatch(/--yes/)
    const unconfirmedHuman = await admin(["remove", second.claimId])
    expect(unconfirmedHuman.code).toBe(1)
    expect(unconfirmedHuman.stderr).toMatch(/ADMIN_NOT_CONFIRMED[\s\S]*fix: .*--yes/)
    const removed = await admin(["remove", second.claimId, "--yes", "--json"])
    expect(removed.code, removed.stderr).toBe(0)
    // A record is removed whole: the live claim and the superseded one before it.
    expect(removed.json).toEqual({
      removed: second.claimId,
      state: "removed",
      claims: expect.arrayContaining([first.claimId, second.claimId])
    })
    expect((removed.json as { claims: Array<string> }).claims).toHaveLength(2)

    const gone = await page.goto(second.claimUrl)
    expect(gone!.status()).toBe(404)
    const goneText = (await page.textContent("body"))!
    expect(goneText).toContain("CLAIM_NOT_FOUND")
    expect(goneText).not.toContain("member_accounts")
    await page.close()

    const api = await fetch(`${main.info.api}/claims/${tokenOf(second.claimUrl)}`)
    expect(api.status).toBe(404)
    const envelope = (await api.json()) as ErrorJson
    expect(Object.keys(envelope)).toEqual(["error"])
    expect(envelope.error.code).toBe("CLAIM_NOT_FOUND")
    // The same body on every surface: the page shows the API's message and fix.
    expect(goneText).toContain(envelope.error.message)
    expect(goneText).toContain(envelope.error.fix!)
    // The registry (help --json) lists the code with its exit code; its message and fix are the generic
    // ones (an operator's view: "list claims with admin tenants"), the API's are the recipient's.
    const help = await cli(["help", "--json"])
    const listed = (help.json as { errors: Array<{ code: string; message: string; fix?: string; exitCode: number }> })
      .errors.find((e) => e.code === "CLAIM_NOT_FOUND")
    expect(listed).toMatchObject({ code: "CLAIM_NOT_FOUND", exitCode: 1 })
    expect(envelope.error.message).toMatch(/no live claim/i)
    expect(listed!.message).toMatch(/no live claim/i)
    // An unknown token answers the same envelope.
    const unknown = await fetch(`${main.info.api}/claims/clm_${"x".repeat(43)}`)
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual(envelope)
  })

  it("6. unbound: nobody is mailed; the first browser to open becomes the admin, a second one is told so and sees nothing", async () => {
    const before = postmark.messages.length
    const r = await invite(["--unbound", "--yes", "--json"], main, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(r.code, r.stderr).toBe(0)
    const unbound = r.json as InviteJson
    expect(unbound).toMatchObject({ recipient: null, unbound: true, mailed: false, mail: { status: "not-needed" } })
    expect(r.stderr).toMatch(/whoever holds the claim link becomes the record's admin/)
    expect(postmark.messages.length).toBe(before)

    const a = await browser.newContext({ javaScriptEnabled: false })
    const b = await browser.newContext({ javaScriptEnabled: false })
    try {
      const pa = await a.newPage()
      await pa.goto(unbound.claimUrl)
      expect(await pa.textContent("h1")).toContain("Open this draft")
      expect(await pa.textContent("body")).not.toContain("member_accounts")
      await Promise.all([pa.waitForNavigation(), pa.click("button[type=submit]")])
      expect(await pa.textContent("#mode-banner")).toContain("you are this record's admin")
      expect(await pa.textContent("#draft-stamp")).toContain("DRAFT")
      expect(await pa.textContent("#data-map")).toContain("member_accounts")

      const pb = await b.newPage()
      const res = await pb.goto(unbound.claimUrl)
      expect(res!.status()).toBe(403)
      const text = (await pb.textContent("body"))!
      expect(text).toContain("This draft already has an admin")
      expect(text).not.toContain("member_accounts")
      expect(await pb.locator("#draft-stamp").count()).toBe(0)
      // A reads on, still the admin.
      await pa.reload()
      expect(await pa.textContent("#data-map")).toContain("member_accounts")
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("7. a portal limiting uploads to 2 an hour: the third invite is INGEST_RATE_LIMITED (exit 1) saying how long to wait", async () => {
    // The portal counts per clock hour: start clear of an hour's end, so the three uploads share one window.
    const toNextHour = 3_600_000 - (Date.now() % 3_600_000)
    if (toNextHour < 15_000) await new Promise((r) => setTimeout(r, toNextHour + 500))
    const limited = await serve("rate-limited", {
      ...rateStoreEnv,
      CATALOG_PORTAL_SIGNING_KEY: portalEnv["CATALOG_PORTAL_SIGNING_KEY"]!,
      CATALOG_INGEST_RATE_LIMIT: "2"
    })
    for (let i = 0; i < 2; i++) {
      const ok = await invite(["--unbound", "--yes", "--json"], limited)
      expect(ok.code, ok.stderr).toBe(0)
    }
    const third = await invite(["--unbound", "--yes", "--json"], limited)
    expect(third.code).toBe(1)
    expect(errorOf(third).code).toBe("INGEST_RATE_LIMITED")
    expect(errorOf(third).message).toMatch(/Retry after \d+ seconds/)
    expect(errorOf(third).fix).toMatch(/Wait \d+ minute/)
    const human = await invite(["--unbound", "--yes"], limited)
    expect(human.code).toBe(1)
    expect(human.stderr).toMatch(/INGEST_RATE_LIMITED[\s\S]*fix: Wait \d+ minute/)
    expect(await limited.stop()).toBe(0)
  })

  it("8. the sendmail transport: a portal piping mail to the capture script; the claim link is in the captured .eml", async () => {
    const sendmail = await serve("sendmail", {
      ...portalEnv,
      CATALOG_SENDMAIL_CMD: `'${process.execPath}' '${captureScript}' '${captureDir}'`,
      CATALOG_MAIL_FROM: "portal@acme.example"
    })
    const r = await invite(["--email", recipient, "--yes", "--json"], sendmail, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(r.code, r.stderr).toBe(0)
    const out = r.json as InviteJson
    expect(out).toMatchObject({ mailed: true, mail: { status: "sent", error: null } })
    const eml = fs.readFileSync(path.join(captureDir, "1.eml"), "utf8")
    expect(eml).toMatch(/^To: dpo@acme\.example$/m)
    expect(eml).toMatch(/^From: portal@acme\.example$/m)
    expect(decodeQuotedPrintable(eml) + decodeBase64Parts(eml)).toContain(out.claimUrl)
    const meta = JSON.parse(fs.readFileSync(path.join(captureDir, "1.json"), "utf8")) as {
      secretsVisible: Array<string>
    }
    expect(meta.secretsVisible).toEqual([])
    expect(await sendmail.stop()).toBe(0)
  })

  it("9. a portal with no mail: invite exits 0 with the link and reports MAIL_NOT_CONFIGURED with its fix", async () => {
    const silent = await serve("no-mail", portalEnv)
    expect(silent.stderr()).toContain("MAIL_NOT_CONFIGURED")
    const human = await invite(["--email", recipient, "--yes"], silent, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toMatch(/Claim link: http:\/\/127\.0\.0\.1:\d+\/claim\/clm_/)
    expect(human.stderr).toMatch(/MAIL_NOT_CONFIGURED/)
    expect(human.stderr).toMatch(/fix: .*CATALOG_SENDMAIL_CMD/)
    const json = await invite(["--email", recipient, "--yes", "--json"], silent, { CATALOG_INGEST_TOKEN: ingestToken })
    expect(json.code, json.stderr).toBe(0)
    const out = json.json as InviteJson
    expect(out.claimUrl).toMatch(/\/claim\/clm_/)
    expect(out).toMatchObject({ mailed: false, mail: { status: "not-configured" } })
    expect(out.mail.error!.code).toBe("MAIL_NOT_CONFIGURED")
    expect(out.mail.error!.fix).toMatch(/CATALOG_SENDMAIL_CMD/)
    // The upload was kept: the claim is live on the portal.
    const state = await fetch(`${silent.info.api}/claims/${tokenOf(out.claimUrl)}`)
    expect(state.status).toBe(200)
    expect(await state.json()).toMatchObject({ claimId: out.claimId, state: "live" })
    expect(await silent.stop()).toBe(0)
  })

  it("10. no planted secret or row value anywhere; no claim token or code in the portals' logs", async () => {
    await recipientContext?.close()
    for (const { p } of portals) expect(await p.stop()).toBe(0)

    // Every body the portals stored.
    const stored: Array<string> = []
    const readBodies = (where: Record<string, string>, db: string | null) =>
      backend === "postgres"
        ? Effect.runPromise(
          psql(db!, "SELECT translate(encode(convert_to(body, 'UTF8'), 'base64'), E'\\n', '') FROM snapshots")
        )
          .then((out) => out.split("\n").filter((l) => l !== "").map((l) => Buffer.from(l, "base64").toString("utf8")))
        : Promise.resolve((() => {
          const sqlite = new DatabaseSync(path.join(where["CATALOG_PORTAL_HOME"]!, "portal.db"), { readOnly: true })
          try {
            return (sqlite.prepare("SELECT body FROM snapshots").all() as Array<{ body: string }>).map((r) => r.body)
          } finally {
            sqlite.close()
          }
        })())
    stored.push(...(await readBodies(storeEnv, portalDbName)), ...(await readBodies(rateStoreEnv, rateDbName)))
    // Each store keeps one body per record — the live claim's (a superseded claim's body is deleted when it
    // is superseded, a removed record's with it) — and it is exactly the bytes of a snapshot file.
    expect(stored.length).toBe(2)
    for (const body of stored) expect(snapshots).toContain(body)
    expect(snapshots).toContain(firstBody)
    for (const body of stored) expect(body).toContain("member_accounts")

    const mails = postmark.messages.slice(messagesBefore)
    expect(mails.length).toBe(3) // the first invitation, the code, the re-invitation
    const captured = fs.readdirSync(captureDir).map((f) => fs.readFileSync(path.join(captureDir, f), "utf8"))
    expect(captured.length).toBe(2)
    expect(snapshots.length).toBeGreaterThanOrEqual(8)

    const places: Array<{ readonly what: string; readonly text: string }> = [
      ...snapshots.map((text, i) => ({ what: `snapshot file #${i + 1}`, text })),
      ...stored.map((text, i) => ({ what: `stored body #${i + 1}`, text })),
      ...mails.map((m, i) => ({ what: `Postmark message #${i + 1}`, text: JSON.stringify(m) })),
      ...captured.map((text, i) => ({ what: `sendmail capture #${i + 1}`, text })),
      ...captured.map((text, i) => ({
        what: `sendmail capture #${i + 1}, decoded`,
        text: decodeQuotedPrintable(text)
      })),
      ...portals.flatMap(({ name, p }) => [
        { what: `portal ${name} stdout`, text: p.stdout() },
        { what: `portal ${name} stderr`, text: p.stderr() }
      ]),
      ...outputs
    ]
    for (const { what, text } of places) {
      for (const secret of [password, sourceUrl, ...rowValues]) {
        expect(text.includes(secret), `${secret} found in ${what}`).toBe(false)
      }
    }

    expect(claimTokens.length).toBeGreaterThanOrEqual(8)
    for (const { name, p } of portals) {
      const log = p.stdout() + p.stderr()
      expect(log).toMatch(name === "main" ? /GET \/claim\/clm_… \d{3}/ : /POST \/api\/portal\/v1\/snapshots 201/)
      for (const token of claimTokens) expect(log.includes(token), `a claim token in portal ${name}'s log`).toBe(false)
      for (const code of codes) expect(log.includes(code), `the one-time code in portal ${name}'s log`).toBe(false)
      expect(log.includes(ingestToken), `the ingest token in portal ${name}'s log`).toBe(false)
      expect(log.includes(postmark.token), `the Postmark token in portal ${name}'s log`).toBe(false)
    }
  })
})
