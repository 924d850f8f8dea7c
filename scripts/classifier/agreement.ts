/**
 * `npx vite-node scripts/classifier/agreement.ts`: how far two labellers agree. test/classifier/agreement/
 * holds a second, independent labelling (by a labeller who saw neither test/classifier/labels nor the
 * classifier) of every column of 118 tables drawn at random from the development applications
 * (tables.csv); this compares it with the corpus labels: personal-type agreement, Cohen's κ, exact-class
 * agreement, the confusion pairs and the second labeller's precision/recall against the corpus.
 */
import { parse } from "csv-parse/sync"
import * as fs from "node:fs"
import * as path from "node:path"
import { root } from "./lib.js"

type Row = Record<string, string>
const read = (file: string): Array<Row> =>
  parse(fs.readFileSync(file, "utf8"), { columns: true, bom: true, skip_empty_lines: true }) as Array<Row>
const second = read(path.join(root, "test/classifier/agreement/labels.csv"))
const corpus = new Map<string, Map<string, string>>()
const corpusLabel = (r: Row): string | undefined => {
  const app = r.app!
  let m = corpus.get(app)
  if (m === undefined) {
    m = new Map(
      read(path.join(root, "test/classifier/labels", `${app}.csv`)).map((
        l
      ) => [`${l.schema}\u0001${l.table}\u0001${l.column}`, l.label!])
    )
    corpus.set(app, m)
  }
  return m.get(`${r.schema}\u0001${r.table}\u0001${r.column}`)
}
let tp = 0, fp = 0, fn = 0, tn = 0, exact = 0
const pairs = new Map<string, number>()
for (const r of second) {
  const a = corpusLabel(r)
  if (a === undefined) throw new Error(`${r.app} ${r.table}.${r.column}: not in the corpus`)
  const pa = a !== "not", pb = r.label !== "not"
  if (pa && pb) tp++
  else if (pb) fp++
  else if (pa) fn++
  else tn++
  if (a === r.label) exact++
  else pairs.set(`${a} → ${r.label}`, (pairs.get(`${a} → ${r.label}`) ?? 0) + 1)
}
const n = second.length
const po = (tp + tn) / n
const pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
const pct = (x: number) => `${(x * 100).toFixed(1)} %`
console.log(
  `${n} columns of ${new Set(second.map((r) => `${r.app}.${r.table}`)).size} tables in ${
    new Set(second.map((r) => r.app)).size
  } applications`
)
console.log(
  `personal-type agreement ${pct(po)}, Cohen's kappa ${((po - pe) / (1 - pe)).toFixed(3)}, exact class ${
    pct(exact / n)
  }`
)
console.log(
  `the second labeller against the corpus labels: precision ${(tp / (tp + fp)).toFixed(3)}, recall ${
    (tp / (tp + fn)).toFixed(3)
  }`
)
console.log(
  `disagreements (corpus → second): ${[...pairs].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v}`).join(", ")}`
)
