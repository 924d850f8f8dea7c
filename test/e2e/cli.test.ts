/**
 * The built CLI end to end on SQLite and CSV sources: global rules (JSON errors, exit codes, no
 * prompts), configuration and secrets, scanning, corrections, the change-log.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root } from "../../src/programs/cli/Cli.js"
import { commandTree, groupOptions } from "../../src/programs/cli/CommandTree.js"
import { addedCodes, specCodes } from "../errors/errors.test.js"
import { type CliResult, runCli, tempProject, writeFile } from "../utils/cli.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

const makeShopDb = (file: string) => {
  const db = new DatabaseSync(file)
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT, email_count INTEGER, birth_date DATE, created_at TIMESTAMP);
    CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, price_cents INTEGER);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total_cents INTEGER, ordered_at TIMESTAMP);
    CREATE VIEW big_orders AS SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total_cents > 10000;
  `)
  db.close()
}

describe("catalog CLI (SQLite + CSV, built bin)", () => {
  const p = tempProject()
  const env = { SHOP_DB: "", USER: "tester" }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })

  beforeAll(() => {
    makeShopDb(path.join(p.dir, "shop.db"))
    env.SHOP_DB = path.join(p.dir, "shop.db")
  })
  afterAll(() => p.cleanup())

  it("help --json lists every command, the environment and exactly the CLI registry", () => {
    const r = cli("help", "--json")
    expect(r.code).toBe(0)
    const doc = r.json as {
      commands: Array<{ name: string; usage: string; examples: Array<string> }>
      environment: Array<{ name: string }>
      errors: Array<{ code: string; message: string; fix: string | null }>
    }
    expect(doc.commands.map((c) => c.name)).toEqual(
      expect.arrayContaining([
        "start",
        "status",
        "search",
        "log",
        "classify",
        "sources",
        "add",
        "test",
        "doctor",
        "config",
        "skill",
        "help",
        "show",
        "datasets"
      ])
    )
    for (const c of doc.commands) {
      expect(c.usage, c.name).toMatch(/^catalog /)
      expect(c.examples.length, c.name).toBeGreaterThan(0)
    }
    expect(doc.environment.map((e) => e.name)).toEqual(
      expect.arrayContaining(["CATALOG_CONFIG", "CATALOG_DATA", "CATALOG_SIGNER_EMAIL"])
    )
    expect(doc.errors.map((e) => e.code).sort()).toEqual(
      [...specCodes, ...addedCodes].filter((c) => c !== "DATASET_NOT_FOUND" && c !== "ENDPOINT_NOT_FOUND").sort()
    )
    for (const e of doc.errors) expect(e.message.length).toBeGreaterThan(0)
  })

  it("help --json describes each command and option with the text its command tree holds", () => {
    const doc = cli("help", "--json").json as {
      commands: Array<{ name: string; summary: string; options: Array<{ flag: string; description: string }> }>
    }
    const tree = commandTree(root)
    expect(doc.commands.map((c) => c.name).sort()).toEqual(tree.subcommands.map((c) => c.name).sort())
    for (const c of doc.commands) {
      const node = tree.subcommands.find((n) => n.name === c.name)!
      expect(c.summary, c.name).toBe(node.description)
      expect(c.summary.length, c.name).toBeGreaterThan(0)
      // Every option the command or one of its subcommands parses is listed with the tree's flag and text, in order.
      const own = groupOptions(node)
      expect(c.options.slice(0, own.length), c.name).toEqual(own)
      // What follows is only global flags (stripped before the tree parses): --yes where it matters, then --json.
      expect(c.options.slice(own.length).map((o) => o.flag), c.name).toEqual(
        expect.arrayContaining(["--json"])
      )
      for (const o of c.options.slice(own.length)) expect(["--yes", "--json"], c.name).toContain(o.flag)
    }
    const add = doc.commands.find((c) => c.name === "add")!
    expect(add.options.map((o) => o.flag)).toEqual([
      "--ref <ENV_VAR_NAME>",
      "--from <schema.csv>",
      "--target <source-id>",
      "--id <id>",
      "--label <text>",
      "--region <region>",
      "--role controller",
      "--yes",
      "--json"
    ])
  })

  it("help <command> --json gives one command; an unknown one is a usage error", () => {
    const one = cli("help", "start", "--json")
    expect(one.code).toBe(0)
    expect((one.json as { name: string }).name).toBe("start")
    const bad = cli("help", "nope", "--json")
    expect(bad.code).toBe(2)
    expect(errorOf(bad).code).toBe("INVALID_PARAM")
  })

  it("an unknown command or flag exits 2 with a JSON error on stdout", () => {
    const cmd = cli("frobnicate", "--json")
    expect(cmd.code).toBe(2)
    expect(errorOf(cmd).code).toBe("INVALID_PARAM")
    const flag = cli("status", "--bogus", "--json")
    expect(flag.code).toBe(2)
    expect(errorOf(flag)).toMatchObject({ code: "INVALID_PARAM", param: "--bogus" })
  })

  it("read commands before the first scan: MAP_NOT_FOUND; start without config: CONFIG_NOT_FOUND", () => {
    const s = cli("status", "--json")
    expect(s.code).toBe(1)
    expect(errorOf(s).code).toBe("MAP_NOT_FOUND")
    expect(errorOf(s).fix).toContain("catalog start")
    const st = cli("start", "--json")
    expect(st.code).toBe(1)
    expect(errorOf(st).code).toBe("CONFIG_NOT_FOUND")
    expect(fs.existsSync(path.join(p.dir, ".catalog", "index.db"))).toBe(false)
  })

  it("add writes only the variable's name, and a .env placeholder when it is missing", () => {
    const r = cli("add", "sqlite", "--ref", "MISSING_DB", "--id", "ghost", "--json")
    expect(r.code).toBe(0)
    expect((r.json as { envPlaceholder: boolean }).envPlaceholder).toBe(true)
    const yml = fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")
    expect(yml).toContain("connectionRef: MISSING_DB")
    expect(fs.readFileSync(path.join(p.dir, ".env"), "utf8")).toMatch(/^MISSING_DB="replace-me:\/\//m)
    // idempotent
    const again = cli("add", "sqlite", "--ref", "MISSING_DB", "--id", "ghost", "--json")
    expect(again.code).toBe(0)
    expect((again.json as { added: boolean }).added).toBe(false)
    // a connection string is not a variable name
    const leak = cli("add", "postgres", "--ref", "postgres://u:pw@h/db", "--json")
    expect(leak.code).toBe(1)
    expect(errorOf(leak).code).toBe("ADD_INPUT_INVALID")
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).not.toContain("pw@h")
    const noRef = cli("add", "postgres", "--json")
    expect(errorOf(noRef)).toMatchObject({ code: "ADD_INPUT_INVALID", param: "ref" })
    const badKind = cli("add", "oracle", "--ref", "X", "--json")
    expect(errorOf(badKind).code).toBe("DRIVER_MISSING")
  })

  it("a placeholder secret is SECRET_PLACEHOLDER_UNREPLACED; test of an unknown source is SOURCE_NOT_FOUND", () => {
    const t = cli("test", "ghost", "--json")
    expect(t.code).toBe(1)
    expect(errorOf(t).code).toBe("SECRET_PLACEHOLDER_UNREPLACED")
    expect(errorOf(t).fix).toContain("MISSING_DB")
    const s = cli("start", "--json")
    expect(errorOf(s).code).toBe("SECRET_PLACEHOLDER_UNREPLACED")
    const nf = cli("test", "nope", "--json")
    expect(errorOf(nf).code).toBe("SOURCE_NOT_FOUND")
  })

  it("sources remove needs --yes off a TTY", () => {
    const r = cli("sources", "remove", "ghost", "--json")
    expect(r.code).toBe(1)
    expect(errorOf(r).code).toBe("CONFIRM_REQUIRED")
    const ok = cli("sources", "remove", "ghost", "--yes", "--json")
    expect(ok.code).toBe(0)
    expect(fs.readFileSync(path.join(p.dir, "catalog.yml"), "utf8")).not.toContain("ghost")
    const nf = cli("sources", "remove", "ghost", "--yes", "--json")
    expect(errorOf(nf).code).toBe("SOURCE_NOT_FOUND")
  })

  it("scans SQLite and a CSV dictionary; reports datasets, estimates, flags and view lineage", () => {
    expect(cli("add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--region", "eu-west-1", "--json").code).toBe(0)
    writeFile(
      p.dir,
      "dict.csv",
      "table,column,type,description\npeople,person_id,integer,Primary key\npeople,full_name,text,\"Name, as written\"\npeople,notes,text,\"multi\nline\"\n"
    )
    expect(cli("add", "manual", "--from", "dict.csv", "--id", "dict", "--yes", "--json").code).toBe(0)
    const t = cli("test", "shop", "--json")
    expect(t.code).toBe(0)
    const r = cli("start", "--json")
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const report = r.json as {
      coverage: { complete: boolean; line: string }
      upload: { status: string; message: string }
      summary: { added: number }
    }
    expect(report.coverage.complete).toBe(true)
    expect(report.upload.status).toBe("local")
    expect(report.upload.message).toMatch(/Stayed local/)
    expect(report.summary.added).toBe(5)

    const show = cli("show", "shop/main/customers", "--json")
    expect(show.code).toBe(0)
    const d = show.json as {
      rowCount: { estimate: null; display: string }
      columns: Array<
        {
          name: string
          classification: { value: string; rule: string; confidence: number; method: string; category: string | null }
        }
      >
    }
    expect(d.rowCount.estimate).toBeNull()
    const flag = (n: string) => d.columns.find((c) => c.name === n)!.classification
    expect(flag("email").value).toBe("personal")
    // `email_count int` is not an e-mail; on a customers table it is a per-person activity metric (policy: personal).
    expect(flag("email_count").category).not.toBe("contact.email")
    expect(flag("email_count").rule).not.toMatch(/email/)
    expect(flag("first_name").value).toBe("personal")
    expect(flag("created_at").value).toBe("not")
    for (const c of d.columns) {
      expect(c.classification.rule.length).toBeGreaterThan(0)
      expect(c.classification.confidence).toBeGreaterThan(0)
      expect(c.classification.confidence).toBeLessThanOrEqual(1)
      expect(c.classification.method.length).toBeGreaterThan(0)
    }
    const view = cli("show", "shop/main/big_orders", "--json").json as {
      kind: string
      lineage: { upstream: Array<{ from: string; origin: string }> }
    }
    expect(view.kind).toBe("view")
    expect(view.lineage.upstream.map((e) => e.from).sort()).toEqual(["shop/main/customers", "shop/main/orders"])
    expect(view.lineage.upstream.every((e) => e.origin === "scan")).toBe(true)
    const people = cli("show", "dict/main/people", "--json").json as {
      columns: Array<{ name: string; comment: string | null }>
    }
    expect(people.columns.find((c) => c.name === "notes")!.comment).toBe("multi\nline")

    const status = cli("status", "--json").json as {
      datasets: number
      columns: number
      personalDataItems: number
      seal: string
      coverage: { line: string }
    }
    expect(status.datasets).toBe(5)
    expect(status.seal).toBe("draft")
    expect(status.personalDataItems).toBeGreaterThan(3)
    expect(status.coverage.line).toBe("All 2 sources reached.")
  })

  it("search ranks datasets and columns with why and snippet; no words is INVALID_PARAM", () => {
    const r = cli("search", "email", "--json")
    expect(r.code).toBe(0)
    const hits = (r.json as { hits: Array<{ kind: string; id: string; why: string; snippet: string }> }).hits
    expect(hits[0]!.id).toMatch(/\/email$/)
    for (const h of hits) {
      expect(h.why.length).toBeGreaterThan(0)
      expect(h.snippet.length).toBeGreaterThan(0)
    }
    expect(hits.some((h) => h.id === "shop/main/customers/email_count")).toBe(true)
    const none = cli("search", "--json")
    expect(none.code).toBe(2)
    expect(errorOf(none)).toMatchObject({ code: "INVALID_PARAM", param: "q" })
    const badLimit = cli("search", "email", "--limit", "0", "--json")
    expect(errorOf(badLimit)).toMatchObject({ code: "INVALID_PARAM", param: "limit" })
  })

  it("a correction survives two re-scans, clear restores the scan value, both are in the log", () => {
    const col = "shop/main/products/name"
    const before = (cli("show", "shop/main/products", "--json").json as {
      columns: Array<{ id: string; classification: { value: string } }>
    }).columns.find((c) => c.id === col)!
    expect(before.classification.value).toBe("not")
    const set = runCli(["classify", "set", col, "special", "--json"], {
      cwd: p.dir,
      env: { ...env, CATALOG_SIGNER_EMAIL: "dpo@example.com" }
    })
    expect(set.code).toBe(0)
    for (let i = 0; i < 2; i++) {
      const again = cli("start", "--json")
      expect(again.code).toBe(0)
      expect((again.json as { summary: { changes: number } }).summary.changes).toBe(0)
    }
    const after = (cli("show", "shop/main/products", "--json").json as {
      columns: Array<
        {
          id: string
          classification: {
            value: string
            overridden: boolean
            by: string
            drift: boolean
            machine: { value: string }
          }
        }
      >
    }).columns.find((c) => c.id === col)!
    expect(after.classification).toMatchObject({
      value: "special",
      overridden: true,
      by: "dpo@example.com",
      drift: true,
      machine: { value: "not" }
    })
    const clear = cli("classify", "clear", col, "--json")
    expect(clear.code).toBe(0)
    expect((clear.json as { value: string }).value).toBe("not")
    const log = cli("log", "--since", "0", "--json").json as {
      changes: Array<{ kind: string; entity: string; by?: string; seq: number }>
    }
    const mine = log.changes.filter((c) => c.entity === col)
    expect(mine.map((c) => c.kind)).toEqual(["column.classification_cleared", "column.classified"])
    expect(mine[1]!.by).toBe("dpo@example.com")
    // The OS account, not $USER (which the test sets to something else): who really ran the command.
    expect(mine[0]!.by).toBe(`os:${os.userInfo().username}`)
    const seqs = log.changes.map((c) => c.seq)
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs)
    const bad = cli("classify", "set", col, "secret", "--json")
    expect(errorOf(bad)).toMatchObject({ code: "CLASSIFY_INPUT_INVALID", param: "class" })
    const unknown = cli("classify", "set", "shop/main/products/nope", "personal", "--json")
    expect(errorOf(unknown).code).toBe("DESCRIBE_ENTITY_UNKNOWN")
    const missing = cli("classify", "set", "--json")
    expect(errorOf(missing).code).toBe("CLASSIFY_INPUT_INVALID")
  })

  it("logs dropped and added columns and type changes on re-scan", () => {
    const db = new DatabaseSync(env.SHOP_DB)
    db.exec(
      "ALTER TABLE products ADD COLUMN supplier_email TEXT; ALTER TABLE products DROP COLUMN price_cents; CREATE TABLE audit (id INTEGER PRIMARY KEY, ip_address TEXT);"
    )
    db.close()
    const r = cli("start", "--json")
    expect(r.code).toBe(0)
    const log = cli("log", "--json").json as { changes: Array<{ kind: string; entity: string }> }
    const kinds = log.changes.map((c) => `${c.kind} ${c.entity}`)
    expect(kinds).toEqual(
      expect.arrayContaining([
        "column.added shop/main/products/supplier_email",
        "column.dropped shop/main/products/price_cents",
        "dataset.added shop/main/audit"
      ])
    )
    const bad = cli("log", "--since", "yesterday", "--json")
    expect(errorOf(bad)).toMatchObject({ code: "INVALID_PARAM", param: "since" })
  })

  it("config shows settings; catalog-only on is stated in status; bad input is CONFIG_INPUT_INVALID", () => {
    expect(cli("config", "--json").code).toBe(0)
    expect(errorOf(cli("config", "catalog-only", "maybe", "--json")).code).toBe("CONFIG_INPUT_INVALID")
    expect(cli("config", "catalog-only", "on", "--json").code).toBe(0)
    const s = cli("status", "--json").json as { catalogOnly: boolean; upload: string }
    expect(s.catalogOnly).toBe(true)
    expect(s.upload).toMatch(/no metadata ever leaves this machine/)
    expect(cli("config", "catalog-only", "off", "--json").code).toBe(0)
  })

  it("an unreachable source is named in coverage while the others are stored", () => {
    fs.appendFileSync(path.join(p.dir, ".env"), "GONE_DB=/nonexistent/gone.db\n")
    expect(cli("add", "sqlite", "--ref", "GONE_DB", "--id", "gone", "--json").code).toBe(0)
    const r = cli("start", "--json")
    expect(r.code).toBe(0)
    const rep = r.json as { coverage: { complete: boolean; missing: Array<string>; line: string } }
    expect(rep.coverage.complete).toBe(false)
    expect(rep.coverage.missing).toEqual(["gone"])
    expect(rep.coverage.line).toContain("gone (SOURCE_UNREACHABLE)")
    const status = cli("status", "--json").json as { datasets: number; coverage: { complete: boolean } }
    expect(status.datasets).toBeGreaterThan(4)
    expect(status.coverage.complete).toBe(false)
    const doctor = cli("doctor", "--json")
    expect(doctor.code).toBe(1)
    const rep2 = doctor.json as {
      ok: boolean
      checks: Array<{ name: string; ok: boolean; code?: string; fix?: string }>
    }
    expect(rep2.ok).toBe(false)
    expect(rep2.checks.find((c) => c.name === "source gone")).toMatchObject({ ok: false, code: "SOURCE_UNREACHABLE" })
    expect(rep2.checks.find((c) => c.name === "source shop")).toMatchObject({ ok: true })
    expect(cli("sources", "remove", "gone", "--yes").code).toBe(0)
  })

  it("skill prints a versioned playbook", () => {
    const r = cli("skill")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/playbook-version: \d+\.\d+\.\d+/)
    expect(r.stdout).toContain("--json")
  })
})
