/**
 * The local portal page served by `catalog open`, in headless Chromium (playwright-core + the
 * system's Chromium): a catalog is built with the CLI itself (SQLite with customers, orders,
 * patients and views, so there is lineage), `catalog open` is started as a separate process, and
 * every screen is driven with real data. No console error and no failed request is allowed on any
 * screen. Screenshots go to test-artifacts/portal/.
 */
import { type ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { listedTools } from "../../src/domain/Agents.js"
import type { Dataset, DatasetList, LineageList, SearchResult } from "../../src/domain/Catalog.js"
import { agentsConfig, jsonForScript, portalAsset, portalPaths } from "../../src/programs/http/portal/assets.js"
import { edgePath, layeredLayout } from "../../src/programs/http/portal/client/layout.js"
import { binPath, repoRoot, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

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
const artifacts = path.join(repoRoot, "test-artifacts", "portal")

const makeDb = (file: string) => {
  const db = new DatabaseSync(file)
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT, phone_number TEXT, birth_date DATE, loyalty_tier TEXT, created_at TIMESTAMP);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total_cents INTEGER, shipping_address TEXT, ordered_at TIMESTAMP);
    CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT, diagnosis TEXT, blood_type TEXT, religion TEXT, insurance_number TEXT, admitted_at TIMESTAMP);
    CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, price_cents INTEGER);
    CREATE VIEW customer_orders AS SELECT c.id, c.email, o.total_cents FROM customers c JOIN orders o ON o.customer_id = c.id;
    CREATE VIEW patient_report AS SELECT p.full_name, p.diagnosis FROM patients p;
    CREATE VIEW vip_summary AS SELECT co.email, sum(co.total_cents) AS total FROM customer_orders co GROUP BY co.email;
    -- names are untrusted: they must show as text, never run as markup
    CREATE TABLE "notes<b>x</b>" (id INTEGER PRIMARY KEY, "<img src=x onerror=window.__xss=1>" TEXT, "customer's email" TEXT);
    CREATE VIEW notes_view AS SELECT * FROM "notes<b>x</b>";
  `)
  db.close()
}

/** A table whose column names and types are long and unbreakable: its tables need more than 1,400 px. */
const wideTable = {
  name: "warehouse_inventory_reconciliation_adjustments_history_with_a_long_name",
  columns: Array.from(
    { length: 12 },
    (_, i) => `warehouse_inventory_reconciliation_adjustment_quantity_after_audit_${i}`
  ),
  type: "DECIMAL(38,10)_UNSIGNED_ZEROFILL_VENDOR_SPECIFIC_STORAGE_CLASS"
} as const

const addWideTable = (file: string) => {
  const db = new DatabaseSync(file)
  db.exec(
    `CREATE TABLE ${wideTable.name} (id INTEGER PRIMARY KEY, ${
      wideTable.columns.map((c) => `${c} "${wideTable.type}"`).join(", ")
    });`
  )
  db.close()
}

/**
 * How each table matching `selector` in main sits in the page: its own width, the width its scroll
 * container shows, whether that container scrolls, the cells whose content overflows their box,
 * and whether anything pushes the page wider than the viewport.
 */
const tableLayout = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const tables = Array.from(document.querySelectorAll<HTMLTableElement>(`main ${sel}`))
    return {
      viewport: window.innerWidth,
      pageWidth: document.documentElement.scrollWidth,
      tables: tables.map((t) => {
        const wrap = t.parentElement!
        const box = wrap.getBoundingClientRect()
        const cells = Array.from(t.querySelectorAll<HTMLElement>("th, td")).filter((c) => c.offsetParent !== null)
        return {
          width: t.getBoundingClientRect().width,
          shown: wrap.clientWidth,
          scrollable: wrap.scrollWidth,
          overflowX: getComputedStyle(wrap).overflowX,
          left: box.left,
          right: box.right,
          clippedCells: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) =>
            c.textContent?.slice(0, 60) ?? ""
          )
        }
      })
    }
  }, selector)

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
  readonly proc: ChildProcess
}

/** `catalog open --port <free> --json`, resolved once it prints `{url, port}`. */
const openPortal = async (cwd: string, env: Record<string, string>): Promise<Served> => {
  const port = await freePort()
  const proc = spawnCli(["open", "--port", String(port), "--json"], { cwd, env })
  let out = ""
  let err = ""
  return await new Promise<Served>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`catalog open did not start in 20 s\n${out}\n${err}`)), 20_000)
    proc.stderr!.on("data", (b: Buffer) => (err += b.toString()))
    proc.stdout!.on("data", (b: Buffer) => {
      out += b.toString()
      for (const line of out.split("\n")) {
        if (!line.trim().startsWith("{")) continue
        try {
          const j = JSON.parse(line) as { url?: string }
          if (j.url) {
            clearTimeout(timer)
            resolve({ url: j.url, proc })
          }
        } catch {
          // partial line
        }
      }
    })
    proc.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`catalog open exited with ${code}\n${out}\n${err}`))
    })
  })
}

const stop = async (s: Served | undefined) => {
  if (!s || s.proc.exitCode !== null) return
  const exited = new Promise<void>((resolve) => s.proc.once("exit", () => resolve()))
  s.proc.kill("SIGTERM")
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
}

/** A page that records every console error, page error, failed request and HTTP error status. */
const watchedPage = async (browser: Browser, viewport = { width: 1360, height: 900 }) => {
  const page = await browser.newPage({ viewport })
  const problems: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console.error: ${m.text()}`)
  })
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`))
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`)
    void d.dismiss()
  })
  page.on(
    "requestfailed",
    (r) => problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText ?? ""}`)
  )
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`)
  })
  return { page, problems }
}

/** Goes to a hash route and waits for its view (the h1 of a rendered page, not the loading state). */
const visit = async (page: Page, base: string, route: string, title: string | RegExp) => {
  await page.goto(`${base}#/${route}`)
  await expect.poll(() => page.locator("main h1").first().textContent(), { timeout: 10_000 }).toMatch(title)
  await page.waitForLoadState("networkidle")
}

const shot = async (page: Page, name: string) => {
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true })
}

const apiGet = async <T>(base: string, p: string): Promise<T> =>
  (await (await fetch(new URL(`api/v1${p}`, base))).json()) as T

describe("portal assets (served by catalog open)", () => {
  it("serves the page and its assets, and nothing else", () => {
    for (const p of portalPaths) expect(portalAsset(p), p).not.toBeNull()
    expect(portalAsset("/")!.contentType).toMatch(/^text\/html/)
    expect(portalAsset("/assets/app.js")!.contentType).toMatch(/^text\/javascript/)
    expect(portalAsset("/assets/app.css")!.contentType).toMatch(/^text\/css/)
    expect(portalAsset("/?x=1")).not.toBeNull()
    expect(portalAsset("/assets/nope.js")).toBeNull()
    expect(portalAsset("/api/v1")).toBeNull()
    const html = String(portalAsset("/")!.body)
    expect(html).toContain("<script type=\"application/json\" id=\"agents-config\">")
    expect(html).not.toContain("<!--AGENTS_CONFIG-->")
    // every asset the HTML references is served
    for (const ref of html.matchAll(/(?:href|src)="(\/[^"]*)"/g)) {
      if (!ref[1]!.startsWith("/api/")) expect(portalAsset(ref[1]!), ref[1]).not.toBeNull()
    }
    // no network: nothing is loaded from another origin
    expect(html).not.toMatch(/(?:href|src)="(?:https?:)?\/\//)
    expect(String(portalAsset("/assets/app.js")!.body)).not.toMatch(
      /\.innerHTML\s*=|insertAdjacentHTML|document\.write/
    )
  })

  it("embeds the registration with absolute paths, JSON-escaped for a script element", () => {
    const p = tempProject("ldc-portal-cfg-")
    try {
      const cfg = agentsConfig({ cwd: p.dir, env: {} })
      expect(cfg.dataDir).toBe(path.join(p.dir, ".catalog"))
      expect(cfg.configPath).toBeNull()
      writeFile(p.dir, "catalog.yml", "version: 1\n")
      const withYml = agentsConfig({ cwd: p.dir, env: { CATALOG_DATA: "data</script>" } })
      expect(withYml.dataDir).toBe(path.join(p.dir, "data</script>"))
      expect(withYml.configPath).toBe(path.join(p.dir, "catalog.yml"))
      expect(withYml.command).toContain(`--env CATALOG_CONFIG=${path.join(p.dir, "catalog.yml")}`)
      expect(withYml.tools.doraOutOfScope.map((t) => t.name)).toEqual(listedTools(false).map((t) => t.name))
      expect(withYml.tools.doraInScope).toHaveLength(8)
      const json = jsonForScript(withYml)
      expect(json).not.toMatch(/[<>&\u2028\u2029]/)
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(withYml)))
    } finally {
      p.cleanup()
    }
  })

  it("lays lineage out in layers: sources left, targets right, long edges routed, cycles survive", () => {
    const l = layeredLayout({
      nodes: ["a", "b", "c", "d", "e", "lonely"],
      edges: [
        { id: "1", from: "a", to: "b" },
        { id: "2", from: "b", to: "c" },
        { id: "3", from: "a", to: "c" },
        { id: "4", from: "d", to: "c" },
        { id: "5", from: "c", to: "e" },
        { id: "6", from: "e", to: "b" }
      ]
    })
    const at = new Map(l.nodes.map((n) => [n.id, n]))
    expect(at.get("a")!.x).toBeLessThan(at.get("b")!.x)
    expect(at.get("b")!.x).toBeLessThan(at.get("c")!.x)
    expect(at.get("c")!.x).toBeLessThan(at.get("e")!.x)
    expect(l.edges).toHaveLength(6)
    expect(l.edges.filter((e) => e.reversed)).toHaveLength(1)
    const long = l.edges.find((e) => e.id === "3")!
    expect(long.points.length).toBeGreaterThan(2)
    // no two nodes overlap
    for (const n of l.nodes) {
      for (const m of l.nodes) {
        if (n.id < m.id && n.x === m.x) expect(Math.abs(n.y - m.y)).toBeGreaterThanOrEqual(62)
      }
    }
    expect(edgePath(long.points)).toMatch(/^M[\d.]+,[\d.]+( C[\d., ]+)+$/)
    expect(layeredLayout({ nodes: [], edges: [] })).toMatchObject({ nodes: [], edges: [], layers: 0 })
  })
})

describe("portal page in headless Chromium (catalog open)", () => {
  const p = tempProject("ldc-portal-")
  const dora = tempProject("ldc-portal-dora-")
  const env = { SHOP_DB: path.join(p.dir, "shop.db"), USER: "tester" }
  const signer = { ...env, CATALOG_SIGNER_EMAIL: "dpo@example.com" }
  const doraEnv = { SHOP_DB: path.join(dora.dir, "shop.db"), USER: "tester" }
  let browser: Browser
  let served: Served | undefined
  let servedDora: Served | undefined
  const timings: Array<string> = []
  const timed = async <A>(label: string, f: () => Promise<A>): Promise<A> => {
    const t0 = performance.now()
    try {
      return await f()
    } finally {
      timings.push(`${label}: ${Math.round(performance.now() - t0)} ms`)
    }
  }

  beforeAll(async () => {
    expect(fs.existsSync(chromiumPath), "Chromium is missing: apt-get install -y chromium").toBe(true)
    fs.mkdirSync(artifacts, { recursive: true })
    await timed("build catalogs with the CLI", async () => {
      makeDb(env.SHOP_DB)
      addWideTable(env.SHOP_DB)
      const ok = (r: ReturnType<typeof runCli>) => expect(r.code, r.stdout + r.stderr).toBe(0)
      ok(runCli(["add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--json"], { cwd: p.dir, env }))
      ok(runCli(["start", "--json"], { cwd: p.dir, env }))
      // a human correction the scan disagrees with (drift), to be shown marked with who and when
      ok(
        runCli(["classify", "set", "shop/main/patients/admitted_at", "special", "--json"], { cwd: p.dir, env: signer })
      )

      makeDb(doraEnv.SHOP_DB)
      ok(runCli(["add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--json"], { cwd: dora.dir, env: doraEnv }))
      const yml = path.join(dora.dir, "catalog.yml")
      fs.writeFileSync(
        yml,
        `${
          fs.readFileSync(yml, "utf8")
        }\ncontroller:\n  name: Example Bank AG\n  contact: privacy@example.com\ndora:\n  inScope: true\n  entity:\n    lei: 5299000J2N45DDNE4Y28\n    name: Example Bank AG\n    country: DE\n    currency: EUR\n`
      )
      ok(runCli(["start", "--json"], { cwd: dora.dir, env: doraEnv }))
    })
    served = await timed("catalog open (start to listening)", () => openPortal(p.dir, env))
    servedDora = await openPortal(dora.dir, doraEnv)
    browser = await timed(
      "launch Chromium",
      () => chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
    )
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await stop(served)
    await stop(servedDora)
    p.cleanup()
    dora.cleanup()
    fs.writeFileSync(path.join(artifacts, "timings.txt"), `${timings.join("\n")}\n`)
  })

  it("overview shows the real counts, coverage and freshness", async () => {
    const { page, problems } = await watchedPage(browser)
    const list = await apiGet<DatasetList>(served!.url, "/datasets")
    await timed("overview", () => visit(page, served!.url, "overview", "Overview"))
    const stat = (label: string) =>
      page.locator(".stat", { has: page.locator(".stat-label", { hasText: new RegExp(`^${label}$`) }) }).locator(
        ".stat-value"
      )
    expect(await stat("Datasets").textContent()).toBe(String(list.total))
    const columns = list.datasets.reduce((a, d) => a + d.columnCount, 0)
    expect(await stat("Columns").textContent()).toBe(String(columns))
    const flagged = list.datasets.reduce((a, d) => a + d.classes.personal + d.classes.special + d.classes.criminal, 0)
    expect(flagged).toBeGreaterThan(5)
    expect(await stat("Personal-data columns").textContent()).toBe(String(flagged))
    await expect.poll(() => page.locator(".trust").textContent()).toContain("Coverage complete")
    expect(await page.locator(".trust .badge.stale-fresh").count()).toBe(1)
    expect(await page.locator("#trust-pill .stale-fresh").count()).toBe(1)
    expect(await page.locator(".ranked li").count()).toBeGreaterThan(3)
    await shot(page, "overview")
    expect(problems).toEqual([])
    await page.close()
  })

  it("dataset list: the filter narrows the table and words also find columns", async () => {
    const { page, problems } = await watchedPage(browser)
    const list = await apiGet<DatasetList>(served!.url, "/datasets")
    await timed("dataset list + search", async () => {
      await visit(page, served!.url, "datasets", "Datasets")
      expect(await page.locator(".datasets-table tbody tr").count()).toBe(list.total)
      const rowCell = page.locator(".datasets-table tbody tr").first().locator("td.rows")
      expect(await rowCell.textContent()).toMatch(/rows \(estimate\)|no planner estimate/)
      await page.fill("[data-testid=dataset-filter]", "patient")
      await expect.poll(() =>
        page.locator(".datasets-table tbody tr").evaluateAll((rows) =>
          rows.map((r) => r.getAttribute("data-dataset")).sort()
        )
      )
        .toEqual(["shop/main/patient_report", "shop/main/patients"])
      expect(page.url()).toContain("#/datasets?q=patient")
      await page.fill("[data-testid=dataset-filter]", "email")
      // the column hit is listed under the title the API gives it
      const emailHit = (await apiGet<SearchResult>(served!.url, "/search?q=email&limit=30")).hits.find((x) =>
        x.id === "shop/main/customers/email"
      )
      expect(emailHit).toBeDefined()
      await expect.poll(() => page.locator(".hits-list .hit-title").allTextContents(), { timeout: 10_000 }).toContain(
        emailHit!.title
      )
      expect(await page.locator(".datasets-table").count()).toBe(0)
      // the class filter
      await page.fill("[data-testid=dataset-filter]", "")
      await page.click("button[data-class=special]")
      const special = list.datasets.filter((d) => d.highest === "special").map((d) => d.id).sort()
      expect(special.length).toBeGreaterThan(0)
      await expect.poll(() =>
        page.locator(".datasets-table tbody tr").evaluateAll((rows) =>
          rows.map((r) => r.getAttribute("data-dataset")).sort()
        )
      ).toEqual(special)
    })
    await page.click("button[data-class=all], button[data-class='']")
    await page.fill("[data-testid=dataset-filter]", "email")
    await expect.poll(() => page.locator(".hits-list .hit").count()).toBeGreaterThan(1)
    await shot(page, "datasets-search")
    expect(problems).toEqual([])
    await page.close()
  })

  it("dataset page: columns with flags, rule and confidence; the human override marked with who and drift", async () => {
    const { page, problems } = await watchedPage(browser)
    const id = "shop/main/patients"
    const d = await apiGet<Dataset>(served!.url, `/datasets/${encodeURIComponent(id)}`)
    await timed("dataset page", () => visit(page, served!.url, `dataset/${encodeURIComponent(id)}`, "patients"))
    const rows = page.locator(".columns-table tbody tr[data-column]")
    expect(await rows.count()).toBe(d.columns.length)
    for (const c of d.columns) {
      const row = page.locator(`.columns-table tbody tr[data-column="${c.id}"]`)
      expect(await row.locator("th.colname").textContent()).toContain(c.name)
      expect(await row.locator(".flag .badge").getAttribute("class")).toContain(`cls-${c.classification.value}`)
      expect(await row.locator(".rule code").first().textContent()).toBe(c.classification.rule)
      expect(await row.locator(".conf-num").textContent()).toBe(`${Math.round(c.classification.confidence * 100)}%`)
    }
    expect(d.columns.filter((c) => c.classification.value === "special").length).toBeGreaterThan(1)
    const over = page.locator(".columns-table tbody tr[data-column=\"shop/main/patients/admitted_at\"]")
    expect(await over.locator(".override").textContent()).toMatch(/Human override.*by dpo@example\.com/)
    expect(await over.locator(".drift").textContent()).toContain("Drift")
    // the correction is a CLI command to copy, never a button that writes
    const fix = page.locator("tr.expand-row[data-for=\"shop/main/patients/admitted_at\"]")
    expect(await fix.isVisible()).toBe(false)
    await over.locator("button.linkish").click()
    expect(await fix.isVisible()).toBe(true)
    expect(await fix.locator(".cmd code").allTextContents()).toEqual([
      "catalog classify set shop/main/patients/admitted_at personal",
      "catalog classify set shop/main/patients/admitted_at criminal",
      "catalog classify set shop/main/patients/admitted_at not",
      "catalog classify clear shop/main/patients/admitted_at"
    ])
    expect(await page.locator(".ds-head").textContent()).toContain(id)
    expect(await page.locator("svg.graph [data-node]").count()).toBe(2)
    await shot(page, "dataset")
    expect(problems).toEqual([])
    await page.close()
  })

  it("lineage: an SVG graph with nodes and edges; a node opens its dataset", async () => {
    const { page, problems } = await watchedPage(browser)
    const lin = await apiGet<LineageList>(served!.url, "/lineage")
    expect(lin.edges.length).toBeGreaterThanOrEqual(4)
    await timed("lineage", () => visit(page, served!.url, "lineage", "Lineage"))
    const svg = page.locator("svg.graph")
    expect(await svg.count()).toBe(1)
    const ids = new Set(lin.edges.flatMap((e) => [e.from, e.to]))
    expect(await svg.locator("[data-node]").count()).toBe(ids.size)
    expect(await svg.locator("g.edge").count()).toBe(lin.edges.length)
    expect(
      await svg.locator("g.edge path.edge-line").evaluateAll((ps) =>
        ps.every((x) => (x.getAttribute("d") ?? "").startsWith("M"))
      )
    ).toBe(true)
    // sources left of targets
    const xOf = async (id: string) =>
      Number((await svg.locator(`[data-node="${id}"]`).getAttribute("transform"))!.match(/translate\(([\d.]+)/)![1])
    expect(await xOf("shop/main/customers")).toBeLessThan(await xOf("shop/main/customer_orders"))
    expect(await xOf("shop/main/customer_orders")).toBeLessThan(await xOf("shop/main/vip_summary"))
    // nodes are coloured by their highest class
    expect(await svg.locator("[data-node=\"shop/main/patients\"]").getAttribute("class")).toContain("cls-special")
    await svg.locator("[data-node=\"shop/main/customers\"]").hover()
    await shot(page, "lineage")
    await svg.locator("[data-node=\"shop/main/customer_orders\"]").click()
    await expect.poll(() => page.locator("main h1").textContent()).toBe("customer_orders")
    expect(page.url()).toContain(`#/dataset/${encodeURIComponent("shop/main/customer_orders")}`)
    expect(problems).toEqual([])
    await page.close()
  })

  it("untrusted dataset and column names are shown as text, never run as markup", async () => {
    const { page, problems } = await watchedPage(browser)
    const id = "shop/main/notes<b>x<%2Fb>"
    const d = await apiGet<Dataset>(served!.url, `/datasets/${encodeURIComponent(id)}`)
    expect(d.name).toBe("notes<b>x</b>")
    await visit(page, served!.url, `dataset/${encodeURIComponent(id)}`, "notes<b>x</b>")
    expect(await page.locator("main b").count()).toBe(0)
    expect(await page.locator("main img").count()).toBe(0)
    expect(await page.locator(".columns-table th.colname").allTextContents()).toContain(
      "<img src=x onerror=window.__xss=1>"
    )
    await page.locator("tr[data-column$=\"customer's email\"] button.linkish").click()
    expect(await page.locator("tr.expand-row:not([hidden]) .cmd code").allTextContents()).toContain(
      `catalog classify set 'shop/main/notes<b>x<%2Fb>/customer'\\''s email' not`
    )
    await visit(page, served!.url, "lineage", "Lineage")
    expect(await page.locator("svg.graph text.node-name").allTextContents()).toContain("notes<b>x</b>")
    for (const route of ["datasets", "changes?since=0", "overview"]) await visit(page, served!.url, route, /./)
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined()
    expect(problems).toEqual([])
    await page.close()
  })

  it("Agents (MCP): seven tools when DORA is out of scope, the registration block and command with absolute paths", async () => {
    const { page, problems } = await watchedPage(browser)
    await timed("agents", () => visit(page, served!.url, "agents", "Agents (MCP)"))
    const names = await page.locator("[data-testid=mcp-tools] > li .tool-name").allTextContents()
    expect(names).toEqual(listedTools(false).map((t) => t.name))
    expect(names).toHaveLength(7)
    expect(names).not.toContain("get_dora")
    const dataDir = path.join(fs.realpathSync(p.dir), ".catalog")
    const block = JSON.parse((await page.locator("[data-testid=registration-block] pre").textContent())!) as {
      mcpServers: { catalog: { command: string; args: Array<string>; env: Record<string, string> } }
    }
    // From a clone the block starts this very build: the running Node and the absolute entry file.
    expect(block.mcpServers.catalog.command).toBe(process.execPath)
    expect(block.mcpServers.catalog.args).toEqual([fs.realpathSync(binPath), "mcp"])
    expect(block.mcpServers.catalog.env["CATALOG_DATA"]).toBe(dataDir)
    expect(block.mcpServers.catalog.env["CATALOG_CONFIG"]).toBe(path.join(fs.realpathSync(p.dir), "catalog.yml"))
    const cmd = (await page.locator("[data-testid=registration-command] code").textContent())!
    expect(cmd).toMatch(
      new RegExp(`^claude mcp add catalog --env CATALOG_DATA=${dataDir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `)
    )
    expect(cmd).toContain(` -- ${process.execPath} ${fs.realpathSync(binPath)} mcp`)
    await shot(page, "agents")
    expect(problems).toEqual([])
    await page.close()
  })

  it("RoPA, DORA, provenance, changes and glossary screens render from the API", async () => {
    const { page, problems } = await watchedPage(browser)
    await timed("other screens", async () => {
      await visit(page, served!.url, "ropa", /RoPA/)
      expect(await page.locator(".stamp").textContent()).toContain("DRAFT, not an official record")
      expect(await page.locator(".act .cmd code").allTextContents()).toContain("catalog annotate list")
      await shot(page, "ropa")

      await visit(page, served!.url, "provenance", "Provenance")
      expect(await page.locator(".stamp").textContent()).toContain("DRAFT, not an official record")
      expect(await page.locator(".table-wrap").first().textContent()).toContain("shop")
      expect(await page.locator(".bars li").count()).toBeGreaterThan(1)
      await shot(page, "provenance")

      await visit(page, served!.url, "changes?since=0", "Changes")
      expect(await page.locator(".changes .change").count()).toBeGreaterThan(3)
      expect(await page.locator(".changes").textContent()).toContain("dpo@example.com")
      await shot(page, "changes")

      await visit(page, served!.url, "dora", "DORA register")
      expect(await page.locator("main").textContent()).toContain("inScope: false")
      await visit(page, served!.url, "glossary", "Glossary")
      await visit(page, served!.url, "no-such-screen", "Not found")
    })
    expect(problems).toEqual([])
    await page.close()
  })

  it("with DORA in scope: eight tools on the Agents screen and the DORA draft", async () => {
    const { page, problems } = await watchedPage(browser)
    await visit(page, servedDora!.url, "agents", "Agents (MCP)")
    const names = await page.locator("[data-testid=mcp-tools] > li .tool-name").allTextContents()
    expect(names).toEqual(listedTools(true).map((t) => t.name))
    expect(names).toHaveLength(8)
    expect(names).toContain("get_dora")
    await shot(page, "agents-dora")
    await visit(page, servedDora!.url, "dora", "DORA register")
    expect(await page.locator(".stamp").textContent()).toContain("DRAFT, not an official record")
    expect(await page.locator("main").textContent()).toContain("5299000J2N45DDNE4Y28")
    await shot(page, "dora")
    await visit(page, servedDora!.url, "ropa", /RoPA/)
    expect(await page.locator("main").textContent()).toContain("Example Bank AG")
    expect(problems).toEqual([])
    await page.close()
  })

  it("wide screens: the dataset and column tables use the width, no cell is clipped; at 1,280 px nothing overflows the page", async () => {
    const wideId = `shop/main/${wideTable.name}`
    const screens = [
      { route: "datasets", title: "Datasets", table: ".datasets-table" },
      { route: `dataset/${encodeURIComponent(wideId)}`, title: wideTable.name, table: ".columns-table" }
    ] as const
    for (const width of [1280, 1920, 2560]) {
      const { page, problems } = await watchedPage(browser, { width, height: 1000 })
      for (const screen of screens) {
        await visit(page, served!.url, screen.route, screen.title)
        const layout = await tableLayout(page, screen.table)
        const where = `${screen.table} at ${width} px`
        expect(layout.tables, where).toHaveLength(1)
        const t = layout.tables[0]!
        // nothing pushes the page sideways, and the table's container lies inside the viewport
        expect(layout.pageWidth, where).toBeLessThanOrEqual(layout.viewport)
        expect(t.left, where).toBeGreaterThanOrEqual(0)
        expect(t.right, where).toBeLessThanOrEqual(layout.viewport)
        // no cell's content spills out of its cell
        expect(t.clippedCells, where).toEqual([])
        // the whole table is visible, or its own container scrolls to every part of it
        if (t.width > t.shown + 1) {
          expect(["auto", "scroll"], where).toContain(t.overflowX)
          expect(t.scrollable, where).toBeGreaterThanOrEqual(Math.floor(t.width))
        }
        if (width >= 1920) {
          // the content needs more than 1,400 px, and the table is given the screen's width, not a 1,280 px column
          expect(t.width, where).toBeGreaterThan(1400)
          expect(t.shown, where).toBeGreaterThan(1400)
          expect(t.shown, where).toBeGreaterThan(width - 400)
        }
        if (width >= 2560) expect(t.width, `${where}: fits without scrolling`).toBeLessThanOrEqual(t.shown + 1)
        if (width === 1920) await shot(page, `wide-${screen.table.slice(1)}-1920`)
      }
      expect(problems).toEqual([])
      await page.close()
    }
  })

  it("narrow screens: the same screens work on a phone-sized viewport", async () => {
    const { page, problems } = await watchedPage(browser, { width: 390, height: 844 })
    await visit(page, served!.url, "overview", "Overview")
    expect(await page.locator("#sidebar").isVisible()).toBe(false)
    await page.click("#nav-toggle")
    expect(await page.locator("#sidebar").isVisible()).toBe(true)
    await page.click("#sidebar a[data-route=\"lineage\"]")
    await expect.poll(() => page.locator("main h1").textContent()).toBe("Lineage")
    await visit(page, served!.url, "overview", "Overview")
    await shot(page, "overview-narrow")
    await visit(page, served!.url, `dataset/${encodeURIComponent("shop/main/customers")}`, "customers")
    await shot(page, "dataset-narrow")
    const scrollW = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(scrollW).toBeLessThanOrEqual(390)
    expect(problems).toEqual([])
    await page.close()
  })
})
