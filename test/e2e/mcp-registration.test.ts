/**
 * The MCP registration works wherever the tool runs from ("Trust, first", item 1). The block that
 * `catalog mcp --print-config` prints, the `claude mcp add` one-liner and the portal's Agents screen
 * all name the same launch command: this very build (the Node binary running it + its absolute
 * entry file + `mcp`), or `npx -y local-data-catalog@<version> mcp` only where npm recorded that the
 * package came from a registry. Before, all of them printed the npx form, which resolves nowhere (the
 * package is on no registry) and finds no `catalog` inside a clone.
 *
 * The block is tested by starting exactly what it says — command, args and env from the JSON —
 * from an empty folder, with only the block's env (plus the SDK's default env), with the SDK's real
 * Client over stdio.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  isRegistryTarball,
  launchCommand,
  packageName,
  recordedOrigin,
  registrationBlock,
  registrationCommand
} from "../../src/domain/Agents.js"
import { binPath, repoRoot, runCli, spawnCli, tempProject, writeFile } from "../utils/cli.js"

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  name: string
  version: string
}
type Entry = { command: string; args: Array<string>; env: Record<string, string> }
type Block = { mcpServers: Record<string, Entry> }

// A project folder with a space in its path, so every printed form has to quote.
const project = tempProject("ldc mcp reg ")
const dir = fs.realpathSync(project.dir)
const scratch = tempProject("ldc-mcp-reg-scratch-")
const env = { CRM_DB: path.join(dir, "crm db.sqlite"), USER: "tester" }
const dataDir = path.join(dir, ".catalog")
const configPath = path.join(dir, "catalog.yml")
const entryFile = fs.realpathSync(binPath)

let printed: { block: Block; entry: Entry; stderr: string; oneLiner: string }

const printConfig = (cwd: string, bin?: string) => {
  const r = bin === undefined
    ? runCli(["mcp", "--print-config"], { cwd, env })
    : spawnSync(process.execPath, [bin, "mcp", "--print-config"], {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" },
      encoding: "utf8"
    })
  const code = "code" in r ? r.code : r.status
  if (code !== 0) throw new Error(`mcp --print-config exited ${code}: ${r.stdout}${r.stderr}`)
  const block = JSON.parse(r.stdout) as Block
  return {
    block,
    entry: block.mcpServers["catalog"]!,
    stderr: r.stderr,
    oneLiner: /^\s*(claude mcp add .*)$/m.exec(r.stderr)?.[1] ?? ""
  }
}

beforeAll(() => {
  const db = new DatabaseSync(env.CRM_DB)
  db.exec("CREATE TABLE contacts (id INTEGER PRIMARY KEY, email TEXT, phone TEXT, birth_date DATE)")
  db.close()
  for (const args of [["add", "sqlite", "--ref", "CRM_DB", "--id", "crm", "--json"], ["start", "--json"]]) {
    const r = runCli(args, { cwd: dir, env })
    if (r.code !== 0) throw new Error(`catalog ${args.join(" ")}: ${r.stdout}${r.stderr}`)
  }
  printed = printConfig(dir)
})

afterAll(() => {
  project.cleanup()
  scratch.cleanup()
})

describe("catalog mcp --print-config from a clone", () => {
  it("names this very build: the Node binary running it and the absolute dist/bin.js, then mcp (not npx)", () => {
    expect(Object.keys(printed.block.mcpServers)).toEqual(["catalog"])
    expect(printed.entry.command).not.toBe("npx")
    expect(printed.entry.command).toBe(process.execPath)
    expect(printed.entry.args).toEqual([entryFile, "mcp"])
    for (const p of [printed.entry.command, printed.entry.args[0]!]) {
      expect(path.isAbsolute(p)).toBe(true)
      expect(fs.existsSync(p)).toBe(true)
    }
    // the Node binary it names is one the CLI accepts (≥ 22.18)
    const v = spawnSync(printed.entry.command, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim()
    const [major = 0, minor = 0] = v.split(".").map(Number)
    expect(major > 22 || (major === 22 && minor >= 18), v).toBe(true)
    // SPEC.md §A rule 4: both paths absolute, CATALOG_CONFIG only because catalog.yml exists
    expect(printed.entry.env).toEqual({ CATALOG_DATA: dataDir, CATALOG_CONFIG: configPath })
    expect(printed.stderr).not.toContain("warning")
  })

  it("starting exactly the printed command, args and env from an empty folder gives a working server", async () => {
    const empty = fs.mkdtempSync(path.join(scratch.dir, "app-"))
    // Only the block's env; the SDK adds its default set (HOME, PATH, …) — PATH's node is irrelevant.
    const transport = new StdioClientTransport({
      command: printed.entry.command,
      args: printed.entry.args,
      env: printed.entry.env,
      cwd: empty,
      stderr: "pipe"
    })
    const client = new Client({ name: "registration-check", version: "0" })
    await client.connect(transport)
    try {
      expect(client.getServerVersion()).toMatchObject({ name: pkg.name, version: pkg.version })
      expect((await client.listTools()).tools).toHaveLength(8)
      const provenance = (await client.callTool({ name: "get_provenance", arguments: {} })) as CallToolResult
      expect(provenance.isError ?? false).toBe(false)
      expect(provenance.structuredContent).toMatchObject({ seal: "draft" })
      const hits = (await client.callTool({ name: "search_datasets", arguments: { q: "email" } })) as CallToolResult
      expect(JSON.stringify(hits.structuredContent)).toContain("crm/main/contacts/email")
    } finally {
      await client.close()
    }
    expect(fs.readdirSync(empty)).toEqual([]) // it wrote nothing where it was started
  })

  it("before the first scan it still prints the block, and warns on stderr (SPEC.md §A rule 5)", () => {
    const fresh = fs.mkdtempSync(path.join(scratch.dir, "fresh-"))
    const r = printConfig(fresh)
    expect(r.entry).toEqual({
      command: process.execPath,
      args: [entryFile, "mcp"],
      env: { CATALOG_DATA: path.join(fresh, ".catalog") }
    })
    expect(r.stderr).toMatch(/warning: there is no catalog at .* yet/)
    expect(r.stderr.indexOf("warning")).toBeLessThan(r.stderr.indexOf("claude mcp add"))
  })

  it("the claude mcp add one-liner, run by a shell, passes the same env and the same command after --", () => {
    expect(printed.oneLiner).toMatch(/^claude mcp add catalog --env CATALOG_DATA=/)
    expect(printed.oneLiner).toBe(
      registrationCommand({ dataDir, configPath }, { command: printed.entry.command, args: printed.entry.args })
    )
    // a stand-in `claude` that prints the arguments the shell gave it, NUL-separated
    const bin = path.join(scratch.dir, "bin")
    writeFile(bin, "claude", "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n")
    fs.chmodSync(path.join(bin, "claude"), 0o755)
    const r = spawnSync("sh", ["-c", printed.oneLiner], {
      env: { PATH: `${bin}:${process.env["PATH"] ?? ""}` },
      encoding: "utf8"
    })
    expect(r.status, r.stderr).toBe(0)
    const argv = r.stdout.split("\0").slice(0, -1)
    expect(argv).toEqual([
      "mcp",
      "add",
      "catalog",
      "--env",
      `CATALOG_DATA=${dataDir}`,
      "--env",
      `CATALOG_CONFIG=${configPath}`,
      "--",
      printed.entry.command,
      ...printed.entry.args
    ])
  })

  it("the portal's Agents screen (the AgentsConfig embedded in the page) names the same block and command", async () => {
    const server: ChildProcess = spawnCli(["open", "--port", "0", "--json"], { cwd: dir, env })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ""
        let err = ""
        const timer = setTimeout(() => reject(new Error(`catalog open did not start: ${err}`)), 30_000)
        server.stderr!.on("data", (d: Buffer) => (err += d.toString()))
        server.stdout!.on("data", (d: Buffer) => {
          out += d.toString()
          const line = out.split("\n").find((l) => l.trim().startsWith("{") && l.includes("\"url\""))
          if (line !== undefined) {
            clearTimeout(timer)
            resolve((JSON.parse(line) as { url: string }).url)
          }
        })
      })
      const html = await (await fetch(url)).text()
      const json = /<script type="application\/json" id="agents-config">([^<]*)<\/script>/.exec(html)?.[1]
      expect(json).toBeDefined()
      const cfg = JSON.parse(json!) as {
        block: Block
        command: string
        launch: { command: string; args: Array<string> }
      }
      expect(cfg.block.mcpServers["catalog"]?.command).toBe(process.execPath)
      expect(cfg.block).toEqual(printed.block)
      // the one-liner --print-config prints for this block (its stderr copy is checked above)
      expect(cfg.command).toBe(
        registrationCommand({ dataDir, configPath }, { command: printed.entry.command, args: printed.entry.args })
      )
      expect(cfg.launch).toEqual({ command: printed.entry.command, args: printed.entry.args })
    } finally {
      server.kill()
    }
  })
})

describe("npx only where npm recorded a registry origin (a copy of this build laid out as an npm install)", () => {
  const registryUrl = (version: string) => `https://registry.npmjs.org/${pkg.name}/-/${pkg.name}-${version}.tgz`
  const root = path.join(scratch.dir, "install")
  const installed = path.join(root, "node_modules", pkg.name)
  const installedBin = path.join(installed, "dist", "bin.js")
  const hiddenLock = path.join(root, "node_modules", ".package-lock.json")
  const lock = (resolved: string) =>
    JSON.stringify({
      name: "install",
      lockfileVersion: 3,
      requires: true,
      packages: { [`node_modules/${pkg.name}`]: { version: pkg.version, resolved } }
    })

  beforeAll(() => {
    fs.mkdirSync(path.join(installed, "dist"), { recursive: true })
    fs.copyFileSync(path.join(repoRoot, "package.json"), path.join(installed, "package.json"))
    for (const f of fs.readdirSync(path.dirname(binPath))) {
      if (f.endsWith(".js")) fs.copyFileSync(path.join(path.dirname(binPath), f), path.join(installed, "dist", f))
    }
  })

  const clean = () => {
    fs.rmSync(hiddenLock, { force: true })
    fs.rmSync(path.join(root, "package-lock.json"), { force: true })
  }

  it("a registry tarball of this version in node_modules/.package-lock.json → npx -y <name>@<version> mcp", () => {
    clean()
    fs.writeFileSync(hiddenLock, lock(registryUrl(pkg.version)))
    const r = printConfig(dir, installedBin)
    expect(r.entry.command).toBe("npx")
    expect(r.entry.args).toEqual(["-y", `${pkg.name}@${pkg.version}`, "mcp"])
    expect(r.entry.env).toEqual({ CATALOG_DATA: dataDir, CATALOG_CONFIG: configPath })
    expect(r.oneLiner).toMatch(new RegExp(` -- npx -y ${pkg.name}@${pkg.version.replace(/\./g, "\\.")} mcp$`))
    // and stderr says what to use if the AI application's PATH has an older node
    expect(r.stderr).toContain(JSON.stringify([fs.realpathSync(installedBin), "mcp"]))
  })

  it("the project's package-lock.json counts when there is no hidden lockfile", () => {
    clean()
    fs.writeFileSync(path.join(root, "package-lock.json"), lock(registryUrl(pkg.version)))
    expect(printConfig(dir, installedBin).entry.command).toBe("npx")
  })

  it("a file: tarball, another version's tarball, a link or no lockfile → the installed copy's own entry, absolute", () => {
    for (
      const resolved of [`file:../${pkg.name}-${pkg.version}.tgz`, registryUrl("0.0.1"), "../local-data-catalog", null]
    ) {
      clean()
      if (resolved !== null) fs.writeFileSync(hiddenLock, lock(resolved))
      const r = printConfig(dir, installedBin)
      expect(r.entry.command, String(resolved)).toBe(process.execPath)
      expect(r.entry.args, String(resolved)).toEqual([fs.realpathSync(installedBin), "mcp"])
    }
  })
})

describe("launchCommand / recordedOrigin / registration (pure)", () => {
  const files = (map: Record<string, string>) => (p: string) => map[p] ?? null
  const facts = (entry: string, map: Record<string, string> = {}) => ({
    nodePath: "/opt/node22/bin/node",
    entry,
    readText: files(map)
  })
  const lockWith = (key: string, entry: Record<string, unknown>) => JSON.stringify({ packages: { [key]: entry } })
  const url = `https://registry.npmjs.org/${packageName}/-/${packageName}-1.2.3.tgz`

  it("the package name is package.json's", () => {
    expect(packageName).toBe(pkg.name)
  })

  it("a clone (no node_modules above the package) → the Node binary and the entry", () => {
    expect(launchCommand(facts("/src/catalog/dist/bin.js"), "1.2.3")).toEqual({
      command: "/opt/node22/bin/node",
      args: ["/src/catalog/dist/bin.js", "mcp"]
    })
  })

  it("looks the package up under its path from the project, also when nested, in the first lockfile that lists it", () => {
    const nested = `/p/node_modules/tool/node_modules/${packageName}/dist/bin.js`
    expect(
      recordedOrigin(
        facts(nested, {
          "/p/node_modules/.package-lock.json": lockWith(`node_modules/tool/node_modules/${packageName}`, {
            resolved: url
          })
        })
      )
    ).toBe(url)
    expect(
      launchCommand(
        facts(nested, {
          "/p/node_modules/.package-lock.json": lockWith(`node_modules/tool/node_modules/${packageName}`, {
            resolved: url
          })
        }),
        "1.2.3"
      ).command
    ).toBe("npx")
    // a lockfile that does not list it is skipped; a broken one too
    const top = `/g/lib/node_modules/${packageName}/dist/bin.js`
    expect(
      recordedOrigin(
        facts(top, {
          "/g/lib/node_modules/.package-lock.json": "{not json",
          "/g/lib/package-lock.json": lockWith(`node_modules/${packageName}`, { resolved: url })
        })
      )
    ).toBe(url)
    expect(
      recordedOrigin(
        facts(top, { "/g/lib/node_modules/.package-lock.json": lockWith("node_modules/other", { resolved: url }) })
      )
    ).toBeNull()
    // listed without `resolved` (npm's omit-lockfile-registry-resolved) → no evidence
    expect(
      launchCommand(
        facts(top, {
          "/g/lib/node_modules/.package-lock.json": lockWith(`node_modules/${packageName}`, { version: "1.2.3" })
        }),
        "1.2.3"
      ).command
    ).toBe("/opt/node22/bin/node")
  })

  it("only an http(s) registry tarball of exactly this version counts", () => {
    expect(isRegistryTarball(url, "1.2.3")).toBe(true)
    expect(
      isRegistryTarball(`https://npm.example.com/repository/npm/${packageName}/-/${packageName}-1.2.3.tgz`, "1.2.3")
    ).toBe(true)
    expect(isRegistryTarball(url, "1.2.4")).toBe(false)
    expect(isRegistryTarball(`file:../${packageName}-1.2.3.tgz`, "1.2.3")).toBe(false)
    expect(isRegistryTarball(`git+ssh://git@github.com/x/${packageName}.git#abc`, "1.2.3")).toBe(false)
    expect(isRegistryTarball(`https://registry.npmjs.org/other/-/other-1.2.3.tgz`, "1.2.3")).toBe(false)
    expect(isRegistryTarball("../local-data-catalog", "1.2.3")).toBe(false)
  })

  it("the block and the one-liner carry the launch command; the one-liner quotes for a POSIX shell", () => {
    const launch = { command: "/opt/my node/bin/node", args: ["/it's here/dist/bin.js", "mcp"] }
    const paths = { dataDir: "/data dir/.catalog", configPath: null }
    expect(registrationBlock(paths, launch)).toEqual({
      mcpServers: { catalog: { command: launch.command, args: launch.args, env: { CATALOG_DATA: paths.dataDir } } }
    })
    expect(registrationCommand(paths, launch)).toBe(
      "claude mcp add catalog --env CATALOG_DATA='/data dir/.catalog' -- '/opt/my node/bin/node' '/it'\\''s here/dist/bin.js' mcp"
    )
  })
})
