/**
 * Usage errors: what a command says when its input has the wrong shape. Every one exits 2 and carries
 * the code of the command it belongs to (CONFIG_INPUT_INVALID for `config …`, ADD_INPUT_INVALID for
 * `add …`), else INVALID_PARAM — whether @effect/cli found the problem or a handler did.
 */
import { Effect } from "effect"
import type { CatalogErrorShape } from "../../errors/define.js"
import {
  AddInputInvalid,
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
