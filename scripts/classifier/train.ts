/**
 * `npm run classifier:train`: fits the classifier's calibration (src/classifier/calibrate.ts) on the whole
 * labelled corpus (test/classifier) and writes src/classifier/data/calibration.json. Deterministic: the
 * same corpus and rules give the same file byte for byte; `--check` exits 1 when the file is not what
 * the corpus gives (so a rule change that was not followed by a training run is caught).
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { apps, calibrationOf, loadCorpus, root } from "./lib.js"

const examples = loadCorpus()
const digest = crypto.createHash("sha256")
for (const e of examples) digest.update(`${e.app}\u0000${e.label.schema}\u0000${e.label.table}\u0000${e.label.column}\u0000${e.label.label}\n`)
const version = `corpus-${digest.digest("hex").slice(0, 12)}`
const calibration = calibrationOf(examples, version)
const text = JSON.stringify(calibration, null, 1).replace(/\[\n\s+(\d+),\n\s+(\d+)\n\s+\]/g, "[$1, $2]") + "\n"
const file = path.join(root, "src/classifier/data/calibration.json")
if (process.argv.includes("--check")) {
  const same = fs.existsSync(file) && fs.readFileSync(file, "utf8") === text
  console.log(same ? "calibration.json is what the corpus gives" : "calibration.json is stale: run npm run classifier:train")
  process.exit(same ? 0 : 1)
}
fs.writeFileSync(file, text)
console.log(`calibration ${version}: ${examples.length} labelled columns of ${apps(examples).length} applications, ${Object.keys(calibration.rules).length} rules, ${Object.keys(calibration.families).length} rule families → ${path.relative(root, file)}`)
