/**
 * Hard Rule #4, issue 12 part 7: no agent surface can confirm, seal, unlock, issue or revoke anything.
 * Every surface an agent (or anything without a human's session) can reach is tried:
 *   (a) every MCP tool of `catalog mcp` (real SDK client), with arguments that try to set things;
 *   (b) every route of `catalog open`'s API (from its OpenAPI document) with every method but GET/HEAD;
 *   (c) every route of `catalog serve-claim` with POST/PUT/PATCH/DELETE;
 *   (d) every route of the portal — the API's (from its OpenAPI document) and the claim page's (read from
 *       Server.ts's router, so a new route cannot be forgotten) — without a human's session and without a
 *       sync token: refused, and nothing stored (the store's tables counted before and after);
 *   (e) `catalog verify` without a terminal (todo until the verify command lands);
 *   (f) licences are issued and revoked only by `catalog admin` on the portal machine: no HTTP route does.
 * After (a)–(c) the catalog is unchanged: status, the RoPA and the provenance (seal) read the same.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { snapshotFileName } from "../../src/domain/Snapshot.js"
import { portalDbPath } from "../../src/layers/portal/PortalSql.js"
import { sessionCookie } from "../../src/programs/portal/Claims.js"
import { type Backend, type Portal, request, startTestPortal, upload } from "../programs/portal/harness.js"
import { binPath, repoRoot, runCli, spawnCli, tempProject } from "../utils/cli.js"
import { psql } from "../utils/databases.js"
import { sampleSnapshot } from "../utils/snapshots.js"

const project = tempProject("ldc-no-agent-")
const env = { APP_DB: path.join(project.dir, "app.db"), USER: "tester", CATALOG_PORTAL_URL: "" }
const cli = (...args: Array<string>) => runCli([...args, "--json"], { cwd: project.dir, env })

/** What an agent must not be able to move: status, the RoPA (legal fields and who confirmed them), the seal. */
const catalogState = () => {
  const read = (...args: Array<string>) => {
    const r = cli(...args)
    expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(0)
    const { generatedAt: _g, ...rest } = r.json as Record<string, unknown>
    return rest
  }
  return { status: read("status"), ropa: read("annotate", "list"), provenance: read("provenance") }
}

/** Arguments that try to set things; a read tool must ignore or refuse them. */
const writeAttempt = {
  confirm: true,
  confirmed: true,
  confirmedBy: "agent",
  status: "confirmed",
  value: "consent",
  field: "lawfulBasis",
  seal: "sealed",
  signer: { name: "Agent", role: "DPO" },
  licence: "lic_agent",
  acknowledgeOpenCalls: true,
  revoke: true,
  issue: true
}

const writeVerb =
  /\b(confirm|seal|sign|unlock|issue|revoke|pay|set|update|delete|remove|create|write|annotate|classify|verify|approve|accept)\b/i

let before: ReturnType<typeof catalogState>

beforeAll(() => {
  const db = new DatabaseSync(env.APP_DB)
  db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, full_name TEXT, birth_date DATE)")
  db.close()
  expect(cli("add", "sqlite", "--ref", "APP_DB", "--id", "app").code).toBe(0)
  expect(cli("start").code).toBe(0)
  before = catalogState()
}, 120_000)

afterAll(() => project.cleanup())

describe("(a) MCP: every tool is a read; write-shaped arguments change nothing", () => {
  it("lists only read tools, and calling each with write arguments leaves the catalog as it was", async () => {
    const client = new Client({ name: "no-agent-path", version: "0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [binPath, "mcp"],
        env: {
          PATH: process.env["PATH"] ?? "",
          CATALOG_DATA: path.join(project.dir, ".catalog"),
          CATALOG_CONFIG: path.join(project.dir, "catalog.yml")
        },
        cwd: project.dir,
        stderr: "pipe"
      })
    )
    try {
      const { tools } = await client.listTools()
      expect(tools.length).toBeGreaterThan(0)
      for (const tool of tools) {
        expect(tool.name, tool.name).toMatch(/^(get|search)_/)
        expect(tool.name).not.toMatch(writeVerb)
        // a description may name a human act only to say the tool cannot do it ("only a named human can confirm")
        for (const sentence of (tool.description ?? "").split(/(?<=\.)\s+/)) {
          if (/\b(confirm|seal|sign|unlock|issue|revoke|pay)\b/i.test(sentence)) {
            expect(sentence, tool.name).toMatch(/\b(only a named human|read-only|no|not|never|cannot)\b/i)
          }
        }
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true)
        const plain = tool.name === "get_dataset" ? { id: "app/main/users" } : tool.name === "search_datasets"
          ? { q: "email" }
          : {}
        const result = await client.callTool({ name: tool.name, arguments: { ...plain, ...writeAttempt } }).then(
          (r) => r as CallToolResult,
          (e: unknown) => ({ isError: true, content: [{ type: "text" as const, text: String(e) }] }) as CallToolResult
        )
        // refused or answered as a read: either way no write happened (checked below)
        if (result.isError !== true) expect(JSON.stringify(result.structuredContent ?? {})).not.toContain("sealed")
      }
    } finally {
      await client.close()
    }
    expect(catalogState()).toEqual(before)
  }, 120_000)
})

const pathWithParams = (p: string): string => p.replace(/\{[^}]+\}/g, "x").replace(/:[A-Za-z]+/g, "x")

const writeMethods = ["POST", "PUT", "PATCH", "DELETE"] as const

/** The server's own spawn, resolved on its first JSON line. */
const serveJson = (args: ReadonlyArray<string>, cwd: string, extraEnv: Record<string, string> = {}) =>
  new Promise<{ readonly child: ChildProcess; readonly url: string }>((resolve, reject) => {
    const child = spawnCli([...args, "--json"], { cwd, env: { ...env, ...extraEnv } })
    let out = ""
    let err = ""
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start: ${err}`)), 30_000)
    child.stderr!.on("data", (b: Buffer) => (err += b.toString("utf8")))
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString("utf8")
      const line = out.split("\n").find((l) => l.trim().startsWith("{"))
      if (line === undefined || !out.includes("\n")) return
      clearTimeout(timer)
      resolve({ child, url: (JSON.parse(line) as { url: string }).url })
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(" ")} exited ${code}: ${out} ${err}`))
    })
  })

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

describe("(b) catalog open: the read API has no write verb", () => {
  it("every route of its OpenAPI document refuses POST/PUT/PATCH/DELETE (404/405), and nothing changed", async () => {
    const server = await serveJson(["open", "--port", "0"], project.dir)
    try {
      const doc = (await request(server.url, "/api/v1/openapi.json")).json as {
        paths: Record<string, Record<string, unknown>>
      }
      const paths = Object.keys(doc.paths)
      expect(paths.length).toBeGreaterThan(5)
      for (const p of paths) {
        expect(Object.keys(doc.paths[p]!).filter((m) => !["get", "head", "parameters"].includes(m)), p).toEqual([])
        for (const method of writeMethods) {
          const r = await request(server.url, pathWithParams(p), {
            method,
            headers: { "content-type": "application/json" },
            body: JSON.stringify(writeAttempt)
          })
          expect([404, 405], `${method} ${p}: ${r.status} ${r.body}`).toContain(r.status)
        }
      }
      for (const method of writeMethods) {
        for (const p of ["/", "/api/v1", "/api/v1/ropa", "/api/v1/seal", "/api/v1/compliance/confirm"]) {
          const r = await request(server.url, p, { method, body: "{}" })
          expect([404, 405], `${method} ${p}`).toContain(r.status)
        }
      }
    } finally {
      await stop(server.child)
    }
    expect(catalogState()).toEqual(before)
  }, 120_000)
})

/** The claim page's router routes, read from the portal's Server.ts (the one place they are declared). */
const claimRoutes = (): Array<{ readonly method: string; readonly path: string }> => {
  const source = fs.readFileSync(path.join(repoRoot, "src", "programs", "portal", "Server.ts"), "utf8")
  return [...source.matchAll(/router\.(get|post|put|patch|del|delete)\(\s*"([^"]+)"/g)].map((m) => ({
    method: m[1]!.toUpperCase(),
    path: m[2]!
  }))
}

describe("(c) serve-claim: the local claim page takes no write", () => {
  it(
    "every claim route and the seal, controller and DORA forms refuse POST/PUT/PATCH/DELETE (404/405)",
    async () => {
      const dir = fs.mkdtempSync(path.join(project.dir, "serve-"))
      fs.mkdirSync(path.join(dir, ".catalog"))
      const snapshotFile = path.join(dir, ".catalog", snapshotFileName)
      fs.writeFileSync(snapshotFile, JSON.stringify(sampleSnapshot()))
      const snapshotBefore = fs.readFileSync(snapshotFile, "utf8")
      const server = await serveJson(["serve-claim", "--port", "0"], dir)
      try {
        const claimPath = new URL(server.url).pathname
        const token = claimPath.split("/").find((s) => s.startsWith("clm_")) ?? "x"
        const routes = [
          ...claimRoutes().map((r) => r.path),
          "/claim/:token/seal",
          "/claim/:token/licence",
          "/api/portal/v1/sync/seal",
          "/api/portal/v1/snapshots",
          claimPath
        ]
        for (const p of new Set(routes)) {
          for (const method of writeMethods) {
            const r = await request(server.url, p.replace(":token", token), {
              method,
              headers: {
                "content-type": "application/x-www-form-urlencoded",
                origin: new URL(server.url).origin,
                "sec-fetch-site": "same-origin"
              },
              body: "name=Agent&role=DPO&acknowledgeOpenCalls=on&acceptedTerms=1&contact=a%40b.c"
            })
            // serve-claim is read-only: it has no form handler at all
            expect([404, 405], `${method} ${p}: ${r.status} ${r.body.slice(0, 200)}`).toContain(r.status)
          }
        }
      } finally {
        await stop(server.child)
      }
      expect(fs.readFileSync(snapshotFile, "utf8")).toBe(snapshotBefore)
      expect(fs.readdirSync(path.join(dir, ".catalog")).filter((f) => f.startsWith("sealed"))).toEqual([])
    },
    120_000
  )
})

describe.each<Backend>(["sqlite", "postgres"])(
  "(d) the portal (%s): no write without a human's session or a sync token",
  (backend) => {
    let portal: Portal
    let claimPath: string
    const tables = [
      "claims",
      "snapshots",
      "sessions",
      "seals",
      "seal_artifacts",
      "licences",
      "sync_tokens",
      "dora_fills"
    ]
    /** Rows per table, read from the store's own database. */
    const counts = async (): Promise<Record<string, number>> => {
      if (portal.where.databaseUrl !== null) {
        const database = new URL(portal.where.databaseUrl).pathname.slice(1)
        const out = await Effect.runPromise(
          psql(database, tables.map((t) => `SELECT '${t}', count(*) FROM ${t};`).join("\n"))
        )
        return Object.fromEntries(
          out.trim().split("\n").map((line) => {
            const [t, n] = line.split("|")
            return [t!, Number(n)]
          })
        )
      }
      const db = new DatabaseSync(portalDbPath(portal.where.home), { readOnly: true })
      try {
        return Object.fromEntries(
          tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n])
        )
      } finally {
        db.close()
      }
    }

    beforeAll(async () => {
      portal = await startTestPortal(backend, { CATALOG_INGEST_RATE_LIMIT: "1000" })
      const receipt = (await upload(portal, sampleSnapshot())).json as { claimUrl: string }
      claimPath = new URL(receipt.claimUrl).pathname
    }, 60_000)
    afterAll(async () => {
      await portal.close()
    })

    it(
      "every API route but the ingest refuses a write without a sync token; every claim POST without a session",
      async () => {
        const start = await counts()
        expect(start["claims"]).toBe(1)
        const doc = (await request(portal.url, "/api/portal/v1/openapi.json")).json as {
          paths: Record<string, Record<string, unknown>>
        }
        const apiPaths = Object.keys(doc.paths)
        expect(apiPaths).toContain("/api/portal/v1/sync/seal")
        const token = claimPath.split("/").pop()!
        const attempts: Array<{ method: string; path: string }> = []
        for (const p of apiPaths) {
          // the ingest is the invite's upload: it creates a draft claim and nothing else (tested in Ingest.test.ts)
          if (p === "/api/portal/v1/snapshots") continue
          for (const method of writeMethods) {
            attempts.push({ method, path: pathWithParams(p).replace("/x", `/${token}`) })
          }
        }
        // the claim page's routes are declared in Server.ts; if they move, this reading must follow them
        expect(claimRoutes().filter((r) => r.method === "POST").length).toBeGreaterThanOrEqual(7)
        for (const r of [...claimRoutes(), { method: "POST", path: "/claim/:token/seal" }]) {
          for (const method of writeMethods) attempts.push({ method, path: r.path.replace(":token", token) })
        }
        const sealRequest = {
          licence: "lic_agent",
          signer: { name: "Agent", role: "DPO", email: null },
          acceptedTerms: null,
          acknowledgeOpenCalls: true,
          snapshotSha256: "0".repeat(64)
        }
        const seen: Array<string> = []
        for (const a of attempts) {
          const json = a.path.startsWith("/api/")
          const r = await request(portal.url, a.path, {
            method: a.method,
            headers: json
              ? { "content-type": "application/json" }
              : {
                // what a browser on the portal's own page sends: past the same-origin check, so only the
                // missing session stops it
                "content-type": "application/x-www-form-urlencoded",
                origin: portal.url,
                referer: `${portal.url}${claimPath}`,
                "sec-fetch-site": "same-origin"
              },
            body: json
              ? JSON.stringify({ ...writeAttempt, ...sealRequest })
              : "name=Agent&role=DPO&contact=a%40b.c&acknowledgeOpenCalls=on&code=000000"
          })
          seen.push(`${a.method} ${a.path.replace(token, ":token")} ${r.status}`)
          // POST /claim/:token/code mails a sign-in code to the claim's own recipient (the human's step), and
          // POST /claim/:token/open on a claim bound to a recipient only sends back to the page: 303, no session
          const redirects = a.method === "POST" && (a.path.endsWith("/code") || a.path.endsWith("/open"))
          const allowed = redirects ? [303] : [400, 401, 403, 404, 405, 409, 422]
          expect(String(r.headers["set-cookie"] ?? ""), `${a.method} ${a.path}`).not.toContain(sessionCookie)
          expect(allowed, `${a.method} ${a.path}: ${r.status} ${r.body.slice(0, 200)}`).toContain(r.status)
        }
        expect(seen).toContain("POST /api/portal/v1/sync/seal 401")
        expect(seen).toContain("POST /api/portal/v1/sync/snapshots 401")
        // a wrong sign-in code is refused as such; the forms that change the record need the session
        expect(seen).toContain("POST /claim/:token/verify 400")
        for (const form of ["controller", "dora", "sync-tokens", "sync-tokens/revoke"]) {
          expect(seen.find((l) => l.startsWith(`POST /claim/:token/${form} `)), form).toMatch(/ 40[13]$/)
        }
        expect(await counts()).toEqual(start)
      },
      120_000
    )

    it("(f) no HTTP route issues or revokes a licence: the only licence route is GET /licences/revoked", async () => {
      const doc = (await request(portal.url, "/api/portal/v1/openapi.json")).json as {
        paths: Record<string, Record<string, unknown>>
      }
      const licenceRoutes = Object.entries(doc.paths).filter(([p]) => /licen[cs]e/i.test(p))
      expect(licenceRoutes.map(([p, ops]) => [p, Object.keys(ops).filter((m) => m !== "parameters")])).toEqual([
        ["/api/portal/v1/licences/revoked", ["get"]]
      ])
      expect(claimRoutes().filter((r) => /licen[cs]e|issue|revoke/i.test(r.path) && !r.path.includes("sync-tokens")))
        .toEqual([])
      // and `catalog admin licence` is where they are issued and revoked
      const help = runCli(["admin", "licence", "--help", "--json"], { cwd: project.dir, env })
      expect(help.stdout).toMatch(/issue/)
      expect(help.stdout).toMatch(/revoke/)
    })
  }
)

describe("(e) catalog verify off a terminal", () => {
  /** `verify` lands with the "verify" helper's branch; until it is in the command tree this is skipped. */
  const hasVerify = (): boolean =>
    (JSON.parse(runCli(["help", "--json"], { cwd: project.dir, env }).stdout) as {
      commands: Array<{ name: string }>
    }).commands.some((c) => c.name === "verify")

  it.runIf(hasVerify())(
    "piped stdin, CI=1 and --non-interactive: refused with a coded error, nothing sealed (signing is a human act)",
    () => {
      const ways: Array<{ readonly args: Array<string>; readonly env: Record<string, string> }> = [
        { args: [], env: {} }, // spawnSync: stdin and stdout are pipes, never a terminal
        { args: [], env: { CI: "1" } },
        { args: ["--non-interactive"], env: {} }
      ]
      for (const way of ways) {
        const r = runCli(["verify", "--seal-with-open-calls", ...way.args, "--json"], {
          cwd: project.dir,
          env: { ...env, ...way.env, CATALOG_SIGNER_NAME: "Agent", CATALOG_SIGNER_ROLE: "DPO" }
        })
        expect(r.code, `${JSON.stringify(way)}: ${r.stdout}${r.stderr}`).not.toBe(0)
        expect((r.json as { error?: { code?: string } }).error?.code).toMatch(/^[A-Z][A-Z_]+$/)
      }
      expect(catalogState()).toEqual(before)
      expect(fs.existsSync(path.join(project.dir, ".catalog", "sealed"))).toBe(false)
    }
  )
})
