/**
 * An experiment toward the classifier's second stage, measured by `npm run classifier:eval` and NOT
 * wired into the tool yet (held out, it does not beat the rules on precision; see
 * test/classifier/README.md): a multinomial logistic regression, trained on the labelled corpus, that re-judges each column from the rule
 * engine's verdict and the column's context — its name tokens, type, keys, comment words, and the role
 * of its table (how many of the table's columns the engine flags, whether its key is a person key,
 * whether it holds special or criminal columns). The engine knows the vocabularies; the model learns
 * how the evidence combines across applications (a counter in a table of people is personal; a
 * `language` column of a lookup table is not). Its probability is the flag's confidence.
 *
 * Pure and synchronous; no data is fetched at run time: the weights are a data file.
 */
import type { ClassValue, ColumnVerdict, RawDataset } from "../../src/domain/Metadata.js"
import { tokenizer, typeFamily } from "../../src/classifier/compile.js"

/** The four classes, in the order of the model's outputs. */
export const classes: ReadonlyArray<ClassValue> = ["not", "personal", "special", "criminal"]

/** The trained weights: one vector of four class scores per feature name, and the class biases. */
export interface ModelWeights {
  readonly version: string
  readonly bias: ReadonlyArray<number>
  readonly weights: Readonly<Record<string, ReadonlyArray<number>>>
  /** Temperature applied to the scores before the softmax (fitted on held-out predictions). */
  readonly temperature: number
}

const bucket = (x: number, edges: ReadonlyArray<number>): number => {
  let i = 0
  while (i < edges.length && x >= edges[i]!) i++
  return i
}

/** What the model knows about a table, computed once per table from the engine's verdicts. */
interface TableRole {
  readonly tokens: ReadonlyArray<string>
  readonly flaggedShare: number
  readonly personKey: boolean
  readonly special: boolean
  readonly criminal: boolean
  readonly referencedBy: number
}

const tableRole = (ds: RawDataset, verdicts: ReadonlyArray<ColumnVerdict>, referencedBy: number): TableRole => {
  let flagged = 0
  let special = false
  let criminal = false
  let personKey = false
  ds.columns.forEach((c, j) => {
    const v = verdicts[j]
    if (v === undefined) return
    if (v.value !== "not") flagged++
    if (v.value === "special") special = true
    if (v.value === "criminal") criminal = true
    if (c.isPrimaryKey && v.value !== "not") personKey = true
  })
  return { tokens: tokenizer.tokens(ds.name), flaggedShare: ds.columns.length === 0 ? 0 : flagged / ds.columns.length, personKey, special, criminal, referencedBy }
}

/** The features of one column: names of indicator features (each counts 1). */
export const columnFeatures = (
  ds: RawDataset,
  j: number,
  verdict: ColumnVerdict,
  role: TableRole,
  target: { readonly role: TableRole | undefined; readonly name: string } | null
): ReadonlyArray<string> => {
  const c = ds.columns[j]!
  const f: Array<string> = []
  const ev = verdict.value
  f.push(`ev:${ev}`, `evc:${ev}:${bucket(verdict.confidence, [0.6, 0.75, 0.85, 0.95])}`)
  f.push(`rule:${verdict.rule.split(":")[0]}`, `meth:${verdict.method}`)
  if (verdict.category !== null) f.push(`cat:${verdict.category.split(".")[0]}`, `catf:${verdict.category}`)
  const tokens = tokenizer.tokens(c.name)
  for (const t of tokens) f.push(`tok:${t}`)
  if (tokens.length > 0) f.push(`first:${tokens[0]}`, `last:${tokens[tokens.length - 1]}`)
  f.push(`ntok:${Math.min(tokens.length, 4)}`)
  const family = typeFamily(c.type)
  f.push(`type:${family}`)
  if (c.isPrimaryKey) f.push("pk")
  if (c.references !== null) f.push("fk")
  // The table's role, and the column in that light.
  const share = bucket(role.flaggedShare, [0.01, 0.2, 0.4, 0.6])
  f.push(`tshare:${share}`, `tshare-ev:${share}:${ev}`, `tshare-type:${share}:${family}`)
  if (role.personKey) f.push("tpk", `tpk-ev:${ev}`, `tpk-type:${family}`, ...(c.isPrimaryKey ? ["tpk-pk"] : []))
  if (role.special) f.push("tspec", `tspec-ev:${ev}`)
  if (role.criminal) f.push("tcrim", `tcrim-ev:${ev}`)
  f.push(`tref:${bucket(role.referencedBy, [1, 3, 8])}`)
  for (const t of role.tokens) f.push(`tbl:${t}`)
  for (const t of tokens) if (role.personKey) f.push(`tpk-tok:${t}`)
  // Where a key points.
  if (target !== null) {
    for (const t of tokenizer.tokens(target.name)) f.push(`fkt:${t}`)
    if (target.role !== undefined) {
      if (target.role.personKey) f.push("fk-person")
      if (target.role.special) f.push("fk-special")
      if (target.role.criminal) f.push("fk-criminal")
      f.push(`fk-share:${bucket(target.role.flaggedShare, [0.01, 0.2, 0.4, 0.6])}`)
    }
  }
  if (c.comment !== null && c.comment !== "") {
    f.push("comment")
    for (const w of tokenizer.words(c.comment).slice(0, 24)) f.push(`cw:${w}`)
  }
  return f
}

/** Features of every column of a source, aligned with `datasets[i].columns[j]`. */
export const sourceFeatures = (
  datasets: ReadonlyArray<RawDataset>,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> => {
  const key = (schema: string | undefined, table: string) => `${schema ?? ""}\u0000${table.toLowerCase()}`
  const refs = new Map<string, number>()
  for (const ds of datasets) for (const c of ds.columns) if (c.references !== null) refs.set(key(c.references.schema ?? ds.schema, c.references.table), (refs.get(key(c.references.schema ?? ds.schema, c.references.table)) ?? 0) + 1)
  const roles = datasets.map((ds, i) => tableRole(ds, verdicts[i] ?? [], refs.get(key(ds.schema, ds.name)) ?? 0))
  const byKey = new Map<string, TableRole>()
  datasets.forEach((ds, i) => byKey.set(key(ds.schema, ds.name), roles[i]!))
  return datasets.map((ds, i) =>
    ds.columns.map((c, j) => {
      const target = c.references === null ? null : { name: c.references.table, role: byKey.get(key(c.references.schema ?? ds.schema, c.references.table)) }
      return columnFeatures(ds, j, verdicts[i]![j]!, roles[i]!, target)
    })
  )
}

/** Class probabilities for one column's features. */
export const probabilities = (model: ModelWeights, features: ReadonlyArray<string>): Array<number> => {
  const s = [...model.bias]
  for (const name of features) {
    const w = model.weights[name]
    if (w === undefined) continue
    for (let k = 0; k < s.length; k++) s[k]! += w[k]!
  }
  const t = model.temperature > 0 ? model.temperature : 1
  const max = Math.max(...s)
  const e = s.map((x) => Math.exp((x - max) / t))
  const z = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / z)
}

/** The features that pushed hardest toward `k` (for the reviewer's evidence). */
const topFeatures = (model: ModelWeights, features: ReadonlyArray<string>, k: number, n: number): ReadonlyArray<string> =>
  features
    .map((name) => ({ name, w: (model.weights[name]?.[k] ?? 0) - Math.max(...(model.weights[name] ?? [0, 0, 0, 0]).filter((_, i) => i !== k)) }))
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w)
    .slice(0, n)
    .map((x) => x.name)

/** A generic category when the model flags a column the engine did not categorise. */
const fallbackCategory: Record<ClassValue, string | null> = { not: null, personal: "personal.descriptor", special: "special", criminal: "criminal" }

/**
 * The final verdicts: the engine's where the model agrees (with the model's probability as confidence),
 * the model's where it does not, with the features that decided as evidence.
 */
export const rescore = (
  model: ModelWeights,
  datasets: ReadonlyArray<RawDataset>,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const features = sourceFeatures(datasets, verdicts)
  return verdicts.map((row, i) =>
    row.map((v, j) => {
      const p = probabilities(model, features[i]![j]!)
      let k = 0
      for (let x = 1; x < p.length; x++) if (p[x]! > p[k]!) k = x
      const value = classes[k]!
      const confidence = Math.round(p[k]! * 100) / 100
      if (value === v.value) return { ...v, confidence }
      const why = topFeatures(model, features[i]![j]!, k, 4)
      return {
        value,
        rule: `model:${why[0] ?? "context"}`,
        confidence,
        method: "model",
        category: value === "not" ? null : v.value === value ? v.category : (v.value !== "not" && v.category !== null && value !== "criminal" && value !== "special" ? v.category : fallbackCategory[value]),
        evidence: [`the rules said ${v.value} (${v.rule})`, ...why.map((w) => `model: ${w}`)]
      }
    })
  )
}
