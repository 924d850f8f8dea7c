/**
 * The process facts every program reads: working folder, environment, terminal. One tag so that
 * tests can run the real programs against a temporary folder and a chosen environment.
 */
import { Context, Effect, Layer } from "effect"
import * as os from "node:os"
import * as path from "node:path"

export interface AppEnvShape {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** stdin and stderr are terminals and nothing forbids prompting (`--non-interactive`, `CI`). */
  readonly interactive: boolean
  /** stderr is a terminal: progress may be drawn there. */
  readonly stderrIsTTY: boolean
}

export class AppEnv extends Context.Tag("catalog/AppEnv")<AppEnv, AppEnvShape>() {
  /** The real process. */
  static readonly live = (opts: { readonly nonInteractive: boolean }): Layer.Layer<AppEnv> =>
    Layer.sync(AppEnv, () => {
      const ci = process.env["CI"]
      const inCi = ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false"
      return {
        cwd: process.cwd(),
        env: process.env,
        interactive: !opts.nonInteractive && !inCi && process.stdin.isTTY === true && process.stderr.isTTY === true,
        stderrIsTTY: process.stderr.isTTY === true
      }
    })
}

/** Where the local catalog lives: `CATALOG_DATA`, else `.catalog/` in the working folder. */
export const dataDir = (e: AppEnvShape): string => {
  const v = e.env["CATALOG_DATA"]
  return v !== undefined && v !== "" ? path.resolve(e.cwd, v) : path.join(e.cwd, ".catalog")
}

/** The operating system's account name: the account itself first, then the usual variables. */
const osAccount = (e: AppEnvShape): string | null => {
  try {
    const name = os.userInfo().username
    if (name !== "") return name
  } catch {
    // No passwd entry for this uid (e.g. a container's arbitrary uid): fall back to the variables.
  }
  for (const k of ["USER", "LOGNAME", "USERNAME"]) {
    const v = e.env[k]
    if (v !== undefined && v.trim() !== "") return v.trim()
  }
  return null
}

/** Who a human act is attributed to: `CATALOG_SIGNER_EMAIL` when set, else the OS account. */
export const actor = (e: AppEnvShape): string => {
  const signer = e.env["CATALOG_SIGNER_EMAIL"]
  if (signer !== undefined && signer.trim() !== "") return signer.trim()
  const user = osAccount(e)
  return user !== null ? `os:${user}` : `os:uid-${process.getuid?.() ?? "unknown"}`
}

/**
 * A line for the human on stderr (a warning, where a server listens, a note beside a result). Programs
 * use this, not `Console.error`: while a CLI command runs, that channel is reserved for the CLI
 * library's own parse errors, which the CLI reprints once in the registry's shape.
 */
export const stderrLine = (line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    process.stderr.write(line + "\n")
  })
