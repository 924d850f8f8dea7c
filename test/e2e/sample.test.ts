/**
 * `npm run sample` keeps the sample in a workspace of its own (its catalog.yml, .env and .catalog/),
 * so the user's real databases never join the sample's invented controller, and the sample never
 * writes into the project's catalog.yml, .env or .catalog/. `npm run sample -- <command>` runs any
 * command against the sample. The script runs here with SAMPLE_WORKSPACE in a temporary folder and
 * the working folder in another (the "project"), so the repository's real folders are never touched.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, type CliResult, repoRoot, runCli, tempProject, writeFile } from "../utils/cli.js"

const script = path.join(repoRoot, "scripts", "sample.mjs")

describe("npm run sample: a workspace of its own", () => {
  const t = tempProject("ldc-sample-")
  const workspace = path.join(t.dir, "workspace")
  const project = path.join(t.dir, "project")
  const sample = (args: ReadonlyArray<string>, env: Record<string, string> = {}): CliResult => {
    const r = spawnSync(process.execPath, [script, ...args], {
      cwd: project,
      env: baseEnv({ SAMPLE_WORKSPACE: workspace, ...env }),
      encoding: "utf8",
      timeout: 120_000
    })
    let json: unknown
    try {
      json = JSON.parse(r.stdout)
    } catch {
      json = undefined
    }
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json }
  }
  const files = (dir: string): Array<string> => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [])

  beforeAll(() => {
    fs.mkdirSync(project)
  })
  afterAll(() => t.cleanup())

  it("plain `sample` scans the bundled sources in the workspace, and writes nothing in the working folder", () => {
    const r = sample([])
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0)
    expect(r.stdout).toContain("npm run sample -- status")
    expect(files(workspace)).toEqual(
      expect.arrayContaining([".catalog", ".env", "catalog.yml", "hr-dictionary.csv", "shop.db"])
    )
    expect(fs.existsSync(path.join(workspace, ".catalog", "index.db"))).toBe(true)
    expect(files(project)).toEqual([])
  })

  it("`sample -- --json` is start as JSON; `sample -- <command>` runs that command against the sample", () => {
    const start = sample(["--json"])
    expect(start.code, start.stderr).toBe(0)
    expect(start.json).toMatchObject({ coverage: { complete: true } })
    const status = sample(["status", "--json"])
    expect(status.code, status.stderr).toBe(0)
    expect((status.json as { datasets: number }).datasets).toBeGreaterThan(0)
    const search = sample(["search", "email", "--json"])
    expect(search.code, search.stderr).toBe(0)
    expect((search.json as { hits: Array<unknown> }).hits.length).toBeGreaterThan(0)
    const show = sample(["show", "shop/main/patients", "--json"])
    expect(show.code, show.stderr).toBe(0)
    expect(files(project)).toEqual([])
  })

  it("`catalog add postgres` in the project creates the project's own catalog.yml; the sample's config is untouched", () => {
    const before = fs.readFileSync(path.join(workspace, "catalog.yml"), "utf8")
    const r = runCli(["add", "postgres", "--ref", "X", "--json"], { cwd: project })
    expect(r.code, r.stdout).toBe(0)
    expect(fs.readFileSync(path.join(workspace, "catalog.yml"), "utf8")).toBe(before)
    const mine = fs.readFileSync(path.join(project, "catalog.yml"), "utf8")
    expect(mine).toContain("connectionRef: X")
    expect(mine).not.toContain("Sample Shop")
    expect(mine).not.toContain("SAMPLE_SHOP_DB")
    // And the sample keeps scanning only its own two sources.
    const again = sample(["sources", "--json"])
    expect((again.json as { sources: Array<{ id: string }> }).sources.map((s) => s.id)).toEqual(["shop", "hr"])
  })

  it("an inherited CATALOG_CONFIG / CATALOG_DATA never points the sample at the user's catalog", () => {
    const config = path.join(project, "catalog.yml")
    const before = fs.readFileSync(config, "utf8")
    const r = sample(["--json"], { CATALOG_CONFIG: config, CATALOG_DATA: path.join(project, ".catalog") })
    expect(r.code, r.stderr).toBe(0)
    expect(fs.readFileSync(config, "utf8")).toBe(before)
    expect(fs.existsSync(path.join(project, ".catalog"))).toBe(false)
    expect((r.json as { sources: Array<{ id: string }> }).sources.map((s) => s.id).sort()).toEqual(["hr", "shop"])
  })

  it("a re-run keeps the workspace's edits (a source added to the sample stays) and rebuilds the database", () => {
    writeFile(workspace, "extra.csv", "table,column,type\nleads,email,text\n")
    const added = sample(["add", "manual", "--from", "extra.csv", "--id", "extra", "--yes", "--json"])
    expect(added.code, added.stdout).toBe(0)
    const r = sample(["--json"])
    expect(r.code, r.stderr).toBe(0)
    expect((r.json as { sources: Array<{ id: string }> }).sources.map((s) => s.id).sort()).toEqual([
      "extra",
      "hr",
      "shop"
    ])
    // The project holds only what its own `add` wrote (catalog.yml and the placeholder for X), nothing of the sample.
    expect(files(project)).toEqual([".env", "catalog.yml"])
    expect(fs.readFileSync(path.join(project, ".env"), "utf8")).not.toContain("SAMPLE_SHOP_DB")
  })
})
