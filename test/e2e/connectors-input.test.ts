/**
 * What the file-based connectors accept, through the built CLI: a dbt manifest claiming schema v1 or
 * v99, or holding no nodes, is refused by `add dbt` (ADD_INPUT_INVALID naming `from`) and by the scan
 * (SOURCE_UNREACHABLE), each message naming what is wrong; and `add` never quotes the file it
 * refuses (an .env passed as a dictionary or a manifest keeps its secrets).
 */
import { afterAll, describe, expect, it } from "vitest"
import { runCli, tempProject, writeFile } from "../utils/cli.js"

const manifest = (version: string, nodes: unknown) =>
  JSON.stringify({
    metadata: { dbt_schema_version: `https://schemas.getdbt.com/dbt/manifest/${version}.json`, dbt_version: "1.8.0" },
    nodes
  })
const node = {
  "model.p.orders": {
    unique_id: "model.p.orders",
    resource_type: "model",
    schema: "main",
    name: "orders",
    depends_on: { nodes: ["model.p.customers"] }
  },
  "model.p.customers": {
    unique_id: "model.p.customers",
    resource_type: "model",
    schema: "main",
    name: "customers",
    depends_on: { nodes: [] }
  }
}

describe("dbt manifests: only schema v10–v12 with nodes", () => {
  const p = tempProject("ldc-dbt-in-")
  afterAll(() => p.cleanup())
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir })

  it("add dbt refuses v1, v99 and an empty manifest naming --from and the cause; the scan refuses them too", () => {
    writeFile(p.dir, "dict.csv", "table,column,type\ncustomers,email,text\norders,id,int\n")
    expect(cli("add", "manual", "--from", "dict.csv", "--id", "wh", "--yes", "--json").code).toBe(0)
    const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
      ["v1.json", manifest("v1", node), /dbt_schema_version is manifest v1; supported are manifest v10–v12/],
      ["v99.json", manifest("v99", node), /dbt_schema_version is manifest v99; supported are manifest v10–v12/],
      ["empty.json", manifest("v12", {}), /holds no nodes/]
    ]
    for (const [file, text, says] of cases) {
      writeFile(p.dir, file, text)
      const r = cli("add", "dbt", "--from", file, "--target", "wh", "--id", "lineage", "--yes", "--json")
      expect(r.code, file).toBe(1)
      const e = (r.json as { error: { code: string; message: string; param: string } }).error
      expect(e.code).toBe("ADD_INPUT_INVALID")
      expect(e.param).toBe("from")
      expect(e.message).toMatch(says)
    }
    // A good manifest is accepted.
    writeFile(p.dir, "manifest.json", manifest("v12", node))
    expect(cli("add", "dbt", "--from", "manifest.json", "--target", "wh", "--id", "lineage", "--yes", "--json").code)
      .toBe(0)
    expect(cli("start", "--json").code).toBe(0)
    // The file is later replaced by one the connector must refuse: the scan reports it with a code.
    for (const [, text, says] of cases) {
      writeFile(p.dir, "manifest.json", text)
      const start = cli("start", "--json")
      expect(start.code, start.stdout + start.stderr).toBe(0)
      const lineage = (start.json as {
        sources: ReadonlyArray<{ id: string; reached: boolean; error: { code: string; message: string } | null }>
      }).sources.find((s) => s.id === "lineage")
      expect(lineage?.reached).toBe(false)
      expect(lineage?.error?.code).toBe("SOURCE_UNREACHABLE")
      expect(lineage?.error?.message).toMatch(says)
      const t = cli("test", "lineage", "--json")
      expect(t.code).toBe(1)
      expect((t.json as { error: { code: string; message: string } }).error.message).toMatch(says)
    }
  })

  it("add never quotes a refused file: an .env as a dictionary or as a manifest", () => {
    const secret = "Pl4nted-AddInput-S3cret"
    writeFile(p.dir, "app.env", `DATABASE_URL=postgres://app:${secret}@db.internal:5432/app\nTOKEN=${secret}\n`)
    for (
      const args of [["add", "manual", "--from", "app.env", "--id", "m2", "--yes"], [
        "add",
        "dbt",
        "--from",
        "app.env",
        "--target",
        "wh",
        "--id",
        "d2",
        "--yes"
      ]]
    ) {
      for (const json of [true, false]) {
        const r = cli(...args, ...(json ? ["--json"] : []))
        expect(r.code).toBe(1)
        expect(r.stdout + r.stderr).toContain("ADD_INPUT_INVALID")
        expect(r.stdout + r.stderr).not.toContain(secret)
      }
    }
  })
})
