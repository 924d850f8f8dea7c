/**
 * `npm run classifier:train`: fits the classifier's calibration (src/classifier/calibrate.ts) on the whole
 * labelled corpus (test/classifier) and writes src/classifier/data/calibration.json. Deterministic: the
 * same corpus and rules give the same file byte for byte; `--check` exits 1 when the file is not what
 * the corpus gives (the evaluation test checks the same, so a rule change not followed by a training run
 * fails CI).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { apps, calibrationFile, calibrationFileText, loadCorpus, root } from "./lib.js"

const examples = loadCorpus({ features: false })
const text = calibrationFileText(examples)
if (process.argv.includes("--check")) {
  const same = fs.existsSync(calibrationFile) && fs.readFileSync(calibrationFile, "utf8") === text
  console.log(same ? "calibration.json is what the corpus gives" : "calibration.json is stale: run npm run classifier:train")
  process.exit(same ? 0 : 1)
}
fs.writeFileSync(calibrationFile, text)
const parsed = JSON.parse(text) as { version: string; rules: object; families: object }
console.log(`calibration ${parsed.version}: ${examples.length} labelled columns of ${apps(examples).length} applications, ${Object.keys(parsed.rules).length} rules, ${Object.keys(parsed.families).length} rule families → ${path.relative(root, calibrationFile)}`)
