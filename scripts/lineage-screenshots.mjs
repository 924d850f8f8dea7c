// Compares the portal's lineage layout (src/programs/http/portal/client/layout.ts, hand-written) with
// @dagrejs/dagre's layered layout (scripts/lineage-layout-dagre.mjs, with its two rankers) on real catalogs:
//
//   npm install --no-save @dagrejs/dagre@3.1.3   # the candidate is not a dependency of the project
//   npm run build --silent && npx node scripts/lineage-screenshots.mjs [--out docs/images/lineage]
//
// Builds three catalogs with the built CLI (small: SQLite views; medium: the jaffle-shop dbt manifest
// on a SQLite warehouse; large: Fivetran's HubSpot dbt package), serves each with `catalog open`, and
// in headless Chromium opens the lineage view once per layout, the page's script bundled with that
// layout (the request for /assets/app.js is answered with that bundle). Saves one PNG per graph and
// layout, and prints readability numbers computed from the laid-out coordinates (the same nodes and
// edges the page draws) as JSON and as a Markdown table.
import { build } from "esbuild"
/* global document, fetch, window */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { pathToFileURL } from "node:url"
import { chromium } from "playwright-core"

const repoRoot = path.resolve(import.meta.dirname, "..")
const bin = path.join(repoRoot, "dist", "bin.js")
const clientDir = path.join(repoRoot, "src", "programs", "http", "portal", "client")
const fixtures = path.join(repoRoot, "test", "fixtures", "dbt")
const outArg = process.argv.indexOf("--out")
const outDir = path.resolve(repoRoot, outArg > 0 ? process.argv[outArg + 1] : "docs/images/lineage")
const chromiumArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

try {
  import.meta.resolve("@dagrejs/dagre")
} catch {
  console.error("@dagrejs/dagre is not installed: npm install --no-save @dagrejs/dagre@3.1.3")
  process.exit(1)
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "ldc-lineage-shots-"))

// ---- the layouts: as browser bundles of the page, and as modules for the numbers ----

/** A layout module for the client: dagre with the given ranker, the rest of the client's layout.ts. */
const dagreModule = (ranker) => {
  const file = path.join(work, `dagre-${ranker}.mjs`)
  fs.writeFileSync(
    file,
    [
      `import { dagreLayered } from ${JSON.stringify(path.join(repoRoot, "scripts", "lineage-layout-dagre.mjs"))}`,
      `export { defaultLayoutOptions, edgePath } from ${JSON.stringify(path.join(clientDir, "layout.ts"))}`,
      `export const layeredLayout = dagreLayered(${JSON.stringify(ranker)})`
    ].join("\n")
  )
  return file
}
/** esbuild plugin: the client's `./layout.js` is the given file. */
const layoutFrom = (file) => ({
  name: "layout-from",
  setup(b) {
    b.onResolve({ filter: /^\.\/layout\.js$/ }, () => ({ path: file }))
  }
})
const variants = [
  { key: "hand", title: "hand-written (shipped)", file: path.join(clientDir, "layout.ts") },
  { key: "dagre", title: "dagre, network-simplex ranks", file: dagreModule("network-simplex") },
  { key: "dagre-lp", title: "dagre, longest-path ranks", file: dagreModule("longest-path") }
]
for (const v of variants) {
  const page = await build({
    entryPoints: [path.join(clientDir, "main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    charset: "utf8",
    legalComments: "none",
    logLevel: "silent",
    plugins: [layoutFrom(v.file)]
  })
  v.js = page.outputFiles[0].text
  const mod = path.join(work, `layout-${v.key}.mjs`)
  await build({
    entryPoints: [v.file],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile: mod,
    logLevel: "silent"
  })
  v.layout = await import(pathToFileURL(mod).href)
}

// ---- the catalogs, built with the CLI ----

const cli = (cwd, env, ...args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`catalog ${args.join(" ")}: ${r.stdout}${r.stderr}`)
}

const sqliteProject = (name, sql) => {
  const dir = path.join(work, name)
  fs.mkdirSync(dir)
  const env = { WH_DB: path.join(dir, "wh.db"), USER: "screenshots" }
  const db = new DatabaseSync(env.WH_DB)
  db.exec(sql)
  db.close()
  cli(dir, env, "add", "sqlite", "--ref", "WH_DB", "--id", "wh", "--json")
  return { dir, env }
}

const withDbt = (project, manifest) => {
  const dest = path.join(project.dir, "dbt", "manifest.json")
  fs.mkdirSync(path.dirname(dest))
  fs.copyFileSync(manifest, dest)
  cli(project.dir, project.env, "add", "dbt", "--from", "dbt/manifest.json", "--target", "wh", "--yes", "--json")
  return project
}

const graphs = [
  {
    key: "small",
    title: "SQLite views (the portal test's shop)",
    project: () =>
      sqliteProject(
        "small",
        `
      CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT, phone_number TEXT, birth_date DATE);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total_cents INTEGER, shipping_address TEXT);
      CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT, diagnosis TEXT, blood_type TEXT, religion TEXT);
      CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, price_cents INTEGER);
      CREATE VIEW customer_orders AS SELECT c.id, c.email, o.total_cents FROM customers c JOIN orders o ON o.customer_id = c.id;
      CREATE VIEW patient_report AS SELECT p.full_name, p.diagnosis FROM patients p;
      CREATE VIEW vip_summary AS SELECT co.email, sum(co.total_cents) AS total FROM customer_orders co GROUP BY co.email;
      CREATE VIEW order_products AS SELECT o.id, p.name FROM orders o JOIN products p ON p.id = o.id;
      CREATE VIEW vip_products AS SELECT v.email, op.name FROM vip_summary v JOIN order_products op ON 1 = 1;
    `
      )
  },
  {
    key: "medium",
    title: "jaffle-shop dbt manifest on a SQLite warehouse (as in test/e2e/lineage.test.ts)",
    project: () =>
      withDbt(
        sqliteProject(
          "medium",
          `
      CREATE TABLE stg_customers (customer_id TEXT PRIMARY KEY, customer_name TEXT);
      CREATE TABLE stg_orders (order_id TEXT PRIMARY KEY, location_id TEXT, customer_id TEXT, order_total REAL, ordered_at TEXT);
      CREATE TABLE stg_order_items (order_item_id TEXT PRIMARY KEY, order_id TEXT, product_id TEXT);
      CREATE TABLE stg_products (product_id TEXT PRIMARY KEY, product_name TEXT, product_price REAL);
      CREATE TABLE stg_supplies (supply_uuid TEXT PRIMARY KEY, supply_id TEXT, product_id TEXT, supply_cost REAL);
      CREATE TABLE stg_locations (location_id TEXT PRIMARY KEY, location_name TEXT, tax_rate REAL);
      CREATE TABLE customers (customer_id TEXT PRIMARY KEY, customer_name TEXT, email TEXT, count_lifetime_orders INTEGER);
      CREATE TABLE orders (order_id TEXT PRIMARY KEY, customer_id TEXT REFERENCES customers(customer_id), order_total REAL);
      CREATE TABLE order_items (order_item_id TEXT PRIMARY KEY, order_id TEXT REFERENCES orders(order_id), product_id TEXT);
      CREATE TABLE products (product_id TEXT PRIMARY KEY, product_name TEXT, product_price REAL);
      CREATE TABLE supplies (supply_uuid TEXT PRIMARY KEY, supply_id TEXT, supply_cost REAL);
      CREATE TABLE locations (location_id TEXT PRIMARY KEY, location_name TEXT);
      CREATE TABLE metricflow_time_spine (date_day DATE);
      CREATE VIEW big_orders AS SELECT o.order_id, c.customer_name FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_total > 100;
    `
        ),
        path.join(fixtures, "jaffle-shop-duckdb-1.11", "manifest.json")
      )
  },
  {
    key: "large",
    title: "Fivetran's HubSpot dbt package (endpoints not in the warehouse are drawn as not scanned)",
    project: () =>
      withDbt(
        sqliteProject("large", "CREATE TABLE placeholder (id INTEGER PRIMARY KEY);"),
        path.join(fixtures, "fivetran-hubspot-postgres-1.11", "manifest.json")
      )
  }
]

/** `catalog open --port 0 --json`, resolved with its URL. */
const open = (project) =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [bin, "open", "--port", "0", "--json"], {
      cwd: project.dir,
      env: { ...process.env, ...project.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    proc.stdout.on("data", (b) => {
      out += b.toString()
      const line = out.split("\n").find((l) => l.trim().startsWith("{") && l.includes("\"url\""))
      if (line) resolve({ url: JSON.parse(line).url, proc })
    })
    proc.once("exit", (code) => reject(new Error(`catalog open exited with ${code}: ${out}`)))
  })

// ---- readability numbers from the laid-out coordinates ----

/** An edge as drawn (edgePath: cubic segments with horizontal tangents), sampled into a polyline. */
const polyline = (points, steps = 16) => {
  const out = [points[0]]
  for (let k = 1; k < points.length; k++) {
    const a = points[k - 1]
    const b = points[k]
    const dx = (b.x - a.x) / 2
    const c1 = { x: a.x + dx, y: a.y }
    const c2 = { x: b.x - dx, y: b.y }
    for (let i = 1; i <= steps; i++) {
      const t = i / steps
      const u = 1 - t
      out.push({
        x: u * u * u * a.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * b.x,
        y: u * u * u * a.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * b.y
      })
    }
  }
  return out
}
const orient = (p, q, r) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x))
/** Where two segments properly cross (each strictly between the other's ends), else null. */
const crossing = (a, b, c, d) => {
  if (orient(a, b, c) * orient(a, b, d) >= 0 || orient(c, d, a) * orient(c, d, b) >= 0) return null
  const t = ((c.x - a.x) * (d.y - c.y) - (c.y - a.y) * (d.x - c.x)) /
    ((b.x - a.x) * (d.y - c.y) - (b.y - a.y) * (d.x - c.x))
  return { x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) }
}
const near = (p, q, r) => Math.hypot(p.x - q.x, p.y - q.y) <= r

const measure = (layout, opts) => {
  const { nodeWidth: w, nodeHeight: h } = opts
  const lines = layout.edges.map((e) => ({ e, pts: polyline(e.points) }))
  let crossings = 0
  for (let i = 0; i < lines.length; i++) {
    for (let j = i + 1; j < lines.length; j++) {
      const A = lines[i]
      const B = lines[j]
      const ends = [A.pts[0], A.pts[A.pts.length - 1], B.pts[0], B.pts[B.pts.length - 1]]
      for (let s = 1; s < A.pts.length; s++) {
        for (let t = 1; t < B.pts.length; t++) {
          const x = crossing(A.pts[s - 1], A.pts[s], B.pts[t - 1], B.pts[t])
          // Edges that share a box leave or enter it at one point: meeting there is not a crossing.
          if (x && !ends.some((p) => near(p, x, 3))) crossings++
        }
      }
    }
  }
  let nodeOverlaps = 0
  for (let i = 0; i < layout.nodes.length; i++) {
    for (let j = i + 1; j < layout.nodes.length; j++) {
      const a = layout.nodes[i]
      const b = layout.nodes[j]
      if (a.x < b.x + w && b.x < a.x + w && a.y < b.y + h && b.y < a.y + h) nodeOverlaps++
    }
  }
  // An edge drawn over a box it does not touch hides that box's labels.
  let edgesOverBoxes = 0
  for (const { e, pts } of lines) {
    for (const n of layout.nodes) {
      if (n.id === e.from || n.id === e.to) continue
      if (pts.some((p) => p.x > n.x + 1 && p.x < n.x + w - 1 && p.y > n.y + 1 && p.y < n.y + h - 1)) edgesOverBoxes++
    }
  }
  const edgeLength = lines.reduce(
    (acc, { pts }) => acc + pts.slice(1).reduce((l, p, k) => l + Math.hypot(p.x - pts[k].x, p.y - pts[k].y), 0),
    0
  )
  return {
    nodes: layout.nodes.length,
    edges: layout.edges.length,
    layers: layout.layers,
    crossings,
    nodeOverlaps,
    edgesOverBoxes,
    width: Math.round(layout.width),
    height: Math.round(layout.height),
    area: Math.round(layout.width * layout.height),
    edgeLength: Math.round(edgeLength)
  }
}

// ---- run ----

fs.mkdirSync(outDir, { recursive: true })
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: chromiumArgs })
const results = []
try {
  for (const graph of graphs) {
    const project = graph.project()
    cli(project.dir, project.env, "start", "--json")
    const served = await open(project)
    try {
      const lin = await (await fetch(new URL("api/v1/lineage", served.url))).json()
      const ids = [...new Set(lin.edges.flatMap((e) => [e.from, e.to]))]
      const measured = variants.map((v) => {
        const opts = v.layout.defaultLayoutOptions
        return { v, layout: v.layout.layeredLayout({ nodes: ids, edges: lin.edges }, opts), opts }
      })
      // One scale for both pictures of a graph, so that their sizes compare.
      const scale = Math.min(
        1,
        1000 / Math.max(...measured.map((m) => m.layout.width)),
        1600 / Math.max(...measured.map((m) => m.layout.height))
      )
      for (const { v, layout, opts } of measured) {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
        await page.route(
          "**/assets/app.js",
          (route) => route.fulfill({ status: 200, contentType: "text/javascript; charset=utf-8", body: v.js })
        )
        await page.goto(`${served.url}#/lineage`)
        await page.locator("svg.graph").waitFor()
        await page.waitForTimeout(200)
        await page.evaluate((k) => {
          const svg = document.querySelector("svg.graph")
          svg.setAttribute("width", String(Number(svg.dataset.width) * k))
          svg.setAttribute("height", String(Number(svg.dataset.height) * k))
          const wrap = svg.parentElement
          wrap.style.maxHeight = "none"
          wrap.style.overflow = "visible"
        }, scale)
        const file = path.join(outDir, `${graph.key}-${v.key}.png`)
        // The whole picture, from the full page (the sticky top bar stays at the top of the page).
        const box = await page.locator("svg.graph").evaluate((svg) => {
          const r = svg.getBoundingClientRect()
          return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height }
        })
        await page.screenshot({ path: file, fullPage: true, clip: box })
        await page.close()
        results.push({
          graph: graph.key,
          layout: v.key,
          scale,
          ...measure(layout, opts),
          png: path.relative(repoRoot, file)
        })
      }
    } finally {
      served.proc.kill("SIGTERM")
    }
  }
} finally {
  await browser.close()
  fs.rmSync(work, { recursive: true, force: true })
}

console.log(JSON.stringify(results, null, 2))
const cols = ["crossings", "nodeOverlaps", "edgesOverBoxes", "width", "height", "edgeLength"]
console.log(`\n| graph | layout | nodes | edges | ${cols.join(" | ")} |`)
console.log(`|---|---|---|---|${cols.map(() => "---").join("|")}|`)
for (const r of results) {
  const title = variants.find((v) => v.key === r.layout).title
  console.log(`| ${r.graph} | ${title} | ${r.nodes} | ${r.edges} | ${cols.map((c) => r[c]).join(" | ")} |`)
}
