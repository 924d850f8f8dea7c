/**
 * The Mail service's pure parts: the settings read from the environment (precedence, what is missing or
 * malformed), the two messages the portal sends (content, both parts, every value escaped in the HTML),
 * the recipient check, and `mailOutcome`, which turns a send into the wire contract's MailOutcome.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Redacted, Schema } from "effect"
import { MailOutcome } from "../../src/domain/Portal.js"
import { MailNotConfigured } from "../../src/errors/index.js"
import {
  claimLinkMessage,
  defaultMailFrom,
  defaultPostmarkUrl,
  describeMailConfig,
  describeMailConfigProblem,
  escapeHtml,
  type MailConfig,
  mailConfigFrom,
  mailOutcome,
  MailSendFailed,
  type MailShape,
  oneTimeCodeMessage,
  recipientAddress,
  singleAddress
} from "../../src/services/Mail.js"

const right = (env: Record<string, string | undefined>): MailConfig => {
  const r = mailConfigFrom(env)
  if (Either.isLeft(r)) assert.fail(`expected a configuration, got ${describeMailConfigProblem(r.left)}`)
  return r.right
}
const left = (env: Record<string, string | undefined>) => {
  const r = mailConfigFrom(env)
  if (Either.isRight(r)) assert.fail(`expected a problem, got ${r.right.transport}`)
  return r.left
}

describe("mailConfigFrom", () => {
  it("nothing set: not configured", () => {
    assert.deepStrictEqual(right({}), { transport: "none" })
    assert.deepStrictEqual(right({ CATALOG_DEV_MODE: "0", CATALOG_SENDMAIL_CMD: "  " }), { transport: "none" })
  })

  it("the provider needs the token and CATALOG_MAIL_FROM, and takes precedence over sendmail and dev", () => {
    const c = right({
      CATALOG_POSTMARK_TOKEN: " tok-123 ",
      CATALOG_MAIL_FROM: "Acme Privacy <privacy@acme.example>",
      CATALOG_SENDMAIL_CMD: "cat > /dev/null",
      CATALOG_DEV_MODE: "1"
    })
    assert.strictEqual(c.transport, "provider")
    if (c.transport !== "provider") return
    assert.strictEqual(Redacted.value(c.token), "tok-123")
    assert.strictEqual(c.from, "Acme Privacy <privacy@acme.example>")
    assert.strictEqual(c.url, defaultPostmarkUrl)
    // The token never shows in the config's printed form.
    assert.notInclude(String(c.token), "tok-123")
    assert.notInclude(describeMailConfig(c), "tok-123")
  })

  it("CATALOG_POSTMARK_URL overrides the address (trailing slash dropped)", () => {
    const c = right({
      CATALOG_POSTMARK_TOKEN: "t",
      CATALOG_MAIL_FROM: "a@b.example",
      CATALOG_POSTMARK_URL: "http://127.0.0.1:9999/"
    })
    assert.strictEqual(c.transport === "provider" ? c.url : null, "http://127.0.0.1:9999")
  })

  it("a token without CATALOG_MAIL_FROM is a configuration error naming the variable", () => {
    const p = left({ CATALOG_POSTMARK_TOKEN: "t", CATALOG_SENDMAIL_CMD: "cat", CATALOG_DEV_MODE: "1" })
    assert.deepStrictEqual(p.missing, ["CATALOG_MAIL_FROM"])
    assert.deepStrictEqual(p.malformed, [])
    assert.include(describeMailConfigProblem(p), "missing: CATALOG_MAIL_FROM")
  })

  it("sendmail over dev; the default sender unless CATALOG_MAIL_FROM is set", () => {
    assert.deepStrictEqual(right({ CATALOG_SENDMAIL_CMD: "cat > /dev/null", CATALOG_DEV_MODE: "1" }), {
      transport: "sendmail",
      command: "cat > /dev/null",
      from: defaultMailFrom
    })
    assert.deepStrictEqual(right({ CATALOG_SENDMAIL_CMD: "x", CATALOG_MAIL_FROM: "ops@acme.example" }), {
      transport: "sendmail",
      command: "x",
      from: "ops@acme.example"
    })
    assert.deepStrictEqual(right({ CATALOG_DEV_MODE: "1" }), { transport: "dev", from: defaultMailFrom })
    assert.deepStrictEqual(right({ CATALOG_DEV_MODE: "true", CATALOG_MAIL_FROM: "x@y.example" }), {
      transport: "dev",
      from: "x@y.example"
    })
  })

  it("malformed values are named, all at once", () => {
    const p = left({
      CATALOG_MAIL_FROM: "not an address",
      CATALOG_POSTMARK_URL: "ftp://example.com",
      CATALOG_DEV_MODE: "yes please"
    })
    assert.deepStrictEqual(p.missing, [])
    assert.strictEqual(p.malformed.length, 3)
    assert.match(p.malformed[0], /^CATALOG_MAIL_FROM \(/)
    assert.match(p.malformed[1], /^CATALOG_POSTMARK_URL \(/)
    assert.match(p.malformed[2], /^CATALOG_DEV_MODE \(/)
    // A From carrying a line break or two addresses is refused too.
    assert.strictEqual(left({ CATALOG_MAIL_FROM: "a@b.example\r\nBcc: c@d.example" }).malformed.length, 1)
    assert.strictEqual(left({ CATALOG_MAIL_FROM: "a@b.example, c@d.example" }).malformed.length, 1)
  })

  it("describes each configuration in one line", () => {
    assert.include(describeMailConfig({ transport: "none" }), "MAIL_NOT_CONFIGURED")
    assert.include(describeMailConfig({ transport: "dev", from: defaultMailFrom }), "CATALOG_DEV_MODE=1")
    const withPassword = {
      transport: "sendmail",
      command: "msmtp --password=hunter2 -t",
      from: defaultMailFrom
    } as const
    assert.include(describeMailConfig(withPassword), "CATALOG_SENDMAIL_CMD")
    assert.notInclude(describeMailConfig(withPassword), "hunter2")
    const provider = right({
      CATALOG_POSTMARK_TOKEN: "t",
      CATALOG_MAIL_FROM: "a@b.example",
      CATALOG_POSTMARK_URL: "https://user:pw@mail.example/base"
    })
    assert.include(describeMailConfig(provider), "https://mail.example")
    assert.notInclude(describeMailConfig(provider), "pw@")
  })
})

describe("addresses", () => {
  it("a recipient is exactly one bare address", () => {
    assert.strictEqual(recipientAddress(" dpo@acme.example "), "dpo@acme.example")
    assert.isNull(recipientAddress("DPO <dpo@acme.example>"))
    assert.isNull(recipientAddress("a@acme.example, b@acme.example"))
    assert.isNull(recipientAddress("dpo@acme.example\r\nBcc: evil@attacker.example"))
    assert.isNull(recipientAddress("undisclosed: evil@attacker.example;"))
    assert.isNull(recipientAddress("no-at-sign"))
    assert.isNull(recipientAddress(""))
  })

  it("a sender may carry a display name", () => {
    assert.deepStrictEqual(singleAddress(defaultMailFrom), {
      name: "Local Data Catalog",
      address: "no-reply@localhost"
    })
  })
})

const planted = "<script>alert(\"x\")</script> & 'Co'"

describe("claimLinkMessage", () => {
  const m = claimLinkMessage({
    to: "dpo@acme.example",
    claimUrl: "https://portal.example/claim/clm_abc?x=1&y=2",
    controllerName: planted,
    datasets: 12,
    personalItems: 1,
    expiresNote: "The link works for 30 days."
  })

  it("says it is a draft, what it holds, and that a one-time code is mailed to this address", () => {
    assert.strictEqual(m.to, "dpo@acme.example")
    assert.include(m.subject, "A draft record of processing was shared with you")
    for (const part of [m.text, m.html]) {
      assert.include(part, "DRAFT")
      assert.include(part, "metadata only")
      assert.include(part, "no row values")
      assert.include(part, "one-time code")
      assert.include(part, "dpo@acme.example")
      assert.include(part, "12 datasets")
      assert.include(part, "1 item flagged as personal data")
      assert.include(part, "The link works for 30 days.")
    }
    assert.include(m.text, "https://portal.example/claim/clm_abc?x=1&y=2")
  })

  it("escapes every interpolated value in the HTML part (a planted <script> in the controller's name)", () => {
    assert.notInclude(m.html, "<script>")
    assert.include(m.html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;")
    assert.include(m.html, "href=\"https://portal.example/claim/clm_abc?x=1&amp;y=2\"")
    // The text part is plain text: the name as given.
    assert.include(m.text, planted)
  })

  it("keeps the subject on one line whatever the controller's name holds", () => {
    const s = claimLinkMessage({
      to: "dpo@acme.example",
      claimUrl: "https://p.example/claim/clm_x",
      controllerName: "Acme\r\nBcc: evil@attacker.example",
      datasets: 1,
      personalItems: 0
    })
    assert.notMatch(s.subject, /[\r\n]/)
    assert.include(s.subject, "Acme Bcc: evil@attacker.example")
    assert.include(s.text, "1 dataset and 0 items")
  })

  it("caps the uploader's controller name at 100 characters (ellipsis) in the subject and both parts", () => {
    const long = "A".repeat(99) + "BCDEFG" + "Z".repeat(5000)
    const s = claimLinkMessage({
      to: "dpo@acme.example",
      claimUrl: "https://p.example/claim/clm_x",
      controllerName: long,
      datasets: 1,
      personalItems: 0
    })
    const capped = "A".repeat(99) + "B…"
    assert.include(s.subject, `(${capped})`)
    assert.isBelow(s.subject.length, 160)
    assert.include(s.text, capped)
    assert.include(s.html, capped)
    for (const part of [s.subject, s.text, s.html]) assert.notInclude(part, "BC")
    // Bidi and C1 controls do not reach the subject either.
    const bidi = claimLinkMessage({
      to: "dpo@acme.example",
      claimUrl: "https://p.example/claim/clm_x",
      controllerName: "Acme\u202egpj.exe\u009b31m",
      datasets: 1,
      personalItems: 0
    })
    assert.notMatch(bidi.subject, /[\u202a-\u202e\u2066-\u2069\u0080-\u009f]/)
  })

  it("without a controller name: a generic subject and no stray markup", () => {
    const s = claimLinkMessage({
      to: "dpo@acme.example",
      claimUrl: "https://p.example/claim/clm_x",
      controllerName: null,
      datasets: 0,
      personalItems: 0
    })
    assert.strictEqual(s.subject, "A draft record of processing was shared with you")
    assert.include(s.html, "<!doctype html>")
    assert.notInclude(s.text, "null")
  })
})

describe("oneTimeCodeMessage", () => {
  it("carries the code, its lifetime and the claim, in both parts, escaped in HTML", () => {
    const m = oneTimeCodeMessage({
      to: "dpo@acme.example",
      code: "482 913",
      claimUrl: "https://portal.example/claim/clm_a\"b<c>",
      minutesValid: 15
    })
    assert.strictEqual(m.to, "dpo@acme.example")
    assert.notInclude(m.subject, "482 913")
    for (const part of [m.text, m.html]) {
      assert.include(part, "482 913")
      assert.include(part, "15 minutes")
    }
    assert.include(m.text, "https://portal.example/claim/clm_a\"b<c>")
    assert.include(m.html, "clm_a&quot;b&lt;c&gt;")
    assert.notInclude(m.html, "clm_a\"b<c>")
  })

  it("escapeHtml covers the five characters", () => {
    assert.strictEqual(escapeHtml("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
  })
})

describe("mailOutcome", () => {
  const message = { to: "dpo@acme.example", subject: "s", text: "t", html: "<p>t</p>" }
  const encode = Schema.encodeSync(MailOutcome)
  const withSend = (send: MailShape["send"]): MailShape => ({ transport: "provider", send })

  it.effect("sent, logged, not-configured and failed, each a valid MailOutcome", () =>
    Effect.gen(function*() {
      const sent = yield* mailOutcome(
        withSend(() => Effect.succeed({ transport: "provider", messageId: "m1" })),
        message
      )
      assert.deepStrictEqual(encode(sent), { status: "sent", transport: "provider", error: null })

      const logged = yield* mailOutcome(withSend(() => Effect.succeed({ transport: "dev", messageId: null })), message)
      assert.deepStrictEqual(logged, { status: "logged", transport: "dev", error: null })

      const none = yield* mailOutcome(withSend(() => Effect.fail(new MailNotConfigured())), message)
      assert.strictEqual(none.status, "not-configured")
      assert.strictEqual(none.transport, null)
      assert.strictEqual(none.error?.code, "MAIL_NOT_CONFIGURED")
      assert.strictEqual(none.error?.fix, new MailNotConfigured().fix)

      const failed = yield* mailOutcome(
        withSend(() =>
          Effect.fail(
            new MailSendFailed({
              transport: "sendmail",
              message: "The sendmail command exited with status 1.",
              fix: "f"
            })
          )
        ),
        message
      )
      assert.deepStrictEqual(encode(failed), {
        status: "failed",
        transport: "sendmail",
        error: { code: "MAIL_NOT_CONFIGURED", message: "The sendmail command exited with status 1.", fix: "f" }
      })
    }))
})
