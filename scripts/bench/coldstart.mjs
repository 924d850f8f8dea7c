// Cold-start benchmark: wall time of `catalog status --json` (a whole new process each run) on a
// catalog scanned from a small SQLite source, against a bare `node -e 0`.
//
//   npx node scripts/bench/coldstart.mjs [--runs 21] [--profile | --no-profile]
//
// Set-up in a temp folder: samples/shop.sql (schema only) is loaded into shop.db with node:sqlite,
// catalog.yml names it as one sqlite source, `catalog start` scans it. Then, after one discarded
// warm-up each, `status --json` and `node -e 0` run alternately --runs times; median, p90 and min.
// When the target is missed (or with --profile), one more `status` run is profiled with --cpu-prof.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import {
  cleanEnv,
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

export const TARGET_MEDIAN_MS = 200

const parseArgs = (argv) => {
  const o = { runs: 21, profile: "auto" }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") o.runs = Number(argv[++i])
    else if (argv[i] === "--profile") o.profile = "always"
    else if (argv[i] === "--no-profile") o.profile = "never"
    else throw new Error(`unknown option ${argv[i]}`)
  }
  if (!(o.runs >= 1)) throw new Error("invalid --runs")
  return o
}

const stats = (xs) => ({
  runsMs: xs.map((x) => round(x)),
  medianMs: round(median(xs)),
  p90Ms: round(percentile(xs, 90)),
  minMs: round(Math.min(...xs))
})

export const runColdstartBench = async (argv = []) => {
  const opts = parseArgs(argv)
  const node = process.execPath
  const dir = mkdtempSync(join(tmpdir(), "ldc-bench-cold-"))
  try {
    const cliPath = snapshotCli(dir)
    const loadBefore = await loadAvg()
    // The source: the bundled sample shop/clinic schema in a fresh SQLite file.
    // node:sqlite warns that it is experimental; the warning is noise here (bin.ts hides it too).
    const emitWarning = process.emitWarning
    process.emitWarning = (
      w,
      ...rest
    ) => (/SQLite is an experimental feature/i.test(String(w?.message ?? w))
      ? undefined
      : emitWarning.call(process, w, ...rest))
    const { DatabaseSync } = await import("node:sqlite")
    const dbFile = join(dir, "shop.db")
    const conn = new DatabaseSync(dbFile)
    conn.exec(readFileSync(join(repoRoot, "samples", "shop.sql"), "utf8"))
    conn.close()
    writeFileSync(
      join(dir, "catalog.yml"),
      "version: 1\nsources:\n  - id: shop\n    kind: sqlite\n    driver: node:sqlite\n    connectionRef: BENCH_SQLITE\n"
    )
    const env = cleanEnv({ BENCH_SQLITE: dbFile })
    const scan = parseJson(
      timedOk(node, [cliPath, "start", "--json"], { cwd: dir, env }).stdout,
      "catalog start --json"
    )
    if (!scan.sources?.[0]?.reached) throw new Error(`the sample scan failed: ${JSON.stringify(scan)}`)

    const status = () => timedOk(node, [cliPath, "status", "--json"], { cwd: dir, env })
    const bare = () => timedOk(node, ["-e", "0"], { cwd: dir, env })
    const s0 = parseJson(status().stdout, "catalog status --json") // warm-up (file cache), discarded
    bare()
    const statusMs = []
    const nodeMs = []
    process.stderr.write(`cold start: ${opts.runs} runs each of \`catalog status --json\` and \`node -e 0\`…\n`)
    for (let i = 0; i < opts.runs; i++) {
      statusMs.push(status().ms)
      nodeMs.push(bare().ms)
    }
    const st = stats(statusMs)
    const base = stats(nodeMs)
    const results = {
      benchmark: "coldstart",
      at: new Date().toISOString(),
      machine: await machine(),
      loadAverage: { atStart: loadBefore, atEnd: await loadAvg() },
      catalog: { source: "samples/shop.sql in SQLite", datasets: s0.datasets, columns: s0.columns },
      runs: opts.runs,
      status: st,
      bareNode: base,
      ratio: round(st.medianMs / base.medianMs, 2),
      overheadMs: round(st.medianMs - base.medianMs),
      target: { medianMs: TARGET_MEDIAN_MS, met: st.medianMs <= TARGET_MEDIAN_MS },
      profile: null
    }
    if (opts.profile === "always" || (opts.profile === "auto" && !results.target.met)) {
      const profDir = join(dir, "profile")
      mkdirSync(profDir)
      const r = timedOk(node, ["--cpu-prof", "--cpu-prof-dir", profDir, cliPath, "status", "--json"], { cwd: dir, env })
      const file = newestProfile(profDir)
      if (file !== null) {
        const keep = join(resultsDir, "coldstart-status.cpuprofile")
        mkdirSync(resultsDir, { recursive: true })
        copyFileSync(file, keep)
        results.profile = { wallMs: round(r.ms, 0), ...summariseProfile(file), file: keep.slice(repoRoot.length + 1) }
      }
    }
    // Fewer than 21 runs (a smoke test) does not overwrite coldstart-<date>.json.
    results.file = writeResults(opts.runs >= 21 ? "coldstart" : `coldstart-${opts.runs}runs`, results).slice(
      repoRoot.length + 1
    )
    printColdstart(results)
    return results
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const printColdstart = (r, out = console.log, compact = false) => {
  out("")
  out(
    `Cold start — \`catalog status --json\` on a scanned catalog (${r.catalog.datasets} datasets, ${r.catalog.columns} columns), ${r.runs} runs, Node ${r.machine.node}`
  )
  out(textTable(["process", "median", "p90", "min", "vs node -e 0", "target", ""], [
    [
      "catalog status --json",
      `${r.status.medianMs} ms`,
      `${r.status.p90Ms} ms`,
      `${r.status.minMs} ms`,
      `${r.ratio}×`,
      `≤ ${r.target.medianMs} ms`,
      r.target.met ? "ok" : "MISSED"
    ],
    ["node -e 0", `${r.bareNode.medianMs} ms`, `${r.bareNode.p90Ms} ms`, `${r.bareNode.minMs} ms`, "1.00×", "", ""]
  ]))
  out(
    `CLI overhead over bare Node: ${r.overheadMs} ms · load average at start ${
      r.loadAverage.atStart.join(" ")
    }, at end ${r.loadAverage.atEnd.join(" ")}`
  )
  if (r.profile && compact) {
    out(
      `where a \`status\` run goes (profile): ${
        r.profile.phases.slice(0, 5).map((p) => `${p.phase} ${p.pct}%`).join(" · ")
      }`
    )
  } else if (r.profile) {
    out("")
    out(`Profile of one \`status --json\` (wall ${r.profile.wallMs} ms with --cpu-prof):`)
    printProfile({ ...r.profile, topSelf: r.profile.topSelf.slice(0, 12) }, out)
  }
  out(`results: ${r.file}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runColdstartBench(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.message : e)
    process.exit(1)
  })
}
