/**
 * The process facts every program reads: working folder, environment, terminal. One tag so that
 * tests can run the real programs against a temporary folder and a chosen environment.
 */
import { Context, Layer } from "effect"
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

/** Who a human act is attributed to: `CATALOG_SIGNER_EMAIL` when set, else the OS user. */
export const actor = (e: AppEnvShape): string => {
  const signer = e.env["CATALOG_SIGNER_EMAIL"]
  if (signer !== undefined && signer.trim() !== "") return signer.trim()
  const user = e.env["USER"] ?? e.env["LOGNAME"] ?? e.env["USERNAME"]
  return user !== undefined && user !== "" ? `os:${user}` : "os:unknown"
}
