/**
 * The Mail service's transports (services/Mail.ts): Postmark's Email API over `fetch`, a sendmail command
 * run through `/bin/sh -c` with the whole message on its stdin, and dev mode, which writes the message to
 * stderr instead of sending it. Messages for sendmail and dev mode are built by nodemailer's MailComposer
 * (RFC 5322 / MIME, headers encoded and folded by the library); Postmark builds its own from the JSON fields.
 * Every transport first checks that the recipient is exactly one bare address.
 */
import { Duration, Effect, Layer, Redacted, Schema } from "effect"
import { spawn } from "node:child_process"
import MailComposer from "nodemailer/lib/mail-composer"
import { MailNotConfigured } from "../../errors/index.js"
import { stderrLine } from "../../services/AppEnv.js"
import {
  Mail,
  type MailConfig,
  type MailMessage,
  type MailReceipt,
  MailSendFailed,
  type MailShape,
  postmarkTokenVar,
  recipientAddress,
  sendmailCmdVar
} from "../../services/Mail.js"

/** Tunables; the defaults are the production values (tests shorten the timeouts). */
export interface MailLiveOptions {
  /** Per attempt of the provider's API (default 10 s). */
  readonly providerTimeout?: Duration.DurationInput
  /** Pause before the one retry after a 5xx or a network failure (default 1 s). */
  readonly providerRetryDelay?: Duration.DurationInput
  /** The sendmail command must finish within this, or it is killed (default 15 s). */
  readonly sendmailTimeout?: Duration.DurationInput
  /** Where dev mode writes its block (default: the process's stderr). */
  readonly devWrite?: (block: string) => Effect.Effect<void>
}

/** The prefix of every line dev mode writes. */
export const devPrefix = "[mail:dev]"

/** Variables never handed to the sendmail command: the portal's own secrets. */
const withheldFromCommand = [
  postmarkTokenVar,
  "CATALOG_INGEST_TOKEN",
  "CATALOG_PORTAL_DATABASE_URL",
  "CATALOG_DATA_KEY"
]

/**
 * The message as RFC 5322 / MIME bytes (multipart/alternative: text, then HTML), built by MailComposer with
 * file and URL access switched off (content is only ever the strings given). `newline: "\n"` for local
 * sendmail commands, which expect Unix line ends; `"\r\n"` for the wire form.
 */
export const composeMessage = (
  from: string,
  message: MailMessage,
  newline: "\n" | "\r\n" = "\n"
): Effect.Effect<{ readonly bytes: Buffer; readonly messageId: string }> =>
  Effect.promise(async () => {
    const node = new MailComposer({
      from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      disableFileAccess: true,
      disableUrlAccess: true,
      newline: newline === "\n" ? "linux" : "win"
    }).compile()
    const bytes = await node.build()
    return { bytes, messageId: node.messageId() }
  })

const failed = (transport: MailSendFailed["transport"], message: string, fix: string) =>
  new MailSendFailed({ transport, message, fix })

/** The recipient as one bare address, or the transport's failure saying why not. */
const checkedRecipient = (
  transport: MailSendFailed["transport"],
  message: MailMessage
): Effect.Effect<MailMessage, MailSendFailed> => {
  const to = recipientAddress(message.to)
  return to === null
    ? Effect.fail(
      failed(
        transport,
        "The recipient is not exactly one e-mail address (a name, a list, a group or a line break is refused).",
        "Invite again with `catalog invite --email <one address>`."
      )
    )
    : Effect.succeed<MailMessage>({ ...message, to })
}

const clip = (s: string, max: number): string => (s.length > max ? s.slice(0, max) + "…" : s)

// ── Provider: Postmark ──────────────────────────────────────────────────────────────────────────

const PostmarkAnswer = Schema.Struct({
  ErrorCode: Schema.Number,
  Message: Schema.String,
  MessageID: Schema.optional(Schema.String)
})
const decodeAnswer = Schema.decodeUnknownOption(Schema.parseJson(PostmarkAnswer))

type Attempt =
  | { readonly _tag: "Answered"; readonly status: number; readonly body: string }
  | { readonly _tag: "Oversized"; readonly status: number }
  | { readonly _tag: "Unreachable"; readonly reason: string }
  | { readonly _tag: "TimedOut" }

/** The most of Postmark's answer that is read (its answers are a few hundred bytes). */
export const providerAnswerCap = 64 * 1024

/** The answer's body, read as a stream up to `cap` bytes; null (the stream cancelled) past it. */
const readAnswer = async (res: Response, cap: number): Promise<string | null> => {
  if (res.body === null) return ""
  const reader = res.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > cap) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, size).toString("utf8")
}

const reasonOfFetch = (e: unknown): string => {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
  return code !== "" ? code : cause instanceof Error ? cause.message : "network failure"
}

const providerFix = "Check CATALOG_POSTMARK_URL and that Postmark is reachable from the portal, then invite again."

const sendProvider = (
  config: Extract<MailConfig, { transport: "provider" }>,
  options: MailLiveOptions,
  message: MailMessage
): Effect.Effect<MailReceipt, MailSendFailed> => {
  const body = JSON.stringify({
    From: config.from,
    To: message.to,
    Subject: message.subject,
    TextBody: message.text,
    HtmlBody: message.html,
    MessageStream: "outbound"
  })
  const timeout = options.providerTimeout ?? Duration.seconds(10)
  const attempt: Effect.Effect<Attempt> = Effect.tryPromise({
    try: async (signal): Promise<Attempt> => {
      const res = await fetch(`${config.url}/email`, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-Postmark-Server-Token": Redacted.value(config.token)
        },
        body,
        signal,
        redirect: "error"
      })
      const text = await readAnswer(res, providerAnswerCap)
      return text === null
        ? { _tag: "Oversized", status: res.status }
        : { _tag: "Answered", status: res.status, body: text }
    },
    catch: (e): Attempt => ({ _tag: "Unreachable", reason: reasonOfFetch(e) })
  }).pipe(
    Effect.merge,
    Effect.timeoutTo({ duration: timeout, onTimeout: (): Attempt => ({ _tag: "TimedOut" }), onSuccess: (a) => a })
  )
  const retryable = (a: Attempt) => a._tag === "Unreachable" || (a._tag === "Answered" && a.status >= 500)
  return Effect.gen(function*() {
    let result = yield* attempt
    // One retry after a 5xx or a failure to connect; never after a timeout (Postmark may have taken it).
    if (retryable(result)) {
      yield* Effect.sleep(options.providerRetryDelay ?? Duration.seconds(1))
      result = yield* attempt
    }
    switch (result._tag) {
      case "TimedOut":
        return yield* failed(
          "provider",
          `Postmark at ${config.url} did not answer within ${Duration.format(timeout)}.`,
          providerFix
        )
      case "Oversized":
        return yield* failed(
          "provider",
          `Postmark at ${config.url} answered HTTP ${result.status} with more than 64 KiB; the answer was not read past that.`,
          providerFix
        )
      case "Unreachable":
        return yield* failed("provider", `Postmark at ${config.url} cannot be reached (${result.reason}).`, providerFix)
      case "Answered": {
        const answer = decodeAnswer(result.body)
        const said = answer._tag === "Some"
          ? ` (ErrorCode ${answer.value.ErrorCode}: ${clip(answer.value.Message, 300)})`
          : ""
        if (result.status === 200 && answer._tag === "Some" && answer.value.ErrorCode === 0) {
          return { transport: "provider", messageId: answer.value.MessageID ?? null } satisfies MailReceipt
        }
        if (result.status === 401) {
          return yield* failed(
            "provider",
            `Postmark refused the server token (HTTP 401)${said}.`,
            `Set ${postmarkTokenVar} to the Server API token of your Postmark server (Servers → API Tokens).`
          )
        }
        if (result.status === 422) {
          const code = answer._tag === "Some" ? answer.value.ErrorCode : null
          const sender = code === 400 || code === 401 || (code === 300 && /from/i.test(said))
          return yield* failed(
            "provider",
            `Postmark refused the message (HTTP 422)${said}.`,
            sender
              ? "Set CATALOG_MAIL_FROM to a confirmed sender signature (or an address of a verified domain) of your Postmark account."
              : "Check CATALOG_MAIL_FROM and the recipient's address; Postmark's message says what it refused."
          )
        }
        return yield* failed("provider", `Postmark answered HTTP ${result.status}${said}.`, providerFix)
      }
    }
  })
}

// ── sendmail ────────────────────────────────────────────────────────────────────────────────────

type CommandEnd =
  | { readonly _tag: "Exited"; readonly code: number | null; readonly signal: string | null; readonly stderr: string }
  | { readonly _tag: "SpawnFailed"; readonly reason: string }
  | { readonly _tag: "TimedOut" }

/** Runs `/bin/sh -c <command>` with `input` on stdin in its own process group, killed whole on timeout. */
const runCommand = (
  command: string,
  input: Buffer,
  env: NodeJS.ProcessEnv,
  timeoutMs: number
): Effect.Effect<CommandEnd> =>
  Effect.async<CommandEnd>((resume) => {
    let done = false
    const stderr: Array<Buffer> = []
    let stderrBytes = 0
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "ignore", "pipe"], env, detached: true })
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // The group is already gone.
      }
    }
    const finish = (end: CommandEnd) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(Effect.succeed(end))
    }
    const timer = setTimeout(() => {
      killGroup()
      finish({ _tag: "TimedOut" })
    }, timeoutMs)
    child.on("error", (e) => finish({ _tag: "SpawnFailed", reason: e.message }))
    child.stderr.on("data", (chunk: Buffer) => {
      // Keep the tail only: the last 8 KiB are plenty for a reason.
      stderr.push(chunk)
      stderrBytes += chunk.length
      while (stderrBytes > 8192 && stderr.length > 1) stderrBytes -= stderr.shift()?.length ?? 0
    })
    // A command that exits without reading its stdin closes the pipe: EPIPE is its exit status's business.
    child.stdin.on("error", () => {})
    child.on("close", (code, signal) =>
      finish({ _tag: "Exited", code, signal, stderr: Buffer.concat(stderr).toString("utf8") }))
    child.stdin.end(input)
    return Effect.sync(() => {
      if (!done) {
        done = true
        clearTimeout(timer)
        killGroup()
      }
    })
  })

/**
 * The last lines of a command's stderr, for the failure's message. A line that appears in the message itself
 * (a command that echoes its input) is withheld: the failure never carries the message's body.
 */
export const stderrTail = (stderr: string, sent: string): string => {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "")
  const tail = lines.slice(-5).map((l) =>
    l.length >= 4 && sent.includes(l) ? "[a line of the message, withheld]" : clip(l, 200)
  )
  return tail.join(" / ")
}

const sendmailFix =
  `Check ${sendmailCmdVar}: it must read one whole message on stdin and exit 0 (e.g. \`/usr/sbin/sendmail -t -i\`).`

const sendSendmail = (
  config: Extract<MailConfig, { transport: "sendmail" }>,
  options: MailLiveOptions,
  message: MailMessage
): Effect.Effect<MailReceipt, MailSendFailed> =>
  Effect.gen(function*() {
    const { bytes, messageId } = yield* composeMessage(config.from, message, "\n")
    const env: NodeJS.ProcessEnv = { ...process.env, CATALOG_MAIL_TO: message.to }
    for (const name of withheldFromCommand) delete env[name]
    const timeout = options.sendmailTimeout ?? Duration.seconds(15)
    const end = yield* runCommand(config.command, bytes, env, Duration.toMillis(timeout))
    switch (end._tag) {
      case "TimedOut":
        return yield* failed(
          "sendmail",
          `The sendmail command did not finish within ${Duration.format(timeout)} and was stopped.`,
          sendmailFix
        )
      case "SpawnFailed":
        return yield* failed("sendmail", `The sendmail command could not be started (${end.reason}).`, sendmailFix)
      case "Exited": {
        if (end.code === 0) return { transport: "sendmail", messageId } satisfies MailReceipt
        const tail = stderrTail(end.stderr, bytes.toString("utf8") + "\n" + message.text)
        const status = end.code !== null ? `exited with status ${end.code}` : `was ended by ${end.signal ?? "a signal"}`
        return yield* failed(
          "sendmail",
          `The sendmail command ${status}${tail !== "" ? `: ${tail}` : " and wrote nothing to stderr"}.`,
          sendmailFix
        )
      }
    }
  })

// ── Dev mode ────────────────────────────────────────────────────────────────────────────────────

/**
 * The block dev mode writes: the message's headers as built and its text part (readable, not
 * quoted-printable), every line prefixed, so the operator can copy the link or the code from the log.
 */
export const devBlock = (bytes: Buffer, message: MailMessage): string => {
  const raw = bytes.toString("utf8")
  const end = raw.indexOf("\n\n")
  const headers = (end === -1 ? raw : raw.slice(0, end)).split("\n")
  const lines = [
    "CATALOG_DEV_MODE=1: this message was NOT sent; it is written here instead.",
    ...headers,
    "",
    ...message.text.replace(/\n+$/, "").split("\n"),
    "(end of the text part; the HTML part carries the same content)"
  ]
  return lines.map((l) => (l === "" ? devPrefix : `${devPrefix} ${l}`)).join("\n")
}

const sendDev = (
  config: Extract<MailConfig, { transport: "dev" }>,
  options: MailLiveOptions,
  message: MailMessage
): Effect.Effect<MailReceipt> =>
  Effect.gen(function*() {
    const { bytes, messageId } = yield* composeMessage(config.from, message, "\n")
    yield* (options.devWrite ?? stderrLine)(devBlock(bytes, message))
    return { transport: "dev", messageId } satisfies MailReceipt
  })

// ── Layers ──────────────────────────────────────────────────────────────────────────────────────

/** Every send fails with MAIL_NOT_CONFIGURED (the registry's message and fix). */
export const mailNotConfigured: MailShape = {
  transport: null,
  send: () => Effect.fail(new MailNotConfigured())
}

export const MailNotConfiguredLive: Layer.Layer<Mail> = Layer.succeed(Mail, mailNotConfigured)

/** The Mail service for `config` (`transport: "none"` gives the not-configured service). */
export const makeMail = (config: MailConfig, options: MailLiveOptions = {}): MailShape => {
  switch (config.transport) {
    case "none":
      return mailNotConfigured
    case "provider":
      return {
        transport: "provider",
        send: (message) =>
          checkedRecipient("provider", message).pipe(
            Effect.flatMap((m) => sendProvider(config, options, m)),
            Effect.withSpan("Mail.send", { attributes: { transport: "provider" } })
          )
      }
    case "sendmail":
      return {
        transport: "sendmail",
        send: (message) =>
          checkedRecipient("sendmail", message).pipe(
            Effect.flatMap((m) => sendSendmail(config, options, m)),
            Effect.withSpan("Mail.send", { attributes: { transport: "sendmail" } })
          )
      }
    case "dev":
      return {
        transport: "dev",
        send: (message) =>
          checkedRecipient("dev", message).pipe(
            Effect.flatMap((m) => sendDev(config, options, m)),
            Effect.withSpan("Mail.send", { attributes: { transport: "dev" } })
          )
      }
  }
}

/** The Mail layer for the configured transport (see `mailConfigFrom`). */
export const MailLive = (config: MailConfig, options: MailLiveOptions = {}): Layer.Layer<Mail> =>
  Layer.succeed(Mail, makeMail(config, options))
