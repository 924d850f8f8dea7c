/**
 * Compiles the classifier's data files (src/classifier/data/*.json) into Maps and Sets, once, at module
 * load. Every word is folded and tokenised the same way column names are, so a vocabulary word written
 * with an accent or as a glued compound still meets the tokens of a column name.
 */
import contextsData from "./data/contexts.json" with { type: "json" }
import lexiconData from "./data/lexicon.json" with { type: "json" }
import markersData from "./data/markers.json" with { type: "json" }
import nounsData from "./data/nouns.json" with { type: "json" }
import rulesData from "./data/rules.json" with { type: "json" }
import typesData from "./data/types.json" with { type: "json" }
import vocabularyData from "./data/vocabulary.json" with { type: "json" }
import { createTokenizer, fold, splitRaw, type Tokenizer } from "./tokenize.js"

export type FlagClass = "personal" | "special" | "criminal"

/** Where an entry may fire: anywhere, with some person evidence in the table, in a table linked to a person… */
export type Needs = "any" | "evidence" | "linked" | "personTable" | "criminalContext"

export type Kind =
  | "identity"
  | "contact"
  | "address"
  | "addressWeak"
  | "location"
  | "officialId"
  | "financial"
  | "online"
  | "onlineLinked"
  | "credential"
  | "descriptor"
  | "bioDate"
  | "behaviour"
  | "content"
  | "generic"
  | "special"
  | "criminal"

export type TypeFamily =
  | "timestamp"
  | "date"
  | "boolean"
  | "network"
  | "geo"
  | "uuid"
  | "integer"
  | "numeric"
  | "binary"
  | "json"
  | "text"
  | "named"

export interface Entry {
  readonly id: string
  readonly cls: FlagClass
  readonly category: string
  readonly kind: Kind
  readonly confidence: number
  readonly needs: Needs
  readonly veto: ReadonlySet<TypeFamily>
  /** `org`: suppressed in organisation tables unless a person modifier rescues it. */
  readonly orgSuppress: boolean
  /** Weak address words (city, state, country) fire only bare or with address/recipient modifiers. */
  readonly bare: boolean
  /** `<entry>_id`: the value itself (gender_id, session_id) or a key of a non-person record (address_id). */
  readonly idIsValue: boolean
  readonly onDate: { readonly category: string; readonly confidence: number } | null
  /** The reading of a decimal-typed column (a `note float` is a mark, not a note). */
  readonly onNumber: { readonly category: string; readonly confidence: number } | null
}

interface KindSpec {
  readonly needs: string
  readonly veto: ReadonlyArray<string>
  readonly org: string
  readonly bare: boolean
  readonly idSuffix: string
}

interface RawEntry {
  readonly id: string
  readonly class: string
  readonly category: string
  readonly kind: string
  readonly confidence: number
  readonly needs?: string
  readonly veto?: ReadonlyArray<string>
  readonly tokens?: ReadonlyArray<string>
  readonly phrases?: ReadonlyArray<ReadonlyArray<string>>
  readonly onDate?: { readonly category: string; readonly confidence: number }
  readonly onNumber?: { readonly category: string; readonly confidence: number }
  readonly idSuffix?: string
}

const kinds = vocabularyData.kinds as unknown as Record<Kind, KindSpec>
const rawEntries = vocabularyData.entries as unknown as ReadonlyArray<RawEntry>

/** Every word of every data file, folded: the tokenizer's known words. */
const allWords = new Set<string>()
const addWord = (w: string): void => {
  for (const piece of splitRaw(w)) if (piece.length > 0) allWords.add(piece)
  const f = fold(w)
  if (/^[a-z0-9]+$/.test(f)) allWords.add(f)
}
const wordSet = (words: ReadonlyArray<string>): Set<string> => {
  const s = new Set<string>()
  for (const w of words) {
    addWord(w)
    const pieces = splitRaw(w)
    if (pieces.length === 1) s.add(pieces[0]!)
    else if (pieces.length > 1) s.add(pieces.join("_"))
  }
  return s
}

for (const e of rawEntries) {
  for (const t of e.tokens ?? []) addWord(t)
  for (const p of e.phrases ?? []) for (const t of p) addWord(t)
}

export const nouns = {
  person: wordSet(nounsData.person),
  role: wordSet(nounsData.role),
  organisation: wordSet(nounsData.organisation),
  object: wordSet(nounsData.object),
  address: wordSet(nounsData.address),
  lookupHead: wordSet(nounsData.lookupHead),
  decoration: wordSet(nounsData.decoration),
  accountContext: wordSet(nounsData.accountContext),
  ambiguousPerson: wordSet(nounsData.ambiguousPerson),
  interaction: wordSet(nounsData.interaction),
  recipientTable: wordSet(nounsData.recipientTable),
  weakDecoration: wordSet(nounsData.weakDecoration),
  aggregate: wordSet(nounsData.aggregate),
  actor: wordSet(nounsData.actor),
  headFirstLookup: wordSet(nounsData.headFirstLookup)
}

export const markers = {
  negativeFlag: wordSet(markersData.negativeFlag),
  negativeMeta: wordSet(markersData.negativeMeta),
  negativePrefix: wordSet(markersData.negativePrefix),
  transparent: wordSet(markersData.transparent),
  key: wordSet(markersData.key),
  time: wordSet(markersData.time),
  timeFirst: wordSet(markersData.timeFirst),
  validity: wordSet(markersData.validity),
  authorVerbs: wordSet(markersData.authorVerbs),
  byWords: wordSet(markersData.byWords),
  authorNouns: wordSet(markersData.authorNouns),
  recipient: wordSet(markersData.recipient),
  activity: wordSet(markersData.activity),
  count: wordSet(markersData.count),
  tracking: wordSet(markersData.tracking),
  settings: wordSet(markersData.settings),
  technical: wordSet(markersData.technical),
  recency: wordSet(markersData.recency),
  clinicalPersonKeys: wordSet(markersData.clinicalPersonKeys),
  systemModifiers: wordSet(markersData.systemModifiers),
  pkTokens: wordSet(markersData.pkTokens)
}

export const contexts = {
  clinicalStrong: wordSet(contextsData.clinicalStrong),
  clinicalWeak: wordSet(contextsData.clinicalWeak),
  criminalStrong: wordSet(contextsData.criminalStrong),
  criminalWeak: wordSet(contextsData.criminalWeak),
  categorising: wordSet(contextsData.categorising),
  audit: wordSet(contextsData.audit),
  recordPointer: wordSet(contextsData.recordPointer),
  processingMeta: wordSet(contextsData.processingMeta),
  satelliteHead: wordSet(contextsData.satelliteHead),
  personInstrument: wordSet(contextsData.personInstrument),
  conditionDate: wordSet(contextsData.conditionDate)
}

/**
 * Pipeline bookkeeping (contexts.json `pipeline`, `pipelineTail`). Read off names only: they are neither
 * lexicon words (which would change how glued names split) nor "known" words of the name analysis.
 */
export const pipeline: { readonly words: ReadonlySet<string>; readonly tails: ReadonlySet<string> } = {
  words: new Set(contextsData.pipeline),
  tails: new Set(contextsData.pipelineTail)
}

/** When a clinical/criminal flavour covers the whole source (see contexts.json `flavour`). */
export const contextFlavour: { readonly minStrongTables: number; readonly minShare: number } = contextsData.flavour

for (const w of lexiconData.compoundParts) addWord(w)
for (const w of Object.keys(lexiconData.abbreviations)) addWord(w)

const abbreviations = new Map<string, ReadonlyArray<string>>()
for (const [k, v] of Object.entries(lexiconData.abbreviations)) abbreviations.set(fold(k), v.map(fold))
// An abbreviation that maps to itself is only a known word, not an expansion.
for (const [k, v] of [...abbreviations]) if (v.length === 1 && v[0] === k) abbreviations.delete(k)

export const tokenizer: Tokenizer = createTokenizer({
  words: allWords,
  shortParts: new Set(lexiconData.shortParts.map(fold)),
  noParts: new Set(lexiconData.noParts.map(fold)),
  abbreviations,
  stopwords: new Set(lexiconData.stopwords.map(fold))
})

const toFamilies = (xs: ReadonlyArray<string>): ReadonlySet<TypeFamily> => new Set(xs as ReadonlyArray<TypeFamily>)

/** Single-token entries and phrase entries (key: the phrase's tokens sorted and joined by a space). */
export const tokenEntries = new Map<string, Entry>()
export const phraseEntries = new Map<string, Entry>()
/** Every token that occurs in some phrase: windows holding any other token are never looked up. */
export const phraseTokens = new Set<string>()
export let maxPhraseLength = 1

const phraseKey = (tokens: ReadonlyArray<string>): string => [...tokens].sort().join(" ")
export { phraseKey }

for (const raw of rawEntries) {
  const spec = kinds[raw.kind as Kind]
  if (spec === undefined) throw new Error(`vocabulary entry ${raw.id}: unknown kind ${raw.kind}`)
  const entry: Entry = {
    id: raw.id,
    cls: raw.class as FlagClass,
    category: raw.category,
    kind: raw.kind as Kind,
    confidence: raw.confidence,
    needs: (raw.needs ?? spec.needs) as Needs,
    veto: toFamilies(raw.veto ?? spec.veto),
    orgSuppress: spec.org === "suppress",
    bare: spec.bare,
    idIsValue: (raw.idSuffix ?? spec.idSuffix) === "value",
    onDate: raw.onDate ?? null,
    onNumber: raw.onNumber ?? null
  }
  const register = (tokens: ReadonlyArray<string>): void => {
    if (tokens.length === 0) return
    if (tokens.length === 1) {
      const t = tokens[0]!
      if (!tokenEntries.has(t)) tokenEntries.set(t, entry)
      return
    }
    const key = phraseKey(tokens)
    if (!phraseEntries.has(key)) phraseEntries.set(key, entry)
    for (const x of tokens) phraseTokens.add(x)
    if (tokens.length > maxPhraseLength) maxPhraseLength = tokens.length
  }
  for (const t of raw.tokens ?? []) {
    // A vocabulary word is registered under its whole folded form and under its token analysis,
    // so `telefonnummer` matches both as one word and as `telefon nummer`.
    const f = fold(t)
    if (/^[a-z0-9]+$/.test(f)) register([f])
    const toks = tokenizer.tokens(t)
    if (toks.length > 1 || (toks.length === 1 && toks[0] !== f)) register(toks)
  }
  for (const p of raw.phrases ?? []) {
    // Tokenised as one identifier, so stopwords drop exactly as in column names (`sign_in_count`).
    const toks = tokenizer.tokens(p.join("_"))
    // A phrase that collapses to one token once its stopwords drop (`clock in`) would match too much.
    if (toks.length > 1 || p.length === 1) register(toks)
  }
}

// Type families.
interface FamilySpec {
  readonly family: TypeFamily
  readonly pattern: RegExp
}
export const typeFamilies: ReadonlyArray<FamilySpec> = typesData.families.map((f) => ({
  family: f.family as TypeFamily,
  pattern: new RegExp(f.pattern)
}))
const familyCache = new Map<string, TypeFamily>()
/** The family of a SQL type string, e.g. `character varying(40)` → text, `int(11)` → integer. */
export const typeFamily = (type: string): TypeFamily => {
  const cached = familyCache.get(type)
  if (cached !== undefined) return cached
  // Unions such as `string | customer` (OpenAPI) are read by their first member.
  const t = fold(type).split("|")[0]!.trim()
  let family: TypeFamily = "named"
  for (const f of typeFamilies) {
    if (f.pattern.test(t)) {
      family = f.family
      break
    }
  }
  if (familyCache.size < 50_000) familyCache.set(type, family)
  return family
}

export interface TypeEvidence {
  readonly cls: FlagClass
  readonly category: string
  readonly confidence: number
  readonly rule: string
  readonly needs: Needs
}
export const typeEvidence = new Map<TypeFamily, TypeEvidence>()
for (const [family, ev] of Object.entries(typesData.evidence)) {
  const e = ev as { class: string; category: string; confidence: number; rule: string; needs?: string }
  typeEvidence.set(family as TypeFamily, {
    cls: e.class as FlagClass,
    category: e.category,
    confidence: e.confidence,
    rule: e.rule,
    needs: (e.needs ?? "any") as Needs
  })
}

export const confidence = rulesData.confidence
export const factor = rulesData.factor
