/**
 * A source's connection secret: the variable named by `connectionRef`, or `CATALOG_SECRET_<ref>`.
 * The value is never written anywhere; only the variable's name appears in messages.
 */
import { Effect, Option } from "effect"
import * as path from "node:path"
import type { SourceConfig } from "../domain/Config.js"
import { SecretPlaceholderUnreplaced, SecretUnresolved } from "../errors/index.js"
import { AppEnv } from "./AppEnv.js"
import { Files } from "./Files.js"

/** What `add` writes into `.env` when the variable is missing; recognised as "not replaced yet". */
export const placeholderPrefix = "replace-me://"
export const placeholderFor = (kind: string): string => `${placeholderPrefix}${kind}-connection-string`
export const isPlaceholder = (v: string): boolean => v.startsWith(placeholderPrefix)

/** Which variable names are looked up for a source, in order. */
export const secretVariables = (ref: string): ReadonlyArray<string> => [ref, `CATALOG_SECRET_${ref}`]

/** Whether a source's connection variable (or its CATALOG_SECRET_ twin) holds anything; never reads it out. */
export const secretIsSet = (env: Readonly<Record<string, string | undefined>>, ref: string): boolean =>
  secretState(env, ref) === "set"

/**
 * What a source's connection variable holds, without reading it out: a value, the placeholder that
 * `catalog add` wrote (not usable yet), or nothing. Resolution order as in `resolve`.
 */
export const secretState = (
  env: Readonly<Record<string, string | undefined>>,
  ref: string
): "set" | "placeholder" | "missing" => {
  const value = secretVariables(ref).map((v) => env[v] ?? "").find((v) => v !== "")
  return value === undefined ? "missing" : isPlaceholder(value.trim()) ? "placeholder" : "set"
}

export class Secrets extends Effect.Service<Secrets>()("catalog/Secrets", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv
    const files = yield* Files
    /** The connection string of a source, or `null` for kinds without one (manual). */
    const resolve = Effect.fn("Secrets.resolve")(function*(source: SourceConfig, required: boolean) {
      const ref = source.connectionRef
      if (ref === undefined) {
        if (!required) return null
        return yield* new SecretUnresolved({
          message: `Source "${source.id}" has no connectionRef.`,
          fix:
            `Add connectionRef: <ENV_VAR_NAME> to source "${source.id}" in catalog.yml and set that variable in .env.`,
          param: "connectionRef"
        })
      }
      for (const name of secretVariables(ref)) {
        const v = env.env[name]
        if (v === undefined || v === "") continue
        if (isPlaceholder(v)) {
          return yield* new SecretPlaceholderUnreplaced({
            message: `${name} (source "${source.id}") still holds the placeholder written by \`catalog add\`.`,
            fix: `Replace the value of ${name} in ${path.join(env.cwd, ".env")} with the real connection string.`,
            param: name
          })
        }
        return v
      }
      return yield* new SecretUnresolved({
        message: `${ref} is not set (source "${source.id}").`,
        fix: `Set ${ref} (or CATALOG_SECRET_${ref}) to the connection string, in the environment or in ${
          path.join(env.cwd, ".env")
        }.`,
        param: ref
      })
    })

    /**
     * Appends `NAME="placeholder"` to `.env` when NAME is not set anywhere; returns whether it wrote.
     * The file holds secrets, so it is (re)written 0600 in one atomic replace. A `.env` that is not a
     * regular file, or cannot be read or written, is left alone: the placeholder is a convenience, and
     * `test`/`start` name the unset variable with its fix.
     */
    const writePlaceholder = Effect.fn("Secrets.writePlaceholder")(function*(name: string, kind: string) {
      const file = path.join(env.cwd, ".env")
      const kindNow = (yield* files.probe(file)).kind
      if (kindNow !== "missing" && kindNow !== "file") return false
      const existing = kindNow === "file" ? yield* Effect.option(files.readText(file)) : Option.some("")
      if (Option.isNone(existing)) return false
      const text = existing.value
      if (env.env[name] !== undefined || new RegExp(`^\\s*(export\\s+)?${name}\\s*=`, "m").test(text)) {
        return false
      }
      const sep = text === "" || text.endsWith("\n") ? "" : "\n"
      return yield* files.writePrivateFile(
        file,
        `${text}${sep}# connection string for the ${kind} source; replace the placeholder\n${name}="${
          placeholderFor(kind)
        }"\n`
      ).pipe(Effect.as(true), Effect.orElseSucceed(() => false))
    })
    return { resolve, writePlaceholder } as const
  })
}) {}
