/**
 * Column judgement for the classifier: one column's verdict in the light of its table's role — keys,
 * authors, vocabulary matches with their vetoes, table context, comment and type as weaker evidence,
 * and the default — each with its rule, method, category, confidence and evidence.
 */
import type { ClassValue, ColumnVerdict, RawColumn } from "../domain/Metadata.js"
import {
  confidence as C,
  contexts,
  type Entry,
  factor as F,
  type FlagClass,
  markers,
  type Needs,
  nouns,
  typeEvidence,
  type TypeFamily
} from "./compile.js"
import {
  analyzeComment,
  analyzeTypeName,
  type MatchInfo,
  type Modifier,
  type NameInfo,
  personalPhoneWords
} from "./names.js"
import { isOrgTarget, namedTarget, refTarget, type Source, type TableInfo } from "./tables.js"

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
const personLevelKinds = new Set([
  "identity",
  "descriptor",
  "bioDate",
  "behaviour",
  "content",
  "special",
  "criminal",
  "credential"
])

const needsMet = (needs: Needs, t: TableInfo, n: NameInfo, e: Entry | null): boolean => {
  const content = e !== null && (e.kind === "content" || e.kind === "generic")
  switch (needs) {
    case "any":
      return true
    case "evidence":
      return t.evidence || t.linked || t.status !== "none" || t.accountContext || t.addressOfPeople
    case "linked":
      return (
        t.linked || t.status === "person" || t.status === "mixed" || (content && t.interactionHead) ||
        (t.recordLinked && e !== null && (e.kind === "descriptor" || e.kind === "behaviour" || e.kind === "bioDate"))
      )
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

const orgLike = (t: TableInfo): boolean =>
  t.status === "org" || t.status === "mixed" || (t.orgHead && t.status !== "person")

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
      const meta = n.negMeta !== null && trailing.includes(n.negMeta)
        ? `_${n.negMeta}`
        : n.negPrefix !== null && m.start > 0
        ? `${n.negPrefix}_`
        : null
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
    } else if (family === "numeric" && e.onNumber !== null && trailing.length === 0 && !n.count) {
      category = e.onNumber.category
      conf = e.onNumber.confidence
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
    if (
      (e.kind === "bioDate" || e.kind === "descriptor") && t.objectHead && t.status === "none" && !t.linked &&
      mod !== "person"
    ) {
      reject(m, "context:object-table", C.contextSuppressed, "table-context", "describes a thing, not a person")
      continue
    }
    let needs: Needs = e.needs
    if ((mod === "person" || mod === "recipient") && (needs === "personTable" || needs === "linked")) needs = "evidence"
    // A name qualified by a person (`owner_name`, `customer_name`, `nom_client`) is a person's name anywhere.
    if (mod === "person" && e.id === "name") needs = "any"
    if (e.kind === "addressWeak" && !addressColumn) {
      const addressContext = t.status === "person" || t.addressHead || mod === "person" || mod === "recipient" ||
        mod === "address"
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
    const personalPhone = e.kind === "contact" && e.id.startsWith("phone") &&
      n.all.some((x) => personalPhoneWords.has(x))
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
  const veto = vm === null
    ? null
    : verdict("not", vetoRule, vetoConf, vetoMethod, null, [...evidenceOf(source, n, vm), vetoNote])
  return { verdict: null, veto, typeVetoed }
}

const contextVerdict = (t: TableInfo, ev: string): ColumnVerdict =>
  t.criminal
    ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.case", [
      ev,
      "attribute of a criminal-justice record about a person"
    ])
    : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health", [
      ev,
      "attribute of a health record about a person"
    ])

export const classifyColumn = (src: Source, t: TableInfo, j: number, withComment: boolean): ColumnVerdict => {
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
  const ownKey = col.references === null &&
    personKey === undefined &&
    (n.bareId ||
      (namesTable && (n.idTail || col.isPrimaryKey)) ||
      (col.isPrimaryKey && t.pkCount === 1 && (n.idTail || n.keyNoun !== null) &&
        (t.status === "person" || n.matches.every((m) => !m.entry.idIsValue))))
  if (ownKey) {
    if (t.status === "person") {
      return verdict("personal", "pk:person-table", C.pkPersonTable, "primary-key", "identifier.person_key", [
        tableEv,
        "key of a table about people"
      ])
    }
    if ((t.instrumentHead && t.linked) || (t.sessionHead && t.hasOnlineEvidence)) {
      return verdict(
        "personal",
        "pk:personal-instrument",
        C.pkPersonalInstrument,
        "primary-key",
        "identifier.instrument",
        [tableEv, "key of a person's card/account/session"]
      )
    }
    return verdict("not", "pk:non-person", C.pkNonPerson, "primary-key", null, [
      tableEv,
      "surrogate key of a non-person record"
    ])
  }

  // 2. Keys of people: a declared foreign key to a person table, or a name-based person key (a login used
  // as the key keeps its own vocabulary verdict below).
  if (personKey !== undefined && !personKey.startsWith("value:")) {
    if (personKey.startsWith("fk:")) {
      return verdict("personal", "fk:person-table", C.fkPersonTable, "foreign-key", "identifier.person_key", [
        "references a table about people"
      ])
    }
    const m = n.matches[0]
    if (m === undefined || !m.entry.idIsValue || m.entry.cls === "personal") {
      return verdict("personal", "key:person-name", C.namedPersonKey, "name-token", "identifier.person_key", [
        `${personKey.slice(5)} key`,
        tableEv
      ])
    }
  }

  // 3. Author / editor ids (created_by, changed_by, erstellt_von, creator, owner_id).
  if (n.author && family !== "boolean" && !isDate) {
    return verdict("personal", "author-id", C.authorId, "name-token", "identifier.author", [
      `${n.all.join(" ")}: who created/changed the record`
    ])
  }

  // 4. Other declared foreign keys.
  if (target !== undefined && target !== t) {
    if (target.instrumentHead && target.linked) {
      return verdict(
        "personal",
        "fk:personal-instrument",
        C.fkPersonTable - 0.1,
        "foreign-key",
        "identifier.instrument",
        ["references a person's card, account or payment method"]
      )
    }
    if (isOrgTarget(target)) {
      return verdict("not", "fk:organisation", C.fkNonPerson, "foreign-key", null, [
        "references a table of organisations"
      ])
    }
    if (clinicalOrCriminal && (n.processingMeta || n.recordPointer)) {
      return verdict("not", "context:record-metadata", C.contextSuppressed, "table-context", null, [
        tableEv,
        "metadata or pointer of the record"
      ])
    }
    // In a clinical (criminal) record, a key into a dictionary — a table with no person in it and no record
    // of one (`lab_result.test_id`, `encounter.visit_type_id`) — says what care (proceedings) it was.
    const dictionary = target.status === "none" && !target.linked && !target.clinical && !target.criminal &&
      !target.satellite && !target.addressHead
    if (clinicalOrCriminal && (n.categorisingKey || dictionary)) {
      return t.criminal
        ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.proceedings", [
          tableEv,
          "categorises the proceedings of a person"
        ])
        : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health.care", [
          tableEv,
          "categorises the care a person received"
        ])
    }
    const m = n.matches[0]
    const assigns = m !== undefined &&
      m.entry.idIsValue &&
      (m.entry.kind === "descriptor" || m.entry.kind === "special" || m.entry.kind === "criminal" ||
        m.entry.kind === "bioDate") &&
      needsMet(m.entry.needs, t, n, m.entry)
    if (assigns && (t.linked || t.status === "person" || t.status === "mixed") && !t.lookup) {
      // `ethnicity_id` on a person assigns a sensitive category; the lookup listing the categories is not.
      return verdict(
        m.entry.cls,
        "fk:assigns-category",
        m.entry.cls === "personal" ? C.fkSensitiveLookup - 0.05 : C.fkSensitiveLookup,
        "foreign-key",
        m.entry.category,
        [
          `assigns a ${m.entry.category} value to a person`,
          "references a list of categories"
        ]
      )
    }
    if (
      t.addressOfPeople && m !== undefined &&
      (m.entry.kind === "addressWeak" || m.entry.kind === "address" || m.entry.kind === "location")
    ) {
      return verdict("personal", "context:address-table", C.addressTable, "table-context", "contact.address", [
        tableEv,
        "part of people's postal addresses"
      ])
    }
    if (t.satellite && n.categorisingKey && !n.recordPointer) {
      return verdict(
        "personal",
        "context:person-history",
        C.personHistory - 0.07,
        "table-context",
        "person.attribute",
        [tableEv, "a person's attribute over time"]
      )
    }
    return verdict("not", "fk:non-person", C.fkNonPerson, "foreign-key", null, [
      "references a record that is not about people"
    ])
  }

  // 5. Clinical/criminal tables: keys that categorise, processing metadata.
  if (clinicalOrCriminal) {
    // Audit columns of the record are not the person's — except an identifier of whoever made the change
    // (`audit_client_ip_address`), which is personal anywhere.
    const onlineValue = n.matches.some((m) => m.entry.kind === "online" || m.entry.kind === "onlineLinked")
    if ((n.processingMeta || n.audit || n.recordPointer) && !onlineValue) {
      return verdict("not", "context:record-metadata", C.contextSuppressed, "table-context", null, [
        tableEv,
        "metadata or pointer of the record"
      ])
    }
    // When the care happened is an event time; only a period of a condition or state (`onset`,
    // `start_date`, `end_date`) or a vocabulary date (birth, death) is an attribute of it. (Dates of
    // offences, convictions and sentences are attributes of those facts: criminal records keep them.)
    if (
      t.clinical && isDate && !n.validity && n.matches.length === 0 &&
      !n.tokens.some((x) => contexts.conditionDate.has(x))
    ) {
      return verdict("not", "event-date", C.eventDate, "default", null, [tableEv, "date of an event of the record"])
    }
    if (n.idTail) {
      const named = n.keyNoun !== null ? namedTarget(src.byHead, t, n.keyNoun) : undefined
      if (n.categorisingKey) {
        return t.criminal
          ? verdict("criminal", "context:criminal", C.criminalContext, "table-context", "criminal.proceedings", [
            tableEv,
            "categorises the proceedings of a person"
          ])
          : verdict("special", "context:clinical", C.clinicalContext, "table-context", "health.care", [
            tableEv,
            "categorises the care a person received"
          ])
      }
      if (named !== undefined && named !== t) {
        return verdict("not", "key:non-person", C.fkNonPerson, "name-token", null, [
          tableEv,
          `key of ${named.ds.name} (not about people)`
        ])
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
  if (
    n.roleHead !== null && n.negFlag === null && n.negMeta === null && n.negPrefix === null && !isDate &&
    family !== "boolean" && family !== "numeric" && !t.lookup && !countOfPeople
  ) {
    const ambiguous = nouns.ambiguousPerson.has(n.roleHead) && !nouns.role.has(n.roleHead)
    if (!ambiguous && fromName.veto === null) {
      const isKey = family === "integer" || family === "uuid"
      return verdict(
        "personal",
        isKey ? "role:key" : "role:name",
        isKey ? C.roleKey : C.roleName,
        "name-token",
        isKey ? "identifier.person_key" : "identity.name",
        [
          `${n.roleHead}: a person`
        ]
      )
    }
  }
  // An organisation named in a person's own table is the employer (customer.company).
  if (
    t.status === "person" && n.orgNoun !== null && !n.idTail && n.keyNoun === null &&
    (family === "text" || family === "named") && n.tokens.length <= 2 && n.negMeta === null
  ) {
    return verdict("personal", "context:employer", C.employer, "table-context", "employment.employer", [
      tableEv,
      `${n.all.join(" ")}: the person's organisation`
    ])
  }

  // 8. SQL type as evidence (inet, geometry).
  const te = typeEvidence.get(family)
  if (te !== undefined && needsMet(te.needs, t, n, null) && !t.lookup && !orgLike(t)) {
    return verdict(te.cls, te.rule, te.confidence, "sql-type", te.category, [`type ${family}`])
  }

  // 9. Table context.
  if (clinicalOrCriminal) return contextVerdict(t, tableEv)
  if (t.addressOfPeople && !n.idTail && !n.audit && !isDate && family !== "boolean" && fromName.veto === null) {
    return verdict("personal", "context:address-table", C.addressTable, "table-context", "contact.address", [
      tableEv,
      "part of people's postal addresses"
    ])
  }
  const softVeto = fromName.veto === null || fromName.veto.rule === "event-date" || fromName.veto.rule === "key:record"
  if ((t.satellite || t.status === "person") && n.validity && (isDate || n.time) && !n.audit && softVeto) {
    return verdict("personal", "context:person-history", C.personHistory, "table-context", "employment.history", [
      tableEv,
      "period of a person's state"
    ])
  }
  if (
    t.satellite && !n.idTail && !n.audit && !isDate && family !== "boolean" &&
    (softVeto || fromName.veto?.rule === "context:object-name") && n.negFlag === null && !n.processingMeta
  ) {
    return verdict("personal", "context:person-history", C.personHistory - 0.07, "table-context", "person.attribute", [
      tableEv,
      "attribute of a person over time"
    ])
  }
  const recent = n.tokens.some((x) => markers.recency.has(x))
  if (
    t.status === "person" && n.activity && n.negFlag === null &&
    (n.count || n.time || recent || n.tokens.includes("lifetime")) && family !== "boolean"
  ) {
    return verdict("personal", "metric:person-activity", C.activityMetric, "co-occurrence", "behaviour.activity", [
      tableEv,
      "per-person activity metric"
    ])
  }
  if (
    (t.linked || t.status === "person") && n.tracking && n.negFlag === null && !n.count && !n.audit && !n.idTail &&
    !t.aggregate
  ) {
    return verdict("personal", "behaviour:tracking", C.activityMetric, "table-context", "behaviour.tracking", [
      tableEv,
      "what a person opened, clicked or read"
    ])
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
      return verdict(
        "personal",
        "context:personal-instrument",
        C.pkPersonalInstrument - 0.1,
        "table-context",
        "financial.payment_instrument",
        [tableEv, "details of a person's payment instrument"]
      )
    }
  }

  if (fromName.veto !== null) return fromName.veto

  // 10b. In a table whose rows are people, a column that is not technical describes the person.
  if (
    t.status === "person" && family !== "numeric" && !n.idTail && n.keyNoun === null && !n.audit && !n.processingMeta &&
    !n.recordPointer &&
    n.negFlag === null && n.negMeta === null && n.negPrefix === null && !n.tokens.some((x) => markers.technical.has(x))
  ) {
    return verdict("personal", "context:person-descriptor", C.personDescriptor, "table-context", "person.descriptor", [
      tableEv,
      "describes one of the people the table is about"
    ])
  }

  // 11. Default.
  if (n.idTail || (n.keyNoun !== null && markers.key.has(n.tokens[n.tokens.length - 1] ?? ""))) {
    return verdict("not", "key:non-person", C.fkNonPerson, "default", null, [tableEv, "key of a non-person record"])
  }
  if (isDate && !n.validity) {
    return verdict("not", "event-date", C.eventDate, "default", null, [tableEv, "date of an event"])
  }
  const conf = t.status === "person"
    ? C.defaultNotPersonTable
    : t.linked
    ? C.defaultNotLinked
    : t.evidence
    ? C.defaultNotEvidence
    : C.defaultNotNone
  // A row-audit or pipeline column is `not` on evidence, not for want of a signal: the second stage does not
  // re-read it.
  if (n.pipeline) {
    return verdict("not", "audit:pipeline", conf, "default", null, [tableEv, "row-audit or pipeline column"])
  }
  return verdict("not", "default:not", conf, "default", null, [tableEv, "no personal-data signal"])
}
