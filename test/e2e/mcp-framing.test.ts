/**
 * `catalog mcp` framing over the raw wire (attack defect 10): every line a client writes that is not
 * a valid JSON-RPC 2.0 Request gets the answer JSON-RPC 2.0 requires — -32700 for a line that is not
 * JSON, -32600 for JSON that is not a Request object (id null unless the id itself is valid),
 * -32602 for params the MCP schema refuses, an array of -32600 for a batch — and nothing for a
 * notification or a response. Before, the SDK's stdio transport dropped all of these silently and
 * the client waited forever. After all of them the same server still serves valid requests.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as path from "node:path"
import * as readline from "node:readline"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { baseEnv, binPath, runCli, tempProject } from "../utils/cli.js"

type Reply = {
  jsonrpc?: unknown
  id?: unknown
  result?: Record<string, unknown>
  error?: { code: number; message: string }
}

/** The server over its real stdin/stdout: write one line, read the next line it writes (or time out). */
class Wire {
  readonly proc: ChildProcessWithoutNullStreams
  readonly lines: Array<string> = []
  stderr = ""
  private readonly queue: Array<string> = []
  private readonly waiters: Array<(line: string) => void> = []
  readonly exited: Promise<number | null>

  constructor(cwd: string, env: Record<string, string>) {
    this.proc = spawn(process.execPath, [binPath, "mcp"], { cwd, env: baseEnv(env), stdio: ["pipe", "pipe", "pipe"] })
    this.proc.stderr.on("data", (d: Buffer) => (this.stderr += d.toString()))
    readline.createInterface({ input: this.proc.stdout }).on("line", (line) => {
      this.lines.push(line)
      const waiter = this.waiters.shift()
      if (waiter) waiter(line)
      else this.queue.push(line)
    })
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)))
  }

  send(line: string) {
    this.proc.stdin.write(line + "\n")
  }

  /** The next line on stdout, parsed; rejects when none comes within `ms` (the old behaviour: silence). */
  next(ms = 5000): Promise<unknown> {
    const queued = this.queue.shift()
    if (queued !== undefined) return Promise.resolve(JSON.parse(queued))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1)
        reject(new Error(`no reply within ${ms} ms; stderr: ${this.stderr.slice(-2000)}`))
      }, ms)
      const waiter = (line: string) => {
        clearTimeout(timer)
        resolve(JSON.parse(line))
      }
      this.waiters.push(waiter)
    })
  }

  async exchange(line: string): Promise<unknown> {
    this.send(line)
    return this.next()
  }
}

const project = tempProject("ldc-mcp-framing-")
const appCwd = tempProject("ldc-mcp-framing-app-")
let wire: Wire

beforeAll(() => {
  const db = new DatabaseSync(path.join(project.dir, "crm.db"))
  db.exec("CREATE TABLE contacts (id INTEGER PRIMARY KEY, email TEXT, phone TEXT)")
  db.close()
  const env = { CRM_DB: path.join(project.dir, "crm.db"), USER: "tester" }
  for (const args of [["add", "sqlite", "--ref", "CRM_DB", "--id", "crm", "--json"], ["start", "--json"]]) {
    const r = runCli(args, { cwd: project.dir, env })
    if (r.code !== 0) throw new Error(`catalog ${args.join(" ")}: ${r.stdout}${r.stderr}`)
  }
  wire = new Wire(appCwd.dir, {
    CATALOG_DATA: path.join(project.dir, ".catalog"),
    CATALOG_CONFIG: path.join(project.dir, "catalog.yml")
  })
})

afterAll(() => {
  wire?.proc.kill()
  project.cleanup()
  appCwd.cleanup()
})

const error = (code: number, id: string | number | null) => ({
  jsonrpc: "2.0",
  id,
  error: { code, message: expect.any(String) }
})

describe("catalog mcp framing: malformed input gets the JSON-RPC 2.0 answer, not silence", () => {
  // Sent before `initialize`, as a confused client would; the id (when valid) is echoed.
  const single: ReadonlyArray<
    {
      readonly name: string
      readonly line: string
      readonly expected: ReturnType<typeof error>
      readonly message?: RegExp
    }
  > = [
    {
      name: "a line that is not JSON",
      line: "this is not json",
      expected: error(-32700, null),
      message: /^Parse error/
    },
    {
      name: "truncated JSON",
      line: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
      expected: error(-32700, null)
    },
    {
      name: "params: null",
      line: "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":null}",
      expected: error(-32600, 2),
      message: /'params' must be an object or an array, got null/
    },
    {
      name: "params: a string",
      line: "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\",\"params\":\"x\"}",
      expected: error(-32600, "p"),
      message: /'params'/
    },
    {
      name: "params: a number",
      line: "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":7}",
      expected: error(-32600, 3)
    },
    {
      name: "id: an object",
      line: "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}",
      expected: error(-32600, null),
      message: /'id' must be a string or an integer, got an object/
    },
    {
      name: "id: an array",
      line: "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
      expected: error(-32600, null),
      message: /got an array/
    },
    {
      name: "id: a boolean",
      line: "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
      expected: error(-32600, null),
      message: /got true/
    },
    {
      name: "id: a fraction",
      line: "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
      expected: error(-32600, null)
    },
    { name: "id: null", line: "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", expected: error(-32600, null) },
    {
      name: "jsonrpc: \"1.0\"",
      line: "{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"ping\"}",
      expected: error(-32600, 4),
      message: /'jsonrpc' must be "2.0"/
    },
    {
      name: "jsonrpc missing",
      line: "{\"id\":5,\"method\":\"ping\"}",
      expected: error(-32600, 5),
      message: /'jsonrpc' is missing/
    },
    {
      name: "method: a number",
      line: "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":42}",
      expected: error(-32600, 6),
      message: /'method' must be a string/
    },
    {
      name: "method missing",
      line: "{\"jsonrpc\":\"2.0\",\"id\":7}",
      expected: error(-32600, 7),
      message: /'method' is missing/
    },
    {
      name: "an unexpected member",
      line: "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\",\"extra\":1}",
      expected: error(-32600, 8),
      message: /unexpected member 'extra'/
    },
    {
      name: "positional params",
      line: "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":[1]}",
      expected: error(-32602, 9),
      message: /named parameters/
    },
    {
      name: "params MCP's schema refuses (_meta not an object)",
      line: "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{\"_meta\":\"x\"}}",
      expected: error(-32602, 10),
      message: /_meta/
    },
    { name: "a number", line: "42", expected: error(-32600, null), message: /a message is a JSON object/ },
    { name: "a string", line: "\"ping\"", expected: error(-32600, null) },
    { name: "null", line: "null", expected: error(-32600, null) },
    { name: "true", line: "true", expected: error(-32600, null) },
    // JSON-RPC 2.0's own example: not a Request object, so not a notification either, and answered.
    {
      name: "an invalid Request object without an id",
      line: "{\"jsonrpc\":\"2.0\",\"method\":1,\"params\":\"bar\"}",
      expected: error(-32600, null)
    },
    {
      name: "an empty array (one reply, not an array)",
      line: "[]",
      expected: error(-32600, null),
      message: /empty batch/
    }
  ]

  it.each(single)("$name → one error reply", async ({ expected, line, message }) => {
    const reply = (await wire.exchange(line)) as Reply
    expect(reply).toEqual(expected)
    expect(reply).not.toHaveProperty("result")
    if (message) expect(reply.error?.message).toMatch(message)
  })

  it("a batch → an array with one -32600 per element that is not a notification; nothing in it runs", async () => {
    expect(await wire.exchange("[1,2,3]")).toEqual([error(-32600, null), error(-32600, null), error(-32600, null)])
    const mixed = (await wire.exchange(JSON.stringify([
      { jsonrpc: "2.0", id: "b1", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { foo: "boo" },
      { jsonrpc: "2.0", id: "b2", method: "tools/list", params: null }
    ]))) as Array<Reply>
    expect(mixed).toEqual([error(-32600, "b1"), error(-32600, null), error(-32600, "b2")])
    expect(mixed[0]!.error!.message).toMatch(/batches are not supported/)
  })

  it("notifications and responses get no reply, even when MCP cannot use them (the next line answers the next request)", async () => {
    for (
      const line of [
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":[1]}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"extra\":true}",
        "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]",
        "{\"jsonrpc\":\"2.0\",\"id\":77,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"result\":{}}",
        "",
        "   "
      ]
    ) {
      wire.send(line)
      const reply =
        (await wire.exchange(JSON.stringify({ jsonrpc: "2.0", id: `after ${line}`, method: "ping" }))) as Reply
      expect(reply, line).toEqual({ jsonrpc: "2.0", id: `after ${line}`, result: {} })
    }
  })

  it("a line longer than 10 MB is discarded and answered; the next line is read normally", async () => {
    wire.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(10 * 1024 * 1024 + 10)}"}}`)
    const reply = (await wire.next(15_000)) as Reply
    expect(reply).toEqual(error(-32600, null))
    expect(reply.error?.message).toMatch(/longer than/)
    expect(await wire.exchange("{\"jsonrpc\":\"2.0\",\"id\":\"big-after\",\"method\":\"ping\"}")).toEqual({
      jsonrpc: "2.0",
      id: "big-after",
      result: {}
    })
  })

  it("after all of that the same server initializes, lists its tools and answers a tool call; stdout held only JSON-RPC", async () => {
    const init = (await wire.exchange(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "wire", version: "0" } }
      })
    )) as Reply
    expect(init.result).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "local-data-catalog" } })
    wire.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    const list = (await wire.exchange(JSON.stringify({ jsonrpc: "2.0", id: 100, method: "tools/list" }))) as Reply
    expect((list.result?.["tools"] as Array<unknown>).length).toBe(8)
    const call = (await wire.exchange(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 101,
        method: "tools/call",
        params: { name: "search_datasets", arguments: { q: "email" } }
      })
    )) as Reply
    expect(call.id).toBe(101)
    expect(call.result?.["isError"] ?? false).toBe(false)
    expect(JSON.stringify(call.result?.["structuredContent"])).toContain("crm/main/contacts/email")
    // a malformed line in the middle of a session is answered too, and the session goes on
    expect(await wire.exchange("{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"tools/call\",\"params\":null}")).toEqual(
      error(-32600, 102)
    )
    const again = (await wire.exchange(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 103,
        method: "tools/call",
        params: { name: "get_provenance", arguments: {} }
      })
    )) as Reply
    expect(again.result?.["structuredContent"]).toMatchObject({ seal: "draft" })

    wire.proc.stdin.end()
    expect(await wire.exited).toBe(0)
    for (const line of wire.lines) {
      const parsed = JSON.parse(line) as Reply | Array<Reply>
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        expect(m.jsonrpc, line.slice(0, 200)).toBe("2.0")
        expect("result" in m || "error" in m, line.slice(0, 200)).toBe(true)
      }
    }
    expect(wire.stderr).toMatch(/answered malformed input: Parse error/) // logged on stderr, not only answered
  })
})
