/**
 * A row of index.db that does not decode (here: a column's evidence that is not JSON, written behind
 * the tool's back) is refused at the SQL edge with SCHEMA_MIGRATION_REQUIRED naming the table, through
 * the built CLI — never a cast that lets it through, never an unexplained crash.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binPath, type CliResult, runCli, spawnCli, tempProject } from "../../utils/cli.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

describe("a row of index.db that does not decode", () => {
  const p = tempProject()
  const source = path.join(p.dir, "shop.db")
  const env = { SHOP_DB: source, USER: "analyst" }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })
  const column = "shop/main/customers/email"

  beforeAll(() => {
    const db = new DatabaseSync(source)
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT, full_name TEXT)")
    db.close()
    expect(cli("add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--yes", "--json").code).toBe(0)
    expect(cli("start", "--json").code).toBe(0)
  })
  afterAll(() => p.cleanup())

  it("reads fine before, and is SCHEMA_MIGRATION_REQUIRED naming the table (exit 1) once corrupted", () => {
    const before = cli("describe", "draft", column, "--json")
    expect(before.code).toBe(0)
    expect((before.json as { id: string }).id).toBe(column)

    const index = new DatabaseSync(path.join(p.dir, ".catalog", "index.db"))
    index.prepare("UPDATE columns SET m_evidence = ? WHERE id = ?").run("{evidence: [oops", column)
    index.close()

    for (const id of [column, "shop/main/customers"]) {
      const r = cli("describe", "draft", id, "--json")
      expect(r.code).toBe(1)
      const error = errorOf(r)
      expect(error.code).toBe("SCHEMA_MIGRATION_REQUIRED")
      expect(error.message).toContain("table columns")
      expect(error.message).toContain("m_evidence")
      expect(error.message).not.toContain("oops")
      expect(error.fix).toMatch(/delete \.catalog and re-scan/)
    }
  })

  it("reads as SCHEMA_MIGRATION_REQUIRED on every read surface: CLI show, HTTP (409) and the MCP tool", async () => {
    const shown = cli("show", "shop/main/customers", "--json")
    expect(shown.code).toBe(1)
    expect(errorOf(shown).code).toBe("SCHEMA_MIGRATION_REQUIRED")

    const server = spawnCli(["open", "--port", "0", "--json"], { cwd: p.dir, env })
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = ""
        const t = setTimeout(() => reject(new Error("catalog open did not start")), 30_000)
        server.stdout!.on("data", (c: Buffer) => {
          out += c.toString()
          if (out.includes("\n")) {
            clearTimeout(t)
            resolve((JSON.parse(out.split("\n")[0]!) as { port: number }).port)
          }
        })
      })
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/datasets/shop/main/customers`)
      expect(res.status).toBe(409)
      const body = (await res.json()) as ErrorJson
      expect(body.error.code).toBe("SCHEMA_MIGRATION_REQUIRED")
      expect(body.error.message).toContain("m_evidence")
    } finally {
      server.kill("SIGTERM")
    }

    const client = new Client({ name: "corrupt-row", version: "0" })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [binPath, "mcp"],
        cwd: p.dir,
        env: { CATALOG_DATA: path.join(p.dir, ".catalog"), CATALOG_CONFIG: path.join(p.dir, "catalog.yml") },
        stderr: "pipe"
      })
    )
    try {
      const r = await client.callTool({ name: "get_dataset", arguments: { id: "shop/main/customers" } })
      expect(r.isError).toBe(true)
      expect((r.structuredContent as ErrorJson).error.code).toBe("SCHEMA_MIGRATION_REQUIRED")
    } finally {
      await client.close()
    }
  })
})
