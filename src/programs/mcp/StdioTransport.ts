/**
 * The stdio transport of `catalog mcp`: newline-delimited JSON-RPC 2.0 on stdin and stdout, as the
 * SDK's `StdioServerTransport` does it, plus the answers JSON-RPC 2.0 requires where that transport
 * stays silent. The SDK's read buffer parses each line with its zod schemas and reports a failure
 * only through `onerror`, so a line that is not JSON, `params: null`, an object or array `id` or a
 * batch got no reply at all and the client waited forever (docs/mcp.md, "Framing").
 *
 * Every line is classified by `classifyLine` before the SDK sees it:
 * - not JSON → `-32700` Parse error, `id: null`;
 * - JSON that is not a valid Request object (not an object; `jsonrpc` not "2.0"; `method` missing or
 *   not a string; `params` neither object nor array; `id` not a string or an integer) → `-32600`
 *   Invalid Request, with the request's `id` when it is a valid id, else `id: null`;
 * - a request the SDK would still refuse (an unexpected member → `-32600`; positional `params`, or
 *   `params` the SDK's schema rejects → `-32602` Invalid params), with its `id`;
 * - a batch (a JSON array): MCP 2025-06-18 removed batching, so nothing in it is executed; JSON-RPC
 *   2.0 then wants one Response per element that is not a notification, in an array: `-32600` each
 *   (an empty array is one `-32600`, not an array; a batch of only notifications gets nothing);
 * - a well-formed notification (no `id`) is never answered, even when MCP cannot use it, and a
 *   response from the client is never answered either: such lines are logged and dropped;
 * - a blank line is no message and is skipped; a line longer than 10 MB is discarded with `-32600`.
 * Everything valid is handed to the SDK unchanged. Every answered or dropped line is also reported
 * through `onerror`, which the server logs on stderr.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type JSONRPCMessage,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResponseSchema,
  type MessageExtraInfo
} from "@modelcontextprotocol/sdk/types.js"

/** JSON-RPC 2.0 "Parse error": the line is not JSON. */
export const PARSE_ERROR = -32700
/** JSON-RPC 2.0 "Invalid Request": JSON, but not a Request object this server can take. */
export const INVALID_REQUEST = -32600
/** JSON-RPC 2.0 "Invalid params". */
export const INVALID_PARAMS = -32602

/** The largest line kept (the SDK transport's limit too); a longer one is discarded and answered. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024

/** An error Response this transport writes itself; `id` is null when no valid id could be read. */
export interface ErrorReply {
  readonly jsonrpc: "2.0"
  readonly id: string | number | null
  readonly error: { readonly code: number; readonly message: string }
}

/** What to do with one line of input. */
export type Framed =
  | { readonly _tag: "Message"; readonly message: JSONRPCMessage }
  | { readonly _tag: "Reply"; readonly reply: ErrorReply | ReadonlyArray<ErrorReply>; readonly problem: string }
  | { readonly _tag: "Drop"; readonly problem: string }
  | { readonly _tag: "Blank" }

const errorReply = (code: number, id: string | number | null, message: string): ErrorReply => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})
const reply = (code: number, id: string | number | null, message: string): Framed => ({
  _tag: "Reply",
  reply: errorReply(code, id, message),
  problem: message
})
const drop = (problem: string): Framed => ({ _tag: "Drop", problem })

/** A request id MCP accepts: a string or a (safe) integer, never null. */
const isId = (u: unknown): u is string | number =>
  typeof u === "string" || (typeof u === "number" && Number.isSafeInteger(u))

const describe = (u: unknown): string => {
  if (u === null) return "null"
  if (Array.isArray(u)) return "an array"
  if (typeof u === "object") return "an object"
  const s = JSON.stringify(u)
  return s.length > 40 ? `${s.slice(0, 37)}...` : s
}

const requestMembers: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"])

/** Why the SDK's schema refused a message, one issue per path. */
const issuesOf = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }>
): string => issues.map((i) => `${i.path.map(String).join(".") || "message"}: ${i.message}`).join("; ")

/** One parsed JSON value that is not a batch. */
const classifyValue = (value: unknown): Framed => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return reply(INVALID_REQUEST, null, `Invalid Request: a message is a JSON object, got ${describe(value)}`)
  }
  const m = value as Record<string, unknown>
  const hasId = "id" in m
  const replyId = hasId && isId(m["id"]) ? m["id"] : null

  // A Response (to a request of the server's): handed on when valid, never answered.
  if (!("method" in m) && ("result" in m || "error" in m)) {
    const r = JSONRPCResponseSchema.safeParse(m)
    return r.success
      ? { _tag: "Message", message: r.data }
      : drop(`an invalid JSON-RPC response was ignored (${issuesOf(r.error.issues)})`)
  }

  const problems: Array<string> = []
  if (m["jsonrpc"] !== "2.0") {
    problems.push(
      "jsonrpc" in m
        ? `'jsonrpc' must be "2.0", got ${describe(m["jsonrpc"])}`
        : `'jsonrpc' is missing (it must be "2.0")`
    )
  }
  if (!("method" in m)) problems.push("'method' is missing")
  else if (typeof m["method"] !== "string") problems.push(`'method' must be a string, got ${describe(m["method"])}`)
  if ("params" in m && (typeof m["params"] !== "object" || m["params"] === null)) {
    problems.push(`'params' must be an object or an array, got ${describe(m["params"])}`)
  }
  if (hasId && !isId(m["id"])) problems.push(`'id' must be a string or an integer, got ${describe(m["id"])}`)
  if (problems.length > 0) return reply(INVALID_REQUEST, replyId, `Invalid Request: ${problems.join("; ")}`)

  // A well-formed notification: handed on when the SDK can take it; never answered either way.
  if (!hasId) {
    const n = JSONRPCNotificationSchema.safeParse(m)
    return n.success
      ? { _tag: "Message", message: n.data }
      : drop(`a notification (${String(m["method"])}) MCP cannot use was ignored (${issuesOf(n.error.issues)})`)
  }

  const extra = Object.keys(m).filter((k) => !requestMembers.has(k))
  if (extra.length > 0) {
    return reply(
      INVALID_REQUEST,
      replyId,
      `Invalid Request: unexpected member ${
        extra.map((k) => `'${k}'`).join(", ")
      } (a request has only jsonrpc, id, method and params)`
    )
  }
  if (Array.isArray(m["params"])) {
    return reply(
      INVALID_PARAMS,
      replyId,
      "Invalid params: MCP methods take named parameters, so 'params' must be an object, got an array"
    )
  }
  const q = JSONRPCRequestSchema.safeParse(m)
  if (q.success) return { _tag: "Message", message: q.data }
  const inParams = q.error.issues.some((i) => i.path[0] === "params")
  return reply(
    inParams ? INVALID_PARAMS : INVALID_REQUEST,
    replyId,
    `${inParams ? "Invalid params" : "Invalid Request"}: ${issuesOf(q.error.issues)}`
  )
}

const batchRefused =
  "Invalid Request: batches are not supported (MCP 2025-06-18 removed JSON-RPC batching), so nothing in this one was run; send each request on its own line"

/** A JSON array: one -32600 per element that is not a notification (or a response), nothing executed. */
const classifyBatch = (items: ReadonlyArray<unknown>): Framed => {
  if (items.length === 0) return reply(INVALID_REQUEST, null, "Invalid Request: an empty batch")
  const replies = items.flatMap((item): Array<ErrorReply> => {
    const one = classifyValue(item)
    switch (one._tag) {
      case "Message":
        return "method" in one.message && "id" in one.message
          ? [errorReply(INVALID_REQUEST, one.message.id, batchRefused)]
          : []
      case "Reply": {
        const r = one.reply as ErrorReply
        return [r.error.code === INVALID_REQUEST ? r : errorReply(INVALID_REQUEST, r.id, batchRefused)]
      }
      default:
        return []
    }
  })
  return replies.length === 0
    ? drop(`a batch of ${items.length} notification(s) was ignored (batches are not supported)`)
    : {
      _tag: "Reply",
      reply: replies,
      problem: `a batch of ${items.length} message(s) was refused (batches are not supported)`
    }
}

/** Decides what one line of input is (see the module comment). */
export const classifyLine = (line: string): Framed => {
  if (line.trim() === "") return { _tag: "Blank" }
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (e) {
    return reply(PARSE_ERROR, null, `Parse error: the line is not JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  return Array.isArray(value) ? classifyBatch(value) : classifyValue(value)
}

/**
 * A `Transport` for the SDK's `Server` over stdin/stdout that answers malformed input itself and
 * hands everything valid to the SDK.
 */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined

  private pending: Array<Buffer> = []
  private pendingBytes = 0
  /** Inside a line longer than the limit: skip until its end, then answer it. */
  private discarding = false
  private started = false

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes: number = MAX_LINE_BYTES
  ) {}

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    let start = 0
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      const piece = data.subarray(start, nl)
      start = nl + 1
      const tooLong = this.discarding || this.pendingBytes + piece.length > this.maxLineBytes
      const line = tooLong ? "" : Buffer.concat([...this.pending, piece]).toString("utf8").replace(/\r$/, "")
      this.pending = []
      this.pendingBytes = 0
      this.discarding = false
      if (tooLong) {
        this.answer(
          reply(INVALID_REQUEST, null, `Invalid Request: a line longer than ${this.maxLineBytes} bytes was discarded`)
        )
      } else this.answer(classifyLine(line))
    }
    const rest = data.subarray(start)
    if (this.discarding || rest.length === 0) return
    this.pending.push(rest)
    this.pendingBytes += rest.length
    if (this.pendingBytes > this.maxLineBytes) {
      this.pending = []
      this.pendingBytes = 0
      this.discarding = true
    }
  }

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error)
  }

  private answer(framed: Framed) {
    switch (framed._tag) {
      case "Message":
        try {
          this.onmessage?.(framed.message)
        } catch (e) {
          this.onerror?.(e instanceof Error ? e : new Error(String(e)))
        }
        return
      case "Reply":
        this.onerror?.(new Error(`answered malformed input: ${framed.problem}`))
        void this.write(framed.reply)
        return
      case "Drop":
        this.onerror?.(new Error(framed.problem))
        return
      case "Blank":
        return
    }
  }

  private write(value: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(value) + "\n")) resolve()
      else this.stdout.once("drain", () => resolve())
    })
  }

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error("StdioTransport already started"))
    this.started = true
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onStreamError)
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message)
  }

  close(): Promise<void> {
    this.stdin.off("data", this.onData)
    this.stdin.off("error", this.onStreamError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.pending = []
    this.pendingBytes = 0
    this.onclose?.()
    return Promise.resolve()
  }
}
