/**
 * The invite service over a test catalog (the real Scanner, Reader and store, a fake connector): what the
 * snapshot holds, that its bytes are `JSON.stringify(snapshot)` with their SHA-256, the preview's counts,
 * every staleness reason, the size check, the snapshot file and the record key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Snapshot, snapshotFileName, uploadCapBytes } from "../../src/domain/Snapshot.js"
import { SourceUnreachable } from "../../src/errors/index.js"
import { Annotations } from "../../src/services/Annotations.js"
import { AppEnv } from "../../src/services/AppEnv.js"
import { checkSize, contentsLine, Invite, recordKeyFileName } from "../../src/services/Invite.js"
import { Scanner } from "../../src/services/Scanner.js"
import {
  CatalogTest,
  catalogYaml,
  column,
  dataset,
  fakeConnector,
  fakeSourceYaml,
  rawSource,
  writeConfig
} from "../utils/TestLayers.js"

const customers = dataset("customers", [
  column("id", 1, { type: "integer", isPrimaryKey: true }),
  column("email", 2),
  column("full_name", 3),
  column("health_condition", 4)
])
const orders = dataset("orders", [
  column("id", 1, { type: "integer", isPrimaryKey: true }),
  column("customer_id", 2, { type: "integer", references: { schema: "main", table: "customers", column: "id" } }),
  column("total", 3, { type: "numeric" })
])
const ordersView = dataset("big_orders", [
  column("id", 1, { type: "integer" }),
  column("total", 2, { type: "numeric" })
], {
  kind: "view",
  dependsOn: [{ schema: "main", name: "orders" }]
})
const yaml = catalogYaml(
  [fakeSourceYaml("shop", "region: eu-west-1"), fakeSourceYaml("crm")],
  ["controller: { name: Acme GmbH, contact: privacy@acme.example }"]
)

const setup = (text = yaml, env: Record<string, string> = {}) => {
  const fake = fakeConnector()
  fake.set("shop", rawSource([customers, orders, ordersView]))
  fake.set("crm", rawSource([dataset("contacts", [column("phone", 1), column("note", 2)])]))
  const layer = Invite.Default.pipe(
    Layer.provideMerge(CatalogTest([fake.connector], text, { CATALOG_SIGNER_EMAIL: "dpo@acme.example", ...env }))
  )
  return { fake, layer }
}

const scan = Effect.flatMap(Scanner, (s) => s.run())

describe("Invite", () => {
  it.live("the snapshot holds the Reader's catalog, RoPA, provenance and the recipient; the body is its JSON", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      const built = yield* invite.build({ recipient: "dpo@acme.example", unbound: false })
      const s = built.snapshot
      assert.strictEqual(s.format, "local-data-catalog/invite-snapshot")
      assert.strictEqual(s.version, 1)
      assert.strictEqual(s.recipient, "dpo@acme.example")
      assert.isFalse(s.unbound)
      assert.deepStrictEqual(s.controller, { name: "Acme GmbH", contact: "privacy@acme.example" })
      assert.deepStrictEqual(s.datasets.map((d) => d.id).sort(), [
        "crm/main/contacts",
        "shop/main/big_orders",
        "shop/main/customers",
        "shop/main/orders"
      ])
      assert.deepStrictEqual(
        s.datasets.find((d) => d.id === "shop/main/customers")!.columns.map((c) => [c.name, c.type]),
        [["id", "integer"], ["email", "text"], ["full_name", "text"], ["health_condition", "text"]]
      )
      assert.deepStrictEqual(s.lineage.map((e) => [e.from, e.to]), [["shop/main/orders", "shop/main/big_orders"]])
      assert.isTrue(s.ropa.activities.length >= 1)
      assert.strictEqual(s.ropa.seal, "draft")
      assert.deepStrictEqual(s.dora, { inScope: false, register: null })
      assert.strictEqual(s.provenance.stamp, "DRAFT, not an official record")
      assert.strictEqual(s.status.datasets, 4)
      // The bytes are exactly JSON.stringify(snapshot), and the snapshot passes the contract's Schema.
      assert.strictEqual(built.body, JSON.stringify(s))
      assert.strictEqual(built.bytes, Buffer.byteLength(built.body))
      assert.strictEqual(built.sha256, createHash("sha256").update(built.body).digest("hex"))
      const decoded = Schema.decodeUnknownSync(Snapshot)(JSON.parse(built.body))
      assert.strictEqual(decoded.datasets.length, 4)
    }).pipe(Effect.provide(layer))
  })

  it.live("the preview counts what is sent and gives each legal field's status", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      const annotations = yield* Annotations
      const first = (yield* annotations.draft).activities[0]!
      yield* annotations.set({ activityKey: first.key, field: "purpose", value: "Customer accounts", confirm: true })
      const built = yield* invite.build({ recipient: null, unbound: true })
      const p = invite.preview(built, "http://portal.example")
      assert.strictEqual(p.portal, "http://portal.example")
      assert.isNull(p.recipient)
      assert.isTrue(p.unbound)
      assert.strictEqual(p.sources, 2)
      assert.strictEqual(p.datasets, 4)
      assert.strictEqual(p.columns, 11)
      assert.strictEqual(p.lineageEdges, 1)
      assert.strictEqual(
        p.personalDataItems,
        p.classes.personal + p.classes.special + p.classes.criminal
      )
      assert.isTrue(p.classes.personal >= 2, "email and full_name")
      assert.strictEqual(p.contents, contentsLine)
      const a = p.ropa.activities.find((x) => x.key === first.key)!
      assert.strictEqual(a.legal.purpose, "confirmed")
      assert.strictEqual(a.legal.retention, "suggested")
      assert.deepStrictEqual(p.dora, { inScope: false, tables: 0, rows: 0 })
      assert.isTrue(p.coverage.complete)
      assert.deepStrictEqual(p.staleness.map((x) => [x.source, x.staleness]), [["shop", "fresh"], ["crm", "fresh"]])
    }).pipe(Effect.provide(layer))
  })

  it.live("DORA in scope: the register draft is in the snapshot and the preview says so", () => {
    const { layer } = setup(catalogYaml([fakeSourceYaml("shop"), fakeSourceYaml("crm")], [
      "dora: { inScope: true, entity: { lei: 529900T8BM49AURSDO55, name: Acme Bank AG, country: DE, currency: EUR } }"
    ]))
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      const built = yield* invite.build({ recipient: "dpo@acme.example", unbound: false })
      assert.isTrue(built.snapshot.dora.inScope)
      const register = built.snapshot.dora.register!
      assert.strictEqual(register.entity.name, "Acme Bank AG")
      const p = invite.preview(built, null)
      assert.isTrue(p.dora.inScope)
      assert.strictEqual(p.dora.tables, register.tables.length)
      assert.strictEqual(p.dora.rows, register.tables.reduce((n, t) => n + t.rows.length, 0))
    }).pipe(Effect.provide(layer))
  })

  it.live("staleness: fresh after a scan; then a source configured but never scanned, one no longer configured, a kind and a driver changed", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      assert.deepStrictEqual(yield* invite.staleness, [])
      yield* writeConfig(catalogYaml([
        `  - { id: shop, kind: fake, driver: fake-v2 }`,
        fakeSourceYaml("billing")
      ]))
      const reasons = yield* invite.staleness
      assert.deepStrictEqual(reasons.map((r) => r.source), ["shop", "billing", "crm"])
      assert.match(reasons[0]!.reason, /changed in catalog\.yml since the last scan \(driver fake → fake-v2\)/)
      assert.match(reasons[1]!.reason, /configured in catalog\.yml but never scanned/)
      assert.match(reasons[2]!.reason, /scanned but no longer in catalog\.yml \(1 datasets/)
    }).pipe(Effect.provide(layer))
  })

  it.live("staleness: a changed connection variable or path is named (the variable's name, never a value)", () => {
    const text = catalogYaml([
      fakeSourceYaml("shop", "connectionRef: SHOP_URL"),
      fakeSourceYaml("crm", "path: crm.csv")
    ])
    const { layer } = setup(text, { SHOP_URL: "fake://shop", SHOP_URL_V2: "fake://shop" })
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      assert.deepStrictEqual(yield* invite.staleness, [])
      yield* writeConfig(
        catalogYaml([fakeSourceYaml("shop", "connectionRef: SHOP_URL_V2"), fakeSourceYaml("crm", "path: other.csv")])
      )
      const reasons = yield* invite.staleness
      assert.deepStrictEqual(reasons, [
        {
          source: "shop",
          reason: "changed in catalog.yml since the last scan (connection variable SHOP_URL → SHOP_URL_V2)"
        },
        { source: "crm", reason: "changed in catalog.yml since the last scan (path crm.csv → other.csv)" }
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("staleness: a source whose every scan failed is `never`, naming the failure", () => {
    const fake = fakeConnector()
    fake.set("shop", rawSource([customers]))
    fake.set("crm", Effect.fail(new SourceUnreachable({ message: "Cannot connect to crm.example." })))
    const layer = Invite.Default.pipe(Layer.provideMerge(CatalogTest([fake.connector], yaml)))
    return Effect.gen(function*() {
      yield* Effect.exit(scan)
      const reasons = yield* (yield* Invite).staleness
      assert.strictEqual(reasons.length, 1)
      assert.strictEqual(reasons[0]!.source, "crm")
      assert.match(reasons[0]!.reason, /never scanned successfully/)
    }).pipe(Effect.provide(layer))
  })

  it.effect("checkSize: at the cap passes, one byte over is SNAPSHOT_TOO_LARGE; a lowered cap refuses a real snapshot", () =>
    Effect.gen(function*() {
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(checkSize(uploadCapBytes))))
      const over = yield* Effect.flip(checkSize(uploadCapBytes + 1))
      assert.strictEqual(over.code, "SNAPSHOT_TOO_LARGE")
      assert.match(over.message, /5,000,001 bytes; the upload cap is 5,000,000 bytes/)
      assert.isNotNull(over.fix)
    }))

  it.live("a huge catalog's snapshot exceeds a lowered cap; the size is of the bytes sent", () => {
    const fake = fakeConnector()
    const wide = Array.from(
      { length: 40 },
      (_, t) => dataset(`table_${t}`, Array.from({ length: 50 }, (_, c) => column(`customer_email_${c}`, c + 1)))
    )
    fake.set("shop", rawSource(wide))
    const layer = Invite.Default.pipe(
      Layer.provideMerge(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")])))
    )
    return Effect.gen(function*() {
      yield* scan
      const built = yield* (yield* Invite).build({ recipient: null, unbound: false })
      assert.strictEqual(built.snapshot.datasets.reduce((n, d) => n + d.columns.length, 0), 2000)
      assert.isTrue(built.bytes > 1_000_000, `${built.bytes} bytes`)
      const e = yield* Effect.flip(checkSize(built.bytes, 1_000_000))
      assert.strictEqual(e.code, "SNAPSHOT_TOO_LARGE")
      assert.deepStrictEqual(e.details, { bytes: built.bytes, cap: 1_000_000 })
    }).pipe(Effect.provide(layer))
  })

  it.live("the snapshot file holds exactly the body (0600); the record key is made once (0600) and kept", () => {
    const { layer } = setup()
    return Effect.gen(function*() {
      yield* scan
      const invite = yield* Invite
      const env = yield* AppEnv
      const built = yield* invite.build({ recipient: "dpo@acme.example", unbound: false })
      const file = yield* invite.write(built)
      assert.strictEqual(file, path.join(env.cwd, ".catalog", snapshotFileName))
      assert.strictEqual(fs.readFileSync(file, "utf8"), built.body)
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      const key = yield* invite.recordKey
      assert.match(key, /^[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(Buffer.from(key, "base64url").length, 32)
      const keyFile = path.join(env.cwd, ".catalog", recordKeyFileName)
      assert.strictEqual(fs.statSync(keyFile).mode & 0o777, 0o600)
      assert.strictEqual(yield* invite.recordKey, key)
      assert.notInclude(built.body, key)
      // A damaged key file is replaced by a fresh key.
      fs.writeFileSync(keyFile, "not a key")
      const fresh = yield* invite.recordKey
      assert.match(fresh, /^[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(fresh, key)
    }).pipe(Effect.provide(layer))
  })
})
