/**
 * `catalog mcp` end to end, on a catalog the built CLI scanned from a SQLite file:
 * - the SDK's real `Client` over `StdioClientTransport` spawning the built bin (C);
 * - a raw JSON-RPC line driver for the exact wire objects and stdout purity (R);
 * - the MCP Inspector's CLI mode as an independent client (I);
 * - process and file checks (S).
 * The whole suite runs twice: plainly, and with a preload that makes any socket, DNS lookup or
 * fetch throw. Bracketed numbers refer to the conformance checklist in research/mcp.md §6.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv"
import { Effect, Layer, Schema } from "effect"
import { type ChildProcessWithoutNullStreams, execFile, spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import { DatabaseSync } from "node:sqlite"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ChangeList, Dataset, LineageList, SearchResult } from "../../src/domain/Catalog.js"
import { DoraState, Glossary, Provenance, RopaDraft } from "../../src/domain/Compliance.js"
import { toErrorBody } from "../../src/errors/index.js"
import { ReadLive } from "../../src/layers/Main.js"
import { NodeFilesLive } from "../../src/layers/NodeFiles.js"
import { hardRule4 } from "../../src/programs/mcp/skill.js"
import { AppEnv } from "../../src/services/AppEnv.js"
import { ConfigFile } from "../../src/services/ConfigFile.js"
import { Reader } from "../../src/services/Reader.js"
import { binPath, repoRoot, runCli, tempProject, writeFile } from "../utils/cli.js"

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  name: string
  version: string
}
const preload = pathToFileURL(path.join(repoRoot, "test", "utils", "no-network.mjs")).href
const toolNames = [
  "search_datasets",
  "get_dataset",
  "get_lineage",
  "get_compliance_state",
  "get_provenance",
  "get_changes",
  "get_glossary",
  "get_dora"
]
const domainSchemas: Record<string, Schema.Schema.AnyNoContext> = {
  search_datasets: SearchResult,
  get_dataset: Dataset,
  get_lineage: LineageList,
  get_compliance_state: RopaDraft,
  get_provenance: Provenance,
  get_changes: ChangeList,
  get_glossary: Glossary,
  get_dora: DoraState
}
/** One valid call per tool, on the fixture. */
const sampleArgs: Record<string, Record<string, unknown>> = {
  search_datasets: { q: "email" },
  get_dataset: { id: "shop/main/customers" },
  get_lineage: {},
  get_compliance_state: {},
  get_provenance: {},
  get_changes: { since: 0 },
  get_glossary: {},
  get_dora: {}
}
/** Fields that carry the time of the request, not catalog content. */
const withoutClock = (v: unknown): unknown => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v
  const { generatedAt: _g, ...rest } = v as Record<string, unknown>
  return rest
}

// ── The fixture: a SQLite database scanned twice by the built CLI, with a human correction ────
const project = tempProject("ldc-mcp-")
const fixture = {
  dir: project.dir,
  dataDir: path.join(project.dir, ".catalog"),
  config: path.join(project.dir, "catalog.yml"),
  db: path.join(project.dir, "shop.db")
}
const cliEnv = { SHOP_DB: fixture.db, USER: "tester", CATALOG_SIGNER_EMAIL: "dpo@example.com" }
/** Where the "AI application" starts servers from: not the project folder, so the env must carry the paths. */
const appCwd = tempProject("ldc-mcp-app-")
const scratch = tempProject("ldc-mcp-scratch-")

const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex")
const dataState = () => ({
  hash: sha(path.join(fixture.dataDir, "index.db")),
  mtime: fs.statSync(path.join(fixture.dataDir, "index.db")).mtimeMs,
  files: fs.readdirSync(fixture.dataDir).sort()
})
let before: ReturnType<typeof dataState>

const cli = (args: ReadonlyArray<string>, cwd = fixture.dir, env: Record<string, string | undefined> = cliEnv) => {
  const r = runCli(args, { cwd, env })
  if (r.code !== 0) throw new Error(`catalog ${args.join(" ")} exited ${r.code}: ${r.stdout}${r.stderr}`)
  return r
}

beforeAll(() => {
  const db = new DatabaseSync(fixture.db)
  db.exec(`
    CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT, birth_date DATE, notes TEXT, created_at TIMESTAMP);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total_cents INTEGER, ordered_at TIMESTAMP);
    CREATE VIEW big_orders AS SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total_cents > 10000;
  `)
  db.close()
  cli(["add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--json"])
  cli(["start", "--json"])
  cli(["classify", "set", "shop/main/customers/notes", "special", "--json"])
  const db2 = new DatabaseSync(fixture.db)
  db2.exec(
    "ALTER TABLE customers ADD COLUMN phone TEXT; CREATE TABLE newsletter (email TEXT, subscribed_at TIMESTAMP);"
  )
  db2.close()
  cli(["start", "--json"])
  before = dataState()
})

afterAll(() => {
  project.cleanup()
  appCwd.cleanup()
  scratch.cleanup()
})

// ── Clients ──────────────────────────────────────────────────────────────────────────────────
interface Connected {
  readonly client: Client
  readonly stderr: () => string
  /** Transport/protocol errors seen by the client (a non-JSON stdout line would land here). */
  readonly errors: Array<Error>
  readonly close: () => Promise<void>
}

const connect = async (env: Record<string, string>): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath, "mcp"],
    env,
    cwd: appCwd.dir,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString()
  })
  const client = new Client({ name: "catalog-e2e", version: "0" })
  const errors: Array<Error> = []
  client.onerror = (e) => errors.push(e)
  await client.connect(transport)
  return { client, stderr: () => stderr, errors, close: () => client.close() }
}

type RpcMessage = {
  jsonrpc: string
  id?: number | string
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: Record<string, unknown> }
}

/** Spawns the server and speaks newline-delimited JSON-RPC to it directly. */
class Raw {
  readonly proc: ChildProcessWithoutNullStreams
  readonly lines: Array<string> = []
  stderr = ""
  private nextId = 1000
  private readonly waiting = new Map<number | string, (m: RpcMessage) => void>()
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>

  constructor(env: Record<string, string>, args: ReadonlyArray<string> = []) {
    this.proc = spawn(process.execPath, [binPath, "mcp", ...args], {
      cwd: appCwd.dir,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    this.proc.stderr.on("data", (d: Buffer) => {
      this.stderr += d.toString()
    })
    readline.createInterface({ input: this.proc.stdout }).on("line", (line) => {
      this.lines.push(line)
      try {
        const m = JSON.parse(line) as RpcMessage
        if (m.id !== undefined) this.waiting.get(m.id)?.(m)
      } catch {
        // kept in `lines`; the purity assertion reports it
      }
    })
    this.exited = new Promise((resolve) =>
      this.proc.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
    )
  }

  sendLine(line: string) {
    this.proc.stdin.write(line + "\n")
  }

  request(method: string, params?: unknown, id: number | string = this.nextId++): Promise<RpcMessage> {
    const answer = new Promise<RpcMessage>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${method} #${id} within 5 s; stderr: ${this.stderr}`)),
        5000
      )
      this.waiting.set(id, (m) => {
        clearTimeout(timer)
        resolve(m)
      })
    })
    this.sendLine(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }))
    return answer
  }

  async initialize(protocolVersion = "2025-11-25") {
    const r = await this.request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "raw", version: "0" }
    })
    this.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    return r
  }

  call(name: unknown, args?: unknown) {
    return this.request("tools/call", { name, ...(args !== undefined ? { arguments: args } : {}) })
  }

  /** Closes stdin and waits for the process; the time is measured from the close. */
  async endInput() {
    const t = Date.now()
    this.proc.stdin.end()
    const e = await this.exited
    return { ...e, ms: e.at - t }
  }

  async signal(sig: NodeJS.Signals) {
    const t = Date.now()
    this.proc.kill(sig)
    const e = await this.exited
    return { ...e, ms: e.at - t }
  }
}

/** Every stdout line is one JSON-RPC 2.0 message [4]. */
const expectPureStdout = (lines: ReadonlyArray<string>) => {
  expect(lines.length).toBeGreaterThan(0)
  for (const line of lines) {
    let m: RpcMessage | undefined
    expect(() => (m = JSON.parse(line) as RpcMessage), `stdout line is not JSON: ${line.slice(0, 200)}`).not.toThrow()
    expect(m!.jsonrpc).toBe("2.0")
    expect("result" in m! || "error" in m! || "method" in m!).toBe(true)
  }
}

const rejection = async (p: Promise<unknown>): Promise<McpError> => {
  const e = await p.then(() => null, (err: unknown) => err)
  expect(e, "expected a JSON-RPC error, got a result").toBeInstanceOf(McpError)
  return e as McpError
}

/** A -32602 whose message quotes, and whose data lists, each named parameter. */
const expectInvalidParams = (e: { code: number; message: string; data?: unknown }, params: ReadonlyArray<string>) => {
  expect(e.code).toBe(-32602)
  const data = e.data as { params: Array<string> }
  for (const p of params) {
    expect(e.message).toContain(`'${p}'`)
    expect(data.params).toContain(p)
  }
}

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>
const errorCode = (r: unknown) => (structured(r) as { error?: { code: string } }).error?.code

// ── The suite, twice ─────────────────────────────────────────────────────────────────────────
const modes = [
  { name: "plain", network: true },
  { name: "no network (preload blocks sockets, DNS and fetch)", network: false }
] as const

describe.each(modes)("catalog mcp — $name", (mode) => {
  const networkLog = path.join(scratch.dir, `network-${mode.network ? "plain" : "blocked"}.log`)
  const extra: Record<string, string> = mode.network
    ? {}
    : { NODE_OPTIONS: `--import=${preload}`, NO_NETWORK_LOG: networkLog }
  const serverEnv = () => ({ CATALOG_DATA: fixture.dataDir, CATALOG_CONFIG: fixture.config, ...extra })
  let c: Connected

  beforeAll(async () => {
    c = await connect(serverEnv())
  })
  afterAll(async () => {
    await c?.close()
  })

  it("initialize: package name and version, tools-only capabilities, instructions pointing at --skill [1]", () => {
    expect(c.client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version })
    expect(Object.keys(c.client.getServerCapabilities() ?? {})).toEqual(["tools"])
    expect(c.client.getInstructions()).toContain("catalog mcp --skill")
  })

  it("tools/list: exactly the eight tools in a fixed order, annotated read-only, strict input schemas [8-11]", async () => {
    const first = await c.client.listTools()
    const second = await c.client.listTools()
    expect(JSON.stringify(second)).toBe(JSON.stringify(first))
    expect(first.nextCursor).toBeUndefined()
    expect(first.tools.map((t) => t.name)).toEqual(toolNames)
    const required: Record<string, Array<string>> = { search_datasets: ["q"], get_dataset: ["id"] }
    const properties: Record<string, Array<string>> = {
      search_datasets: ["q", "limit"],
      get_dataset: ["id"],
      get_lineage: ["datasetId"],
      get_changes: ["since", "limit"]
    }
    for (const t of first.tools) {
      expect(t.name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/)
      expect(t.title?.length, t.name).toBeGreaterThan(0)
      expect(t.description?.length, t.name).toBeGreaterThan(40)
      expect(t.annotations, t.name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      })
      expect(t.inputSchema.type).toBe("object")
      expect(t.inputSchema["additionalProperties"], t.name).toBe(false)
      expect(t.inputSchema.required ?? [], t.name).toEqual(required[t.name] ?? [])
      expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toEqual(properties[t.name] ?? [])
      expect(t.outputSchema?.type, t.name).toBe("object")
      expect(JSON.stringify(t)).not.toContain("$ref")
    }
  })

  it("every input and output schema compiles, and sample arguments validate [12]", async () => {
    const ajv = new AjvJsonSchemaValidator()
    type JsonSchema = Parameters<typeof ajv.getValidator>[0]
    for (const t of (await c.client.listTools()).tools) {
      const input = ajv.getValidator(t.inputSchema as JsonSchema)
      expect(input(sampleArgs[t.name]).valid, t.name).toBe(true)
      expect(input({ ...sampleArgs[t.name], bogus: 1 }).valid, t.name).toBe(false)
      expect(() => ajv.getValidator(t.outputSchema as JsonSchema), t.name).not.toThrow()
    }
  })

  if (mode.network) {
    it("the tool surface matches the committed contract snapshot (update with -u and bump the playbook version) [13]", async () => {
      const { tools } = await c.client.listTools()
      const skill = runCli(["mcp", "--skill", "--json"], { cwd: appCwd.dir }).json as { playbookVersion: string }
      // Output schemas follow the domain Schemas (every result is validated against them above), so
      // they are left out: this pins what an assistant chooses by — names, texts, inputs, hints.
      const surface = tools.map(({ outputSchema: _o, ...rest }) => rest)
      const contract = {
        playbookVersion: skill.playbookVersion,
        instructions: c.client.getInstructions(),
        tools: surface
      }
      await expect(JSON.stringify(contract, null, 2) + "\n").toMatchFileSnapshot("./__snapshots__/mcp-contract.json")
    })
  }

  it("every tool answers on the scanned catalog: the Reader value as structuredContent, the same JSON as text, within 100 kB [20, 25]", async () => {
    await c.client.listTools() // lets the SDK client validate each result against its outputSchema
    for (const name of toolNames) {
      const r = (await c.client.callTool({ name, arguments: sampleArgs[name] })) as CallToolResult
      expect(r.isError ?? false, `${name}: ${JSON.stringify(r.content)}`).toBe(false)
      const value = structured(r)
      expect(r.content[0]?.type).toBe("text")
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(value)
      // Exactly the domain value: no field the domain Schema does not know.
      expect(() => Schema.decodeUnknownSync(domainSchemas[name]!, { onExcessProperty: "error" })(value), name).not
        .toThrow()
      expect(JSON.stringify(r).length, name).toBeLessThan(2 * 100_000 + 1_000)
      if ("truncated" in value) {
        expect(value, name).toMatchObject({
          returned: expect.any(Number),
          total: expect.any(Number),
          truncated: expect.any(Boolean)
        })
      }
    }
    const search = structured(
      await c.client.callTool({ name: "search_datasets", arguments: { q: "customer email" } })
    ) as SearchResult
    expect(search.hits.map((h) => h.id)).toContain("shop/main/customers/email")
    for (const h of search.hits) expect(h.why.length > 0 && h.snippet.length > 0).toBe(true)
    const ds = structured(
      await c.client.callTool({ name: "get_dataset", arguments: { id: "shop/main/customers" } })
    ) as Dataset
    expect(ds.columns.find((col) => col.name === "email")?.classification.value).toBe("personal")
    expect(ds.columns.find((col) => col.name === "notes")?.classification).toMatchObject({
      value: "special",
      overridden: true,
      by: "dpo@example.com"
    })
    const lineage = structured(
      await c.client.callTool({ name: "get_lineage", arguments: { datasetId: "shop/main/big_orders" } })
    ) as LineageList
    expect(lineage.dataset).toBe("shop/main/big_orders")
    expect(lineage.edges.map((e) => e.from).sort()).toEqual(["shop/main/customers", "shop/main/orders"])
    const all = structured(await c.client.callTool({ name: "get_lineage", arguments: {} })) as LineageList
    expect(all.dataset).toBeNull()
    expect(all.total).toBeGreaterThanOrEqual(lineage.total)
    expect(structured(await c.client.callTool({ name: "get_provenance", arguments: {} }))).toMatchObject({
      seal: "draft",
      coverage: { complete: true }
    })
    expect(structured(await c.client.callTool({ name: "get_compliance_state", arguments: {} }))).toMatchObject({
      seal: "draft"
    })
    expect(structured(await c.client.callTool({ name: "get_dora", arguments: {} }))).toEqual({
      inScope: false,
      register: null
    })
  })

  it("calling a tool twice gives the same value [23]", async () => {
    for (const name of toolNames) {
      const a = structured(await c.client.callTool({ name, arguments: sampleArgs[name] }))
      const b = structured(await c.client.callTool({ name, arguments: sampleArgs[name] }))
      expect(withoutClock(b), name).toEqual(withoutClock(a))
    }
  })

  it("answers with the same values as the CLI's --json (show, search, log)", async () => {
    const same = async (name: string, args: Record<string, unknown>, cliArgs: ReadonlyArray<string>) => {
      const fromMcp = structured(await c.client.callTool({ name, arguments: args }))
      expect(fromMcp, name).toEqual(cli([...cliArgs, "--json"]).json)
    }
    await same("get_dataset", { id: "shop/main/customers" }, ["show", "shop/main/customers"])
    await same("search_datasets", { q: "email", limit: 5 }, ["search", "email", "--limit", "5"])
    await same("get_changes", { since: 0 }, ["log", "--since", "0"])
    await same("get_changes", {}, ["log"])
  })

  it("get_changes honours since (sequence or ISO-8601) and limit, and says when it truncated [24]", async () => {
    const everything = structured(
      await c.client.callTool({ name: "get_changes", arguments: { since: 0, limit: 1000 } })
    ) as ChangeList
    expect(everything.total).toBeGreaterThan(3)
    expect(everything.truncated).toBe(false)
    const seqs = everything.changes.map((e) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a)) // newest first
    expect(everything.changes.some((e) => e.by === "dpo@example.com")).toBe(true)
    const one = structured(
      await c.client.callTool({ name: "get_changes", arguments: { since: 0, limit: 1 } })
    ) as ChangeList
    expect(one).toMatchObject({ returned: 1, total: everything.total, truncated: true })
    const pivot = seqs[Math.floor(seqs.length / 2)]!
    const after = structured(
      await c.client.callTool({ name: "get_changes", arguments: { since: pivot } })
    ) as ChangeList
    expect(after.changes.length).toBeGreaterThan(0)
    for (const e of after.changes) expect(e.seq).toBeGreaterThan(pivot)
    const byTime = structured(
      await c.client.callTool({ name: "get_changes", arguments: { since: "2000-01-01T00:00:00Z", limit: 1000 } })
    ) as ChangeList
    expect(byTime.total).toBe(everything.total)
    const future = structured(
      await c.client.callTool({ name: "get_changes", arguments: { since: "2999-01-01T00:00:00Z" } })
    ) as ChangeList
    expect(future).toMatchObject({ returned: 0, total: 0, truncated: false })
  })

  it("an unknown dataset id is an isError DATASET_NOT_FOUND with the read API's body, and the SDK client reads it without throwing [21, 22]", async () => {
    await c.client.listTools()
    const id = "shop/main/does_not_exist"
    const r = (await c.client.callTool({ name: "get_dataset", arguments: { id } })) as CallToolResult
    expect(r.isError).toBe(true)
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(r.structuredContent)
    // The body the HTTP API returns: the same Reader failure through the same toErrorBody.
    const httpBody = await Effect.runPromise(
      Effect.gen(function*() {
        return toErrorBody(yield* Effect.flip((yield* Reader).dataset(id)))
      }).pipe(
        Effect.provide(ReadLive),
        Effect.provide(ConfigFile.Default),
        Effect.provide(
          Layer.succeed(AppEnv, {
            cwd: fixture.dir,
            env: { CATALOG_DATA: fixture.dataDir, CATALOG_CONFIG: fixture.config },
            interactive: false,
            stderrIsTTY: false
          })
        ),
        Effect.provide(NodeFilesLive)
      )
    )
    expect(r.structuredContent).toEqual(httpBody)
    expect(r.structuredContent).toMatchObject({ error: { code: "DATASET_NOT_FOUND", fix: expect.any(String) } })
    const lineage = await c.client.callTool({ name: "get_lineage", arguments: { datasetId: id } })
    expect(lineage.isError).toBe(true)
    expect(errorCode(lineage)).toBe("DATASET_NOT_FOUND")
  })

  it("missing, misnamed, mistyped or out-of-range arguments and unknown tools are JSON-RPC -32602 naming the parameter (SDK client) [14-18]", async () => {
    const call = (name: string, args: Record<string, unknown>) =>
      rejection(c.client.callTool({ name, arguments: args }))
    expectInvalidParams(await call("search_datasets", {}), ["q"])
    expectInvalidParams(await call("search_datasets", { query: "x" }), ["q", "query"])
    expectInvalidParams(await call("search_datasets", { q: "" }), ["q"])
    expectInvalidParams(await call("search_datasets", { q: "   " }), ["q"]) // the Reader's INVALID_PARAM
    expectInvalidParams(await call("search_datasets", { q: 5 }), ["q"])
    expectInvalidParams(await call("search_datasets", { q: "x", limit: "5" }), ["limit"])
    expectInvalidParams(await call("search_datasets", { q: "x", limit: 0 }), ["limit"])
    expectInvalidParams(await call("search_datasets", { q: "x", limit: 10_000 }), ["limit"])
    expectInvalidParams(await call("search_datasets", { q: "x", limit: 2.5 }), ["limit"])
    expectInvalidParams(await call("get_dataset", { ids: "shop/main/customers" }), ["id", "ids"])
    expectInvalidParams(await call("get_dataset", { id: 42 }), ["id"])
    expectInvalidParams(await call("get_lineage", { dataset: "shop/main/customers" }), ["dataset"])
    expectInvalidParams(await call("get_lineage", { datasetId: 1 }), ["datasetId"])
    expectInvalidParams(await call("get_changes", { since: "yesterday" }), ["since"])
    expectInvalidParams(await call("get_changes", { since: -1 }), ["since"])
    expectInvalidParams(await call("get_changes", { limit: 1001 }), ["limit"])
    for (const name of ["get_compliance_state", "get_provenance", "get_glossary", "get_dora"]) {
      expectInvalidParams(await call(name, { x: 1 }), ["x"])
    }
    const unknown = await call("nope", {})
    expect(unknown.code).toBe(-32602)
    expect(unknown.message).toContain("Unknown tool: nope")
    expect(unknown.data).toMatchObject({ param: "name", tool: "nope", tools: toolNames })
  })

  it("raw wire: exact error objects, version negotiation, unknown methods, ping, a garbage line, 20 concurrent calls, stdout purity [2-4, 7, 14-18]", async () => {
    const raw = new Raw(serverEnv(), ["--log-level", "debug"])
    try {
      const init = await raw.initialize("2025-06-18")
      expect(init.result).toMatchObject({
        protocolVersion: "2025-06-18",
        serverInfo: { name: pkg.name, version: pkg.version }
      })
      expect(String(init.result?.["instructions"])).toContain("catalog mcp --skill")
      for (const method of ["server/discover", "resources/list", "prompts/list"]) {
        const t = Date.now()
        const r = await raw.request(method, {})
        expect(r.error?.code, method).toBe(-32601)
        expect(Date.now() - t).toBeLessThan(1000)
      }
      expect((await raw.request("ping")).result).toEqual({})

      const missing = await raw.call("search_datasets", {})
      expect(missing.result).toBeUndefined()
      expectInvalidParams(missing.error!, ["q"])
      const misnamed = await raw.call("search_datasets", { query: "x" })
      expect(misnamed.result).toBeUndefined()
      expect(misnamed.error?.message).toBe(
        "search_datasets: missing required parameter 'q' (a non-empty string of words to look for); unknown parameter 'query' (accepted: 'q', 'limit')"
      )
      expect(misnamed.error?.data).toMatchObject({
        tool: "search_datasets",
        param: "q",
        params: ["q", "query"],
        accepted: ["q", "limit"]
      })
      const noArgsAtAll = await raw.call("get_dataset")
      expectInvalidParams(noArgsAtAll.error!, ["id"])
      const unknown = await raw.call("nope", {})
      expect(unknown.error).toMatchObject({ code: -32602, data: { param: "name" } })
      expect(unknown.error?.message).toMatch(/^Unknown tool: nope/)
      const noName = await raw.request("tools/call", {})
      expect(noName.error?.code).toBe(-32602)
      expect(noName.error?.message).toContain("name")

      raw.sendLine("this is not json")
      expect((await raw.request("ping")).result).toEqual({})
      // answered, not dropped (test/e2e/mcp-framing.test.ts covers every malformed kind)
      expect(raw.lines.map((l) => JSON.parse(l) as RpcMessage).filter((m) => m.error?.code === -32700)).toEqual([{
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error/) }
      }])

      const ids = Array.from({ length: 20 }, (_, i) => `c${i}`)
      const answers = await Promise.all(
        ids.map((id, i) =>
          raw.request("tools/call", { name: toolNames[i % 8], arguments: sampleArgs[toolNames[i % 8]!] }, id)
        )
      )
      expect(answers.map((a) => a.id)).toEqual(ids)
      for (const a of answers) expect(a.result?.["isError"] ?? false).toBe(false)
      for (const id of ids) expect(raw.lines.filter((l) => l.includes(`"id":"${id}"`)).length, id).toBe(1)

      const exit = await raw.endInput()
      expect(exit.code).toBe(0)
    } finally {
      raw.proc.kill()
    }
    expectPureStdout(raw.lines)
    expect(raw.stderr).toContain("level=DEBUG") // logs, debug ones included, went to stderr
    expect(raw.stderr).toMatch(/tools\/call get_dora ok/)
  })

  it("exits within 2 s: with code 0 when stdin closes, and on SIGTERM [6]", async () => {
    const a = new Raw(serverEnv())
    await a.initialize()
    await a.call("get_provenance", {})
    const eof = await a.endInput()
    expect(eof.code).toBe(0)
    expect(eof.ms).toBeLessThan(2000)
    const b = new Raw(serverEnv())
    await b.initialize()
    await b.call("get_provenance", {})
    const term = await b.signal("SIGTERM")
    expect(term.code ?? term.signal).not.toBeNull()
    expect(term.ms).toBeLessThan(2000)
    expectPureStdout(a.lines)
    expectPureStdout(b.lines)
  })

  it("before the first scan: starts, names CATALOG_DATA on stderr, answers MAP_NOT_FOUND; picks up a scan (and a re-scan) made while it runs [5]", async () => {
    const q = tempProject("ldc-mcp-empty-")
    try {
      const env = {
        CATALOG_DATA: path.join(q.dir, ".catalog"),
        CATALOG_CONFIG: path.join(q.dir, "catalog.yml"),
        ...extra
      }
      const s = await connect(env)
      await s.client.listTools()
      for (const name of toolNames) {
        const r = await s.client.callTool({ name, arguments: sampleArgs[name] })
        expect(r.isError, name).toBe(true)
        expect(structured(r), name).toMatchObject({
          error: { code: "MAP_NOT_FOUND", fix: expect.stringContaining("catalog start") }
        })
      }
      expect(s.stderr()).toContain("CATALOG_DATA")
      expect(s.stderr()).toContain("catalog start")

      const dbFile = path.join(q.dir, "crm.db")
      const db = new DatabaseSync(dbFile)
      db.exec("CREATE TABLE contacts (id INTEGER PRIMARY KEY, email TEXT, phone TEXT)")
      db.close()
      const qEnv = { CRM_DB: dbFile, USER: "tester" }
      cli(["add", "sqlite", "--ref", "CRM_DB", "--id", "crm", "--json"], q.dir, qEnv)
      cli(["start", "--json"], q.dir, qEnv)
      const found = await s.client.callTool({ name: "search_datasets", arguments: { q: "email" } })
      expect(found.isError ?? false).toBe(false)
      expect((structured(found) as SearchResult).hits.map((h) => h.id)).toContain("crm/main/contacts/email")

      const db2 = new DatabaseSync(dbFile)
      db2.exec("CREATE TABLE leads (id INTEGER PRIMARY KEY, email_address TEXT)")
      db2.close()
      cli(["start", "--json"], q.dir, qEnv)
      const again = await s.client.callTool({ name: "get_dataset", arguments: { id: "crm/main/leads" } })
      expect(again.isError ?? false).toBe(false)
      expect(s.errors).toEqual([])
      await s.close()
    } finally {
      q.cleanup()
    }
  })

  it("get_dora returns the register draft when catalog.yml declares DORA scope", async () => {
    const doraConfig = writeFile(
      scratch.dir,
      `dora-${mode.network ? "a" : "b"}/catalog.yml`,
      fs.readFileSync(fixture.config, "utf8") + "\ndora:\n  inScope: true\n"
    )
    const s = await connect({ ...serverEnv(), CATALOG_CONFIG: doraConfig })
    try {
      await s.client.listTools()
      const r = await s.client.callTool({ name: "get_dora", arguments: {} })
      expect(r.isError ?? false).toBe(false)
      const dora = structured(r) as DoraState
      expect(dora.inScope).toBe(true)
      expect(dora.register).not.toBeNull()
      expect(() => Schema.decodeUnknownSync(DoraState, { onExcessProperty: "error" })(dora)).not.toThrow()
    } finally {
      await s.close()
    }
  })

  it("--print-config before and after the first scan; the printed registration starts a working server [28]", async () => {
    const q = tempProject("ldc-mcp-register-")
    try {
      const env = { ...extra }
      const first = runCli(["mcp", "--print-config"], { cwd: q.dir, env })
      expect(first.code).toBe(0)
      const block = first.json as {
        mcpServers: Record<string, { command: string; args: Array<string>; env: Record<string, string> }>
      }
      expect(Object.keys(block.mcpServers)).toEqual(["catalog"])
      const entry = block.mcpServers["catalog"]!
      // From a clone: this very build (the Node binary running it, its absolute entry file), not npx.
      const launch = [process.execPath, fs.realpathSync(binPath), "mcp"]
      expect([entry.command, ...entry.args]).toEqual(launch)
      expect(entry.env).toEqual({ CATALOG_DATA: path.join(fs.realpathSync(q.dir), ".catalog") })
      expect(first.stderr).toMatch(/warning: there is no catalog at .* yet/)
      expect(first.stderr).toContain(
        `claude mcp add catalog --env CATALOG_DATA=${entry.env["CATALOG_DATA"]} -- ${launch.join(" ")}`
      )

      const dbFile = path.join(q.dir, "app.db")
      const db = new DatabaseSync(dbFile)
      db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)")
      db.close()
      cli(["add", "sqlite", "--ref", "APP_DB", "--id", "app", "--json"], q.dir, { APP_DB: dbFile })
      cli(["start", "--json"], q.dir, { APP_DB: dbFile })
      const after = runCli(["mcp", "--print-config"], { cwd: q.dir, env })
      expect(after.code).toBe(0)
      const entry2 = (after.json as typeof block).mcpServers["catalog"]!
      expect(entry2.env).toEqual({
        CATALOG_DATA: path.join(fs.realpathSync(q.dir), ".catalog"),
        CATALOG_CONFIG: path.join(fs.realpathSync(q.dir), "catalog.yml")
      })
      for (const p of Object.values(entry2.env)) expect(path.isAbsolute(p)).toBe(true)
      expect(after.stderr).not.toContain("warning")
      // The server name comes before --env (claude mcp add's --env is variadic and would swallow it).
      expect(after.stderr).toContain(
        `claude mcp add catalog --env CATALOG_DATA=${entry2.env["CATALOG_DATA"]} --env CATALOG_CONFIG=${
          entry2.env["CATALOG_CONFIG"]
        } -- ${launch.join(" ")}`
      )

      // Exactly the printed command, args and env (test/e2e/mcp-registration.test.ts does the same from an empty folder).
      const transport = new StdioClientTransport({
        command: entry2.command,
        args: entry2.args,
        env: { ...entry2.env, ...extra },
        cwd: appCwd.dir,
        stderr: "pipe"
      })
      const client = new Client({ name: "registration-check", version: "0" })
      await client.connect(transport)
      expect((await client.listTools()).tools).toHaveLength(8)
      const hit = await client.callTool({ name: "search_datasets", arguments: { q: "email" } })
      expect((structured(hit) as SearchResult).hits.map((h) => h.id)).toContain("app/main/users/email")
      await client.close()
    } finally {
      q.cleanup()
    }
  })

  it("--skill: a versioned playbook with Hard Rule #4 word for word, the eight tools and the call order [28]", () => {
    const r = runCli(["mcp", "--skill"], { cwd: appCwd.dir, env: { ...extra } })
    expect(r.code).toBe(0)
    const md = r.stdout
    expect(md).toContain(
      "Hard Rule #4: purpose, lawful basis, retention and transfers are legal calls that only a named human may confirm. Signing, unlocking and paying are also human acts. No agent surface can do any of these. The read-only agent server has no write tool. The read API has no write verb. A confirmation must name the person who made it."
    )
    expect(md).toContain(hardRule4)
    expect(md).toMatch(new RegExp(`tool-version: ${pkg.version.replace(/\./g, "\\.")}`))
    expect(md).toMatch(/playbook-version: \d+\.\d+\.\d+/)
    for (const name of toolNames) expect(md).toContain(name)
    const mentioned = new Set(md.match(/\b(?:get|search|list|set|put|update|delete|create)_[a-z_]+\b/g) ?? [])
    expect([...mentioned].sort()).toEqual([...toolNames].sort())
    expect(md).toMatch(/search_datasets.*get_dataset.*get_provenance/)
    expect(md).not.toContain(fixture.db)
    const json = runCli(["mcp", "--skill", "--json"], { cwd: appCwd.dir, env: { ...extra } }).json as {
      markdown: string
      toolVersion: string
    }
    expect(json.markdown).toBe(md.replace(/\n$/, ""))
    expect(json.toolVersion).toBe(pkg.version)
    const both = runCli(["mcp", "--skill", "--print-config", "--json"], { cwd: appCwd.dir, env: { ...extra } })
    expect(both.code).toBe(2)
    expect(both.json).toMatchObject({ error: { code: "INVALID_PARAM", param: "--skill" } })
  })

  it("a bad flag writes nothing on stdout", () => {
    const r = runCli(["mcp", "--bogus"], { cwd: appCwd.dir, env: { ...serverEnv() } })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
  })

  it("the catalog files are unchanged once the servers are gone, and the client saw no protocol error [27, 4]", async () => {
    expect(c.errors).toEqual([])
    await c.close()
    expect(dataState()).toEqual(before)
  })

  if (!mode.network) {
    it("the preload was active in every server, and nothing tried to open a socket or resolve a name [26]", () => {
      const lines = fs.readFileSync(networkLog, "utf8").trim().split("\n")
      expect(lines.filter((l) => l.endsWith(" loaded")).length).toBeGreaterThan(5)
      expect(lines.filter((l) => l.includes(" blocked "))).toEqual([])
      // and the preload does block: a connect and a lookup throw in a process that loads it
      const probe = spawnSync(process.execPath, [
        `--import=${preload}`,
        "-e",
        "const n=require('node:net');let a=0;try{n.connect(80,'127.0.0.1')}catch{a++}try{require('node:dns').lookup('localhost',()=>{})}catch{a++}try{fetch('http://127.0.0.1')}catch{a++}process.stdout.write(String(a))"
      ], { encoding: "utf8", env: { PATH: process.env["PATH"] ?? "" } })
      expect(probe.stdout).toBe("3")
    })
  }
})

// ── An independent client: the MCP Inspector's CLI mode (v2), once, against a server under the no-network preload ──
describe("catalog mcp — MCP Inspector CLI as an independent client [19]", () => {
  const networkLog = path.join(scratch.dir, "network-inspector.log")
  const serverEnv = {
    CATALOG_DATA: fixture.dataDir,
    CATALOG_CONFIG: fixture.config,
    NODE_OPTIONS: `--import=${preload}`,
    NO_NETWORK_LOG: networkLog
  }
  const inspector = fs.realpathSync(path.join(repoRoot, "node_modules", ".bin", "mcp-inspector"))
  const home = path.join(scratch.dir, "inspector-home")

  /** One Inspector run: `--cli -e K=V … <inspector flags> -- node dist/bin.js mcp`. */
  const inspect = (args: ReadonlyArray<string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string; result: Record<string, unknown> | undefined }>(
      (resolve) => {
        fs.mkdirSync(home, { recursive: true })
        const envFlags = Object.entries(serverEnv).flatMap(([k, v]) => ["-e", `${k}=${v}`])
        execFile(process.execPath, [
          inspector,
          "--cli",
          ...envFlags,
          "--format",
          "json",
          ...args,
          "--",
          process.execPath,
          binPath,
          "mcp"
        ], {
          cwd: appCwd.dir,
          env: {
            PATH: process.env["PATH"] ?? "",
            HOME: home,
            MCP_CATALOG_PATH: path.join(home, "mcp.json"),
            NODE_COMPILE_CACHE: path.join(home, "compile-cache")
          },
          encoding: "utf8",
          timeout: 150_000
        }, (error, stdout, stderr) => {
          let result: Record<string, unknown> | undefined
          try {
            result = (JSON.parse(stdout) as { result: Record<string, unknown> }).result
          } catch {
            result = undefined
          }
          resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr, result })
        })
      }
    )

  /** Runs the calls a few at a time (each Inspector start is heavy). */
  const inspectAll = async (runs: ReadonlyArray<ReadonlyArray<string>>) => {
    const out: Array<Awaited<ReturnType<typeof inspect>>> = []
    for (let i = 0; i < runs.length; i += 4) out.push(...(await Promise.all(runs.slice(i, i + 4).map(inspect))))
    return out
  }

  it(
    "lists exactly the eight tools with portable schemas, every tool answers, bad arguments name the parameter, an unknown id is DATASET_NOT_FOUND",
    { timeout: 300_000 },
    async () => {
      const calls = toolNames.map((
        name
      ) => ["--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(sampleArgs[name])])
      const [list, init, missing, misnamed, wrongType, outOfRange, notFound, ...answers] = await inspectAll([
        ["--strict", "--method", "tools/list"],
        ["--method", "initialize"],
        ["--method", "tools/call", "--tool-name", "search_datasets"],
        [
          "--method",
          "tools/call",
          "--tool-name",
          "get_dataset",
          "--tool-args-json",
          "{\"ids\":\"shop/main/customers\"}"
        ],
        // (the Inspector coerces strings to the declared type, so a wrong type is a number for a string here)
        ["--method", "tools/call", "--tool-name", "search_datasets", "--tool-args-json", "{\"q\":5}"],
        [
          "--method",
          "tools/call",
          "--tool-name",
          "search_datasets",
          "--tool-args-json",
          "{\"q\":\"email\",\"limit\":0}"
        ],
        ["--method", "tools/call", "--tool-name", "get_dataset", "--tool-arg", "id=nope"],
        ...calls
      ])
      expect(list!.code, list!.stderr).toBe(0)
      expect((list!.result?.["tools"] as Array<{ name: string }>).map((t) => t.name)).toEqual(toolNames)
      expect(list!.stderr).toMatch(/\b0 errors\b/) // the Inspector's schema-portability lint, strict
      expect(init!.result).toMatchObject({
        serverInfo: { name: pkg.name, version: pkg.version },
        capabilities: { tools: {} }
      })
      answers.forEach((r, i) => {
        expect(r.code, `${toolNames[i]}: ${r.stderr}`).toBe(0)
        expect(r.result?.["structuredContent"], toolNames[i]).toBeDefined()
        expect(r.result?.["isError"] ?? false, toolNames[i]).toBe(false)
      })
      // A JSON-RPC error: the Inspector exits 1 and prints the server's message.
      expect(missing!.code).toBe(1)
      expect(missing!.stderr).toContain("missing required parameter 'q'")
      expect(misnamed!.code).toBe(1)
      expect(misnamed!.stderr).toContain("unknown parameter 'ids'")
      expect(misnamed!.stderr).toContain("missing required parameter 'id'")
      expect(wrongType!.code).toBe(1)
      expect(wrongType!.stderr).toContain("parameter 'q' must be a non-empty string")
      expect(outOfRange!.code).toBe(1)
      expect(outOfRange!.stderr).toContain("parameter 'limit' must be an integer from 1 to 100")
      // An isError result: exit 5 ("tool returned isError"), with the shared body.
      expect(notFound!.code).toBe(5)
      expect(notFound!.stdout + notFound!.stderr).toContain("DATASET_NOT_FOUND")
      const network = fs.readFileSync(networkLog, "utf8")
      expect(network).toContain(" loaded")
      expect(network).not.toContain(" blocked ")
    }
  )
})
