// `npm run bench`: builds (through the npm script), then runs the cold-start, scan and read-surface
// benchmarks and prints one summary.
//
//   npm run bench [-- --only coldstart|scan|read|classify] [--strict] [--quick]
//
// --strict exits 1 when a target is missed (by default only a failing benchmark exits 1).
// --quick is a smoke test of the harness (1,000 tables, one run each, 5 cold starts, short loads):
// its numbers are not the benchmark's.
import { classifyMissed, printClassify, runClassifyBench } from "./classify.mjs"
import { printColdstart, runColdstartBench } from "./coldstart.mjs"
import { printRead, runReadBench } from "./read.mjs"
import { printScan, runScanBench } from "./scan.mjs"

const argv = process.argv.slice(2)
const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null
const strict = argv.includes("--strict")
const quick = argv.includes("--quick")

const outcomes = []
const run = async (name, f) => {
  if (only !== null && only !== name) return
  try {
    outcomes.push({ name, result: await f() })
  } catch (e) {
    console.error(`${name} benchmark failed: ${e instanceof Error ? e.message : e}`)
    outcomes.push({ name, error: e })
  }
}
await run("coldstart", () => runColdstartBench(quick ? ["--runs", "5"] : []))
await run("scan", () => runScanBench(quick ? ["--tables", "1000", "--runs", "1", "--psql-runs", "3"] : []))
await run("classify", () => runClassifyBench(quick ? ["--columns", "20000", "--runs", "1"] : []))
await run(
  "read",
  () =>
    runReadBench(
      quick
        ? ["--tables", "1000", "--search-requests", "60", "--duration", "3", "--rounds", "1", "--mcp-calls", "50"]
        : []
    )
)

console.log("\n══════════ Summary ══════════")
let missed = 0
for (const o of outcomes) {
  if (o.error) {
    console.log(`${o.name}: FAILED`)
    continue
  }
  if (o.name === "coldstart") {
    printColdstart(o.result, console.log, true)
    if (!o.result.target.met) missed++
  } else if (o.name === "classify") {
    printClassify(o.result, console.log, true)
    if (classifyMissed(o.result)) missed++
  } else if (o.name === "read") {
    printRead(o.result, console.log, true)
    if (Object.values(o.result.targets).some((t) => !t.met)) missed++
  } else {
    printScan(o.result, console.log, true)
    if (!o.result.targets.firstScanMet || !o.result.targets.rescanMet) missed++
  }
}
const failed = outcomes.filter((o) => o.error).length
console.log(
  `\n${failed ? `${failed} benchmark(s) failed. ` : ""}${
    missed ? `${missed} benchmark(s) missed a target.` : failed ? "" : "All targets met."
  }`
)
process.exit(failed > 0 || (strict && missed > 0) ? 1 : 0)
