import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import type { Activity, RopaDraft } from "../../src/domain/Compliance.js"
import type { ClassValue } from "../../src/domain/Metadata.js"
import { Annotations } from "../../src/services/Annotations.js"
import { Reader } from "../../src/services/Reader.js"
import {
  activityFingerprint,
  type AnnotationRow,
  draftRopa,
  regionInEea,
  type RopaColumn,
  type RopaInput,
  subjectOf
} from "../../src/services/Ropa.js"
import { diffRopa } from "../../src/services/RopaDiff.js"
import { Scanner } from "../../src/services/Scanner.js"
import {
  CatalogTest,
  catalogYaml,
  column,
  dataset,
  fakeConnector,
  fakeSourceYaml,
  rawSource
} from "../utils/TestLayers.js"

/** A flagged column of `<source>/<schema>/<table>`. */
const col = (
  at: string,
  name: string,
  value: Exclude<ClassValue, "not">,
  category: string | null,
  extra: Partial<RopaColumn> = {}
): RopaColumn => {
  const [source, schema, table] = at.split("/") as [string, string, string]
  return {
    datasetId: at,
    source,
    schema,
    table,
    kind: "table",
    column: name,
    value,
    category,
    primaryKey: false,
    ref: null,
    ...extra
  }
}
const key = "identifier.person_key"
const pk = { primaryKey: true } as const
const now = new Date("2026-03-01T12:00:00.000Z")
const input = (over: Partial<RopaInput>): RopaInput => ({
  columns: [],
  edges: [],
  sources: [],
  controller: null,
  annotations: [],
  now,
  ...over
})

// A shop with customers and employees, a CRM in the US, and a log nobody is anchored to.
const shopColumns: ReadonlyArray<RopaColumn> = [
  col("shop/public/customers", "id", "personal", key, pk),
  col("shop/public/customers", "email", "personal", "contact.email"),
  col("shop/public/orders", "customer_id", "personal", key, { ref: "shop/public/customers/id" }),
  col("shop/public/order_summary", "buyer_email", "personal", "contact.email", { kind: "view" }),
  col("shop/public/employees", "id", "personal", key, pk),
  col("shop/public/employees", "health_notes", "special", "health"),
  col("shop/public/employees", "criminal_record", "criminal", "criminal.conviction"),
  col("shop/public/payslips", "employee_id", "personal", key),
  col("shop/public/payslips", "iban", "personal", "financial.iban"),
  col("shop/public/tickets", "customer_id", "personal", key, { ref: "shop/public/customers/id" }),
  col("shop/public/tickets", "agent_id", "personal", key, { ref: "shop/public/employees/id" }),
  col("shop/public/audit_log", "ip_address", "personal", "online.ip"),
  col("crm/sales/contacts", "id", "personal", key, pk),
  col("crm/sales/contacts", "religion", "special", "religion")
]
const shopInput = input({
  columns: shopColumns,
  edges: [{ from: "shop/public/orders", to: "shop/public/order_summary" }],
  sources: [
    { id: "shop", kind: "postgres", label: null, region: "eu-west-1", role: null },
    { id: "crm", kind: "mysql", label: null, region: "us-east-1", role: null }
  ],
  controller: { name: "Shop GmbH", contact: "privacy@shop.example" }
})

const customersPurpose = "Performance of contracts with customers: accounts, orders, delivery, invoicing and support"
const customersBasis = "Art. 6(1)(b) GDPR (contract); 6(1)(c) (legal obligation) for invoicing and accounting records"
const employeesBasis =
  "Art. 6(1)(b) GDPR (employment contract) and 6(1)(c) (legal obligations of the employer); Art. 9(2)(b) for special-category data"
const inEea = "None suggested: every system is hosted in the EEA"

const activity = (draft: RopaDraft, k: string): Activity => {
  const a = draft.activities.find((x) => x.key === k)
  assert.isDefined(a, `activity ${k}`)
  return a!
}
const summary = (a: Activity) => ({
  datasets: a.datasets,
  categories: a.dataCategories.map((c) => [c.category, c.class, c.columns]),
  special: a.special,
  criminal: a.criminal
})

describe("RoPA draft: grouping", () => {
  const draft = draftRopa(shopInput)

  it("one activity per subject table and source; the rest per source and schema; sorted by key", () => {
    assert.deepStrictEqual(draft.activities.map((a) => [a.key, a.name, a.dataSubjects, a.systems]), [
      ["crm.contacts", "Personal data of contacts and prospects (crm)", ["Contacts and prospects"], ["crm"]],
      ["shop.customers", "Personal data of customers (shop)", ["Customers"], ["shop"]],
      ["shop.employees", "Personal data of employees (shop)", ["Employees"], ["shop"]],
      ["shop.public.other", "Other personal data in shop/public", ["To be determined"], ["shop"]]
    ])
    assert.deepStrictEqual(
      [draft.seal, draft.stamp, draft.generatedAt, draft.controller],
      ["draft", "DRAFT, not an official record", "2026-03-01T12:00:00.000Z", {
        name: "Shop GmbH",
        contact: "privacy@shop.example"
      }]
    )
  })

  it("a dataset joins the activity of the subject it points to (declared or by name), a view that of what it reads", () => {
    // orders by its foreign key, order_summary through lineage from orders, tickets joins both subjects,
    // payslips by `employee_id` naming the employees table.
    assert.deepStrictEqual(summary(activity(draft, "shop.customers")), {
      datasets: [
        "shop/public/customers",
        "shop/public/order_summary",
        "shop/public/orders",
        "shop/public/tickets"
      ],
      categories: [["contact.email", "personal", 2], [key, "personal", 4]],
      special: false,
      criminal: false
    })
    assert.deepStrictEqual(summary(activity(draft, "shop.employees")), {
      datasets: ["shop/public/employees", "shop/public/payslips", "shop/public/tickets"],
      categories: [
        ["criminal.conviction", "criminal", 1],
        ["health", "special", 1],
        ["financial.iban", "personal", 1],
        [key, "personal", 4]
      ],
      special: true,
      criminal: true
    })
    assert.deepStrictEqual(activity(draft, "shop.public.other").datasets, ["shop/public/audit_log"])
    assert.strictEqual(
      activity(draft, "shop.customers").description,
      "Personal data about customers held in shop (customers, order_summary, orders, tickets)."
    )
    assert.strictEqual(activity(draft, "shop.public.other").description, "Personal data held in shop (audit_log).")
  })

  it("special and criminal columns raise Art. 9 and Art. 10 in the suggested lawful basis, once", () => {
    // Customers' basis names neither article: neither is flagged here, so nothing is added.
    assert.strictEqual(activity(draft, "shop.customers").legal.lawfulBasis.value, customersBasis)
    // Employees' basis already names Art. 9; criminal data adds Art. 10.
    assert.strictEqual(
      activity(draft, "shop.employees").legal.lawfulBasis.value,
      `${employeesBasis}; criminal-offence data needs an Art. 10 authorisation`
    )
    assert.strictEqual(
      activity(draft, "crm.contacts").legal.lawfulBasis.value,
      "Art. 6(1)(f) GDPR (legitimate interest) or 6(1)(a) (consent) for electronic marketing; special-category data also needs an Art. 9(2) condition"
    )
    // A subject whose basis already names Art. 10 gets no second mention; special data adds Art. 9.
    const court = draftRopa(input({
      columns: [
        col("court/main/defendants", "id", "personal", key, pk),
        col("court/main/defendants", "offence", "criminal", "criminal.offence"),
        col("court/main/defendants", "ethnicity", "special", "ethnicity")
      ]
    }))
    assert.deepStrictEqual(court.activities.map((a) => [a.key, a.special, a.criminal, a.legal.lawfulBasis.value]), [
      [
        "court.offenders",
        true,
        true,
        "Art. 6(1)(e) GDPR (public task) or 6(1)(c); Art. 10 GDPR: only under official authority or where Union or Member State law authorises it; special-category data also needs an Art. 9(2) condition"
      ]
    ])
    // The highest class of a category wins when columns disagree.
    const mixed = draftRopa(input({
      columns: [
        col("clinic/main/patients", "id", "personal", key, pk),
        col("clinic/main/patients", "notes", "personal", "health"),
        col("clinic/main/patients", "diagnosis", "special", "health")
      ]
    }))
    assert.deepStrictEqual(
      mixed.activities[0]!.dataCategories.map((c) => [c.category, c.class, c.columns]),
      [["health", "special", 2], [key, "personal", 1]]
    )
  })

  it("legal fields start as open suggestions; a third-country or unknown region is a transfer to look at", () => {
    const customers = activity(draft, "shop.customers")
    assert.deepStrictEqual(customers.legal.purpose, {
      field: "purpose",
      value: customersPurpose,
      status: "suggested",
      suggestion: customersPurpose,
      needsReview: false
    })
    assert.strictEqual(customers.legal.transfers.value, inEea)
    assert.strictEqual(
      activity(draft, "crm.contacts").legal.transfers.value,
      "Suggested: transfer to a third country — crm is hosted in us-east-1; needs an Art. 45 adequacy decision or Art. 46 safeguards (e.g. SCCs)"
    )
    assert.deepStrictEqual(customers.recipients, [])
    assert.strictEqual(draft.openLegalCalls, 16)
    const unknown = draftRopa(input({
      columns: [col("files/hr/staff", "id", "personal", key, pk)],
      sources: [{ id: "files", kind: "manual", label: null, region: null, role: null }]
    }))
    assert.strictEqual(
      unknown.activities[0]!.legal.transfers.value,
      "Unknown: hosting region not recorded for files (add --region to the source); none suggested otherwise"
    )
    assert.strictEqual(
      activity(draft, "shop.public.other").legal.purpose.value,
      "To be determined: describe why these records are kept"
    )
  })

  it("without declared keys, a table named after people holding its own id anchors, and `<noun>_id` links to it", () => {
    const dictionary = (employees: string) =>
      draftRopa(input({
        columns: [
          col(`hr/main/${employees}`, "employee_id", "personal", key),
          col(`hr/main/${employees}`, "last_name", "personal", "identity.name"),
          col("hr/main/timesheets", "employee_id", "personal", key)
        ]
      })).activities.map((a) => [a.key, a.datasets])
    assert.deepStrictEqual(dictionary("employees"), [["hr.employees", ["hr/main/employees", "hr/main/timesheets"]]])
    // A people table whose id names someone else is no anchor: both land in the schema's "other".
    assert.deepStrictEqual(dictionary("staff_list"), [[
      "hr.main.other",
      ["hr/main/staff_list", "hr/main/timesheets"]
    ]])
  })

  it("a subject table with no flagged column is the anchor but not listed; a lineage cycle ends", () => {
    const draft = draftRopa(input({
      columns: [
        col("app/public/orders", "customer_id", "personal", key, { ref: "app/public/customers/id" }),
        col("app/public/v1", "email", "personal", "contact.email", { kind: "view" }),
        col("app/public/v2", "phone", "personal", "contact.phone", { kind: "view" })
      ],
      edges: [{ from: "app/public/v1", to: "app/public/v2" }, { from: "app/public/v2", to: "app/public/v1" }]
    }))
    assert.deepStrictEqual(draft.activities.map((a) => [a.key, a.datasets]), [
      ["app.customers", ["app/public/orders"]],
      ["app.public.other", ["app/public/v1", "app/public/v2"]]
    ])
  })

  it("more than six datasets are named as six and a count", () => {
    const tables = ["a", "b", "c", "d", "e", "f", "g"]
    const draft = draftRopa(input({
      columns: [
        col("s/x/customers", "id", "personal", key, pk),
        ...tables.map((t) => col(`s/x/${t}`, "customer_id", "personal", key, { ref: "s/x/customers/id" }))
      ]
    }))
    assert.strictEqual(
      draft.activities[0]!.description,
      "Personal data about customers held in s (a, b, c, customers, d, e, and 2 more)."
    )
  })
})

describe("RoPA draft: subjects and regions", () => {
  it("the subject is the last word of the table's name that names people, in several languages", () => {
    assert.deepStrictEqual(
      ["customer_accounts", "Kunden", "tblPatientVisits", "pacientes", "mitarbeiter", "vendors"].map((t) =>
        subjectOf(t).key
      ),
      ["users", "customers", "patients", "patients", "employees", "business_contacts"]
    )
    assert.deepStrictEqual(subjectOf("line_items"), {
      key: "line_items",
      label: "Line items",
      purpose: "Processing of line items records (describe the business purpose)",
      basis: "To be determined: Art. 6(1)(a)–(f) GDPR",
      retention: "To be determined: set a retention period for these records"
    })
  })

  it("a region is inside the EEA, outside it, or unknown", () => {
    const cases: ReadonlyArray<readonly [string | null, boolean | null]> = [
      ["eu-west-1", true],
      ["europe-west3", true],
      ["EU", true],
      ["DE", true],
      ["no", true],
      ["us-east-1", false],
      ["asia-south1", false],
      ["uk-south", false],
      ["CH", false],
      ["mars-1", null],
      ["", null],
      [null, null]
    ]
    assert.deepStrictEqual(cases.map(([r]) => [r, regionInEea(r)]), cases.map(([r, v]) => [r, v]))
  })
})

describe("RoPA draft: annotations, stability and diffs", () => {
  const base = draftRopa(shopInput)
  const customers = activity(base, "shop.customers")
  const note = (field: string, over: Partial<AnnotationRow>): AnnotationRow => ({
    activity_key: "shop.customers",
    field,
    value: "x",
    status: "suggested",
    by: "agent",
    at: "2026-03-01T09:00:00.000Z",
    confirmed_by: null,
    confirmed_at: null,
    basis: null,
    ...over
  })
  const confirmed = (field: string, value: string, basis: string) =>
    note(field, {
      value,
      status: "confirmed",
      by: "dpo@example.com",
      confirmed_by: "dpo@example.com",
      confirmed_at: "2026-03-01T10:00:00.000Z",
      basis
    })

  it("a confirmed field shows who and when; a fill stays suggested; a confirmation of other data needs review", () => {
    const draft = draftRopa({
      ...shopInput,
      annotations: [
        confirmed("purpose", "Online orders and support", activityFingerprint(customers)),
        note("lawfulBasis", { value: "Art. 6(1)(b)" }),
        confirmed("retention", "10 years", "an older fingerprint")
      ]
    })
    const legal = activity(draft, "shop.customers").legal
    assert.deepStrictEqual(legal.purpose, {
      field: "purpose",
      value: "Online orders and support",
      status: "confirmed",
      suggestion: customersPurpose,
      confirmedBy: "dpo@example.com",
      confirmedAt: "2026-03-01T10:00:00.000Z",
      needsReview: false
    })
    assert.deepStrictEqual(legal.lawfulBasis, {
      field: "lawfulBasis",
      value: "Art. 6(1)(b)",
      status: "suggested",
      suggestion: customersBasis,
      needsReview: false
    })
    assert.deepStrictEqual([legal.retention.status, legal.retention.needsReview], ["confirmed", true])
    // Only the confirmed, still-valid purpose is closed: 16 fields, one answered.
    assert.strictEqual(draft.openLegalCalls, 15)
    // Answers for one activity leave the others alone.
    assert.deepStrictEqual(activity(draft, "shop.employees"), activity(base, "shop.employees"))
  })

  it("the same catalog gives the same draft, whatever order the columns come in", () => {
    const shuffled = draftRopa({ ...shopInput, columns: [...shopColumns].reverse() })
    assert.deepStrictEqual(shuffled, base)
    assert.deepStrictEqual(
      base.activities.map((a) => activityFingerprint(a)),
      shuffled.activities.map((a) => activityFingerprint(a))
    )
    // The fingerprint covers the datasets, the categories and the flags, not their order.
    const fp = activityFingerprint(customers)
    assert.match(fp, /^[0-9a-f]{16}$/)
    assert.strictEqual(
      activityFingerprint({ ...customers, datasets: [...customers.datasets].reverse() }),
      fp
    )
    assert.notStrictEqual(activityFingerprint({ ...customers, special: true }), fp)
    assert.notStrictEqual(activityFingerprint({ ...customers, datasets: customers.datasets.slice(1) }), fp)
  })

  it("a diff of two drafts names what moved, activity by activity", () => {
    assert.deepStrictEqual(diffRopa(base, base), [])
    const after = draftRopa({
      ...shopInput,
      columns: [
        ...shopColumns.filter((c) => c.table !== "audit_log" && c.source !== "crm"),
        col("shop/public/customers", "religion", "special", "religion"),
        col("web/public/users", "id", "personal", key, pk)
      ],
      annotations: [confirmed("purpose", "Online orders", activityFingerprint(customers))]
    })
    const moves = diffRopa(base, after)
    assert.deepStrictEqual(moves.map((m) => [m.activity, m.field]), [
      ["crm.contacts", "activity"],
      ["shop.public.other", "activity"],
      ["shop.customers", "purpose"],
      ["shop.customers", "lawfulBasis"],
      ["shop.customers", "dataCategories"],
      ["shop.customers", "special"],
      ["web.users", "activity"]
    ])
    assert.deepStrictEqual(moves.map((m) => m.summary), [
      "activity crm.contacts is gone",
      "activity shop.public.other is gone",
      // The purpose was confirmed against the activity before the religion column: it needs review.
      `shop.customers.purpose: suggested "${customersPurpose}" → confirmed (needs review) "Online orders"`,
      `shop.customers.lawfulBasis: suggested "${customersBasis}" → suggested "${customersBasis}; special-category data also needs an Art. 9(2) condition"`,
      "shop.customers data categories: +religion:special",
      "shop.customers.special: false → true",
      "new activity web.users (Personal data of users (web))"
    ])
    assert.deepStrictEqual(moves[2]!.to, { value: "Online orders", status: "confirmed", needsReview: true })
    assert.deepStrictEqual(moves[4], {
      activity: "shop.customers",
      field: "dataCategories",
      from: ["contact.email:personal", `${key}:personal`],
      to: ["contact.email:personal", `${key}:personal`, "religion:special"],
      summary: "shop.customers data categories: +religion:special"
    })
    // Categories leaving, subjects and systems moving are named too.
    const back = diffRopa(after, base).filter((m) => m.activity === "shop.customers").map((m) => m.summary)
    assert.include(back, "shop.customers data categories: -religion:special")
    const moved = diffRopa(base, {
      ...base,
      activities: base.activities.map((a) =>
        a.key === "crm.contacts" ? { ...a, dataSubjects: ["Leads"], systems: ["crm", "web"] } : a
      )
    })
    assert.deepStrictEqual(moved.map((m) => m.summary), [
      "crm.contacts.dataSubjects: [\"Contacts and prospects\"] → [\"Leads\"]",
      "crm.contacts.systems: [\"crm\"] → [\"crm\",\"web\"]"
    ])
  })
})

describe("RoPA draft through the catalog (Scanner → Store → Reader, Annotations)", () => {
  const users = dataset("users", [
    column("id", 1, { type: "integer", isPrimaryKey: true }),
    column("email", 2)
  ])
  const sessions = dataset("sessions", [
    column("id", 1, { type: "integer", isPrimaryKey: true }),
    column("user_id", 2, { type: "integer", references: { schema: "main", table: "users", column: "id" } }),
    column("ip_address", 3)
  ])

  it.effect("a confirmed answer shows who and when, survives a re-scan, and needs review when the data moves", () => {
    const fake = fakeConnector()
    fake.set("web", rawSource([users, sessions]))
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      const reader = yield* Reader
      const annotations = yield* Annotations
      // Each step a minute after the last (the test clock starts at the epoch otherwise).
      yield* TestClock.setTime(Date.parse("2026-11-24T09:00:00Z"))
      const later = TestClock.adjust("1 minute")
      yield* scanner.run()
      yield* later
      const first = yield* reader.compliance
      assert.deepStrictEqual(first.activities.map((a) => [a.key, a.datasets, a.legal.transfers.value]), [
        ["web.users", ["web/main/sessions", "web/main/users"], inEea]
      ])
      assert.deepStrictEqual(first.controller, { name: "Web Ltd", contact: null })

      const set = yield* annotations.set({
        activityKey: "web.users",
        field: "lawful_basis",
        value: "Art. 6(1)(b) GDPR",
        confirm: true
      })
      assert.deepStrictEqual([set.status, set.value, set.confirmedBy, set.needsReview], [
        "confirmed",
        "Art. 6(1)(b) GDPR",
        "dpo@example.com",
        false
      ])
      assert.strictEqual(set.confirmedAt, "2026-11-24T09:01:00.000Z")
      const confirmed = yield* reader.compliance
      assert.strictEqual(confirmed.openLegalCalls, first.openLegalCalls - 1)

      // The same metadata again: the answer stands.
      yield* later
      yield* scanner.run()
      const again = yield* reader.compliance
      assert.deepStrictEqual({ ...again, generatedAt: "" }, { ...confirmed, generatedAt: "" })

      // A health column appears: the answer stays, marked for review, and the diff says so.
      fake.set("web", rawSource([dataset("users", [...users.columns, column("diagnosis", 3)]), sessions]))
      yield* later
      yield* scanner.run()
      const after = yield* reader.compliance
      const legal = after.activities[0]!.legal.lawfulBasis
      assert.deepStrictEqual([legal.status, legal.value, legal.confirmedBy, legal.needsReview], [
        "confirmed",
        "Art. 6(1)(b) GDPR",
        "dpo@example.com",
        true
      ])
      assert.strictEqual(after.openLegalCalls, first.openLegalCalls)
      assert.deepStrictEqual(diffRopa(confirmed, after).map((m) => m.field), [
        "lawfulBasis",
        "dataCategories",
        "special"
      ])
    }).pipe(
      Effect.provide(
        CatalogTest(
          [fake.connector],
          catalogYaml([fakeSourceYaml("web", "region: DE")], ["controller: { name: Web Ltd }"]),
          { CATALOG_SIGNER_EMAIL: "dpo@example.com" }
        )
      )
    )
  })
})
