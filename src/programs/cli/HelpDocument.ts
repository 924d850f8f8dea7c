/**
 * `help` (and `--help --json`): generated from the command tree — each command's summary and options
 * are the descriptions on the tree — joined with what spec.ts adds (order, usage, examples, codes)
 * and the CLI part of the error registry.
 */
import { Effect } from "effect"
import { edition } from "../../edition.js"
import { cliRegistry, InvalidParam } from "../../errors/index.js"
import { version } from "../../version.js"
import { type CommandNode, commandTree, groupOptions } from "./CommandTree.js"
import { bold, dim, emit, table } from "./render.js"
import { type CommandDoc, commandNotes, environmentDocs, globalOptions, json } from "./spec.js"

/**
 * A summary's first sentence, for the one-line command list: it ends at a full stop that closes the
 * sentence, never inside parentheses ("The RoPA draft (Art. 30) …") or after an abbreviation.
 */
export const firstSentence = (text: string): string => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === "(" || ch === "[") depth++
    else if ((ch === ")" || ch === "]") && depth > 0) depth--
    else if (ch === "." && depth === 0) {
      const next = text.slice(i + 1)
      const word = /(\S+)$/.exec(text.slice(0, i))?.[1] ?? ""
      const abbreviation = /^(e\.g|i\.e|etc|vs|Art|No|cf)$/i.test(word)
      if (!abbreviation && (next === "" || /^\s+[A-Z`"(]/.test(next))) return text.slice(0, i)
    }
  }
  return text.replace(/\.$/, "")
}

/**
 * A registry fix as this build can honour it. Codes of later releases (the portal's) name commands
 * that have not shipped yet; until they do, the fix says so instead of sending a user to a command
 * that does not exist. Checked against the real command list, so it flips when the command lands.
 */
const availableFix = (known: ReadonlySet<string>) => (fix: string | null): string | null => {
  if (fix === null) return null
  const missing = [...fix.matchAll(/`catalog ([a-z][a-z-]*)/g)].map((m) => m[1]!).find((w) => !known.has(w))
  return missing === undefined
    ? fix
    : `Not raised by this build: \`${missing}\` ships with the portal, in a later release.`
}

/**
 * Each top-level command of the tree documented: the tree gives its summary and options (its own,
 * then its subcommands'), spec.ts the rest. A command without notes, or notes without a command, is
 * a programming error and throws.
 */
export const commandDocsOf = (tree: CommandNode): ReadonlyArray<CommandDoc> => {
  const byName = new Map(tree.subcommands.map((c) => [c.name, c]))
  const undocumented = tree.subcommands.filter((c) => !commandNotes.some((n) => n.name === c.name))
  if (undocumented.length > 0) throw new Error(`No help notes for: ${undocumented.map((c) => c.name).join(", ")}`)
  return commandNotes.map((notes) => {
    const command = byName.get(notes.name)
    if (command === undefined) throw new Error(`Help notes for a command the tree lacks: ${notes.name}`)
    return {
      name: notes.name,
      usage: notes.usage,
      summary: command.description,
      options: [...groupOptions(command), ...(notes.flags ?? []), json],
      examples: notes.examples,
      errors: notes.errors,
      writes: notes.writes
    }
  })
}

/** The whole help document for the tree whose root is `tree`. */
export const helpDocumentOf = (tree: CommandNode) => {
  const commands = commandDocsOf(tree)
  const fixFor = availableFix(new Set(commands.map((c) => c.name)))
  return {
    tool: "catalog",
    package: "local-data-catalog",
    version,
    /** "free" (the npm package: no official export and attestation) or "full" (src/edition.ts). */
    edition,
    usage: "catalog <command> [options]",
    globalOptions,
    exitCodes: {
      "0": "ok",
      "1": "error (a registry code)",
      "2": "usage (unknown command or flag, missing or invalid parameter)",
      "3": "a core RoPA field moved (watch --ci)"
    },
    commands,
    environment: environmentDocs,
    errors: cliRegistry.map((e) => ({
      code: e.code,
      group: e.group,
      message: e.message,
      fix: fixFor(e.fix),
      exitCode: e.exitCode
    }))
  }
}

export type HelpDocument = ReturnType<typeof helpDocumentOf>

/** Memoized help of one command (a `Command` of @effect/cli): the tree is read once per process. */
export const helpDocumentFor = (command: { readonly descriptor: unknown }): () => HelpDocument => {
  let doc: HelpDocument | undefined
  return () => (doc ??= helpDocumentOf(commandTree(command)))
}

/** `catalog help [command]`: the command list, or one command's page (with its registry codes). */
export const showHelp = (doc: HelpDocument, command: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (command.length === 0) {
      yield* emit(doc, (d) =>
        [
          `${
            bold("catalog")
          } ${d.version} — maps where personal data lives (metadata only) and drafts the records that follow.`,
          "",
          table(["command", "what it does"], d.commands.map((c) => [c.name, firstSentence(c.summary)])),
          "",
          `Global: ${d.globalOptions.map((g) => g.flag).join(" · ")}`,
          `Exit codes: 0 ok · 1 error · 2 usage · 3 a core RoPA field moved`,
          dim("catalog help <command> for usage and examples; catalog help --json for the error registry.")
        ].join("\n"))
      return
    }
    const name = command.join(" ")
    const one = doc.commands.find((c) => c.name === name || c.name === command[0])
    if (!one) {
      return yield* new InvalidParam({
        message: `Unknown command "${name}".`,
        fix: `Known commands: ${doc.commands.map((c) => c.name).join(", ")}.`,
        param: "command"
      })
    }
    const errors = doc.errors.filter((e) => one.errors.includes(e.code))
    yield* emit({ ...one, errors }, (c) =>
      [
        bold(c.usage),
        "",
        c.summary,
        "",
        ...c.options.map((o) => `  ${o.flag.padEnd(28)} ${o.description}`),
        "",
        "Examples:",
        ...c.examples.map((e) => `  ${e}`),
        ...(c.errors.length > 0
          ? ["", "Errors:", ...c.errors.map((e) => `  ${e.code} — ${e.message}${e.fix ? ` Fix: ${e.fix}` : ""}`)]
          : [])
      ].join("\n"))
  })
