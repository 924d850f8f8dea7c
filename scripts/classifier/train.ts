/**
 * `npm run classifier:train`: trains the classifier's learnt parts on the whole labelled corpus
 * (test/classifier) and writes them:
 *   - src/classifier/data/model.json — the second stage (src/classifier/model.ts), a logistic regression
 *     over the rules' verdicts and the columns' context, trained on every labelled column;
 *   - src/classifier/data/calibration.json — the confidence calibration (src/classifier/calibrate.ts),
 *     fitted on the verdicts of the whole classifier with each application judged by a second stage
 *     trained without it (so the counts are those of columns the model has not seen).
 * Deterministic: the same corpus and rules give the same files byte for byte; `--check` exits 1 when a
 * file is not what the corpus gives (the evaluation test checks the same, so a rule change not followed
 * by a training run fails CI). `--only a,b` trains on some applications only (while others are being
 * labelled; the shipped files are trained on all).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import {
  apps,
  argValue,
  calibrationFile,
  calibrationFileText,
  crossFitted,
  loadCorpus,
  modelFile,
  modelFileText,
  root,
  trainModel
} from "./lib.js"

const t0 = performance.now()
const examples = loadCorpus({ only: argValue("--only")?.split(",") })
const model = modelFileText(trainModel(examples))
const calibration = calibrationFileText(
  crossFitted(examples, (app, i, n) => process.stderr.write(`\r  cross-fitting ${i + 1}/${n} ${app.padEnd(40)}`))
)
process.stderr.write("\n")
const files: ReadonlyArray<readonly [string, string]> = [[modelFile, model], [calibrationFile, calibration]]
if (process.argv.includes("--check")) {
  const stale = files.filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text)
  for (const [file] of stale) console.log(`${path.relative(root, file)} is stale: run npm run classifier:train`)
  if (stale.length === 0) console.log("model.json and calibration.json are what the corpus gives")
  process.exit(stale.length === 0 ? 0 : 1)
}
for (const [file, text] of files) fs.writeFileSync(file, text)
const m = JSON.parse(model) as { version: string; weights: object }
const c = JSON.parse(calibration) as { version: string; rules: object }
console.log(
  `${examples.length} labelled columns of ${apps(examples).length} applications (${
    ((performance.now() - t0) / 1000).toFixed(1)
  } s):\n` +
    `  second stage ${m.version}: ${Object.keys(m.weights).length} weighted features → ${
      path.relative(root, modelFile)
    }\n` +
    `  calibration ${c.version}: ${Object.keys(c.rules).length} rules → ${path.relative(root, calibrationFile)}`
)
