/**
 * Every `catalog …` command that a message, a fix, a playbook or a doc tells a user to run must exist
 * in the built command tree — checked again on every run, so a fix text can never point at a command
 * that has not landed yet (or was renamed).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot, runCli } from "../utils/cli.js"

/** Every command path of the built CLI (`classify set`, `sources remove`, `status` …), from its own help. */
const commandPaths = (): Set<string> => {
  const r = runCli(["--help"], { cwd: repoRoot })
  expect(r.code).toBe(0)
  const paths = new Set<string>()
  for (const line of r.stdout.split("\n")) {
    const m = /^\s+- (.+)$/.exec(line)
    if (m === null) continue
    const words: Array<string> = []
    for (const w of m[1]!.trim().split(/\s+/)) {
      if (!/^[a-z][a-z-]*$/.test(w)) break
      words.push(w)
    }
    if (words.length > 0) paths.add(words.join(" "))
  }
  return paths
}

const walk = (dir: string, exts: ReadonlyArray<string>): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === "node_modules" ? [] : walk(p, exts)
    return exts.some((x) => e.name.endsWith(x)) ? [p] : []
  })

/** `catalog <word> [<word>]` as written inside backticks or quotes in a message or a doc. */
const referenced = (text: string): Array<{ readonly words: ReadonlyArray<string>; readonly at: string }> => {
  const out: Array<{ words: Array<string>; at: string }> = []
  for (
    const m of text.matchAll(/(?:`|^\s*(?:\$\s*)?)catalog ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)(?=[\s`'"<\\.,;)]|$)/gm)
  ) {
    out.push({ words: m[1]!.split(" "), at: text.slice(Math.max(0, m.index - 20), m.index + 60).replace(/\n/g, " ") })
  }
  return out
}

describe("messages point only at commands that exist", () => {
  const paths = commandPaths()
  const top = new Set([...paths].map((p) => p.split(" ")[0]!))
  const subsOf = (w: string) => [...paths].filter((p) => p.startsWith(`${w} `)).map((p) => p.split(" ")[1]!)
  // Groups whose own handler takes no positional argument: any second word must be a subcommand.
  const takesNoWord = new Set(["classify", "sources", "config", "lineage", "glossary", "describe", "annotate", "dora"])

  const problems = (file: string, text: string): Array<string> =>
    referenced(text).flatMap(({ at, words }) => {
      const [first, second] = words
      if (first === undefined) return []
      if (!top.has(first)) return [`${file}: \`catalog ${words.join(" ")}\` — no command "${first}" (…${at}…)`]
      if (second !== undefined && takesNoWord.has(first) && !subsOf(first).includes(second)) {
        return [`${file}: \`catalog ${first} ${second}\` — "${first}" has no subcommand "${second}" (…${at}…)`]
      }
      return []
    })

  it("finds the command tree (sanity)", () => {
    expect(paths.has("classify set")).toBe(true)
    expect(paths.has("sources remove")).toBe(true)
    expect(top.has("start")).toBe(true)
  })

  it("in every registry message and fix (help --json)", () => {
    const r = runCli(["help", "--json"], { cwd: repoRoot })
    const doc = r.json as {
      errors: Array<{ code: string; message: string; fix: string | null }>
      commands: Array<{ usage: string; summary: string; examples: Array<string> }>
    }
    const text = [
      ...doc.errors.flatMap((e) => [`${e.code}: ${e.message}`, e.fix ?? ""]),
      ...doc.commands.flatMap((c) => [c.summary, ...c.examples.map((x) => `\`${x}\``)])
    ].join("\n")
    expect(problems("help --json", text)).toEqual([])
  })

  it("in every string of the source, the playbooks and the docs", () => {
    // The registry's own texts are checked as `help --json` serves them (above): a fix that names a command
    // of a later release is replaced there until that command lands.
    const files = [
      ...walk(path.join(repoRoot, "src"), [".ts"]),
      ...walk(path.join(repoRoot, "docs"), [".md"]),
      path.join(repoRoot, "README.md")
    ]
      .filter((f) => !f.endsWith(path.join("src", "errors", "AppError.ts")))
    const found = files.flatMap((f) => problems(path.relative(repoRoot, f), fs.readFileSync(f, "utf8")))
    expect(found).toEqual([])
  })

  it("the checker itself catches a command that does not exist", () => {
    expect(problems("x", "fix: run `catalog connectors new <name>`")).toHaveLength(1)
    expect(problems("x", "fix: `catalog lineage prune`")).toHaveLength(1)
    expect(problems("x", "fix: `catalog lineage list --origin user`")).toEqual([])
  })
})
