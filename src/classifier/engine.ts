/**
 * The personal-data classifier: pure, synchronous, metadata only.
 *
 * `classifySource(datasets)` returns, for every dataset and column, one `ColumnVerdict`
 * (`personal` / `special` / `criminal` / `not`) with the deciding rule, a calibrated confidence, the
 * method, a dotted category and the evidence that fired. The whole source is given at once so that
 * foreign keys to tables about people and the schema's clinical or criminal-justice context can be used.
 *
 * Combination rule (a priority of explainable rules, each with its own calibrated confidence):
 *  1. Structure first: the key of a table about people, a foreign key to one, an author id
 *     (`created_by`), a name-based person key (`customer_id`, `emp_no`) → personal; a surrogate or
 *     foreign key of any other record → not.
 *  2. Vocabulary: whole-token phrases then tokens of the column name (`date of birth`, `email`,
 *     `diagnosis`) give a class, category and base confidence; the entry's kind says where it may fire
 *     (anywhere / with person evidence / in a table linked to a person / in a person table).
 *  3. Vetoes and markers: a SQL type that cannot hold the value (`email_count int`), a flag or count
 *     marker (`_verified`, `_count`, `is_`), an event date (`created_at`), an organisation, lookup or
 *     catalogue table turn the entry into `not`.
 *  4. Context: in a clinical (criminal) table linked to a person, columns that categorise the care
 *     (proceedings) and its dates are special (criminal); address tables of people, a person's history
 *     tables (`salaries`, `titles`) and per-person activity metrics are personal.
 *  5. Otherwise the column comment and a named struct type are read as weaker evidence; else `not`.
 * Confidence = the rule's or entry's base (data/rules.json, data/vocabulary.json) × context factors.
 */
import type { ClassValue, ColumnVerdict, RawColumn, RawDataset } from "../domain/Metadata.js"
import {
  confidence as C,
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

// ---------------------------------------------------------------------------------------------
// Name analysis (pure function of the name; memoised)
// ---------------------------------------------------------------------------------------------

interface Match {
  readonly entry: Entry
  readonly start: number
  readonly end: number
  readonly phrase: boolean
}

interface NameInfo {
  readonly name: string
  /** All tokens, digits included. */
  readonly all: ReadonlyArray<string>
  /** Tokens without digits. */
  readonly tokens: ReadonlyArray<string>
  /** Vocabulary matches, best first. */
  readonly matches: ReadonlyArray<Match>
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
}

const classRank: Record<FlagClass, number> = { personal: 1, special: 2, criminal: 3 }
const idLike = new Set(["id", "ids", "uuid", "guid", "key", "keys", "pk", "fk", "sk", "oid", "vid", "rowid"])
const firstKeyMarkers = new Set(["id", "nr", "no", "numero", "nummer", "cod", "codigo", "codice", "code", "num_id", "ref"])
const isDigit = (t: string): boolean => /^[0-9]+$/.test(t)

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

const nameCache = new Map<string, NameInfo>()

const analyzeName = (name: string): NameInfo => {
  const cached = nameCache.get(name)
  if (cached !== undefined) return cached
  const all = tokenizer.tokens(name)
  const tokens = all.filter((t) => !isDigit(t))
  const sig = tokens.filter((t) => !markers.transparent.has(t))
  const head = sig[sig.length - 1] ?? tokens[tokens.length - 1] ?? ""
  const first = tokens[0] ?? ""
  const last = tokens[tokens.length - 1] ?? ""
  const matches = findMatches(all)

  // Key shape: trailing key marker(s) after a noun, or a leading one (Romance: id_cliente, nr_klant).
  let keyNoun: string | null = null
  if (tokens.length >= 2 && markers.key.has(last)) {
    for (let i = tokens.length - 2; i >= 0; i--) {
      const t = tokens[i]!
      if (markers.key.has(t) || markers.transparent.has(t)) continue
      keyNoun = t
      break
    }
  } else if (tokens.length >= 2 && firstKeyMarkers.has(first)) {
    keyNoun = tokens[1]!
  }
  const idTail = idLike.has(last)
  const bareId = tokens.length === 1 && (markers.pkTokens.has(last) || idLike.has(last))
  const time = markers.time.has(last) || (tokens.length > 1 && markers.timeFirst.has(first))
  // Markers are read on the last token before any time suffix (`email_verified_at` → verified).
  let core = tokens.length
  while (core > 1 && markers.time.has(tokens[core - 1]!)) core--
  const coreLast = tokens[core - 1] ?? ""
  const negFlag = tokens.length > 1 && markers.negativeFlag.has(coreLast) ? coreLast : null
  const negMeta = tokens.length > 1 && markers.negativeMeta.has(coreLast) ? coreLast : null
  const negPrefix = tokens.length > 1 && markers.negativePrefix.has(first) ? first : null

  // Author: `<verb> by` (created_by, erstellt_von), or an author noun (creator, owner_id, last_updated_by).
  let author = false
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (markers.byWords.has(t) && i > 0 && markers.authorVerbs.has(tokens[i - 1]!)) author = true
    if (markers.authorNouns.has(t) && (i === tokens.length - 1 || markers.key.has(tokens[i + 1]!))) author = true
  }

  const roleHead = nouns.role.has(head) || nouns.person.has(head) ? head : null
  let personNoun: string | null = null
  let orgNoun: string | null = null
  let activity = false
  let tracking = false
  let count = false
  let validity = false
  let recordPointer = false
  let audit = false
  for (const t of tokens) {
    if (personNoun === null && (nouns.person.has(t) || nouns.role.has(t))) personNoun = t
    if (orgNoun === null && nouns.organisation.has(t)) orgNoun = t
    if (markers.activity.has(t)) activity = true
    if (markers.tracking.has(t)) tracking = true
    if (markers.count.has(t)) count = true
    if (markers.validity.has(t)) validity = true
    if (contexts.recordPointer.has(t)) recordPointer = true
    if (contexts.audit.has(t)) audit = true
  }
  const beforeKey = idTail && tokens.length >= 2 ? tokens[tokens.length - 2]! : ""
  const categorisingKey = idTail && contexts.categorising.has(beforeKey)
  const processingMeta = contexts.processingMeta.has(first) || (tokens.length > 1 && contexts.processingMeta.has(last))

  const info: NameInfo = {
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
    personNoun,
    orgNoun,
    activity,
    tracking,
    count,
    validity,
    categorisingKey,
    recordPointer,
    processingMeta,
    audit
  }
  nameCache.set(name, info)
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
  /** Everything classifyColumn reads from the table, as a string: verdicts are memoised on it. */
  sig: string
  /** Column index → why it is a key of a person. */
  readonly personKeys: Map<number, string>
}


const tableTokens = (name: string, keepWeak: boolean): { tokens: Array<string>; aggregate: boolean } => {
  let toks = tokenizer.tokens(name).filter((t) => !isDigit(t) && !nouns.decoration.has(t))
  let aggregate = false
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
  const names = ds.columns.map((c) => analyzeName(c.name))
  const families = ds.columns.map((c) => typeFamily(c.type))
  // Value evidence decides whether weak decorations (customer_list) may be dropped.
  let hasValueEvidence = false
  for (const n of names) {
    const m = n.matches[0]
    if (m !== undefined && n.negFlag === null && n.negMeta === null) {
      const k = m.entry.kind
      if (k === "identity" || k === "contact" || k === "address" || k === "officialId" || k === "online") hasValueEvidence = true
    }
  }
  const { aggregate, tokens } = tableTokens(ds.name, !hasValueEvidence)
  const head = tokens[tokens.length - 1] ?? ""
  const lastTwo = tokens.length >= 2 ? tokens.slice(-2).join("") : ""
  const t: TableInfo = {
    ds,
    id: `${ds.schema}.${ds.name}`,
    tokens,
    head,
    names,
    families,
    pkCount: ds.columns.filter((c) => c.isPrimaryKey).length,
    personHead: nouns.person.has(head) && !aggregate,
    orgHead: nouns.organisation.has(head),
    objectHead: nouns.object.has(head),
    addressHead: nouns.address.has(head),
    instrumentHead: contexts.personInstrument.has(head) || contexts.personInstrument.has(lastTwo),
    satelliteHead: contexts.satelliteHead.has(head),
    interactionHead: nouns.interaction.has(head) || tokens.some((x) => x === "engagement" || x === "interaction" || x === "conversation"),
    recipientHead: nouns.recipientTable.has(head),
    sessionHead: tokenEntries.get(head)?.kind === "onlineLinked",
    hasOnlineEvidence: names.some((n) => n.matches.some((m) => m.entry.kind === "online" || m.entry.kind === "onlineLinked")),
    aggregate,
    accountContext: tokens.some((x) => nouns.accountContext.has(x)),
    lookup: false,
    clinicalStrong: tokens.some((x) => contexts.clinicalStrong.has(x)),
    clinicalWeak: tokens.some((x) => contexts.clinicalWeak.has(x)),
    criminalStrong: tokens.some((x) => contexts.criminalStrong.has(x)),
    criminalWeak: tokens.some((x) => contexts.criminalWeak.has(x)),
    personInTableName: tokens.some((x) => nouns.person.has(x) && !nouns.ambiguousPerson.has(x)),
    hasPersonNames: false,
    hasOrgName: false,
    hasContactPerson: false,
    identitySignals: 0,
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
    sig: "",
    personKeys: new Map()
  }
  const signals = new Set<string>()
  for (let i = 0; i < names.length; i++) {
    const n = names[i]!
    const m = n.matches[0]
    // A value qualified by another person (`owner_email`, `contact_emails`) describes that person, not the row.
    const otherPerson = n.tokens.some((x) => (nouns.person.has(x) || nouns.role.has(x)) && x !== head)
    if (m !== undefined && n.negFlag === null && n.negMeta === null && n.negPrefix === null && !otherPerson) {
      const sig = identityCategory(m.entry)
      if (sig !== null && !m.entry.veto.has(families[i]!)) signals.add(sig)
      if (sig === "first" || sig === "last") t.hasPersonNames = true
      if (m.entry.id === "full_name" && n.tokens.includes("contact")) t.hasContactPerson = true
    }
    if (n.tokens[0] === "contact" && n.tokens.length > 1 && n.keyNoun === null) t.hasContactPerson = true
    // Organisation name: `company_name`, `company`, `organization_name` (text).
    if (
      n.orgNoun !== null &&
      !n.idTail &&
      (n.tokens.length === 1 || (n.tokens.length === 2 && n.head === "name")) &&
      (families[i] === "text" || families[i] === "named")
    ) {
      t.hasOrgName = true
    }
  }
  t.identitySignals = signals.size
  return t
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
  readonly byId: ReadonlyMap<string, TableInfo>
  readonly byHead: ReadonlyMap<string, TableInfo>
  readonly clinicalSchemas: ReadonlySet<string>
  readonly criminalSchemas: ReadonlySet<string>
}

const headKey = (schema: string, head: string): string => `${schema}\u0000${head}`

/** The table a name-based key (`customer_id`) points to, if the schema has one with that head noun. */
const namedTarget = (byHead: ReadonlyMap<string, TableInfo>, t: TableInfo, noun: string): TableInfo | undefined =>
  byHead.get(headKey(t.ds.schema, noun))

const refTarget = (src: Source, col: RawColumn): TableInfo | undefined =>
  col.references === null ? undefined : src.byId.get(`${col.references.schema}.${col.references.table}`)

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

/** Tokens next to a match that say whose the value is. */
const modifierOf = (t: TableInfo, n: NameInfo, m: Match): "person" | "recipient" | "address" | "object" | "org" | null => {
  const around: Array<string> = []
  if (m.start > 0) around.push(n.all[m.start - 1]!)
  if (m.end < n.all.length) around.push(n.all[m.end]!)
  for (let i = m.start - 2; i >= 0; i--) around.push(n.all[i]!)
  for (const x of around) {
    if (nouns.person.has(x) || nouns.role.has(x)) return "person"
    if (markers.recipient.has(x)) return "recipient"
    if (nouns.object.has(x) || markers.systemModifiers.has(x)) return "object"
    if (nouns.organisation.has(x)) return "org"
    const k = tokenEntries.get(x)?.kind
    if (k === "address" || (k === "addressWeak" && x !== n.all[m.start])) return "address"
  }
  if (t.recipientHead) return "recipient"
  return null
}

/** Significant tokens after a match, excluding transparent qualifiers and digits. */
const trailingOf = (n: NameInfo, m: Match): Array<string> => {
  const out: Array<string> = []
  for (let i = m.end; i < n.all.length; i++) {
    const x = n.all[i]!
    if (isDigit(x) || markers.transparent.has(x)) continue
    out.push(x)
  }
  return out
}

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

const personalPhoneWords = new Set(["home", "mobile", "cell", "private", "personal", "privat", "prive", "privado", "privato", "handy", "direct"])

/** Try the vocabulary matches of a name (or comment clause, or struct type name) against the table and type. */
const evaluateEntries = (
  t: TableInfo,
  n: NameInfo,
  family: TypeFamily,
  source: "name" | "comment" | "type",
  addressColumn: boolean
): EntryOutcome => {
  let veto: ColumnVerdict | null = null
  let typeVetoed: Entry | null = null
  const method = source === "name" ? "name-token" : source === "comment" ? "comment" : "sql-type"
  const srcFactor = source === "name" ? 1 : source === "comment" ? F.comment : F.typeName
  const isDate = family === "date" || family === "timestamp"
  for (const m of n.matches) {
    const e = m.entry
    const mMethod = source === "name" && m.phrase ? "name-phrase" : method
    const rule = `${source === "name" ? "" : `${source}:`}${m.phrase ? "phrase" : "token"}:${e.id}`
    const evidence = (): Array<string> => [`${source}: ${n.all.join(" ")}`, `${m.phrase ? "phrase" : "token"} ${n.all.slice(m.start, m.end).join(" ")} → ${e.category}`]
    const keepVeto = (v: () => ColumnVerdict): void => {
      if (veto === null) veto = v()
    }
    const trailing = trailingOf(n, m)
    // Comments and type names only count when the match is their head noun ("The contact's first name").
    if (source !== "name" && trailing.some((x) => !markers.key.has(x) && !markers.time.has(x))) continue
    const sensitive = e.cls !== "personal"
    const consent = e.category.startsWith("preferences.")
    // Flags (`email_verified`, `id_number_provided`) veto everything but sensitive and consent entries.
    if (n.negFlag !== null && !sensitive && !consent && trailing.includes(n.negFlag)) {
      keepVeto(() => verdict("not", `negative:_${n.negFlag}`, C.negative, mMethod, null, [...evidence(), `flag marker _${n.negFlag}`]))
      continue
    }
    // Settings of a value (`consent_collection`, `email_template`) are configuration, whatever the value.
    const setting = trailing.find((x) => markers.settings.has(x))
    if (setting !== undefined && !sensitive) {
      keepVeto(() => verdict("not", `negative:_${setting}`, C.negative, mMethod, null, [...evidence(), `setting marker _${setting}`]))
      continue
    }
    const valueKind = valueKinds.has(e.kind)
    // The value of something else (`email_campaign_name`, `phone_model_cost`): a thing, not the person's value.
    const thing = trailing.find((x) => markers.negativeMeta.has(x) || nouns.object.has(x) || nouns.organisation.has(x))
    if (valueKind && thing !== undefined && e.kind !== "generic" && e.kind !== "content" && !addressColumn) {
      keepVeto(() => verdict("not", `negative:_${thing}`, C.negative, mMethod, null, [...evidence(), `about a ${thing}, not the value`]))
      continue
    }
    // Counts, types, statuses, formats of a value (`email_count`, `phone_type`, `is_email_verified`).
    if (valueKind) {
      const meta = n.negMeta !== null && trailing.includes(n.negMeta) ? `_${n.negMeta}` : n.negPrefix !== null && m.start > 0 ? `${n.negPrefix}_` : null
      if (meta !== null) {
        keepVeto(() => verdict("not", `negative:${meta}`, C.negative, mMethod, null, [...evidence(), `marker ${meta}`]))
        continue
      }
    }
    // `<entry>_id` of a record kind is a surrogate key (address_id, note_id).
    if (n.idTail && !e.idIsValue && m.end < n.all.length && !addressColumn) {
      keepVeto(() => verdict("not", "key:record", C.keyOfRecord, mMethod, null, [...evidence(), "key of a non-person record"]))
      continue
    }
    // Event dates of value kinds (`note_date`, `address_updated_on`).
    if (n.time && valueKind && e.onDate === null && m.end < n.all.length) {
      keepVeto(() => verdict("not", "event-date", C.eventDate, mMethod, null, [...evidence(), "date of an event"]))
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
      keepVeto(() => verdict("not", `type-veto:${family}`, C.typeVeto, "sql-type", null, [...evidence(), `type ${family} cannot hold it`]))
      continue
    }
    // Lookup tables list categories; there is no person in them.
    if (t.lookup && (!sensitive || !t.linked)) {
      keepVeto(() => verdict("not", "context:lookup", C.contextSuppressed, "table-context", null, [...evidence(), "lookup/reference table"]))
      continue
    }
    const mod = modifierOf(t, n, m)
    let needs: Needs = e.needs
    if ((mod === "person" || mod === "recipient") && (needs === "personTable" || needs === "linked")) needs = "evidence"
    if (e.kind === "addressWeak" && !addressColumn) {
      const addressContext = t.status === "person" || t.addressHead || mod === "person" || mod === "recipient" || mod === "address"
      const bareOk = trailing.every((x) => tokenEntries.get(x)?.kind === "addressWeak" || nouns.person.has(x) || markers.key.has(x))
      const before = n.all.slice(0, m.start).filter((x) => !isDigit(x))
      const beforeOk = before.every((x) => {
        const k = tokenEntries.get(x)?.kind
        return markers.recipient.has(x) || nouns.person.has(x) || nouns.role.has(x) || k === "addressWeak" || k === "address"
      })
      if (!addressContext || !bareOk || !beforeOk) {
        keepVeto(() => verdict("not", "context:not-an-address", C.contextSuppressed, "table-context", null, [...evidence(), "not part of a person's address"]))
        continue
      }
    } else if (!addressColumn && !needsMet(needs, t, n, e)) {
      keepVeto(() => verdict("not", `context:needs-${needs}`, C.contextSuppressed, "table-context", null, [...evidence(), `needs a ${needs} context`]))
      continue
    }
    if (e.kind === "generic" || e.kind === "content") {
      if (mod === "object" || (mod === "org" && e.kind === "generic")) {
        keepVeto(() => verdict("not", "context:object-name", C.contextSuppressed, "table-context", null, [...evidence(), "names a thing, not a person"]))
        continue
      }
      if (t.objectHead && !t.linked && mod !== "person" && mod !== "recipient" && t.status === "none") {
        keepVeto(() => verdict("not", "context:object-table", C.contextSuppressed, "table-context", null, [...evidence(), "catalogue/object table"]))
        continue
      }
    }
    // Organisation tables: their own name, address, phone and web page are not personal.
    const personalPhone = e.kind === "contact" && e.id.startsWith("phone") && n.all.some((x) => personalPhoneWords.has(x))
    if (e.orgSuppress && orgLike(t) && mod !== "person" && mod !== "recipient" && !addressColumn && !personalPhone) {
      const personLevel = personLevelKinds.has(e.kind) || (e.kind === "contact" && e.id === "email")
      if (!(t.status === "mixed" && personLevel)) {
        keepVeto(() => verdict("not", "context:organisation", C.contextSuppressed, "table-context", null, [...evidence(), "data of an organisation"]))
        continue
      }
    }
    // Trailing unknown nouns weaken the match (`phone_model`).
    const unknownTrail = trailing.filter(
      (x) => !markers.key.has(x) && !markers.time.has(x) && !nouns.person.has(x) && !nouns.role.has(x) && !tokenEntries.has(x)
    )
    if (unknownTrail.length > 0) conf *= F.trailingUnknown
    if (t.status === "person" && e.cls === "personal") conf += F.cooccurrenceBoost
    if (t.lookup || (needs !== e.needs && mod === null)) conf *= F.weakContext
    const cls = e.kind === "content" || e.kind === "generic" ? escalate(t, e.cls) : e.cls
    const ev = evidence()
    if (cls !== e.cls) ev.push(t.clinical ? "clinical table: its text is health data" : "criminal-justice table")
    const cat = cls !== e.cls ? (cls === "special" ? "health.note" : "criminal.case") : category
    return { verdict: verdict(cls, rule, conf * srcFactor, mMethod, cat, ev), veto: null, typeVetoed: null }
  }
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
  commentCache.set(comment, result)
  return result
}

const typeNameCache = new Map<string, NameInfo>()
const analyzeTypeName = (type: string): NameInfo => {
  const cached = typeNameCache.get(type)
  if (cached !== undefined) return cached
  const info = analyzeName(type.split("|")[0]!.trim())
  typeNameCache.set(type, info)
  return info
}

const contextVerdict = (t: TableInfo, ev: string): ColumnVerdict =>
  t.criminal
    ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.case", [ev, "attribute of a criminal-justice record about a person"])
    : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health", [ev, "attribute of a health record about a person"])

const classifyColumn = (src: Source, t: TableInfo, j: number): ColumnVerdict => {
  const col: RawColumn = t.ds.columns[j]!
  const n = t.names[j]!
  const family = t.families[j]!
  const isDate = family === "date" || family === "timestamp"
  const tableEv = t.evidenceText
  const target = refTarget(src, col)
  const personKey = t.personKeys.get(j)
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
    if ((t.instrumentHead || (t.sessionHead && t.hasOnlineEvidence)) && t.linked) {
      return verdict("personal", "pk:personal-instrument", C.pkPersonalInstrument, "primary-key", "identifier.instrument", [tableEv, "key of a person's card/account/session"])
    }
    return verdict("not", "pk:non-person", C.pkNonPerson, "primary-key", null, [tableEv, "surrogate key of a non-person record"])
  }

  // 2. Keys of people: a declared foreign key to a person table, or a name-based person key.
  if (personKey !== undefined) {
    if (personKey.startsWith("fk:")) {
      return verdict("personal", "fk:person-table", C.fkPersonTable, "foreign-key", "identifier.person_key", [`references ${col.references?.table} (a table about people)`])
    }
    const m = n.matches[0]
    if (m === undefined || !m.entry.idIsValue || m.entry.cls === "personal") {
      return verdict("personal", "key:person-name", C.namedPersonKey, "name-token", "identifier.person_key", [`${personKey.slice(5)} key`, tableEv])
    }
  }

  // 3. Author / editor ids (created_by, changed_by, erstellt_von, creator, owner_id).
  if (n.author && family !== "boolean" && !isDate) {
    return verdict("personal", "author-id", C.authorId, "name-token", "identifier.author", [`${col.name}: who created/changed the record`])
  }

  // 4. Other declared foreign keys.
  if (target !== undefined && target !== t) {
    if (target.instrumentHead && target.linked) {
      return verdict("personal", "fk:personal-instrument", C.fkPersonTable - 0.1, "foreign-key", "identifier.instrument", [`references ${target.ds.name} (a person's instrument)`])
    }
    if (isOrgTarget(target)) {
      return verdict("not", "fk:organisation", C.fkNonPerson, "foreign-key", null, [`references ${target.ds.name} (organisations)`])
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
        `references ${target.ds.name}`
      ])
    }
    if (t.addressOfPeople && m !== undefined && (m.entry.kind === "addressWeak" || m.entry.kind === "address" || m.entry.kind === "location")) {
      return verdict("personal", "context:address-table", C.addressTable, "table-context", "contact.address", [tableEv, "part of people's postal addresses"])
    }
    if (t.satellite && n.categorisingKey && !n.recordPointer) {
      return verdict("personal", "context:person-history", C.personHistory - 0.07, "table-context", "person.attribute", [tableEv, "a person's attribute over time"])
    }
    return verdict("not", "fk:non-person", C.fkNonPerson, "foreign-key", null, [`references ${target.ds.name} (not about people)`])
  }

  // 5. Clinical/criminal tables: keys that categorise, processing metadata.
  if (clinicalOrCriminal) {
    if (n.processingMeta || n.audit || n.recordPointer) {
      return verdict("not", "context:record-metadata", C.contextSuppressed, "table-context", null, [tableEv, "metadata or pointer of the record"])
    }
    if (n.idTail || (n.keyNoun !== null && markers.key.has(n.tokens[n.tokens.length - 1] ?? "") && idLikeTail(n))) {
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
    return verdict(te.cls, te.rule, te.confidence, "sql-type", te.category, [`type ${col.type}`])
  }

  // 6. Vocabulary of the name.
  const addressColumn = t.addressOfPeople && !n.idTail
  const fromName = evaluateEntries(t, n, family, "name", addressColumn)
  if (fromName.verdict !== null) return fromName.verdict

  // A type veto may be overruled by a comment that says the same thing ("The contact's first name.").
  if (fromName.typeVetoed !== null && col.comment !== null) {
    const ci = analyzeComment(col.comment)
    if (ci !== null && ci.matches.some((m) => m.entry.category === fromName.typeVetoed?.category)) {
      const e = fromName.typeVetoed
      return verdict(e.cls, `comment-confirms:${e.id}`, e.confidence * F.comment * 0.85, "comment", e.category, [
        `type ${col.type} would veto it`,
        `comment: ${col.comment.slice(0, 60)}`
      ])
    }
  }

  // 7. A column named by a person or role noun: a name (text) or a key (integer, uuid).
  if (n.roleHead !== null && n.negFlag === null && n.negMeta === null && n.negPrefix === null && !isDate && family !== "boolean" && family !== "numeric" && !t.lookup) {
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
    return verdict("personal", "context:employer", C.employer, "table-context", "employment.employer", [tableEv, `${col.name}: the person's organisation`])
  }

  // 8. SQL type as evidence (inet, geometry).
  const te = typeEvidence.get(family)
  if (te !== undefined && needsMet(te.needs, t, n, null) && !t.lookup && !orgLike(t)) {
    return verdict(te.cls, te.rule, te.confidence, "sql-type", te.category, [`type ${col.type}`])
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
  if (col.comment !== null && col.comment.length > 0 && fromName.veto === null) {
    const ci = analyzeComment(col.comment)
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

/** A key shape whose last token is id-like (`id`, `uuid`), not `number`/`code` (which are values in clinical data). */
const idLikeTail = (n: NameInfo): boolean => n.idTail

// ---------------------------------------------------------------------------------------------
// Source-level passes
// ---------------------------------------------------------------------------------------------

const prepareSource = (datasets: ReadonlyArray<RawDataset>): Source => {
  const tables = datasets.map(buildTable)
  const byId = new Map<string, TableInfo>()
  const byHead = new Map<string, TableInfo>()
  const allByHead = new Map<string, Array<TableInfo>>()
  const clinicalSchemas = new Set<string>()
  const criminalSchemas = new Set<string>()
  for (const t of tables) {
    byId.set(t.id, t)
    // The clinical / criminal-justice flavour of the whole source (a CDM split over cdm/vocab/results schemas).
    if (t.clinicalStrong) clinicalSchemas.add("*")
    if (t.criminalStrong) criminalSchemas.add("*")
  }
  // Base tables first, then views, for name-based key targets.
  for (const t of tables) {
    const k = headKey(t.ds.schema, t.head)
    if (!byHead.has(k) && t.ds.kind !== "view" && t.ds.kind !== "materialized_view") byHead.set(k, t)
  }
  for (const t of tables) {
    const k = headKey(t.ds.schema, t.head)
    if (!byHead.has(k)) byHead.set(k, t)
    const list = allByHead.get(k) ?? []
    list.push(t)
    allByHead.set(k, list)
  }

  // Person status: a table about people, an organisation (possibly with contact persons), or neither.
  for (const t of tables) {
    const names = t.hasPersonNames
    t.orgRow = t.personHead && t.hasOrgName && !names && t.hasContactPerson
    let birth = false
    let gender = false
    let full = false
    for (const n of t.names) {
      const id = n.matches[0]?.entry.id
      if (id === "birth_date") birth = true
      if (id === "gender") gender = true
      if (id === "full_name") full = true
    }
    const cooccurrence = t.identitySignals >= 2 && (names || full || t.identitySignals >= 3)
    if (t.orgRow) t.status = "mixed"
    else if (t.personHead) t.status = "person"
    else if ((t.orgHead || t.hasOrgName) && (names || t.hasContactPerson)) t.status = "mixed"
    else if (t.orgHead) t.status = "org"
    else if ((cooccurrence || (birth && gender)) && !t.objectHead && !t.aggregate) t.status = "person"
  }

  // Person keys: declared foreign keys to person tables, and name-based keys (`customer_id`).
  for (const t of tables) {
    const clinical = clinicalSchemas.has("*")
    for (let j = 0; j < t.ds.columns.length; j++) {
      const c = t.ds.columns[j]!
      const n = t.names[j]!
      if (c.references !== null) {
        const target = byId.get(`${c.references.schema}.${c.references.table}`)
        if (isPersonTarget(target) && (target !== t || !c.isPrimaryKey)) t.personKeys.set(j, `fk:${c.references.table}`)
        continue
      }
      if (n.author) continue
      const family = t.families[j]!
      if (family === "boolean" || family === "date" || family === "timestamp") continue
      const noun = n.keyNoun
      if (noun !== null && (nouns.person.has(noun) || nouns.role.has(noun) || (noun === "subject" && clinical))) {
        if (noun === t.head && (c.isPrimaryKey || t.status === "person")) continue
        const target = namedTarget(byHead, t, noun)
        const ambiguous = nouns.ambiguousPerson.has(noun) && !(noun === "subject" && clinical)
        if (target !== undefined && target !== t) {
          if (target.status === "person") t.personKeys.set(j, `name:${noun}`)
        } else if (!ambiguous && !(target === t && c.isPrimaryKey)) {
          t.personKeys.set(j, `name:${noun}`)
        }
      } else if (n.tokens.length === 1 && nouns.person.has(n.head) && !nouns.ambiguousPerson.has(n.head) && (family === "integer" || family === "uuid")) {
        t.personKeys.set(j, `name:${n.head}`)
      }
    }
  }
  // Lookup tables: a category list with no person key.
  for (const t of tables) {
    t.lookup =
      t.status === "none" &&
      t.personKeys.size === 0 &&
      (nouns.lookupHead.has(t.head) || nouns.lookupHead.has(t.tokens[0] ?? "")) &&
      lookupShape(t)
  }
  for (const t of tables) {
    let subjectKeys = 0
    for (const j of t.personKeys.keys()) if (!t.names[j]!.author) subjectKeys++
    t.linked = subjectKeys > 0 || (t.personInTableName && t.status !== "person" && !t.lookup && !t.aggregate)
    const ownId = t.names.some((n, j) => n.bareId || (t.ds.columns[j]!.isPrimaryKey && t.pkCount === 1 && !t.personKeys.has(j)) || (n.idTail && n.keyNoun === t.head))
    const validityCols = t.names.some((n, j) => n.validity && (t.families[j] === "date" || t.families[j] === "timestamp" || n.time))
    const clinicalOrCriminalTable =
      t.clinicalStrong || t.criminalStrong || ((t.clinicalWeak || t.criminalWeak) && (clinicalSchemas.has("*") || criminalSchemas.has("*")))
    t.satellite = t.status === "none" && subjectKeys > 0 && ((t.satelliteHead && !t.clinicalStrong) || (!ownId && validityCols && !clinicalOrCriminalTable))
    t.evidence = t.linked || t.status !== "none" || t.hasValueEvidence
  }
  // Contexts: clinical / criminal-justice tables about a person.
  const clinicalTable = (t: TableInfo): boolean => t.clinicalStrong || (t.clinicalWeak && clinicalSchemas.has("*"))
  const criminalTable = (t: TableInfo): boolean => t.criminalStrong || (t.criminalWeak && criminalSchemas.has("*"))
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
        c.references !== null ? byId.get(`${c.references.schema}.${c.references.table}`) : n.keyNoun !== null ? namedTarget(byHead, t, n.keyNoun) : undefined
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
    for (let j = 0; j < t.ds.columns.length; j++) {
      const c = t.ds.columns[j]!
      const n = t.names[j]!
      let targets: ReadonlyArray<TableInfo> = []
      if (c.references !== null) {
        const target = byId.get(`${c.references.schema}.${c.references.table}`)
        if (target !== undefined) targets = [target]
      } else if (n.keyNoun !== null && nouns.address.has(n.keyNoun)) targets = allByHead.get(headKey(t.ds.schema, n.keyNoun)) ?? []
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
    const flags = [
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
    let bits = t.status
    for (const f of flags) bits += f ? "1" : "0"
    t.sig = bits
  }
  return { tables, byId, byHead, clinicalSchemas, criminalSchemas }
}

/**
 * Classify every column of a source. The result is aligned with the input:
 * `result[i][j]` is the verdict of `datasets[i].columns[j]`.
 */
export const classifySource = (datasets: ReadonlyArray<RawDataset>): ReadonlyArray<ReadonlyArray<ColumnVerdict>> => {
  const src = prepareSource(datasets)
  // The same column (name, type, comment, keys) in tables of the same kind gets the same verdict:
  // memoise on everything classifyColumn reads, so a 10,000-table source costs little more than its
  // distinct column shapes.
  const memo = new Map<string, ColumnVerdict>()
  const sep = "\u0001"
  return src.tables.map((t) =>
    t.ds.columns.map((col, j) => {
      const n = t.names[j]!
      const target = col.references === null ? "" : `${col.references.schema}.${col.references.table}`
      const named = (t.clinical || t.criminal) && n.keyNoun !== null ? (namedTarget(src.byHead, t, n.keyNoun)?.id ?? "") : ""
      const key =
        t.sig + sep + col.name + sep + col.type + sep + (col.comment ?? "") + sep + (col.isPrimaryKey ? "1" : "0") + sep +
        (t.personKeys.get(j) ?? "") + sep + (n.keyNoun === t.head ? "1" : "0") + sep + target + sep + named
      let v = memo.get(key)
      if (v === undefined) {
        v = classifyColumn(src, t, j)
        memo.set(key, v)
      }
      return v
    })
  )
}

/** Classify one dataset on its own (no cross-table context beyond itself). */
export const classifyDataset = (dataset: RawDataset): ReadonlyArray<ColumnVerdict> => classifySource([dataset])[0] ?? []

/** Exposed for tests and diagnostics: the whole-token analysis of a name. */
export const tokensOf = (name: string): ReadonlyArray<string> => tokenizer.tokens(name)
