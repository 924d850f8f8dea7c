/**
 * A local fake of Postmark's documented Email API (https://postmarkapp.com/developer/user-guide/sending-with-api)
 * on a real HTTP port: `POST /email` with `Accept: application/json`, `Content-Type: application/json` and
 * `X-Postmark-Server-Token`, a JSON body `{ From, To, Subject, TextBody, HtmlBody, MessageStream }`. It answers
 * as Postmark does — 200 `{ To, SubmittedAt, MessageID, ErrorCode: 0, Message: "OK" }`, 401 for a wrong or
 * missing token (ErrorCode 10), 422 `{ ErrorCode, Message }` for an invalid request (300), invalid JSON (402),
 * a From that is not a sender signature (400) — and records every message it accepted.
 *
 * Point the portal at it with `CATALOG_POSTMARK_URL=<fake.url>` and `CATALOG_POSTMARK_TOKEN=<fake.token>`.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"

/** One message the fake accepted, as Postmark received it. */
export interface PostmarkMessage {
  readonly From: string
  readonly To: string
  readonly Subject: string
  readonly TextBody: string | null
  readonly HtmlBody: string | null
  readonly MessageStream: string | null
  readonly MessageID: string
  readonly headers: http.IncomingHttpHeaders
}

/** Every request that reached the fake (accepted or not), without the token's value. */
export interface PostmarkRequest {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly tokenPresent: boolean
}

export interface FakePostmarkOptions {
  /** The server token the fake accepts (default: a random one, read it from `fake.token`). */
  readonly token?: string
  /** Confirmed sender signatures; a From whose address is not among them gets 422 / ErrorCode 400 (default: any). */
  readonly senders?: ReadonlyArray<string>
}

export interface FakePostmark {
  /** Base address, e.g. `http://127.0.0.1:41234` (the Email API is `${url}/email`). */
  readonly url: string
  readonly token: string
  /** Messages accepted (200), in order. */
  readonly messages: Array<PostmarkMessage>
  readonly requests: Array<PostmarkRequest>
  /** The next `count` requests answer `status` (e.g. 500, 503) with a Postmark-shaped body, before any check. */
  readonly failNext: (status: number, count?: number) => void
  /** Every request waits this long before it is answered (0 to stop). */
  readonly setDelay: (ms: number) => void
  readonly close: () => Promise<void>
}

const isString = (v: unknown): v is string => typeof v === "string"

const addressOf = (from: string): string => {
  const m = /<([^>]+)>\s*$/.exec(from)
  return (m !== null ? m[1] : from).trim().toLowerCase()
}

/** Starts the fake on 127.0.0.1 on a free port. */
export const startFakePostmark = async (options: FakePostmarkOptions = {}): Promise<FakePostmark> => {
  const token = options.token ?? `fake-server-token-${randomUUID()}`
  const senders = options.senders?.map((s) => s.toLowerCase()) ?? null
  const messages: Array<PostmarkMessage> = []
  const requests: Array<PostmarkRequest> = []
  let failures: Array<number> = []
  let delay = 0
  const sockets = new Set<Socket>()

  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const answer = (status: number, body: unknown) => {
        requests.push({
          method: req.method ?? "",
          path: req.url ?? "",
          status,
          tokenPresent: req.headers["x-postmark-server-token"] !== undefined
        })
        res.writeHead(status, { "Content-Type": "application/json" })
        res.end(JSON.stringify(body))
      }
      const respond = () => {
        const forced = failures.shift()
        if (forced !== undefined) return answer(forced, { ErrorCode: 100, Message: "Maintenance." })
        if (req.method !== "POST" || req.url !== "/email") {
          return answer(404, { ErrorCode: 404, Message: "Not found." })
        }
        if (req.headers["x-postmark-server-token"] !== token) {
          return answer(401, {
            ErrorCode: 10,
            Message:
              "The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token."
          })
        }
        if (!/application\/json/i.test(req.headers["accept"] ?? "")) {
          return answer(422, {
            ErrorCode: 409,
            Message: "JSON data required. The Accept header must be application/json."
          })
        }
        if (!/^application\/json/i.test(req.headers["content-type"] ?? "")) {
          return answer(422, { ErrorCode: 409, Message: "JSON data required. Content-Type must be application/json." })
        }
        let body: unknown
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        } catch {
          return answer(422, { ErrorCode: 402, Message: "Received invalid JSON input." })
        }
        const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
        if (!isString(b["From"]) || b["From"] === "") {
          return answer(422, { ErrorCode: 300, Message: "Invalid email request: no 'From' address." })
        }
        if (!isString(b["To"]) || !b["To"].includes("@")) {
          return answer(422, { ErrorCode: 300, Message: "Error parsing 'To': Illegal email address." })
        }
        if (!isString(b["Subject"])) {
          return answer(422, { ErrorCode: 300, Message: "Invalid email request: no 'Subject'." })
        }
        const text = isString(b["TextBody"]) ? b["TextBody"] : null
        const html = isString(b["HtmlBody"]) ? b["HtmlBody"] : null
        if ((text ?? "") === "" && (html ?? "") === "") {
          return answer(422, { ErrorCode: 300, Message: "Provide either email TextBody or HtmlBody or both." })
        }
        if (senders !== null && !senders.includes(addressOf(b["From"]))) {
          return answer(422, {
            ErrorCode: 400,
            Message: `The 'From' address you supplied (${b["From"]}) is not a Sender Signature on your account.`
          })
        }
        const id = randomUUID()
        messages.push({
          From: b["From"],
          To: b["To"],
          Subject: b["Subject"],
          TextBody: text,
          HtmlBody: html,
          MessageStream: isString(b["MessageStream"]) ? b["MessageStream"] : null,
          MessageID: id,
          headers: req.headers
        })
        return answer(200, {
          To: b["To"],
          SubmittedAt: new Date().toISOString(),
          MessageID: id,
          ErrorCode: 0,
          Message: "OK"
        })
      }
      if (delay > 0) setTimeout(respond, delay)
      else respond()
    })
  })
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    messages,
    requests,
    failNext: (status, count = 1) => {
      failures = [...failures, ...Array.from({ length: count }, () => status)]
    },
    setDelay: (ms) => {
      delay = ms
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** The fake for the length of a scope (closed by its finalizer). */
export const fakePostmarkScoped = (options: FakePostmarkOptions = {}) =>
  Effect.acquireRelease(Effect.promise(() => startFakePostmark(options)), (f) => Effect.promise(() => f.close()))
