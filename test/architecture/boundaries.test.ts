/**
 * What each folder of src/ may import (docs/architecture.md) is enforced by the linter: these cases lint a
 * one-line file placed in each folder and expect the wrong-way arrow to be an error, the right-way one not.
 */
import { ESLint } from "eslint"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")
const eslint = new ESLint({ cwd: root })

/** The boundary rules' messages for `code` as if it were the file `file`. */
const violations = async (file: string, code: string): Promise<ReadonlyArray<string>> => {
  const [result] = await eslint.lintText(`${code}\n`, { filePath: path.join(root, file) })
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === "no-restricted-imports" || m.ruleId === "no-restricted-syntax")
    .map((m) => m.message)
}

describe("import boundaries", () => {
  it.each([
    ["src/domain/X.ts", `import "../errors/index.js"`],
    ["src/errors/X.ts", `import "../services/Store.js"`],
    ["src/classifier/X.ts", `import "../services/Store.js"`],
    ["src/dora/X.ts", `import "../layers/Main.js"`],
    ["src/services/X.ts", `import "../layers/NodeSqlite.js"`],
    ["src/services/reader/X.ts", `import "../../layers/store/index.js"`],
    ["src/services/X.ts", `export const lazy = () => import("../layers/connectors/Dbt.js")`],
    ["src/services/X.ts", `import "../programs/cli/render.js"`],
    ["src/services/X.ts", `import "node:sqlite"`],
    ["src/services/X.ts", `import "pg"`],
    ["src/services/X.ts", `import "mysql2/promise"`],
    ["src/services/X.ts", `import * as fs from "node:fs"`],
    ["src/services/X.ts", `export const at = () => new Date().toISOString()`],
    ["src/services/X.ts", `export const at = () => Date.now()`],
    ["src/layers/X.ts", `import "../programs/http/Api.js"`],
    ["src/programs/cli/X.ts", `import "../mcp/tools.js"`],
    ["src/programs/mcp/X.ts", `import "../http/Api.js"`],
    ["src/programs/http/X.ts", `import "../cli/render.js"`]
  ])("%s may not: %s", async (file, code) => {
    expect(await violations(file, code)).not.toEqual([])
  })

  it.each([
    ["src/domain/X.ts", `import "./Metadata.js"`],
    ["src/classifier/X.ts", `import "../domain/Metadata.js"`],
    ["src/services/X.ts", `import "../domain/Metadata.js"; import "../errors/index.js"; import "../dora/register.js"`],
    ["src/layers/X.ts", `import "../services/Store.js"; import "node:sqlite"`],
    ["src/programs/cli/X.ts", `import "../../layers/Main.js"; import "../../services/Reader.js"`]
  ])("%s may: %s", async (file, code) => {
    expect(await violations(file, code)).toEqual([])
  })
})
