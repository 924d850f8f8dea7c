/**
 * `catalog admin licence …` end to end with the built CLI over a real portal store (SQLite, prepared
 * in-process with the portal's own store layer): issue to a bound claim mails the unlock e-mail through the
 * fake Postmark (the key in it checks with the portal's public key), an unbound claim prints the key, no mail
 * configured prints it and reports MAIL_NOT_CONFIGURED; revoke and list; every error code with its exit
 * code and fix.
 */
import { Effect, Either, Layer } from "effect"
import { Context } from "effect"
import { createPublicKey, generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { portalStoreLayer } from "../../src/layers/portal/PortalSql.js"
import { checkLicence } from "../../src/services/Licence.js"
import { LicenceStore } from "../../src/services/portal/LicenceStore.js"
import { PortalStore } from "../../src/services/PortalStore.js"
import { type FakePostmark, startFakePostmark } from "../utils/fakePostmark.js"
import { runCliAsync } from "../utils/portalProcess.js"

let dir = ""
let postmark: FakePostmark
const { privateKey } = generateKeyPairSync("ed25519")
const publicKey = createPublicKey(privateKey)

const home = () => path.join(dir, "portal")
const baseEnv = () => ({
  CATALOG_PORTAL_HOME: home(),
  CATALOG_PORTAL_SIGNING_KEY: path.join(dir, "signing.pem")
})
const mailEnv = () => ({
  CATALOG_POSTMARK_TOKEN: postmark.token,
  CATALOG_POSTMARK_URL: postmark.url,
  CATALOG_MAIL_FROM: "Acme Portal <portal@acme.example>"
})
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  runCliAsync(args, dir, { ...baseEnv(), ...env })

type ErrorJson = { error: { code: string; message: string; fix?: string; param?: string } }
const errorOf = (json: unknown) => (json as ErrorJson).error

const withStores = <A>(use: (s: PortalStore["Type"], l: LicenceStore["Type"]) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    Layer.build(portalStoreLayer({ databaseUrl: null, home: home() })),
    (ctx) => use(Context.get(ctx, PortalStore), Context.get(ctx, LicenceStore))
  )))

const ingest = (store: PortalStore["Type"], claimId: string, record: string, recipient: string | null) =>
  store.ingest({
    claimId,
    tokenHash: `tok_${claimId}`,
    recordKeyHash: record,
    recipient,
    unbound: recipient === null,
    body: "{}",
    bytes: 2,
    sha256: `sha_${claimId}`,
    at: new Date().toISOString()
  })

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "licence-e2e-"))
  fs.writeFileSync(path.join(dir, "signing.pem"), privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
  postmark = await startFakePostmark()
  await withStores((store) =>
    Effect.gen(function*() {
      yield* ingest(store, "cl_bound", "rec_bound", "dpo@acme.example")
      yield* ingest(store, "cl_unbound", "rec_unbound", null)
      yield* ingest(store, "cl_old", "rec_sup", "a@b.example")
      yield* ingest(store, "cl_new", "rec_sup", "a@b.example")
      yield* ingest(store, "cl_gone", "rec_gone", "c@d.example")
      yield* store.remove("cl_gone", new Date().toISOString())
    })
  )
}, 60_000)

afterAll(async () => {
  await postmark?.close()
  if (dir !== "") fs.rmSync(dir, { recursive: true, force: true })
})

describe("catalog admin licence", () => {
  let mailedId = ""

  it("issue to a bound claim: signs, stores, mails the unlock e-mail (the key verifies); --json has no key", async () => {
    const r = await run(["admin", "licence", "issue", "cl_bound", "--expires", "2099-12-31", "--json"], mailEnv())
    assert.strictEqual(r.code, 0, r.stderr)
    const out = r.json as Record<string, unknown>
    assert.match(String(out["licenceId"]), /^li_/)
    assert.strictEqual(out["claimId"], "cl_bound")
    assert.strictEqual(out["expiresAt"], "2099-12-31T23:59:59.999Z")
    assert.strictEqual(out["mailed"], true)
    assert.deepStrictEqual(out["mail"], { status: "sent", transport: "provider", error: null })
    assert.notProperty(out, "key")
    assert.notInclude(r.stdout + r.stderr, "lic_")
    mailedId = String(out["licenceId"])
    const message = postmark.messages.at(-1)!
    assert.strictEqual(message.To, "dpo@acme.example")
    assert.include(message.Subject, "licence key")
    const text = message.TextBody ?? ""
    assert.include(text, "outside the Local Data Catalog")
    assert.include(text, "unlocks sealing")
    assert.include(text, "CATALOG_LICENCE_KEY=")
    assert.include(text, "2099-12-31T23:59:59.999Z")
    const key = /CATALOG_LICENCE_KEY=(lic_\S+)/.exec(text)![1]!
    const checked = checkLicence(key, { publicKey, claimId: "cl_bound", now: new Date(), revoked: new Set() })
    assert.isTrue(Either.isRight(checked))
    assert.strictEqual(Either.getOrThrow(checked).id, mailedId)
    assert.include(message.HtmlBody ?? "", key)
  })

  it("issue to an unbound claim prints the key and says so (default expiry: one year)", async () => {
    const before = postmark.messages.length
    const r = await run(["admin", "licence", "issue", "cl_unbound"], mailEnv())
    assert.strictEqual(r.code, 0, r.stderr)
    assert.include(r.stdout, "unbound")
    assert.include(r.stdout, "Hand this key")
    const key = /(lic_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(r.stdout)![1]!
    const payload = Either.getOrThrow(
      checkLicence(key, { publicKey, claimId: "cl_unbound", now: new Date(), revoked: null })
    )
    const days = (Date.parse(payload.expiresAt) - Date.now()) / 86_400_000
    assert.isTrue(days > 364 && days < 367, String(days))
    assert.strictEqual(postmark.messages.length, before, "nothing mailed")
  })

  it("issue with no mail configured: the licence exists, the key is printed, MAIL_NOT_CONFIGURED reported", async () => {
    const r = await run(["admin", "licence", "issue", "cl_bound", "--json"])
    assert.strictEqual(r.code, 0, r.stderr)
    const out = r.json as { mailed: boolean; mail: { status: string; error: { code: string } }; key: string }
    assert.isFalse(out.mailed)
    assert.strictEqual(out.mail.status, "not-configured")
    assert.strictEqual(out.mail.error.code, "MAIL_NOT_CONFIGURED")
    assert.match(out.key, /^lic_/)
    const human = await run(["admin", "licence", "issue", "cl_bound"])
    assert.strictEqual(human.code, 0)
    assert.include(human.stderr, "warning: MAIL_NOT_CONFIGURED")
    assert.match(human.stdout, /lic_[A-Za-z0-9_-]+\./)
  })

  it("list shows every licence with its state; revoke needs --yes, then it is revoked (twice: already)", async () => {
    const list = await run(["admin", "licence", "list", "--json"])
    assert.strictEqual(list.code, 0, list.stderr)
    const rows = (list.json as { licences: Array<{ id: string; state: string; issuedTo: string | null }> }).licences
    assert.strictEqual(rows.length, 4)
    assert.isTrue(rows.every((l) => l.state === "active"))
    assert.strictEqual(rows.find((l) => l.id === mailedId)?.issuedTo, "dpo@acme.example")
    assert.notInclude(list.stdout, "lic_")

    const unconfirmed = await run(["admin", "licence", "revoke", mailedId, "--json"])
    assert.strictEqual(unconfirmed.code, 1)
    assert.strictEqual(errorOf(unconfirmed.json).code, "ADMIN_NOT_CONFIRMED")
    assert.include(errorOf(unconfirmed.json).fix ?? "", "--yes")

    const revoked = await run(["admin", "licence", "revoke", mailedId, "--yes", "--json"])
    assert.strictEqual(revoked.code, 0, revoked.stderr)
    assert.strictEqual((revoked.json as { alreadyRevoked: boolean }).alreadyRevoked, false)
    const again = await run(["admin", "licence", "revoke", mailedId, "--yes"])
    assert.strictEqual(again.code, 0)
    assert.include(again.stdout, "already revoked")

    const human = await run(["admin", "licence", "list"])
    assert.strictEqual(human.code, 0)
    assert.match(human.stdout, new RegExp(`${mailedId}.*revoked`))
    const ids = await withStores((_, l) => l.revokedIds)
    assert.deepStrictEqual(ids, [mailedId])
  })

  it("every refusal with its code, exit code and fix", async () => {
    const cases: ReadonlyArray<{
      args: ReadonlyArray<string>
      env?: Record<string, string>
      code: string
      exit: number
      param?: string
    }> = [
      { args: ["admin", "licence"], code: "ADMIN_INPUT_INVALID", exit: 2 },
      { args: ["admin", "licence", "frobnicate"], code: "ADMIN_INPUT_INVALID", exit: 2 },
      { args: ["admin", "licence", "issue"], code: "ADMIN_INPUT_INVALID", exit: 2, param: "claimId" },
      { args: ["admin", "licence", "issue", "cl_bound", "extra"], code: "ADMIN_INPUT_INVALID", exit: 2 },
      {
        args: ["admin", "licence", "issue", "cl_bound", "--expires", "2020-01-01"],
        code: "ADMIN_INPUT_INVALID",
        exit: 2,
        param: "--expires"
      },
      {
        args: ["admin", "licence", "issue", "cl_bound", "--expires", "31/12/2099"],
        code: "ADMIN_INPUT_INVALID",
        exit: 2,
        param: "--expires"
      },
      {
        args: ["admin", "licence", "issue", "cl_bound", "--expires", "2099-02-30"],
        code: "ADMIN_INPUT_INVALID",
        exit: 2,
        param: "--expires"
      },
      {
        args: ["admin", "licence", "issue", "cl_bound"],
        env: { CATALOG_PORTAL_SIGNING_KEY: "" },
        code: "PORTAL_NOT_READY",
        exit: 1,
        param: "CATALOG_PORTAL_SIGNING_KEY"
      },
      {
        args: ["admin", "licence", "issue", "cl_bound"],
        env: { CATALOG_PORTAL_SIGNING_KEY: path.join(dir, "nope.pem") },
        code: "PORTAL_NOT_READY",
        exit: 1
      },
      {
        args: ["admin", "licence", "issue", "cl_bound"],
        env: { CATALOG_PORTAL_HOME: path.join(dir, "elsewhere") },
        code: "ADMIN_ENV_INCOMPLETE",
        exit: 1
      },
      { args: ["admin", "licence", "issue", "cl_nope"], code: "CLAIM_NOT_FOUND", exit: 1 },
      { args: ["admin", "licence", "issue", "cl_gone"], code: "CLAIM_NOT_FOUND", exit: 1 },
      { args: ["admin", "licence", "issue", "cl_old"], code: "CLAIM_NOT_FOUND", exit: 1 },
      { args: ["admin", "licence", "revoke"], code: "ADMIN_INPUT_INVALID", exit: 2, param: "licenceId" },
      { args: ["admin", "licence", "revoke", "li_x"], code: "ADMIN_NOT_CONFIRMED", exit: 1 },
      { args: ["admin", "licence", "revoke", "li_nope", "--yes"], code: "ADMIN_INPUT_INVALID", exit: 1 },
      {
        args: ["admin", "licence", "list"],
        env: { CATALOG_PORTAL_HOME: path.join(dir, "elsewhere") },
        code: "ADMIN_ENV_INCOMPLETE",
        exit: 1
      }
    ]
    for (const c of cases) {
      const r = await run([...c.args, "--json"], c.env ?? {})
      const label = c.args.join(" ")
      assert.strictEqual(r.code, c.exit, `${label}: ${r.stdout}${r.stderr}`)
      const e = errorOf(r.json)
      assert.strictEqual(e.code, c.code, label)
      assert.isString(e.fix, label)
      if (c.param !== undefined) assert.strictEqual(e.param, c.param, label)
    }
    const superseded = await run(["admin", "licence", "issue", "cl_old", "--json"])
    assert.include(errorOf(superseded.json).fix ?? "", "cl_new")
    assert.isFalse(fs.existsSync(path.join(dir, "elsewhere")), "a missing store is never created")
  }, 120_000)
})
