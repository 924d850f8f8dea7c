/**
 * The Mail layer's three transports against real edges: Postmark's API as a local fake on a real HTTP port
 * (test/utils/fakePostmark.ts), a real child process as the sendmail command (test/utils/sendmail-capture.mjs),
 * and dev mode's block on stderr. Also the message as MailComposer builds it: both parts, the right
 * recipient, and no header injected by a CR/LF in a value.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Redacted } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import MailComposer from "nodemailer/lib/mail-composer"
import {
  composeMessage,
  devBlock,
  devPrefix,
  MailLive,
  type MailLiveOptions,
  MailNotConfiguredLive,
  makeMail,
  stderrTail
} from "../../../src/layers/portal/Mail.js"
import {
  claimLinkMessage,
  defaultMailFrom,
  Mail,
  type MailConfig,
  type MailMessage,
  mailOutcome,
  oneTimeCodeMessage
} from "../../../src/services/Mail.js"
import { fakePostmarkScoped } from "../../utils/fakePostmark.js"

const captureScript = path.resolve("test/utils/sendmail-capture.mjs")
const node = JSON.stringify(process.execPath)
const captureCmd = (dir: string, env = "") => `${env} ${node} ${JSON.stringify(captureScript)} ${JSON.stringify(dir)}`

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ldc-mail-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const claimUrl = "http://127.0.0.1:4330/claim/clm_" + "Q".repeat(43)
const claim: MailMessage = claimLinkMessage({
  to: "dpo@acme.example",
  claimUrl,
  controllerName: "Acme <script>x</script> GmbH",
  datasets: 3,
  personalItems: 2
})
const code: MailMessage = oneTimeCodeMessage({ to: "dpo@acme.example", code: "731046", claimUrl, minutesValid: 15 })

/** The header block of a message (folded lines joined) and its body. */
const split = (raw: string) => {
  const at = raw.search(/\r?\n\r?\n/)
  const head = raw.slice(0, at).replace(/\r?\n[ \t]+/g, " ")
  return { headers: head.split(/\r?\n/), body: raw.slice(at) }
}
const header = (raw: string, name: string): Array<string> =>
  split(raw).headers.filter((l) => l.toLowerCase().startsWith(name.toLowerCase() + ":")).map((l) =>
    l.slice(name.length + 1).trim()
  )
/** A quoted-printable body decoded (soft line breaks removed, =XX as UTF-8 bytes). */
const qp = (s: string): string =>
  Buffer.from(
    s.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    "latin1"
  ).toString("utf8")

const sendWith = (config: MailConfig, message: MailMessage, options: MailLiveOptions = {}) =>
  Effect.flatMap(Mail, (m) => Effect.exit(m.send(message))).pipe(Effect.provide(MailLive(config, options)))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) return assert.fail("expected the send to fail")
  const f = exit.cause._tag === "Fail" ? exit.cause.error : null
  if (f === null) return assert.fail(`expected a failure, got ${exit.cause._tag}`)
  return f
}

describe("composeMessage (MailComposer)", () => {
  it.effect("builds multipart/alternative with the text and HTML parts, the sender and the one recipient", () =>
    Effect.gen(function*() {
      const { bytes, messageId } = yield* composeMessage(defaultMailFrom, claim)
      const raw = bytes.toString("utf8")
      assert.deepStrictEqual(header(raw, "To"), ["dpo@acme.example"])
      assert.deepStrictEqual(header(raw, "From"), ["Local Data Catalog <no-reply@localhost>"])
      assert.deepStrictEqual(header(raw, "Message-ID"), [messageId])
      assert.match(header(raw, "Content-Type")[0], /^multipart\/alternative;/)
      assert.include(raw, "Content-Type: text/plain; charset=utf-8")
      assert.include(raw, "Content-Type: text/html; charset=utf-8")
      const body = qp(split(raw).body)
      assert.include(body, claimUrl)
      // Plain text in the text part; escaped in the HTML part.
      const [text, html] = body.split("Content-Type: text/html")
      assert.include(text, "Acme <script>x</script> GmbH")
      assert.include(html, "Acme &lt;script&gt;x&lt;/script&gt; GmbH")
      assert.notInclude(html, "<script>")
    }))

  it.effect("a CR/LF in a header value never starts a header of its own (the library folds it)", () =>
    Effect.gen(function*() {
      const { bytes } = yield* composeMessage(defaultMailFrom, {
        to: "dpo@acme.example",
        subject: "Hello\r\nBcc: evil@attacker.example\r\n\r\n<b>injected body</b>",
        text: "t",
        html: "<p>t</p>"
      })
      const raw = bytes.toString("utf8")
      const { headers } = split(raw)
      assert.isFalse(headers.some((l) => /^bcc:/i.test(l)), headers.join("\n"))
      assert.strictEqual(header(raw, "Subject").length, 1)
      assert.include(header(raw, "Subject")[0], "Bcc: evil@attacker.example")
      assert.deepStrictEqual(header(raw, "To"), ["dpo@acme.example"])
    }))

  it("why the recipient is checked before the library: a CR/LF recipient would become a group naming another address", () => {
    // Not a header injection, but the envelope would go to the attacker: so every transport refuses it first.
    const envelope = new MailComposer({ from: defaultMailFrom, to: "dpo@acme.example\r\nBcc: evil@attacker.example" })
      .compile().getEnvelope()
    assert.deepStrictEqual(envelope.to, ["evil@attacker.example"])
  })
})

describe("provider (Postmark's API, a local fake)", () => {
  const provider = (url: string, token: string, from = "Acme Privacy <privacy@acme.example>"): MailConfig => ({
    transport: "provider",
    token: Redacted.make(token),
    from,
    url
  })
  const fast: MailLiveOptions = { providerTimeout: Duration.millis(500), providerRetryDelay: Duration.millis(20) }

  it.scopedLive("posts the documented JSON with the token header and returns Postmark's MessageID", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      const exit = yield* sendWith(provider(fake.url, fake.token), claim)
      assert.isTrue(Exit.isSuccess(exit))
      const receipt = Exit.isSuccess(exit) ? exit.value : null
      assert.strictEqual(fake.messages.length, 1)
      const got = fake.messages[0]
      assert.deepStrictEqual(receipt, { transport: "provider", messageId: got.MessageID })
      assert.strictEqual(got.From, "Acme Privacy <privacy@acme.example>")
      assert.strictEqual(got.To, "dpo@acme.example")
      assert.strictEqual(got.Subject, claim.subject)
      assert.strictEqual(got.TextBody, claim.text)
      assert.strictEqual(got.HtmlBody, claim.html)
      assert.strictEqual(got.MessageStream, "outbound")
      assert.strictEqual(got.headers["accept"], "application/json")
      assert.strictEqual(got.headers["content-type"], "application/json")
      assert.strictEqual(got.headers["x-postmark-server-token"], fake.token)
    }))

  it.scopedLive("a wrong token: Postmark's 401 becomes a failed send naming the variable, never the token", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      const mail = makeMail(provider(fake.url, "wrong-token-value"), fast)
      const outcome = yield* mailOutcome(mail, claim)
      assert.strictEqual(outcome.status, "failed")
      assert.strictEqual(outcome.transport, "provider")
      assert.strictEqual(outcome.error?.code, "MAIL_NOT_CONFIGURED")
      assert.include(outcome.error?.message ?? "", "HTTP 401")
      assert.include(outcome.error?.message ?? "", "ErrorCode 10")
      assert.include(outcome.error?.fix ?? "", "CATALOG_POSTMARK_TOKEN")
      assert.notInclude(JSON.stringify(outcome), "wrong-token-value")
      assert.strictEqual(fake.messages.length, 0)
      assert.strictEqual(fake.requests.length, 1, "a 401 is not retried")
    }))

  it.scopedLive("a From that is not a sender signature: 422 with Postmark's message and a fix for CATALOG_MAIL_FROM", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped({ senders: ["privacy@acme.example"] })
      const e = failureOf(yield* sendWith(provider(fake.url, fake.token, "other@acme.example"), claim, fast))
      assert.strictEqual(e._tag, "MailSendFailed")
      assert.include(e.message, "HTTP 422")
      assert.include(e.message, "ErrorCode 400")
      assert.include(e._tag === "MailSendFailed" ? e.fix : "", "CATALOG_MAIL_FROM")
    }))

  it.scopedLive("one retry after a 5xx, then success; a second 5xx fails without a retry storm", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      fake.failNext(503)
      const ok = yield* sendWith(provider(fake.url, fake.token), code, fast)
      assert.isTrue(Exit.isSuccess(ok))
      assert.deepStrictEqual(fake.requests.map((r) => r.status), [503, 200])

      fake.failNext(500, 5)
      const e = failureOf(yield* sendWith(provider(fake.url, fake.token), code, fast))
      assert.include(e.message, "HTTP 500")
      assert.deepStrictEqual(fake.requests.map((r) => r.status), [503, 200, 500, 500])
      assert.strictEqual(fake.messages.length, 1)
    }))

  it.live("an address nobody listens on: failed after one retry, saying it cannot be reached", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const s = net.createServer()
          s.listen(0, "127.0.0.1", () => {
            const p = (s.address() as net.AddressInfo).port
            s.close(() => resolve(p))
          })
        })
      )
      const e = failureOf(yield* sendWith(provider(`http://127.0.0.1:${port}`, "t"), code, fast))
      assert.include(e.message, "cannot be reached")
      assert.include(e.message, "ECONNREFUSED")
    }))

  it.scopedLive("a provider that does not answer in time: failed after the timeout, not retried", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      fake.setDelay(3000)
      const started = Date.now()
      const e = failureOf(yield* sendWith(provider(fake.url, fake.token), code, fast))
      assert.include(e.message, "did not answer within")
      assert.isBelow(Date.now() - started, 2500)
    }))

  it.live("an answer longer than 64 KiB is not read past it: the stream is cancelled and the send failed", () =>
    Effect.gen(function*() {
      // A provider that answers 200 and then streams without end, counting what it manages to write.
      let written = 0
      let hungUp = () => {}
      const closed = new Promise<void>((resolve) => (hungUp = resolve))
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.write("{\"ErrorCode\":0,\"Message\":\"")
        const chunk = Buffer.alloc(16 * 1024, 0x61)
        const pump = () => {
          while (!res.destroyed) {
            written += chunk.length
            if (!res.write(chunk)) return res.once("drain", pump)
          }
        }
        res.on("close", () => hungUp())
        pump()
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      const port = (server.address() as net.AddressInfo).port
      const e = failureOf(
        yield* sendWith(provider(`http://127.0.0.1:${port}`, "t"), code, {
          providerTimeout: Duration.seconds(5),
          providerRetryDelay: Duration.millis(20)
        }).pipe(Effect.ensuring(Effect.sync(() => server.close())))
      )
      assert.include(e.message, "more than 64 KiB")
      // The portal hung up: the provider's writes stop well short of what an unbounded read would take in.
      yield* Effect.promise(() => closed)
      assert.isBelow(written, 16 * 1024 * 1024)
    }))

  it.scopedLive("a recipient that is not one bare address is refused before anything is posted", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      const e = failureOf(
        yield* sendWith(provider(fake.url, fake.token), { ...code, to: "dpo@acme.example\r\nBcc: evil@x.example" })
      )
      assert.include(e.message, "not exactly one e-mail address")
      assert.strictEqual(fake.requests.length, 0)
    }))
})

describe("the fake itself answers as Postmark documents", () => {
  it.scopedLive("401 without the token, 422 for missing JSON fields or a non-JSON request, 200 otherwise", () =>
    Effect.gen(function*() {
      const fake = yield* fakePostmarkScoped()
      const post = (headers: Record<string, string>, body: string) =>
        Effect.promise(async () => {
          const res = await fetch(`${fake.url}/email`, { method: "POST", headers, body })
          return { status: res.status, body: (await res.json()) as { ErrorCode: number; MessageID?: string } }
        })
      const json = { Accept: "application/json", "Content-Type": "application/json" }
      const ok = { From: "a@b.example", To: "c@d.example", Subject: "s", TextBody: "t", MessageStream: "outbound" }
      const noToken = yield* post(json, JSON.stringify(ok))
      assert.deepStrictEqual([noToken.status, noToken.body.ErrorCode], [401, 10])
      const auth = { ...json, "X-Postmark-Server-Token": fake.token }
      const noBody = yield* post(auth, JSON.stringify({ ...ok, TextBody: undefined }))
      assert.deepStrictEqual([noBody.status, noBody.body.ErrorCode], [422, 300])
      const noTo = yield* post(auth, JSON.stringify({ ...ok, To: "" }))
      assert.deepStrictEqual([noTo.status, noTo.body.ErrorCode], [422, 300])
      const badJson = yield* post(auth, "{")
      assert.deepStrictEqual([badJson.status, badJson.body.ErrorCode], [422, 402])
      const notJson = yield* post({ "X-Postmark-Server-Token": fake.token }, JSON.stringify(ok))
      assert.deepStrictEqual([notJson.status, notJson.body.ErrorCode], [422, 409])
      const accepted = yield* post(auth, JSON.stringify(ok))
      assert.deepStrictEqual([accepted.status, accepted.body.ErrorCode], [200, 0])
      assert.deepStrictEqual(fake.messages.map((m) => m.MessageID), [accepted.body.MessageID])
    }))
})

describe("sendmail (a real child process)", () => {
  const sendmail = (command: string): MailConfig => ({ transport: "sendmail", command, from: defaultMailFrom })

  it.scopedLive("pipes the whole MIME message to the command, with the recipient in CATALOG_MAIL_TO and no secrets", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const saved = process.env["CATALOG_POSTMARK_TOKEN"]
      process.env["CATALOG_POSTMARK_TOKEN"] = "planted-token-value"
      const exit = yield* sendWith(sendmail(captureCmd(dir)), claim).pipe(
        Effect.ensuring(Effect.sync(() => {
          if (saved === undefined) delete process.env["CATALOG_POSTMARK_TOKEN"]
          else process.env["CATALOG_POSTMARK_TOKEN"] = saved
        }))
      )
      assert.isTrue(Exit.isSuccess(exit))
      const raw = fs.readFileSync(path.join(dir, "1.eml"), "utf8")
      const info = JSON.parse(fs.readFileSync(path.join(dir, "1.json"), "utf8")) as {
        mailTo: string
        secretsVisible: Array<string>
      }
      assert.deepStrictEqual(header(raw, "To"), ["dpo@acme.example"])
      assert.deepStrictEqual(header(raw, "From"), [defaultMailFrom])
      assert.deepStrictEqual(header(raw, "Subject"), [claim.subject])
      assert.deepStrictEqual(Exit.isSuccess(exit) ? exit.value : null, {
        transport: "sendmail",
        messageId: header(raw, "Message-ID")[0]
      })
      assert.notInclude(raw, "\r\n", "Unix line ends for a local sendmail")
      const body = qp(split(raw).body)
      assert.include(body, "text/plain")
      assert.include(body, "text/html")
      assert.include(body, claimUrl)
      assert.strictEqual(info.mailTo, "dpo@acme.example")
      assert.deepStrictEqual(info.secretsVisible, [])
    }))

  it.scopedLive("a command that exits 1 fails the send with its stderr tail, never the message", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const e = failureOf(
        yield* sendWith(sendmail(captureCmd(dir, "CAPTURE_EXIT=1 CAPTURE_ECHO=1 CAPTURE_STDERR='relay denied'")), code)
      )
      assert.strictEqual(e._tag, "MailSendFailed")
      assert.include(e.message, "exited with status 1")
      assert.include(e.message, "relay denied")
      assert.notInclude(e.message, "731046")
      assert.notInclude(e.message, claimUrl)
      assert.isFalse(fs.existsSync(path.join(dir, "1.eml")))
      const outcome = yield* mailOutcome(makeMail(sendmail(captureCmd(dir, "CAPTURE_EXIT=3"))), code)
      assert.strictEqual(outcome.status, "failed")
      assert.include(outcome.error?.fix ?? "", "CATALOG_SENDMAIL_CMD")
    }))

  it.live("a command that is not there: the shell's 127 and its reason", () =>
    Effect.gen(function*() {
      const e = failureOf(yield* sendWith(sendmail("/nonexistent/sendmail -t"), code))
      assert.include(e.message, "exited with status 127")
      assert.include(e.message, "not found")
    }))

  it.scopedLive("a command that hangs is killed after the timeout, with its children", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const started = Date.now()
      const e = failureOf(
        // `; true` keeps the shell alive, so the capture is its child: only killing the group stops both.
        yield* sendWith(sendmail(captureCmd(dir, "CAPTURE_SLEEP_MS=1500") + "; true"), code, {
          sendmailTimeout: Duration.millis(300)
        })
      )
      assert.include(e.message, "did not finish within")
      assert.isBelow(Date.now() - started, 1400)
      // Had the group not been killed, the capture would save the message once its sleep ends.
      yield* Effect.sleep(Duration.millis(2000))
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }))

  it("stderrTail withholds a line of the message and keeps the last lines only", () => {
    const tail = stderrTail("a\nb\nc\nd\ne\nf\nsecret line of the body\n", "...secret line of the body...")
    assert.strictEqual(tail, "c / d / e / f / [a line of the message, withheld]")
  })
})

describe("dev mode", () => {
  const dev: MailConfig = { transport: "dev", from: defaultMailFrom }

  it.effect("writes the headers and the readable text part as one prefixed block, and sends nothing", () =>
    Effect.gen(function*() {
      const blocks: Array<string> = []
      const mail = makeMail(dev, { devWrite: (b) => Effect.sync(() => void blocks.push(b)) })
      const outcome = yield* mailOutcome(mail, code)
      assert.deepStrictEqual(outcome, { status: "logged", transport: "dev", error: null })
      assert.strictEqual(blocks.length, 1)
      const lines = blocks[0].split("\n")
      assert.isTrue(lines.every((l) => l.startsWith(devPrefix)))
      assert.include(lines[0], "NOT sent")
      assert.include(blocks[0], `${devPrefix} To: dpo@acme.example`)
      assert.include(blocks[0], `${devPrefix} Subject: ${code.subject}`)
      assert.include(blocks[0], `${devPrefix}     731046`)
      // The link in one piece (not quoted-printable), so the operator can copy it.
      assert.include(blocks[0], `${devPrefix} ${claimUrl}`)
      assert.notInclude(blocks[0], "<p>")
    }))

  it.effect("by default the block goes to the process's stderr", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const original = process.stderr.write.bind(process.stderr)
      const receipt = yield* Effect.acquireUseRelease(
        Effect.sync(() => {
          process.stderr.write = ((chunk: string | Uint8Array) => {
            written.push(String(chunk))
            return true
          }) as typeof process.stderr.write
        }),
        () => Effect.flatMap(Mail, (m) => m.send(claim)).pipe(Effect.provide(MailLive(dev))),
        () => Effect.sync(() => void (process.stderr.write = original))
      )
      assert.strictEqual(receipt.transport, "dev")
      assert.match(receipt.messageId ?? "", /^<.+@localhost>$/)
      const out = written.join("")
      assert.include(out, `${devPrefix} To: dpo@acme.example`)
      assert.include(out, claimUrl)
    }))

  it("devBlock leaves the HTML part out", () => {
    const block = devBlock(Buffer.from("From: a@b.example\nTo: c@d.example\n\nbody"), claim)
    assert.include(block, `${devPrefix} From: a@b.example`)
    assert.notInclude(block, "<!doctype")
  })
})

describe("not configured", () => {
  it.effect("every send fails with MAIL_NOT_CONFIGURED and the registry's fix", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(
        Effect.flatMap(Mail, (m) => m.send(code)).pipe(Effect.provide(MailNotConfiguredLive))
      )
      assert.strictEqual(e._tag, "MailNotConfigured")
      assert.strictEqual(e._tag === "MailNotConfigured" ? e.code : null, "MAIL_NOT_CONFIGURED")
      assert.include(e.fix ?? "", "CATALOG_SENDMAIL_CMD")
      const none = makeMail({ transport: "none" })
      assert.isNull(none.transport)
      const outcome = yield* mailOutcome(none, code)
      assert.strictEqual(outcome.status, "not-configured")
    }))
})
