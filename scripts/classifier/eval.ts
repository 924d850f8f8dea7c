/**
 * `npm run classifier:eval`: leave-one-application-out figures for the classifier.
 *
 * The classifier is the rules (src/classifier) with their confidence calibrated (calibrate.ts). For every
 * labelled application the calibration is fitted on all the OTHER applications and only then the
 * application is scored. Applications fall in three groups (scripts/classifier/lib.ts): the 15 corpora the
 * rules were written on, the 25 real applications they were revised on, and the applications labelled after
 * the rules were frozen — the held-out judgement. The experimental second-stage model
 * (scripts/classifier/model.ts, not shipped) is shown beside it, trained and temperature-fitted without
 * the application being scored.
 *
 * Prints the per-application table, the totals per group, the reliability table, and writes
 * scripts/classifier/results/latest.json. `--apps a,b` limits the scoring to some applications.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { classes } from "./model.js"
import { calibratedConfidence } from "../../src/classifier/calibrate.js"
import { apps, calibrationOf, figures, revisedOn, tunedOn, writtenOn, fitTemperature, loadCorpus, reliability, root, scoresOf, train, type Example, type Figures, type Prediction } from "./lib.js"

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}

const t0 = performance.now()
const examples = loadCorpus()
const all = apps(examples)
const scoreApps = arg("--apps")?.split(",") ?? all
const byApp = new Map<string, Array<Example>>()
for (const e of examples) (byApp.get(e.app) ?? byApp.set(e.app, []).get(e.app)!).push(e)

// Held-out raw scores of every application (model trained without it).
const raw = new Map<string, ReadonlyArray<{ readonly scores: ReadonlyArray<number>; readonly y: number }>>()
for (const app of all) {
  const model = train(examples.filter((e) => e.app !== app))
  raw.set(app, byApp.get(app)!.map((e) => ({ scores: scoresOf(model, e.features), y: classes.indexOf(e.label.label) })))
  process.stderr.write(`\r  held out ${raw.size}/${all.length} ${app.padEnd(40)}`)
}
process.stderr.write("\n")

const softmax = (s: ReadonlyArray<number>, t: number): Array<number> => {
  const max = Math.max(...s)
  const e = s.map((x) => Math.exp((x - max) / t))
  const z = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / z)
}

const modelPredictions: Array<Prediction> = []
const enginePredictions: Array<Prediction> = []
for (const app of scoreApps) {
  const rows = raw.get(app)
  if (rows === undefined) continue
  // The temperature is fitted without the application being scored, too.
  const t = fitTemperature(all.filter((a) => a !== app).flatMap((a) => raw.get(a)!))
  // The rules' confidence is calibrated on the other applications only.
  const calibration = calibrationOf(examples.filter((e) => e.app !== app), `without-${app}`)
  byApp.get(app)!.forEach((e, i) => {
    const p = softmax(rows[i]!.scores, t)
    let k = 0
    for (let x = 1; x < p.length; x++) if (p[x]! > p[k]!) k = x
    modelPredictions.push({ app, actual: e.label.label, predicted: classes[k]!, confidence: p[k]! })
    enginePredictions.push({ app, actual: e.label.label, predicted: e.engine.value, confidence: calibratedConfidence(calibration, e.engine) })
  })
}

const pct = (x: number): string => (x * 100).toFixed(1).padStart(5)
const cls = (c: Figures["special"]): string => (c.n === 0 ? "     -" : `${pct(c.recall)}`)
const header = "application                              cols | classifier P   R    exact  spec.R (n)   crim.R (n)   ECE  | model P   R"
const row = (name: string, e: Figures, m: Figures): string =>
  `${name.padEnd(40)} ${String(e.n).padStart(5)} |     ${pct(e.precision)} ${pct(e.recall)}  ${pct(e.exact)}  ${cls(e.special)} (${String(e.special.n).padStart(3)})  ${cls(e.criminal)} (${String(e.criminal.n).padStart(3)})  ${e.ece.toFixed(3)} | ${pct(m.precision)} ${pct(m.recall)}`
const of = (ps: ReadonlyArray<Prediction>, pred: (p: Prediction) => boolean) => figures(ps.filter(pred))

const lines = [header]
const perApp: Record<string, { readonly rules: Figures; readonly model: Figures; readonly group: string }> = {}
for (const app of scoreApps) {
  if (!raw.has(app)) continue
  const e = of(enginePredictions, (p) => p.app === app)
  const m = of(modelPredictions, (p) => p.app === app)
  perApp[app] = { rules: e, model: m, group: writtenOn.has(app) ? "written-on" : revisedOn.has(app) ? "revised-on" : "held-out" }
  lines.push(row(`${app}${writtenOn.has(app) ? " (written on)" : revisedOn.has(app) ? " (revised on)" : ""}`, e, m))
}
const heldOut = (p: Prediction) => !tunedOn.has(p.app)
const totals = {
  all: { rules: figures(enginePredictions), model: figures(modelPredictions) },
  heldOut: { rules: of(enginePredictions, heldOut), model: of(modelPredictions, heldOut) }
}
lines.push("-".repeat(header.length))
lines.push(row("ALL", totals.all.rules, totals.all.model))
lines.push(row("revised on (25 applications)", of(enginePredictions, (p) => revisedOn.has(p.app)), of(modelPredictions, (p) => revisedOn.has(p.app))))
lines.push(row("HELD OUT from the rules", totals.heldOut.rules, totals.heldOut.model))
const full = (name: string, f: Figures): string =>
  `  ${name.padEnd(38)} P ${pct(f.precision)}  R ${pct(f.recall)}  F1 ${pct(f.f1)}  exact ${pct(f.exact)}  special R ${pct(f.special.recall)} (${f.special.n})  criminal R ${pct(f.criminal.recall)} (${f.criminal.n})  ECE ${f.ece.toFixed(3)}`
lines.push("", "held out from the rules (labelled after they were frozen), in full:", full("classifier (rules, calibrated LOAO)", totals.heldOut.rules), full("experimental model (LOAO)", totals.heldOut.model))
const rel = reliability(enginePredictions)
lines.push("", "reliability (the classifier: rules, confidence calibrated leave-one-application-out): confidence bin → mean confidence, share right")
for (const b of rel.bins) lines.push(`  ${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)}  n=${String(b.n).padStart(5)}  confidence ${b.confidence.toFixed(3)}  right ${b.right.toFixed(3)}`)
lines.push(`expected calibration error ${rel.ece.toFixed(3)}`, `(${((performance.now() - t0) / 1000).toFixed(1)} s)`)
console.log(lines.join("\n"))

const out = path.join(root, "scripts/classifier/results")
fs.mkdirSync(out, { recursive: true })
fs.writeFileSync(path.join(out, "latest.json"), JSON.stringify({ apps: perApp, totals, reliability: rel }, null, 2) + "\n")
