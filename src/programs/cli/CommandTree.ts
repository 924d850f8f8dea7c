/**
 * The @effect/cli command tree read back as plain data: each command's name and description, its
 * options (flag, value placeholder, description) and arguments, and its subcommands. `help` is
 * generated from it, so what a command says about itself is written once, on the command.
 *
 * @effect/cli 0.77 exposes a command's descriptor but not the descriptor's parts (its public
 * `getSubcommands` stops one level down), so the descriptor is decoded with a Schema of the parts
 * read here; a library change that moves them fails the decode (and the help tests), never silently.
 */
import { Option, Schema } from "effect"

/** One option as `help` lists it. */
export interface OptionNode {
  /** `--limit <n>`: the names, then the value placeholder for an option that takes a value. */
  readonly flag: string
  readonly description: string
}

/** One positional argument. */
export interface ArgNode {
  readonly name: string
  readonly description: string
}

/** One command with what it says about itself and its subcommands, in the tree's order. */
export interface CommandNode {
  readonly name: string
  readonly description: string
  readonly options: ReadonlyArray<OptionNode>
  readonly args: ReadonlyArray<ArgNode>
  readonly subcommands: ReadonlyArray<CommandNode>
}

// ── the parts of the library's descriptors this module reads ──────────────────────────────────
type HelpDocPart =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Paragraph"; readonly value: { readonly _tag: "Text"; readonly value: string } }
  | { readonly _tag: "Sequence"; readonly left: HelpDocPart; readonly right: HelpDocPart }

const HelpDocPart: Schema.Schema<HelpDocPart> = Schema.Union(
  Schema.TaggedStruct("Empty", {}),
  Schema.TaggedStruct("Paragraph", { value: Schema.TaggedStruct("Text", { value: Schema.String }) }),
  Schema.TaggedStruct("Sequence", {
    left: Schema.suspend(() => HelpDocPart),
    right: Schema.suspend(() => HelpDocPart)
  })
)

type OptionsPart =
  | { readonly _tag: "Empty" }
  | {
    readonly _tag: "Single"
    readonly fullName: string
    readonly aliases: ReadonlyArray<string>
    readonly pseudoName: Option.Option<string>
    readonly primitiveType: { readonly _tag: string }
    readonly description: HelpDocPart
  }
  | { readonly _tag: "Map" | "WithDefault" | "WithFallback"; readonly options: OptionsPart }
  | { readonly _tag: "Both" | "OrElse"; readonly left: OptionsPart; readonly right: OptionsPart }
  | { readonly _tag: "Variadic" | "KeyValueMap"; readonly argumentOption: OptionsPart }

const OptionsPart: Schema.Schema<OptionsPart> = Schema.Union(
  Schema.TaggedStruct("Empty", {}),
  Schema.TaggedStruct("Single", {
    fullName: Schema.String,
    aliases: Schema.Array(Schema.String),
    pseudoName: Schema.OptionFromSelf(Schema.String),
    primitiveType: Schema.Struct({ _tag: Schema.String }),
    description: HelpDocPart
  }),
  Schema.Struct({
    _tag: Schema.Literal("Map", "WithDefault", "WithFallback"),
    options: Schema.suspend(() => OptionsPart)
  }),
  Schema.Struct({
    _tag: Schema.Literal("Both", "OrElse"),
    left: Schema.suspend(() => OptionsPart),
    right: Schema.suspend(() => OptionsPart)
  }),
  Schema.Struct({ _tag: Schema.Literal("Variadic", "KeyValueMap"), argumentOption: Schema.suspend(() => OptionsPart) })
)

type ArgsPart =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Single"; readonly name: string; readonly description: HelpDocPart }
  | { readonly _tag: "Map" | "Variadic" | "WithDefault" | "WithFallbackConfig"; readonly args: ArgsPart }
  | { readonly _tag: "Both"; readonly left: ArgsPart; readonly right: ArgsPart }

const ArgsPart: Schema.Schema<ArgsPart> = Schema.Union(
  Schema.TaggedStruct("Empty", {}),
  Schema.TaggedStruct("Single", { name: Schema.String, description: HelpDocPart }),
  Schema.Struct({
    _tag: Schema.Literal("Map", "Variadic", "WithDefault", "WithFallbackConfig"),
    args: Schema.suspend(() => ArgsPart)
  }),
  Schema.TaggedStruct("Both", { left: Schema.suspend(() => ArgsPart), right: Schema.suspend(() => ArgsPart) })
)

type DescriptorPart =
  | {
    readonly _tag: "Standard"
    readonly name: string
    readonly description: HelpDocPart
    readonly options: OptionsPart
    readonly args: ArgsPart
  }
  | { readonly _tag: "GetUserInput"; readonly name: string; readonly description: HelpDocPart }
  | { readonly _tag: "Map"; readonly command: DescriptorPart }
  | { readonly _tag: "Subcommands"; readonly parent: DescriptorPart; readonly children: ReadonlyArray<DescriptorPart> }

const DescriptorPart: Schema.Schema<DescriptorPart> = Schema.Union(
  Schema.TaggedStruct("Standard", {
    name: Schema.String,
    description: HelpDocPart,
    options: OptionsPart,
    args: ArgsPart
  }),
  Schema.TaggedStruct("GetUserInput", { name: Schema.String, description: HelpDocPart }),
  Schema.TaggedStruct("Map", { command: Schema.suspend(() => DescriptorPart) }),
  Schema.TaggedStruct("Subcommands", {
    parent: Schema.suspend(() => DescriptorPart),
    children: Schema.Array(Schema.suspend(() => DescriptorPart))
  })
)

// ── reading ───────────────────────────────────────────────────────────────────────────────────
const paragraphs = (doc: HelpDocPart): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Paragraph":
      return [doc.value.value]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
  }
}
const text = (doc: HelpDocPart): string => paragraphs(doc).join("\n\n")

const optionsOf = (part: OptionsPart): ReadonlyArray<OptionNode> => {
  switch (part._tag) {
    case "Empty":
      return []
    case "Single": {
      const names = [part.fullName, ...part.aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`))].join(", ")
      const takesValue = part.primitiveType._tag !== "Bool"
      const placeholder = Option.getOrElse(part.pseudoName, () => part.primitiveType._tag.toLowerCase())
      return [{ flag: takesValue ? `${names} ${placeholder}` : names, description: text(part.description) }]
    }
    case "Map":
    case "WithDefault":
    case "WithFallback":
      return optionsOf(part.options)
    case "Both":
    case "OrElse":
      return [...optionsOf(part.left), ...optionsOf(part.right)]
    case "Variadic":
    case "KeyValueMap":
      return optionsOf(part.argumentOption)
  }
}

const argsOf = (part: ArgsPart): ReadonlyArray<ArgNode> => {
  switch (part._tag) {
    case "Empty":
      return []
    case "Single":
      return [{ name: part.name, description: text(part.description) }]
    case "Map":
    case "Variadic":
    case "WithDefault":
    case "WithFallbackConfig":
      return argsOf(part.args)
    case "Both":
      return [...argsOf(part.left), ...argsOf(part.right)]
  }
}

const nodeOf = (part: DescriptorPart): CommandNode => {
  switch (part._tag) {
    case "Standard":
      return {
        name: part.name,
        description: text(part.description),
        options: optionsOf(part.options),
        args: argsOf(part.args),
        subcommands: []
      }
    case "GetUserInput":
      return { name: part.name, description: text(part.description), options: [], args: [], subcommands: [] }
    case "Map":
      return nodeOf(part.command)
    case "Subcommands": {
      const parent = nodeOf(part.parent)
      return { ...parent, subcommands: [...parent.subcommands, ...part.children.map(nodeOf)] }
    }
  }
}

const decodeDescriptor = Schema.decodeUnknownSync(DescriptorPart)

/** A command (an @effect/cli `Command`) as data; throws when the descriptor is not the shape read here. */
export const commandTree = (command: { readonly descriptor: unknown }): CommandNode =>
  nodeOf(decodeDescriptor(command.descriptor))

/** The command and every subcommand below it, depth first, each with its path of names. */
export const walkCommands = (
  node: CommandNode,
  path: ReadonlyArray<string> = []
): ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly node: CommandNode }> => {
  const here = [...path, node.name]
  return [{ path: here, node }, ...node.subcommands.flatMap((s) => walkCommands(s, here))]
}

/** A command's options followed by those of its subcommands (depth first), as one command group documents them. */
export const groupOptions = (node: CommandNode): ReadonlyArray<OptionNode> => [
  ...node.options,
  ...node.subcommands.flatMap(groupOptions)
]
