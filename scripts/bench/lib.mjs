// Shared helpers of the benchmarks: process timing, peak RSS, statistics, result files and the
// summary of a V8 CPU profile (mapped back to src/ through the bundle's source maps).
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { SourceMap } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const benchDir = dirname(fileURLToPath(import.meta.url))
export const repoRoot = resolve(benchDir, "../..")
export const cliPath = join(repoRoot, "dist", "bin.js")
export const resultsDir = join(benchDir, "results")

/** Fails early, with the fix, when the CLI has not been built. */
export const requireBuild = () => {
  if (!existsSync(cliPath)) {
    throw new Error(`${cliPath} does not exist. Run \`npm run build\` first (or \`npm run bench\`, which builds).`)
  }
}

/**
 * Copies dist/ into `intoDir` and returns the copy's bin.js. The benchmarks run the copy, so that a
 * concurrent `npm run build` (which deletes dist/ first) cannot break or change a measurement.
 * Retries while dist/ is incomplete (a chunk that bin.js or a chunk imports is missing).
 */
export const snapshotCli = (intoDir) => {
  const distDir = dirname(cliPath)
  const target = join(intoDir, "dist")
  for (let attempt = 1;; attempt++) {
    try {
      requireBuild()
      // A file written in the last 3 s: a build may still be writing.
      const newest = Math.max(...readdirSync(distDir).map((f) => statSync(join(distDir, f)).mtimeMs))
      if (Date.now() - newest < 3000) throw new Error("dist/ is being written")
      rmSync(target, { recursive: true, force: true })
      cpSync(distDir, target, { recursive: true })
      const js = readdirSync(target).filter((f) => f.endsWith(".js"))
      if (!js.includes("bin.js")) throw new Error("dist/bin.js is missing")
      for (const f of js) {
        const text = readFileSync(join(target, f), "utf8")
        for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*)"\.\/([^"]+)"/g)) {
          if (!existsSync(join(target, m[1]))) {
            throw new Error(`dist/${f} imports ./${m[1]}, which is missing (a build is running?)`)
          }
        }
      }
      const smoke = spawnSync(process.execPath, [join(target, "bin.js"), "--version"], { encoding: "utf8" })
      if (smoke.status !== 0) throw new Error(`the copied CLI does not start: ${smoke.stderr.trim().slice(0, 500)}`)
      return join(target, "bin.js")
    } catch (e) {
      if (attempt >= 120) throw e
      process.stderr.write(`dist/ is not usable yet (${e instanceof Error ? e.message : e}); retrying in 5 s…\n`)
      spawnSync("sleep", ["5"])
    }
  }
}

/** The 1/5/15-minute load averages: the other work on the machine during a measurement. */
export const loadAvg = async () => (await import("node:os")).loadavg().map((x) => round(x, 2))

/** The environment of a CLI run: the caller's, minus anything that would point the CLI elsewhere. */
export const cleanEnv = (extra = {}) => {
  const env = { ...process.env }
  for (const k of ["CATALOG_CONFIG", "CATALOG_DATA", "NODE_OPTIONS"]) delete env[k]
  return { ...env, ...extra }
}

// ── statistics ─────────────────────────────────────────────────────────────────────────────
const sorted = (xs) => [...xs].sort((a, b) => a - b)
/** Median (mean of the two middle values for an even count). */
export const median = (xs) => {
  const s = sorted(xs)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}
/** Nearest-rank percentile, p in (0, 100]. */
export const percentile = (xs, p) => {
  const s = sorted(xs)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]
}
export const round = (
  x,
  digits = 1
) => (x === null || x === undefined ? null : Math.round(x * 10 ** digits) / 10 ** digits)

// ── processes ──────────────────────────────────────────────────────────────────────────────
/** GNU time, when installed and working: it reports the peak RSS of the process it runs. */
export const gnuTime = (() => {
  if (!existsSync("/usr/bin/time")) return null
  const r = spawnSync("/usr/bin/time", ["-f", "%M", "true"], { encoding: "utf8" })
  return r.status === 0 && /^\d+\s*$/m.test(r.stderr) ? "/usr/bin/time" : null
})()

// Fallback when GNU time is missing: a preload that prints process.resourceUsage().maxRSS (KiB) at exit.
const rssHook = join(tmpdir(), `ldc-bench-rss-hook-${process.pid}.mjs`)
const ensureRssHook = () => {
  if (!existsSync(rssHook)) {
    writeFileSync(
      rssHook,
      `process.on("exit", () => { process.stderr.write("\\n__LDC_MAXRSS_KB=" + process.resourceUsage().maxRSS + "\\n") })\n`
    )
  }
}

/**
 * Runs `command args` to completion and returns its wall time (ms, whole process, from spawn to
 * exit), exit status, output and — with `rss: true` — its peak RSS in KiB.
 */
export const timed = (command, args, { cwd, env, rss = false, input } = {}) => {
  let cmd = command
  let argv = args
  let rssFile = null
  if (rss && gnuTime !== null) {
    rssFile = join(tmpdir(), `ldc-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`)
    cmd = gnuTime
    argv = ["-f", "%M", "-o", rssFile, command, ...args]
  } else if (rss && command === process.execPath) {
    ensureRssHook()
    argv = ["--import", rssHook, ...args]
  }
  const t0 = performance.now()
  const r = spawnSync(cmd, argv, { cwd, env, input, encoding: "utf8", maxBuffer: 512 * 1024 * 1024 })
  const ms = performance.now() - t0
  if (r.error) throw r.error
  let stderr = r.stderr
  let maxRssKb = null
  if (rssFile !== null) {
    const text = existsSync(rssFile) ? readFileSync(rssFile, "utf8") : ""
    rmSync(rssFile, { force: true })
    // GNU time writes "Command exited with non-zero status N" before the value on failure.
    const m = text.trim().split("\n").pop()?.match(/^(\d+)$/)
    maxRssKb = m ? Number(m[1]) : null
  } else if (rss) {
    const m = stderr.match(/\n__LDC_MAXRSS_KB=(\d+)\n/)
    if (m) {
      maxRssKb = Number(m[1])
      stderr = stderr.replace(m[0], "")
    }
  }
  return { ms, status: r.status, signal: r.signal, stdout: r.stdout, stderr, maxRssKb }
}

/** Like `timed`, but throws with the process's output when it does not exit 0. */
export const timedOk = (command, args, opts) => {
  const r = timed(command, args, opts)
  if (r.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${r.status ?? r.signal}\n--- stdout\n${
        r.stdout.slice(-4000)
      }\n--- stderr\n${r.stderr.slice(-4000)}`
    )
  }
  return r
}

/** Parses the JSON a `--json` command printed (the whole of stdout). */
export const parseJson = (stdout, what) => {
  try {
    return JSON.parse(stdout)
  } catch {
    throw new Error(`${what} did not print JSON: ${stdout.slice(0, 2000)}`)
  }
}

// ── results ────────────────────────────────────────────────────────────────────────────────
export const today = () => new Date().toISOString().slice(0, 10)

/** Writes `scripts/bench/results/<name>-<date>.json` and returns its path. */
export const writeResults = (name, data) => {
  mkdirSync(resultsDir, { recursive: true })
  const file = join(resultsDir, `${name}-${today()}.json`)
  writeFileSync(file, JSON.stringify(data, null, 2) + "\n")
  return file
}

/** Context of a measurement, stored with the results. */
export const machine = async () => {
  const os = await import("node:os")
  return {
    node: process.versions.node,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? null,
    memoryGb: round(os.totalmem() / 1024 ** 3, 1)
  }
}

/** A plain text table; `align` has one letter per column, l or r (default: first left, rest right). */
export const textTable = (header, rows, align = null) => {
  const all = [header, ...rows].map((r) => r.map((c) => String(c ?? "")))
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)))
  const left = (i) => (align === null ? i === 0 : align[i] !== "r")
  const line = (r) => r.map((c, i) => (left(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd()
  return [line(all[0]), widths.map((w) => "-".repeat(w)).join("  "), ...all.slice(1).map(line)].join("\n")
}

// ── CPU profile ────────────────────────────────────────────────────────────────────────────
const sourceMaps = new Map()
/** Maps a bundle position (0-based line/column) to its original file and 1-based line, via the .js.map. */
const originalSource = (url, line, column) => {
  if (!url.startsWith("file://")) return { file: null, line: null }
  const file = fileURLToPath(url)
  let map = sourceMaps.get(file)
  if (map === undefined) {
    map = null
    // The run's copy of dist/ may be gone (temp folder); the same chunk name in dist/ has the same map.
    const mapFile = [`${file}.map`, join(dirname(cliPath), `${file.split("/").pop()}.map`)].find((f) => existsSync(f))
    if (mapFile !== undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(mapFile, "utf8")))
      } catch {
        map = null
      }
    }
    sourceMaps.set(file, map)
  }
  if (map === null) return { file, line: line + 1 }
  const entry = map.findEntry(line, column)
  if (!entry || !entry.originalSource) return { file, line: line + 1 }
  // Sources are relative to dist/ ("../src/…", "../node_modules/…").
  let src = entry.originalSource
  if (src.startsWith("file://")) src = fileURLToPath(src)
  return { file: resolve(dirname(file), src), line: (entry.originalLine ?? 0) + 1 }
}

// Paths relative to the repository (the bundle may run from a copy of dist/ elsewhere).
const shortSource = (file) => {
  if (file === null) return "(native)"
  const i = file.lastIndexOf("node_modules/")
  if (i >= 0) return file.slice(i)
  const m = file.match(/(?:^|\/)(src\/.*)$/)
  if (m) return m[1]
  if (/\/dist\/[^/]+\.js$/.test(file)) return file.slice(file.lastIndexOf("dist/"))
  return file.startsWith(repoRoot) ? file.slice(repoRoot.length + 1) : file
}

/**
 * The phase a frame belongs to, from its original source file. Frames in the Effect runtime or in
 * generic helpers return null, so that the caller keeps walking up the stack to the code that owns
 * the work.
 */
const phaseOfFrame = (src, cf) => {
  const url = cf.url ?? ""
  if (url.startsWith("node:internal/modules/") || url.startsWith("node:internal/bootstrap/")) {
    return "module loading (read + compile JS)"
  }
  if (src === null) return null
  if (
    /node_modules\/(pg|pg-[^/]+|postgres-[^/]+|pgpass|mysql2|@effect\/sql-pg|@effect\/sql-mysql2|csv-parse)\//.test(src)
  ) return "connector + DB driver (reading the source)"
  if (/src\/layers\/connectors\//.test(src)) return "connector + DB driver (reading the source)"
  if (/src\/classifier\/|src\/services\/Classifier/.test(src)) return "classification"
  if (
    /src\/services\/Store|src\/layers\/store\/|src\/layers\/NodeSqlite|src\/layers\/Sql|src\/migrations\//.test(src)
  ) {
    return "Store: SQLite index.db (reads + writes)"
  }
  if (/src\/services\/Scanner/.test(src)) return "scanner orchestration"
  if (/src\/services\/[Rr]eader/.test(src)) return "Reader (status/queries)"
  if (/node_modules\/@effect\/(cli|platform|platform-node)\//.test(src) || /src\/programs\/|src\/bin\.ts/.test(src)) {
    return "CLI parsing / output"
  }
  if (/node_modules\/yaml\/|src\/services\/(ConfigFile|Secrets|AppEnv)/.test(src)) return "config + secrets"
  // The top-level code of the main bundle chunk: evaluating every bundled module at import.
  if (/\/dist\/main-[^/]+\.js$/.test(src) && cf.functionName === "" && cf.lineNumber === 0) {
    return "module evaluation (top-level code of the bundle)"
  }
  return null
}

/**
 * Summarises a .cpuprofile: the time per phase (each sample goes to the innermost frame of its
 * stack whose source names a phase), a timeline (the leading phases of each 10% of the run), the
 * top functions and source files by self time (mapped to src/ and node_modules/ via the maps).
 * `phaseOf(source, callFrame)`, when given, is asked first for each frame (a phase name, or null to
 * fall back to the scan/CLI phases above).
 */
export const summariseProfile = (file, top = 25, { phaseOf = null } = {}) => {
  const prof = JSON.parse(readFileSync(file, "utf8"))
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const totalUs = prof.endTime - prof.startTime

  const srcOf = new Map()
  const lineOf = new Map()
  const sourceOfNode = (n) => {
    if (srcOf.has(n.id)) return srcOf.get(n.id)
    const cf = n.callFrame
    const s = cf.url ? originalSource(cf.url, cf.lineNumber, cf.columnNumber) : { file: null, line: null }
    srcOf.set(n.id, s.file)
    lineOf.set(n.id, s.line)
    return s.file
  }
  const phaseMemo = new Map()
  const phaseOfNode = (id) => {
    if (phaseMemo.has(id)) return phaseMemo.get(id)
    const n = nodes.get(id)
    const name = n.callFrame.functionName
    let phase
    if (name === "(garbage collector)") phase = "garbage collection"
    else if (name === "(idle)") phase = "idle (waiting on I/O: DB server, disk)"
    else if (name === "(program)") phase = "V8/Node internal (program)"
    else {
      phase = null
      for (let cur = id; cur !== undefined && phase === null; cur = parent.get(cur)) {
        const c = nodes.get(cur)
        const src = sourceOfNode(c)
        phase = (phaseOf === null ? null : phaseOf(src, c.callFrame)) ?? phaseOfFrame(src, c.callFrame)
      }
      if (phase === null) {
        const src = sourceOfNode(n)
        phase = src && /node_modules\/effect\//.test(src) ? "Effect runtime (no owner on the stack)" : "other"
      }
    }
    phaseMemo.set(id, phase)
    return phase
  }

  const byFunction = new Map()
  const bySource = new Map()
  const byPhase = new Map()
  const buckets = Array.from({ length: 10 }, () => new Map())
  let t = 0
  prof.samples.forEach((id, i) => {
    const us = prof.timeDeltas[i] ?? 0
    t += us
    const n = nodes.get(id)
    const cf = n.callFrame
    const src = sourceOfNode(n)
    const name = cf.functionName || "(anonymous)"
    const short = shortSource(src ?? (cf.url || null))
    const line = lineOf.get(id)
    const at = line !== null && line !== undefined && short.startsWith("src/") ? `${short}:${line}` : short
    const key = `${name}\u0000${at}\u0000${cf.lineNumber}:${cf.columnNumber}`
    const f = byFunction.get(key) ?? { function: name, source: at, us: 0 }
    f.us += us
    byFunction.set(key, f)
    bySource.set(short, (bySource.get(short) ?? 0) + us)
    const phase = phaseOfNode(id)
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + us)
    const b = buckets[Math.min(9, Math.floor((10 * t) / Math.max(1, totalUs)))]
    b.set(phase, (b.get(phase) ?? 0) + us)
  })
  const ms = (us) => round(us / 1000, 1)
  const pct = (us) => round((100 * us) / totalUs, 1)
  const ranked = (m) => [...m].sort((a, b) => b[1] - a[1])
  return {
    file,
    totalMs: ms(totalUs),
    phases: ranked(byPhase).map(([phase, us]) => ({ phase, ms: ms(us), pct: pct(us) })),
    timeline: buckets.map((b, i) => {
      const sum = [...b.values()].reduce((x, y) => x + y, 0) || 1
      return {
        from: `${i * 10}%`,
        lead: ranked(b).slice(0, 3).map(([phase, us]) => `${phase} ${Math.round((100 * us) / sum)}%`).join(" · ")
      }
    }),
    topSelf: [...byFunction.values()].sort((a, b) => b.us - a.us).slice(0, top).map((f) => ({
      function: f.function,
      source: f.source,
      ms: ms(f.us),
      pct: pct(f.us)
    })),
    topSources: ranked(bySource).slice(0, 15).map(([source, us]) => ({ source, ms: ms(us), pct: pct(us) }))
  }
}

/** The newest .cpuprofile in a folder. */
export const newestProfile = (dir) => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()
  return files.length === 0 ? null : join(dir, files[files.length - 1])
}

/** Prints a profile summary. */
export const printProfile = (summary, log = console.log) => {
  log(`CPU profile ${summary.file} (${summary.totalMs} ms sampled)`)
  log(textTable(["phase", "ms", "%"], summary.phases.map((p) => [p.phase, p.ms, p.pct])))
  log("")
  log(textTable(["timeline", "leading phases"], summary.timeline.map((b) => [b.from, b.lead]), "rl"))
  log("")
  log(
    textTable(
      ["self time by source file", "ms", "%"],
      summary.topSources.slice(0, 10).map((f) => [f.source, f.ms, f.pct])
    )
  )
  log("")
  log(
    textTable(
      ["top self time: function", "source", "ms", "%"],
      summary.topSelf.map((f) => [f.function, f.source, f.ms, f.pct]),
      "llrr"
    )
  )
}
