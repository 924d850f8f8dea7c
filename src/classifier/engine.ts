/**
 * The personal-data classifier: pure, synchronous, metadata only (names, types, keys, comments —
 * never a row value).
 *
 * `classifySource(datasets)` returns, for every dataset and column, one `ColumnVerdict`
 * (`personal` / `special` / `criminal` / `not`) with the deciding rule, a calibrated confidence, the
 * method, a dotted category and the evidence that fired. The whole source is given at once so that
 * foreign keys to tables about people and the source's clinical or criminal-justice flavour can be used.
 * Vocabularies and rules are data (src/classifier/data/*.json), compiled once at module load.
 *
 * Combination rule — a priority of explainable rules; the first that decides wins, with its own
 * calibrated confidence (data/rules.json) or the vocabulary entry's (data/vocabulary.json) × context:
 *  1. Table pass: each table is about people (head noun `customers`, `Mitarbeiter`; or first name +
 *     birth date + e-mail co-occurring), an organisation (possibly with contact persons), a lookup,
 *     linked to a person (a key of one), a person's history (`salaries`), a people's address table,
 *     or a clinical / criminal-justice record about a person.
 *  2. Keys: the key of a person table, a foreign or name-based key to one (`customer_id`, `emp_no`),
 *     an author id (`created_by`) → personal; surrogate and foreign keys of other records → not.
 *  3. Vocabulary: whole-token phrases, then tokens of the name (`date of birth`, `email`, `diagnosis`)
 *     give class + category; vetoed by the SQL type (`email_count int`), by flag/count/setting
 *     markers (`_verified`, `_count`, `is_`), by event dates (`created_at`), and by where the entry
 *     may fire (organisation, lookup, catalogue tables; `name` only for people).
 *  4. Context: categorising columns and dates of a clinical (criminal) record → special (criminal);
 *     people's address tables, a person's history and activity metrics → personal.
 *  5. Weaker evidence last: the column comment's first clause and a named struct type; else `not`.
 *  6. Second stage (model.ts): a logistic regression trained on the labelled corpus re-reads every `not`
 *     in its table's light and flags it when at least `threshold` sure (rule `model:<feature>`).
 * Special/criminal outrank personal when several entries match; confidence is the entry's base,
 * lowered by weak contexts and trailing unknown words, raised slightly in confirmed person tables.
 */
import type { ColumnVerdict, RawDataset } from "../domain/Metadata.js"
import { applyCalibration, type Calibration, decodeCalibration } from "./calibrate.js"
import { tokenizer, type TypeFamily } from "./compile.js"
import calibrationData from "./data/calibration.json" with { type: "json" }
import modelData from "./data/model.json" with { type: "json" }
import { classifyColumn } from "./judge.js"
import { decodeModel, type ModelWeights, secondStage } from "./model.js"
import { type NameInfo } from "./names.js"
import { namedTarget, prepareSource, refTarget, type Source } from "./tables.js"

/** Memoised verdicts of one name shape in tables of one signature. */
interface MemoEntry {
  readonly slots: Array<ColumnVerdict | undefined>
  /** Foreign-key columns, by what the referenced table is (see `asTarget`). */
  byTarget: Map<number, Array<ColumnVerdict | undefined>> | null
  /** Columns of a named (struct/enum) type, by the type's name. */
  byType: Map<string, Array<ColumnVerdict | undefined>> | null
}

const calibration: Calibration = decodeCalibration(calibrationData)
const model: ModelWeights = decodeModel(modelData)

/** The versions of the learnt data files (part of the classifier's version: a retraining redoes stored verdicts). */
export const learntVersions = { calibration: calibration.version, model: model.version } as const

/**
 * The verdicts of every column of a source: the rules, then the second stage (model.ts) on the rules'
 * `not`s, with every confidence calibrated on the labelled corpus (calibrate.ts). `result[i][j]` is the
 * verdict of `datasets[i].columns[j]`.
 */
export const classifySource = (datasets: ReadonlyArray<RawDataset>): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const src = prepareSource(datasets)
  return applyCalibration(calibration, secondStage(model, src, judgePrepared(src)))
}

/** The rules' verdicts with their hand-set confidence, before the second stage and calibration. */
export const judgeSource = (datasets: ReadonlyArray<RawDataset>): ReadonlyArray<ReadonlyArray<ColumnVerdict>> =>
  judgePrepared(prepareSource(datasets))

/** The rules' verdicts and the table pass they were judged in (what `npm run classifier:train` learns from). */
export const judgeWithTables = (
  datasets: ReadonlyArray<RawDataset>
): { readonly src: Source; readonly verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>> } => {
  const src = prepareSource(datasets)
  return { src, verdicts: judgePrepared(src) }
}

const judgePrepared = (src: Source): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  // The same column (name shape, type family, keys) in tables of the same kind gets the same verdict:
  // memoise on everything classifyColumn reads, so a 10,000-table source costs little more than its
  // distinct column shapes. Keys are objects and small integers, never built strings.
  const sigIds = new Map<number, number>()
  const memo: Array<Map<NameInfo, MemoEntry>> = []
  const contextualMemo = new Map<string, ColumnVerdict>()
  // A comment can only turn a `not` into a flag: verdicts are first computed without it, and only
  // `not` verdicts of commented columns are looked up again, per comment.
  const withComments = new Map<ColumnVerdict, Map<string, ColumnVerdict>>()
  const out = new Array<ReadonlyArray<ColumnVerdict>>(src.tables.length)
  for (let i = 0; i < src.tables.length; i++) {
    const t = src.tables[i]!
    let sigId = sigIds.get(t.sig)
    if (sigId === undefined) {
      sigId = memo.length
      sigIds.set(t.sig, sigId)
      memo.push(new Map())
    }
    const byName = memo[sigId]!
    const contextual = t.clinical || t.criminal
    const cols = t.ds.columns
    const row = new Array<ColumnVerdict>(cols.length)
    for (let j = 0; j < cols.length; j++) {
      const col = cols[j]!
      const n = t.names[j]!
      const family = t.families[j]!
      let v: ColumnVerdict | undefined
      if (contextual && n.keyNoun !== null) {
        // Clinical / criminal keys also depend on the table their noun names (rare: keyed by string).
        const named = namedTarget(src.byHead, t, n.keyNoun)?.id ?? ""
        const target = col.references === null ? "" : `${col.references.schema}.${col.references.table}`
        const key = `${sigId}\u0001${n.name}\u0001${col.type}\u0001${col.isPrimaryKey ? 1 : 0}\u0001${
          t.personKeys?.[j] ?? ""
        }\u0001${n.keyNoun === t.head ? 1 : 0}\u0001${target}\u0001${named}`
        v = contextualMemo.get(key)
        if (v === undefined) {
          v = classifyColumn(src, t, j, false)
          contextualMemo.set(key, v)
        }
      } else {
        let entry = byName.get(n)
        if (entry === undefined) {
          entry = { slots: new Array<ColumnVerdict | undefined>(SLOTS), byTarget: null, byType: null }
          byName.set(n, entry)
        }
        let slots: Array<ColumnVerdict | undefined> | undefined
        if (family === "named") {
          if (entry.byType === null) entry.byType = new Map()
          slots = entry.byType.get(col.type)
          if (slots === undefined) {
            slots = new Array<ColumnVerdict | undefined>(SLOTS)
            entry.byType.set(col.type, slots)
          }
        } else if (col.references !== null) {
          const ref = refTarget(src, col)
          const target = ref === undefined ? -1 : ref === t ? -2 : ref.asTarget
          if (entry.byTarget === null) entry.byTarget = new Map()
          slots = entry.byTarget.get(target)
          if (slots === undefined) {
            slots = new Array<ColumnVerdict | undefined>(SLOTS)
            entry.byTarget.set(target, slots)
          }
        } else slots = entry.slots
        // Slot: type family × primary key × key named after the table × name-based person key.
        const nameKey = col.references === null && t.personKeys?.[j] !== undefined
        const f = familyIndex[family] + (col.isPrimaryKey ? 12 : 0) +
          (n.keyNoun !== null && n.keyNoun === t.head ? 24 : 0) + (nameKey ? 48 : 0)
        v = slots[f]
        if (v === undefined) {
          v = classifyColumn(src, t, j, false)
          slots[f] = v
        }
      }
      // Only a column with no other signal, or a type veto, is read again with its comment (classifyColumn, step 10).
      if (
        v.value === "not" && col.comment !== null && (v.rule === "default:not" || v.rule.startsWith("type-veto")) &&
        col.comment.length > 0
      ) {
        let byComment = withComments.get(v)
        if (byComment === undefined) {
          byComment = new Map()
          withComments.set(v, byComment)
        }
        let vc = byComment.get(col.comment)
        if (vc === undefined) {
          vc = classifyColumn(src, t, j, true)
          byComment.set(col.comment, vc)
        }
        v = vc
      }
      row[j] = v
    }
    out[i] = row
  }
  return out
}

/** 12 type families × primary key × named after the table × name-based person key. */
const SLOTS = 96

const familyIndex: Record<TypeFamily, number> = {
  timestamp: 0,
  date: 1,
  boolean: 2,
  network: 3,
  geo: 4,
  uuid: 5,
  integer: 6,
  numeric: 7,
  binary: 8,
  json: 9,
  text: 10,
  named: 11
}

/** Classify one dataset on its own (no cross-table context beyond itself). */
export const classifyDataset = (dataset: RawDataset): ReadonlyArray<ColumnVerdict> => classifySource([dataset])[0] ?? []

/** Exposed for tests and diagnostics: the whole-token analysis of a name. */
export const tokensOf = (name: string): ReadonlyArray<string> => tokenizer.tokens(name)
