/**
 * Evaluates the classifier against the labelled corpus in test/classifier/corpus/<name>.json and
 * test/classifier/labels/<name>.csv (written independently from the classifier, judged by
 * CLASSIFICATION.md). Prints precision/recall per corpus and overall, per-class numbers for special and
 * criminal, a calibration table, and writes every disagreement to test-artifacts/classifier-errors.csv.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  calibratedLoao,
  calibrationFile,
  calibrationFileText,
  crossFitted,
  type Label,
  loadCorpus,
  modelFile,
  modelFileText,
  revisedOn,
  trainModel,
  tunedOn,
  writtenOn
} from "../../scripts/classifier/lib.js"
import type { ClassValue, ColumnVerdict } from "../../src/domain/Metadata.js"

/**
 * Floors just below today's leave-one-application-out figures (2026-11-24, rules + second stage), so they
 * may only rise: on the 101 real applications the rules were revised on (P 0.774, R 0.726), and on the
 * 8 applications labelled while the rules and the second stage's design were frozen (the 13th judgement,
 * docs/classifier.md: P 0.772, R 0.687; each new held-out batch resets this one). Far
 * from the goal of issue 9 (P ≥ 0.95, R ≥ 0.93): regression guards only.
 */
const FLOOR = { revised: { precision: 0.77, recall: 0.71 }, heldOut: { precision: 0.75, recall: 0.67 } }

const root = path.resolve(import.meta.dirname, "../..")
const artifacts = path.join(root, "test-artifacts")

interface Scored {
  readonly corpus: string
  readonly label: Label
  readonly type: string
  readonly verdict: ColumnVerdict
}

const isPersonalType = (v: ClassValue): boolean => v !== "not"

interface Counts {
  tp: number
  fp: number
  fn: number
  tn: number
}
const emptyCounts = (): Counts => ({ tp: 0, fp: 0, fn: 0, tn: 0 })
const add = (c: Counts, predicted: boolean, actual: boolean): void => {
  if (predicted && actual) c.tp++
  else if (predicted) c.fp++
  else if (actual) c.fn++
  else c.tn++
}
const precision = (c: Counts): number => (c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp))
const recall = (c: Counts): number => (c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn))
const pct = (x: number): string => (x * 100).toFixed(1).padStart(5)

const csvCell = (s: string | number | null): string => {
  const v = s === null ? "" : String(s)
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, "\"\"")}"` : v
}

// Every labelled column with the classifier's verdict leave-one-application-out: the second stage trained
// without the application, the calibration fitted without it (scripts/classifier/lib.ts, as in
// `npm run classifier:eval`). The same cross-fitted verdicts are what the shipped calibration is fitted on.
const examples = loadCorpus()
const cross = crossFitted(examples)

const loadAll = (): ReadonlyArray<Scored> =>
  calibratedLoao(cross).map((c, i) => ({ corpus: c.app, label: c.label, type: examples[i]!.type, verdict: c.verdict }))

describe("classifier evaluation on the labelled corpus", () => {
  const everything = loadAll()
  // The rules were written against the 15 fixture corpora and revised against 30 real applications; every
  // other application was labelled after the rules were frozen and is held out (scripts/classifier/lib.ts).
  // Each group is judged on its own.
  const scored = everything.filter((s) => writtenOn.has(s.corpus))
  const revised = everything.filter((s) => revisedOn.has(s.corpus))
  const heldOut = everything.filter((s) => !tunedOn.has(s.corpus))

  const floor = (
    group: ReadonlyArray<Scored>,
    name: string,
    min: { readonly precision: number; readonly recall: number }
  ) => {
    const bin = emptyCounts()
    for (const s of group) add(bin, isPersonalType(s.verdict.value), isPersonalType(s.label.label))
    console.log(
      `${name}: ${
        new Set(group.map((s) => s.corpus)).size
      } applications, ${group.length} columns; personal-type precision ${pct(precision(bin))}%, recall ${
        pct(recall(bin))
      }% (npm run classifier:eval for the full table)`
    )
    expect(precision(bin)).toBeGreaterThanOrEqual(min.precision)
    expect(recall(bin)).toBeGreaterThanOrEqual(min.recall)
  }

  it("on the applications the rules were revised on: today's figures, as a floor that may only rise", () => {
    expect(revised.length).toBeGreaterThan(10_000)
    floor(revised, "revised-on applications", FLOOR.revised)
  })

  // Empty between a revision that took the held-out applications into the development set and the
  // labelling of new ones (test/classifier/README.md): then there is nothing held out to judge.
  it.skipIf(heldOut.length === 0)(
    "on applications held out from the rules: today's figures, as a floor that may only rise",
    () => {
      expect(heldOut.length).toBeGreaterThan(1_000)
      floor(heldOut, "held-out applications", FLOOR.heldOut)
    }
  )

  it("the shipped second stage and calibration are the ones the corpus gives (npm run classifier:train)", () => {
    expect(cross.every((c, i) => c.label === examples[i]!.label)).toBe(true)
    expect(fs.readFileSync(modelFile, "utf8")).toBe(modelFileText(trainModel(examples)))
    expect(fs.readFileSync(calibrationFile, "utf8")).toBe(calibrationFileText(cross))
  })

  it("reaches ≥ 0.90 precision and recall for personal-type vs not, and finds special/criminal", () => {
    if (scored.length === 0) {
      console.log("no labelled corpus yet (test/classifier/labels/*.csv)")
      return
    }
    const overall = emptyCounts()
    const special = emptyCounts()
    const criminal = emptyCounts()
    const perCorpus = new Map<string, { bin: Counts; special: Counts; criminal: Counts; n: number; exact: number }>()
    let exact = 0
    const buckets = new Map<number, { n: number; right: number }>()
    for (const s of scored) {
      const predicted = s.verdict.value
      const actual = s.label.label
      let pc = perCorpus.get(s.corpus)
      if (pc === undefined) {
        pc = { bin: emptyCounts(), special: emptyCounts(), criminal: emptyCounts(), n: 0, exact: 0 }
        perCorpus.set(s.corpus, pc)
      }
      add(overall, isPersonalType(predicted), isPersonalType(actual))
      add(pc.bin, isPersonalType(predicted), isPersonalType(actual))
      add(special, predicted === "special", actual === "special")
      add(pc.special, predicted === "special", actual === "special")
      add(criminal, predicted === "criminal", actual === "criminal")
      add(pc.criminal, predicted === "criminal", actual === "criminal")
      pc.n++
      if (predicted === actual) {
        exact++
        pc.exact++
      }
      const b = Math.min(9, Math.floor(s.verdict.confidence * 10))
      const bucket = buckets.get(b) ?? { n: 0, right: 0 }
      bucket.n++
      if (predicted === actual) bucket.right++
      buckets.set(b, bucket)
    }

    const lines: Array<string> = []
    lines.push("corpus                         n   P(pers)  R(pers)  exact   special P/R        criminal P/R")
    const row = (name: string, n: number, bin: Counts, ex: number, sp: Counts, cr: Counts): string =>
      `${name.padEnd(28)} ${String(n).padStart(4)}   ${pct(precision(bin))}    ${pct(recall(bin))}   ${
        pct(ex / n)
      }   ` +
      `${sp.tp + sp.fn + sp.fp === 0 ? "     -      " : `${pct(precision(sp))}/${pct(recall(sp))}`}   ` +
      `${cr.tp + cr.fn + cr.fp === 0 ? "     -" : `${pct(precision(cr))}/${pct(recall(cr))}`}`
    for (const [name, pc] of [...perCorpus].sort()) {
      lines.push(row(name, pc.n, pc.bin, pc.exact, pc.special, pc.criminal))
    }
    lines.push(row("ALL", scored.length, overall, exact, special, criminal))
    lines.push("")
    lines.push("calibration (4-class): confidence bucket → share right")
    for (const [b, v] of [...buckets].sort((x, y) => x[0] - y[0])) {
      lines.push(
        `  ${(b / 10).toFixed(1)}–${((b + 1) / 10).toFixed(1)}  n=${String(v.n).padStart(4)}  right=${
          pct(v.right / v.n)
        }%`
      )
    }
    // Per rule: how often the rule's verdict is right, next to the confidence it claims.
    const rules = new Map<string, { n: number; right: number; conf: number }>()
    for (const s of scored) {
      const r = rules.get(s.verdict.rule) ?? { n: 0, right: 0, conf: 0 }
      r.n++
      r.conf += s.verdict.confidence
      if (s.verdict.value === s.label.label) r.right++
      rules.set(s.verdict.rule, r)
    }
    lines.push("")
    lines.push("per rule (n ≥ 10): n, share right, mean confidence")
    for (const [rule, r] of [...rules].filter(([, r]) => r.n >= 10).sort((a, b) => b[1].n - a[1].n)) {
      lines.push(
        `  ${rule.padEnd(34)} n=${String(r.n).padStart(4)}  right=${pct(r.right / r.n)}%  conf=${
          (r.conf / r.n).toFixed(2)
        }`
      )
    }
    console.log(lines.join("\n"))

    // Disagreements for review.
    fs.mkdirSync(artifacts, { recursive: true })
    const header =
      "corpus,schema,table,column,type,label,predicted,label_category,predicted_category,rule,confidence,evidence,rationale"
    const errors = scored
      .filter((s) => s.verdict.value !== s.label.label)
      .map((s) =>
        [
          s.corpus,
          s.label.schema,
          s.label.table,
          s.label.column,
          s.type,
          s.label.label,
          s.verdict.value,
          s.label.category,
          s.verdict.category,
          s.verdict.rule,
          s.verdict.confidence,
          s.verdict.evidence.join(" | "),
          s.label.rationale
        ]
          .map(csvCell)
          .join(",")
      )
    fs.writeFileSync(path.join(artifacts, "classifier-errors.csv"), [header, ...errors].join("\n") + "\n")

    expect(precision(overall)).toBeGreaterThanOrEqual(0.9)
    expect(recall(overall)).toBeGreaterThanOrEqual(0.9)
    if (special.tp + special.fn >= 5) {
      expect(recall(special)).toBeGreaterThanOrEqual(0.8)
      expect(precision(special)).toBeGreaterThanOrEqual(0.8)
    }
    if (criminal.tp + criminal.fn >= 5) {
      expect(recall(criminal)).toBeGreaterThanOrEqual(0.7)
      expect(precision(criminal)).toBeGreaterThanOrEqual(0.7)
    }
  })
})
