/**
 * Name analysis for the classifier: what a column name (or a comment's first clause, or a struct type's
 * name) says, as a pure function of the name, memoised: its whole tokens, the vocabulary entries it
 * matches and their modifiers, and the markers around them (author `_by`, keys, flags, counts, times).
 */
import {
  contexts,
  type Entry,
  type FlagClass,
  markers,
  maxPhraseLength,
  nouns,
  phraseEntries,
  phraseKey,
  phraseTokens,
  pipeline,
  tokenEntries,
  tokenizer
} from "./compile.js"
import { identityCategory } from "./tables.js"
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

export type Modifier = "person" | "recipient" | "address" | "object" | "org" | null

/** A match with everything that depends only on the name, computed once per distinct name. */
export interface MatchInfo extends Match {
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

export interface NameInfo {
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
  /** A row-audit or pipeline bookkeeping column (`_fivetran_synced`, `etl_loaded`, dbt's `source_relation`). */
  readonly pipeline: boolean
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
/** Nouns of an application's user accounts: a key of one qualified by an author verb is an author. */
const userNouns = new Set([
  "user",
  "users",
  "usuario",
  "utilizador",
  "utilisateur",
  "utente",
  "benutzer",
  "nutzer",
  "gebruiker",
  "usr"
])

export const personalPhoneWords = new Set([
  "home",
  "mobile",
  "cell",
  "private",
  "personal",
  "privat",
  "prive",
  "privado",
  "privato",
  "handy",
  "direct"
])
const idLike = new Set(["id", "ids", "uuid", "guid", "key", "keys", "pk", "fk", "sk", "oid", "vid", "rowid"])
/** Key markers that may lead a Romance or Dutch key name (`id_cliente`, `nr_klant`, `codice_paziente`). */
const firstKeyMarkers = new Set(["id", "nr", "no", "numero", "nummer", "cod", "codigo", "codice", "code", "ref", "fk"])
export const isDigit = (t: string): boolean => {
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
    if (thing === undefined && (markers.negativeMeta.has(x) || nouns.object.has(x) || nouns.organisation.has(x))) {
      thing = x
    }
    const known = tokenEntries.get(x)
    if (
      !markers.key.has(x) && !markers.time.has(x) && !nouns.person.has(x) && !nouns.role.has(x) && known === undefined
    ) unknownTrail = true
    if (!(known?.kind === "addressWeak" || nouns.person.has(x) || markers.key.has(x))) addressShape = false
  }
  for (let i = 0; i < m.start && addressShape; i++) {
    const x = all[i]!
    if (isDigit(x)) continue
    const k = tokenEntries.get(x)?.kind
    if (
      !(markers.recipient.has(x) || nouns.person.has(x) || nouns.role.has(x) || k === "addressWeak" || k === "address")
    ) addressShape = false
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
for (
  const set of [
    ...Object.values(nouns),
    ...Object.values(markers),
    ...Object.values(contexts),
    idLike,
    firstKeyMarkers,
    personalPhoneWords,
    new Set(tokenEntries.keys()),
    phraseTokens
  ]
) {
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
export const CACHE_LIMIT = 50_000
const BLANK = "\u2205"

export const analyzeName = (name: string): NameInfo => {
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
    // Leading key markers may chain (`ref_cod_servidor`, `fk_id_user`): the noun is the first token after them.
    let i = 1
    while (i < n - 1 && feats[i]! & F_KEY) i++
    keyNoun = tokens[i]!
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
  const personKeyNoun = keyNoun !== null && (featuresOf(keyNoun) & (F_PERSON | F_ROLE)) !== 0
    ? keyNoun
    : n === 1 && (fHead & F_PERSON) !== 0
    ? head
    : null
  // A user key qualified by an author verb (`create_uid`, `write_uid`, `fk_user_creat`) is the record's author.
  if (!author && personKeyNoun !== null && userNouns.has(personKeyNoun) && (all_ & F_AUTHORVERB) !== 0) author = true
  const clinicalKeyNoun = keyNoun !== null && markers.clinicalPersonKeys.has(keyNoun)
    ? keyNoun
    : n === 1 && markers.clinicalPersonKeys.has(head)
    ? head
    : null
  const info: NameInfo = {
    bestId: best?.id ?? null,
    identitySig: best !== null && unmarked ? identityCategory(best) : null,
    valueEvidence: best !== null && negFlag === null && negMeta === null &&
      (kind === "identity" || kind === "contact" || kind === "officialId" || kind === "online"),
    onlineEvidence: matches.some((m) => m.entry.kind === "online" || m.entry.kind === "onlineLinked"),
    personTokens,
    contactPersonCol: (best !== null && unmarked && best.id === "full_name" && tokens.includes("contact")) ||
      (first === "contact" && n > 1 && keyNoun === null),
    orgNameShape: orgNoun !== null && !idTail && (n === 1 || (n === 2 && head === "name")),
    credential: best !== null && unmarked && best.id === "password",
    singleToken: n === 1,
    personKeyNoun,
    clinicalKeyNoun,
    ambiguousKeyNoun: personKeyNoun !== null && nouns.ambiguousPerson.has(personKeyNoun),
    actorKey: personKeyNoun !== null && (nouns.actor.has(personKeyNoun) || tokens.some((x) => nouns.actor.has(x))),
    addressKey: keyNoun !== null && nouns.address.has(keyNoun),
    keyCandidate: personKeyNoun !== null || clinicalKeyNoun !== null ||
      (keyNoun !== null && nouns.address.has(keyNoun)),
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
    audit: (all_ & F_AUDIT) !== 0,
    pipeline: ((all_ & F_AUDIT) !== 0 && tokens.some((x) => pipeline.words.has(x))) ||
      (n >= 2 && pipeline.tails.has(`${tokens[n - 2]}_${tokens[n - 1]}`))
  }
  return info
}

// Comments: the first clause is read like a column name ("The contact's IP address when …").
const commentKinds = new Set([
  "identity",
  "contact",
  "officialId",
  "online",
  "bioDate",
  "special",
  "criminal",
  "financial",
  "descriptor"
])
const negationInComment =
  /^\s*(whether|if |true |indicates|flag|the number of|number of|count of|the count|total number|a list of|list of|the type|type of|the status|status of)/i
const leadingPreposition =
  /^\s*(for|if|when|in|on|with|only|used|set|see|a |an |one of|possible|may|can|will|should|must|deprecated)\b/i
const clauseEnd =
  /[.;:,(\n]|\s(when|where|that|which|who|whose|if|for|of|in|to|from|with|by|on|at|as|used|is|was|are|will|can|and|or|but)\s/i

const commentCache = new Map<string, NameInfo | null>()
export const analyzeComment = (comment: string): NameInfo | null => {
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
export const analyzeTypeName = (type: string): NameInfo => {
  const cached = typeNameCache.get(type)
  if (cached !== undefined) return cached
  const info = analyzeName(type.split("|")[0]!.trim())
  if (typeNameCache.size < CACHE_LIMIT) typeNameCache.set(type, info)
  return info
}
