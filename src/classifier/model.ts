/**
 * The classifier's second stage: a multinomial logistic regression trained in this repository on the
 * labelled corpus (`npm run classifier:train`, scripts/classifier/train.ts → data/model.json). It reads a
 * column the way a reviewer would after the rules have spoken: the rules' verdict and rule, the column's
 * name tokens, type, keys and comment words, and the role of its table (how many of its columns the
 * rules flag, whether its key is a person key, whether it holds special or criminal columns, what its
 * keys point to). The rules know the vocabularies; the model has learnt how the evidence combines across
 * applications (a grade in a table keyed by a login, a counter in a table of people).
 *
 * It only ever ADDS a flag: where the rules say `not` and the model is at least `threshold` sure the
 * column holds personal data, the column gets the model's class with rule `model:<strongest feature>`
 * and the features that decided as evidence. Pure and synchronous; the weights are a data file and
 * nothing is fetched or learnt at run time.
 */
import type { ClassValue, ColumnVerdict, RawColumn, RawDataset } from "../domain/Metadata.js"
import { tokenizer, typeFamily } from "./compile.js"
import { refTarget, type Source, type TableInfo } from "./tables.js"

/** The four classes, in the order of the model's outputs. */
export const classes: ReadonlyArray<ClassValue> = ["not", "personal", "special", "criminal"]

/** The trained weights: one vector of four class scores per feature name, and the class biases. */
export interface ModelWeights {
  readonly version: string
  readonly bias: ReadonlyArray<number>
  readonly weights: Readonly<Record<string, ReadonlyArray<number>>>
  /** A `not` of the rules becomes a flag when the model's probability of a flag is at least this. */
  readonly threshold: number
}

const bucket = (x: number, edges: ReadonlyArray<number>): number => {
  let i = 0
  while (i < edges.length && x >= edges[i]!) i++
  return i
}

/** What the model knows about a table, computed once per table from the rules' verdicts. */
interface TableRole {
  /** What the rules' table pass says the rows are (tables.ts). */
  readonly kind: string
  readonly tokens: ReadonlyArray<string>
  readonly flaggedShare: number
  readonly personKey: boolean
  readonly special: boolean
  readonly criminal: boolean
  readonly referencedBy: number
  /** A person noun in the table's name (`SchuelerFHR`, `employee_visa`) of a table that is not itself the people's. */
  readonly personNamed: boolean
  /** The table's name extends the name of the people's table a subject key points to (`SchuelerFHR` → `Schueler`, `llx_user_rib` → `llx_user`). */
  readonly extendsPerson: boolean
}

const kindOf = (t: TableInfo): string =>
  t.status !== "none"
    ? t.status
    : t.clinical
    ? "clinical"
    : t.criminal
    ? "criminal"
    : t.satellite
    ? "satellite"
    : t.linked
    ? "linked"
    : t.recordLinked
    ? "record-linked"
    : t.lookup
    ? "lookup"
    : t.objectHead
    ? "object"
    : "none"

/**
 * The tables whose `not`s the second stage may re-read: about people, or records of a person (linked,
 * their history). A table with no person in it stays the rules', and so does a clinical or criminal record
 * of a person, where the rules' care and proceedings context already decides (held out, the model's
 * additions there were right about one time in four).
 */
const eligibleTable = (t: TableInfo): boolean =>
  t.status === "person" || t.status === "mixed" ||
  ((t.linked || t.satellite || t.recordLinked) && !t.clinical && !t.criminal)

const squash = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, "")
const extendsPersonTable = (src: Source, t: TableInfo): boolean => {
  if (t.status !== "none" || t.personKeys === null) return false
  const own = squash(t.ds.name)
  return t.ds.columns.some((c, j) => {
    if (t.personKeys![j] === undefined || c.references === null) return false
    const target = refTarget(src, c)
    if (target === undefined || target === t || target.status !== "person") return false
    const base = squash(target.ds.name).replace(/(es|s)$/, "")
    return base.length >= 3 && own.length > base.length && own.startsWith(base)
  })
}

const tableRole = (
  src: Source,
  t: TableInfo,
  verdicts: ReadonlyArray<ColumnVerdict>,
  referencedBy: number
): TableRole => {
  const ds = t.ds
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
  return {
    kind: kindOf(t),
    tokens: tokenizer.tokens(ds.name),
    flaggedShare: ds.columns.length === 0 ? 0 : flagged / ds.columns.length,
    personKey,
    special,
    criminal,
    referencedBy,
    personNamed: t.personInTableName && t.status === "none",
    extendsPerson: extendsPersonTable(src, t)
  }
}

type Target = { readonly role: TableRole | undefined; readonly name: string } | null

const shareOf = (role: TableRole): number => bucket(role.flaggedShare, [0.01, 0.2, 0.4, 0.6])

/** The distinct words of a list (names repeat words: `user_user_id`). */
const distinct = (xs: ReadonlyArray<string>): ReadonlyArray<string> => (xs.length < 2 ? xs : [...new Set(xs)])

// The features of a column come in parts, each reading one thing, so that the second stage can sum
// memoised parts (secondStage) and training can list them (columnFeatures); every part has its own
// prefixes, so no feature is counted twice.

/** The rules' verdict. */
const verdictFeatures = (v: ColumnVerdict): Array<string> => {
  const f = [
    `ev:${v.value}`,
    `evc:${v.value}:${bucket(v.confidence, [0.6, 0.75, 0.85, 0.95])}`,
    `rule:${v.rule.split(":")[0]}`,
    `meth:${v.method}`
  ]
  if (v.category !== null) f.push(`cat:${v.category.split(".")[0]}`, `catf:${v.category}`)
  return f
}

/** The column's name. */
const nameFeatures = (tokens: ReadonlyArray<string>): Array<string> => {
  const f = distinct(tokens).map((t) => `tok:${t}`)
  if (tokens.length > 0) f.push(`first:${tokens[0]}`, `last:${tokens[tokens.length - 1]}`)
  f.push(`ntok:${Math.min(tokens.length, 4)}`)
  return f
}

/** The column's comment. */
const commentFeatures = (comment: string | null): Array<string> =>
  comment === null || comment === ""
    ? []
    : ["comment", ...distinct(tokenizer.words(comment).slice(0, 24)).map((w) => `cw:${w}`)]

/** The column's type and keys, alone and in its table's light. */
const shapeFeatures = (role: TableRole, ev: string, family: string, pk: boolean, fk: boolean): Array<string> => {
  const share = shareOf(role)
  const f = [
    `type:${family}`,
    `tshare-ev:${share}:${ev}`,
    `tshare-type:${share}:${family}`,
    `trole-type:${role.kind}:${family}`
  ]
  if (pk) f.push("pk")
  if (fk) f.push("fk")
  if (role.personKey) {
    f.push(`tpk-ev:${ev}`, `tpk-type:${family}`)
    if (pk) f.push("tpk-pk")
  }
  if (role.special) f.push(`tspec-ev:${ev}`)
  if (role.criminal) f.push(`tcrim-ev:${ev}`)
  return f
}

/** The column's name in a table whose key is a person's. */
const personKeyNameFeatures = (role: TableRole, tokens: ReadonlyArray<string>): Array<string> =>
  role.personKey ? distinct(tokens).map((t) => `tpk-tok:${t}`) : []

/** The table alone: its role in the rules' table pass, its name, how much of it is flagged. */
const tableFeatures = (role: TableRole): Array<string> => {
  const f = [`tshare:${shareOf(role)}`, `tref:${bucket(role.referencedBy, [1, 3, 8])}`, `trole:${role.kind}`]
  if (role.personKey) f.push("tpk")
  if (role.special) f.push("tspec")
  if (role.criminal) f.push("tcrim")
  if (role.personNamed) f.push("tpnoun")
  if (role.extendsPerson) f.push("text")
  for (const t of distinct(role.tokens)) f.push(`tbl:${t}`)
  return f
}

/** Where a key points. */
const targetFeatures = (target: Target): Array<string> => {
  const f: Array<string> = []
  if (target === null) return f
  for (const t of distinct(tokenizer.tokens(target.name))) f.push(`fkt:${t}`)
  if (target.role !== undefined) {
    if (target.role.personKey) f.push("fk-person")
    if (target.role.special) f.push("fk-special")
    if (target.role.criminal) f.push("fk-criminal")
    f.push(`fk-share:${shareOf(target.role)}`)
  }
  return f
}

/** The features of one column: names of indicator features, each once. */
const columnFeatures = (
  ds: RawDataset,
  j: number,
  verdict: ColumnVerdict,
  role: TableRole,
  target: Target
): ReadonlyArray<string> => {
  const c = ds.columns[j]!
  const tokens = tokenizer.tokens(c.name)
  return [
    ...verdictFeatures(verdict),
    ...nameFeatures(tokens),
    ...commentFeatures(c.comment),
    ...shapeFeatures(role, verdict.value, typeFamily(c.type), c.isPrimaryKey, c.references !== null),
    ...personKeyNameFeatures(role, tokens),
    ...tableFeatures(role),
    ...targetFeatures(target)
  ]
}

/** Every table's role (how many declared keys point at each table counts), by the table. */
const rolesOf = (
  src: Source,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyMap<TableInfo, TableRole> => {
  const refs = new Map<TableInfo, number>()
  for (const { ds } of src.tables) {
    for (const c of ds.columns) {
      const target = refTarget(src, c)
      if (target !== undefined) refs.set(target, (refs.get(target) ?? 0) + 1)
    }
  }
  return new Map(src.tables.map((t, i) => [t, tableRole(src, t, verdicts[i] ?? [], refs.get(t) ?? 0)]))
}

/** Where a column's declared key points, as the rules' table pass resolved it. */
const targetOf = (src: Source, c: RawColumn, roles: ReadonlyMap<TableInfo, TableRole>): Target => {
  if (c.references === null) return null
  const target = refTarget(src, c)
  return { name: c.references.table, role: target === undefined ? undefined : roles.get(target) }
}

/**
 * Features of the columns of a source (the rules' table pass and verdicts), aligned with
 * `src.tables[i].ds.columns[j]`; only the columns the second stage may re-read (`eligibleTable`,
 * `reconsidered`) get features, the others an empty list, so the second stage pays only for those.
 */
export const sourceFeatures = (
  src: Source,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>> => {
  const roles = rolesOf(src, verdicts)
  const none: ReadonlyArray<string> = []
  return src.tables.map((t, i) => {
    const eligible = eligibleTable(t)
    return t.ds.columns.map((c, j) => {
      const v = verdicts[i]![j]!
      if (!eligible || !reconsidered(v)) return none
      return columnFeatures(t.ds, j, v, roles.get(t)!, targetOf(src, c, roles))
    })
  })
}

/** Adds the weights of some features (no repeats: the part builders emit each once) to a score vector. */
const addWeights = (model: ModelWeights, into: Float64Array, features: ReadonlyArray<string>): void => {
  for (const name of features) {
    const w = model.weights[name]
    if (w === undefined) continue
    for (let k = 0; k < into.length; k++) into[k]! += w[k]!
  }
}

/** Class probabilities for one column's features. */
const probabilities = (model: ModelWeights, features: ReadonlyArray<string>): Array<number> => {
  const s = Float64Array.from(model.bias)
  addWeights(model, s, features)
  const max = Math.max(...s)
  const e = Array.from(s, (x) => Math.exp(x - max))
  const z = e.reduce((a, b) => a + b, 0)
  return e.map((x) => x / z)
}

/** The features that pushed hardest toward class `k` (the reviewer's evidence). */
const topFeatures = (
  model: ModelWeights,
  features: ReadonlyArray<string>,
  k: number,
  n: number
): ReadonlyArray<string> =>
  features
    .map((name) => {
      const w = model.weights[name]
      return { name, w: w === undefined ? 0 : w[k]! - w[0]! }
    })
    .filter((x) => x.w > 0)
    .sort((a, b) => b.w - a.w || (a.name < b.name ? -1 : 1))
    .slice(0, n)
    .map((x) => x.name)

/** The category of a flag the rules did not make. */
const categoryOf: Record<ClassValue, string | null> = {
  not: null,
  personal: "person.descriptor",
  special: "special",
  criminal: "criminal"
}

/**
 * The rules' `not`s the second stage may re-read: those for want of a signal (no vocabulary match, a key or
 * date of an unknown kind, a context that did not confirm a match). A `not` the rules decided on evidence —
 * a type that cannot hold the value (`email_count integer`), a count/flag/setting marker (`is_email_verified`),
 * the date of an event (`created_at`) — stands.
 */
export const reconsidered = (v: ColumnVerdict): boolean =>
  v.value === "not" && !v.rule.startsWith("type-veto") && !v.rule.startsWith("negative:") && v.rule !== "event-date" &&
  v.rule !== "audit:pipeline"

/**
 * One column in the second stage: a `not` of the rules that the model is at least `threshold` sure is a
 * flag becomes the model's verdict (the most probable flag class, the model's probability as confidence,
 * calibrated afterwards like every rule's); every other verdict is returned as is.
 */
export const reconsider = (model: ModelWeights, v: ColumnVerdict, features: ReadonlyArray<string>): ColumnVerdict => {
  if (features.length === 0 || !reconsidered(v)) return v
  const p = probabilities(model, features)
  if (1 - p[0]! < model.threshold) return v
  let k = 1
  for (let x = 2; x < p.length; x++) if (p[x]! > p[k]!) k = x
  const why = topFeatures(model, features, k, 4)
  return {
    value: classes[k]!,
    rule: `model:${why[0] ?? "context"}`,
    confidence: Math.round(p[k]! * 100) / 100,
    method: "model",
    category: categoryOf[classes[k]!],
    evidence: [`the rules said not (${v.rule})`, ...why.map((w) => `model: ${w}`)]
  }
}

/** Memoised score parts that depend only on the model and a string (a name, a comment): kept across calls, bounded. */
interface Caches {
  readonly names: Map<string, { readonly plain: Float64Array; readonly personKey: Float64Array }>
  readonly comments: Map<string, Float64Array>
}
const cachesOf = new WeakMap<ModelWeights, Caches>()
const CACHE_LIMIT = 100_000

/**
 * The second stage over a source's rule verdicts: `reconsider` on every column it may re-read. The same
 * as scoring each column's `columnFeatures`, but the score is summed from memoised parts, one per thing a
 * part reads (the verdict, the name, the comment, the type and keys in a table of that role, the table,
 * the key's target), so a column costs a few map lookups and no strings.
 */
export const secondStage = (
  model: ModelWeights,
  src: Source,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>
): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const K = classes.length
  const part = (features: ReadonlyArray<string>): Float64Array => {
    const v = new Float64Array(K)
    addWeights(model, v, features)
    return v
  }
  let caches = cachesOf.get(model)
  if (caches === undefined) cachesOf.set(model, caches = { names: new Map(), comments: new Map() })
  if (caches.names.size > CACHE_LIMIT) caches.names.clear()
  if (caches.comments.size > CACHE_LIMIT) caches.comments.clear()
  const { names, comments } = caches
  // Every table's role (a key's target may be any table); only eligible tables are scored.
  const roles = rolesOf(src, verdicts)
  const verdictParts = new Map<ColumnVerdict, Float64Array>()
  const targets = new Map<TableInfo, Float64Array>()
  const score = new Float64Array(K)
  return verdicts.map((row, i) => {
    const t = src.tables[i]!
    if (!eligibleTable(t)) return row
    const role = roles.get(t)!
    const tablePart = part(tableFeatures(role))
    for (let k = 0; k < K; k++) tablePart[k]! += model.bias[k]!
    // Type and keys in this table: by type, primary key and foreign key (the value is always `not`).
    const shapes = new Map<string, Float64Array>()
    let out: Array<ColumnVerdict> | null = null
    row.forEach((v, j) => {
      if (!reconsidered(v)) return
      const c = t.ds.columns[j]!
      let vp = verdictParts.get(v)
      if (vp === undefined) verdictParts.set(v, vp = part(verdictFeatures(v)))
      let np = names.get(c.name)
      if (np === undefined) {
        const tokens = tokenizer.tokens(c.name)
        np = {
          plain: part(nameFeatures(tokens)),
          personKey: part(personKeyNameFeatures({ ...role, personKey: true }, tokens))
        }
        names.set(c.name, np)
      }
      const shapeKey = `${c.type}\u0001${c.isPrimaryKey ? 1 : 0}${c.references === null ? 0 : 1}`
      let sp = shapes.get(shapeKey)
      if (sp === undefined) {
        shapes.set(
          shapeKey,
          sp = part(shapeFeatures(role, v.value, typeFamily(c.type), c.isPrimaryKey, c.references !== null))
        )
      }
      for (let k = 0; k < K; k++) {
        score[k] = tablePart[k]! + vp[k]! + np.plain[k]! + sp[k]! + (role.personKey ? np.personKey[k]! : 0)
      }
      if (c.comment !== null && c.comment !== "") {
        let cp = comments.get(c.comment)
        if (cp === undefined) comments.set(c.comment, cp = part(commentFeatures(c.comment)))
        for (let k = 0; k < K; k++) score[k]! += cp[k]!
      }
      if (c.references !== null) {
        // Memoised by the table the key resolves to (a key to no known table is scored by its name alone).
        const resolved = refTarget(src, c)
        let tp = resolved === undefined ? undefined : targets.get(resolved)
        if (tp === undefined) {
          tp = part(targetFeatures(targetOf(src, c, roles)))
          if (resolved !== undefined) targets.set(resolved, tp)
        }
        for (let k = 0; k < K; k++) score[k]! += tp[k]!
      }
      // P(not) = 1 / Σ exp(s_k − s_not); flag when 1 − P(not) ≥ threshold.
      let z = 0
      for (let k = 0; k < K; k++) z += Math.exp(score[k]! - score[0]!)
      if (1 - 1 / z < model.threshold) return
      out ??= [...row]
      out[j] = reconsider(model, v, columnFeatures(t.ds, j, v, role, targetOf(src, c, roles)))
    })
    return out ?? row
  })
}

const isVector = (u: unknown): u is ReadonlyArray<number> =>
  Array.isArray(u) && u.length === classes.length && u.every((x) => typeof x === "number")

/** Checks the shape of the data file; a malformed file is a build defect, so it throws at module load. */
export const decodeModel = (u: unknown): ModelWeights => {
  if (typeof u !== "object" || u === null) throw new Error("model.json: not an object")
  const o = u as Record<string, unknown>
  const w = o.weights
  if (
    typeof o.version !== "string" ||
    typeof o.threshold !== "number" || o.threshold <= 0 || o.threshold > 1 ||
    !isVector(o.bias) ||
    typeof w !== "object" || w === null || !Object.values(w).every(isVector)
  ) {
    throw new Error(
      "model.json: expected { version, threshold in (0, 1], bias: number[4], weights: { feature: number[4] } }"
    )
  }
  return {
    version: o.version,
    threshold: o.threshold,
    bias: o.bias,
    weights: w as Record<string, ReadonlyArray<number>>
  }
}
