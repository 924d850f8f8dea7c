/**
 * The command tree read back as data, and `help` generated from it: every command, argument and
 * option of `catalog` carries its description on the tree, and the help document's summaries and
 * options are exactly those descriptions.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { helpDocument, root } from "../../../src/programs/cli/Cli.js"
import { commandTree, groupOptions, walkCommands } from "../../../src/programs/cli/CommandTree.js"
import { commandDocsOf } from "../../../src/programs/cli/HelpDocument.js"
import { commandNotes, json } from "../../../src/programs/cli/spec.js"

describe("commandTree", () => {
  it("reads names, descriptions, value placeholders, arguments and subcommands of a Command", () => {
    const leaf = Command.make("leaf", {
      word: Args.text({ name: "word" }).pipe(Args.withDescription("a word"), Args.repeated),
      limit: Options.text("limit").pipe(
        Options.withPseudoName("<n>"),
        Options.withDescription("how many"),
        Options.optional
      ),
      raw: Options.text("raw").pipe(Options.withAlias("r"), Options.withDescription("no placeholder")),
      flag: Options.boolean("flag").pipe(Options.withDescription("a switch"))
    }, () => Effect.void).pipe(Command.withDescription("The leaf."))
    const group = Command.make("group", {}, () => Effect.void).pipe(
      Command.withSubcommands([leaf]),
      Command.withDescription("The group.")
    )
    expect(commandTree(group)).toEqual({
      name: "group",
      description: "The group.",
      options: [],
      args: [],
      subcommands: [{
        name: "leaf",
        description: "The leaf.",
        options: [
          { flag: "--limit <n>", description: "how many" },
          { flag: "--raw, -r text", description: "no placeholder" },
          { flag: "--flag", description: "a switch" }
        ],
        args: [{ name: "<word>", description: "a word" }],
        subcommands: []
      }]
    })
  })

  it("a command without a description reads as an empty one", () => {
    expect(commandTree(Command.make("bare", {}, () => Effect.void)).description).toBe("")
  })
})

describe("the catalog command tree", () => {
  const tree = commandTree(root)

  it("describes every command, subcommand, argument and option on the tree itself", () => {
    const missing: Array<string> = []
    for (const { node, path } of walkCommands(tree)) {
      const where = path.join(" ")
      if (node.description.trim() === "") missing.push(where)
      for (const a of node.args) if (a.description.trim() === "") missing.push(`${where} ${a.name}`)
      for (const o of node.options) if (o.description.trim() === "") missing.push(`${where} ${o.flag}`)
    }
    expect(missing).toEqual([])
    // The walk reached the subcommands of the groups (three levels: catalog, group, subcommand).
    expect(walkCommands(tree).map((c) => c.path.join(" "))).toEqual(
      expect.arrayContaining(["catalog lineage add", "catalog config catalog-only", "catalog sources remove"])
    )
  })

  it("help's commands are the tree's: each summary and option is the description the tree holds", () => {
    const doc = helpDocument()
    expect(doc.commands.map((c) => c.name).sort()).toEqual(tree.subcommands.map((c) => c.name).sort())
    for (const c of doc.commands) {
      const node = tree.subcommands.find((n) => n.name === c.name)!
      expect(c.summary, c.name).toBe(node.description)
      const notes = commandNotes.find((n) => n.name === c.name)!
      // The command's own options and its subcommands' (tree), then its global-flag notes, then --json.
      expect(c.options, c.name).toEqual([...groupOptions(node), ...(notes.flags ?? []), json])
    }
    // Spot checks that the tree, not a copy, is what help prints.
    const log = doc.commands.find((c) => c.name === "log")!
    expect(log.options[0]).toEqual({
      flag: "--since <seq|timestamp>",
      description: "a change sequence number or an ISO-8601 timestamp (default: the last scan)"
    })
    const lineage = doc.commands.find((c) => c.name === "lineage")!
    expect(lineage.options.map((o) => o.flag)).toEqual(["--dataset <id>", "--origin <origin>", "--json"])
  })

  it("a command of the tree without notes in spec.ts, or notes without a command, is refused", () => {
    const extra = Command.make("extra", {}, () => Effect.void).pipe(Command.withDescription("Not documented."))
    const withExtra = commandTree(
      Command.make("catalog", {}, () => Effect.void).pipe(Command.withSubcommands([extra]))
    )
    expect(() => commandDocsOf(withExtra)).toThrow(/No help notes for: extra/)
    expect(() => commandDocsOf({ ...tree, subcommands: tree.subcommands.filter((c) => c.name !== "start") }))
      .toThrow(/tree lacks: start/)
  })
})
