/**
 * The CLI's global contract under inputs a user (or an agent) can type: rule 1 (`--json` gives JSON,
 * errors carry code and fix) for every input including usage errors and built-in flags; rule 2 (no
 * prompt, no hang off a TTY); exit codes 0/1/2/3; output never cut when stdout is a slow pipe; and the
 * small things a newcomer meets in the first hour.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, binPath, type CliResult, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string; readonly param?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

/** Runs the CLI with stdout on a pipe that nobody reads for `stallMs`, then drains it. */
const runThroughSlowPipe = (args: Array<string>, cwd: string, env: Record<string, string>, stallMs: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawnCli(args, { cwd, env })
    const out: Array<Buffer> = []
    let stderr = ""
    // Listen first, then stall: Node resumes (and drops) an exited child's unlistened stdout.
    child.stdout.on("data", (d: Buffer) => out.push(d))
    child.stdout.pause()
    setTimeout(() => child.stdout.resume(), stallMs)
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`timed out: catalog ${args.join(" ")}`))
    }, 60_000)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr })
    })
  })

describe("CLI contract", () => {
  const p = tempProject("ldc-contract-")
  const db = path.join(p.dir, "shop.db")
  const env = { SHOP_DB: db }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })

  beforeAll(() => {
    const d = new DatabaseSync(db)
    d.exec(
      "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, first_name TEXT); CREATE TABLE products (product_id INTEGER PRIMARY KEY, title TEXT)"
    )
    d.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "controller: { name: Test AG, contact: privacy@test.example }\nsources:\n  - { id: shop, kind: sqlite, driver: node:sqlite, connectionRef: SHOP_DB, region: eu-west-1 }\n"
    )
    expect(cli("start").code).toBe(0)
  })
  afterAll(() => p.cleanup())

  describe("rule 1: --json for every input, usage errors included (exit 2)", () => {
    it.each(["classify", "sources remove", "lineage", "glossary", "describe", "annotate", "dora"].map((g) => [g]))(
      "`%s` with no subcommand is a JSON usage error naming the subcommands",
      (group) => {
        const r = cli(...group.split(" "), "--json")
        expect(r.code).toBe(2)
        const e = errorOf(r)
        expect(e.code).toMatch(/^[A-Z_]+$/)
        expect(e.fix).toBeTruthy()
      }
    )

    it("a group alone names its subcommands, and has the group's own code where SPEC.md gives one", () => {
      const g = cli("glossary", "--json")
      expect(errorOf(g)).toMatchObject({ code: "INVALID_PARAM", param: "subcommand" })
      expect(errorOf(g).message).toContain("list, set")
      expect(errorOf(cli("dora", "--json")).code).toBe("DORA_INPUT_INVALID")
      expect(errorOf(cli("annotate", "--json")).code).toBe("ROPA_INPUT_INVALID")
      expect(errorOf(cli("classify", "--json")).code).toBe("CLASSIFY_INPUT_INVALID")
    })

    it("-h --json and --help --json print the command's help as JSON", () => {
      const one = cli("status", "-h", "--json")
      expect(one.code).toBe(0)
      expect(one.json).toMatchObject({ name: "status", usage: expect.stringMatching(/^catalog status/) })
      const sub = cli("classify", "set", "--help", "--json")
      expect(sub.json).toMatchObject({ name: "classify" })
      const all = cli("--help", "--json")
      expect(all.json).toMatchObject({ tool: "catalog", commands: expect.any(Array) })
    })

    it("`catalog` alone lists the commands (JSON with --json, exit 0)", () => {
      const r = cli("--json")
      expect(r.code).toBe(0)
      expect(r.json).toMatchObject({ tool: "catalog", commands: expect.any(Array) })
      expect(cli().stdout).toContain("start")
    })

    it("--version --json is JSON; --version alone is the bare version", () => {
      const r = cli("--version", "--json")
      expect(r.code).toBe(0)
      expect(r.json).toMatchObject({ tool: "catalog", version: expect.stringMatching(/^\d+\.\d+\.\d+/) })
      expect(cli("--version").stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    })

    it("usage errors without --json print the code, the message and a fix on stderr, and nothing on stdout", () => {
      for (
        const args of [["config", "foo"], ["add", "postgres", "--bogus", "x"], ["nope"], ["search", "--limit"], [
          "glossary"
        ]]
      ) {
        const r = cli(...args)
        expect(r.code, args.join(" ")).toBe(2)
        expect(r.stdout, args.join(" ")).toBe("")
        expect(r.stderr, args.join(" ")).toMatch(/^[A-Z_]+: .+\n {2}fix: .+/m)
      }
    })

    it("a flag the command does not take, or a value flag without its value, is a usage error naming it — never a search word", () => {
      const r = cli("search", "--bogus", "email", "--json")
      expect(r.code).toBe(2)
      expect(errorOf(r)).toMatchObject({ code: "INVALID_PARAM", param: "--bogus" })
      const typo = cli("glossary", "set", "Customer", "a buyer", "--dataset", "shop/main/customers", "--json")
      expect(typo.code).toBe(2)
      expect(errorOf(typo).param).toBe("--dataset")
      const noValue = cli("search", "email", "--limit", "--json")
      expect(noValue.code).toBe(2)
      expect(errorOf(noValue).param).toBe("--limit")
      expect(cli("search", "email", "--limit", "5", "--json").code).toBe(0)
      expect(cli("log", "--since=0", "--json").code).toBe(0)
    })

    it("`config foo` is CONFIG_INPUT_INVALID naming what it got, with the usage", () => {
      const r = cli("config", "foo", "--json")
      expect(r.code).toBe(2)
      expect(errorOf(r).code).toBe("CONFIG_INPUT_INVALID")
      expect(errorOf(r).message).toContain("foo")
      expect(errorOf(r).fix).toContain("catalog config")
      expect(errorOf(cli("config", "catalog-only", "maybe", "--json")).code).toBe("CONFIG_INPUT_INVALID")
      expect(cli("config", "catalog-only", "maybe", "--json").code).toBe(2)
    })
  })

  describe("exit codes", () => {
    it.each(
      [
        [["classify", "set"], "CLASSIFY_INPUT_INVALID"],
        [["classify", "set", "shop/main/customers/email"], "CLASSIFY_INPUT_INVALID"],
        [["classify", "clear"], "CLASSIFY_INPUT_INVALID"],
        [["annotate", "set"], "ROPA_INPUT_INVALID"],
        [["annotate", "set", "shop.customers"], "ROPA_INPUT_INVALID"],
        [["glossary", "set"], "GLOSSARY_TERM_UNKNOWN"],
        [["glossary", "set", "Customer"], "GLOSSARY_TERM_UNKNOWN"],
        [["lineage", "add", "shop/main/customers"], "LINEAGE_ENDPOINT_UNKNOWN"],
        [["lineage", "remove"], "INVALID_PARAM"],
        [["describe", "draft"], "DESCRIBE_ENTITY_UNKNOWN"],
        [["add"], "ADD_INPUT_INVALID"]
      ] as const
    )("a missing argument (%j) exits 2 with the command's own code %s", (args, code) => {
      const r = cli(...args, "--json")
      expect(errorOf(r).code).toBe(code)
      expect(r.code).toBe(2)
    })

    it("a domain error about the catalog's state (not the input's shape) still exits 1", () => {
      const r = cli("classify", "set", "shop/main/nope/x", "personal", "--json")
      expect(errorOf(r).code).toBe("DESCRIBE_ENTITY_UNKNOWN")
      expect(r.code).toBe(1)
    })
  })

  describe("rule 2: never a prompt or a hang off a TTY", () => {
    it("--wizard is refused under CI / --non-interactive / without a terminal, at once", () => {
      for (const extra of [{ CI: "1" }, {}]) {
        const t0 = Date.now()
        const r = runCli(["--wizard", "--non-interactive"], { cwd: p.dir, env: { ...env, ...extra } })
        expect(Date.now() - t0).toBeLessThan(15_000)
        expect(r.code).toBe(2)
        expect(r.stderr).toContain("--wizard")
      }
      const j = runCli(["start", "--wizard", "--json"], { cwd: p.dir, env: { ...env, CI: "1" } })
      expect(j.code).toBe(2)
      expect(errorOf(j)).toMatchObject({ code: "INVALID_PARAM", param: "--wizard" })
    })
  })

  describe("no input may hang", () => {
    it("a .env or catalog.yml that is a named pipe is refused at once, never read", () => {
      const q = tempProject("ldc-fifo-")
      try {
        spawnSync("mkfifo", [path.join(q.dir, ".env")])
        const t0 = Date.now()
        const r = runCli(["config", "--json"], { cwd: q.dir })
        expect(Date.now() - t0).toBeLessThan(15_000)
        expect(r.code).toBe(0)
        expect(r.stderr).toContain("not a regular file")
        spawnSync("mkfifo", [path.join(q.dir, "catalog.yml")])
        const t1 = Date.now()
        const c = runCli(["status", "--json"], { cwd: q.dir })
        expect(Date.now() - t1).toBeLessThan(15_000)
        expect(c.code).not.toBe(0)
        expect(errorOf(c).code).toMatch(/^CONFIG_|^MAP_NOT_FOUND$/)
        const s2 = runCli(["start", "--json"], { cwd: q.dir })
        expect(errorOf(s2).code).toBe("CONFIG_INVALID")
      } finally {
        q.cleanup()
      }
    })
  })

  describe("output is never cut when stdout is a pipe", () => {
    it("a large --json error (3,000 sources in doctor, exit 1) arrives whole through a pipe read late", async () => {
      const q = tempProject("ldc-bigout-")
      try {
        const lines = Array.from(
          { length: 3000 },
          (_, i) => `  - { id: s${i}, kind: postgres, driver: pg, connectionRef: NOT_SET_${i} }`
        )
        writeFile(q.dir, "catalog.yml", `sources:\n${lines.join("\n")}\n`)
        const r = await runThroughSlowPipe(["doctor", "--json"], q.dir, {}, 1500)
        expect(r.stdout.length).toBeGreaterThan(64 * 1024)
        const parsed = JSON.parse(r.stdout) as { ok: boolean }
        expect(parsed.ok).toBe(false)
        expect(r.code).toBe(1)
      } finally {
        q.cleanup()
      }
    })

    it("a large successful --json output arrives whole as well", async () => {
      const r = await runThroughSlowPipe(["help", "--json"], p.dir, env, 1000)
      expect(r.code).toBe(0)
      expect(() => JSON.parse(r.stdout) as unknown).not.toThrow()
    })

    it("a reader that closes the pipe early ends the process quietly (no EPIPE stack trace)", async () => {
      const child = spawnCli(["help", "--json"], { cwd: p.dir, env })
      let stderr = ""
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString()
      })
      child.stdout.once("data", () => child.stdout.destroy())
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)))
      expect(stderr).not.toContain("EPIPE")
      expect(code).toBe(0)
    })
  })

  describe("watch --ci: a moved core RoPA field outranks a failed webhook", () => {
    it("exits 3 and reports both the move and the failed delivery", () => {
      const d = new DatabaseSync(db)
      d.exec("ALTER TABLE customers ADD COLUMN date_of_birth DATE")
      d.close()
      // A port nothing listens on: the delivery fails.
      const r = runCli(["watch", "--ci", "--webhook", "http://127.0.0.1:9/hook", "--json"], { cwd: p.dir, env })
      expect(r.code).toBe(3)
      const out = r.json as { ropaMoved: Array<unknown>; webhook: { delivered: boolean; error: { code: string } } }
      expect(out.ropaMoved.length).toBeGreaterThan(0)
      expect(out.webhook).toMatchObject({ delivered: false, error: { code: "WEBHOOK_FAILED" } })
      const human = runCli(["watch", "--ci", "--webhook", "http://127.0.0.1:9/hook"], { cwd: p.dir, env })
      // Nothing moved on this second run: the failed delivery is the error (exit 1).
      expect(human.code).toBe(1)
      expect(human.stderr).toContain("WEBHOOK_FAILED")
    })
  })

  describe("the first hour", () => {
    it("corrections are signed with the OS account even when $USER is unset", () => {
      const bare = baseEnv(env)
      for (const k of ["USER", "LOGNAME", "USERNAME"]) delete bare[k]
      const child = spawnSync(process.execPath, [
        binPath,
        "classify",
        "set",
        "shop/main/products/title",
        "personal",
        "--json"
      ], { cwd: p.dir, env: bare, encoding: "utf8" })
      expect(child.status).toBe(0)
      expect((JSON.parse(child.stdout) as { by: string }).by).toBe(`os:${os.userInfo().username}`)
      expect(cli("classify", "clear", "shop/main/products/title").code).toBe(0)
    })

    it("help's one-line summaries end at a sentence, never mid-word or inside parentheses", () => {
      const r = cli("help")
      const summaries = r.stdout.split("\n").filter((l) => /^\S+\s{2,}\S/.test(l)).map((l) => l.replace(/^\S+\s+/, ""))
      expect(summaries.length).toBeGreaterThan(10)
      for (const s of summaries) {
        expect((s.match(/\(/g) ?? []).length, s).toBe((s.match(/\)/g) ?? []).length)
        expect(s, s).not.toMatch(/\b(Art|e\.g|i\.e)$/)
      }
    })

    it("search and show print column ids (`<dataset>/<column>`), as classify takes them", () => {
      const s = cli("search", "email", "--json")
      const hit = (s.json as { hits: Array<{ kind: string; id: string; title: string }> }).hits.find((h) =>
        h.kind === "column"
      )!
      expect(hit.title).toBe(hit.id)
      expect(hit.id).toBe("shop/main/customers/email")
      expect(cli("search", "email").stdout).toContain("shop/main/customers/email")
      expect(cli("show", "shop/main/customers").stdout).toContain("shop/main/customers/email")
    })

    it("sources tells a placeholder from a real secret", () => {
      const q = tempProject("ldc-placeholder-")
      try {
        const add = runCli(["add", "postgres", "--ref", "MY_PG_URL", "--json"], { cwd: q.dir })
        expect(add.code).toBe(0)
        const r = runCli(["sources", "--json"], { cwd: q.dir })
        expect((r.json as { sources: Array<{ secret: string; secretSet: boolean }> }).sources[0]).toMatchObject({
          secret: "placeholder",
          secretSet: false
        })
        expect(runCli(["sources"], { cwd: q.dir }).stdout).toContain("placeholder")
        expect(
          (runCli(["sources", "--json"], { cwd: q.dir, env: { MY_PG_URL: "postgres://x@127.0.0.1/db" } }).json as {
            sources: Array<{ secret: string }>
          }).sources[0]!.secret
        ).toBe("set")
      } finally {
        q.cleanup()
      }
    })

    it("a refused first start leaves no catalog behind: status still says there is none", () => {
      const q = tempProject("ldc-refused-")
      try {
        writeFile(
          q.dir,
          "catalog.yml",
          "sources:\n  - { id: app, kind: postgres, driver: pg, connectionRef: APP_URL }\n"
        )
        const r = runCli(["start", "--json"], { cwd: q.dir })
        expect(r.code).toBe(1)
        expect(fs.existsSync(path.join(q.dir, ".catalog", "index.db"))).toBe(false)
        expect(errorOf(runCli(["status", "--json"], { cwd: q.dir })).code).toBe("MAP_NOT_FOUND")
      } finally {
        q.cleanup()
      }
    })

    it("the coverage line reads well for one source", () => {
      const st = cli("status", "--json").json as { coverage: { line: string } }
      expect(st.coverage.line).toBe("The one configured source was reached.")
    })

    it("log names the person who made a correction once", () => {
      expect(
        runCli(["classify", "set", "shop/main/products/title", "personal"], {
          cwd: p.dir,
          env: { ...env, CATALOG_SIGNER_EMAIL: "dpo@test.example" }
        }).code
      ).toBe(0)
      const line = cli("log").stdout.split("\n").find((l) => l.includes("shop/main/products/title"))!
      expect(line.split("dpo@test.example").length - 1).toBe(1)
    })
  })
})
