/**
 * Calibration: the rules give each verdict a hand-set confidence; this turns it into the probability
 * that the verdict is right, as measured on the labelled corpus (test/classifier). For each rule and each
 * rule family (`token`, `context`, `fk`…) per class, the corpus counts how often the verdict was right;
 * the confidence is shrunk toward those shares, more the more columns stand behind them:
 *
 *   family = (right_f + k · rules' confidence) / (n_f + k)
 *   final  = (right_r + k · family) / (n_r + k)
 *
 * The counts are a data file (data/calibration.json) written by `npm run classifier:train`
 * (scripts/classifier/train.ts) from the corpus; nothing is fetched or learnt at run time.
 */
import type { ColumnVerdict } from "../domain/Metadata.js"

/** `<class>|<rule or family>` → [columns, right]. */
export interface Calibration {
  readonly version: string
  /** Pseudo-count of the prior: how many columns the rules' own confidence is worth. */
  readonly k: number
  readonly families: Readonly<Record<string, readonly [number, number]>>
  readonly rules: Readonly<Record<string, readonly [number, number]>>
}

export const ruleFamily = (rule: string): string => {
  const i = rule.indexOf(":")
  return i === -1 ? rule : rule.slice(0, i)
}

const shrink = (counts: readonly [number, number] | undefined, prior: number, k: number): number =>
  counts === undefined ? prior : (counts[1] + k * prior) / (counts[0] + k)

/** The calibrated confidence of one verdict, rounded to two decimals, within [0.05, 0.99]. */
export const calibratedConfidence = (c: Calibration, v: ColumnVerdict): number => {
  const family = shrink(c.families[`${v.value}|${ruleFamily(v.rule)}`], v.confidence, c.k)
  const p = shrink(c.rules[`${v.value}|${v.rule}`], family, c.k)
  return Math.round(Math.min(0.99, Math.max(0.05, p)) * 100) / 100
}

/** Counts of a set of judged verdicts: the calibration to ship (or, left out of one application, to test on it). */
export const fitCalibration = (
  judged: Iterable<{ readonly verdict: ColumnVerdict; readonly right: boolean }>,
  version: string,
  k = 20
): Calibration => {
  const families: Record<string, [number, number]> = {}
  const rules: Record<string, [number, number]> = {}
  const bump = (m: Record<string, [number, number]>, key: string, right: boolean) => {
    const c = (m[key] ??= [0, 0])
    c[0]++
    if (right) c[1]++
  }
  for (const { verdict, right } of judged) {
    bump(families, `${verdict.value}|${ruleFamily(verdict.rule)}`, right)
    bump(rules, `${verdict.value}|${verdict.rule}`, right)
  }
  const sorted = (m: Record<string, [number, number]>) =>
    Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return { version, k, families: sorted(families), rules: sorted(rules) }
}

/** Applies a calibration to a source's verdicts; verdicts are shared between columns, so each is mapped once. */
export const applyCalibration = (
  c: Calibration,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const done = new Map<ColumnVerdict, ColumnVerdict>()
  return verdicts.map((row) =>
    row.map((v) => {
      let out = done.get(v)
      if (out === undefined) {
        const confidence = calibratedConfidence(c, v)
        out = confidence === v.confidence ? v : { ...v, confidence }
        done.set(v, out)
      }
      return out
    })
  )
}

const isCounts = (u: unknown): u is readonly [number, number] =>
  Array.isArray(u) && u.length === 2 && typeof u[0] === "number" && typeof u[1] === "number" && u[1] <= u[0]
const isCountTable = (u: unknown): u is Record<string, readonly [number, number]> =>
  typeof u === "object" && u !== null && Object.values(u).every(isCounts)

/** Checks the shape of the data file; a malformed file is a build defect, so it throws at module load. */
export const decodeCalibration = (u: unknown): Calibration => {
  if (typeof u !== "object" || u === null) throw new Error("calibration.json: not an object")
  const o = u as Record<string, unknown>
  if (
    typeof o.version !== "string" || typeof o.k !== "number" || o.k <= 0 || !isCountTable(o.families) ||
    !isCountTable(o.rules)
  ) {
    throw new Error("calibration.json: expected { version, k > 0, families, rules } with [columns, right] counts")
  }
  return { version: o.version, k: o.k, families: o.families, rules: o.rules }
}
