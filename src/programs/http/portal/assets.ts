/**
 * The local portal page served by `catalog open` at `/`: one HTML shell, one stylesheet, one
 * browser script and an icon, all bundled into dist/ (see bundle.mjs). The page only reads: it
 * calls the read API (/api/v1) and nothing else. The one thing it cannot get from the API, the
 * MCP registration block with this machine's absolute paths, is computed here when "/" is served
 * and embedded in the HTML as JSON.
 */
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import assets from "virtual:portal-assets"
import {
  type LaunchCommand,
  launchCommand,
  listedTools,
  type McpToolInfo,
  registrationBlock,
  registrationCommand
} from "../../../domain/Agents.js"
import { type AppEnvShape, dataDir } from "../../../services/AppEnv.js"
import { configCandidates } from "../../../services/ConfigFile.js"
import { version } from "../../../version.js"

export interface PortalAsset {
  readonly body: string | Uint8Array
  readonly contentType: string
}

/** What the Agents (MCP) screen shows; the page picks the tool list from `/api/v1/dora`'s `inScope`. */
export interface AgentsConfig {
  readonly version: string
  readonly dataDir: string
  readonly configPath: string | null
  /** The `mcpServers` block, the same `catalog mcp --print-config` prints. */
  readonly block: ReturnType<typeof registrationBlock>
  /** The one-line `claude mcp add` registration. */
  readonly command: string
  /** What the block starts: this very build (Node binary + entry file), or npx when installed from a registry. */
  readonly launch: LaunchCommand
  readonly tools: {
    readonly doraOutOfScope: ReadonlyArray<McpToolInfo>
    readonly doraInScope: ReadonlyArray<McpToolInfo>
  }
}

const readText = (file: string): string | null => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return null
  }
}

/**
 * The command that starts this very build, decided as `catalog mcp --print-config` decides it
 * (`launchCommand`): the bundle's chunks sit next to its entry in dist/, and the Node binary running
 * now is one src/bin.ts has already accepted.
 */
const thisBuildLaunch = (): LaunchCommand =>
  launchCommand(
    { nodePath: process.execPath, entry: fileURLToPath(new URL("./bin.js", import.meta.url)), readText },
    version
  )

/** The registration facts for the process's working folder and environment (as `catalog mcp --print-config`). */
export const agentsConfig = (
  proc: { readonly cwd: string; readonly env: Readonly<Record<string, string | undefined>> } = {
    cwd: process.cwd(),
    env: process.env
  },
  launch: LaunchCommand = thisBuildLaunch()
): AgentsConfig => {
  const e: AppEnvShape = { cwd: proc.cwd, env: proc.env, interactive: false, stderrIsTTY: false }
  const paths = { dataDir: dataDir(e), configPath: configCandidates(e).find((p) => fs.existsSync(p)) ?? null }
  return {
    version,
    dataDir: paths.dataDir,
    configPath: paths.configPath,
    block: registrationBlock(paths, launch),
    command: registrationCommand(paths, launch),
    launch,
    tools: { doraOutOfScope: listedTools(false), doraInScope: listedTools(true) }
  }
}

/** JSON that is safe inside a `<script>` element: no `<`, `>`, `&` or line separators left raw. */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")

export const indexHtml = (config: AgentsConfig = agentsConfig()): string =>
  assets.html.replace(
    "<!--AGENTS_CONFIG-->",
    () => `<script type="application/json" id="agents-config">${jsonForScript(config)}</script>`
  )

/** The paths `portalAsset` answers. */
export const portalPaths: ReadonlyArray<string> = [
  "/",
  "/index.html",
  "/assets/app.js",
  "/assets/app.css",
  "/assets/icon.svg"
]

/** The page and its assets by URL path (a query string is ignored); null for anything else. */
export const portalAsset = (path: string): PortalAsset | null => {
  const p = path.split(/[?#]/)[0]
  switch (p) {
    case "/":
    case "/index.html":
      return { body: indexHtml(), contentType: "text/html; charset=utf-8" }
    case "/assets/app.js":
      return { body: assets.js, contentType: "text/javascript; charset=utf-8" }
    case "/assets/app.css":
      return { body: assets.css, contentType: "text/css; charset=utf-8" }
    case "/assets/icon.svg":
      return { body: assets.icon, contentType: "image/svg+xml" }
    default:
      return null
  }
}
