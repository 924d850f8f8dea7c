/**
 * The CLI program: global flags are read first, the command tree parses the rest, every failure
 * is printed once in the registry's shape, and the exit code follows SPEC.md (0/1/2/3).
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Logger, LogLevel, Option } from "effect"
import { edition } from "../../edition.js"
import type { CatalogErrorShape } from "../../errors/define.js"
import { type ErrorBody, isCatalogError, toErrorBody } from "../../errors/index.js"
import { NodeFilesLive } from "../../layers/NodeFiles.js"
import { AppEnv } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { version } from "../../version.js"
import { cli, helpDocument } from "./Cli.js"
import { CliFlags, red } from "./render.js"
import { usageError } from "./usage.js"

const GLOBAL = new Set(["--json", "--yes", "-y", "--non-interactive"])

export const splitArgs = (argv: ReadonlyArray<string>) => {
  const rest = argv.slice(2)
  const dashdash = rest.indexOf("--")
  const scan = dashdash === -1 ? rest : rest.slice(0, dashdash)
  const flags = {
    json: scan.includes("--json"),
    yes: scan.includes("--yes") || scan.includes("-y"),
    nonInteractive: scan.includes("--non-interactive")
  }
  const kept = [...scan.filter((a) => !GLOBAL.has(a)), ...(dashdash === -1 ? [] : rest.slice(dashdash))]
  return { flags, args: [argv[0] ?? "node", argv[1] ?? "catalog", ...kept] }
}

const helpDocText = (e: ValidationError.ValidationError): string => {
  const doc = "error" in e ? (e as { error: unknown }).error : undefined
  const texts: Array<string> = []
  const walk = (n: unknown) => {
    if (typeof n !== "object" || n === null) return
    const o = n as Record<string, unknown>
    if (o["_tag"] === "Text" && typeof o["value"] === "string") texts.push(o["value"])
    for (const v of Object.values(o)) if (typeof v === "object") walk(v)
  }
  walk(doc)
  return texts.join(" ").replace(/\s+/g, " ").trim() || e._tag
}

/** The error body and exit code for a failed run. */
/** The error body and exit code for a failed run. `args` are the user's arguments (for the usage code). */
export const failureOf = (
  cause: Cause.Cause<unknown>,
  args: ReadonlyArray<string> = []
): { body: ErrorBody | null; exitCode: number; usage: boolean } => {
  if (Cause.isInterruptedOnly(cause)) return { body: null, exitCode: 130, usage: false }
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value
    if (isCatalogError(e)) return { body: toErrorBody(e), exitCode: e.exitCode, usage: e.exitCode === 2 }
    if (ValidationError.isValidationError(e)) {
      if (e._tag === "HelpRequested") return { body: null, exitCode: 0, usage: false }
      const words = args.filter((a) => !a.startsWith("-"))
      const command = words[0]
      const commandDocs = helpDocument().commands
      const doc = commandDocs.find((c) => c.name === words.slice(0, 2).join(" ")) ??
        commandDocs.find((c) => c.name === command)
      // For `config foo` the library blames the root ("Invalid subcommand for catalog - use one of …"):
      // name the command that was given and what it did not expect instead.
      const raw = helpDocText(e)
      const message = doc !== undefined && raw.startsWith("Invalid subcommand for catalog")
        ? `\`catalog ${doc.name}\` does not take "${words.slice(doc.name.split(" ").length).join(" ")}".`
        : raw
      const flag = /'(-{1,2}[\w-]+)'/.exec(message)?.[1]
      const fix = doc !== undefined
        ? `Usage: ${doc.usage}; \`catalog help ${doc.name}\` has examples.`
        : "Run `catalog help` for the commands, or `catalog help <command>` for one command's usage."
      return {
        body: toErrorBody(usageError(args, { message, fix, ...(flag ? { param: flag } : {}) })),
        exitCode: 2,
        usage: true
      }
    }
  }
  const defect = Cause.squash(cause)
  return {
    body: {
      error: {
        code: "INTERNAL_ERROR",
        message: `Unexpected failure: ${defect instanceof Error ? defect.message : String(defect)}`,
        fix: "This is a bug; please report it with the command you ran."
      }
    },
    exitCode: 1,
    usage: false
  }
}

/**
 * Ends the process only once everything written to stdout and stderr has been handed to the OS: on a
 * pipe, Node writes asynchronously, and `process.exit` with output still queued cuts it (at 64 KiB).
 * The process always ends here, so nothing left open (a pool, a timer) can keep it alive.
 */
const exitAfterFlush = (code: number): void => {
  const streams = [process.stdout, process.stderr].filter((s) => !s.destroyed && s.writableLength > 0)
  let pending = streams.length
  if (pending === 0) return process.exit(code)
  for (const s of streams) {
    s.write("", () => {
      pending -= 1
      if (pending === 0) process.exit(code)
    })
  }
}

/** A reader that closed the pipe (`catalog log | head`) ends the output, not the process with a stack trace. */
const quietOnClosedPipe = (): void => {
  for (const s of [process.stdout, process.stderr]) {
    s.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(typeof process.exitCode === "number" ? process.exitCode : 0)
      throw e
    })
  }
}

/** The one help page for `catalog <command…> --help --json`, or the whole document. */
const helpFor = (args: ReadonlyArray<string>) => {
  const words = args.filter((a) => !a.startsWith("-"))
  const doc = helpDocument()
  const one = doc.commands.find((c) => c.name === words.slice(0, 2).join(" ")) ??
    doc.commands.find((c) => c.name === words[0])
  if (one === undefined) return doc
  return { ...one, errors: doc.errors.filter((e) => one.errors.includes(e.code)) }
}

/** The flags @effect/cli itself answers on every command. */
const libraryFlags = new Set(["--help", "-h", "--version", "--wizard", "--completions", "--log-level"])

/**
 * A flag the command does not take is a usage error naming it — never swallowed as a word by a command
 * with free-text arguments (`search --bogus`, `glossary set T "…" --dataset x`). The accepted flags are
 * the ones `help` documents for the command (a test keeps the documentation and the parser in step).
 */
const flagProblem = (
  args: ReadonlyArray<string>
): { readonly flag: string; readonly problem: "unknown" | "no-value" } | null => {
  const dashdash = args.indexOf("--")
  const scan = dashdash === -1 ? args : args.slice(0, dashdash)
  const isFlag = (a: string) => /^--?[a-zA-Z]/.test(a)
  // No flag of the command's own (the usual run): nothing to check, and no help document to build.
  if (!scan.some((a) => isFlag(a) && !libraryFlags.has(a.split("=")[0]!))) return null
  const doc = helpDocument().commands.find((c) => c.name === scan.find((a) => !a.startsWith("-")))
  if (doc === undefined) return null // an unknown command: the parser names it
  const accepted = new Map<string, boolean>() // flag → takes a value
  for (const o of doc.options) {
    for (const f of o.flag.split(/,\s*/)) accepted.set(f.split(/[\s=]/)[0]!, /[\s=]</.test(f))
  }
  for (let i = 0; i < scan.length; i++) {
    const a = scan[i]!
    if (!isFlag(a)) continue
    const flag = a.split("=")[0]!
    if (libraryFlags.has(flag)) continue
    if (!accepted.has(flag)) return { flag, problem: "unknown" }
    const next = scan[i + 1]
    if (accepted.get(flag) === true && !a.includes("=") && (next === undefined || isFlag(next))) {
      return { flag, problem: "no-value" }
    }
  }
  return null
}

/**
 * What @effect/cli would otherwise do on its own terms: `--version` and `--help` ignore `--json`,
 * and `--wizard` prompts even off a terminal (rule 2). Answered here, before the command tree parses.
 */
const builtIn = (
  args: ReadonlyArray<string>,
  flags: { readonly json: boolean },
  interactive: boolean
): Effect.Effect<boolean, CatalogErrorShape> => {
  if (args.includes("--wizard") && !interactive) {
    return Effect.fail(usageError(args, {
      message: "--wizard asks questions, and this run cannot prompt (no terminal, --non-interactive, or CI is set).",
      fix: "Pass the command's arguments and flags directly; `catalog help <command>` lists them.",
      param: "--wizard"
    }))
  }
  const bad = flagProblem(args)
  if (bad !== null) {
    const command = args.find((a) => !a.startsWith("-")) ?? ""
    return Effect.fail(usageError(args, {
      message: bad.problem === "unknown"
        ? `\`catalog ${command}\` does not take ${bad.flag}.`
        : `${bad.flag} needs a value.`,
      fix: `Run \`catalog help ${command}\` for the flags it takes.`,
      param: bad.flag
    }))
  }
  if (!flags.json) return Effect.succeed(false)
  if (args.length === 1 && args[0] === "--version") {
    return Effect.as(Console.log(JSON.stringify({ tool: "catalog", version, edition }, null, 2)), true)
  }
  if (args.includes("--help") || args.includes("-h")) {
    return Effect.as(Console.log(JSON.stringify(helpFor(args), null, 2)), true)
  }
  return Effect.succeed(false)
}

export const run = (argv: ReadonlyArray<string>) => {
  const { args, flags } = splitArgs(argv)
  const userArgs = args.slice(2)
  const env = AppEnv.live({ nonInteractive: flags.nonInteractive })
  quietOnClosedPipe()
  // @effect/cli prints its own rendering of a parse error on stderr before failing; this program prints
  // every error once, in the registry's shape, so the library's copy is dropped.
  const withoutLibraryErrors = <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.console, (c) => Effect.withConsole(self, { ...c, error: () => Effect.void }))
  const program = Effect.gen(function*() {
    const appEnv = yield* AppEnv
    if (yield* builtIn(userArgs, flags, appEnv.interactive)) return
    yield* withoutLibraryErrors(cli(args))
  }).pipe(
    Effect.tapErrorCause((cause) =>
      Effect.gen(function*() {
        const { body } = failureOf(cause, userArgs)
        if (body === null) return
        if (flags.json) yield* Console.log(JSON.stringify(body, null, 2))
        else {yield* Console.error(
            `${red(body.error.code)}: ${body.error.message}${body.error.fix ? `\n  fix: ${body.error.fix}` : ""}`
          )}
      })
    ),
    Effect.provide(
      Layer.mergeAll(ConfigFile.Default, Layer.succeed(CliFlags, flags)).pipe(
        Layer.provideMerge(Layer.merge(env, NodeFilesLive))
      )
    ),
    Effect.provide(NodeContext.layer),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
  )
  NodeRuntime.runMain(program, {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit) =>
      exitAfterFlush(
        Exit.isSuccess(exit)
          ? (typeof process.exitCode === "number" ? process.exitCode : 0)
          : failureOf(exit.cause, userArgs).exitCode
      )
  })
}
