/**
 * The CLI program: global flags are read first, the command tree parses the rest, every failure
 * is printed once in the registry's shape, and the exit code follows SPEC.md (0/1/2/3).
 */
import { ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Effect, Exit, Layer, Logger, LogLevel, Option } from "effect"
import { InvalidParam, isCatalogError, toErrorBody, type ErrorBody } from "../../errors/index.js"
import { AppEnv } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { cli } from "./Cli.js"
import { CliFlags, red } from "./render.js"

const GLOBAL = new Set(["--json", "--yes", "-y", "--non-interactive"])

export const splitArgs = (argv: ReadonlyArray<string>) => {
  const rest = argv.slice(2)
  const dashdash = rest.indexOf("--")
  const scan = dashdash === -1 ? rest : rest.slice(0, dashdash)
  const flags = { json: scan.includes("--json"), yes: scan.includes("--yes") || scan.includes("-y"), nonInteractive: scan.includes("--non-interactive") }
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
export const failureOf = (cause: Cause.Cause<unknown>): { body: ErrorBody | null; exitCode: number } => {
  if (Cause.isInterruptedOnly(cause)) return { body: null, exitCode: 130 }
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value
    if (isCatalogError(e)) return { body: toErrorBody(e), exitCode: e.spec.exitCode }
    if (ValidationError.isValidationError(e)) {
      if (e._tag === "HelpRequested") return { body: null, exitCode: 0 }
      const message = helpDocText(e)
      const flag = /'(-{1,2}[\w-]+)'/.exec(message)?.[1]
      return { body: toErrorBody(new InvalidParam({ message, fix: "Run `catalog help` for the commands, or `catalog help <command>` for one command's usage.", ...(flag ? { param: flag } : {}) })), exitCode: 2 }
    }
  }
  const defect = Cause.squash(cause)
  return { body: { error: { code: "INTERNAL_ERROR", message: `Unexpected failure: ${defect instanceof Error ? defect.message : String(defect)}`, fix: "This is a bug; please report it with the command you ran." } }, exitCode: 1 }
}

export const run = (argv: ReadonlyArray<string>) => {
  const { args, flags } = splitArgs(argv)
  const env = AppEnv.live({ nonInteractive: flags.nonInteractive })
  const program = cli(args).pipe(
    Effect.tapErrorCause((cause) =>
      Effect.gen(function*() {
        const { body } = failureOf(cause)
        if (body === null) return
        const isUsage = Option.exists(Cause.failureOption(cause), ValidationError.isValidationError)
        if (flags.json) yield* Console.log(JSON.stringify(body, null, 2))
        else if (!isUsage) yield* Console.error(`${red(body.error.code)}: ${body.error.message}${body.error.fix ? `\n  fix: ${body.error.fix}` : ""}`)
        else if (body.error.fix) yield* Console.error(`  fix: ${body.error.fix}`)
      })
    ),
    Effect.provide(Layer.mergeAll(ConfigFile.Default, Layer.succeed(CliFlags, flags)).pipe(Layer.provideMerge(env))),
    Effect.provide(NodeContext.layer),
    Logger.withMinimumLogLevel(LogLevel.Warning),
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)))
  )
  NodeRuntime.runMain(program, {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? (typeof process.exitCode === "number" ? process.exitCode : 0) : failureOf(exit.cause).exitCode)
  })
}
