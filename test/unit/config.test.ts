import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseConfigText } from "../../src/services/ConfigFile.js"
import * as fs from "node:fs"
import * as path from "node:path"

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
    const e = fail("version: 1\nsources:\n  - id: app\n    kind: postgres\n    driver: pg\n    connectionRef: 12 bad name\n")
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
    const e = fail("sources:\n  - {id: a, kind: sqlite, driver: node:sqlite, connectionRef: A}\n  - {id: a, kind: sqlite, driver: node:sqlite, connectionRef: B}\n")
    expect(e.message).toContain("used twice")
    expect(e.message).toContain("catalog.yml:3")
  })
})
