/**
 * Real processes for end-to-end tests of the share flow: the built CLI run without blocking this
 * process (so servers living in the test's own event loop — the fake Postmark — can answer while it
 * runs), and `catalog admin serve --port 0 --json` as a separate process, resolved once it prints its
 * one `--json` line, with everything it wrote kept for the leak checks.
 */
import type { ChildProcess } from "node:child_process"
import { type CliResult, spawnCli } from "./cli.js"

/** Runs `catalog <args>` (dist/bin.js) as a child process and resolves when it exits. */
export const runCliAsync = (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string | undefined> = {}
): Promise<CliResult> =>
  new Promise((resolve) => {
    const child = spawnCli(args, { cwd, env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")))
    child.on("close", (code) => {
      let json: unknown = undefined
      try {
        json = JSON.parse(stdout)
      } catch {
        json = undefined
      }
      resolve({ code: code ?? -1, stdout, stderr, json })
    })
  })

/** The line `admin serve --json` prints once listening. */
export interface PortalListening {
  readonly url: string
  readonly api: string
  readonly port: number
  readonly storage: string
  readonly publicUrl: string
}

export interface PortalProcess {
  readonly child: ChildProcess
  readonly info: PortalListening
  /** Everything the process wrote so far. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** SIGTERM, then the exit code (null when killed by a signal). Idempotent. */
  readonly stop: () => Promise<number | null>
}

/** Starts `catalog admin serve --json --port 0` in `cwd` with `env`; rejects if it exits before listening. */
export const startPortalProcess = (cwd: string, env: Record<string, string>): Promise<PortalProcess> =>
  new Promise((resolve, reject) => {
    const child = spawnCli(["admin", "serve", "--json", "--port", "0"], { cwd, env })
    let out = ""
    let err = ""
    let exited: Promise<number | null> | null = null
    const exit = new Promise<number | null>((r) => child.on("exit", (code) => r(code)))
    child.stderr.on("data", (b: Buffer) => (err += b.toString("utf8")))
    child.stdout.on("data", (b: Buffer) => {
      const first = !out.includes("\n")
      out += b.toString("utf8")
      if (first && out.includes("\n")) {
        resolve({
          child,
          info: JSON.parse(out.split("\n")[0]!) as PortalListening,
          stdout: () => out,
          stderr: () => err,
          stop: () => {
            if (exited === null) {
              exited = exit
              child.kill("SIGTERM")
            }
            return exited
          }
        })
      }
    })
    void exit.then((code) => {
      if (!out.includes("\n")) reject(new Error(`admin serve exited ${code} before listening: ${err}`))
    })
  })
