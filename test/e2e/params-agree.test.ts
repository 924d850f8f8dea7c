/**
 * The two agent-facing surfaces agree on parameters: for every MCP tool and its HTTP route, an
 * unknown parameter is refused naming it (MCP: JSON-RPC -32602; HTTP: 400 INVALID_PARAM), a
 * sequence number beyond Number.MAX_SAFE_INTEGER, a timestamp that names no real time and a limit
 * that is not a plain integer in range are refused naming `since` / `limit` on both, and an error
 * about a dataset id names the surface's own parameter: `dataset` on HTTP, `datasetId` on MCP.
 * Real processes: the built bin serves `catalog open` and `catalog mcp` (SDK Client over stdio).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js"
import type { ChildProcess } from "node:child_process"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binPath, runCli, spawnCli, tempProject } from "../utils/cli.js"

interface ErrorBody {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly fix?: string
    readonly param?: string
    readonly details?: Record<string, unknown>
  }
}

/** Each tool and the route that answers the same question; `base` is what the call needs to succeed. */
const pairs: ReadonlyArray<
  { readonly tool: string; readonly args: Record<string, unknown>; readonly route: string; readonly query: string }
> = [
  { tool: "search_datasets", args: { q: "email" }, route: "/api/v1/search", query: "q=email" },
  {
    tool: "get_dataset",
    args: { id: "app/main/customers" },
    route: `/api/v1/datasets/${encodeURIComponent("app/main/customers")}`,
    query: ""
  },
  { tool: "get_lineage", args: {}, route: "/api/v1/lineage", query: "" },
  { tool: "get_compliance_state", args: {}, route: "/api/v1/compliance/state", query: "" },
  { tool: "get_provenance", args: {}, route: "/api/v1/provenance", query: "" },
  { tool: "get_changes", args: {}, route: "/api/v1/changes", query: "" },
  { tool: "get_glossary", args: {}, route: "/api/v1/glossary", query: "" },
  { tool: "get_dora", args: {}, route: "/api/v1/dora", query: "" }
]

describe("HTTP and MCP agree on parameters", () => {
  const p = tempProject("ldc-params-")
  const dbFile = path.join(p.dir, "app.db")
  const env = { APP_DB: dbFile, USER: "tester" }
  let server: ChildProcess | undefined
  let port = 0
  let client: Client

  const http = async (target: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${target}`)
    return { status: res.status, body: (await res.json()) as unknown }
  }
  /** The tool call's -32602 rejection: the parameter it names (message and data agree). */
  const rejected = async (tool: string, args: Record<string, unknown>) => {
    const e = await client.callTool({ name: tool, arguments: args }).then(() => null, (err: unknown) => err)
    expect(e, `${tool} ${JSON.stringify(args)}: expected a JSON-RPC error`).toBeInstanceOf(McpError)
    const err = e as McpError
    expect(err.code).toBe(-32602)
    const param = (err.data as { param: string }).param
    expect(err.message).toContain(`'${param}'`)
    return param
  }
  const httpRejected = async (target: string) => {
    const r = await http(target)
    expect(r.status, target).toBe(400)
    const e = (r.body as ErrorBody).error
    expect(e.code, target).toBe("INVALID_PARAM")
    return e.param
  }

  beforeAll(async () => {
    const db = new DatabaseSync(dbFile)
    db.exec(`
      CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT, created_at TEXT);
      CREATE VIEW customer_emails AS SELECT c.email FROM customers c;
    `)
    db.close()
    for (const args of [["add", "sqlite", "--ref", "APP_DB", "--id", "app", "--json"], ["start", "--json"]]) {
      const r = runCli(args, { cwd: p.dir, env })
      expect(r.code, r.stdout + r.stderr).toBe(0)
    }
    server = spawnCli(["open", "--port", "0", "--json"], { cwd: p.dir, env })
    port = await new Promise<number>((resolve, reject) => {
      let out = ""
      const t = setTimeout(() => reject(new Error("catalog open did not start")), 30_000)
      server!.stdout!.on("data", (c: Buffer) => {
        out += c.toString()
        const line = out.split("\n")[0]
        if (out.includes("\n") && line) {
          clearTimeout(t)
          resolve((JSON.parse(line) as { port: number }).port)
        }
      })
    })
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binPath, "mcp"],
      cwd: p.dir,
      env: { ...env, CATALOG_DATA: path.join(p.dir, ".catalog"), CATALOG_CONFIG: path.join(p.dir, "catalog.yml") },
      stderr: "pipe"
    })
    client = new Client({ name: "params-agree", version: "0" })
    await client.connect(transport)
    await client.listTools()
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    server?.kill("SIGTERM")
    p.cleanup()
  })

  it("the baseline calls succeed on both surfaces", async () => {
    for (const x of pairs) {
      const r = (await client.callTool({ name: x.tool, arguments: x.args })) as CallToolResult
      expect(r.isError ?? false, x.tool).toBe(false)
      expect((await http(x.query ? `${x.route}?${x.query}` : x.route)).status, x.route).toBe(200)
    }
  })

  it("an unknown parameter is refused naming it, on every tool and every route", async () => {
    for (const x of pairs) {
      for (const unknown of ["nope", "Limit", "dataset_id"]) {
        expect(await rejected(x.tool, { ...x.args, [unknown]: "1" }), `${x.tool} ${unknown}`).toBe(unknown)
        expect(await httpRejected(`${x.route}?${x.query ? `${x.query}&` : ""}${unknown}=1`), `${x.route} ${unknown}`)
          .toBe(unknown)
      }
    }
    // Each surface's own name for the lineage filter is unknown on the other one.
    expect(await rejected("get_lineage", { dataset: "app/main/customers" })).toBe("dataset")
    expect(await httpRejected(`/api/v1/lineage?datasetId=${encodeURIComponent("app/main/customers")}`)).toBe(
      "datasetId"
    )
  })

  it("an unknown dataset in the lineage filter names the surface's parameter: `dataset` on HTTP, `datasetId` on MCP; the rest of the body is the same", async () => {
    const id = "app/main/nope"
    const viaHttp = await http(`/api/v1/lineage?dataset=${encodeURIComponent(id)}`)
    expect(viaHttp.status).toBe(404)
    const h = (viaHttp.body as ErrorBody).error
    expect(h).toMatchObject({ code: "DATASET_NOT_FOUND", param: "dataset", details: { id } })
    const viaMcp = (await client.callTool({ name: "get_lineage", arguments: { datasetId: id } })) as CallToolResult
    expect(viaMcp.isError).toBe(true)
    const m = (viaMcp.structuredContent as unknown as ErrorBody).error
    expect(m).toMatchObject({ code: "DATASET_NOT_FOUND", param: "datasetId", details: { id } })
    expect({ ...m, param: null }).toEqual({ ...h, param: null })
    // get_dataset and /datasets/:id both call it `id`
    const dsHttp = await http(`/api/v1/datasets/${encodeURIComponent(id)}`)
    const dsMcp = (await client.callTool({ name: "get_dataset", arguments: { id } })) as CallToolResult
    expect(dsMcp.structuredContent).toEqual(dsHttp.body)
    expect((dsHttp.body as ErrorBody).error).toMatchObject({ code: "DATASET_NOT_FOUND", param: "id" })
    // an empty id is malformed on both
    expect(await rejected("get_lineage", { datasetId: "" })).toBe("datasetId")
    expect(await httpRejected("/api/v1/lineage?dataset=")).toBe("dataset")
  })

  it("a huge or malformed since and a limit that is not a plain integer in range are refused naming them on both", async () => {
    const sinces = [
      "99999999999999999999999",
      "9007199254740992",
      "1e3",
      "2026-02-30",
      "2026-01-31T24:00:00Z",
      " 5",
      "-1",
      ""
    ]
    for (const since of sinces) {
      expect(await rejected("get_changes", { since }), JSON.stringify(since)).toBe("since")
      expect(await httpRejected(`/api/v1/changes?since=${encodeURIComponent(since)}`), JSON.stringify(since)).toBe(
        "since"
      )
    }
    // As JSON numbers MCP can send them too: beyond the safe range, fractional, negative.
    for (const since of [1e23, 2 ** 53, 1.5, -1]) {
      expect(await rejected("get_changes", { since }), String(since)).toBe("since")
    }
    const limits = ["1e1", "0x10", " 5", "5.0", "-0", ""]
    for (const limit of limits) {
      expect(await rejected("get_changes", { limit }), JSON.stringify(limit)).toBe("limit")
      expect(await httpRejected(`/api/v1/changes?limit=${encodeURIComponent(limit)}`), JSON.stringify(limit)).toBe(
        "limit"
      )
      expect(await rejected("search_datasets", { q: "email", limit }), JSON.stringify(limit)).toBe("limit")
      expect(await httpRejected(`/api/v1/search?q=email&limit=${encodeURIComponent(limit)}`), JSON.stringify(limit))
        .toBe("limit")
    }
    for (const limit of [0, 1001, 1e23, 2.5]) {
      expect(await rejected("get_changes", { limit }), String(limit)).toBe("limit")
    }
    // the largest safe sequence number and a real timestamp are answered the same on both
    for (const since of [String(Number.MAX_SAFE_INTEGER), "2024-02-29T12:00:00+01:00"]) {
      const viaMcp = (await client.callTool({ name: "get_changes", arguments: { since } })) as CallToolResult
      expect(viaMcp.isError ?? false, since).toBe(false)
      const viaHttp = await http(`/api/v1/changes?since=${encodeURIComponent(since)}`)
      expect(viaHttp.status, since).toBe(200)
      expect(viaMcp.structuredContent, since).toEqual(viaHttp.body)
    }
  })
})
