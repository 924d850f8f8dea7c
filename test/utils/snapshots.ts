/**
 * Realistic invite snapshots for tests (claim page, serve-claim, invite, the portal): two sources, several
 * datasets with personal, special-category and criminal columns, lineage, a glossary, two RoPA activities
 * with suggested and confirmed legal fields, provenance, and (with `dora: "in-scope"`) a DORA register.
 * Every snapshot built here decodes with the `Snapshot` Schema (a test checks it).
 */
import type { Column, Dataset, LineageEdge, SourceState } from "../../src/domain/Catalog.js"
import type { Activity, DoraState, LegalField } from "../../src/domain/Compliance.js"
import { type Snapshot, snapshotFormat, snapshotVersion } from "../../src/domain/Snapshot.js"

type Cls = "personal" | "special" | "criminal" | "not"

interface ColumnSpec {
  readonly name: string
  readonly type: string
  readonly cls?: Cls
  readonly rule?: string
  readonly confidence?: number
  readonly category?: string
  readonly primaryKey?: boolean
  readonly overriddenBy?: string
}

const scannedAt = "2026-11-20T09:15:00.000Z"
const firstSeenAt = "2026-10-02T08:00:00.000Z"

const column = (datasetId: string, position: number, c: ColumnSpec): Column => {
  const value = c.cls ?? "not"
  const rule = c.rule ?? (value === "not" ? "no-match" : `name:${c.name}`)
  const confidence = c.confidence ?? (value === "not" ? 0.98 : 0.9)
  const category = c.category ?? (value === "not" ? null : c.name)
  return {
    id: `${datasetId}/${c.name}`,
    name: c.name,
    position,
    type: c.type,
    nullable: c.primaryKey !== true,
    comment: null,
    primaryKey: c.primaryKey === true,
    references: null,
    classification: {
      value,
      rule,
      confidence,
      method: value === "not" ? "none" : "name-pattern",
      category,
      overridden: c.overriddenBy !== undefined,
      ...(c.overriddenBy !== undefined ? { by: c.overriddenBy, at: "2026-11-21T10:00:00.000Z" } : {}),
      machine: {
        value: c.overriddenBy !== undefined ? "not" : value,
        rule,
        confidence,
        method: value === "not" ? "none" : "name-pattern",
        category,
        evidence: value === "not" ? [] : [`column name matches ${c.name}`]
      },
      drift: false
    }
  }
}

/** A dataset with its columns, counts derived from them. */
export const sampleDataset = (
  source: string,
  schema: string,
  name: string,
  columns: ReadonlyArray<ColumnSpec>,
  opts: { readonly kind?: string; readonly rows?: number | null } = {}
): Dataset => {
  const id = `${source}/${schema}/${name}`
  const cols = columns.map((c, i) => column(id, i + 1, c))
  const count = (k: Cls) => cols.filter((c) => c.classification.value === k).length
  const rows = opts.rows === undefined ? 1200 : opts.rows
  return {
    id,
    source,
    schema,
    name,
    kind: opts.kind ?? "table",
    comment: null,
    rowCount: {
      estimate: rows,
      display: rows === null ? "unknown" : `~${rows.toLocaleString("en")}`,
      source: rows === null ? "none" : "pg_class.reltuples"
    },
    owners: [],
    classes: { personal: count("personal"), special: count("special"), criminal: count("criminal"), not: count("not") },
    columns: cols,
    lineage: { upstream: [], downstream: [] },
    firstSeenAt,
    scannedAt
  }
}

const legal = (
  field: LegalField["field"],
  value: string | null,
  confirmed: { readonly by: string; readonly at: string } | null,
  suggestion: string | null = value
): LegalField => ({
  field,
  value,
  status: confirmed === null ? "suggested" : "confirmed",
  suggestion,
  ...(confirmed !== null ? { confirmedBy: confirmed.by, confirmedAt: confirmed.at } : {}),
  needsReview: false
})

export const sampleDatasets = (): Array<Dataset> => [
  sampleDataset("shop", "public", "customers", [
    { name: "id", type: "integer", primaryKey: true },
    { name: "first_name", type: "text", cls: "personal", category: "name" },
    { name: "last_name", type: "text", cls: "personal", category: "name" },
    { name: "email", type: "text", cls: "personal", category: "contact", confidence: 0.97 },
    { name: "phone_number", type: "text", cls: "personal", category: "contact" },
    { name: "birth_date", type: "date", cls: "personal", category: "birth date", confidence: 0.85 },
    { name: "loyalty_tier", type: "text" },
    { name: "created_at", type: "timestamp" }
  ], { rows: 48210 }),
  sampleDataset("shop", "public", "orders", [
    { name: "id", type: "integer", primaryKey: true },
    { name: "customer_id", type: "integer" },
    { name: "total_cents", type: "integer" },
    { name: "shipping_address", type: "text", cls: "personal", category: "address" },
    { name: "ordered_at", type: "timestamp" }
  ], { rows: 310455 }),
  sampleDataset("shop", "public", "products", [
    { name: "id", type: "integer", primaryKey: true },
    { name: "name", type: "text" },
    { name: "price_cents", type: "integer" }
  ], { rows: 820 }),
  sampleDataset("clinic", "main", "patients", [
    { name: "id", type: "INTEGER", primaryKey: true },
    { name: "full_name", type: "TEXT", cls: "personal", category: "name" },
    { name: "diagnosis", type: "TEXT", cls: "special", category: "health", confidence: 0.93 },
    { name: "blood_type", type: "TEXT", cls: "special", category: "health" },
    { name: "religion", type: "TEXT", cls: "special", category: "religion", overriddenBy: "dpo@acme.example" },
    { name: "insurance_number", type: "TEXT", cls: "personal", category: "national id", confidence: 0.74 }
  ], { rows: 5200 }),
  sampleDataset("clinic", "main", "background_checks", [
    { name: "id", type: "INTEGER", primaryKey: true },
    { name: "patient_id", type: "INTEGER" },
    { name: "conviction_record", type: "TEXT", cls: "criminal", category: "criminal conviction", confidence: 0.88 },
    { name: "checked_at", type: "TIMESTAMP" }
  ], { rows: null }),
  sampleDataset("shop", "public", "customer_orders", [
    { name: "id", type: "integer" },
    { name: "email", type: "text", cls: "personal", category: "contact" },
    { name: "total_cents", type: "integer" }
  ], { kind: "view", rows: null })
]

export const sampleLineage = (): Array<LineageEdge> => [
  {
    id: "e1",
    from: "shop/public/customers",
    to: "shop/public/customer_orders",
    origin: "scan",
    resolvable: true,
    createdAt: scannedAt
  },
  {
    id: "e2",
    from: "shop/public/orders",
    to: "shop/public/customer_orders",
    origin: "scan",
    resolvable: true,
    createdAt: scannedAt
  },
  {
    id: "e3",
    from: "shop/public/customer_orders",
    to: "analytics.vip_summary",
    origin: "dbt",
    resolvable: false,
    createdAt: scannedAt
  },
  {
    id: "e4",
    from: "clinic/main/patients",
    to: "clinic/main/background_checks",
    origin: "user",
    resolvable: true,
    createdAt: "2026-11-21T11:00:00.000Z",
    by: "dpo@acme.example"
  }
]

export const sampleActivities = (): Array<Activity> => [
  {
    key: "shop",
    name: "Customer orders and accounts",
    description: "Personal data held in the shop database (customers, orders).",
    systems: ["shop (PostgreSQL 16)"],
    datasets: ["shop/public/customers", "shop/public/orders", "shop/public/customer_orders"],
    dataSubjects: ["customers"],
    dataCategories: [
      { category: "name", class: "personal", columns: 2 },
      { category: "contact", class: "personal", columns: 3 },
      { category: "address", class: "personal", columns: 1 },
      { category: "birth date", class: "personal", columns: 1 }
    ],
    special: false,
    criminal: false,
    recipients: ["payment processor", "parcel carrier"],
    legal: {
      purpose: legal("purpose", "Fulfilling customer orders and running customer accounts", {
        by: "dpo@acme.example",
        at: "2026-11-21T10:30:00.000Z"
      }),
      lawfulBasis: legal("lawfulBasis", "Art. 6(1)(b) performance of a contract", {
        by: "dpo@acme.example",
        at: "2026-11-21T10:31:00.000Z"
      }),
      retention: legal("retention", "10 years after the last order (commercial law)", null),
      transfers: legal("transfers", "None outside the EEA", null)
    }
  },
  {
    key: "clinic",
    name: "Patient care",
    description: "Health data of patients, with background checks.",
    systems: ["clinic (SQLite)"],
    datasets: ["clinic/main/patients", "clinic/main/background_checks"],
    dataSubjects: ["patients"],
    dataCategories: [
      { category: "name", class: "personal", columns: 1 },
      { category: "national id", class: "personal", columns: 1 },
      { category: "health", class: "special", columns: 2 },
      { category: "religion", class: "special", columns: 1 },
      { category: "criminal conviction", class: "criminal", columns: 1 }
    ],
    special: true,
    criminal: true,
    recipients: [],
    legal: {
      purpose: legal("purpose", "Providing medical care", null),
      lawfulBasis: legal("lawfulBasis", "Art. 9(2)(h) medical diagnosis and treatment", null),
      retention: { ...legal("retention", null, null, null) },
      transfers: {
        ...legal("transfers", "None", { by: "counsel@lawfirm.example", at: "2026-11-22T14:05:00.000Z" }, "None"),
        needsReview: true
      }
    }
  }
]

export const sampleSources = (): Array<SourceState> => [
  {
    id: "shop",
    kind: "postgres",
    driver: "pg",
    label: "Shop database",
    region: "eu-central-1",
    userAuthored: true,
    reachable: true,
    status: "ok",
    error: null,
    serverVersion: "16.4",
    lastAttemptAt: scannedAt,
    lastScannedAt: scannedAt,
    staleness: "fresh",
    datasets: 4
  },
  {
    id: "clinic",
    kind: "sqlite",
    driver: "node:sqlite",
    label: null,
    region: null,
    userAuthored: true,
    reachable: true,
    status: "ok",
    error: null,
    serverVersion: "3.45",
    lastAttemptAt: "2026-11-01T09:15:00.000Z",
    lastScannedAt: "2026-11-01T09:15:00.000Z",
    staleness: "stale-warn",
    datasets: 2
  }
]

export const sampleDora = (): DoraState => ({
  inScope: true,
  register: {
    entity: { lei: "529900T8BM49AURSDO55", name: "Acme Bank AG", country: "DE", currency: "EUR" },
    tables: [
      {
        code: "B_01.01",
        name: "Entity maintaining the register of information",
        rows: [{
          key: "_",
          cells: { c0010: "529900T8BM49AURSDO55", c0020: "Acme Bank AG", c0030: "DE" },
          prefilled: ["c0010", "c0020", "c0030"]
        }]
      },
      {
        code: "B_05.01",
        name: "ICT third-party service providers",
        rowKey: ["c0010"],
        rows: [
          { key: "CLOUDPROV01", cells: { c0010: "CLOUDPROV01", c0020: "Example Cloud GmbH", c0050: "DE" } },
          { key: "PAYPROC02", cells: { c0010: "PAYPROC02", c0020: "Pay Processor SA" } }
        ]
      }
    ],
    validation: {
      valid: false,
      violations: [
        { table: "B_05.01", rowKey: "PAYPROC02", column: "c0050", reason: "required value missing (country)" },
        { table: "B_01.01", rowKey: null, column: null, reason: "reference date not set" }
      ]
    },
    stamp: "DRAFT, not an official record"
  }
})

type Overrides = { -readonly [K in keyof Snapshot]?: Snapshot[K] } & { readonly doraInScope?: boolean }

/**
 * A snapshot as `invite` would write it. `overrides` replace top-level fields; `doraInScope: true`
 * adds the DORA register (out of scope by default).
 */
export const sampleSnapshot = (overrides: Overrides = {}): Snapshot => {
  const { doraInScope, ...fields } = overrides
  const datasets = fields.datasets ?? sampleDatasets()
  const activities = sampleActivities()
  const sources = sampleSources()
  const columns = datasets.reduce((n, d) => n + d.columns.length, 0)
  const sum = (k: "personal" | "special" | "criminal" | "not") => datasets.reduce((n, d) => n + d.classes[k], 0)
  const classes = { personal: sum("personal"), special: sum("special"), criminal: sum("criminal"), not: sum("not") }
  const lastScanAt = scannedAt
  const coverage = {
    complete: true,
    reached: sources.map((s) => s.id),
    missing: [],
    line: "All 2 sources reached."
  }
  const openLegalCalls = activities.reduce(
    (n, a) =>
      n +
      [a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers].filter((f) =>
        f.status !== "confirmed" || f.needsReview
      ).length,
    0
  )
  const controller = { name: "Acme Bank AG", contact: "privacy@acme.example" }
  return {
    format: snapshotFormat,
    version: snapshotVersion,
    tool: { name: "local-data-catalog", version: "0.9.0" },
    createdAt: "2026-11-24T16:42:07.000Z",
    recipient: "dpo@acme.example",
    unbound: false,
    controller,
    status: {
      scanned: true,
      lastScanAt,
      sources: sources.length,
      datasets: datasets.length,
      columns,
      classes,
      personalDataItems: classes.personal + classes.special + classes.criminal,
      datasetsWithPersonalData: datasets.filter((d) => d.classes.personal + d.classes.special + d.classes.criminal > 0)
        .length,
      overrides: 1,
      drift: 0,
      coverage,
      seal: "draft",
      catalogOnly: false,
      upload: "allowed",
      sourceStates: sources
    },
    datasets,
    lineage: sampleLineage(),
    glossary: {
      returned: 1,
      total: 1,
      truncated: false,
      terms: [{
        term: "Customer",
        definition: "A person who placed at least one order.",
        datasets: ["shop/public/customers"],
        updatedAt: "2026-11-10T12:00:00.000Z",
        by: "dpo@acme.example"
      }]
    },
    ropa: {
      seal: "draft",
      stamp: "DRAFT, not an official record",
      generatedAt: "2026-11-24T16:42:07.000Z",
      controller,
      activities,
      openLegalCalls
    },
    dora: doraInScope === true ? sampleDora() : { inScope: false, register: null },
    provenance: {
      seal: "draft",
      stamp: "DRAFT, not an official record",
      generatedAt: "2026-11-24T16:42:07.000Z",
      lastScanAt,
      coverage,
      sources,
      classifierMethods: { "name-pattern": 14, none: 15 },
      changeLogHead: { seq: 42, at: lastScanAt }
    },
    ...fields
  }
}
