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
 * Special/criminal outrank personal when several entries match; confidence is the entry's base,
 * lowered by weak contexts and trailing unknown words, raised slightly in confirmed person tables.
 */
import type { ClassValue, ColumnVerdict, RawColumn, RawDataset } from "../domain/Metadata.js"
import {
  confidence as C,
  contextFlavour,
  contexts,
  type Entry,
  factor as F,
  type FlagClass,
  markers,
  maxPhraseLength,
  type Needs,
  nouns,
  phraseEntries,
  phraseKey,
  phraseTokens,
  tokenEntries,
  tokenizer,
  typeEvidence,
  type TypeFamily,
  typeFamily
} from "./compile.js"
import { splitRaw } from "./tokenize.js"

// ---------------------------------------------------------------------------------------------
// Name analysis (pure function of the name; memoised)
// ---------------------------------------------------------------------------------------------

interface Match {
  readonly entry: Entry
  readonly start: number
  readonly end: number
  readonly phrase: boolean
}

type Modifier = "person" | "recipient" | "address" | "object" | "org" | null

/** A match with everything that depends only on the name, computed once per distinct name. */
interface MatchInfo extends Match {
  /** Significant tokens after the match (no digits, no transparent qualifiers). */
  readonly trailing: ReadonlyArray<string>
  /** Whose value it is, from the neighbouring tokens (`customer_email`, `ship_city`, `product_name`). */
  readonly mod: Modifier
  readonly setting: string | undefined
  readonly thing: string | undefined
  readonly unknownTrail: boolean
  /** For weak address words: only address words or person nouns around them. */
  readonly addressShape: boolean
}

interface NameInfo {
  readonly name: string
  /** All tokens, digits included. */
  readonly all: ReadonlyArray<string>
  /** Tokens without digits. */
  readonly tokens: ReadonlyArray<string>
  /** Vocabulary matches, best first. */
  readonly matches: ReadonlyArray<MatchInfo>
  /** Last significant token (not digit, not transparent qualifier) and first token. */
  readonly head: string
  readonly first: string
  /** The column is an identifier of `keyNoun` (`customer_id`, `id_cliente`, `emp_no`). */
  readonly keyNoun: string | null
  /** Last token is an id-like marker (`id`, `uuid`, `key`): a surrogate/foreign key shape. */
  readonly idTail: boolean
  /** Just `id` / `pk` / `uuid`. */
  readonly bareId: boolean
  readonly time: boolean
  readonly negFlag: string | null
  readonly negMeta: string | null
  readonly negPrefix: string | null
  readonly author: boolean
  /** The head is a person or role noun (`crew`, `composer`, `customer`, `lab_staff`). */
  readonly roleHead: string | null
  /** The head was written in the plural (`active_users`, `actors`). */
  readonly pluralHead: boolean
  readonly personNoun: string | null
  readonly orgNoun: string | null
  readonly activity: boolean
  readonly tracking: boolean
  readonly count: boolean
  readonly validity: boolean
  readonly categorisingKey: boolean
  readonly recordPointer: boolean
  readonly processingMeta: boolean
  readonly audit: boolean
  // Per-name summaries used by the table pass (precomputed once per distinct name).
  readonly bestId: string | null
  readonly identitySig: string | null
  readonly valueEvidence: boolean
  readonly onlineEvidence: boolean
  readonly personTokens: ReadonlyArray<string>
  readonly contactPersonCol: boolean
  readonly orgNameShape: boolean
  readonly credential: boolean
  /** One significant token (`customer`, `pid`): may be a key by itself. */
  readonly singleToken: boolean
  /** The person noun this name is a key of (`customer_id` → customer; a bare `customer`), if any. */
  readonly personKeyNoun: string | null
  /** `pid`, `subject_id`: a patient key in a clinical source. */
  readonly clinicalKeyNoun: string | null
  readonly ambiguousKeyNoun: boolean
  /** The person is one who acts on the record (author, organizer, instructor), not its subject. */
  readonly actorKey: boolean
  readonly addressKey: boolean
  /** Worth a look in the key passes. */
  readonly keyCandidate: boolean
}

const classRank: Record<FlagClass, number> = { personal: 1, special: 2, criminal: 3 }
const personalPhoneWords = new Set(["home", "mobile", "cell", "private", "personal", "privat", "prive", "privado", "privato", "handy", "direct"])
const idLike = new Set(["id", "ids", "uuid", "guid", "key", "keys", "pk", "fk", "sk", "oid", "vid", "rowid"])
/** Key markers that may lead a Romance or Dutch key name (`id_cliente`, `nr_klant`, `codice_paziente`). */
const firstKeyMarkers = new Set(["id", "nr", "no", "numero", "nummer", "cod", "codigo", "codice", "code", "ref"])
const isDigit = (t: string): boolean => {
  if (t.length === 0) return false
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/** Generic words (name, value, notes) rank below specific ones (gender, email) in the same column. */
const specificity = (e: Entry): number => (e.kind === "generic" || e.kind === "content" ? 0 : 1)

const findMatches = (all: ReadonlyArray<string>): Array<Match> => {
  const out: Array<Match> = []
  const covered = new Array<boolean>(all.length).fill(false)
  const inPhrase = all.map((x) => phraseTokens.has(x))
  const maxN = Math.min(maxPhraseLength, all.length)
  for (let n = maxN; n >= 2; n--) {
    for (let i = 0; i + n <= all.length; i++) {
      let free = true
      for (let k = i; k < i + n; k++) if (covered[k] || !inPhrase[k]) free = false
      if (!free) continue
      const e = phraseEntries.get(phraseKey(all.slice(i, i + n)))
      if (e === undefined) continue
      out.push({ entry: e, start: i, end: i + n, phrase: true })
      for (let k = i; k < i + n; k++) covered[k] = true
    }
  }
  for (let i = 0; i < all.length; i++) {
    if (covered[i]) continue
    const e = tokenEntries.get(all[i]!)
    if (e !== undefined) out.push({ entry: e, start: i, end: i + 1, phrase: false })
  }
  out.sort(
    (a, b) =>
      classRank[b.entry.cls] - classRank[a.entry.cls] ||
      specificity(b.entry) - specificity(a.entry) ||
      b.end - a.end ||
      b.end - b.start - (a.end - a.start) ||
      b.entry.confidence - a.entry.confidence
  )
  return out
}

const EMPTY: ReadonlyArray<string> = []

const modifierOfToken = (x: string, all: ReadonlyArray<string>, start: number): Modifier => {
  if (nouns.person.has(x) || nouns.role.has(x)) return "person"
  if (markers.recipient.has(x)) return "recipient"
  if (nouns.object.has(x) || nouns.lookupHead.has(x) || markers.systemModifiers.has(x)) return "object"
  if (nouns.organisation.has(x)) return "org"
  const k = tokenEntries.get(x)?.kind
  if (k === "address" || (k === "addressWeak" && x !== all[start])) return "address"
  return null
}

const matchInfo = (all: ReadonlyArray<string>, m: Match): MatchInfo => {
  let trailing: Array<string> | null = null
  let setting: string | undefined
  let thing: string | undefined
  let unknownTrail = false
  let addressShape = true
  for (let i = m.end; i < all.length; i++) {
    const x = all[i]!
    if (isDigit(x) || markers.transparent.has(x)) continue
    if (trailing === null) trailing = []
    trailing.push(x)
    if (setting === undefined && markers.settings.has(x)) setting = x
    if (thing === undefined && (markers.negativeMeta.has(x) || nouns.object.has(x) || nouns.organisation.has(x))) thing = x
    const known = tokenEntries.get(x)
    if (!markers.key.has(x) && !markers.time.has(x) && !nouns.person.has(x) && !nouns.role.has(x) && known === undefined) unknownTrail = true
    if (!(known?.kind === "addressWeak" || nouns.person.has(x) || markers.key.has(x))) addressShape = false
  }
  for (let i = 0; i < m.start && addressShape; i++) {
    const x = all[i]!
    if (isDigit(x)) continue
    const k = tokenEntries.get(x)?.kind
    if (!(markers.recipient.has(x) || nouns.person.has(x) || nouns.role.has(x) || k === "addressWeak" || k === "address")) addressShape = false
  }
  // Whose value it is: the token just before, the token just after, then further left.
  let mod: Modifier = null
  if (m.start > 0) mod = modifierOfToken(all[m.start - 1]!, all, m.start)
  if (mod === null && m.end < all.length) mod = modifierOfToken(all[m.end]!, all, m.start)
  for (let i = m.start - 2; mod === null && i >= 0; i--) mod = modifierOfToken(all[i]!, all, m.start)
  return {
    entry: m.entry,
    start: m.start,
    end: m.end,
    phrase: m.phrase,
    trailing: trailing ?? EMPTY,
    mod,
    setting,
    thing,
    unknownTrail,
    addressShape
  }
}

const nameCache = new Map<string, NameInfo>()

// Per-token features as bits, computed once per distinct token (a name is then read with one Map
// lookup per token instead of a dozen Set lookups).
const F_PERSON = 1 << 0
const F_ROLE = 1 << 1
const F_ORG = 1 << 2
const F_ACTIVITY = 1 << 3
const F_TRACKING = 1 << 4
const F_COUNT = 1 << 5
const F_VALIDITY = 1 << 6
const F_RECORDPTR = 1 << 7
const F_AUDIT = 1 << 8
const F_KEY = 1 << 9
const F_TRANSPARENT = 1 << 10
const F_TIME = 1 << 11
const F_NEGFLAG = 1 << 12
const F_NEGMETA = 1 << 13
const F_NEGPREFIX = 1 << 14
const F_BY = 1 << 15
const F_AUTHORVERB = 1 << 16
const F_AUTHORNOUN = 1 << 17
const F_TIMEFIRST = 1 << 18
const F_PK = 1 << 19
const F_CATEGORISING = 1 << 20
const F_PROCESSING = 1 << 21
const F_IDLIKE = 1 << 22
const F_DIGIT = 1 << 23
const F_FIRSTKEY = 1 << 24
const F_VOCAB = 1 << 25

/** Features of every known token, computed once at module load; unknown tokens have none. */
const knownFeatures = new Map<string, number>()
const featuresOf = (t: string): number => knownFeatures.get(t) ?? (isDigit(t) ? F_DIGIT : 0)
const computeFeatures = (t: string): number => {
  let f = 0
  if (nouns.person.has(t)) f |= F_PERSON
  if (nouns.role.has(t)) f |= F_ROLE
  if (nouns.organisation.has(t)) f |= F_ORG
  if (markers.activity.has(t)) f |= F_ACTIVITY
  if (markers.tracking.has(t)) f |= F_TRACKING
  if (markers.count.has(t)) f |= F_COUNT
  if (markers.validity.has(t)) f |= F_VALIDITY
  if (contexts.recordPointer.has(t)) f |= F_RECORDPTR
  if (contexts.audit.has(t)) f |= F_AUDIT
  if (markers.key.has(t)) f |= F_KEY
  if (markers.transparent.has(t)) f |= F_TRANSPARENT
  if (markers.time.has(t)) f |= F_TIME
  if (markers.negativeFlag.has(t)) f |= F_NEGFLAG
  if (markers.negativeMeta.has(t)) f |= F_NEGMETA
  if (markers.negativePrefix.has(t)) f |= F_NEGPREFIX
  if (markers.byWords.has(t)) f |= F_BY
  if (markers.authorVerbs.has(t)) f |= F_AUTHORVERB
  if (markers.authorNouns.has(t)) f |= F_AUTHORNOUN
  if (markers.timeFirst.has(t)) f |= F_TIMEFIRST
  if (markers.pkTokens.has(t)) f |= F_PK
  if (contexts.categorising.has(t)) f |= F_CATEGORISING
  if (contexts.processingMeta.has(t)) f |= F_PROCESSING
  if (idLike.has(t)) f |= F_IDLIKE
  if (firstKeyMarkers.has(t)) f |= F_FIRSTKEY
  if (tokenEntries.has(t) || phraseTokens.has(t)) f |= F_VOCAB
  return f
}
// Every word any rule looks at is "known" (a name made only of other words is blank).
const F_KNOWN = 1 << 26
for (const set of [
  ...Object.values(nouns),
  ...Object.values(markers),
  ...Object.values(contexts),
  idLike,
  firstKeyMarkers,
  personalPhoneWords,
  new Set(tokenEntries.keys()),
  phraseTokens
]) {
  for (const t of set) if (!knownFeatures.has(t)) knownFeatures.set(t, computeFeatures(t) | F_KNOWN)
}

const noMatches: ReadonlyArray<MatchInfo> = []

/**
 * Names are analysed by their shape: their tokens, without digits (unless a phrase needs them, as in
 * `last 4`), and with every name made only of unknown words collapsed into one blank shape. So
 * `col_17_3`, `col_2_9` share one analysis, and a source of generated names costs little more than
 * a source of a few hundred distinct ones.
 */
const shapeCache = new Map<string, NameInfo>()
const CACHE_LIMIT = 50_000
const BLANK = "\u2205"

const analyzeName = (name: string): NameInfo => {
  const cached = nameCache.get(name)
  if (cached !== undefined) return cached
  const raw = tokenizer.tokens(name)
  let shape = ""
  let known = false
  let lastKnown = 0
  let prev = ""
  for (const x of raw) {
    const f = featuresOf(x)
    // Digits are dropped unless they complete a phrase (`last 4`): `address_2`, `col_17` keep one shape.
    if (f & F_DIGIT && !(phraseTokens.has(x) && phraseEntries.has(phraseKey([prev, x])))) continue
    prev = x
    if (f !== 0 && f !== F_DIGIT) known = true
    lastKnown = f
    shape = shape.length === 0 ? x : `${shape} ${x}`
  }
  if (!known) shape = BLANK
  // A person noun written in the plural (`actors`, `active_users`) reads differently: keep it apart.
  else if (lastKnown & (F_PERSON | F_ROLE)) {
    const pieces = splitRaw(name)
    const rawLast = pieces[pieces.length - 1] ?? ""
    if (/(s|es)$/.test(rawLast) && !rawLast.endsWith("ss")) shape += " |plural"
  }
  let info = shapeCache.get(shape)
  if (info === undefined) {
    info = analyzeShape(shape)
    if (shapeCache.size < CACHE_LIMIT) shapeCache.set(shape, info)
  }
  // Bounded: a source of unique generated names stops filling the memo instead of thrashing it.
  if (nameCache.size < CACHE_LIMIT) nameCache.set(name, info)
  return info
}

const analyzeShape = (shape: string): NameInfo => {
  const plural = shape.endsWith(" |plural")
  const all: ReadonlyArray<string> = shape === BLANK ? [] : (plural ? shape.slice(0, -8) : shape).split(" ")
  const name = shape
  const tokens: Array<string> = []
  const feats: Array<number> = []
  let any = 0
  let head = ""
  for (const x of all) {
    const f = featuresOf(x)
    any |= f
    if (f & F_DIGIT) continue
    tokens.push(x)
    feats.push(f)
    if ((f & F_TRANSPARENT) === 0) head = x
  }
  const n = tokens.length
  if (head === "") head = tokens[n - 1] ?? ""
  const first = tokens[0] ?? ""
  const fFirst = feats[0] ?? 0
  const fLast = feats[n - 1] ?? 0
  const matches = any & F_VOCAB ? findMatches(all).map((m) => matchInfo(all, m)) : noMatches

  // Key shape: trailing key marker(s) after a noun, or a leading one (Romance: id_cliente, nr_klant).
  let keyNoun: string | null = null
  if (n >= 2 && fLast & F_KEY) {
    for (let i = n - 2; i >= 0; i--) {
      if (feats[i]! & (F_KEY | F_TRANSPARENT)) continue
      keyNoun = tokens[i]!
      break
    }
  } else if (n >= 2 && fFirst & F_FIRSTKEY) {
    keyNoun = tokens[1]!
  }
  const idTail = (fLast & F_IDLIKE) !== 0
  const bareId = n === 1 && (fLast & (F_PK | F_IDLIKE)) !== 0
  const time = (fLast & F_TIME) !== 0 || (n > 1 && (fFirst & F_TIMEFIRST) !== 0)
  // Markers are read on the last token before any time suffix (`email_verified_at` → verified).
  let core = n
  while (core > 1 && feats[core - 1]! & F_TIME) core--
  const coreLast = tokens[core - 1] ?? ""
  const fCore = feats[core - 1] ?? 0
  const negFlag = n > 1 && fCore & F_NEGFLAG ? coreLast : null
  const negMeta = n > 1 && fCore & F_NEGMETA ? coreLast : null
  const negPrefix = n > 1 && fFirst & F_NEGPREFIX ? first : null

  // Author: `<verb> by` (created_by, erstellt_von), or an author noun (creator, owner_id, last_updated_by).
  let author = false
  let personNoun: string | null = null
  let orgNoun: string | null = null
  let all_ = 0
  const personTokens: Array<string> = []
  for (let i = 0; i < n; i++) {
    const f = feats[i]!
    all_ |= f
    if (f & F_BY && i > 0 && feats[i - 1]! & F_AUTHORVERB) author = true
    if (f & F_AUTHORNOUN && (i === n - 1 || feats[i + 1]! & F_KEY)) author = true
    if (f & (F_PERSON | F_ROLE)) {
      if (personNoun === null) personNoun = tokens[i]!
      personTokens.push(tokens[i]!)
    }
    if (orgNoun === null && f & F_ORG) orgNoun = tokens[i]!
  }
  const fHead = featuresOf(head)
  const roleHead = fHead & (F_PERSON | F_ROLE) ? head : null
  const pluralHead = plural && roleHead !== null
  const categorisingKey = idTail && n >= 2 && (feats[n - 2]! & F_CATEGORISING) !== 0
  const processingMeta = (fFirst & F_PROCESSING) !== 0 || (n > 1 && (fLast & F_PROCESSING) !== 0)

  const best = matches[0]?.entry ?? null
  const unmarked = negFlag === null && negMeta === null && negPrefix === null
  const kind = best?.kind
  const personKeyNoun =
    keyNoun !== null && (featuresOf(keyNoun) & (F_PERSON | F_ROLE)) !== 0 ? keyNoun : n === 1 && (fHead & F_PERSON) !== 0 ? head : null
  const clinicalKeyNoun =
    keyNoun !== null && markers.clinicalPersonKeys.has(keyNoun) ? keyNoun : n === 1 && markers.clinicalPersonKeys.has(head) ? head : null
  const info: NameInfo = {
    bestId: best?.id ?? null,
    identitySig: best !== null && unmarked ? identityCategory(best) : null,
    valueEvidence:
      best !== null && negFlag === null && negMeta === null && (kind === "identity" || kind === "contact" || kind === "officialId" || kind === "online"),
    onlineEvidence: matches.some((m) => m.entry.kind === "online" || m.entry.kind === "onlineLinked"),
    personTokens,
    contactPersonCol: (best !== null && unmarked && best.id === "full_name" && tokens.includes("contact")) || (first === "contact" && n > 1 && keyNoun === null),
    orgNameShape: orgNoun !== null && !idTail && (n === 1 || (n === 2 && head === "name")),
    credential: best !== null && unmarked && best.id === "password",
    singleToken: n === 1,
    personKeyNoun,
    clinicalKeyNoun,
    ambiguousKeyNoun: personKeyNoun !== null && nouns.ambiguousPerson.has(personKeyNoun),
    actorKey: personKeyNoun !== null && (nouns.actor.has(personKeyNoun) || tokens.some((x) => nouns.actor.has(x))),
    addressKey: keyNoun !== null && nouns.address.has(keyNoun),
    keyCandidate: personKeyNoun !== null || clinicalKeyNoun !== null || (keyNoun !== null && nouns.address.has(keyNoun)),
    name,
    all,
    tokens,
    matches,
    head,
    first,
    keyNoun,
    idTail,
    bareId,
    time,
    negFlag,
    negMeta,
    negPrefix,
    author,
    roleHead,
    pluralHead,
    personNoun,
    orgNoun,
    activity: (all_ & F_ACTIVITY) !== 0,
    tracking: (all_ & F_TRACKING) !== 0,
    count: (all_ & F_COUNT) !== 0,
    validity: (all_ & F_VALIDITY) !== 0,
    categorisingKey,
    recordPointer: (all_ & F_RECORDPTR) !== 0,
    processingMeta,
    audit: (all_ & F_AUDIT) !== 0
  }
  return info
}

// ---------------------------------------------------------------------------------------------
// Table analysis
// ---------------------------------------------------------------------------------------------

type PersonStatus = "person" | "mixed" | "org" | "none"

interface TableInfo {
  readonly ds: RawDataset
  readonly id: string
  readonly tokens: ReadonlyArray<string>
  readonly head: string
  readonly names: ReadonlyArray<NameInfo>
  readonly families: ReadonlyArray<TypeFamily>
  readonly pkCount: number
  personHead: boolean
  orgHead: boolean
  objectHead: boolean
  addressHead: boolean
  instrumentHead: boolean
  satelliteHead: boolean
  interactionHead: boolean
  recipientHead: boolean
  sessionHead: boolean
  hasOnlineEvidence: boolean
  aggregate: boolean
  accountContext: boolean
  lookup: boolean
  clinicalStrong: boolean
  clinicalWeak: boolean
  criminalStrong: boolean
  criminalWeak: boolean
  personInTableName: boolean
  hasPersonNames: boolean
  hasOrgName: boolean
  hasContactPerson: boolean
  identitySignals: number
  hasBirth: boolean
  hasLogin: boolean
  hasCredential: boolean
  hasGender: boolean
  hasFullName: boolean
  hasValueEvidence: boolean
  status: PersonStatus
  orgRow: boolean
  linked: boolean
  evidence: boolean
  satellite: boolean
  clinical: boolean
  criminal: boolean
  criminalSource: boolean
  addressOfPeople: boolean
  evidenceText: string
  /** Everything classifyColumn reads from the table, as bits: verdicts are memoised on it. */
  sig: number
  /** What classifyColumn reads from a table when a column references it, as bits. */
  asTarget: number
  /** A column named `id` or `<table>_id`, and the index of the single primary key (-1 if none). */
  ownIdName: boolean
  pkIndex: number
  /** Column index → why it is a key of a person. */
  /** Column index → why it is a key of a person (sparse; null when the table has none). */
  personKeys: Array<string | undefined> | null
  personKeyCount: number
  /** Columns worth looking at in the key passes: foreign keys and key-shaped names. */
  readonly keyCandidates: ReadonlyArray<number>
  validityCols: boolean
}


/** What a table's name says, memoised by the name without digits (partitions, copies share one). */
interface TableName {
  readonly tokens: ReadonlyArray<string>
  readonly head: string
  readonly aggregate: boolean
  readonly personHead: boolean
  readonly orgHead: boolean
  readonly objectHead: boolean
  readonly addressHead: boolean
  readonly instrumentHead: boolean
  readonly satelliteHead: boolean
  readonly interactionHead: boolean
  readonly recipientHead: boolean
  readonly sessionHead: boolean
  readonly accountContext: boolean
  readonly clinicalStrong: boolean
  readonly clinicalWeak: boolean
  readonly criminalStrong: boolean
  readonly criminalWeak: boolean
  readonly personInTableName: boolean
}
const tableNameCache = new Map<string, TableName>()

const analyzeTableName = (name: string, keepWeak: boolean): TableName => {
  const raw = tokenizer.tokens(name)
  let key = keepWeak ? "1" : "0"
  for (const x of raw) if (!isDigit(x)) key += ` ${x}`
  const cached = tableNameCache.get(key)
  if (cached !== undefined) return cached
  const { aggregate, tokens } = tableTokens(raw, keepWeak)
  const head = tokens[tokens.length - 1] ?? ""
  const lastTwo = tokens.length >= 2 ? tokens.slice(-2).join("") : ""
  const info: TableName = {
    tokens,
    head,
    aggregate,
    personHead: nouns.person.has(head) && !aggregate,
    orgHead: nouns.organisation.has(head),
    objectHead: nouns.object.has(head),
    addressHead: nouns.address.has(head),
    instrumentHead: contexts.personInstrument.has(head) || contexts.personInstrument.has(lastTwo),
    satelliteHead: contexts.satelliteHead.has(head),
    interactionHead: nouns.interaction.has(head) || tokens.some((x) => x === "engagement" || x === "interaction" || x === "conversation"),
    recipientHead: nouns.recipientTable.has(head),
    sessionHead: tokenEntries.get(head)?.kind === "onlineLinked",
    accountContext: tokens.some((x) => nouns.accountContext.has(x)),
    clinicalStrong: tokens.some((x) => contexts.clinicalStrong.has(x)),
    clinicalWeak: tokens.some((x) => contexts.clinicalWeak.has(x)),
    criminalStrong: tokens.some((x) => contexts.criminalStrong.has(x)),
    criminalWeak: tokens.some((x) => contexts.criminalWeak.has(x)),
    personInTableName: tokens.some((x) => nouns.person.has(x) && !nouns.ambiguousPerson.has(x))
  }
  if (tableNameCache.size < CACHE_LIMIT) tableNameCache.set(key, info)
  return info
}

const tableTokens = (all: ReadonlyArray<string>, keepWeak: boolean): { tokens: Array<string>; aggregate: boolean } => {
  let toks = all.filter((t) => !isDigit(t) && !nouns.decoration.has(t))
  let aggregate = all.some((t) => nouns.aggregate.has(t))
  // `sales_by_store`, `email_metrics_by_contact_list`: an aggregate, named by what it measures —
  // unless it is grouped by a person (`orders_by_customer` is per person).
  const by = toks.indexOf("by")
  if (by > 0) {
    const group = toks.slice(by + 1)
    const groupHead = group[group.length - 1] ?? ""
    if (nouns.person.has(groupHead)) toks = group
    else {
      toks = toks.slice(0, by)
      aggregate = true
    }
  }
  const strong = keepWeak ? toks : toks.filter((t) => !nouns.weakDecoration.has(t))
  return { tokens: strong.length > 0 ? strong : toks, aggregate }
}

const identityCategory = (e: Entry): string | null => {
  switch (e.id) {
    case "first_name":
      return "first"
    case "last_name":
      return "last"
    case "full_name":
      return "full"
    case "birth_date":
      return "birth"
    case "gender":
      return "gender"
    case "email":
      return "email"
    case "phone":
      return "phone"
    case "national_id":
    case "passport":
      return "nid"
    case "username":
      return "username"
    default:
      return null
  }
}

const buildTable = (ds: RawDataset): TableInfo => {
  const cols = ds.columns
  const names = new Array<NameInfo>(cols.length)
  const families = new Array<TypeFamily>(cols.length)
  let hasValueEvidence = false
  let hasOnlineEvidence = false
  let pkCount = 0
  let pkIndex = -1
  let validityCols = false
  const keyCandidates: Array<number> = []
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!
    const n = analyzeName(c.name)
    names[i] = n
    const fam = typeFamily(c.type)
    families[i] = fam
    if (c.references !== null || n.keyCandidate) keyCandidates.push(i)
    if (n.validity && (n.time || fam === "date" || fam === "timestamp")) validityCols = true
    // Value evidence decides whether weak decorations (customer_list) may be dropped.
    if (n.valueEvidence) hasValueEvidence = true
    if (n.onlineEvidence) hasOnlineEvidence = true
    if (c.isPrimaryKey) {
      pkCount++
      pkIndex = i
    }
  }
  const tn = analyzeTableName(ds.name, !hasValueEvidence)
  const { head, tokens } = tn
  const t: TableInfo = {
    ds,
    id: `${ds.schema}.${ds.name}`,
    tokens,
    head,
    names,
    families,
    pkCount,
    personHead: tn.personHead,
    orgHead: tn.orgHead,
    objectHead: tn.objectHead,
    addressHead: tn.addressHead,
    instrumentHead: tn.instrumentHead,
    satelliteHead: tn.satelliteHead,
    interactionHead: tn.interactionHead,
    recipientHead: tn.recipientHead,
    sessionHead: tn.sessionHead,
    hasOnlineEvidence,
    aggregate: tn.aggregate,
    accountContext: tn.accountContext,
    lookup: false,
    clinicalStrong: tn.clinicalStrong,
    clinicalWeak: tn.clinicalWeak,
    criminalStrong: tn.criminalStrong,
    criminalWeak: tn.criminalWeak,
    personInTableName: tn.personInTableName,
    hasPersonNames: false,
    hasOrgName: false,
    hasContactPerson: false,
    identitySignals: 0,
    hasBirth: false,
    hasLogin: false,
    hasCredential: false,
    hasGender: false,
    hasFullName: false,
    hasValueEvidence,
    status: "none",
    orgRow: false,
    linked: false,
    evidence: false,
    satellite: false,
    clinical: false,
    criminal: false,
    criminalSource: false,
    addressOfPeople: false,
    evidenceText: "",
    sig: 0,
    asTarget: 0,
    personKeys: null,
    personKeyCount: 0,
    keyCandidates,
    validityCols,
    ownIdName: false,
    pkIndex: pkCount === 1 ? pkIndex : -1
  }
  let signals = 0
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!
    if (n.bareId || (n.idTail && n.keyNoun === head)) t.ownIdName = true
    if (n.contactPersonCol) t.hasContactPerson = true
    if (n.credential) t.hasCredential = true
    // Organisation name: `company_name`, `company`, `organization_name` (text).
    if (n.orgNameShape && (families[i] === "text" || families[i] === "named")) t.hasOrgName = true
    const sig = n.identitySig
    if (sig === null) continue
    // A value qualified by another person (`owner_email`, `contact_emails`) describes that person, not the row.
    let otherPerson = false
    for (const x of n.personTokens) if (x !== head) otherPerson = true
    if (otherPerson) continue
    if (sig === "birth") t.hasBirth = true
    if (sig === "gender") t.hasGender = true
    if (sig === "full") t.hasFullName = true
    if (sig === "first" || sig === "last") t.hasPersonNames = true
    if (sig === "email" || sig === "username") t.hasLogin = true
    if (n.matches[0]!.entry.veto.has(families[i]!)) continue
    const bit = signalBits[sig] ?? 0
    if ((signals & bit) === 0) {
      signals |= bit
      t.identitySignals++
    }
  }
  return t
}

const signalBits: Record<string, number> = { first: 1, last: 2, full: 4, birth: 8, gender: 16, email: 32, phone: 64, nid: 128, username: 256 }

const setPersonKey = (t: TableInfo, j: number, why: string): void => {
  if (t.personKeys === null) t.personKeys = new Array<string | undefined>(t.ds.columns.length)
  if (t.personKeys[j] === undefined) t.personKeyCount++
  t.personKeys[j] = why
}

const lookupShape = (t: TableInfo): boolean => {
  if (t.ds.columns.length > 8) return false
  let keys = 0
  for (const n of t.names) if (n.idTail || n.bareId || n.keyNoun !== null) keys++
  return keys <= 3
}

// ---------------------------------------------------------------------------------------------
// Verdicts
// ---------------------------------------------------------------------------------------------

const round = (x: number): number => Math.round(Math.min(F.maxConfidence, Math.max(0.05, x)) * 100) / 100

const verdict = (
  value: ClassValue,
  rule: string,
  conf: number,
  method: string,
  category: string | null,
  evidence: ReadonlyArray<string>
): ColumnVerdict => ({
  value,
  rule,
  confidence: round(conf),
  method,
  category: value === "not" ? null : category,
  evidence
})

const valueKinds = new Set([
  "identity",
  "contact",
  "address",
  "addressWeak",
  "location",
  "officialId",
  "financial",
  "online",
  "onlineLinked",
  "credential",
  "content",
  "generic"
])

/** Kinds that describe the contact person in an organisation's row (not the organisation itself). */
const personLevelKinds = new Set(["identity", "descriptor", "bioDate", "behaviour", "content", "special", "criminal", "credential"])

interface Source {
  readonly tables: ReadonlyArray<TableInfo>
  readonly byId: BySchema
  readonly byHead: BySchema
  readonly clinicalSchemas: ReadonlySet<string>
  readonly criminalSchemas: ReadonlySet<string>
}

/** Tables by schema, then by a key (their name, or their head noun). */
type BySchema = Map<string, Map<string, TableInfo>>
const lookup2 = (m: BySchema, schema: string, key: string): TableInfo | undefined => m.get(schema)?.get(key)
const put2 = (m: BySchema, schema: string, key: string, t: TableInfo, overwrite: boolean): void => {
  let inner = m.get(schema)
  if (inner === undefined) {
    inner = new Map()
    m.set(schema, inner)
  }
  if (overwrite || !inner.has(key)) inner.set(key, t)
}

/** The table a name-based key (`customer_id`) points to, if the schema has one with that head noun. */
const namedTarget = (byHead: BySchema, t: TableInfo, noun: string): TableInfo | undefined => lookup2(byHead, t.ds.schema, noun)

const refTarget = (src: Source, col: RawColumn): TableInfo | undefined =>
  col.references === null ? undefined : lookup2(src.byId, col.references.schema, col.references.table)

const isPersonTarget = (t: TableInfo | undefined): boolean => t !== undefined && t.status === "person"
const isOrgTarget = (t: TableInfo | undefined): boolean => t !== undefined && (t.status === "org" || t.status === "mixed" || t.orgRow)

const needsMet = (needs: Needs, t: TableInfo, n: NameInfo, e: Entry | null): boolean => {
  const content = e !== null && (e.kind === "content" || e.kind === "generic")
  switch (needs) {
    case "any":
      return true
    case "evidence":
      return t.evidence || t.linked || t.status !== "none" || t.accountContext || t.addressOfPeople
    case "linked":
      return t.linked || t.status === "person" || t.status === "mixed" || (content && t.interactionHead)
    case "personTable":
      return (
        t.status === "person" ||
        t.satellite ||
        (t.instrumentHead && t.linked) ||
        (content && t.interactionHead && e !== null && e.category.startsWith("content.")) ||
        (n.personNoun !== null && n.personNoun !== n.head)
      )
    case "criminalContext":
      return t.criminal || (t.criminalSource && (t.status === "person" || t.linked))
  }
}

const orgLike = (t: TableInfo): boolean => t.status === "org" || t.status === "mixed" || (t.orgHead && t.status !== "person")

const escalate = (t: TableInfo, cls: FlagClass): FlagClass => {
  if (cls !== "personal") return cls
  if (t.criminal) return "criminal"
  if (t.clinical) return "special"
  return cls
}

interface EntryOutcome {
  readonly verdict: ColumnVerdict | null
  /** Why the best entry did not fire (a `not` verdict to use if nothing else decides). */
  readonly veto: ColumnVerdict | null
  /** The entry that was vetoed by the SQL type only (a comment may confirm it). */
  readonly typeVetoed: Entry | null
}


/** Try the vocabulary matches of a name (or comment clause, or struct type name) against the table and type. */
const evidenceOf = (source: string, n: NameInfo, m: MatchInfo): Array<string> => [
  `${source}: ${n.all.join(" ")}`,
  `${m.phrase ? "phrase" : "token"} ${n.all.slice(m.start, m.end).join(" ")} → ${m.entry.category}`
]

const evaluateEntries = (
  t: TableInfo,
  n: NameInfo,
  family: TypeFamily,
  source: "name" | "comment" | "type",
  addressColumn: boolean
): EntryOutcome => {
  // The first veto is kept as plain fields and turned into a verdict only at the end.
  let vetoMatch: MatchInfo | null = null
  let vetoRule = ""
  let vetoConf = 0
  let vetoMethod = ""
  let vetoNote = ""
  const reject = (m: MatchInfo, rule: string, conf: number, how: string, note: string): void => {
    if (vetoMatch !== null) return
    vetoMatch = m
    vetoRule = rule
    vetoConf = conf
    vetoMethod = how
    vetoNote = note
  }
  let typeVetoed: Entry | null = null
  const method = source === "name" ? "name-token" : source === "comment" ? "comment" : "sql-type"
  const srcFactor = source === "name" ? 1 : source === "comment" ? F.comment : F.typeName
  const isDate = family === "date" || family === "timestamp"
  for (const m of n.matches) {
    const e = m.entry
    const mMethod = source === "name" && m.phrase ? "name-phrase" : method
    const trailing = m.trailing
    // Comments and type names only count when the match is their head noun ("The contact's first name").
    if (source !== "name" && trailing.some((x) => !markers.key.has(x) && !markers.time.has(x))) continue
    const sensitive = e.cls !== "personal"
    const consent = e.category.startsWith("preferences.")
    // Flags (`email_verified`, `id_number_provided`) veto everything but sensitive and consent entries.
    if (n.negFlag !== null && !sensitive && !consent && trailing.includes(n.negFlag)) {
      reject(m, `negative:_${n.negFlag}`, C.negative, mMethod, `flag marker _${n.negFlag}`)
      continue
    }
    // Settings of a value (`consent_collection`, `email_template`) are configuration, whatever the value.
    const setting = m.setting
    if (setting !== undefined && !sensitive) {
      reject(m, `negative:_${setting}`, C.negative, mMethod, `setting marker _${setting}`)
      continue
    }
    const valueKind = valueKinds.has(e.kind)
    // The value of something else (`email_campaign_name`, `phone_model_cost`): a thing, not the person's value.
    const thing = m.thing
    if (valueKind && thing !== undefined && e.kind !== "generic" && e.kind !== "content" && !addressColumn) {
      reject(m, `negative:_${thing}`, C.negative, mMethod, `about a ${thing}, not the value`)
      continue
    }
    // Counts, types, statuses, formats of a value (`email_count`, `phone_type`, `is_email_verified`).
    if (valueKind) {
      const meta = n.negMeta !== null && trailing.includes(n.negMeta) ? `_${n.negMeta}` : n.negPrefix !== null && m.start > 0 ? `${n.negPrefix}_` : null
      if (meta !== null) {
        reject(m, `negative:${meta}`, C.negative, mMethod, `marker ${meta}`)
        continue
      }
    }
    // `<entry>_id` of a record kind is a surrogate key (address_id, note_id).
    if (n.idTail && !e.idIsValue && m.end < n.all.length && !addressColumn) {
      reject(m, "key:record", C.keyOfRecord, mMethod, "key of a non-person record")
      continue
    }
    // Event dates of value kinds (`note_date`, `address_updated_on`).
    if (n.time && valueKind && e.onDate === null && m.end < n.all.length) {
      reject(m, "event-date", C.eventDate, mMethod, "date of an event")
      continue
    }
    // Type veto (an integer cannot hold an e-mail), except entries with a date reading.
    let category = e.category
    let conf = e.confidence
    if (isDate && e.onDate !== null) {
      category = e.onDate.category
      conf = e.onDate.confidence
    } else if (e.veto.has(family)) {
      if (typeVetoed === null) typeVetoed = e
      reject(m, `type-veto:${family}`, C.typeVeto, "sql-type", `type ${family} cannot hold it`)
      continue
    }
    // Lookup tables list categories; there is no person in them.
    if (t.lookup && (!sensitive || !t.linked)) {
      reject(m, "context:lookup", C.contextSuppressed, "table-context", "lookup/reference table")
      continue
    }
    const mod: Modifier = m.mod ?? (t.recipientHead ? "recipient" : null)
    // Birth dates and descriptors of things (animals, plants, products) are not a person's.
    if ((e.kind === "bioDate" || e.kind === "descriptor") && t.objectHead && t.status === "none" && !t.linked && mod !== "person") {
      reject(m, "context:object-table", C.contextSuppressed, "table-context", "describes a thing, not a person")
      continue
    }
    let needs: Needs = e.needs
    if ((mod === "person" || mod === "recipient") && (needs === "personTable" || needs === "linked")) needs = "evidence"
    // A name qualified by a person (`owner_name`, `customer_name`, `nom_client`) is a person's name anywhere.
    if (mod === "person" && e.id === "name") needs = "any"
    if (e.kind === "addressWeak" && !addressColumn) {
      const addressContext = t.status === "person" || t.addressHead || mod === "person" || mod === "recipient" || mod === "address"
      if (!addressContext || !m.addressShape) {
        reject(m, "context:not-an-address", C.contextSuppressed, "table-context", "not part of a person's address")
        continue
      }
    } else if (!addressColumn && !needsMet(needs, t, n, e)) {
      reject(m, `context:needs-${needs}`, C.contextSuppressed, "table-context", `needs a ${needs} context`)
      continue
    }
    if (e.kind === "generic" || e.kind === "content") {
      if (mod === "object" || (mod === "org" && e.kind === "generic")) {
        reject(m, "context:object-name", C.contextSuppressed, "table-context", "names a thing, not a person")
        continue
      }
      if (t.objectHead && !t.linked && mod !== "person" && mod !== "recipient" && t.status === "none") {
        reject(m, "context:object-table", C.contextSuppressed, "table-context", "catalogue/object table")
        continue
      }
    }
    // Organisation tables: their own name, address, phone and web page are not personal.
    const personalPhone = e.kind === "contact" && e.id.startsWith("phone") && n.all.some((x) => personalPhoneWords.has(x))
    if (e.orgSuppress && orgLike(t) && mod !== "person" && mod !== "recipient" && !addressColumn && !personalPhone) {
      const personLevel = personLevelKinds.has(e.kind) || (e.kind === "contact" && e.id === "email")
      if (!(t.status === "mixed" && personLevel)) {
        reject(m, "context:organisation", C.contextSuppressed, "table-context", "data of an organisation")
        continue
      }
    }
    // Trailing unknown nouns weaken the match (`phone_model`).
    if (m.unknownTrail) conf *= F.trailingUnknown
    if (t.status === "person" && e.cls === "personal") conf += F.cooccurrenceBoost
    if (t.lookup || (needs !== e.needs && mod === null)) conf *= F.weakContext
    const cls = e.kind === "content" || e.kind === "generic" ? escalate(t, e.cls) : e.cls
    const ev = evidenceOf(source, n, m)
    if (cls !== e.cls) ev.push(t.clinical ? "clinical table: its text is health data" : "criminal-justice table")
    const cat = cls !== e.cls ? (cls === "special" ? "health.note" : "criminal.case") : category
    const rule = `${source === "name" ? "" : `${source}:`}${m.phrase ? "phrase" : "token"}:${e.id}`
    return { verdict: verdict(cls, rule, conf * srcFactor, mMethod, cat, ev), veto: null, typeVetoed: null }
  }
  const vm: MatchInfo | null = vetoMatch
  const veto = vm === null ? null : verdict("not", vetoRule, vetoConf, vetoMethod, null, [...evidenceOf(source, n, vm), vetoNote])
  return { verdict: null, veto, typeVetoed }
}

// Comments: the first clause is read like a column name ("The contact's IP address when …").
const commentKinds = new Set(["identity", "contact", "officialId", "online", "bioDate", "special", "criminal", "financial", "descriptor"])
const negationInComment = /^\s*(whether|if |true |indicates|flag|the number of|number of|count of|the count|total number|a list of|list of|the type|type of|the status|status of)/i
const leadingPreposition = /^\s*(for|if|when|in|on|with|only|used|set|see|a |an |one of|possible|may|can|will|should|must|deprecated)\b/i
const clauseEnd = /[.;:,(\n]|\s(when|where|that|which|who|whose|if|for|of|in|to|from|with|by|on|at|as|used|is|was|are|will|can|and|or|but)\s/i

const commentCache = new Map<string, NameInfo | null>()
const analyzeComment = (comment: string): NameInfo | null => {
  const cached = commentCache.get(comment)
  if (cached !== undefined) return cached
  let result: NameInfo | null = null
  if (!negationInComment.test(comment) && !leadingPreposition.test(comment)) {
    // "This is the email address …" → "email address"
    const text = comment.replace(/^\s*(this is|this field (is|holds|contains)|contains|holds|stores)\s+/i, "")
    const end = text.search(clauseEnd)
    const clause = (end >= 0 ? text.slice(0, end) : text).replace(/'s\b/g, "")
    const words = tokenizer.words(clause)
    if (words.length > 0 && words.length <= 8) {
      const info = analyzeName(words.join("_"))
      const matches = info.matches.filter((m) => commentKinds.has(m.entry.kind) && m.entry.confidence >= 0.8)
      if (matches.length > 0) result = { ...info, matches }
    }
  }
  if (commentCache.size < CACHE_LIMIT) commentCache.set(comment, result)
  return result
}

const typeNameCache = new Map<string, NameInfo>()
const analyzeTypeName = (type: string): NameInfo => {
  const cached = typeNameCache.get(type)
  if (cached !== undefined) return cached
  const info = analyzeName(type.split("|")[0]!.trim())
  if (typeNameCache.size < CACHE_LIMIT) typeNameCache.set(type, info)
  return info
}

const contextVerdict = (t: TableInfo, ev: string): ColumnVerdict =>
  t.criminal
    ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.case", [ev, "attribute of a criminal-justice record about a person"])
    : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health", [ev, "attribute of a health record about a person"])

const classifyColumn = (src: Source, t: TableInfo, j: number, withComment: boolean): ColumnVerdict => {
  const col: RawColumn = t.ds.columns[j]!
  const comment = withComment ? col.comment : null
  const n = t.names[j]!
  const family = t.families[j]!
  const isDate = family === "date" || family === "timestamp"
  const tableEv = t.evidenceText
  const target = refTarget(src, col)
  const personKey = t.personKeys?.[j]
  const clinicalOrCriminal = (t.clinical || t.criminal) && t.status !== "person"

  // 1. Own key of the table: `id`, or the single primary key that names the table itself.
  const namesTable = n.keyNoun !== null && n.keyNoun === t.head
  const ownKey =
    col.references === null &&
    personKey === undefined &&
    (n.bareId ||
      (namesTable && (n.idTail || col.isPrimaryKey)) ||
      (col.isPrimaryKey && t.pkCount === 1 && (n.idTail || n.keyNoun !== null) && (t.status === "person" || n.matches.every((m) => !m.entry.idIsValue))))
  if (ownKey) {
    if (t.status === "person") {
      return verdict("personal", "pk:person-table", C.pkPersonTable, "primary-key", "identifier.person_key", [tableEv, "key of a table about people"])
    }
    if ((t.instrumentHead && t.linked) || (t.sessionHead && t.hasOnlineEvidence)) {
      return verdict("personal", "pk:personal-instrument", C.pkPersonalInstrument, "primary-key", "identifier.instrument", [tableEv, "key of a person's card/account/session"])
    }
    return verdict("not", "pk:non-person", C.pkNonPerson, "primary-key", null, [tableEv, "surrogate key of a non-person record"])
  }

  // 2. Keys of people: a declared foreign key to a person table, or a name-based person key.
  if (personKey !== undefined) {
    if (personKey.startsWith("fk:")) {
      return verdict("personal", "fk:person-table", C.fkPersonTable, "foreign-key", "identifier.person_key", ["references a table about people"])
    }
    const m = n.matches[0]
    if (m === undefined || !m.entry.idIsValue || m.entry.cls === "personal") {
      return verdict("personal", "key:person-name", C.namedPersonKey, "name-token", "identifier.person_key", [`${personKey.slice(5)} key`, tableEv])
    }
  }

  // 3. Author / editor ids (created_by, changed_by, erstellt_von, creator, owner_id).
  if (n.author && family !== "boolean" && !isDate) {
    return verdict("personal", "author-id", C.authorId, "name-token", "identifier.author", [`${n.all.join(" ")}: who created/changed the record`])
  }

  // 4. Other declared foreign keys.
  if (target !== undefined && target !== t) {
    if (target.instrumentHead && target.linked) {
      return verdict("personal", "fk:personal-instrument", C.fkPersonTable - 0.1, "foreign-key", "identifier.instrument", ["references a person's card, account or payment method"])
    }
    if (isOrgTarget(target)) {
      return verdict("not", "fk:organisation", C.fkNonPerson, "foreign-key", null, ["references a table of organisations"])
    }
    if (clinicalOrCriminal && (n.processingMeta || n.recordPointer)) {
      return verdict("not", "context:record-metadata", C.contextSuppressed, "table-context", null, [tableEv, "metadata or pointer of the record"])
    }
    if (clinicalOrCriminal && n.categorisingKey) {
      return t.criminal
        ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.proceedings", [tableEv, "categorises the proceedings of a person"])
        : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health.care", [tableEv, "categorises the care a person received"])
    }
    const m = n.matches[0]
    const assigns =
      m !== undefined &&
      m.entry.idIsValue &&
      (m.entry.kind === "descriptor" || m.entry.kind === "special" || m.entry.kind === "criminal" || m.entry.kind === "bioDate") &&
      needsMet(m.entry.needs, t, n, m.entry)
    if (assigns && (t.linked || t.status === "person" || t.status === "mixed") && !t.lookup) {
      // `ethnicity_id` on a person assigns a sensitive category; the lookup listing the categories is not.
      return verdict(m.entry.cls, "fk:assigns-category", m.entry.cls === "personal" ? C.fkSensitiveLookup - 0.05 : C.fkSensitiveLookup, "foreign-key", m.entry.category, [
        `assigns a ${m.entry.category} value to a person`,
        "references a list of categories"
      ])
    }
    if (t.addressOfPeople && m !== undefined && (m.entry.kind === "addressWeak" || m.entry.kind === "address" || m.entry.kind === "location")) {
      return verdict("personal", "context:address-table", C.addressTable, "table-context", "contact.address", [tableEv, "part of people's postal addresses"])
    }
    if (t.satellite && n.categorisingKey && !n.recordPointer) {
      return verdict("personal", "context:person-history", C.personHistory - 0.07, "table-context", "person.attribute", [tableEv, "a person's attribute over time"])
    }
    return verdict("not", "fk:non-person", C.fkNonPerson, "foreign-key", null, ["references a record that is not about people"])
  }

  // 5. Clinical/criminal tables: keys that categorise, processing metadata.
  if (clinicalOrCriminal) {
    if (n.processingMeta || n.audit || n.recordPointer) {
      return verdict("not", "context:record-metadata", C.contextSuppressed, "table-context", null, [tableEv, "metadata or pointer of the record"])
    }
    if (n.idTail) {
      const named = n.keyNoun !== null ? namedTarget(src.byHead, t, n.keyNoun) : undefined
      if (n.categorisingKey) {
        return t.criminal
          ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.proceedings", [tableEv, "categorises the proceedings of a person"])
          : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health.care", [tableEv, "categorises the care a person received"])
      }
      if (named !== undefined && named !== t) {
        return verdict("not", "key:non-person", C.fkNonPerson, "name-token", null, [tableEv, `key of ${named.ds.name} (not about people)`])
      }
      return contextVerdict(t, tableEv)
    }
  }

  // A network address type is an IP/MAC address whatever the column is called.
  if (family === "network") {
    const te = typeEvidence.get(family)!
    return verdict(te.cls, te.rule, te.confidence, "sql-type", te.category, [`type ${family}`])
  }

  // 6. Vocabulary of the name.
  const addressColumn = t.addressOfPeople && !n.idTail
  const fromName = evaluateEntries(t, n, family, "name", addressColumn)
  if (fromName.verdict !== null) return fromName.verdict

  // A type veto may be overruled by a comment that says the same thing ("The contact's first name.").
  if (fromName.typeVetoed !== null && comment !== null) {
    const ci = analyzeComment(comment)
    if (ci !== null && ci.matches.some((m) => m.entry.category === fromName.typeVetoed?.category)) {
      const e = fromName.typeVetoed
      return verdict(e.cls, `comment-confirms:${e.id}`, e.confidence * F.comment * 0.85, "comment", e.category, [
        `type ${family} would veto it`,
        `comment: ${comment.slice(0, 60)}`
      ])
    }
  }

  // 7. A column named by a person or role noun: a name (text) or a key (integer, uuid).
  const countOfPeople = n.pluralHead && (family === "integer" || family === "numeric")
  if (n.roleHead !== null && n.negFlag === null && n.negMeta === null && n.negPrefix === null && !isDate && family !== "boolean" && family !== "numeric" && !t.lookup && !countOfPeople) {
    const ambiguous = nouns.ambiguousPerson.has(n.roleHead) && !nouns.role.has(n.roleHead)
    if (!ambiguous && fromName.veto === null) {
      const isKey = family === "integer" || family === "uuid"
      return verdict("personal", isKey ? "role:key" : "role:name", isKey ? C.roleKey : C.roleName, "name-token", isKey ? "identifier.person_key" : "identity.name", [
        `${n.roleHead}: a person`
      ])
    }
  }
  // An organisation named in a person's own table is the employer (customer.company).
  if (t.status === "person" && n.orgNoun !== null && !n.idTail && n.keyNoun === null && (family === "text" || family === "named") && n.tokens.length <= 2 && n.negMeta === null) {
    return verdict("personal", "context:employer", C.employer, "table-context", "employment.employer", [tableEv, `${n.all.join(" ")}: the person's organisation`])
  }

  // 8. SQL type as evidence (inet, geometry).
  const te = typeEvidence.get(family)
  if (te !== undefined && needsMet(te.needs, t, n, null) && !t.lookup && !orgLike(t)) {
    return verdict(te.cls, te.rule, te.confidence, "sql-type", te.category, [`type ${family}`])
  }

  // 9. Table context.
  if (clinicalOrCriminal) return contextVerdict(t, tableEv)
  if (t.addressOfPeople && !n.idTail && !n.audit && !isDate && family !== "boolean" && fromName.veto === null) {
    return verdict("personal", "context:address-table", C.addressTable, "table-context", "contact.address", [tableEv, "part of people's postal addresses"])
  }
  const softVeto = fromName.veto === null || fromName.veto.rule === "event-date" || fromName.veto.rule === "key:record"
  if ((t.satellite || t.status === "person") && n.validity && (isDate || n.time) && !n.audit && softVeto) {
    return verdict("personal", "context:person-history", C.personHistory, "table-context", "employment.history", [tableEv, "period of a person's state"])
  }
  if (t.satellite && !n.idTail && !n.audit && !isDate && family !== "boolean" && (softVeto || fromName.veto?.rule === "context:object-name") && n.negFlag === null && !n.processingMeta) {
    return verdict("personal", "context:person-history", C.personHistory - 0.07, "table-context", "person.attribute", [tableEv, "attribute of a person over time"])
  }
  const recent = n.tokens.some((x) => markers.recency.has(x))
  if (t.status === "person" && n.activity && n.negFlag === null && (n.count || n.time || recent || n.tokens.includes("lifetime")) && family !== "boolean") {
    return verdict("personal", "metric:person-activity", C.activityMetric, "co-occurrence", "behaviour.activity", [tableEv, "per-person activity metric"])
  }
  if ((t.linked || t.status === "person") && n.tracking && n.negFlag === null && !n.count && !n.audit && !n.idTail && !t.aggregate) {
    return verdict("personal", "behaviour:tracking", C.activityMetric, "table-context", "behaviour.tracking", [tableEv, "what a person opened, clicked or read"])
  }

  // 10. Comment and named struct type as weaker evidence.
  if (comment !== null && comment.length > 0 && fromName.veto === null) {
    const ci = analyzeComment(comment)
    if (ci !== null) {
      const fromComment = evaluateEntries(t, ci, family, "comment", false)
      if (fromComment.verdict !== null) return fromComment.verdict
    }
  }
  if (family === "named" && fromName.veto === null) {
    const ti = analyzeTypeName(col.type)
    if (ti.matches.length > 0) {
      const fromType = evaluateEntries(t, ti, "json", "type", false)
      if (fromType.verdict !== null) return fromType.verdict
    }
    if (t.instrumentHead && t.linked && n.negFlag === null && n.negMeta === null) {
      return verdict("personal", "context:personal-instrument", C.pkPersonalInstrument - 0.1, "table-context", "financial.payment_instrument", [tableEv, "details of a person's payment instrument"])
    }
  }

  if (fromName.veto !== null) return fromName.veto

  // 10b. In a table whose rows are people, a column that is not technical describes the person.
  if (
    t.status === "person" && family !== "numeric" && !n.idTail && n.keyNoun === null && !n.audit && !n.processingMeta && !n.recordPointer &&
    n.negFlag === null && n.negMeta === null && n.negPrefix === null && !n.tokens.some((x) => markers.technical.has(x))
  ) {
    return verdict("personal", "context:person-descriptor", C.personDescriptor, "table-context", "person.descriptor", [tableEv, "describes one of the people the table is about"])
  }

  // 11. Default.
  if (n.idTail || (n.keyNoun !== null && markers.key.has(n.tokens[n.tokens.length - 1] ?? ""))) {
    return verdict("not", "key:non-person", C.fkNonPerson, "default", null, [tableEv, "key of a non-person record"])
  }
  if (isDate && !n.validity) {
    return verdict("not", "event-date", C.eventDate, "default", null, [tableEv, "date of an event"])
  }
  const conf = t.status === "person" ? C.defaultNotPersonTable : t.linked ? C.defaultNotLinked : t.evidence ? C.defaultNotEvidence : C.defaultNotNone
  return verdict("not", "default:not", conf, "default", null, [tableEv, "no personal-data signal"])
}


// ---------------------------------------------------------------------------------------------
// Source-level passes
// ---------------------------------------------------------------------------------------------

const prepareSource = (datasets: ReadonlyArray<RawDataset>): Source => {
  const tables = datasets.map(buildTable)
  const byId: BySchema = new Map()
  const byHead: BySchema = new Map()
  const allByHead = new Map<string, Map<string, Array<TableInfo>>>()
  const clinicalSchemas = new Set<string>()
  const criminalSchemas = new Set<string>()
  let base = 0, clinicalStrongN = 0, clinicalAnyN = 0, criminalStrongN = 0, criminalAnyN = 0
  for (const t of tables) {
    put2(byId, t.ds.schema, t.ds.name, t, true)
    if (t.ds.kind === "view" || t.ds.kind === "materialized_view") continue
    base++
    if (t.clinicalStrong) clinicalStrongN++
    if (t.clinicalStrong || t.clinicalWeak) clinicalAnyN++
    if (t.criminalStrong) criminalStrongN++
    if (t.criminalStrong || t.criminalWeak) criminalAnyN++
  }
  // The clinical / criminal-justice flavour of the whole source (a CDM split over cdm/vocab/results
  // schemas) only when such tables dominate it: one `patients` table in a web shop does not make its
  // `orders` clinical, nor a `defendants` table its `events` criminal. Elsewhere a weak table takes the
  // context only through a key to a strong one (appointments.patient_id → patients).
  const flavour = contextFlavour
  if (clinicalStrongN >= flavour.minStrongTables && clinicalAnyN >= flavour.minShare * base) clinicalSchemas.add("*")
  if (criminalStrongN >= flavour.minStrongTables && criminalAnyN >= flavour.minShare * base) criminalSchemas.add("*")
  // Base tables first, then views, for name-based key targets.
  for (const t of tables) {
    if (t.ds.kind !== "view" && t.ds.kind !== "materialized_view") put2(byHead, t.ds.schema, t.head, t, false)
  }
  for (const t of tables) {
    put2(byHead, t.ds.schema, t.head, t, false)
    let inner = allByHead.get(t.ds.schema)
    if (inner === undefined) {
      inner = new Map()
      allByHead.set(t.ds.schema, inner)
    }
    const list = inner.get(t.head)
    if (list === undefined) inner.set(t.head, [t])
    else list.push(t)
  }

  // Person status: a table about people, an organisation (possibly with contact persons), or neither.
  for (const t of tables) {
    const names = t.hasPersonNames
    t.orgRow = t.personHead && t.hasOrgName && !names && t.hasContactPerson
    const birth = t.hasBirth
    const gender = t.hasGender
    const full = t.hasFullName
    const cooccurrence = t.identitySignals >= 2 && (names || full || t.identitySignals >= 3)
    if (t.orgRow) t.status = "mixed"
    else if (t.personHead) t.status = "person"
    else if ((t.orgHead || t.hasOrgName) && (names || t.hasContactPerson)) t.status = "mixed"
    else if (t.orgHead) t.status = "org"
    // A person's account: a login (e-mail or username) with a password.
    else if ((cooccurrence || (birth && gender) || (t.hasLogin && t.hasCredential)) && !t.objectHead && !t.aggregate) t.status = "person"
  }

  // Person keys: declared foreign keys to person tables, and name-based keys (`customer_id`).
  const clinical = clinicalSchemas.has("*")
  for (const t of tables) {
    for (const j of t.keyCandidates) {
      const c = t.ds.columns[j]!
      const n = t.names[j]!
      if (c.references !== null) {
        const target = lookup2(byId, c.references.schema, c.references.table)
        if (isPersonTarget(target) && (target !== t || !c.isPrimaryKey)) setPersonKey(t, j, `fk:${c.references.table}`)
        continue
      }
      if (n.author) continue
      const family = t.families[j]!
      if (family === "boolean" || family === "date" || family === "timestamp") continue
      const clinicalKey = clinical && n.clinicalKeyNoun !== null
      const noun = n.personKeyNoun ?? (clinicalKey ? n.clinicalKeyNoun : null)
      if (noun === null) continue
      // A bare person noun is a key only when typed like one (`customer integer`); as text it is a name.
      if (n.singleToken && n.keyNoun === null && !clinicalKey && family !== "integer" && family !== "uuid") continue
      if (noun === t.head && (c.isPrimaryKey || t.status === "person")) continue
      const target = namedTarget(byHead, t, noun)
      const ambiguous = n.ambiguousKeyNoun && !clinicalKey
      if (target !== undefined && target !== t) {
        if (target.status === "person") setPersonKey(t, j, `name:${noun}`)
      } else if (!ambiguous && !(target === t && c.isPrimaryKey)) {
        setPersonKey(t, j, `name:${noun}`)
      }
    }
  }
  // Lookup tables: a category list with no person key.
  for (const t of tables) {
    t.lookup =
      t.status === "none" &&
      t.personKeyCount === 0 &&
      (nouns.lookupHead.has(t.head) || nouns.lookupHead.has(t.tokens[0] ?? "")) &&
      lookupShape(t)
  }
  for (const t of tables) {
    // Keys of the people a record is about link it; keys of people who act on it (author, organizer,
    // instructor, assignee) do not.
    let subjectKeys = 0
    const pk = t.personKeys
    if (pk !== null) for (let j = 0; j < pk.length; j++) {
      if (pk[j] === undefined) continue
      const n = t.names[j]!
      if (!n.author && !n.actorKey) subjectKeys++
    }
    t.linked = subjectKeys > 0 || (t.personInTableName && t.status !== "person" && !t.lookup && !t.aggregate)
    const ownId = t.ownIdName || (t.pkIndex >= 0 && t.personKeys?.[t.pkIndex] === undefined)
    const validityCols = t.validityCols
    const clinicalOrCriminalTable =
      t.clinicalStrong || t.criminalStrong || (t.clinicalWeak && clinicalSchemas.has("*")) || (t.criminalWeak && criminalSchemas.has("*"))
    t.satellite = t.status === "none" && subjectKeys > 0 && ((t.satelliteHead && !t.clinicalStrong) || (!ownId && validityCols && !clinicalOrCriminalTable))
    t.evidence = t.linked || t.status !== "none" || t.hasValueEvidence
  }
  // Contexts: clinical / criminal-justice tables about a person.
  const keyedTo = (t: TableInfo, pred: (x: TableInfo) => boolean): boolean =>
    t.ds.columns.some((c, j) => {
      const n = t.names[j]!
      const target = c.references !== null ? lookup2(byId, c.references.schema, c.references.table) : n.keyNoun !== null ? namedTarget(byHead, t, n.keyNoun) : undefined
      return target !== undefined && target !== t && pred(target)
    })
  const clinicalTable = (t: TableInfo): boolean => t.clinicalStrong || (t.clinicalWeak && (clinicalSchemas.has("*") || keyedTo(t, (x) => x.clinicalStrong)))
  const criminalTable = (t: TableInfo): boolean => t.criminalStrong || (t.criminalWeak && (criminalSchemas.has("*") || keyedTo(t, (x) => x.criminalStrong)))
  for (const t of tables) {
    t.criminalSource = criminalSchemas.has("*")
    const usable = t.linked && t.status !== "person" && !t.satellite && !t.lookup
    t.criminal = usable && criminalTable(t)
    t.clinical = usable && clinicalTable(t) && !t.criminal
  }
  // The context propagates one hop through (declared or name-based) keys: note_nlp → note.
  for (const t of tables) {
    if (t.clinical || t.criminal || t.status !== "none" || t.lookup) continue
    const isClinical = clinicalTable(t)
    const isCriminal = criminalTable(t)
    if (!isClinical && !isCriminal) continue
    for (let j = 0; j < t.ds.columns.length; j++) {
      const c = t.ds.columns[j]!
      const n = t.names[j]!
      const target =
        c.references !== null ? lookup2(byId, c.references.schema, c.references.table) : n.keyNoun !== null ? namedTarget(byHead, t, n.keyNoun) : undefined
      if (target === undefined || target === t) continue
      if (isCriminal && target.criminal) t.criminal = true
      else if (isClinical && target.clinical) t.clinical = true
    }
    if (t.clinical || t.criminal) t.linked = true
  }
  // Address tables hold people's addresses when a person (or person-linked) table points to them, or
  // when nothing points to them at all; not when only organisations do.
  const referrers = new Map<TableInfo, Array<TableInfo>>()
  for (const t of tables) {
    for (const j of t.keyCandidates) {
      const c = t.ds.columns[j]!
      const n = t.names[j]!
      let targets: ReadonlyArray<TableInfo> = []
      if (c.references !== null) {
        const target = lookup2(byId, c.references.schema, c.references.table)
        if (target !== undefined) targets = [target]
      } else if (n.addressKey && n.keyNoun !== null) targets = allByHead.get(t.ds.schema)?.get(n.keyNoun) ?? []
      for (const target of targets) {
        if (target === t || !target.addressHead) continue
        const list = referrers.get(target) ?? []
        list.push(t)
        referrers.set(target, list)
      }
    }
  }
  for (const t of tables) {
    if (!t.addressHead || t.status === "person" || t.lookup) continue
    const refs = referrers.get(t) ?? []
    t.addressOfPeople = refs.length === 0 ? !t.orgHead : refs.some((r) => r.status === "person")
    if (t.addressOfPeople) t.evidence = true
  }
  for (const t of tables) {
    const what = t.status !== "none" ? `${t.status} table` : t.clinical ? "clinical record of a person" : t.criminal ? "criminal-justice record of a person" : t.linked ? "linked to a person" : t.lookup ? "lookup table" : "no person"
    t.evidenceText = `table: ${what}`
    const flags: ReadonlyArray<boolean> = [
      t.lookup,
      t.linked,
      t.evidence,
      t.satellite,
      t.clinical,
      t.criminal,
      t.criminalSource,
      t.addressOfPeople,
      t.objectHead,
      t.orgHead,
      t.orgRow,
      t.instrumentHead,
      t.sessionHead && t.hasOnlineEvidence,
      t.interactionHead,
      t.recipientHead,
      t.aggregate,
      t.accountContext,
      t.addressHead,
      t.pkCount === 1
    ]
    let bits = t.status === "person" ? 1 : t.status === "mixed" ? 2 : t.status === "org" ? 3 : 0
    for (let k = 0; k < flags.length; k++) if (flags[k]) bits |= 4 << k
    t.sig = bits
    t.asTarget =
      (t.status === "person" ? 1 : 0) |
      (t.instrumentHead && t.linked ? 2 : 0) |
      (isOrgTarget(t) ? 4 : 0) |
      (t.lookup ? 8 : 0) |
      (t.addressHead ? 16 : 0)
  }
  return { tables, byId, byHead, clinicalSchemas, criminalSchemas }
}

/**
 * Classify every column of a source. The result is aligned with the input:
 * `result[i][j]` is the verdict of `datasets[i].columns[j]`.
 */
/** Memoised verdicts of one name shape in tables of one signature. */
interface MemoEntry {
  readonly slots: Array<ColumnVerdict | undefined>
  /** Foreign-key columns, by what the referenced table is (see `asTarget`). */
  byTarget: Map<number, Array<ColumnVerdict | undefined>> | null
  /** Columns of a named (struct/enum) type, by the type's name. */
  byType: Map<string, Array<ColumnVerdict | undefined>> | null
}

export const classifySource = (datasets: ReadonlyArray<RawDataset>): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const src = prepareSource(datasets)
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
        const key = `${sigId}\u0001${n.name}\u0001${col.type}\u0001${col.isPrimaryKey ? 1 : 0}\u0001${t.personKeys?.[j] ?? ""}\u0001${n.keyNoun === t.head ? 1 : 0}\u0001${target}\u0001${named}`
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
        const f = familyIndex[family] + (col.isPrimaryKey ? 12 : 0) + (n.keyNoun !== null && n.keyNoun === t.head ? 24 : 0) + (nameKey ? 48 : 0)
        v = slots[f]
        if (v === undefined) {
          v = classifyColumn(src, t, j, false)
          slots[f] = v
        }
      }
      // Only a column with no other signal, or a type veto, is read again with its comment (classifyColumn, step 10).
      if (v.value === "not" && col.comment !== null && (v.rule === "default:not" || v.rule.startsWith("type-veto")) && col.comment.length > 0) {
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
