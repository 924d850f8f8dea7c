/**
 * `catalog serve-claim` end to end: the built CLI (dist/bin.js) serves a snapshot written by the test
 * (what `catalog invite --no-upload` writes) as the claim page, over real HTTP and in Debian's
 * Chromium (playwright-core): INVITE_NOT_FOUND without a snapshot or with an unreadable one, the port
 * rules (--port, CATALOG_CLAIM_PORT, PORT_IN_USE, INVALID_PARAM), the Host guard, the security headers
 * and CSP, the snapshot re-read on each request, /snapshot.json byte for byte, 404/405, the page
 * readable without JavaScript, printable to PDF, and SIGTERM exiting 0. Screenshots and the PDF go to
 * test-artifacts/serve-claim/.
 */
import { type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { snapshotFileName } from "../../src/domain/Snapshot.js"
import { claimPageCsp } from "../../src/programs/portal/ClaimPage.js"
import { repoRoot, runCli, spawnCli, tempProject } from "../utils/cli.js"
import { sampleSnapshot } from "../utils/snapshots.js"

const chromiumPath = "/usr/bin/chromium"
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run"
]
const artifacts = path.join(repoRoot, "test-artifacts", "serve-claim")

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}

interface HttpResult {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly text: string
}

/** One request over node:http (fetch cannot set Host), no keep-alive. */
const request = (
  port: number,
  target: string,
  opts: { readonly method?: string; readonly headers?: Record<string, string> } = {}
) =>
  new Promise<HttpResult>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: target, method: opts.method ?? "GET", headers: opts.headers, agent: false },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const body = Buffer.concat(chunks)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString("utf8") })
        })
      }
    )
    req.on("error", reject)
    req.end()
  })

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address()
      const port = typeof addr === "object" && addr !== null ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })

interface Served {
  readonly url: string
  readonly port: number
  readonly snapshot: string
  readonly proc: ChildProcess
  readonly stderr: () => string
}

/** `catalog serve-claim --json` (plus `args`), resolved once it prints its JSON line. */
const serve = (cwd: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Served> => {
  const proc = spawnCli(["serve-claim", "--json", ...args], { cwd, env })
  let out = ""
  let err = ""
  return new Promise<Served>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve-claim did not start in 20 s\n${out}\n${err}`)), 20_000)
    proc.stderr!.on("data", (b: Buffer) => (err += b.toString()))
    proc.stdout!.on("data", (b: Buffer) => {
      out += b.toString()
      const line = out.split("\n").find((l) => l.trim().startsWith("{"))
      if (line === undefined || !out.includes("\n")) return
      const j = JSON.parse(line) as { url: string; port: number; snapshot: string }
      clearTimeout(timer)
      resolve({ ...j, proc, stderr: () => err })
    })
    proc.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`serve-claim exited with ${code}\n${out}\n${err}`))
    })
  })
}

/** SIGTERM, then the exit code. */
const stop = async (s: Served): Promise<number | null> => {
  if (s.proc.exitCode !== null) return s.proc.exitCode
  const exited = new Promise<number | null>((resolve) => s.proc.once("exit", (code) => resolve(code)))
  s.proc.kill("SIGTERM")
  return await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 5000))])
}

const writeSnapshot = (dir: string, snapshot: unknown): { file: string; bytes: string } => {
  const file = path.join(dir, ".catalog", snapshotFileName)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const bytes = JSON.stringify(snapshot)
  fs.writeFileSync(file, bytes)
  return { file, bytes }
}

describe("catalog serve-claim: refusals", () => {
  it("without a snapshot (and without .catalog) is INVITE_NOT_FOUND, exit 1, with its fix", () => {
    const p = tempProject("ldc-serve-claim-none-")
    try {
      const r = runCli(["serve-claim", "--json"], { cwd: p.dir })
      expect(r.code).toBe(1)
      const e = (r.json as ErrorBody).error
      expect(e.code).toBe("INVITE_NOT_FOUND")
      expect(e.fix).toContain("catalog invite --no-upload")
      // with .catalog but no snapshot file: the same code, naming the file
      fs.mkdirSync(path.join(p.dir, ".catalog"))
      const r2 = runCli(["serve-claim"], { cwd: p.dir })
      expect(r2.code).toBe(1)
      expect(r2.stderr).toContain("INVITE_NOT_FOUND")
      expect(r2.stderr).toContain(snapshotFileName)
      expect(r2.stderr).toContain("catalog invite --no-upload")
    } finally {
      p.cleanup()
    }
  })

  it("a file that is not a snapshot is INVITE_NOT_FOUND saying it is unreadable", () => {
    const p = tempProject("ldc-serve-claim-bad-")
    try {
      writeSnapshot(p.dir, { format: "something-else", version: 1 })
      const r = runCli(["serve-claim", "--json"], { cwd: p.dir })
      expect(r.code).toBe(1)
      const e = (r.json as ErrorBody).error
      expect(e.code).toBe("INVITE_NOT_FOUND")
      expect(e.message).toContain("unreadable")
      expect(e.fix).toContain("catalog invite --no-upload")
      // CATALOG_DATA moves the data folder, and the snapshot with it
      const other = path.join(p.dir, "elsewhere")
      fs.mkdirSync(other)
      fs.writeFileSync(path.join(other, snapshotFileName), "{ not json")
      const r2 = runCli(["serve-claim", "--json"], { cwd: p.dir, env: { CATALOG_DATA: "elsewhere" } })
      expect((r2.json as ErrorBody).error.message).toContain(path.join(other, snapshotFileName))
    } finally {
      p.cleanup()
    }
  })

  it("a taken port is PORT_IN_USE (exit 1) naming CATALOG_CLAIM_PORT; a bad port is INVALID_PARAM (exit 2)", async () => {
    const p = tempProject("ldc-serve-claim-port-")
    const blocker = net.createServer()
    try {
      writeSnapshot(p.dir, sampleSnapshot())
      const port = await new Promise<number>((resolve) =>
        blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as net.AddressInfo).port))
      )
      const r = runCli(["serve-claim", "--port", String(port), "--json"], { cwd: p.dir })
      expect(r.code).toBe(1)
      const e = (r.json as ErrorBody).error
      expect(e.code).toBe("PORT_IN_USE")
      expect(e.message).toContain(`Port ${port}`)
      expect(e.message).toContain("catalog serve-claim")
      expect(e.fix).toContain("CATALOG_CLAIM_PORT")
      // the variable is read when --port is absent
      const r2 = runCli(["serve-claim", "--json"], { cwd: p.dir, env: { CATALOG_CLAIM_PORT: String(port) } })
      expect((r2.json as ErrorBody).error.code).toBe("PORT_IN_USE")
      const r3 = runCli(["serve-claim", "--port", "70000", "--json"], { cwd: p.dir })
      expect(r3.code).toBe(2)
      expect((r3.json as ErrorBody).error).toMatchObject({ code: "INVALID_PARAM", param: "--port" })
      const r4 = runCli(["serve-claim", "--json"], { cwd: p.dir, env: { CATALOG_CLAIM_PORT: "abc" } })
      expect((r4.json as ErrorBody).error).toMatchObject({ code: "INVALID_PARAM", param: "CATALOG_CLAIM_PORT" })
    } finally {
      blocker.close()
      p.cleanup()
    }
  })
})

describe("catalog serve-claim: serving the local snapshot", () => {
  const p = tempProject("ldc-serve-claim-")
  let served: Served
  let written: { file: string; bytes: string }
  let browser: Browser | undefined

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true })
    written = writeSnapshot(p.dir, sampleSnapshot({ doraInScope: true }))
    const port = await freePort()
    served = await serve(p.dir, [], { CATALOG_CLAIM_PORT: String(port) })
    expect(served.port).toBe(port)
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    if (served !== undefined && served.proc.exitCode === null) served.proc.kill("SIGKILL")
    p.cleanup()
  })

  it("prints one JSON line {url, snapshot, port} and the URL on stderr; listens on 127.0.0.1 only", () => {
    expect(served.url).toBe(`http://127.0.0.1:${served.port}/`)
    expect(fs.realpathSync(served.snapshot)).toBe(fs.realpathSync(written.file))
    expect(path.isAbsolute(served.snapshot)).toBe(true)
    expect(served.snapshot.endsWith(path.join(".catalog", snapshotFileName))).toBe(true)
    expect(served.stderr()).toContain(served.url)
    expect(served.stderr()).toContain("nothing is sent")
  })

  it("serves the claim page with the security headers and the CSP, and the exact snapshot bytes", async () => {
    const page = await request(served.port, "/")
    expect(page.status).toBe(200)
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(page.headers["content-security-policy"]).toBe(claimPageCsp)
    expect(page.headers["x-frame-options"]).toBe("DENY")
    expect(page.headers["x-content-type-options"]).toBe("nosniff")
    expect(page.headers["cache-control"]).toBe("no-store")
    expect(page.headers["referrer-policy"]).toBe("no-referrer")
    expect(page.headers["access-control-allow-origin"]).toBeUndefined()
    expect(page.text).toContain("Local preview — served from this machine's snapshot; nothing has been sent")
    expect(page.text).toContain("Customer orders and accounts")

    const raw = await request(served.port, "/snapshot.json")
    expect(raw.status).toBe(200)
    expect(raw.headers["content-type"]).toMatch(/^application\/json/)
    expect(raw.body.equals(Buffer.from(written.bytes, "utf8"))).toBe(true)

    const q = await request(served.port, "/?utm=x")
    expect(q.status).toBe(200)
  })

  it("refuses a non-loopback Host (403), answers 404 elsewhere and 405 to anything but GET", async () => {
    for (const host of ["evil.example", "evil.example:4320", "127.0.0.1.nip.io"]) {
      const r = await request(served.port, "/", { headers: { host } })
      expect(r.status, host).toBe(403)
      expect(r.text).toContain("INVALID_PARAM")
      expect(r.text).toContain("DNS-rebinding")
      expect(r.text).not.toContain("Customer orders and accounts")
      expect(r.headers["x-frame-options"]).toBe("DENY")
    }
    const raw = await request(served.port, "/snapshot.json", { headers: { host: "attacker.example" } })
    expect(raw.status).toBe(403)
    for (const host of ["localhost", `localhost:${served.port}`, `[::1]:${served.port}`]) {
      expect((await request(served.port, "/", { headers: { host } })).status, host).toBe(200)
    }
    const missing = await request(served.port, "/api/v1/datasets")
    expect(missing.status).toBe(404)
    expect(missing.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(missing.text).toContain("Nothing here")
    for (const method of ["POST", "PUT", "DELETE"]) {
      const r = await request(served.port, "/", { method })
      expect(r.status, method).toBe(405)
      expect(r.headers["allow"]).toBe("GET, HEAD")
    }
    const head = await request(served.port, "/", { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
  })

  it("shows the page in Chromium: the DRAFT stamp, the local banner, activities and legal statuses; no console error", async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    const problems: Array<string> = []
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text())
    })
    page.on("pageerror", (e) => problems.push(e.message))
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()}`))
    await page.goto(served.url)
    await expect.poll(() => page.title()).toBe("Claim page — draft record")
    const stamp = page.locator("#draft-stamp")
    expect(await stamp.isVisible()).toBe(true)
    expect(await stamp.textContent()).toContain("DRAFT — not an official record; nothing here is signed")
    // the inline stylesheet applied under the CSP (the stamp's red border)
    expect(await stamp.evaluate((e) => getComputedStyle(e).borderTopColor)).toBe("rgb(180, 35, 24)")
    const banner = page.locator("#mode-banner")
    expect(await banner.isVisible()).toBe(true)
    expect(await banner.textContent()).toContain(
      "Local preview — served from this machine's snapshot; nothing has been sent"
    )
    for (const name of ["Customer orders and accounts", "Patient care"]) {
      expect(await page.getByRole("heading", { name }).isVisible(), name).toBe(true)
    }
    expect(await page.locator("tr.legal.confirmed").count()).toBe(3)
    expect(await page.locator("tr.legal.suggested").count()).toBe(5)
    expect(await page.locator("tr.legal.suggested").first().getByText("Suggested").isVisible()).toBe(true)
    expect(await page.locator("tr.legal.confirmed").first().getByText("Confirmed").isVisible()).toBe(true)
    expect(await page.locator("#dora").isVisible()).toBe(true)
    expect(await page.locator("form").count()).toBe(0) // local preview: read-only
    await page.screenshot({ path: path.join(artifacts, "claim-page.png"), fullPage: true })
    expect(problems).toEqual([])
    await page.close()
  })

  it("needs no JavaScript", async () => {
    const context = await browser!.newContext({ javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(served.url)
    expect(await page.locator("#draft-stamp").isVisible()).toBe(true)
    expect(await page.getByRole("heading", { name: "Patient care" }).isVisible()).toBe(true)
    expect(await page.locator("#data-map").textContent()).toContain("shop/public/customers")
    await context.close()
  })

  it("prints: no navigation, the parts on their own pages, a PDF of several pages", async () => {
    const page = await browser!.newPage()
    await page.goto(served.url)
    await page.emulateMedia({ media: "print" })
    expect(await page.locator(".topbar").isVisible()).toBe(false)
    expect(await page.locator("nav.toc").isVisible()).toBe(false)
    expect(await page.locator("#draft-stamp").isVisible()).toBe(true)
    expect(await page.locator(".print-watermark").isVisible()).toBe(true)
    expect(await page.locator("#ropa").evaluate((e) => getComputedStyle(e).breakBefore)).toBe("page")
    const pdf = await page.pdf({ format: "A4", printBackground: true })
    fs.writeFileSync(path.join(artifacts, "claim-page.pdf"), pdf)
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-")
    expect(pdf.length).toBeGreaterThan(10_000)
    const pages = pdf.toString("latin1").match(/\/Type\s*\/Page(?!s)/g) ?? []
    expect(pages.length).toBeGreaterThan(3)
    await page.close()
  })

  it("reads the snapshot again on every request: a new one shows without a restart, a removed one is INVITE_NOT_FOUND", async () => {
    const next = sampleSnapshot()
    const renamed = {
      ...next,
      ropa: {
        ...next.ropa,
        activities: next.ropa.activities.map((a, i) => i === 0 ? { ...a, name: "Loyalty programme & <newsletter>" } : a)
      }
    }
    const rewritten = writeSnapshot(p.dir, renamed)
    const page = await request(served.port, "/")
    expect(page.text).toContain("Loyalty programme &amp; &lt;newsletter&gt;")
    expect(page.text).not.toContain("id=\"dora\"")
    expect((await request(served.port, "/snapshot.json")).text).toBe(rewritten.bytes)

    fs.rmSync(rewritten.file)
    const gone = await request(served.port, "/")
    expect(gone.status).toBe(404)
    expect(gone.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(gone.text).toContain("INVITE_NOT_FOUND")
    expect(gone.text).toContain("catalog invite --no-upload")
    const goneRaw = await request(served.port, "/snapshot.json")
    expect(goneRaw.status).toBe(404)
    expect((JSON.parse(goneRaw.text) as ErrorBody).error.code).toBe("INVITE_NOT_FOUND")

    fs.writeFileSync(rewritten.file, "{\"truncated\":")
    const broken = await request(served.port, "/")
    expect(broken.status).toBe(404)
    expect(broken.text).toContain("unreadable")
  })

  it("SIGTERM stops it with exit 0", async () => {
    expect(await stop(served)).toBe(0)
    expect(served.stderr()).toContain("catalog serve-claim: stopped.")
  })
})
