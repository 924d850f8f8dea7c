/**
 * `catalog mcp`: the read-only agent server over stdio, or, with `--print-config` / `--skill`, the
 * registration block and the playbook. Loaded on demand by the CLI (the SDK never slows its cold
 * start).
 *
 * stdout belongs to the protocol while serving: logs go to stderr (Effect's default logger and
 * `Console.log` write to stdout, so both are redirected), the program never fails through the
 * CLI's error printer (which writes to stdout under --json), and the process ends when stdin ends
 * (exit 0) or on SIGTERM / SIGINT (interrupted). It opens no socket: it reads `.catalog/index.db`
 * through the read-only Reader and nothing else. stdin is read by our own `StdioTransport`, which
 * answers malformed lines as JSON-RPC 2.0 requires (the SDK's transport drops them silently).
 *
 * `--print-config` names the command that starts this very build (`launchCommand`): npx only where
 * npm recorded a registry origin, otherwise this Node binary and this build's absolute entry file.
 */
import { Console, Deferred, Effect, FiberRef, HashSet, Logger, LogLevel } from "effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { launchCommand, registrationBlock, registrationCommand } from "../../domain/Agents.js"
import { InvalidParam } from "../../errors/index.js"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, dataDir, stderrLine } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { version } from "../../version.js"
import { makeMcpServer } from "./McpServer.js"
import { mcpSkillMarkdown, mcpSkillVersion } from "./skill.js"
import { StdioTransport } from "./StdioTransport.js"

export interface McpOptions {
  readonly printConfig: boolean
  readonly skill: boolean
  /** `--json` (read by the CLI, passed in: programs do not reach into each other). */
  readonly json: boolean
}

/** Exactly one logger, on stderr (whatever loggers the caller installed are set aside while serving). */
const onlyStderrLogger = Effect.locallyWith(
  FiberRef.currentLoggers,
  () => HashSet.make(Logger.withConsoleError(Logger.logfmtLogger))
)

/** Absolute paths pinned in the registration (the AI application starts the server from its own folder). */
const registrationPaths = Effect.gen(function*() {
  const env = yield* AppEnv
  const config = yield* ConfigFile
  const dir = dataDir(env)
  return { dataDir: dir, configPath: yield* config.find(), scanned: fs.existsSync(indexPath(dir)) }
})

const readText = (file: string): string | null => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return null
  }
}

/**
 * What starts this very build (see `launchCommand`): the bundle's chunks sit next to its entry in
 * dist/, and the Node binary running now is one src/bin.ts has already accepted (≥ 22.18).
 */
const thisBuild = Effect.sync(() => ({
  nodePath: process.execPath,
  entry: fileURLToPath(new URL("./bin.js", import.meta.url)),
  readText
}))

/** stdout: exactly the `mcpServers` block (so it can be redirected into a client's config file); stderr: the rest. */
const printConfig = Effect.gen(function*() {
  const paths = yield* registrationPaths
  const install = yield* thisBuild
  const launch = launchCommand(install, version)
  if (!paths.scanned) {
    yield* stderrLine(
      `warning: there is no catalog at ${paths.dataDir} yet: this configuration would point the AI application at an empty catalog (every tool answers MAP_NOT_FOUND) until you run \`catalog start\`.`
    )
  }
  yield* Console.log(JSON.stringify(registrationBlock(paths, launch), null, 2))
  yield* stderrLine(
    `\nTo register with Claude Code in one command (the server name comes before --env):\n  ${
      registrationCommand(paths, launch)
    }`
  )
  if (launch.command === "npx") {
    yield* stderrLine(
      `\nnpx runs the \`node\` first on the AI application's PATH, which must be 22.18 or newer. If it is older, use this installation directly: "command": ${
        JSON.stringify(install.nodePath)
      }, "args": ${JSON.stringify([install.entry, "mcp"])}.`
    )
  }
})

const printSkill = (json: boolean) =>
  Effect.gen(function*() {
    const markdown = mcpSkillMarkdown(version)
    yield* Console.log(
      json ? JSON.stringify({ playbookVersion: mcpSkillVersion, toolVersion: version, markdown }, null, 2) : markdown
    )
  })

/** Anything that still prints with console.log while serving lands on stderr, never in the protocol stream. */
const consoleToStderr = Effect.acquireRelease(
  Effect.sync(() => {
    const saved = { log: console.log, info: console.info, debug: console.debug }
    const toStderr = (...args: Array<unknown>) => console.error(...args)
    console.log = toStderr
    console.info = toStderr
    console.debug = toStderr
    return saved
  }),
  (saved) => Effect.sync(() => Object.assign(console, saved))
)

/** Serves until stdin ends (or the transport closes); SIGTERM/SIGINT interrupt it through the CLI runtime. */
const serve = Effect.gen(function*() {
  yield* consoleToStderr
  const env = yield* AppEnv
  const dir = dataDir(env)
  if (!fs.existsSync(indexPath(dir))) {
    yield* Effect.logWarning(
      `no catalog at ${dir} (CATALOG_DATA) yet: every tool answers MAP_NOT_FOUND until \`catalog start\` has run; set CATALOG_DATA to the absolute path of the .catalog folder if this is the wrong place.`
    )
  }
  const server = yield* makeMcpServer
  const done = yield* Deferred.make<string>()
  const finish = (reason: string) => () => Deferred.unsafeDone(done, Effect.succeed(reason))
  const onEnd = finish("stdin ended")
  const onClose = finish("stdin closed")
  const onStdoutError = finish("stdout closed")
  server.onclose = finish("transport closed")

  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.stdin.once("end", onEnd)
      process.stdin.once("close", onClose)
      process.stdout.on("error", onStdoutError)
    }),
    () =>
      Effect.sync(() => {
        process.stdin.off("end", onEnd)
        process.stdin.off("close", onClose)
        process.stdout.off("error", onStdoutError)
      })
  )
  const transport = new StdioTransport()
  yield* Effect.acquireRelease(
    Effect.promise(() => server.connect(transport)),
    () => Effect.promise(() => server.close()).pipe(Effect.timeout("1 second"), Effect.ignore)
  )
  yield* Effect.logInfo(`serving ${dir} over stdio: 8 read-only tools (local-data-catalog ${version})`)
  if (process.stdin.isTTY === true) {
    yield* Effect.logInfo(
      "stdin is a terminal: this server is started by an AI application; `catalog mcp --print-config` prints how to register it."
    )
  }
  const reason = yield* Deferred.await(done).pipe(
    Effect.onInterrupt(() => Effect.logInfo("stopping: interrupted (SIGTERM or SIGINT)"))
  )
  yield* Effect.logInfo(`stopping: ${reason}`)
}).pipe(Effect.scoped)

/**
 * The `mcp` command. While serving it never fails: anything unexpected is logged to stderr and
 * the process exits 1 on its own, so nothing but protocol frames reaches stdout.
 */
export const mcp = (options: McpOptions): Effect.Effect<void, InvalidParam, AppEnv | ConfigFile> => {
  if (options.printConfig && options.skill) {
    return Effect.fail(
      new InvalidParam({
        message: "--print-config and --skill are separate outputs; pass one of them.",
        fix: "Run `catalog mcp --print-config` or `catalog mcp --skill`.",
        param: "--skill"
      })
    )
  }
  if (options.printConfig) return printConfig
  if (options.skill) return printSkill(options.json)
  return serve.pipe(
    Effect.catchAllCause((cause) =>
      Effect.logError("the agent server stopped on an unexpected failure", cause).pipe(
        Effect.zipRight(Effect.sync(() => {
          process.exitCode = 1
        }))
      )
    ),
    // Exit promptly even if some library left a handle open (the timer itself keeps nothing alive).
    Effect.ensuring(Effect.sync(() => setTimeout(() => process.exit(), 1500).unref())),
    // Info by default; `--log-level debug` (an @effect/cli built-in) also logs each call.
    Effect.locallyWith(
      FiberRef.currentMinimumLogLevel,
      (level) => (LogLevel.lessThan(level, LogLevel.Info) ? level : LogLevel.Info)
    ),
    onlyStderrLogger
  )
}
