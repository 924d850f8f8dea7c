// Read-surface benchmark: the HTTP read API of `catalog open` and the MCP stdio server of
// `catalog mcp`, on a catalog of 10,000 tables × 20 columns (+ 200 views) scanned from SQLite.
//
//   npx node scripts/bench/read.mjs [--tables 10000] [--columns 20] [--search-requests 300]
//                                   [--duration 10] [--connections 20] [--rounds 2] [--mcp-calls 300]
//                                   [--profile | --no-profile] [--keep]
//
// Steps: (1) a SQLite file with the tables (names and types from scan.mjs's pool) and views is
// written with node:sqlite and scanned once by `catalog start --json`; `status --json` must count
// them all. (2) `catalog open --port 0 --json`: (a) sequential `GET /api/v1/search?q=…&limit=20`
// over one keep-alive connection, a fixed set of realistic queries in rotation, after a warm-up;
// (b) autocannon on `GET /api/v1/datasets/<id>` (ids rotated over every dataset), interleaved
// round by round with the same load against a bare `node:http` server answering a fixed small JSON
// (the floor of Node + the load tool on this machine). (3) `catalog mcp` spoken to directly over
// stdio (newline-delimited JSON-RPC): `tools/call get_dataset` and `search_datasets` round trips,
// sequential, after a warm-up, next to JSON-RPC `ping` (the transport floor). (4) a table with the
// targets and scripts/bench/results/read-<date>.json. When a target is missed (or with --profile),
// the server side of the missed load runs again under `node --cpu-prof`, mapped back to src/.
// Every process started here is stopped and the temp folder removed at the end, on failure and on
// Ctrl-C (--keep keeps the folder, for a look at the catalog).
import { Buffer } from "node:buffer"
import { spawn, spawnSync } from "node:child_process"
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import http from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { clearTimeout } from "node:timers"
import { pathToFileURL } from "node:url"
import {
  cleanEnv,
  cliPath as repoCliPath,
  loadAvg,
  machine,
  median,
  newestProfile,
  parseJson,
  percentile,
  printProfile,
  repoRoot,
  resultsDir,
  round,
  snapshotCli,
  summariseProfile,
  textTable,
  timedOk,
  writeResults
} from "./lib.mjs"
import { columnPool, nouns, prng } from "./scan.mjs"

export const TARGETS = { searchP50Ms: 15, searchP99Ms: 50, datasetRps: 2000, mcpGetP50Ms: 10 }

/** The search queries, in rotation: single words and two-word phrases people type. */
export const searchQueries = [
  "email",
  "customer",
  "first name",
  "birth",
  "iban",
  "status",
  "amount",
  "notes",
  "phone",
  "address",
  "order",
  "customer email",
  "date of birth",
  "invoice",
  "payment",
  "health",
  "salary",
  "passport",
  "postal code",
  "ip address",
  "created",
  "employees",
  "religion",
  "shipments",
  "last login",
  "tax",
  "criminal record",
  "device",
  "bank account",
  "gender"
]

const parseArgs = (argv) => {
  const o = {
    tables: 10000,
    columns: 20,
    searchRequests: 300,
    duration: 10,
    connections: 20,
    rounds: 2,
    mcpCalls: 300,
    profile: "auto",
    keep: false
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const num = () => {
      const v = Number(argv[++i])
      if (!Number.isFinite(v)) throw new Error(`${a} needs a number`)
      return v
    }
    if (a === "--tables") o.tables = num()
    else if (a === "--columns") o.columns = num()
    else if (a === "--search-requests") o.searchRequests = num()
    else if (a === "--duration") o.duration = num()
    else if (a === "--connections") o.connections = num()
    else if (a === "--rounds") o.rounds = num()
    else if (a === "--mcp-calls") o.mcpCalls = num()
    else if (a === "--profile") o.profile = "always"
    else if (a === "--no-profile") o.profile = "never"
    else if (a === "--keep") o.keep = true
    else throw new Error(`unknown option ${a}`)
  }
  if (
    !(o.tables >= 1) || !(o.columns >= 5) || !(o.searchRequests >= 10) || !(o.duration >= 1) || !(o.connections >= 1) ||
    !(o.rounds >= 1) || !(o.mcpCalls >= 10)
  ) {
    throw new Error("invalid --tables/--columns/--search-requests/--duration/--connections/--rounds/--mcp-calls")
  }
  return o
}

const started = performance.now()
/** Progress on stderr, with the seconds since the benchmark started. */
const log = (s = "") =>
  process.stderr.write(`[${(round((performance.now() - started) / 1000, 1)).toFixed(1).padStart(5)} s] ${s}\n`)
const stats = (xs) => ({
  n: xs.length,
  p50Ms: round(percentile(xs, 50), 2),
  p90Ms: round(percentile(xs, 90), 2),
  p99Ms: round(percentile(xs, 99), 2),
  maxMs: round(Math.max(...xs), 2),
  meanMs: round(xs.reduce((a, b) => a + b, 0) / xs.length, 2)
})
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// ── the catalog ────────────────────────────────────────────────────────────────────────────
const pad = (i) => String(i).padStart(5, "0")
// SQLite takes any type name, but `text[]` would read as a bracket-quoted name.
const sqliteType = (t) => (t.endsWith("[]") ? "text" : t)

/**
 * A SQLite file with `tables` tables × `columns` columns (same names, types and seed as scan.mjs's
 * PostgreSQL dataset; SQLite has no schemas and no comments) and one 5-column view per 50 tables.
 */
export const buildSqliteDataset = async (file, { tables, columns }) => {
  const emitWarning = process.emitWarning
  process.emitWarning = (
    w,
    ...rest
  ) => (/SQLite is an experimental feature/i.test(String(w?.message ?? w))
    ? undefined
    : emitWarning.call(process, w, ...rest))
  const { DatabaseSync } = await import("node:sqlite")
  process.emitWarning = emitWarning
  const rand = prng(42)
  const db = new DatabaseSync(file)
  let views = 0
  let viewColumns = 0
  try {
    db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")
    const names = []
    for (let i = 1; i <= tables; i++) {
      const noun = nouns[(i - 1) % nouns.length]
      const name = `t${pad(i)}_${noun}`
      names.push(name)
      const cols = [["id", "integer", true, "PRIMARY KEY"], [
        "created_at",
        "timestamptz",
        true,
        "DEFAULT CURRENT_TIMESTAMP"
      ], ["updated_at", "timestamptz", false, ""]]
      if (i % 10 === 0) cols.push(["parent_ref_id", "bigint", false, `REFERENCES ${names[i - 2]}(id)`])
      const pool = columnPool.slice()
      while (cols.length < columns) {
        const [col] = pool.splice(Math.floor(rand() * pool.length), 1)
        cols.push([col[0], sqliteType(col[1]), col[2], ""])
      }
      const defs = cols.slice(0, columns).map(([c, t, nn, extra]) =>
        `  ${c} ${t}${nn && !extra.includes("PRIMARY") ? " NOT NULL" : ""}${extra ? ` ${extra}` : ""}`
      )
      db.exec(`CREATE TABLE ${name} (\n${defs.join(",\n")}\n)`)
      if (i % 50 === 0) {
        const picked = cols.slice(0, 5).map(([c]) => c)
        db.exec(
          `CREATE VIEW v${pad(i)}_${noun}_overview AS SELECT ${
            picked.join(", ")
          } FROM ${name} WHERE updated_at IS NOT NULL`
        )
        views++
        viewColumns += picked.length
      }
    }
    db.exec("COMMIT")
  } finally {
    db.close()
  }
  return { tables, views, datasets: tables + views, columns: tables * columns + viewColumns, columnsPerTable: columns }
}

// ── processes ──────────────────────────────────────────────────────────────────────────────
/** Every child process started here, so that all of them are stopped whatever happens. */
const children = new Set()

const startChild = (command, args, opts) => {
  const child = spawn(command, args, { ...opts, stdio: ["pipe", "pipe", "pipe"] })
  const entry = { child, stderr: "", exited: null }
  entry.exitedPromise = new Promise((resolve) =>
    child.once("exit", (code, signal) => {
      entry.exited = { code, signal }
      children.delete(entry)
      resolve(entry.exited)
    })
  )
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (d) => {
    entry.stderr = (entry.stderr + d).slice(-20000)
  })
  child.on("error", (e) => {
    entry.stderr += `\nspawn error: ${e.message}`
  })
  children.add(entry)
  return entry
}

/** Stops one child: SIGINT (the CLI's clean stop, which also writes a --cpu-prof profile), then SIGKILL after `graceMs`. */
const stopChild = async (entry, { signal = "SIGINT", graceMs = 5000 } = {}) => {
  if (entry.exited !== null) return entry.exited
  entry.child.kill(signal)
  const done = await Promise.race([entry.exitedPromise, sleep(graceMs).then(() => null)])
  if (done !== null) return done
  entry.child.kill("SIGKILL")
  return entry.exitedPromise
}

/** Synchronous last resort (signal handlers, exit): SIGKILL whatever is still running. */
const killAllNow = () => {
  for (const e of children) {
    try {
      e.child.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
}

/** Resolves with the first line the child prints on stdout (its JSON announcement). */
const firstLine = (entry, what, timeoutMs = 120000) =>
  new Promise((resolve, reject) => {
    let buf = ""
    let settled = false
    const finish = (f) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      entry.child.stdout.off("data", onData)
      f()
    }
    const onData = (d) => {
      buf += d
      const nl = buf.indexOf("\n")
      if (nl >= 0) finish(() => resolve(buf.slice(0, nl)))
    }
    const timer = setTimeout(() =>
      finish(() =>
        reject(
          new Error(`${what} printed nothing within ${timeoutMs / 1000} s\n--- stderr\n${entry.stderr.slice(-4000)}`)
        )
      ), timeoutMs)
    entry.child.stdout.setEncoding("utf8")
    entry.child.stdout.on("data", onData)
    entry.exitedPromise.then((x) =>
      finish(() =>
        reject(
          new Error(
            `${what} exited (${x.code ?? x.signal}) before it was ready\n--- stderr\n${entry.stderr.slice(-4000)}`
          )
        )
      )
    )
  })

/** `catalog open --port 0 --json` in `dir`; resolves once it listens. */
const startOpen = async (cliPath, dir, env, nodeArgs = []) => {
  const entry = startChild(process.execPath, [...nodeArgs, cliPath, "open", "--port", "0", "--json"], { cwd: dir, env })
  const line = await firstLine(entry, "catalog open")
  const info = parseJson(line, "catalog open --json")
  return { entry, port: info.port, url: info.url, api: info.api }
}

/** The floor: a bare node:http server answering every request with the same small JSON. */
const baselineServerSource = `
const http = require("node:http")
const body = JSON.stringify({ id: "bench/main/t00001_customers", kind: "table", columns: 20, ok: true })
const server = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
})
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })))
process.on("SIGINT", () => server.close(() => process.exit(0)))
`
const startBaseline = async (env) => {
  const entry = startChild(process.execPath, ["-e", baselineServerSource], { env })
  const info = parseJson(await firstLine(entry, "the baseline server"), "the baseline server")
  return { entry, port: info.port }
}

// ── HTTP ───────────────────────────────────────────────────────────────────────────────────
/** One GET over `agent` (keep-alive); wall time from the call to the last body byte. */
const httpGet = (agent, port, path) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = http.get({ host: "127.0.0.1", port, path, agent, headers: { accept: "application/json" } }, (res) => {
      const chunks = []
      res.on("data", (c) => chunks.push(c))
      res.on("end", () => resolve({ ms: performance.now() - t0, status: res.statusCode, body: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
  })

const searchPath = (q) => `/api/v1/search?q=${encodeURIComponent(q)}&limit=20`

/** Sequential search requests over one keep-alive connection, queries in rotation. */
const searchLoad = async (port, n, warmup) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    for (let i = 0; i < warmup; i++) {
      const r = await httpGet(agent, port, searchPath(searchQueries[i % searchQueries.length]))
      if (r.status !== 200) {
        throw new Error(
          `search "${searchQueries[i % searchQueries.length]}" answered ${r.status}: ${r.body.toString().slice(0, 500)}`
        )
      }
    }
    const samples = []
    for (let i = 0; i < n; i++) {
      const q = searchQueries[i % searchQueries.length]
      const r = await httpGet(agent, port, searchPath(q))
      if (r.status !== 200) throw new Error(`search "${q}" answered ${r.status}: ${r.body.toString().slice(0, 500)}`)
      samples.push({ q, ms: r.ms, bytes: r.body.length, body: r.body })
    }
    return samples
  } finally {
    agent.destroy()
  }
}

/** Sequential GETs of a fixed path (the round-trip floor of node:http on this machine). */
const pingLoad = async (port, path, n, warmup) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    const ms = []
    for (let i = 0; i < warmup + n; i++) {
      const r = await httpGet(agent, port, path)
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status}`)
      if (i >= warmup) ms.push(r.ms)
    }
    return ms
  } finally {
    agent.destroy()
  }
}

const autocannon = createRequire(import.meta.url)("autocannon")

/** autocannon on `port`, each request taking the next path of `paths` (shared rotation over all connections). */
const cannon = (port, paths, { connections, duration }) =>
  new Promise((resolve, reject) => {
    let next = 0
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration,
      pipelining: 1,
      timeout: 10,
      headers: { accept: "application/json" },
      requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }]
    }, (err, res) => (err ? reject(err) : resolve(res)))
  })

const cannonSummary = (r) => ({
  requestsPerSec: round(r.requests.average, 0),
  requestsTotal: r.requests.total,
  durationS: round(r.duration, 2),
  latencyP50Ms: r.latency.p50,
  latencyP90Ms: r.latency.p90,
  latencyP99Ms: r.latency.p99,
  latencyMaxMs: r.latency.max,
  latencyMeanMs: round(r.latency.average, 2),
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
  bytesPerResponse: r.requests.total > 0 ? round(r.throughput.total / r.requests.total, 0) : null
})

// ── MCP ────────────────────────────────────────────────────────────────────────────────────
/** A minimal MCP client over a child's stdio: newline-delimited JSON-RPC, one request at a time. */
const mcpClient = (entry) => {
  let buf = ""
  const pending = new Map()
  let nextId = 1
  entry.child.stdout.setEncoding("utf8")
  entry.child.stdout.on("data", (d) => {
    const now = performance.now()
    buf += d
    let nl
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (line.trim() === "") continue
      let msg
      try {
        msg = JSON.parse(line)
      } catch {
        entry.stderr += `\n(non-JSON line on stdout) ${line.slice(0, 300)}`
        continue
      }
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined
      if (p) {
        pending.delete(msg.id)
        p.resolve({ ms: now - p.t0, msg, bytes: line.length })
      }
    }
  })
  entry.exitedPromise.then((x) => {
    for (const p of pending.values()) {
      p.reject(new Error(`catalog mcp exited (${x.code ?? x.signal})\n--- stderr\n${entry.stderr.slice(-4000)}`))
    }
    pending.clear()
  })
  const send = (obj) => entry.child.stdin.write(JSON.stringify(obj) + "\n")
  return {
    request: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++
        const t0 = performance.now()
        pending.set(id, { resolve, reject, t0 })
        send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) })
      }),
    notify: (method, params) => send({ jsonrpc: "2.0", method, ...(params !== undefined ? { params } : {}) }),
    close: () => entry.child.stdin.end()
  }
}

const startMcp = async (cliPath, work, env, nodeArgs = []) => {
  const entry = startChild(process.execPath, [...nodeArgs, cliPath, "mcp"], { cwd: work, env })
  const client = mcpClient(entry)
  const init = await Promise.race([
    client.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "ldc-read-bench", version: "1" }
    }),
    sleep(120000).then(() => {
      throw new Error(`catalog mcp did not answer initialize within 120 s\n--- stderr\n${entry.stderr.slice(-4000)}`)
    })
  ])
  if (init.msg.error) throw new Error(`initialize failed: ${JSON.stringify(init.msg.error)}`)
  client.notify("notifications/initialized")
  return {
    entry,
    client,
    server: init.msg.result?.serverInfo ?? null,
    protocolVersion: init.msg.result?.protocolVersion ?? null
  }
}

const callTool = async (client, name, args) => {
  const r = await client.request("tools/call", { name, arguments: args })
  if (r.msg.error) {
    throw new Error(`tools/call ${name} ${JSON.stringify(args)}: JSON-RPC error ${JSON.stringify(r.msg.error)}`)
  }
  if (r.msg.result?.isError) {
    throw new Error(
      `tools/call ${name} ${JSON.stringify(args)} answered an error: ${JSON.stringify(r.msg.result).slice(0, 500)}`
    )
  }
  return r
}

/** get_dataset × n after a warm-up, ids in a stride over the whole list; search_datasets; ping. */
const mcpLoad = async (client, ids, { calls, searchCalls, pings }) => {
  const idAt = (i) => ids[(i * 7919) % ids.length]
  for (let i = 0; i < 30; i++) await callTool(client, "get_dataset", { id: idAt(ids.length - 1 - i) })
  const get = []
  let getBytes = 0
  for (let i = 0; i < calls; i++) {
    const r = await callTool(client, "get_dataset", { id: idAt(i) })
    get.push(r.ms)
    getBytes += r.bytes
  }
  for (let i = 0; i < 10; i++) {
    await callTool(client, "search_datasets", { q: searchQueries[i % searchQueries.length], limit: 20 })
  }
  const search = []
  for (let i = 0; i < searchCalls; i++) {
    search.push(
      (await callTool(client, "search_datasets", { q: searchQueries[i % searchQueries.length], limit: 20 })).ms
    )
  }
  const ping = []
  for (let i = 0; i < 10 + pings; i++) {
    const r = await client.request("ping")
    if (i >= 10) ping.push(r.ms)
  }
  return { get, getBytes: round(getBytes / calls, 0), search, ping }
}

// ── profile ────────────────────────────────────────────────────────────────────────────────
/** Phases of a read server's samples (innermost owning frame wins; null: keep walking up). */
const readPhase = (src, cf) => {
  const url = cf.url ?? ""
  if (url.startsWith("node:internal/modules/") || url.startsWith("node:internal/bootstrap/")) {
    return "module loading (start-up)"
  }
  if (/^node:(_http|http|net|internal\/(http|net|stream_base|streams|js_stream))/.test(url)) {
    return "Node http / net / streams"
  }
  if (src === null) return null
  if (/src\/services\/Store|src\/layers\/(store\/|NodeSqlite|Sql)/.test(src)) return "Store: SQLite index.db reads"
  if (/src\/services\/[Rr]eader/.test(src)) return "Reader (assembling answers)"
  if (/src\/programs\/http\//.test(src)) return "HTTP front + handlers (src/programs/http)"
  if (/src\/programs\/mcp\//.test(src)) return "MCP tools (src/programs/mcp)"
  if (/node_modules\/(zod|ajv|zod-to-json-schema)\//.test(src)) return "MCP SDK schema validation (zod / ajv)"
  if (/node_modules\/@modelcontextprotocol\//.test(src)) return "MCP SDK (JSON-RPC, stdio transport)"
  if (
    /node_modules\/(find-my-way[^/]*|@effect\/platform|@effect\/platform-node|@effect\/platform-node-shared)\//.test(
      src
    )
  ) return "HTTP stack (@effect/platform, router)"
  if (
    /node_modules\/effect\/dist\/[^/]+\/(Schema|ParseResult|SchemaAST|JSONSchema)\.js/.test(src) ||
    /node_modules\/effect\/src\/(Schema|ParseResult|SchemaAST)\.ts/.test(src)
  ) return "Effect Schema (decode / encode)"
  return null
}

/** Now on the clock of V8's profiles (CLOCK_MONOTONIC, µs): the same in every process of the machine. */
const monoUs = () => Number(process.hrtime.bigint() / 1000n)

/**
 * Keeps only the samples taken between `fromUs` and `toUs` (the load, without the server's start-up
 * and shut-down) and writes them to `out`; returns how many samples were kept.
 */
const trimProfile = (file, out, fromUs, toUs) => {
  const prof = JSON.parse(readFileSync(file, "utf8"))
  const samples = []
  const deltas = []
  let t = prof.startTime
  let last = fromUs
  prof.samples.forEach((id, i) => {
    t += prof.timeDeltas[i] ?? 0
    if (t < fromUs || t > toUs) return
    samples.push(id)
    deltas.push(t - last)
    last = t
  })
  writeFileSync(out, JSON.stringify({ ...prof, startTime: fromUs, endTime: toUs, samples, timeDeltas: deltas }))
  return samples.length
}

/** Runs `run(nodeArgs)` (which starts the server with those arguments, loads it, stops it) under --cpu-prof. */
const profileServer = async (kind, run, work) => {
  const dir = join(work, "profiles", kind)
  mkdirSync(dir, { recursive: true })
  log(`profiling the server side of the ${kind} load (--cpu-prof)…`)
  const window = await run(["--cpu-prof", "--cpu-prof-dir", dir])
  const file = newestProfile(dir)
  if (file === null) {
    log(`  no profile was written for ${kind}`)
    return null
  }
  const keep = join(resultsDir, `read-${kind}.cpuprofile`)
  mkdirSync(resultsDir, { recursive: true })
  const kept = trimProfile(file, keep, window.fromUs, window.toUs)
  if (kept === 0) {
    log(`  the ${kind} profile has no sample inside the load window; summarising the whole run`)
    copyFileSync(file, keep)
  }
  const summary = summariseProfile(keep, 25, { phaseOf: readPhase })
  const idle = summary.phases.find((p) => p.phase.startsWith("idle"))?.ms ?? 0
  const busyMs = summary.totalMs - idle
  return {
    loadMs: round((window.toUs - window.fromUs) / 1000, 0),
    busyMs: round(busyMs, 1),
    requests: window.requests,
    busyMsPerRequest: round(busyMs / window.requests, 3),
    ...summary,
    file: keep.slice(repoRoot.length + 1)
  }
}

/**
 * Which code is measured: the commit, the src/ files changed since (other sessions edit and rebuild
 * while benchmarks run) and when dist/ was built. Read-only git commands.
 */
const buildInfo = () => {
  const git = (args) => {
    const r = spawnSync("git", ["--no-optional-locks", ...args], { cwd: repoRoot, encoding: "utf8" })
    return r.status === 0 ? r.stdout.trim() : null
  }
  const distDir = dirname(repoCliPath)
  let distBuiltAt = null
  try {
    distBuiltAt = new Date(Math.max(...readdirSync(distDir).map((f) => statSync(join(distDir, f)).mtimeMs)))
      .toISOString()
  } catch {
    // no dist/: snapshotCli has already failed
  }
  const dirty = git(["status", "--porcelain", "--", "src"])
  return {
    commit: git(["rev-parse", "--short", "HEAD"]),
    srcChangedSinceCommit: dirty === null ? null : dirty.split("\n").filter((l) => l !== "").map((l) => l.slice(3)),
    distBuiltAt
  }
}

// ── the benchmark ──────────────────────────────────────────────────────────────────────────
export const runReadBench = async (argv = []) => {
  const opts = parseArgs(argv)
  const node = process.execPath
  const work = mkdtempSync(join(tmpdir(), "ldc-bench-read-"))
  const cleanupNow = () => {
    killAllNow()
    if (!opts.keep) rmSync(work, { recursive: true, force: true })
  }
  const onSignal = (sig) => {
    log(`\n${sig}: cleaning up`)
    cleanupNow()
    process.exit(130)
  }
  process.once("SIGINT", onSignal)
  process.once("SIGTERM", onSignal)
  process.once("exit", cleanupNow)

  try {
    const cliPath = snapshotCli(work)
    const build = buildInfo()
    const loadBefore = await loadAvg()
    const loads = { atStart: loadBefore }

    // (1) the catalog
    const dir = join(work, "catalog")
    mkdirSync(dir)
    const dbFile = join(work, "bench.db")
    let t0 = performance.now()
    const expect = await buildSqliteDataset(dbFile, opts)
    const buildMs = performance.now() - t0
    log(
      `SQLite source: ${expect.tables} tables × ${opts.columns} columns + ${expect.views} views, written in ${
        round(buildMs / 1000, 1)
      } s`
    )
    writeFileSync(
      join(dir, "catalog.yml"),
      "version: 1\nsources:\n  - id: bench\n    kind: sqlite\n    driver: node:sqlite\n    connectionRef: BENCH_DB\n"
    )
    const env = cleanEnv({ BENCH_DB: dbFile })
    const scanRun = timedOk(node, [cliPath, "start", "--json"], { cwd: dir, env })
    const scan = parseJson(scanRun.stdout, "catalog start --json")
    if (!scan.sources?.[0]?.reached) {
      throw new Error(
        `the scan did not reach the source: ${JSON.stringify(scan.sources?.[0]?.error ?? scan).slice(0, 2000)}`
      )
    }
    log(`  scanned in ${round(scanRun.ms / 1000, 1)} s`)
    const status = parseJson(
      timedOk(node, [cliPath, "status", "--json"], { cwd: dir, env }).stdout,
      "catalog status --json"
    )
    const complete = status.datasets >= expect.datasets && status.columns >= expect.columns
    log(
      `  status: ${status.datasets} datasets, ${status.columns} columns${
        complete ? "" : ` — expected ${expect.datasets} / ${expect.columns}`
      }`
    )
    if (!complete) {
      throw new Error(
        `the catalog is incomplete: status counts ${status.datasets} datasets / ${status.columns} columns, expected ${expect.datasets} / ${expect.columns}`
      )
    }

    // (2) HTTP
    loads.http = await loadAvg()
    let server = await startOpen(cliPath, dir, env)
    log(`catalog open listening on ${server.url}`)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    t0 = performance.now()
    const listRes = await httpGet(agent, server.port, "/api/v1/datasets")
    const listMs = performance.now() - t0
    agent.destroy()
    if (listRes.status !== 200) throw new Error(`GET /api/v1/datasets answered ${listRes.status}`)
    const ids = JSON.parse(listRes.body.toString()).datasets.map((d) => d.id)
    if (ids.length < expect.datasets) {
      throw new Error(`GET /api/v1/datasets listed ${ids.length} datasets, expected ${expect.datasets}`)
    }
    // A seeded shuffle: consecutive requests hit unrelated datasets.
    const rand = prng(7)
    const shuffled = ids.slice()
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]]
    }
    const datasetPaths = shuffled.map((id) => `/api/v1/datasets/${encodeURIComponent(id)}`)

    // (2a) search latency
    log(
      `search: ${opts.searchRequests} sequential requests over keep-alive (${searchQueries.length} queries in rotation) after a warm-up of ${
        2 * searchQueries.length
      }…`
    )
    const searchSamples = await searchLoad(server.port, opts.searchRequests, 2 * searchQueries.length)
    const searchMs = searchSamples.map((s) => s.ms)
    const byQuery = searchQueries.map((q) => {
      const mine = searchSamples.filter((s) => s.q === q)
      const body = JSON.parse(mine[0].body.toString())
      return {
        q,
        medianMs: round(median(mine.map((s) => s.ms)), 2),
        maxMs: round(Math.max(...mine.map((s) => s.ms)), 2),
        returned: body.returned,
        total: body.total,
        bytes: mine[0].bytes
      }
    })
    const search = { ...stats(searchMs), warmup: 2 * searchQueries.length, queries: searchQueries.length, byQuery }
    log(`  p50 ${search.p50Ms} ms · p90 ${search.p90Ms} ms · p99 ${search.p99Ms} ms · max ${search.maxMs} ms`)
    const emptyQueries = byQuery.filter((q) => q.returned === 0).map((q) => q.q)
    if (emptyQueries.length > 0) log(`  warning: no hits for ${emptyQueries.join(", ")}`)

    // (2b) GET /datasets/:id: one at a time (unloaded latency, the HTTP twin of MCP get_dataset), then
    // throughput, interleaved with the bare node:http baseline
    const seqAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const datasetSeq = []
    for (let i = 0; i < 330; i++) {
      const r = await httpGet(seqAgent, server.port, datasetPaths[(i * 7919) % datasetPaths.length])
      if (r.status !== 200) {
        throw new Error(
          `GET ${datasetPaths[(i * 7919) % datasetPaths.length]} answered ${r.status}: ${
            r.body.toString().slice(0, 500)
          }`
        )
      }
      if (i >= 30) datasetSeq.push(r.ms)
    }
    seqAgent.destroy()
    const baseline = await startBaseline(env)
    const floorMs = await pingLoad(baseline.port, datasetPaths[0], 300, 30)
    const cannonOpts = { connections: opts.connections, duration: opts.duration }
    log(
      `GET /api/v1/datasets/:id: autocannon, ${opts.connections} connections × ${opts.duration} s, ${datasetPaths.length} ids in rotation, ${opts.rounds} round(s) interleaved with a bare node:http server…`
    )
    await cannon(baseline.port, datasetPaths, { connections: opts.connections, duration: 2 }) // warm-ups, discarded
    await cannon(server.port, datasetPaths, { connections: opts.connections, duration: 2 })
    const rounds = []
    for (let i = 0; i < opts.rounds; i++) {
      const b = cannonSummary(await cannon(baseline.port, datasetPaths, cannonOpts))
      log(
        `  baseline: ${b.requestsPerSec} req/s, p50 ${b.latencyP50Ms} ms, p99 ${b.latencyP99Ms} ms, non-2xx ${b.non2xx}, errors ${b.errors}`
      )
      const c = cannonSummary(await cannon(server.port, datasetPaths, cannonOpts))
      log(
        `  catalog:  ${c.requestsPerSec} req/s, p50 ${c.latencyP50Ms} ms, p99 ${c.latencyP99Ms} ms, non-2xx ${c.non2xx}, errors ${c.errors}, ${c.bytesPerResponse} B/response`
      )
      rounds.push({ baseline: b, catalog: c, ratio: round(c.requestsPerSec / b.requestsPerSec, 3) })
    }
    await stopChild(baseline.entry)
    await stopChild(server.entry)
    const catRps = median(rounds.map((r) => r.catalog.requestsPerSec))
    const baseRps = median(rounds.map((r) => r.baseline.requestsPerSec))
    const datasetLoad = {
      tool: `autocannon ${
        createRequire(import.meta.url)("autocannon/package.json").version
      } (in the benchmark's process)`,
      connections: opts.connections,
      durationS: opts.duration,
      ids: datasetPaths.length,
      rounds,
      sequential: stats(datasetSeq),
      catalog: {
        requestsPerSec: round(catRps, 0),
        latencyP50Ms: median(rounds.map((r) => r.catalog.latencyP50Ms)),
        latencyP99Ms: median(rounds.map((r) => r.catalog.latencyP99Ms)),
        non2xx: rounds.reduce((a, r) => a + r.catalog.non2xx, 0),
        errors: rounds.reduce((a, r) => a + r.catalog.errors + r.catalog.timeouts, 0),
        bytesPerResponse: rounds[0].catalog.bytesPerResponse
      },
      baseline: {
        server: "bare node:http, fixed small JSON",
        requestsPerSec: round(baseRps, 0),
        latencyP50Ms: median(rounds.map((r) => r.baseline.latencyP50Ms)),
        latencyP99Ms: median(rounds.map((r) => r.baseline.latencyP99Ms)),
        non2xx: rounds.reduce((a, r) => a + r.baseline.non2xx, 0),
        sequentialRoundTrip: stats(floorMs)
      },
      ratio: round(catRps / baseRps, 3)
    }

    // (3) MCP
    loads.mcp = await loadAvg()
    const mcpEnv = cleanEnv({
      BENCH_DB: dbFile,
      CATALOG_DATA: join(dir, ".catalog"),
      CATALOG_CONFIG: join(dir, "catalog.yml")
    })
    log(
      `MCP: get_dataset × ${opts.mcpCalls}, search_datasets × ${
        Math.min(opts.mcpCalls, 100)
      }, ping × 100, sequential over stdio…`
    )
    const mcpServer = await startMcp(cliPath, work, mcpEnv)
    const m = await mcpLoad(mcpServer.client, shuffled, {
      calls: opts.mcpCalls,
      searchCalls: Math.min(opts.mcpCalls, 100),
      pings: 100
    })
    mcpServer.client.close()
    const mcpExit = await Promise.race([mcpServer.entry.exitedPromise, sleep(5000).then(() => null)])
    if (mcpExit === null) await stopChild(mcpServer.entry, { signal: "SIGTERM" })
    const mcp = {
      server: mcpServer.server,
      protocolVersion: mcpServer.protocolVersion,
      exitOnStdinEnd: mcpExit === null ? "did not exit within 5 s" : mcpExit.code ?? mcpExit.signal,
      getDataset: { ...stats(m.get), warmup: 30, bytesPerResponse: m.getBytes },
      searchDatasets: { ...stats(m.search), warmup: 10 },
      ping: stats(m.ping)
    }
    log(
      `  get_dataset p50 ${mcp.getDataset.p50Ms} ms · p90 ${mcp.getDataset.p90Ms} ms · p99 ${mcp.getDataset.p99Ms} ms; search_datasets p50 ${mcp.searchDatasets.p50Ms} ms; ping p50 ${mcp.ping.p50Ms} ms`
    )

    loads.atEnd = await loadAvg()
    const targets = {
      searchP50: { target: TARGETS.searchP50Ms, met: search.p50Ms <= TARGETS.searchP50Ms },
      searchP99: { target: TARGETS.searchP99Ms, met: search.p99Ms <= TARGETS.searchP99Ms },
      datasetRps: {
        target: TARGETS.datasetRps,
        met: catRps >= TARGETS.datasetRps && datasetLoad.catalog.non2xx === 0 && datasetLoad.catalog.errors === 0
      },
      mcpGetP50: { target: TARGETS.mcpGetP50Ms, met: mcp.getDataset.p50Ms <= TARGETS.mcpGetP50Ms }
    }
    const results = {
      benchmark: "read",
      at: new Date().toISOString(),
      machine: await machine(),
      build,
      loadAverage: loads,
      dataset: {
        ...expect,
        source: "SQLite (node:sqlite), one file",
        buildMs: round(buildMs, 0),
        scanMs: round(scanRun.ms, 0)
      },
      status: { datasets: status.datasets, columns: status.columns, complete },
      listAllDatasets: { ms: round(listMs, 1), bytes: listRes.body.length, datasets: ids.length },
      search,
      datasetLoad,
      mcp,
      targets,
      profile: null
    }

    // (5) where the server's time goes, for each missed target
    const missed = {
      search: !targets.searchP50.met || !targets.searchP99.met,
      dataset: !targets.datasetRps.met,
      mcp: !targets.mcpGetP50.met
    }
    const wanted = Object.entries(missed).filter(([, x]) => opts.profile === "always" || (opts.profile === "auto" && x))
      .map(([k]) => k)
    if (wanted.length > 0) {
      results.profile = {}
      for (const kind of wanted) {
        let run
        if (kind === "search") {
          run = async (nodeArgs) => {
            const s = await startOpen(cliPath, dir, env, nodeArgs)
            try {
              await searchLoad(s.port, 10, 0) // the lazily loaded modules, outside the window
              const fromUs = monoUs()
              await searchLoad(s.port, opts.searchRequests, 2 * searchQueries.length)
              return { fromUs, toUs: monoUs(), requests: opts.searchRequests + 2 * searchQueries.length }
            } finally {
              await stopChild(s.entry, { graceMs: 30000 })
            }
          }
        } else if (kind === "dataset") {
          run = async (nodeArgs) => {
            const s = await startOpen(cliPath, dir, env, nodeArgs)
            try {
              await cannon(s.port, datasetPaths, { connections: opts.connections, duration: 1 })
              const fromUs = monoUs()
              const r = await cannon(s.port, datasetPaths, {
                connections: opts.connections,
                duration: Math.min(5, opts.duration)
              })
              return { fromUs, toUs: monoUs(), requests: r.requests.total }
            } finally {
              await stopChild(s.entry, { graceMs: 30000 })
            }
          }
        } else {
          run = async (nodeArgs) => {
            const s = await startMcp(cliPath, work, mcpEnv, nodeArgs)
            try {
              const fromUs = monoUs()
              await mcpLoad(s.client, shuffled, { calls: opts.mcpCalls, searchCalls: 10, pings: 10 })
              return { fromUs, toUs: monoUs(), requests: 30 + opts.mcpCalls + 20 }
            } finally {
              s.client.close()
              const x = await Promise.race([s.entry.exitedPromise, sleep(30000).then(() => null)])
              if (x === null) await stopChild(s.entry, { signal: "SIGTERM", graceMs: 30000 })
            }
          }
        }
        const p = await profileServer(kind, run, work)
        if (p !== null) results.profile[kind] = p
      }
    }

    const name = opts.tables === 10000 && opts.columns === 20 ? "read" : `read-${opts.tables}x${opts.columns}`
    results.file = writeResults(name, results).slice(repoRoot.length + 1)
    printRead(results)
    if (opts.keep) log(`kept ${work} (--keep)`)
    return results
  } finally {
    await Promise.all([...children].map((e) => stopChild(e, { graceMs: 3000 })))
    if (!opts.keep) rmSync(work, { recursive: true, force: true })
    process.removeListener("SIGINT", onSignal)
    process.removeListener("SIGTERM", onSignal)
    process.removeListener("exit", cleanupNow)
  }
}

const ok = (met) => (met ? "ok" : "MISSED")
const fmt = (x) => (typeof x === "number" ? x.toLocaleString("en-US") : String(x))

export const printRead = (r, out = console.log, compact = false) => {
  const d = r.datasetLoad
  out("")
  out(
    `Read surfaces — ${fmt(r.status.datasets)} datasets, ${
      fmt(r.status.columns)
    } columns (${r.dataset.source}), Node ${r.machine.node}, ${r.machine.cpus} cores`
  )
  out(textTable(["measure", "value", "target", ""], [
    [
      `HTTP search, ${r.search.n} sequential (keep-alive): p50`,
      `${r.search.p50Ms} ms`,
      `≤ ${r.targets.searchP50.target} ms`,
      ok(r.targets.searchP50.met)
    ],
    ["  p90", `${r.search.p90Ms} ms`, "", ""],
    ["  p99", `${r.search.p99Ms} ms`, `≤ ${r.targets.searchP99.target} ms`, ok(r.targets.searchP99.met)],
    ["  max", `${r.search.maxMs} ms`, "", ""],
    [
      `GET /datasets/:id, autocannon ${d.connections} conn × ${d.durationS} s`,
      `${fmt(d.catalog.requestsPerSec)} req/s`,
      `≥ ${fmt(r.targets.datasetRps.target)} req/s`,
      ok(r.targets.datasetRps.met)
    ],
    ["  latency p50 / p99", `${d.catalog.latencyP50Ms} / ${d.catalog.latencyP99Ms} ms`, "", ""],
    [
      "  non-2xx / errors",
      `${d.catalog.non2xx} / ${d.catalog.errors}`,
      "0",
      ok(d.catalog.non2xx === 0 && d.catalog.errors === 0)
    ],
    ["  bare node:http, same load", `${fmt(d.baseline.requestsPerSec)} req/s`, "", `catalog = ${d.ratio}× of it`],
    ["  one at a time (300, keep-alive): p50 / p99", `${d.sequential.p50Ms} / ${d.sequential.p99Ms} ms`, "", ""],
    [
      `MCP get_dataset, ${r.mcp.getDataset.n} sequential: p50`,
      `${r.mcp.getDataset.p50Ms} ms`,
      `≤ ${r.targets.mcpGetP50.target} ms`,
      ok(r.targets.mcpGetP50.met)
    ],
    ["  p90 / p99", `${r.mcp.getDataset.p90Ms} / ${r.mcp.getDataset.p99Ms} ms`, "", ""],
    [
      `MCP search_datasets, ${r.mcp.searchDatasets.n} sequential: p50`,
      `${r.mcp.searchDatasets.p50Ms} ms`,
      "",
      `p99 ${r.mcp.searchDatasets.p99Ms} ms`
    ],
    ["MCP ping (transport floor): p50", `${r.mcp.ping.p50Ms} ms`, "", ""]
  ], "lrrl"))
  const la = r.loadAverage
  out(
    `load average (1/5/15 min): start ${la.atStart.join(" ")} · HTTP ${la.http.join(" ")} · MCP ${
      la.mcp.join(" ")
    } · end ${la.atEnd.join(" ")} (${r.machine.cpus} cores)`
  )
  out(
    `rounds (catalog / bare req/s): ${
      d.rounds.map((x) => `${x.catalog.requestsPerSec} / ${x.baseline.requestsPerSec}`).join(" · ")
    } · bare node:http sequential round trip p50 ${d.baseline.sequentialRoundTrip.p50Ms} ms · dataset response ${
      fmt(d.catalog.bytesPerResponse)
    } B`
  )
  if (!compact) {
    out("")
    out(
      textTable(
        ["search query", "median ms", "max ms", "hits", "total"],
        r.search.byQuery.map((q) => [q.q, q.medianMs, q.maxMs, q.returned, q.total])
      )
    )
  }
  if (r.profile && compact) {
    for (const [kind, p] of Object.entries(r.profile)) {
      const busy = p.phases.filter((x) => !x.phase.startsWith("idle"))
      out(
        `where the ${kind} load's server time goes (profile, ${p.busyMsPerRequest} ms CPU per request): ${
          busy.slice(0, 5).map((x) => `${x.phase} ${round((100 * x.ms) / p.busyMs, 0)}%`).join(" · ")
        }`
      )
    }
  } else if (r.profile) {
    for (const [kind, p] of Object.entries(r.profile)) {
      out("")
      out(
        `Profile of the server during the ${kind} load only (${p.loadMs} ms, busy ${p.busyMs} ms: ${p.busyMsPerRequest} ms of CPU per request over ${p.requests} requests; start-up and shut-down left out):`
      )
      printProfile({ ...p, topSelf: p.topSelf.slice(0, 20) }, out)
    }
  }
  out(
    `build: commit ${r.build.commit}${
      r.build.srcChangedSinceCommit?.length ? ` + ${r.build.srcChangedSinceCommit.length} changed src/ file(s)` : ""
    }, dist/ built ${r.build.distBuiltAt}`
  )
  out(`results: ${r.file}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runReadBench(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.stack ?? e.message : e)
    process.exit(1)
  })
}
