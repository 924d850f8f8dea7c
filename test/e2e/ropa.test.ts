/**
 * The RoPA draft through the CLI: every transition of SPEC.md's legal-field status table, re-scans
 * keeping confirmations (and flagging them for review when the data under them moved), transfers
 * suggested from hosting regions.
 */
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, tempProject, writeFile } from "../utils/cli.js"

interface Field {
  readonly field: string
  readonly value: string | null
  readonly status: string
  readonly suggestion: string | null
  readonly confirmedBy?: string
  readonly confirmedAt?: string
  readonly needsReview: boolean
}
interface Activity {
  readonly key: string
  readonly datasets: Array<string>
  readonly special: boolean
  readonly criminal: boolean
  readonly dataCategories: Array<{ category: string; class: string }>
  readonly legal: Record<string, Field>
}
interface Draft {
  readonly seal: string
  readonly stamp: string
  readonly controller: { name: string | null; contact: string | null } | null
  readonly activities: Array<Activity>
  readonly openLegalCalls: number
}

describe("RoPA draft and legal-field transitions", () => {
  const p = tempProject()
  const dbFile = path.join(p.dir, "app.db")
  const env = { APP_DB: dbFile, USER: "agent" }
  const cli = (args: Array<string>, extra: Record<string, string> = {}) =>
    runCli(args, { cwd: p.dir, env: { ...env, ...extra } })
  const draft = () => cli(["annotate", "list", "--json"]).json as Draft
  const field = (key: string, name: string) => draft().activities.find((a) => a.key === key)!.legal[name]!
  const code = (r: ReturnType<typeof cli>) => (r.json as { error?: { code: string } }).error?.code

  beforeAll(() => {
    const db = new DatabaseSync(dbFile)
    db.exec(`
      CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT, created_at TEXT);
      CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), total_cents INTEGER);
      CREATE TABLE patients (patient_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), diagnosis TEXT, allergies TEXT);
      CREATE TABLE defendants (defendant_id INTEGER PRIMARY KEY, full_name TEXT, offence_code TEXT, conviction_date DATE);
      CREATE TABLE products (product_id INTEGER PRIMARY KEY, name TEXT, price_cents INTEGER);
    `)
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "controller:\n  name: Example GmbH\n  contact: privacy@example.com\nsources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: us-east-1 }\n"
    )
    expect(cli(["start"]).code).toBe(0)
  })
  afterAll(() => p.cleanup())

  it("drafts activities covering every dataset with personal data; special and criminal land in the right ones", () => {
    const d = draft()
    expect(d.seal).toBe("draft")
    expect(d.stamp).toBe("DRAFT, not an official record")
    expect(d.controller).toEqual({ name: "Example GmbH", contact: "privacy@example.com" })
    const covered = new Set(d.activities.flatMap((a) => a.datasets))
    const list = (cli(["datasets", "--json"]).json as { datasets: Array<{ id: string; highest: string }> }).datasets
    for (const ds of list.filter((x) => x.highest !== "not")) expect(covered.has(ds.id), ds.id).toBe(true)
    expect(covered.has("app/main/products")).toBe(false)
    const patients = d.activities.find((a) => a.datasets.includes("app/main/patients") && a.key.endsWith("patients"))!
    expect(patients.special).toBe(true)
    const defendants = d.activities.find((a) => a.datasets.includes("app/main/defendants"))!
    expect(defendants.criminal).toBe(true)
    expect(d.activities.find((a) => a.key === "app.customers")!.criminal).toBe(false)
    for (const a of d.activities) for (const f of Object.values(a.legal)) expect(f.status).toBe("suggested")
  })

  it("(none) → scan: each legal field is drafted as `suggested`; a US-hosted source suggests a transfer", () => {
    const t = field("app.customers", "transfers")
    expect(t.status).toBe("suggested")
    expect(t.value).toMatch(/third country/)
    expect(t.value).toMatch(/us-east-1/)
    expect(field("app.customers", "lawfulBasis").value).toMatch(/Art\. 6\(1\)\(b\)/)
  })

  it("suggested → annotate set without --confirm → suggested (a draft fill, no signer needed)", () => {
    const r = cli(["annotate", "set", "app.customers", "purpose", "Online", "shop", "orders", "--json"])
    expect(r.code).toBe(0)
    const f = field("app.customers", "purpose")
    expect(f).toMatchObject({ status: "suggested", value: "Online shop orders" })
    expect(f.confirmedBy).toBeUndefined()
  })

  it("suggested → annotate set --confirm with CATALOG_SIGNER_EMAIL → confirmed, recording who and when", () => {
    const r = cli(
      ["annotate", "set", "app.customers", "lawful_basis", "Art. 6(1)(b) contract", "--confirm", "--json"],
      { CATALOG_SIGNER_EMAIL: "dpo@example.com" }
    )
    expect(r.code).toBe(0)
    const f = field("app.customers", "lawfulBasis")
    expect(f.status).toBe("confirmed")
    expect(f.confirmedBy).toBe("dpo@example.com")
    expect(Date.parse(f.confirmedAt!)).toBeGreaterThan(Date.now() - 60_000)
    const log = cli(["log", "--since", "0", "--json"]).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    expect(log.changes[0]).toMatchObject({
      kind: "ropa.field_confirmed",
      entity: "app.customers.lawfulBasis",
      by: "dpo@example.com"
    })
  })

  it("any → annotate set --confirm without a signer → unchanged, SIGNER_REQUIRED", () => {
    const before = field("app.customers", "retention")
    const r = cli(["annotate", "set", "app.customers", "retention", "10 years", "--confirm", "--json"])
    expect(r.code).toBe(1)
    expect(code(r)).toBe("SIGNER_REQUIRED")
    expect(field("app.customers", "retention")).toEqual(before)
  })

  it("any → 'None' without --confirm → unchanged, ROPA_NONE_UNCONFIRMED; with --confirm it closes the field", () => {
    const before = field("app.customers", "transfers")
    const r = cli(["annotate", "set", "app.customers", "transfers", "None", "--json"], {
      CATALOG_SIGNER_EMAIL: "dpo@example.com"
    })
    expect(code(r)).toBe("ROPA_NONE_UNCONFIRMED")
    expect(field("app.customers", "transfers")).toEqual(before)
    const ok = cli(["annotate", "set", "app.customers", "transfers", "None", "--confirm", "--json"], {
      CATALOG_SIGNER_EMAIL: "dpo@example.com"
    })
    expect(ok.code).toBe(0)
    expect(field("app.customers", "transfers")).toMatchObject({ status: "confirmed", value: "None" })
  })

  it("bad activity key or field → ROPA_INPUT_INVALID naming what to fix", () => {
    const k = cli(["annotate", "set", "nope", "purpose", "x", "--json"])
    expect(code(k)).toBe("ROPA_INPUT_INVALID")
    expect((k.json as { error: { fix: string } }).error.fix).toContain("app.customers")
    const f = cli(["annotate", "set", "app.customers", "colour", "x", "--json"])
    expect((f.json as { error: { code: string; param: string } }).error).toMatchObject({
      code: "ROPA_INPUT_INVALID",
      param: "field"
    })
    expect(code(cli(["annotate", "set", "app.customers", "--json"]))).toBe("ROPA_INPUT_INVALID")
  })

  it("a re-scan keeps confirmed fields; when the data under them changes they show that they need review", () => {
    expect(cli(["start"]).code).toBe(0)
    expect(field("app.customers", "lawfulBasis")).toMatchObject({ status: "confirmed", needsReview: false })
    const open = draft().openLegalCalls
    const db = new DatabaseSync(dbFile)
    db.exec("ALTER TABLE customers ADD COLUMN date_of_birth DATE")
    db.close()
    expect(cli(["start"]).code).toBe(0)
    const f = field("app.customers", "lawfulBasis")
    expect(f).toMatchObject({ status: "confirmed", needsReview: true, confirmedBy: "dpo@example.com" })
    expect(draft().openLegalCalls).toBeGreaterThan(open)
    // Re-confirming clears the review flag.
    cli(["annotate", "set", "app.customers", "lawfulBasis", "Art. 6(1)(b) contract", "--confirm"], {
      CATALOG_SIGNER_EMAIL: "dpo@example.com"
    })
    expect(field("app.customers", "lawfulBasis").needsReview).toBe(false)
  })

  it("a confirmed field filled again without --confirm goes back to suggested (agents' writes never confirm)", () => {
    expect(cli(["annotate", "set", "app.customers", "lawfulBasis", "legitimate interest?"]).code).toBe(0)
    const f = field("app.customers", "lawfulBasis")
    expect(f.status).toBe("suggested")
    expect(f.confirmedBy).toBeUndefined()
  })
})
