/** Team catalog file (round trip byte-identical, refusals import nothing) and the evidence bundle (tamper → mismatch). */
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli, tempProject, writeFile } from "../utils/cli.js"

const code = (r: { json: unknown }) => (r.json as { error?: { code: string } }).error?.code

describe("team catalog file and evidence", () => {
  const p = tempProject()
  const dbFile = path.join(p.dir, "app.db")
  const env = { APP_DB: dbFile, CATALOG_SIGNER_EMAIL: "dpo@example.com" }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })

  beforeAll(() => {
    const db = new DatabaseSync(dbFile)
    db.exec(
      "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, notes TEXT); CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id)); CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT)"
    )
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "sources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB }\n"
    )
    expect(cli("start").code).toBe(0)
    expect(cli("classify", "set", "app/main/customers/notes", "special").code).toBe(0)
    expect(cli("annotate", "set", "app.customers", "purpose", "Orders and support").code).toBe(0)
    expect(cli("annotate", "set", "app.customers", "lawfulBasis", "Art. 6(1)(b)", "--confirm").code).toBe(0)
  })
  afterAll(() => p.cleanup())

  it("export → import into an empty catalog → export is byte-identical, and carries who confirmed", () => {
    const first = cli("export")
    expect(first.code).toBe(0)
    const file = JSON.parse(first.stdout) as {
      format: string
      version: number
      overrides: Array<unknown>
      annotations: Array<{ field: string; status: string; by: string }>
    }
    expect(file.format).toBe("local-data-catalog/team-catalog")
    expect(Number.isInteger(file.version)).toBe(true)
    expect(file.overrides).toHaveLength(1)
    expect(file.annotations.find((a) => a.field === "lawfulBasis")).toMatchObject({
      status: "confirmed",
      by: "dpo@example.com"
    })
    writeFile(p.dir, "team.json", first.stdout)
    const empty = tempProject()
    try {
      const imp = runCli(["import", path.join(p.dir, "team.json"), "--json"], { cwd: empty.dir })
      expect(imp.code, imp.stdout).toBe(0)
      const again = runCli(["export"], { cwd: empty.dir })
      expect(again.stdout).toBe(first.stdout)
    } finally {
      empty.cleanup()
    }
  })

  const refused = (name: string, content: string, expected: string) => {
    const before = cli("export").stdout
    writeFile(p.dir, name, content)
    const r = cli("import", name, "--json")
    expect(r.code).toBe(1)
    expect(code(r)).toBe(expected)
    expect(cli("export").stdout).toBe(before)
    return r
  }

  it("a file that is not a team catalog: CATALOG_FILE_INVALID, nothing imported", () => {
    refused("x.json", JSON.stringify({ hello: 1 }), "CATALOG_FILE_INVALID")
    refused("y.json", "not json", "CATALOG_FILE_INVALID")
    refused(
      "z.json",
      JSON.stringify({ format: "local-data-catalog/team-catalog", version: "1" }),
      "CATALOG_FILE_INVALID"
    )
  })

  it("a newer version: CATALOG_VERSION_UNSUPPORTED, nothing imported", () => {
    refused(
      "v.json",
      JSON.stringify({
        format: "local-data-catalog/team-catalog",
        version: 99,
        overrides: [{ column: "app/main/products/title", value: "personal", by: "x", at: "2030-01-01T00:00:00Z" }]
      }),
      "CATALOG_VERSION_UNSUPPORTED"
    )
  })

  it("a confirmed answer naming no confirmer refuses the whole file and names the row to fix with `by`", () => {
    const r = refused(
      "u.json",
      JSON.stringify({
        format: "local-data-catalog/team-catalog",
        version: 1,
        overrides: [{ column: "app/main/products/title", value: "personal", by: "x", at: "2030-01-01T00:00:00Z" }],
        annotations: [
          {
            activity: "app.customers",
            field: "retention",
            value: "10 years",
            status: "suggested",
            by: "a@b.c",
            at: "2030-01-01T00:00:00Z"
          },
          {
            activity: "app.customers",
            field: "transfers",
            value: "None",
            status: "confirmed",
            at: "2030-01-01T00:00:00Z"
          }
        ]
      }),
      "ROPA_CONFIRM_UNATTRIBUTED"
    )
    const e = (r.json as { error: { message: string; fix: string } }).error
    expect(e.message).toContain("annotations[1] app.customers.transfers")
    expect(e.fix).toContain("\"by\"")
  })

  it("evidence: a bundle with SHA-256 fingerprints that verifies; a tampered artifact fails naming it", () => {
    const out = path.join(p.dir, "bundle")
    const r = cli("evidence", "--out", out, "--json")
    expect(r.code).toBe(0)
    const m = r.json as { artifacts: Array<{ file: string; sha256: string }> }
    expect(m.artifacts.map((a) => a.file).sort()).toEqual([
      "changes.json",
      "dora.json",
      "provenance.json",
      "ropa.json",
      "ropa.md"
    ])
    for (const a of m.artifacts) expect(a.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(fs.readFileSync(path.join(out, "ropa.md"), "utf8")).toContain("DRAFT, not an official record")
    expect(cli("evidence", "--verify", out).code).toBe(0)
    fs.appendFileSync(path.join(out, "ropa.md"), "\nedited by hand\n")
    const bad = cli("evidence", "--verify", out, "--json")
    expect(bad.code).toBe(1)
    expect((bad.json as { error: { code: string; message: string; param: string } }).error).toMatchObject({
      code: "EVIDENCE_HASH_MISMATCH",
      param: "ropa.md"
    })
  })

  describe("never a silent overwrite", () => {
    const errorOf = (r: { json: unknown }) =>
      (r.json as { error: { code: string; message: string; fix?: string; param?: string } }).error
    const listing = (dir: string) => fs.readdirSync(dir).sort()

    it("export --out <existing file>: CONFIRM_REQUIRED (fix names --yes), the file untouched; with --yes it is replaced whole", () => {
      const target = writeFile(p.dir, "mine.json", "my own notes, not an export\n")
      const r = cli("export", "--out", "mine.json", "--json")
      expect(r.code).toBe(1)
      expect(errorOf(r)).toMatchObject({ code: "CONFIRM_REQUIRED", param: "yes" })
      expect(errorOf(r).fix).toContain("--yes")
      expect(fs.readFileSync(target, "utf8")).toBe("my own notes, not an export\n")
      const before = listing(p.dir)
      const ok = cli("export", "--out", "mine.json", "--yes", "--json")
      expect(ok.code, ok.stdout).toBe(0)
      expect(ok.json).toMatchObject({ replaced: true })
      expect(fs.readFileSync(target, "utf8")).toBe(cli("export").stdout)
      // Replaced by a rename: no temporary file is left beside it.
      expect(listing(p.dir)).toEqual(before)
    })

    it("evidence --out <non-empty folder of other files>: refused even with --yes, nothing added to it", () => {
      const dir = path.join(p.dir, "notes")
      writeFile(dir, "todo.txt", "keep me\n")
      for (const yes of [[], ["--yes"]]) {
        const r = cli("evidence", "--out", "notes", ...yes, "--json")
        expect(r.code).toBeGreaterThan(0)
        expect(errorOf(r)).toMatchObject({ code: "INVALID_PARAM", param: "out" })
        expect(errorOf(r).message).toContain("todo.txt")
        expect(listing(dir)).toEqual(["todo.txt"])
      }
      // An empty folder is fine: the bundle is written into it.
      fs.mkdirSync(path.join(p.dir, "empty"))
      expect(cli("evidence", "--out", "empty", "--json").code).toBe(0)
      expect(cli("evidence", "--verify", "empty").code).toBe(0)
    })

    it("evidence --out <earlier bundle>: CONFIRM_REQUIRED without --yes (bundle untouched); with --yes replaced and verifiable", () => {
      expect(cli("evidence", "--out", "ev", "--json").code).toBe(0)
      const manifest = path.join(p.dir, "ev", "manifest.json")
      const first = fs.readFileSync(manifest, "utf8")
      const r = cli("evidence", "--out", "ev", "--json")
      expect(r.code).toBe(1)
      expect(errorOf(r)).toMatchObject({ code: "CONFIRM_REQUIRED", param: "yes" })
      expect(errorOf(r).fix).toContain("--yes")
      expect(fs.readFileSync(manifest, "utf8")).toBe(first)
      const ok = cli("evidence", "--out", "ev", "--yes", "--json")
      expect(ok.code, ok.stdout).toBe(0)
      expect(fs.readFileSync(manifest, "utf8")).not.toBe(first)
      expect(listing(path.join(p.dir, "ev"))).toEqual([
        "changes.json",
        "dora.json",
        "manifest.json",
        "provenance.json",
        "ropa.json",
        "ropa.md"
      ])
      expect(cli("evidence", "--verify", "ev").code).toBe(0)
      expect(fs.readdirSync(p.dir).filter((f) => f.includes(".tmp") || f.includes(".old"))).toEqual([])
    })

    it("an earlier bundle with an unrelated file added: refused even with --yes (the file would be lost or mixed in)", () => {
      writeFile(path.join(p.dir, "ev"), "signature.pdf", "%PDF\n")
      const r = cli("evidence", "--out", "ev", "--yes", "--json")
      expect(errorOf(r)).toMatchObject({ code: "INVALID_PARAM", param: "out" })
      expect(errorOf(r).message).toContain("signature.pdf")
      expect(fs.readFileSync(path.join(p.dir, "ev", "signature.pdf"), "utf8")).toBe("%PDF\n")
    })
  })
})
