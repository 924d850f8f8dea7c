// Classifier benchmark: how long the classifier takes for 200,000 columns (issue: "well under a second").
//
//   npx node scripts/bench/classify.mjs [--columns 200000] [--runs 7]
//
// Input: the real schemas of the labelled corpus (test/classifier/corpus, 45 applications), copied under
// new schema names until there are --columns columns; each copy is one source, as a scan classifies one
// source at a time. Two workloads: `real names` (the names as they are: the classifier memoises per
// name shape, so this is the everyday case) and `every name distinct` (a unique token appended to every
// column and table name: the memo never hits; the worst case). The classifier is bundled from src/ with
// esbuild (as the CLI bundle is); the cold figure is a fresh process's first call (module load + data
// compile + classify), the warm figure the median of --runs calls in one process, interleaved with the rules
// alone (no second stage, no calibration) for the ratio of what those cost.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { loadAvg, machine, median, repoRoot, round, textTable, writeResults } from "./lib.mjs"

export const TARGET_MS = 1000

const arg = (argv, name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback)

/** Sources holding `total` columns, copied from the corpus; `distinct` makes every name unique. */
const workload = (total, distinct) => {
  const dir = join(repoRoot, "test/classifier/corpus")
  const apps = readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((f) =>
    JSON.parse(readFileSync(join(dir, f), "utf8")).datasets
  )
  const sources = []
  let n = 0
  let unique = 0
  for (let copy = 0; n < total; copy++) {
    for (const datasets of apps) {
      if (n >= total) break
      const suffix = (s) => (distinct ? `${s}_q${(unique++).toString(36)}` : s)
      const renamed = new Map(datasets.map((d) => [`${d.schema}.${d.name}`, suffix(d.name)]))
      const source = []
      for (const d of datasets) {
        if (n >= total) break
        const columns = d.columns.slice(0, total - n).map((c) => ({
          ...c,
          name: c.isPrimaryKey || c.references !== null ? c.name : suffix(c.name),
          references: c.references === null
            ? null
            : {
              ...c.references,
              schema: `${c.references.schema ?? d.schema}_${copy}`,
              table: renamed.get(`${c.references.schema ?? d.schema}.${c.references.table}`) ?? c.references.table
            }
        }))
        n += columns.length
        source.push({ ...d, schema: `${d.schema}_${copy}`, name: renamed.get(`${d.schema}.${d.name}`), columns })
      }
      sources.push(source)
    }
  }
  return { sources, columns: n }
}

export const runClassifyBench = async (argv = []) => {
  const total = arg(argv, "--columns", 200_000)
  const runs = arg(argv, "--runs", 7)
  const work = mkdtempSync(join(tmpdir(), "ldc-bench-classify-"))
  try {
    const bundle = join(work, "classifier.mjs")
    await build({
      entryPoints: [join(repoRoot, "src/classifier/engine.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      outfile: bundle,
      logLevel: "silent"
    })
    const results = []
    for (const distinct of [false, true]) {
      const { sources, columns } = workload(total, distinct)
      const input = join(work, `input-${distinct ? "distinct" : "real"}.json`)
      writeFileSync(input, JSON.stringify(sources))
      // Cold: a fresh process, module load and first call (the input is parsed before the clock starts).
      const probe = join(work, "cold.mjs")
      writeFileSync(
        probe,
        `import { readFileSync } from "node:fs"\nconst sources = JSON.parse(readFileSync(${
          JSON.stringify(input)
        }, "utf8"))\nconst t0 = performance.now()\nconst { classifySource } = await import(${
          JSON.stringify(pathToFileURL(bundle).href)
        })\nlet flagged = 0\nfor (const s of sources) for (const row of classifySource(s)) for (const v of row) if (v.value !== "not") flagged++\nconsole.log(JSON.stringify({ ms: performance.now() - t0, flagged }))\n`
      )
      const colds = []
      for (let i = 0; i < 3; i++) {
        const r = spawnSync(process.execPath, [probe], { encoding: "utf8" })
        if (r.status !== 0) throw new Error(`cold run failed: ${r.stderr}`)
        colds.push(JSON.parse(r.stdout).ms)
      }
      // Warm: the same process, after one call (data compiled, JIT warm; memos are per call).
      // Interleaved with the rules alone (judgeSource: no second stage, no calibration), for the ratio.
      const { classifySource, judgeSource } = await import(pathToFileURL(bundle).href)
      const warm = []
      const rules = []
      for (let i = 0; i <= runs; i++) {
        const t0 = performance.now()
        for (const s of sources) classifySource(s)
        const t1 = performance.now()
        for (const s of sources) judgeSource(s)
        if (i > 0) {
          warm.push(t1 - t0)
          rules.push(performance.now() - t1)
        }
      }
      results.push({
        workload: distinct ? "every name distinct" : "real names",
        columns,
        sources: sources.length,
        coldMs: round(median(colds)),
        warmMs: round(median(warm)),
        warmMin: round(Math.min(...warm)),
        warmMax: round(Math.max(...warm)),
        usPerColumn: round((median(warm) * 1000) / columns, 2),
        rulesWarmMs: round(median(rules))
      })
    }
    const data = {
      date: new Date().toISOString(),
      machine: await machine(),
      load: await loadAvg(),
      targetMs: TARGET_MS,
      results
    }
    data.file = writeResults("classify", data)
    return data
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

export const printClassify = (data, log = console.log, summary = false) => {
  const rows = data.results.map((
    r
  ) => [
    r.workload,
    r.columns.toLocaleString("en"),
    r.sources,
    `${r.coldMs} ms`,
    `${r.warmMs} ms (${r.warmMin}–${r.warmMax})`,
    `${r.usPerColumn} µs`,
    r.rulesWarmMs === undefined ? "-" : `${r.rulesWarmMs} ms (×${round(r.warmMs / r.rulesWarmMs, 2)})`,
    r.warmMs < data.targetMs && r.coldMs < data.targetMs ? "met" : "MISSED"
  ])
  if (!summary) {
    log(
      `classifier, ${data.machine.cpus} cores, load ${
        data.load.join(" ")
      }; target < ${data.targetMs} ms for 200,000 columns`
    )
  }
  log(
    textTable([
      "workload",
      "columns",
      "sources",
      "cold (fresh process)",
      "warm median (min–max)",
      "per column",
      "rules alone warm (whole ×)",
      "target"
    ], rows)
  )
  if (!summary) log(`results: ${data.file}`)
}

export const classifyMissed = (data) => data.results.some((r) => r.warmMs >= data.targetMs || r.coldMs >= data.targetMs)

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const data = await runClassifyBench(process.argv.slice(2))
  printClassify(data)
}
