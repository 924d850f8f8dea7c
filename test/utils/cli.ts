/** Runs the built CLI (dist/bin.js) as a separate process, as users and agents do. */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export const repoRoot = path.resolve(import.meta.dirname, "../..")
export const binPath = path.join(repoRoot, "dist", "bin.js")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** stdout parsed as JSON (undefined when it is not JSON). */
  readonly json: unknown
}

/** A clean environment: no inherited CATALOG_* variables, never interactive. */
export const baseEnv = (extra: Record<string, string | undefined> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("CATALOG_") && k !== "CI") env[k] = v
  }
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v
  return env
}

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

export const runCli = (
  args: ReadonlyArray<string>,
  opts: { readonly cwd: string; readonly env?: Record<string, string | undefined> }
): CliResult => {
  const r = spawnSync(process.execPath, [binPath, ...args], {
    cwd: opts.cwd,
    env: baseEnv(opts.env),
    encoding: "utf8",
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024
  })
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: parse(r.stdout) }
}

/** Async variant, for long scans run while the test does something else (e.g. kill mid-scan). */
export const spawnCli = (
  args: ReadonlyArray<string>,
  opts: { readonly cwd: string; readonly env?: Record<string, string | undefined> }
) =>
  spawn(process.execPath, [binPath, ...args], {
    cwd: opts.cwd,
    env: baseEnv(opts.env),
    stdio: ["ignore", "pipe", "pipe"]
  })

/** A temporary working folder, removed by the returned cleanup. */
export const tempProject = (prefix = "ldc-"): { readonly dir: string; readonly cleanup: () => void } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

export const writeFile = (dir: string, name: string, text: string): string => {
  const p = path.join(dir, name)
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
  return p
}
