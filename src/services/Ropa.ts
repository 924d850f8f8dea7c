/**
 * Drafts the GDPR Art. 30(1) record of processing activities from the catalog. Pure: the Reader
 * calls `draftRopa` with what the store holds; nothing here writes.
 *
 * Grouping rule (docs/ropa.md): every table about people (a "subject table": its primary key is a
 * person key, or personal foreign keys point at it) anchors one activity per source. A dataset that
 * holds personal data joins the activity of every subject table it points to (or is), a view joins
 * those of the datasets it reads, and what is left is grouped per source and schema.
 */
import { createHash } from "node:crypto"
import type { Activity, LegalField, LegalFieldName, RopaDraft } from "../domain/Compliance.js"
import type { ClassValue } from "../domain/Metadata.js"

export const legalFields: ReadonlyArray<LegalFieldName> = ["purpose", "lawfulBasis", "retention", "transfers"]

/** Accepted spellings of the field identifiers (`annotate list` shows the canonical ones). */
export const fieldAliases: Readonly<Record<string, LegalFieldName>> = {
  purpose: "purpose",
  purposes: "purpose",
  lawfulbasis: "lawfulBasis",
  lawful_basis: "lawfulBasis",
  "lawful-basis": "lawfulBasis",
  basis: "lawfulBasis",
  legalbasis: "lawfulBasis",
  legal_basis: "lawfulBasis",
  retention: "retention",
  retention_period: "retention",
  transfers: "transfers",
  transfer: "transfers",
  third_country_transfers: "transfers"
}

export interface RopaColumn {
  readonly datasetId: string
  readonly source: string
  readonly schema: string
  readonly table: string
  readonly kind: string
  readonly column: string
  readonly value: ClassValue
  readonly category: string | null
  readonly primaryKey: boolean
  /** Referenced column id, for a foreign key. */
  readonly ref: string | null
}

export interface RopaSource {
  readonly id: string
  readonly kind: string
  readonly label: string | null
  readonly region: string | null
  readonly role: string | null
}

export interface AnnotationRow {
  readonly activity_key: string
  readonly field: string
  readonly value: string
  readonly status: "suggested" | "confirmed"
  readonly by: string
  readonly at: string
  readonly confirmed_by: string | null
  readonly confirmed_at: string | null
  readonly basis: string | null
}

export interface RopaInput {
  /** Every column whose effective class is not `not`. */
  readonly columns: ReadonlyArray<RopaColumn>
  /** Scan/dbt/user lineage edges (from → to). */
  readonly edges: ReadonlyArray<{ readonly from: string; readonly to: string }>
  readonly sources: ReadonlyArray<RopaSource>
  readonly controller: { readonly name: string | null; readonly contact: string | null } | null
  readonly annotations: ReadonlyArray<AnnotationRow>
  readonly now: Date
}

// ── subjects ────────────────────────────────────────────────────────────────────────────────────
interface Subject {
  readonly key: string
  readonly label: string
  readonly purpose: string
  readonly basis: string
  readonly retention: string
}

/** Who the rows of a subject table are about, from its name; the default is the table's own name. */
const subjects: ReadonlyArray<{ readonly words: ReadonlyArray<string>; readonly subject: Subject }> = [
  {
    words: ["patient", "patients", "patienten", "paciente", "pacientes", "paziente", "pazienti"],
    subject: {
      key: "patients",
      label: "Patients",
      purpose: "Provision of health care and management of health-care services for patients",
      basis: "Art. 6(1)(b) GDPR (contract) or 6(1)(c) (legal obligation); for health data Art. 9(2)(h) (health care)",
      retention:
        "The statutory retention period for medical records (typically 10 years or more after the last treatment; check national law)"
    }
  },
  {
    words: [
      "employee",
      "employees",
      "staff",
      "personnel",
      "worker",
      "workers",
      "mitarbeiter",
      "employe",
      "employes",
      "empleado",
      "empleados",
      "dipendente",
      "dipendenti",
      "medewerker",
      "medewerkers",
      "funcionario",
      "funcionarios",
      "emp"
    ],
    subject: {
      key: "employees",
      label: "Employees",
      purpose: "Personnel administration: employment contracts, payroll, working time and absence",
      basis:
        "Art. 6(1)(b) GDPR (employment contract) and 6(1)(c) (legal obligations of the employer); Art. 9(2)(b) for special-category data",
      retention:
        "Duration of employment plus the statutory retention periods for payroll and tax records (typically 6–10 years)"
    }
  },
  {
    words: [
      "customer",
      "customers",
      "client",
      "clients",
      "kunde",
      "kunden",
      "cliente",
      "clientes",
      "klant",
      "klanten",
      "buyer",
      "buyers",
      "shopper"
    ],
    subject: {
      key: "customers",
      label: "Customers",
      purpose: "Performance of contracts with customers: accounts, orders, delivery, invoicing and support",
      basis: "Art. 6(1)(b) GDPR (contract); 6(1)(c) (legal obligation) for invoicing and accounting records",
      retention:
        "Duration of the customer relationship plus the statutory retention period for commercial and tax records (typically 6–10 years)"
    }
  },
  {
    words: [
      "user",
      "users",
      "account",
      "accounts",
      "member",
      "members",
      "subscriber",
      "subscribers",
      "profile",
      "profiles",
      "utente",
      "utenti",
      "usuario",
      "usuarios",
      "utilisateur",
      "utilisateurs",
      "benutzer",
      "nutzer",
      "gebruiker",
      "gebruikers"
    ],
    subject: {
      key: "users",
      label: "Users",
      purpose: "Providing the online service to registered users: accounts, authentication, security and support",
      basis: "Art. 6(1)(b) GDPR (contract); 6(1)(f) (legitimate interest) for security logging",
      retention:
        "While the account exists, then deletion or anonymisation within a defined period (e.g. 30–90 days); security logs per the logging policy"
    }
  },
  {
    words: ["student", "students", "pupil", "pupils", "learner", "learners"],
    subject: {
      key: "students",
      label: "Students",
      purpose: "Education administration: enrolment, courses, grades",
      basis: "Art. 6(1)(e) GDPR (public task) or 6(1)(b) (contract)",
      retention: "Duration of studies plus the retention period for academic records"
    }
  },
  {
    words: ["contact", "contacts", "lead", "leads", "prospect", "prospects", "subscriber"],
    subject: {
      key: "contacts",
      label: "Contacts and prospects",
      purpose: "Customer relationship management and direct marketing to contacts",
      basis: "Art. 6(1)(f) GDPR (legitimate interest) or 6(1)(a) (consent) for electronic marketing",
      retention: "Until the contact objects or withdraws consent, or after a period of inactivity (e.g. 2–3 years)"
    }
  },
  {
    words: [
      "defendant",
      "defendants",
      "offender",
      "offenders",
      "prisoner",
      "prisoners",
      "inmate",
      "inmates",
      "suspect",
      "suspects"
    ],
    subject: {
      key: "offenders",
      label: "Persons involved in criminal proceedings",
      purpose: "Administration of criminal proceedings and sentences",
      basis:
        "Art. 6(1)(e) GDPR (public task) or 6(1)(c); Art. 10 GDPR: only under official authority or where Union or Member State law authorises it",
      retention: "As laid down by the law governing the proceedings and records"
    }
  },
  {
    words: [
      "provider",
      "providers",
      "doctor",
      "doctors",
      "physician",
      "physicians",
      "practitioner",
      "practitioners",
      "nurse",
      "nurses",
      "caregiver"
    ],
    subject: {
      key: "professionals",
      label: "Health-care professionals",
      purpose: "Management of the professionals who provide care",
      basis: "Art. 6(1)(b) or 6(1)(c) GDPR",
      retention: "Duration of the relationship plus statutory periods"
    }
  },
  {
    words: ["person", "persons", "people", "individual", "individuals", "personen", "persona", "personas"],
    subject: {
      key: "persons",
      label: "Persons",
      purpose: "To be determined: describe why records about these persons are kept",
      basis: "To be determined: Art. 6(1)(a)–(f) GDPR",
      retention: "To be determined: set a retention period for these records"
    }
  },
  {
    words: ["supplier", "suppliers", "vendor", "vendors", "shipper", "shippers", "partner", "partners"],
    subject: {
      key: "business_contacts",
      label: "Business contacts",
      purpose: "Managing relationships with suppliers and partners (their contact persons)",
      basis: "Art. 6(1)(f) GDPR (legitimate interest) or 6(1)(b) (contract)",
      retention: "Duration of the business relationship plus statutory periods"
    }
  }
]

const split = (s: string): Array<string> =>
  s.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0)

/** True when the table's name says its rows are people of a known kind. */
export const isKnownSubject = (table: string): boolean =>
  split(table).some((w) => subjects.some((s) => s.words.includes(w)))

export const subjectOf = (table: string): Subject => {
  const words = split(table)
  for (const w of [...words].reverse()) {
    const hit = subjects.find((s) => s.words.includes(w))
    if (hit) return hit.subject
  }
  const label = words.join(" ")
  return {
    key: words.join("_") || table,
    label: label.charAt(0).toUpperCase() + label.slice(1),
    purpose: `Processing of ${label} records (describe the business purpose)`,
    basis: "To be determined: Art. 6(1)(a)–(f) GDPR",
    retention: "To be determined: set a retention period for these records"
  }
}

// ── regions ─────────────────────────────────────────────────────────────────────────────────────
const eeaCountries = new Set([
  "AT",
  "BE",
  "BG",
  "HR",
  "CY",
  "CZ",
  "DK",
  "EE",
  "FI",
  "FR",
  "DE",
  "GR",
  "EL",
  "HU",
  "IE",
  "IT",
  "LV",
  "LT",
  "LU",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SK",
  "SI",
  "ES",
  "SE",
  "IS",
  "LI",
  "NO"
])

/** `eu-west-1`, `europe-west3`, `DE`, `eu` → inside; `us-east-1`, `asia-*`, `US` → outside; else unknown. */
export const regionInEea = (region: string | null): boolean | null => {
  if (region === null || region.trim() === "") return null
  const r = region.trim().toLowerCase()
  if (/^(eu|europe|eea)([-_ ]|$)/.test(r)) return true
  if (/^[a-z]{2}$/.test(r)) return eeaCountries.has(r.toUpperCase())
  if (/^(us|na|northamerica|ca|sa|southamerica|ap|asia|me|af|australia|au|cn|jp|in|uk|gb|gov)([-_ ]|$)/.test(r)) {
    return false
  }
  return null
}

// ── the draft ───────────────────────────────────────────────────────────────────────────────────
const datasetOf = (columnId: string): string => columnId.split("/").slice(0, 3).join("/")

interface Group {
  readonly key: string
  readonly subject: Subject
  readonly anchor: string | null
  readonly source: string
  readonly schema: string
  readonly datasets: Set<string>
}

export const activityFingerprint = (
  a: Pick<Activity, "datasets" | "dataCategories" | "special" | "criminal">
): string =>
  createHash("sha1").update(
    JSON.stringify([
      [...a.datasets].sort(),
      a.dataCategories.map((c) => `${c.category}:${c.class}`).sort(),
      a.special,
      a.criminal
    ])
  ).digest("hex").slice(0, 16)

export const draftRopa = (input: RopaInput): RopaDraft => {
  const byDataset = new Map<string, Array<RopaColumn>>()
  for (const c of input.columns) {
    const list = byDataset.get(c.datasetId)
    if (list) list.push(c)
    else byDataset.set(c.datasetId, [c])
  }
  // Subject tables: a personal primary key, the target of a personal foreign key, or (where the
  // source declares no keys, e.g. a CSV dictionary) a table named after people that holds a person key.
  const anchors = new Set<string>()
  for (const c of input.columns) {
    if (c.primaryKey && c.category === "identifier.person_key") anchors.add(c.datasetId)
    if (c.ref !== null && c.category?.startsWith("identifier") === true) anchors.add(datasetOf(c.ref))
  }
  const tableIndex = new Map<string, string>()
  for (const c of input.columns) {
    tableIndex.set(`${c.source}\u0000${c.schema}\u0000${c.table.toLowerCase()}`, c.datasetId)
  }
  for (const c of input.columns) {
    if (
      c.category === "identifier.person_key" && !c.primaryKey && c.ref === null && isKnownSubject(c.table) &&
      /(^|_)id$/i.test(c.column) && c.column.toLowerCase().replace(/_?id$/, "").length > 0
    ) {
      const noun = c.column.toLowerCase().replace(/_?id$/, "")
      if (c.table.toLowerCase() === noun || c.table.toLowerCase() === `${noun}s`) anchors.add(c.datasetId)
    }
  }
  /** `employee_id` without a declared key → the `employees`/`employee` table of the same schema, if it is a subject table. */
  const impliedRef = (c: RopaColumn): string | null => {
    if (c.ref !== null || c.category !== "identifier.person_key" || !/(^|_)id$/i.test(c.column)) return null
    const noun = c.column.toLowerCase().replace(/_?id$/, "")
    for (const t of [noun, `${noun}s`, `${noun}es`]) {
      const target = tableIndex.get(`${c.source}\u0000${c.schema}\u0000${t}`)
      if (target !== undefined && target !== c.datasetId && anchors.has(target)) return target
    }
    return null
  }
  const upstream = new Map<string, Array<string>>()
  for (const e of input.edges) {
    const l = upstream.get(e.to)
    if (l) l.push(e.from)
    else upstream.set(e.to, [e.from])
  }
  const anchorsOf = (id: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(id)) return new Set()
    seen.add(id)
    const out = new Set<string>()
    if (anchors.has(id)) out.add(id)
    for (const c of byDataset.get(id) ?? []) {
      if (c.ref !== null && anchors.has(datasetOf(c.ref)) && c.value !== "not") out.add(datasetOf(c.ref))
      const implied = impliedRef(c)
      if (implied !== null) out.add(implied)
    }
    if (out.size === 0) { for (const up of upstream.get(id) ?? []) for (const a of anchorsOf(up, seen)) out.add(a) }
    return out
  }

  const groups = new Map<string, Group>()
  const groupFor = (key: string, make: () => Group): Group => {
    const g = groups.get(key)
    if (g) return g
    const n = make()
    groups.set(key, n)
    return n
  }
  const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "")
  for (const [datasetId, cols] of byDataset) {
    const first = cols[0]!
    const as = anchorsOf(datasetId)
    if (as.size === 0) {
      const key = `${slug(first.source)}.${slug(first.schema)}.other`
      groupFor(key, () => ({
        key,
        subject: {
          key: "other",
          label: `Other personal data in ${first.source}/${first.schema}`,
          purpose: "To be determined: describe why these records are kept",
          basis: "To be determined: Art. 6(1)(a)–(f) GDPR",
          retention: "To be determined"
        },
        anchor: null,
        source: first.source,
        schema: first.schema,
        datasets: new Set()
      })).datasets.add(datasetId)
      continue
    }
    for (const anchor of as) {
      const [source, schema, table] = anchor.split("/") as [string, string, string]
      const subject = subjectOf(decodeURIComponent(table))
      const key = `${slug(source)}.${slug(subject.key)}`
      groupFor(key, () => ({ key, subject, anchor, source, schema, datasets: new Set() })).datasets.add(datasetId)
      groups.get(key)!.datasets.add(anchor)
    }
  }

  const sourceById = new Map(input.sources.map((s) => [s.id, s]))
  const notes = new Map(input.annotations.map((a) => [`${a.activity_key}\u0000${a.field}`, a]))
  let open = 0
  const activities = [...groups.values()].sort((a, b) => a.key.localeCompare(b.key)).map((g): Activity => {
    const datasets = [...g.datasets].filter((d) => byDataset.has(d)).sort()
    const cats = new Map<string, { category: string; class: "personal" | "special" | "criminal"; columns: number }>()
    const rank = { personal: 1, special: 2, criminal: 3 } as const
    for (const d of datasets) {
      for (const c of byDataset.get(d) ?? []) {
        if (c.value === "not") continue
        const category = c.category ?? c.value
        const prev = cats.get(category)
        const cls = c.value
        cats.set(category, {
          category,
          class: prev && rank[prev.class] > rank[cls] ? prev.class : cls,
          columns: (prev?.columns ?? 0) + 1
        })
      }
    }
    const dataCategories = [...cats.values()].sort((a, b) =>
      rank[b.class] - rank[a.class] || a.category.localeCompare(b.category)
    )
    const special = dataCategories.some((c) => c.class === "special")
    const criminal = dataCategories.some((c) => c.class === "criminal")
    const systems = [...new Set(datasets.map((d) => d.split("/")[0]!))].sort()
    const regions = systems.map((s) => ({ id: s, region: sourceById.get(s)?.region ?? null }))
    const outside = regions.filter((r) => regionInEea(r.region) === false)
    const unknown = regions.filter((r) => regionInEea(r.region) === null)
    const suggestions: Record<LegalFieldName, string> = {
      purpose: g.subject.purpose,
      lawfulBasis: g.subject.basis + (special && !g.subject.basis.includes("Art. 9")
        ? "; special-category data also needs an Art. 9(2) condition"
        : "") +
        (criminal && !g.subject.basis.includes("Art. 10")
          ? "; criminal-offence data needs an Art. 10 authorisation"
          : ""),
      retention: g.subject.retention,
      transfers: outside.length > 0
        ? `Suggested: transfer to a third country — ${
          outside.map((r) => `${r.id} is hosted in ${r.region}`).join("; ")
        }; needs an Art. 45 adequacy decision or Art. 46 safeguards (e.g. SCCs)`
        : unknown.length > 0
        ? `Unknown: hosting region not recorded for ${
          unknown.map((r) => r.id).join(", ")
        } (add --region to the source); none suggested otherwise`
        : "None suggested: every system is hosted in the EEA"
    }
    const base = { datasets, dataCategories, special, criminal }
    const fp = activityFingerprint(base)
    const field = (name: LegalFieldName): LegalField => {
      const a = notes.get(`${g.key}\u0000${name}`)
      const suggestion = suggestions[name]
      if (!a) {
        open++
        return { field: name, value: suggestion, status: "suggested", suggestion, needsReview: false }
      }
      const needsReview = a.status === "confirmed" && a.basis !== null && a.basis !== fp
      if (a.status !== "confirmed" || needsReview) open++
      return {
        field: name,
        value: a.value,
        status: a.status,
        suggestion,
        ...(a.confirmed_by !== null ? { confirmedBy: a.confirmed_by } : {}),
        ...(a.confirmed_at !== null ? { confirmedAt: a.confirmed_at } : {}),
        needsReview
      }
    }
    const subjectsLabel = g.subject.label
    const names = datasets.map((d) => decodeURIComponent(d.split("/")[2] ?? d))
    return {
      key: g.key,
      name: g.anchor !== null ? `Personal data of ${subjectsLabel.toLowerCase()} (${g.source})` : subjectsLabel,
      description: `Personal data${
        g.anchor !== null ? ` about ${subjectsLabel.toLowerCase()}` : ""
      } held in ${g.source} (${names.slice(0, 6).join(", ")}${
        names.length > 6 ? `, and ${names.length - 6} more` : ""
      }).`,
      systems,
      datasets,
      dataSubjects: g.anchor !== null ? [subjectsLabel] : ["To be determined"],
      dataCategories,
      special,
      criminal,
      recipients: [],
      legal: {
        purpose: field("purpose"),
        lawfulBasis: field("lawfulBasis"),
        retention: field("retention"),
        transfers: field("transfers")
      }
    }
  })
  return {
    seal: "draft",
    stamp: "DRAFT, not an official record",
    generatedAt: input.now.toISOString(),
    controller: input.controller,
    activities,
    openLegalCalls: open
  }
}
