/**
 * One catalog, three surfaces, one answer: for each of the eight agent questions the MCP tool's
 * structuredContent, the HTTP body and the CLI --json output are deep-equal. And nothing reachable
 * from MCP or HTTP changes a legal field or any other catalog fact.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { ChildProcess } from "node:child_process"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binPath, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

/** Timestamps of the moment of reading differ between calls; everything else must be identical. */
const stable = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === "generatedAt" ? undefined : x)))

describe("the three read surfaces agree", () => {
  const p = tempProject()
  const dbFile = path.join(p.dir, "app.db")
  const env = { APP_DB: dbFile, CATALOG_SIGNER_EMAIL: "dpo@example.com" }
  const cli = (...args: Array<string>) => {
    const r = runCli([...args, "--json"], { cwd: p.dir, env })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    return r.json
  }
  let server: ChildProcess | undefined
  let port = 0
  let client: Client
  const get = async (route: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${route}`)
    return { status: res.status, body: (await res.json()) as unknown }
  }
  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await client.callTool({ name, arguments: args })
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false)
    return r.structuredContent
  }

  beforeAll(async () => {
    const db = new DatabaseSync(dbFile)
    db.exec(`
      CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name TEXT, email TEXT, created_at TEXT);
      CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), total_cents INTEGER);
      CREATE VIEW customer_orders AS SELECT c.email, o.order_id FROM customers c JOIN orders o ON o.customer_id = c.customer_id;
    `)
    db.close()
    writeFile(
      p.dir,
      "catalog.yml",
      "controller: { name: Example GmbH, contact: privacy@example.com }\ndora: { inScope: true, entity: { lei: 529900T8BM49AURSDO55, name: Example Bank AG, country: DE, currency: EUR } }\nsources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: eu-west-1 }\n"
    )
    cli("start")
    cli("glossary", "set", "Customer", "A person who bought from us", "--datasets", "app/main/customers")
    cli("annotate", "set", "app.customers", "purpose", "Orders", "--confirm")
    cli("classify", "set", "app/main/orders/total_cents", "personal")

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
      env: { CATALOG_DATA: path.join(p.dir, ".catalog"), CATALOG_CONFIG: path.join(p.dir, "catalog.yml") },
      stderr: "pipe"
    })
    client = new Client({ name: "parity", version: "0" })
    await client.connect(transport)
    await client.listTools()
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    server?.kill("SIGTERM")
    p.cleanup()
  })

  const cases: ReadonlyArray<
    {
      readonly q: string
      readonly tool: string
      readonly args: Record<string, unknown>
      readonly route: string
      readonly cli: ReadonlyArray<string>
    }
  > = [
    {
      q: "search",
      tool: "search_datasets",
      args: { q: "customer email", limit: 10 },
      route: "/api/v1/search?q=customer%20email&limit=10",
      cli: ["search", "customer", "email", "--limit", "10"]
    },
    {
      q: "dataset",
      tool: "get_dataset",
      args: { id: "app/main/customers" },
      route: "/api/v1/datasets/app/main/customers",
      cli: ["show", "app/main/customers"]
    },
    { q: "lineage (all)", tool: "get_lineage", args: {}, route: "/api/v1/lineage", cli: ["lineage", "list"] },
    {
      q: "lineage (one)",
      tool: "get_lineage",
      args: { datasetId: "app/main/customer_orders" },
      route: "/api/v1/lineage?dataset=app%2Fmain%2Fcustomer_orders",
      cli: ["lineage", "list", "--dataset", "app/main/customer_orders"]
    },
    {
      q: "compliance state",
      tool: "get_compliance_state",
      args: {},
      route: "/api/v1/compliance/state",
      cli: ["annotate", "list"]
    },
    { q: "provenance", tool: "get_provenance", args: {}, route: "/api/v1/provenance", cli: ["provenance"] },
    {
      q: "changes",
      tool: "get_changes",
      args: { since: 0, limit: 20 },
      route: "/api/v1/changes?since=0&limit=20",
      cli: ["log", "--since", "0", "--limit", "20"]
    },
    { q: "glossary", tool: "get_glossary", args: {}, route: "/api/v1/glossary", cli: ["glossary", "list"] },
    { q: "dora", tool: "get_dora", args: {}, route: "/api/v1/dora", cli: ["dora", "show"] }
  ]

  for (const c of cases) {
    it(`${c.q}: MCP structuredContent = HTTP body = CLI --json`, async () => {
      const viaMcp = stable(await tool(c.tool, c.args))
      const viaHttp = await get(c.route)
      expect(viaHttp.status).toBe(200)
      const viaCli = stable(cli(...c.cli))
      expect(stable(viaHttp.body)).toEqual(viaCli)
      expect(viaMcp).toEqual(viaCli)
    })
  }

  it("nothing reachable from MCP or HTTP changes a legal field or any other fact", async () => {
    const before = runCli(["export"], { cwd: p.dir, env }).stdout
    const ropaBefore = stable(cli("annotate", "list"))
    const { tools } = await client.listTools()
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true)
    for (const t of tools) {
      await client.callTool({
        name: t.name,
        arguments: t.name === "search_datasets"
          ? { q: "email" }
          : t.name === "get_dataset"
          ? { id: "app/main/customers" }
          : {}
      })
    }
    for (
      const route of [
        "/api/v1/compliance/state",
        "/api/v1/datasets/app/main/customers",
        "/api/v1/glossary",
        "/api/v1/dora"
      ]
    ) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await fetch(`http://127.0.0.1:${port}${route}`, {
          method,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ field: "purpose", value: "x", confirm: true })
        })
        expect(res.status).toBe(404)
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("ENDPOINT_NOT_FOUND")
      }
    }
    expect(runCli(["export"], { cwd: p.dir, env }).stdout).toBe(before)
    expect(stable(cli("annotate", "list"))).toEqual(ropaBefore)
  })
})
