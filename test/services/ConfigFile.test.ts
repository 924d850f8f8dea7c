import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseConfigText } from "../../src/services/ConfigFile.js"

const fail = (text: string) => {
  const r = parseConfigText(text, "catalog.yml")
  if (Either.isRight(r)) throw new Error("expected a failure")
  return r.left
}

describe("catalog.yml validation", () => {
  it("accepts the documented example", () => {
    const text = fs.readFileSync(path.resolve(import.meta.dirname, "../../catalog.yml.example"), "utf8")
    const r = parseConfigText(text, "catalog.yml.example")
    expect(Either.isRight(r)).toBe(true)
    if (Either.isRight(r)) expect(r.right.sources.map((s) => s.kind)).toEqual(["postgres", "mysql", "sqlite", "manual"])
  })

  it("names the bad key and its line", () => {
    const e = fail(
      "version: 1\nsources:\n  - id: app\n    kind: postgres\n    driver: pg\n    connectionRef: 12 bad name\n"
    )
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toContain("catalog.yml:6")
    expect(e.message).toContain("sources.0.connectionRef")
  })

  it("refuses an unknown top-level key with its line", () => {
    const e = fail("version: 1\nsources: []\nsoruces: []\n")
    expect(e.message).toContain("catalog.yml:3")
    expect(e.message).toContain("soruces")
  })

  it("refuses an unknown key inside a source", () => {
    const e = fail("sources:\n  - id: a\n    kind: postgres\n    driver: pg\n    password: hunter2\n")
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toContain("password")
    expect(e.message).not.toContain("hunter2")
  })

  it("reports YAML syntax errors with a line", () => {
    const e = fail("sources:\n  - id: a\n   kind: [\n")
    expect(e.message).toMatch(/catalog\.yml:\d+: YAML syntax error/)
  })

  it("refuses a duplicate source id", () => {
    const e = fail(
      "sources:\n  - {id: a, kind: sqlite, driver: node:sqlite, connectionRef: A}\n  - {id: a, kind: sqlite, driver: node:sqlite, connectionRef: B}\n"
    )
    expect(e.message).toContain("used twice")
    expect(e.message).toContain("catalog.yml:3")
  })
})

describe("catalog.yml: YAML a user can type never crashes the reader (CONFIG_INVALID naming the line)", () => {
  const laughs = [
    "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
    ""
  ].join("\n")

  it("an alias bomb (billion laughs) is refused at the line where expansion passes the bound, without expanding it", () => {
    const t0 = performance.now()
    const e = fail(laughs)
    expect(performance.now() - t0).toBeLessThan(2000)
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toMatch(/^catalog\.yml:5: aliases expand/)
  })

  it("a bomb hidden inside a source's key is refused the same way", () => {
    const e = fail(
      `sources:\n  - id: app\n    kind: postgres\n    driver: pg\n    connectionRef: A\n    schemas: &x [${
        Array.from({ length: 400 }, () => "a").join(", ")
      }]\n  - id: b\n    kind: postgres\n    driver: pg\n    connectionRef: B\n    schemas: [${
        Array.from({ length: 30 }, () => "*x").join(", ")
      }]\n`
    )
    expect(e.message).toMatch(/^catalog\.yml:11: aliases expand/)
  })

  it("an alias with no anchor names its line", () => {
    const e = fail("version: 1\nsources:\n  - id: *nowhere\n    kind: sqlite\n")
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toContain("catalog.yml:3")
    expect(e.message).toContain("*nowhere")
    // A modest alias that resolves is still fine.
    const r = parseConfigText(
      "sources:\n  - { id: a, kind: postgres, driver: pg, connectionRef: A, region: &r eu-west-1 }\n  - { id: b, kind: postgres, driver: pg, connectionRef: B, region: *r }\n",
      "catalog.yml"
    )
    expect(Either.isRight(r)).toBe(true)
  })

  it("an alias used before its anchor names its line", () => {
    const e = fail("controller:\n  name: *n\n  contact: &n privacy@example.com\n")
    expect(e.message).toContain("catalog.yml:2")
  })

  it("an alias inside its own anchor (a cycle) names its line", () => {
    const e = fail("controller:\n  name: x\nsources: &s\n  - *s\n")
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toMatch(/^catalog\.yml:4: .*\*s sits inside its own anchor/)
  })

  it("nesting deeper than any real configuration is refused with a line", () => {
    const e = fail(`controller:\n  name: ${"[".repeat(40)}${"]".repeat(40)}\n`)
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toMatch(/^catalog\.yml:2: nested more than \d+ levels/)
  })

  it("a file larger than the bound is refused before it is parsed", () => {
    const e = fail(`# ${"x".repeat(1024 * 1024)}\nsources: []\n`)
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.message).toMatch(/^catalog\.yml:1: .*larger than/)
  })
})

describe("catalog.yml: every key whose value cannot work is refused, naming the key and its line", () => {
  const source = (lines: ReadonlyArray<string>) =>
    ["version: 1", "sources:", "  - id: app", ...lines.map((l) => `    ${l}`), ""].join("\n")
  const refused = (text: string, key: string, line: number, ...words: ReadonlyArray<string>) => {
    const e = fail(text)
    expect(e.code).toBe("CONFIG_INVALID")
    expect(e.param).toBe(key)
    expect(e.message.startsWith(`catalog.yml:${line}: ${key}:`), e.message).toBe(true)
    for (const w of words) expect(e.message).toContain(w)
    return e
  }

  it("every built-in kind with another kind's driver", () => {
    const drivers: Record<string, string> = {
      postgres: "pg",
      mysql: "mysql2",
      sqlite: "node:sqlite",
      manual: "csv",
      dbt: "dbt-manifest"
    }
    for (const [kind, own] of Object.entries(drivers)) {
      for (const [, other] of Object.entries(drivers).filter(([k]) => k !== kind)) {
        const e = refused(
          source([`kind: ${kind}`, `driver: ${other}`, "connectionRef: A"]),
          "sources.0.driver",
          5,
          kind,
          own
        )
        expect(e.message).toContain(`"${other}"`)
      }
      refused(source([`kind: ${kind}`, "driver: jdbc", "connectionRef: A"]), "sources.0.driver", 5, "jdbc")
    }
    // Each kind with its own driver, in its documented form, is still accepted (and a user-authored kind's driver is its own business).
    const text = [
      "sources:",
      "  - { id: pg, kind: postgres, driver: pg, connectionRef: A, schemas: [public] }",
      "  - { id: my, kind: mysql, driver: mysql2, connectionRef: B }",
      "  - { id: lite, kind: sqlite, driver: node:sqlite, connectionRef: C }",
      "  - { id: dict, kind: manual, driver: csv, path: d.csv }",
      "  - { id: dbt, kind: dbt, driver: dbt-manifest, path: m.json, target: pg }",
      "  - { id: mine, kind: my-connector, driver: whatever, connectionRef: D }",
      ""
    ].join("\n")
    const r = parseConfigText(text, "catalog.yml")
    expect(Either.isRight(r), Either.isLeft(r) ? r.left.message : "").toBe(true)
  })

  it("a postgres source with driver mysql2 (the reported case)", () => {
    refused(
      source(["kind: postgres", "driver: mysql2", "connectionRef: PG_URL"]),
      "sources.0.driver",
      5,
      "a postgres source uses driver pg"
    )
  })

  it("source ids that differ only in case", () => {
    const text =
      "sources:\n  - { id: app, kind: postgres, driver: pg, connectionRef: A }\n  - { id: App, kind: postgres, driver: pg, connectionRef: B }\n"
    refused(text, "sources.1.id", 3, "\"App\"", "\"app\"", "case")
    const three =
      "sources:\n  - { id: shop, kind: postgres, driver: pg, connectionRef: A }\n  - { id: crm, kind: postgres, driver: pg, connectionRef: B }\n  - { id: SHOP, kind: mysql, driver: mysql2, connectionRef: C }\n"
    refused(three, "sources.2.id", 4, "SHOP")
  })

  it("schemas: [] (an empty list would scan nothing), and an empty schema name", () => {
    refused(
      source(["kind: postgres", "driver: pg", "connectionRef: A", "schemas: []"]),
      "sources.0.schemas",
      7,
      "scans nothing"
    )
    refused(
      source(["kind: mysql", "driver: mysql2", "connectionRef: A", "schemas: [shop, \"\"]"]),
      "sources.0.schemas.1",
      7,
      "empty"
    )
  })

  it("a key the kind needs is missing (named at the source's line)", () => {
    refused(source(["kind: postgres", "driver: pg"]), "sources.0.connectionRef", 3, "connectionRef")
    refused(source(["kind: sqlite", "driver: node:sqlite"]), "sources.0.connectionRef", 3, "connectionRef")
    refused(source(["kind: manual", "driver: csv"]), "sources.0.path", 3, "path")
    refused(source(["kind: dbt", "driver: dbt-manifest", "target: wh"]), "sources.0.path", 3, "manifest")
    refused(
      source(["kind: dbt", "driver: dbt-manifest", "path: target/manifest.json"]),
      "sources.0.target",
      3,
      "warehouse"
    )
  })

  it("a key the kind never reads (it would silently do nothing)", () => {
    refused(
      source(["kind: postgres", "driver: pg", "connectionRef: A", "path: db.csv"]),
      "sources.0.path",
      7,
      "does not apply"
    )
    refused(
      source(["kind: mysql", "driver: mysql2", "connectionRef: A", "target: wh"]),
      "sources.0.target",
      7,
      "does not apply"
    )
    refused(
      source(["kind: sqlite", "driver: node:sqlite", "connectionRef: A", "schemas: [main]"]),
      "sources.0.schemas",
      7,
      "postgres, mysql"
    )
    refused(
      source(["kind: manual", "driver: csv", "path: d.csv", "schemas: [x]"]),
      "sources.0.schemas",
      7,
      "does not apply"
    )
  })

  it("empty path and target values", () => {
    refused(source(["kind: manual", "driver: csv", "path: \"\""]), "sources.0.path", 6, "empty")
    refused(source(["kind: manual", "driver: csv", "path: \"  \""]), "sources.0.path", 6, "empty")
  })

  it("a dbt target that is not a configured warehouse source", () => {
    const text = (target: string) =>
      `sources:\n  - { id: wh, kind: postgres, driver: pg, connectionRef: A }\n  - id: dbt\n    kind: dbt\n    driver: dbt-manifest\n    path: target/manifest.json\n    target: ${target}\n`
    refused(text("nowhere"), "sources.1.target", 7, "\"nowhere\"", "wh")
    refused(text("dbt"), "sources.1.target", 7, "itself a dbt source")
    expect(Either.isRight(parseConfigText(text("wh"), "catalog.yml"))).toBe(true)
  })
})
