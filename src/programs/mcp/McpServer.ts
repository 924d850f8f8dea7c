/**
 * The read-only agent server: `tools/list` publishes the eight tools of `tools.ts`; `tools/call`
 * decodes the arguments strictly and calls the Reader.
 *
 * Why the low-level `Server` and our own `tools/call` handler: `McpServer.registerTool` (SDK 1.32)
 * turns every failure — an unknown tool, a missing or misnamed argument — into an `isError`
 * result, while SPEC.md §A rule 1 asks for a JSON-RPC error naming the parameter (docs/mcp.md).
 * Owning both handlers also lets `tools/list` carry the JSON Schemas derived from our Effect
 * Schemas, and lets us declare `tools.listChanged: false` (the set of tools never changes).
 *
 * Outcomes of a call:
 * - unknown tool, bad arguments (missing, unknown, wrong type, out of range; also the Reader's
 *   INVALID_PARAM) → JSON-RPC error -32602 whose message and `data` name the parameter;
 * - a Reader value → `structuredContent` (the value, unchanged) plus the same JSON as text;
 * - DATASET_NOT_FOUND, or no catalog yet (MAP_NOT_FOUND) → an `isError` result whose
 *   `structuredContent` is the error body every surface shares;
 * - a defect → an `isError` result with INTERNAL_ERROR; the cause goes to the log (stderr).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool as McpTool
} from "@modelcontextprotocol/sdk/types.js"
import {
  Cause,
  Context,
  Effect,
  Either,
  ExecutionStrategy,
  Exit,
  Layer,
  Option,
  ParseResult,
  Runtime,
  Schema,
  Scope
} from "effect"
import { type CatalogErrorShape, InvalidParam, isCatalogError, toErrorBody } from "../../errors/index.js"
import { ReadLive } from "../../layers/Main.js"
import type { AppEnv } from "../../services/AppEnv.js"
import type { ConfigFile } from "../../services/ConfigFile.js"
import { Reader } from "../../services/Reader.js"
import { version } from "../../version.js"
import { readOnlyAnnotations, type Tool, toolNames, tools } from "./tools.js"

/** JSON-RPC "Invalid params". */
export const INVALID_PARAMS = -32602

/** Thrown from a request handler, it becomes the JSON-RPC `error` object `{code, message, data}` as is. */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data: unknown) {
    super(message)
  }
}

/** What a tool-argument failure says, per parameter. */
export interface ParamIssue {
  readonly param: string
  readonly problem: "missing" | "unknown" | "invalid"
  readonly message: string
}

const show = (u: unknown): string => {
  if (u === undefined) return "nothing"
  const s = JSON.stringify(u)
  return s.length > 60 ? `${s.slice(0, 57)}...` : s
}

/** Turns Schema decoding issues into one issue per parameter, named as the caller spelled it. */
export const paramIssues = (
  tool: Tool,
  args: Record<string, unknown>,
  error: ParseResult.ParseError
): ReadonlyArray<ParamIssue> => {
  const seen = new Map<string, ParamIssue>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const param = String(issue.path[0] ?? "arguments")
    if (seen.has(param)) continue
    if (issue._tag === "Unexpected" || !tool.params.includes(param)) {
      const accepted = tool.params.length === 0
        ? `${tool.name} takes no arguments`
        : `accepted: ${tool.params.map((p) => `'${p}'`).join(", ")}`
      seen.set(param, { param, problem: "unknown", message: `unknown parameter '${param}' (${accepted})` })
    } else if (issue._tag === "Missing" || !(param in args)) {
      seen.set(param, {
        param,
        problem: "missing",
        message: `missing required parameter '${param}' (${tool.expects[param] ?? "required"})`
      })
    } else {
      seen.set(param, {
        param,
        problem: "invalid",
        message: `parameter '${param}' must be ${tool.expects[param] ?? "valid"}; got ${show(args[param])}`
      })
    }
  }
  // Missing before unknown: "you forgot q" reads better first when "query" was meant.
  const order = { missing: 0, invalid: 1, unknown: 2 } as const
  return [...seen.values()].sort((a, b) => order[a.problem] - order[b.problem])
}

const invalidArguments = (tool: Tool, issues: ReadonlyArray<ParamIssue>): RpcError =>
  new RpcError(INVALID_PARAMS, `${tool.name}: ${issues.map((i) => i.message).join("; ")}`, {
    tool: tool.name,
    param: issues[0]?.param,
    params: issues.map((i) => i.param),
    issues,
    accepted: tool.params
  })

const fromInvalidParam = (tool: Tool, e: InvalidParam): RpcError => {
  const param = e.param ?? "arguments"
  return new RpcError(INVALID_PARAMS, `${tool.name}: parameter '${param}': ${e.message}`, {
    tool: tool.name,
    param,
    params: [param],
    issues: [{ param, problem: "invalid", message: e.message }],
    accepted: tool.params,
    ...toErrorBody(e)
  })
}

const unknownTool = (name: unknown): RpcError =>
  new RpcError(
    INVALID_PARAMS,
    `Unknown tool: ${typeof name === "string" ? name : show(name)}. The tools are ${toolNames.join(", ")}.`,
    {
      param: "name",
      params: ["name"],
      tool: name,
      tools: toolNames
    }
  )

const jsonResult = (value: unknown, isError: boolean): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value as Record<string, unknown>,
  ...(isError ? { isError: true } : {})
})

const errorResult = (e: CatalogErrorShape): CallToolResult => jsonResult(toErrorBody(e), true)

const internalResult: CallToolResult = jsonResult({
  error: {
    code: "INTERNAL_ERROR",
    message: "The catalog server failed unexpectedly; the details are in its log (stderr).",
    fix: "This is a bug; please report it with the tool call that caused it."
  }
}, true)

/** The `tools/list` entries, in their fixed order. */
export const toolList: ReadonlyArray<McpTool> = tools.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: t.inputSchema,
  outputSchema: t.outputSchema,
  annotations: { title: t.title, ...readOnlyAnnotations }
}))

/** The `initialize` instructions: a pointer to the playbook and the order of calls. */
export const instructions = [
  "Read-only map of where personal data is stored (metadata only; no row values, no write tool).",
  "For 'where is X stored?': search_datasets, then get_dataset, then get_provenance before relying on the answer (stale or unreachable sources are caveats).",
  "RoPA status: get_compliance_state. Inputs of a dataset: get_lineage. What changed: get_changes.",
  "A missing, misnamed or invalid argument is a JSON-RPC error -32602 naming the parameter; DATASET_NOT_FOUND and MAP_NOT_FOUND are isError results with {error:{code,message,fix}}.",
  "Purpose, lawful basis, retention and transfers are legal calls only a named human may confirm.",
  "Full playbook: run `catalog mcp --skill`."
].join(" ")

/**
 * Opens the catalog on first use and keeps it open. Until `index.db` exists (before the first
 * scan) each call fails with MAP_NOT_FOUND and the next call tries again, so a `catalog start`
 * run while the server is up is picked up without a restart.
 */
const readerOnDemand = Effect.gen(function*() {
  const scope = yield* Effect.scope
  const context = yield* Effect.context<AppEnv | ConfigFile>()
  const lock = yield* Effect.makeSemaphore(1)
  let opened: Context.Context<Reader> | null = null
  const open = Effect.gen(function*() {
    if (opened !== null) return Context.get(opened, Reader)
    const child = yield* Scope.fork(scope, ExecutionStrategy.sequential)
    const exit = yield* Layer.buildWithScope(ReadLive, child).pipe(Effect.provide(context), Effect.exit)
    if (Exit.isFailure(exit)) {
      yield* Scope.close(child, exit)
      return yield* Effect.failCause(exit.cause)
    }
    opened = exit.value
    yield* Effect.logInfo("catalog opened")
    return Context.get(exit.value, Reader)
  })
  return lock.withPermits(1)(open)
})

/** Builds the server; the caller connects it to a transport (stdio in `main.ts`). */
export const makeMcpServer = Effect.gen(function*() {
  const reader = yield* readerOnDemand
  const runtime = yield* Effect.runtime<never>()
  const runExit = Runtime.runPromiseExit(runtime)

  const call = (tool: Tool, args: Record<string, unknown>) =>
    Effect.gen(function*() {
      const decoded = Schema.decodeUnknownEither(tool.input, { onExcessProperty: "error", errors: "all" })(args)
      if (Either.isLeft(decoded)) {
        return yield* Effect.fail(invalidArguments(tool, paramIssues(tool, args, decoded.left)))
      }
      const r = yield* reader
      return jsonResult(yield* tool.run(decoded.right, r), false)
    }).pipe(
      Effect.catchAll((e): Effect.Effect<CallToolResult, RpcError> =>
        e instanceof RpcError
          ? Effect.fail(e)
          : e instanceof InvalidParam
          ? Effect.fail(fromInvalidParam(tool, e))
          : isCatalogError(e)
          ? Effect.succeed(errorResult(e))
          : Effect.die(e)
      ),
      Effect.withLogSpan(tool.name)
    )

  const server = new Server(
    { name: "local-data-catalog", title: "Local Data Catalog", version },
    { capabilities: { tools: { listChanged: false } }, instructions }
  )
  server.onerror = (error) => Runtime.runFork(runtime)(Effect.logWarning(`protocol: ${error.message}`))

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...toolList] }))

  // Parsed loosely on purpose: the SDK then validates the request itself and answers a malformed
  // one (no `params.name`) with -32602 rather than a -32603 from a failed parse.
  server.setRequestHandler(CallToolRequestSchema.pick({ method: true }).loose(), async (request) => {
    const params = CallToolRequestSchema.parse(request).params
    const tool = tools.find((t) => t.name === params.name)
    if (tool === undefined) throw unknownTool(params.name)
    const started = performance.now()
    const exit = await runExit(call(tool, params.arguments ?? {}))
    const ms = Math.round(performance.now() - started)
    const outcome = Exit.isSuccess(exit) ? (exit.value.isError === true ? "isError" : "ok") : "error"
    await runExit(Effect.logDebug(`tools/call ${tool.name} ${outcome} in ${ms} ms`))
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (Option.isSome(failure) && failure.value instanceof RpcError) throw failure.value
    await runExit(Effect.logError(`${tool.name} failed`, exit.cause))
    return internalResult
  })

  return server
})
