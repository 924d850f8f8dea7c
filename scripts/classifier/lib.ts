/**
 * The labelled corpus (test/classifier/corpus + labels), the training of the classifier's second stage
 * (src/classifier/model.ts), its calibration (fitted on cross-fitted verdicts) and the figures they are
 * judged by. Used by `npm run classifier:train`, `npm run classifier:eval` and the evaluation test.
 * Deterministic: the same corpus and rules give the same calibration and the same model.
 */
import { parse } from "csv-parse/sync"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { calibratedConfidence, type Calibration, fitCalibration } from "../../src/classifier/calibrate.js"
import { judgeWithTables } from "../../src/classifier/engine.js"
import { classes, type ModelWeights, reconsider, sourceFeatures } from "../../src/classifier/model.js"
import type { ClassValue, ColumnVerdict, RawDataset } from "../../src/domain/Metadata.js"

export const root = path.resolve(import.meta.dirname, "../..")

/** The value after a command-line flag (`--only a,b` → "a,b"), if given. */
export const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name)
  return i === -1 ? undefined : process.argv[i + 1]
}
const corpusDir = path.join(root, "test/classifier/corpus")
const labelsDir = path.join(root, "test/classifier/labels")

/**
 * The applications the rules were written or revised against (test/classifier/README.md): the 15 fixture
 * corpora the vocabularies were first written on, and the 101 real applications whose misses the rules (and
 * the second stage's design: its features, what it may re-read, its threshold) were revised on — 25 on
 * 2026-11-24, then, that evening, seven more batches (consul-democracy … svws-server; book-secure-move …
 * opencad; icehrm … siap; elexis … vrijbrp-balie; friendica … vtiger; galette … openxe; diaspora …
 * sentrifugo), then the 8th to 12th batches (decidim … zammad; kivitendo … qloapps; admidio … scuola247;
 * chatwoot … timetrex; cla-backend … ushahidi), each only after
 * it had been scored as held out. Every other labelled application is held
 * out from the rules: labelled, by people who did not look at or run the classifier, while the rules and
 * the second stage's design were frozen.
 */
export const writtenOn: ReadonlySet<string> = new Set([
  "pagila",
  "chinook",
  "northwind",
  "sakila",
  "mywind",
  "employees",
  "omop-cdm-5.4",
  "hakai-jsp",
  "dbt-jaffle-shop",
  "dbt-hubspot",
  "stripe",
  "bigquery-information-schema",
  "snowflake-information-schema",
  "bigquery-example",
  "snowflake-example"
])
export const revisedOn: ReadonlySet<string> = new Set([
  "aghu",
  "alfio",
  "bichard7-next-core",
  "ces-etl",
  "churchapps-api",
  "consul-democracy",
  "court-case-service",
  "facturascripts",
  "fineract",
  "flarum",
  "gepi",
  "gibbon",
  "giuaschool",
  "gnuhealth",
  "hibiscus",
  "hmpps-approved-premises-api",
  "hmpps-person-record",
  "hmpps-support-additional-needs-api",
  "liquid-feedback-core",
  "listmonk",
  "offender-management-allocation-manager",
  "open-zaak",
  "openemr",
  "openhospital",
  "orangehrm",
  "osticket",
  "ph7cms",
  "schulddossier",
  "sut-sc",
  "svws-server",
  "book-secure-move",
  "churchcrm",
  "dolibarr",
  "ieducar",
  "jorvik",
  "jverein",
  "mastodon",
  "opencad",
  "icehrm",
  "laa-apply-for-legal-aid",
  "openmrs",
  "phpbb",
  "phplist",
  "siap",
  "elexis",
  "histologe",
  "moodle",
  "prison-api",
  "suap",
  "vrijbrp-balie",
  "friendica",
  "lampschool",
  "prestashop",
  "sigesp",
  "vtiger",
  "galette",
  "hmpps-manage-adjudications-api",
  "openclinica",
  "opensis",
  "openstamanager",
  "openxe",
  "diaspora",
  "e-cidade",
  "hi-events",
  "hmpps-interventions-service",
  "openelis",
  "sentrifugo",
  "decidim",
  "firefly-iii",
  "intranet-monterroso",
  "makkelijkemarkt-api",
  "oscar-emr",
  "zammad",
  "kivitendo",
  "koha",
  "opencats",
  "qloapps",
  "admidio",
  "civicrm",
  "claim-crown-court-defence",
  "glpi",
  "ohc-care",
  "openpetra",
  "rdv-service-public",
  "scuola247",
  "chatwoot",
  "govpay",
  "loomio",
  "manage-recalls-api",
  "marley-healthcare",
  "pretix",
  "signals-amsterdam",
  "timetrex",
  "cla-backend",
  "jorani",
  "kimai",
  "lemmy",
  "mapasculturais",
  "openslides",
  "tamanu",
  "ushahidi"
])
export const tunedOn: ReadonlySet<string> = new Set([...writtenOn, ...revisedOn])

export interface Label {
  readonly schema: string
  readonly table: string
  readonly column: string
  readonly label: ClassValue
  readonly category: string
  readonly rationale: string
}

/** One labelled column with what the rules said (before the second stage and calibration) and the second stage's features. */
export interface Example {
  readonly app: string
  readonly label: Label
  readonly type: string
  readonly engine: ColumnVerdict
  /** The second stage's features; empty for a column it does not re-read. */
  readonly features: ReadonlyArray<string>
}

export interface LoadOptions {
  /** Only these applications (default: every labelled one). */
  readonly only?: ReadonlyArray<string> | undefined
}

/** Every labelled application, each column with the rules' verdict and the second stage's features. */
export const loadCorpus = ({ only }: LoadOptions = {}): ReadonlyArray<Example> => {
  const out: Array<Example> = []
  for (const file of fs.readdirSync(labelsDir).filter((f) => f.endsWith(".csv")).sort()) {
    const app = file.replace(/\.csv$/, "")
    if (only !== undefined && !only.includes(app)) continue
    const corpusFile = path.join(corpusDir, `${app}.json`)
    if (!fs.existsSync(corpusFile)) continue
    const datasets =
      (JSON.parse(fs.readFileSync(corpusFile, "utf8")) as { datasets: ReadonlyArray<RawDataset> }).datasets
    const labels = parse(fs.readFileSync(path.join(labelsDir, file), "utf8"), {
      columns: true,
      skip_empty_lines: true,
      bom: true
    }) as Array<Label>
    const { src, verdicts } = judgeWithTables(datasets)
    const features = sourceFeatures(src, verdicts)
    const index = new Map<string, { engine: ColumnVerdict; type: string; features: ReadonlyArray<string> }>()
    datasets.forEach((ds, i) =>
      ds.columns.forEach((c, j) =>
        index.set(`${ds.schema}\u0000${ds.name}\u0000${c.name}`, {
          engine: verdicts[i]![j]!,
          type: c.type,
          features: features[i]![j]!
        })
      )
    )
    for (const label of labels) {
      const hit = index.get(`${label.schema}\u0000${label.table}\u0000${label.column}`)
      if (hit !== undefined) out.push({ app, label, ...hit })
    }
  }
  return out
}

/** A labelled column with the verdict being judged (the rules', or the whole classifier's). */
export interface Judged {
  readonly app: string
  readonly label: Label
  readonly verdict: ColumnVerdict
}

/** The calibration fitted on some judged columns (all of them to ship; all but one application to test on it). */
export const calibrationOf = (judged: ReadonlyArray<Judged>, version: string): Calibration =>
  fitCalibration(judged.map((e) => ({ verdict: e.verdict, right: e.verdict.value === e.label.label })), version)

/**
 * Each judged column with its confidence calibrated leave-one-application-out: the calibration applied to
 * an application is fitted on the other applications only. Same order as `judged`.
 */
export const calibratedLoao = (judged: ReadonlyArray<Judged>): ReadonlyArray<Judged> => {
  const calibrations = new Map(
    apps(judged).map((app) => [app, calibrationOf(judged.filter((e) => e.app !== app), `without-${app}`)])
  )
  return judged.map((e) => ({
    ...e,
    verdict: { ...e.verdict, confidence: calibratedConfidence(calibrations.get(e.app)!, e.verdict) }
  }))
}

const hashOf = (x: unknown): string => crypto.createHash("sha256").update(JSON.stringify(x)).digest("hex").slice(0, 12)

/**
 * The text of src/classifier/data/calibration.json fitted on judged columns (deterministic). Its version
 * names what was fitted (the counts), so a rule or model change that moves a count changes it too.
 */
export const calibrationFileText = (judged: ReadonlyArray<Judged>): string => {
  const { families, rules, k } = calibrationOf(judged, "")
  const version = `counts-${hashOf({ k, families, rules })}`
  return JSON.stringify({ version, k, families, rules }, null, 1).replace(
    /\[\n\s+(\d+),\n\s+(\d+)\n\s+\]/g,
    "[$1, $2]"
  ) + "\n"
}
export const calibrationFile = path.join(root, "src/classifier/data/calibration.json")
export const modelFile = path.join(root, "src/classifier/data/model.json")

/** The second stage only ever re-reads some of the rules' `not`s (model.ts), so it learns from those. */
const stageTwoExamples = (examples: ReadonlyArray<Example>): ReadonlyArray<Example> =>
  examples.filter((e) => e.features.length > 0)

/** The second stage trained on examples, versioned by its weights. */
export const trainModel = (examples: ReadonlyArray<Example>): ModelWeights => {
  const m = train(stageTwoExamples(examples))
  return { ...m, version: `lr-${hashOf({ bias: m.bias, weights: m.weights, threshold: m.threshold })}` }
}

/** The text of src/classifier/data/model.json (one feature per line, sorted; deterministic). */
export const modelFileText = (model: ModelWeights): string => {
  const lines = Object.keys(model.weights)
    .sort()
    .map((f) => `  ${JSON.stringify(f)}: [${model.weights[f]!.join(", ")}]`)
  return `{\n "version": ${JSON.stringify(model.version)},\n "threshold": ${model.threshold},\n "bias": [${
    model.bias.join(", ")
  }],\n "weights": {\n${lines.join(",\n")}\n }\n}\n`
}

/**
 * The whole classifier's verdict on every example, each application judged by a second stage trained
 * WITHOUT it (cross-fitting): what the calibration is fitted on, and what `npm run classifier:eval` scores.
 */
export const crossFitted = (
  examples: ReadonlyArray<Example>,
  progress?: (app: string, i: number, n: number) => void
): ReadonlyArray<Judged> => {
  const all = apps(examples)
  const out: Array<Judged> = []
  all.forEach((app, i) => {
    progress?.(app, i, all.length)
    const model = train(stageTwoExamples(examples.filter((e) => e.app !== app)))
    for (const e of examples) {
      if (e.app === app) out.push({ app, label: e.label, verdict: reconsider(model, e.engine, e.features) })
    }
  })
  return out
}

export const apps = (examples: ReadonlyArray<{ readonly app: string }>): ReadonlyArray<string> =>
  [...new Set(examples.map((e) => e.app))].sort()

// ── Training: multinomial logistic regression, AdaGrad, L2 ─────────────────────────────────────────

export interface TrainOptions {
  readonly epochs: number
  readonly rate: number
  readonly l2: number
  /** Features seen in fewer training applications than this are dropped (they cannot generalise). */
  readonly minApps: number
  /** 0: every column weighs the same; 1: every application weighs about the same. */
  readonly appBalance: number
  /** Weight of special and criminal examples (rarer, and the costlier misses). */
  readonly rareWeight: number
}
/**
 * How sure the second stage must be that a column the rules call `not` holds personal data before it flags
 * it. Chosen once, leave-one-application-out on the 45 applications labelled by 2026-11-24 (0.7 and 0.8
 * tried: 0.7 gave +5.7 points of recall for −3.8 of precision, 0.8 +3.9 for −2.3); not tuned per application.
 * 0.6 was tried on 70 applications (P/R 0.776/0.766 against 0.789/0.737, and the 6th held-out judgement was
 * made with it) but puts the precision on the vendor and tutorial schemas below 0.9 (0.87; the evaluation
 * test's bar), so it stays 0.75.
 */
export const THRESHOLD = 0.75

export const defaultTrainOptions: TrainOptions = {
  epochs: 12,
  rate: 0.25,
  l2: 1e-4,
  minApps: 2,
  appBalance: 0.5,
  rareWeight: 2
}

/** Each application weighs about the same, however many columns it has (a 2,000-column dbt project is not 20 schemas). */
const appWeights = (examples: ReadonlyArray<Example>, balance: number): Map<string, number> => {
  const n = new Map<string, number>()
  for (const e of examples) n.set(e.app, (n.get(e.app) ?? 0) + 1)
  const w = new Map<string, number>()
  for (const [app, count] of n) w.set(app, Math.min(1, 400 / count) ** balance)
  return w
}

/** A small deterministic PRNG for the example order. */
const shuffle = <A>(xs: ReadonlyArray<A>, seed: number): Array<A> => {
  const a = [...xs]
  let s = seed
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    const j = s % (i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

export const train = (examples: ReadonlyArray<Example>, o: TrainOptions = defaultTrainOptions): ModelWeights => {
  const K = classes.length
  const seenIn = new Map<string, Set<string>>()
  for (const e of examples) for (const f of e.features) (seenIn.get(f) ?? seenIn.set(f, new Set()).get(f)!).add(e.app)
  const names = [...seenIn].filter(([, s]) => s.size >= o.minApps).map(([f]) => f).sort()
  const index = new Map(names.map((f, i) => [f, i]))
  const W = new Float64Array(names.length * K)
  const G = new Float64Array(names.length * K).fill(1e-8)
  const b = new Float64Array(K)
  const gb = new Float64Array(K).fill(1e-8)
  const weightOf = appWeights(examples, o.appBalance)
  const rows = examples.map((e) => ({
    x: [...new Set(e.features)].map((f) => index.get(f)).filter((i): i is number => i !== undefined),
    y: classes.indexOf(e.label.label),
    w: (weightOf.get(e.app) ?? 1) * (e.label.label === "special" || e.label.label === "criminal" ? o.rareWeight : 1)
  }))
  const s = new Float64Array(K)
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (const r of shuffle(rows, 7 + epoch)) {
      for (let k = 0; k < K; k++) {
        let v = b[k]!
        for (const i of r.x) v += W[i * K + k]!
        s[k] = v
      }
      let max = -Infinity
      for (let k = 0; k < K; k++) max = Math.max(max, s[k]!)
      let z = 0
      for (let k = 0; k < K; k++) {
        s[k] = Math.exp(s[k]! - max)
        z += s[k]!
      }
      for (let k = 0; k < K; k++) {
        const g = r.w * (s[k]! / z - (k === r.y ? 1 : 0))
        gb[k]! += g * g
        b[k]! -= (o.rate * g) / Math.sqrt(gb[k]!)
        for (const i of r.x) {
          const gi = g + o.l2 * W[i * K + k]!
          G[i * K + k]! += gi * gi
          W[i * K + k]! -= (o.rate * gi) / Math.sqrt(G[i * K + k]!)
        }
      }
    }
  }
  const weights: Record<string, ReadonlyArray<number>> = {}
  names.forEach((f, i) => {
    const w = Array.from({ length: K }, (_, k) => Math.round(W[i * K + k]! * 1e4) / 1e4)
    if (w.some((x) => Math.abs(x) >= 1e-3)) weights[f] = w
  })
  return { version: "dev", bias: Array.from(b, (x) => Math.round(x * 1e4) / 1e4), weights, threshold: THRESHOLD }
}

// ── Figures ────────────────────────────────────────────────────────────────────────────────────────

export interface Prediction {
  readonly app: string
  readonly actual: ClassValue
  readonly predicted: ClassValue
  readonly confidence: number
}

export interface Figures {
  readonly n: number
  readonly precision: number
  readonly recall: number
  readonly f1: number
  readonly exact: number
  readonly special: { readonly n: number; readonly recall: number; readonly precision: number }
  readonly criminal: { readonly n: number; readonly recall: number; readonly precision: number }
  readonly ece: number
}

const ratio = (a: number, b: number): number => (b === 0 ? 1 : a / b)

export const figures = (ps: ReadonlyArray<Prediction>): Figures => {
  let tp = 0, fp = 0, fn = 0, exact = 0
  const cls = (c: ClassValue) => {
    const actual = ps.filter((p) => p.actual === c).length
    const predicted = ps.filter((p) => p.predicted === c).length
    const hit = ps.filter((p) => p.actual === c && p.predicted === c).length
    return { n: actual, recall: ratio(hit, actual), precision: ratio(hit, predicted) }
  }
  for (const p of ps) {
    const a = p.actual !== "not"
    const q = p.predicted !== "not"
    if (a && q) tp++
    else if (q) fp++
    else if (a) fn++
    if (p.actual === p.predicted) exact++
  }
  const precision = ratio(tp, tp + fp)
  const recall = ratio(tp, tp + fn)
  return {
    n: ps.length,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    exact: ratio(exact, ps.length),
    special: cls("special"),
    criminal: cls("criminal"),
    ece: reliability(ps).ece
  }
}

/** Expected calibration error (10 equal-width bins of confidence) and the reliability table. */
export const reliability = (
  ps: ReadonlyArray<Prediction>
): {
  readonly ece: number
  readonly bins: ReadonlyArray<
    { readonly from: number; readonly n: number; readonly confidence: number; readonly right: number }
  >
} => {
  const bins = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, n: 0, conf: 0, right: 0 }))
  for (const p of ps) {
    const b = bins[Math.min(9, Math.floor(p.confidence * 10))]!
    b.n++
    b.conf += p.confidence
    if (p.actual === p.predicted) b.right++
  }
  const total = ps.length
  const ece = bins.reduce((e, b) => (b.n === 0 ? e : e + (b.n / total) * Math.abs(b.conf / b.n - b.right / b.n)), 0)
  return {
    ece,
    bins: bins.filter((b) => b.n > 0).map((b) => ({
      from: b.from,
      n: b.n,
      confidence: b.conf / b.n,
      right: b.right / b.n
    }))
  }
}
