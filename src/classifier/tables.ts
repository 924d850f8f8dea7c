/**
 * Table roles for the classifier: what a table's rows are — people, an organisation (with contact
 * persons), a lookup, a record linked to a person, a person's history, people's addresses, a clinical
 * or criminal-justice record — from its name in every supported language, its columns' names, its keys
 * and the tables it points to. `prepareSource` runs the passes over a whole source.
 */
import type { RawColumn, RawDataset } from "../domain/Metadata.js"
import {
  contextFlavour,
  contexts,
  type Entry,
  nouns,
  tokenEntries,
  tokenizer,
  type TypeFamily,
  typeFamily
} from "./compile.js"
import { analyzeName, CACHE_LIMIT, isDigit, type NameInfo } from "./names.js"

// ---------------------------------------------------------------------------------------------
// Table analysis
// ---------------------------------------------------------------------------------------------

type PersonStatus = "person" | "mixed" | "org" | "none"

export interface TableInfo {
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
  clientIsApp: boolean
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
  /** Linked by a key of a person (not only by a login value). */
  keyLinked: boolean
  /** Not linked itself, but keyed to a record that is (one hop). */
  recordLinked: boolean
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
  /** An OAuth / OpenID table, where a `client` is an application, not a customer (`oauth_clients`). */
  readonly clientIsApp: boolean
}
const tableNameCache = new Map<string, TableName>()

const analyzeTableName = (name: string, keepWeak: boolean): TableName => {
  const raw = tokenizer.tokens(name)
  let key = keepWeak ? "1" : "0"
  for (const x of raw) if (!isDigit(x)) key += ` ${x}`
  const cached = tableNameCache.get(key)
  if (cached !== undefined) return cached
  const { aggregate, tokens } = tableTokens(raw, keepWeak)
  // `list_of_speakers` is a list: an English name with `of` is headed by what comes before it.
  const of = /(?:^|[_\s-])of[_\s-]/i.exec(name)
  const before = of !== null && of.index > 0
    ? tableTokens(tokenizer.tokens(name.slice(0, of.index)), keepWeak).tokens
    : []
  // Romance names put the head first: `tipo_usuario` lists kinds of user, it is not a table of users.
  const head = before.length > 0
    ? before[before.length - 1]!
    : tokens.length >= 2 && nouns.headFirstLookup.has(tokens[0]!)
    ? tokens[0]!
    : (tokens[tokens.length - 1] ?? "")
  const lastTwo = tokens.length >= 2 ? tokens.slice(-2).join("") : ""
  const clientIsApp = appClient(tokens)
  const info: TableName = {
    tokens,
    head,
    aggregate,
    personHead: nouns.person.has(head) && !aggregate && !(head === "client" && clientIsApp),
    clientIsApp,
    orgHead: nouns.organisation.has(head),
    objectHead: nouns.object.has(head),
    addressHead: nouns.address.has(head),
    instrumentHead: contexts.personInstrument.has(head) || contexts.personInstrument.has(lastTwo),
    satelliteHead: contexts.satelliteHead.has(head),
    interactionHead: nouns.interaction.has(head) ||
      tokens.some((x) => x === "engagement" || x === "interaction" || x === "conversation"),
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

/** In OAuth / OpenID tables a `client` is an application, not a customer (`oauth_clients`, `oauth_access_tokens.client_id`). */
const appClient = (tableTokens: ReadonlyArray<string>): boolean =>
  tableTokens.some((x) => x === "oauth" || x === "oidc" || x === "openid")

/** Whether a key noun can name people in this table (not an OAuth table's `client`). */
const peopleNoun = (t: TableInfo, noun: string): boolean => !(noun === "client" && t.clientIsApp)

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

export const identityCategory = (e: Entry): string | null => {
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

/** A name the lexicon cannot read at all: one glued lower-case word that is no known word or compound. */
const unreadableCache = new Map<string, boolean>()
const unreadable = (name: string): boolean => {
  if (name.length < 6 || !/^[a-z]+$/.test(name)) return false
  let u = unreadableCache.get(name)
  if (u === undefined) {
    const t = tokenizer.tokens(name)
    u = t.length === 1 && t[0] === name
    if (unreadableCache.size < CACHE_LIMIT) unreadableCache.set(name, u)
  }
  return u
}

/**
 * The table's tag glued to its column names (`cedper`, `nomper`, `fecnacper` in a table of staff, `nomfam`
 * in one of relatives): a three-letter ending shared by at least four and 30 % of the names the lexicon
 * cannot read. Legacy schemas abbreviate this way; each name is then read without the tag.
 */
const gluedTag = (cols: ReadonlyArray<RawColumn>): string | null => {
  const counts = new Map<string, number>()
  for (const c of cols) {
    if (!unreadable(c.name)) continue
    const tag = c.name.slice(-3)
    counts.set(tag, (counts.get(tag) ?? 0) + 1)
  }
  let best: string | null = null
  let most = 0
  for (const [tag, n] of counts) if (n > most) [best, most] = [tag, n]
  return most >= 4 && most >= 0.3 * cols.length ? best : null
}

const buildTable = (ds: RawDataset): TableInfo => {
  const cols = ds.columns
  const tag = gluedTag(cols)
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
    const n = analyzeName(tag !== null && c.name.endsWith(tag) && unreadable(c.name) ? c.name.slice(0, -3) : c.name)
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
    clientIsApp: tn.clientIsApp,
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
    keyLinked: false,
    recordLinked: false,
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

const signalBits: Record<string, number> = {
  first: 1,
  last: 2,
  full: 4,
  birth: 8,
  gender: 16,
  email: 32,
  phone: 64,
  nid: 128,
  username: 256
}

/** Vocabulary entries whose value identifies a person, so that a record holding one is that person's. */
const valueKeyEntries = new Set(["login", "username", "criminal_id", "national_id", "health_card"])

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

export interface Source {
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
export const namedTarget = (byHead: BySchema, t: TableInfo, noun: string): TableInfo | undefined =>
  lookup2(byHead, t.ds.schema, noun)

export const refTarget = (src: Source, col: RawColumn): TableInfo | undefined =>
  col.references === null ? undefined : lookup2(src.byId, col.references.schema, col.references.table)

const isPersonTarget = (t: TableInfo | undefined): boolean => t !== undefined && t.status === "person"
export const isOrgTarget = (t: TableInfo | undefined): boolean =>
  t !== undefined && (t.status === "org" || t.status === "mixed" || t.orgRow)

// ---------------------------------------------------------------------------------------------
// Source-level passes
// ---------------------------------------------------------------------------------------------

export const prepareSource = (datasets: ReadonlyArray<RawDataset>): Source => {
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
  // Base tables first, then views, for name-based key targets; of the tables with one head noun, the one
  // named by the fewest words is the noun's own (`mdl_user`, not `mdl_stats_user_daily`).
  for (const t of tables) {
    if (t.ds.kind === "view" || t.ds.kind === "materialized_view") continue
    const held = lookup2(byHead, t.ds.schema, t.head)
    put2(byHead, t.ds.schema, t.head, t, held !== undefined && t.tokens.length < held.tokens.length)
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
    else if ((cooccurrence || (birth && gender) || (t.hasLogin && t.hasCredential)) && !t.objectHead && !t.aggregate) {
      t.status = "person"
    }
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
      if (noun === null || !peopleNoun(t, noun)) continue
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
  // A key named after a table found above to hold people, whatever its noun (`demographicNo` →
  // `demographic`, the schema's own word for its patients): the schema's people are who its keys name.
  for (const t of tables) {
    for (let j = 0; j < t.ds.columns.length; j++) {
      const n = t.names[j]!
      if (n.keyNoun === null || n.author || t.ds.columns[j]!.references !== null || t.personKeys?.[j] !== undefined) {
        continue
      }
      if (!peopleNoun(t, n.keyNoun)) continue
      const family = t.families[j]!
      if (family === "boolean" || family === "date" || family === "timestamp") continue
      const target = namedTarget(byHead, t, n.keyNoun)
      if (target === undefined || target === t || target.status !== "person") continue
      setPersonKey(t, j, `name:${n.keyNoun}`)
    }
  }
  // Keys spelled like a person table's own key (`gibbonPersonID`, `ser_matricula` → `matricula`), in schemas
  // that declare no foreign keys: only distinctive key names (not `id`, `code`, `uuid`), and only one table's.
  const personPks = new Map<string, TableInfo | null>()
  for (const t of tables) {
    if (t.status !== "person" || t.pkCount !== 1 || t.pkIndex < 0) continue
    const pk = t.ds.columns[t.pkIndex]!.name.toLowerCase()
    if (pk.length < 4 || t.names[t.pkIndex]!.bareId) continue
    personPks.set(pk, personPks.has(pk) ? null : t)
  }
  if (personPks.size > 0) {
    for (const t of tables) {
      for (let j = 0; j < t.ds.columns.length; j++) {
        const c = t.ds.columns[j]!
        if (c.references !== null || c.isPrimaryKey || t.personKeys?.[j] !== undefined) continue
        const name = c.name.toLowerCase()
        let target = personPks.get(name)
        if (target === undefined) {
          const cut = name.indexOf("_")
          if (cut > 0 && cut < 5) target = personPks.get(name.slice(cut + 1))
        }
        const family = t.families[j]!
        if (
          target === undefined || target === null || target === t || family === "boolean" || family === "date" ||
          family === "timestamp"
        ) continue
        setPersonKey(t, j, `name:${target.ds.name}`)
      }
    }
  }
  // A person's login, username or official/criminal-record number in a table that is not itself about
  // people (`notes.login`, `sanctions.user_login`, `applications.crn`) is how the record points at its
  // person: a person key, like `user_id`.
  for (const t of tables) {
    if (t.status === "person" || t.aggregate) continue
    for (let j = 0; j < t.ds.columns.length; j++) {
      const n = t.names[j]!
      if (t.personKeys?.[j] !== undefined || t.ds.columns[j]!.references !== null || n.author || n.tokens.length > 2) {
        continue
      }
      if (t.families[j] !== "text" || n.negFlag !== null || n.negMeta !== null || n.negPrefix !== null || n.time) {
        continue
      }
      const m = n.matches[0]
      if (m === undefined || !valueKeyEntries.has(m.entry.id) || m.trailing.length > 0) continue
      setPersonKey(t, j, `value:${m.entry.id}`)
    }
  }
  // Lookup tables: a category list with no person key.
  for (const t of tables) {
    t.lookup = t.status === "none" &&
      t.personKeyCount === 0 &&
      (nouns.lookupHead.has(t.head) || nouns.lookupHead.has(t.tokens[0] ?? "")) &&
      lookupShape(t)
  }
  for (const t of tables) {
    // Keys of the people a record is about link it; keys of people who act on it (author, organizer,
    // instructor, assignee) do not.
    let subjectKeys = 0
    let loginKeys = 0
    const pk = t.personKeys
    if (pk !== null) {
      for (let j = 0; j < pk.length; j++) {
        const why = pk[j]
        if (why === undefined) continue
        const n = t.names[j]!
        if (why === "value:login" || why === "value:username") loginKeys++
        else if (!n.author && !n.actorKey) subjectKeys++
      }
    }
    // A login makes a record a person's, but only real keys make it a clinical or criminal record of one.
    t.keyLinked = subjectKeys > 0 || (t.personInTableName && t.status !== "person" && !t.lookup && !t.aggregate)
    t.linked = t.keyLinked || loginKeys > 0
    const ownId = t.ownIdName || (t.pkIndex >= 0 && t.personKeys?.[t.pkIndex] === undefined)
    const validityCols = t.validityCols
    const clinicalOrCriminalTable = t.clinicalStrong || t.criminalStrong ||
      (t.clinicalWeak && clinicalSchemas.has("*")) || (t.criminalWeak && criminalSchemas.has("*"))
    t.satellite = t.status === "none" && subjectKeys > 0 &&
      ((t.satelliteHead && !t.clinicalStrong) || (!ownId && validityCols && !clinicalOrCriminalTable))
    t.evidence = t.linked || t.status !== "none" || t.hasValueEvidence
  }
  // Contexts: clinical / criminal-justice tables about a person.
  const keyedTo = (t: TableInfo, pred: (x: TableInfo) => boolean): boolean =>
    t.ds.columns.some((c, j) => {
      const n = t.names[j]!
      const target = c.references !== null
        ? lookup2(byId, c.references.schema, c.references.table)
        : n.keyNoun !== null
        ? namedTarget(byHead, t, n.keyNoun)
        : undefined
      return target !== undefined && target !== t && pred(target)
    })
  const clinicalTable = (t: TableInfo): boolean =>
    t.clinicalStrong || (t.clinicalWeak && (clinicalSchemas.has("*") || keyedTo(t, (x) => x.clinicalStrong)))
  const criminalTable = (t: TableInfo): boolean =>
    t.criminalStrong || (t.criminalWeak && (criminalSchemas.has("*") || keyedTo(t, (x) => x.criminalStrong)))
  for (const t of tables) {
    t.criminalSource = criminalSchemas.has("*")
    const usable = t.keyLinked && t.status !== "person" && !t.satellite && !t.lookup
    t.criminal = usable && criminalTable(t)
    t.clinical = usable && clinicalTable(t) && !t.criminal
  }
  // A record that hangs off a person's record by a declared key (`savings_amounts.application_id` →
  // applications → applicants): its descriptors (income, savings, grades) are still that person's.
  for (const t of tables) {
    if (t.linked || t.status !== "none" || t.lookup || t.aggregate) continue
    t.recordLinked = t.ds.columns.some((c) => {
      if (c.references === null) return false
      const target = lookup2(byId, c.references.schema, c.references.table)
      return target !== undefined && target !== t && target.linked && target.status === "none" && !target.lookup &&
        !target.aggregate
    })
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
      const target = c.references !== null
        ? lookup2(byId, c.references.schema, c.references.table)
        : n.keyNoun !== null
        ? namedTarget(byHead, t, n.keyNoun)
        : undefined
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
    const what = t.status !== "none"
      ? `${t.status} table`
      : t.clinical
      ? "clinical record of a person"
      : t.criminal
      ? "criminal-justice record of a person"
      : t.linked
      ? "linked to a person"
      : t.lookup
      ? "lookup table"
      : "no person"
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
      t.pkCount === 1,
      t.recordLinked
    ]
    let bits = t.status === "person" ? 1 : t.status === "mixed" ? 2 : t.status === "org" ? 3 : 0
    for (let k = 0; k < flags.length; k++) if (flags[k]) bits |= 4 << k
    t.sig = bits
    t.asTarget = (t.status === "person" ? 1 : 0) |
      (t.instrumentHead && t.linked ? 2 : 0) |
      (isOrgTarget(t) ? 4 : 0) |
      (t.lookup ? 8 : 0) |
      (t.addressHead ? 16 : 0) |
      (t.linked ? 32 : 0) |
      (t.clinical || t.criminal ? 64 : 0) |
      (t.satellite ? 128 : 0)
  }
  return { tables, byId, byHead, clinicalSchemas, criminalSchemas }
}
