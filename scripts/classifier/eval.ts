/**
 * `npm run classifier:eval`: leave-one-application-out figures for the classifier.
 *
 * The classifier is the rules (src/classifier), then the second stage (src/classifier/model.ts) on the
 * rules' `not`s, with every confidence calibrated (calibrate.ts). For every labelled application the
 * second stage is trained on all the OTHER applications, and the calibration is fitted on the other
 * applications' cross-fitted verdicts; only then is the application scored. (The other applications'
 * verdicts come from second stages that did see the scored one: one level of nesting is left out, which
 * would cost 50× the time; the calibration reads only their class and rule.) Applications fall in three
 * groups (scripts/classifier/lib.ts): the 15 corpora the rules were written on, the real applications
 * they were revised on, and the applications labelled after the rules were frozen — the held-out
 * judgement. The rules alone (calibrated the same way) are shown beside it.
 *
 * Prints the per-application table, the totals per group, the reliability table, and writes
 * scripts/classifier/results/latest.json. `--apps a,b` limits the scoring to some applications; `--only a,b`
 * limits the whole run to some applications (the others are neither trained on nor scored).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import {
  apps,
  argValue,
  calibratedLoao,
  crossFitted,
  type Figures,
  figures,
  type Judged,
  loadCorpus,
  type Prediction,
  reliability,
  revisedOn,
  root,
  tunedOn,
  writtenOn
} from "./lib.js"

const t0 = performance.now()
const examples = loadCorpus({ only: argValue("--only")?.split(",") })
const all = apps(examples)
const scoreApps = argValue("--apps")?.split(",") ?? all
const whole = crossFitted(examples, (app, i, n) => process.stderr.write(`\r  held out ${i + 1}/${n} ${app.padEnd(40)}`))
process.stderr.write("\n")
const rulesOnly: ReadonlyArray<Judged> = examples.map((e) => ({ app: e.app, label: e.label, verdict: e.engine }))

/** Each application scored with a calibration fitted without it. */
const predict = (judged: ReadonlyArray<Judged>): Array<Prediction> =>
  calibratedLoao(judged)
    .filter((e) => scoreApps.includes(e.app))
    .map((e) => ({ app: e.app, actual: e.label.label, predicted: e.verdict.value, confidence: e.verdict.confidence }))
const classifier = predict(whole)
const rules = predict(rulesOnly)

const pct = (x: number): string => (x * 100).toFixed(1).padStart(5)
const cls = (c: Figures["special"]): string => (c.n === 0 ? "     -" : `${pct(c.recall)}`)
const header =
  "application                              cols | classifier P   R    exact  spec.R (n)   crim.R (n)   ECE  | rules P   R"
const row = (name: string, e: Figures, m: Figures): string =>
  `${name.padEnd(40)} ${String(e.n).padStart(5)} |     ${pct(e.precision)} ${pct(e.recall)}  ${pct(e.exact)}  ${
    cls(e.special)
  } (${String(e.special.n).padStart(3)})  ${cls(e.criminal)} (${String(e.criminal.n).padStart(3)})  ${
    e.ece.toFixed(3)
  } | ${pct(m.precision)} ${pct(m.recall)}`
const of = (ps: ReadonlyArray<Prediction>, pred: (p: Prediction) => boolean) => figures(ps.filter(pred))
const group = (
  app: string
): string => (writtenOn.has(app) ? "written-on" : revisedOn.has(app) ? "revised-on" : "held-out")

const lines = [header]
const perApp: Record<string, { readonly classifier: Figures; readonly rules: Figures; readonly group: string }> = {}
for (const app of scoreApps) {
  if (!all.includes(app)) continue
  const e = of(classifier, (p) => p.app === app)
  const m = of(rules, (p) => p.app === app)
  perApp[app] = { classifier: e, rules: m, group: group(app) }
  lines.push(row(`${app}${writtenOn.has(app) ? " (written on)" : revisedOn.has(app) ? " (revised on)" : ""}`, e, m))
}
const heldOut = (p: Prediction) => !tunedOn.has(p.app)
const revised = (p: Prediction) => revisedOn.has(p.app)
const totals = {
  all: { classifier: figures(classifier), rules: figures(rules) },
  revisedOn: { classifier: of(classifier, revised), rules: of(rules, revised) },
  heldOut: { classifier: of(classifier, heldOut), rules: of(rules, heldOut) }
}
const count = (pred: (a: string) => boolean) => scoreApps.filter((a) => all.includes(a) && pred(a)).length
lines.push("-".repeat(header.length))
lines.push(row("ALL", totals.all.classifier, totals.all.rules))
lines.push(
  row(
    `revised on (${count((a) => revisedOn.has(a))} applications)`,
    totals.revisedOn.classifier,
    totals.revisedOn.rules
  )
)
const heldOutApps = count((a) => !tunedOn.has(a))
lines.push(
  heldOutApps === 0
    ? "HELD OUT from the rules: none (every labelled application has been revised on; label new ones to judge again)"
    : row(`HELD OUT from the rules (${heldOutApps})`, totals.heldOut.classifier, totals.heldOut.rules)
)
const full = (name: string, f: Figures): string =>
  `  ${name.padEnd(38)} P ${pct(f.precision)}  R ${pct(f.recall)}  F1 ${pct(f.f1)}  exact ${pct(f.exact)}  special R ${
    pct(f.special.recall)
  } (${f.special.n})  criminal R ${pct(f.criminal.recall)} (${f.criminal.n})  ECE ${f.ece.toFixed(3)}`
if (heldOutApps > 0) {
  lines.push(
    "",
    "held out from the rules (labelled after they were frozen), in full:",
    full("classifier (LOAO)", totals.heldOut.classifier),
    full("rules alone (LOAO calibration)", totals.heldOut.rules)
  )
}
lines.push(
  "all applications, in full:",
  full("classifier (LOAO)", totals.all.classifier),
  full("rules alone (LOAO calibration)", totals.all.rules)
)
const rel = reliability(classifier)
lines.push("", "reliability (the classifier, leave-one-application-out): confidence bin → mean confidence, share right")
for (const b of rel.bins) {
  lines.push(
    `  ${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)}  n=${String(b.n).padStart(5)}  confidence ${
      b.confidence.toFixed(3)
    }  right ${b.right.toFixed(3)}`
  )
}
lines.push(`expected calibration error ${rel.ece.toFixed(3)}`, `(${((performance.now() - t0) / 1000).toFixed(1)} s)`)
console.log(lines.join("\n"))

const out = path.join(root, "scripts/classifier/results")
fs.mkdirSync(out, { recursive: true })
fs.writeFileSync(
  path.join(out, "latest.json"),
  JSON.stringify({ apps: perApp, totals, reliability: rel }, null, 2) + "\n"
)
