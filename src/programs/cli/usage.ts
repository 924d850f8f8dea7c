/**
 * Usage errors: what a command says when its input has the wrong shape. Every one exits 2 and carries
 * the code of the command it belongs to (CONFIG_INPUT_INVALID for `config …`, ADD_INPUT_INVALID for
 * `add …`), else INVALID_PARAM — whether @effect/cli found the problem or a handler did.
 */
import { Effect } from "effect"
import type { CatalogErrorShape } from "../../errors/define.js"
import {
  AddInputInvalid,
  AdminInputInvalid,
  ClassifyInputInvalid,
  ConfigInputInvalid,
  DoraInputInvalid,
  type ErrorInput,
  InvalidParam,
  RopaInputInvalid
} from "../../errors/index.js"

type UsageErrorClass = new(input: ErrorInput) => CatalogErrorShape

/** The command groups whose bad input has a code of its own in SPEC.md's registry. */
const groupCodes: Readonly<Record<string, UsageErrorClass>> = {
  add: AddInputInvalid,
  admin: AdminInputInvalid,
  annotate: RopaInputInvalid,
  classify: ClassifyInputInvalid,
  config: ConfigInputInvalid,
  dora: DoraInputInvalid
}

/** A usage error for the command named first in `args` (the user's arguments, without node and script). */
export const usageError = (args: ReadonlyArray<string>, input: Omit<ErrorInput, "usage">): CatalogErrorShape => {
  const first = args.find((a) => !a.startsWith("-"))
  const Cls = (first !== undefined ? groupCodes[first] : undefined) ?? InvalidParam
  return new Cls({ ...input, usage: true })
}

/** One positional argument a handler reads from its free arguments. */
export interface Positional {
  /** The name the error gives it (`param`). */
  readonly param: string
  /** What the error says when it is missing; given the arguments read before it. */
  readonly missing: string | ((before: ReadonlyArray<string>) => string)
  /** Takes every remaining argument, joined with spaces and trimmed; missing when that is empty. */
  readonly rest?: boolean
  /** A value of only spaces counts as missing. */
  readonly notBlank?: boolean
}

/**
 * The one way a handler turns missing (or extra) free arguments into its registry usage error (exit 2):
 * the first missing argument is named, in order; arguments beyond the last are "Unexpected arguments"
 * (unless the last takes the rest), named as the last. Gives the values, in the order of `params`.
 */
export const positionals = (
  given: ReadonlyArray<string>,
  spec: {
    /** The registry error the command raises for its input. */
    readonly error: UsageErrorClass
    readonly params: ReadonlyArray<Positional>
    readonly fix?: string
    /** The message for arguments beyond the last (default: "Unexpected arguments: …"). */
    readonly unexpected?: (given: ReadonlyArray<string>) => string
  }
): Effect.Effect<ReadonlyArray<string>, CatalogErrorShape> => {
  const fail = (message: string, param: string) =>
    Effect.fail(
      new spec.error({ message, ...(spec.fix !== undefined ? { fix: spec.fix } : {}), param, usage: true })
    )
  const values: Array<string> = []
  for (const [i, p] of spec.params.entries()) {
    const value = p.rest === true ? given.slice(i).join(" ").trim() : given[i]
    if (value === undefined || (p.rest === true || p.notBlank === true) && value.trim() === "") {
      return fail(typeof p.missing === "string" ? p.missing : p.missing(values), p.param)
    }
    values.push(value)
  }
  const last = spec.params[spec.params.length - 1]
  if (last !== undefined && last.rest !== true && given.length > spec.params.length) {
    return fail(
      spec.unexpected?.(given) ?? `Unexpected arguments: ${given.slice(spec.params.length).join(" ")}`,
      last.param
    )
  }
  return Effect.succeed(values)
}

/**
 * The handler of a command group (`glossary`, `dora`, …) run alone: a usage error naming its
 * subcommands, never a page of help that exits 0 and ignores `--json`.
 */
export const needsSubcommand = (name: string, subcommands: ReadonlyArray<string>) =>
  Effect.fail(usageError([name], {
    message: `\`catalog ${name}\` needs a subcommand: ${subcommands.join(", ")}.`,
    fix: `Run one of: ${
      subcommands.map((n) => `\`catalog ${name} ${n}\``).join(", ")
    }; \`catalog help ${name}\` shows their usage.`,
    param: "subcommand"
  }))
