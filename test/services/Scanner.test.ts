import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { SourceUnreachable } from "../../src/errors/index.js"
import { AppEnv } from "../../src/services/AppEnv.js"
import { Corrections } from "../../src/services/Corrections.js"
import { Reader } from "../../src/services/Reader.js"
import { type Progress, Scanner } from "../../src/services/Scanner.js"
import { StoreReader } from "../../src/services/Store.js"
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
  column("created_at", 4, { type: "timestamp" })
])
const orders = dataset("orders", [
  column("id", 1, { type: "integer", isPrimaryKey: true }),
  column("customer_id", 2, { type: "integer", references: { schema: "main", table: "customers", column: "id" } }),
  column("total", 3, { type: "numeric" })
])
const products = dataset("products", [column("id", 1, { type: "integer", isPrimaryKey: true }), column("title", 2)])
const shop = rawSource([customers, orders])
const crm = rawSource([dataset("audit_log", [column("ip_address", 1), column("at", 2, { type: "timestamp" })])])

const unreachable = (host: string) =>
  Effect.fail(
    new SourceUnreachable({ message: `Cannot connect to ${host}.`, fix: "Start the server, then re-run the scan." })
  )
const signer = { CATALOG_SIGNER_EMAIL: "dpo@example.com" }
const twoSources = catalogYaml([fakeSourceYaml("shop", "region: eu-west-1"), fakeSourceYaml("crm")])

/** Every change-log entry, oldest first, as `[kind, entity]`. */
const changeLog = Effect.flatMap(StoreReader, (r) => r.changes({ sinceSeq: 0, limit: 1000 })).pipe(
  Effect.map(({ rows }) => [...rows].reverse())
)

describe("Scanner", () => {
  it.effect("a scan commits datasets, columns and their classification; the Reader reads them back", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    return Effect.gen(function*() {
      const report = yield* (yield* Scanner).run()
      assert.deepStrictEqual(
        [report.summary.added, report.summary.dropped, report.summary.changed, report.summary.unchanged],
        [2, 0, 0, 0]
      )
      assert.deepStrictEqual(report.summary.personalBySource, { shop: 4 })
      assert.deepStrictEqual(report.sources.map((s) => [s.id, s.kind, s.reached, s.datasets, s.columns, s.personal]), [
        ["shop", "fake", true, 2, 7, 4]
      ])
      assert.isNull(report.sources[0]!.error)
      assert.deepStrictEqual(report.coverage, {
        complete: true,
        reached: ["shop"],
        missing: [],
        line: "The one configured source was reached."
      })
      assert.deepStrictEqual(report.upload, {
        status: "local",
        message: "Stayed local: this machine is not paired with a portal, so nothing was uploaded."
      })

      const reader = yield* Reader
      const list = yield* reader.datasets
      assert.deepStrictEqual(list.datasets.map((d) => [d.id, d.columnCount, d.classes.personal, d.rowCount.estimate]), [
        ["shop/main/customers", 4, 3, 100],
        ["shop/main/orders", 3, 1, 100]
      ])
      const c = yield* reader.dataset("shop/main/customers")
      assert.deepStrictEqual(
        c.columns.map((col) => [col.name, col.primaryKey, col.classification.value, col.classification.category]),
        [
          ["id", true, "personal", "identifier.person_key"],
          ["email", false, "personal", "contact.email"],
          ["full_name", false, "personal", "identity.name"],
          ["created_at", false, "not", null]
        ]
      )
      const o = yield* reader.dataset("shop/main/orders")
      assert.strictEqual(o.columns[1]!.references, "shop/main/customers/id")
      const status = yield* reader.status
      assert.deepStrictEqual([status.scanned, status.datasets, status.columns, status.personalDataItems], [
        true,
        2,
        7,
        4
      ])
      assert.deepStrictEqual(status.sourceStates.map((s) => [s.id, s.status, s.serverVersion, s.datasets]), [
        ["shop", "ok", "Fake 1.0", 2]
      ])
      // The connector got the source as configured (no secret: it has no connectionRef) and the config's folder.
      const cwd = (yield* AppEnv).cwd
      assert.deepStrictEqual(fake.calls.map((i) => [i.source.id, i.source.kind, i.secret, i.baseDir]), [
        ["shop", "fake", null, cwd]
      ])
      assert.deepStrictEqual(
        (yield* changeLog).map((r) => [r.kind, r.entity]),
        [["source.added", "shop"], ["dataset.added", "shop/main/customers"], ["dataset.added", "shop/main/orders"]]
      )
    }).pipe(Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")]))))
  })

  it.effect("a source that cannot be reached keeps its previous catalog whole and is reported on its own", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    fake.set("crm", crm)
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      const reader = yield* Reader
      yield* scanner.run()
      const before = yield* reader.dataset("shop/main/customers")

      // shop is down now, and would have looked different: nothing of shop may change.
      fake.set("shop", unreachable("db.shop.internal:5432"))
      fake.set("crm", rawSource([...crm.datasets, products]))
      const report = yield* scanner.run()
      assert.deepStrictEqual(report.sources.map((s) => [s.id, s.reached, s.datasets, s.error?.code ?? null]), [
        ["shop", false, 0, "SOURCE_UNREACHABLE"],
        ["crm", true, 2, null]
      ])
      assert.deepStrictEqual(report.sources[0]!.error, {
        code: "SOURCE_UNREACHABLE",
        message: "Cannot connect to db.shop.internal:5432.",
        fix: "Start the server, then re-run the scan."
      })
      assert.deepStrictEqual(report.coverage, {
        complete: false,
        reached: ["crm"],
        missing: ["shop"],
        line: "1 of 2 sources reached; not reached: shop (SOURCE_UNREACHABLE)."
      })
      assert.deepStrictEqual([report.summary.added, report.summary.dropped], [1, 0])

      assert.deepStrictEqual((yield* reader.datasets).datasets.map((d) => d.id), [
        "crm/main/audit_log",
        "crm/main/products",
        "shop/main/customers",
        "shop/main/orders"
      ])
      assert.deepStrictEqual(yield* reader.dataset("shop/main/customers"), before)
      const states = yield* reader.sourceStates
      assert.deepStrictEqual(states.map((s) => [s.id, s.status, s.reachable, s.datasets, s.error]), [
        ["shop", "unreachable", false, 2, {
          code: "SOURCE_UNREACHABLE",
          message: "Cannot connect to db.shop.internal:5432."
        }],
        ["crm", "ok", true, 2, null]
      ])
      assert.strictEqual(states[0]!.region, "eu-west-1")
      assert.isNotNull(states[0]!.lastScannedAt)
    }).pipe(Effect.provide(CatalogTest([fake.connector], twoSources)))
  })

  it.effect("a failure that is not unreachability is stored as `error`; a crashing connector fails only its source", () => {
    const fake = fakeConnector()
    fake.set("shop", Effect.die(new Error("segfault in the driver")))
    fake.set("crm", crm)
    const yaml = catalogYaml([
      fakeSourceYaml("shop"),
      fakeSourceYaml("crm"),
      "  - { id: wh, kind: warehouse, driver: x }"
    ])
    return Effect.gen(function*() {
      const report = yield* (yield* Scanner).run()
      assert.deepStrictEqual(report.sources.map((s) => [s.id, s.reached, s.error?.code ?? null]), [
        ["shop", false, "SOURCE_UNREACHABLE"],
        ["crm", true, null],
        ["wh", false, "DRIVER_MISSING"]
      ])
      assert.deepStrictEqual(report.sources[0]!.error, {
        code: "SOURCE_UNREACHABLE",
        message: "The fake connector failed on source shop: segfault in the driver.",
        fix: "Run `catalog test shop` to see the failure on its own; report it if it persists."
      })
      assert.strictEqual(report.sources[2]!.error?.message, "No driver is registered for source kind \"warehouse\".")
      assert.strictEqual(
        report.coverage.line,
        "1 of 3 sources reached; not reached: shop (SOURCE_UNREACHABLE), wh (DRIVER_MISSING)."
      )
      const states = yield* (yield* Reader).sourceStates
      assert.deepStrictEqual(states.map((s) => [s.id, s.status, s.error?.code ?? null]), [
        ["shop", "unreachable", "SOURCE_UNREACHABLE"],
        ["crm", "ok", null],
        ["wh", "error", "DRIVER_MISSING"]
      ])
    }).pipe(Effect.provide(CatalogTest([fake.connector], yaml)))
  })

  it.effect("a source's connection string never reaches the report or the catalog", () => {
    const fake = fakeConnector()
    const url = "fake://ann:s3cr3t-pw@db.internal:5432/shop"
    fake.set("shop", unreachable(url))
    fake.set("crm", crm)
    const yaml = catalogYaml([fakeSourceYaml("shop", "connectionRef: SHOP_URL"), fakeSourceYaml("crm")])
    return Effect.gen(function*() {
      const report = yield* (yield* Scanner).run()
      // The connector got the resolved secret; the messages do not carry it.
      assert.deepStrictEqual(fake.calls.map((i) => [i.source.id, i.secret]).sort(), [["crm", null], ["shop", url]])
      const message = report.sources[0]!.error!.message
      assert.notInclude(message, "s3cr3t-pw")
      assert.notInclude(message, url)
      assert.strictEqual(message, "Cannot connect to ***.")
      // What the catalog stores (not only what the Reader serves, which redacts again) is redacted.
      const stored = yield* (yield* StoreReader).sources
      assert.deepStrictEqual(stored.map((s) => [s.id, s.error_code, s.error_message]), [
        ["crm", null, null],
        ["shop", "SOURCE_UNREACHABLE", "Cannot connect to ***."]
      ])
      const states = yield* (yield* Reader).sourceStates
      assert.strictEqual(states[0]!.error?.message, "Cannot connect to ***.")
    }).pipe(Effect.provide(CatalogTest([fake.connector], yaml, { SHOP_URL: url })))
  })

  it.effect("when no source is reached nothing is committed: one source fails with its own error", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      const store = yield* StoreReader
      yield* scanner.run()
      const scan = yield* store.lastScan
      const log = yield* changeLog
      fake.set("shop", unreachable("db.shop.internal"))
      const error = yield* Effect.flip(scanner.run())
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.strictEqual(error.message, "Cannot connect to db.shop.internal.")
      // Not even the source's state moved: the previous scan is still the last one.
      assert.deepStrictEqual(yield* store.lastScan, scan)
      assert.deepStrictEqual(yield* changeLog, log)
      assert.deepStrictEqual((yield* store.sources).map((s) => [s.id, s.status]), [["shop", "ok"]])
    }).pipe(Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")]))))
  })

  it.effect("when no source is reached: several failures are SOURCE_UNREACHABLE naming each", () => {
    const fake = fakeConnector()
    fake.set("shop", unreachable("a"))
    fake.set("crm", unreachable("b"))
    return Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Scanner).run())
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.strictEqual(
        error.message,
        "No source could be reached: shop: SOURCE_UNREACHABLE Cannot connect to a.; crm: SOURCE_UNREACHABLE Cannot connect to b."
      )
      assert.strictEqual(
        error.fix,
        "Fix the sources named above (run `catalog test <id>` for each), then re-run `catalog start`."
      )
      assert.isNull(yield* (yield* StoreReader).lastScan)
    }).pipe(Effect.provide(CatalogTest([fake.connector], twoSources)))
  })

  it.effect("when no source is reached because no secret is set, the answer is NO_SOURCE_DETECTED", () => {
    const fake = fakeConnector()
    const needsSecret = { ...fake.connector, needsSecret: true }
    const yaml = catalogYaml([
      fakeSourceYaml("shop", "connectionRef: SHOP_URL"),
      fakeSourceYaml("crm", "connectionRef: CRM_URL")
    ])
    return Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Scanner).run())
      assert.strictEqual(error.code, "NO_SOURCE_DETECTED")
      assert.include(error.message, "shop: SECRET_UNRESOLVED SHOP_URL is not set (source \"shop\").")
      assert.include(error.message, "crm: SECRET_UNRESOLVED CRM_URL is not set (source \"crm\").")
      assert.deepStrictEqual(fake.calls, [])
      assert.isNull(yield* (yield* StoreReader).lastScan)
    }).pipe(Effect.provide(CatalogTest([needsSecret], yaml)))
  })

  it.effect("a catalog.yml without sources is NO_SOURCES", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Scanner).run())
      assert.strictEqual(error.code, "NO_SOURCES")
      assert.match(error.message, /catalog\.yml lists no sources\.$/)
    }).pipe(Effect.provide(CatalogTest([fakeConnector().connector], catalogYaml([])))))

  it.effect("a re-scan records the drift in the change-log: a dropped column, a new column, a dropped table", () => {
    const fake = fakeConnector()
    fake.set("shop", rawSource([customers, orders, products]))
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      yield* TestClock.setTime(Date.parse("2026-11-24T09:00:00Z"))
      const first = yield* scanner.run()
      const seen = (yield* changeLog).length
      yield* TestClock.adjust("1 hour")
      fake.set(
        "shop",
        rawSource([
          dataset("customers", [customers.columns[0]!, customers.columns[2]!, customers.columns[3]!]),
          dataset("orders", [...orders.columns, column("shipped_at", 4, { type: "timestamp" })])
          // products is gone
        ])
      )
      const report = yield* scanner.run()
      assert.strictEqual(report.summary.scanId, first.summary.scanId + 1)
      assert.deepStrictEqual(
        [report.summary.added, report.summary.changed, report.summary.dropped, report.summary.unchanged],
        [0, 2, 1, 0]
      )
      const entries = (yield* changeLog).slice(seen)
      assert.deepStrictEqual(entries.map((r) => [r.kind, r.entity, r.scan_id, JSON.parse(r.detail)]), [
        ["column.dropped", "shop/main/customers/email", report.summary.scanId, { type: "text" }],
        ["column.added", "shop/main/orders/shipped_at", report.summary.scanId, {
          type: "timestamp",
          classification: "not"
        }],
        ["dataset.dropped", "shop/main/products", report.summary.scanId, {}]
      ])
      // The Reader's change list since the last scan says the same.
      const changes = yield* (yield* Reader).changes()
      assert.deepStrictEqual(changes.changes.map((c) => c.summary).sort(), [
        "column shop/main/customers/email is gone",
        "dataset shop/main/products is gone",
        "new column shop/main/orders/shipped_at timestamp → not"
      ])
      assert.deepStrictEqual(
        (yield* (yield* Reader).dataset("shop/main/customers")).columns.map((c) => c.name),
        ["id", "full_name", "created_at"]
      )
    }).pipe(Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")]))))
  })

  it.effect("the same structure again is not re-classified: only the row estimates that moved are written", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      yield* scanner.run()
      const seen = (yield* changeLog).length
      fake.set("shop", rawSource([{ ...customers, rowEstimate: 250 }, orders], { serverVersion: "Fake 1.1" }))
      const report = yield* scanner.run()
      assert.deepStrictEqual(
        [report.summary.added, report.summary.changed, report.summary.unchanged, report.summary.changes],
        [0, 0, 2, 0]
      )
      // The flagged count comes from the catalog, not from a classification this scan skipped.
      assert.deepStrictEqual(report.sources.map((s) => [s.id, s.datasets, s.columns, s.personal]), [["shop", 2, 7, 4]])
      assert.strictEqual((yield* changeLog).length, seen)
      const reader = yield* Reader
      assert.deepStrictEqual((yield* reader.datasets).datasets.map((d) => [d.id, d.rowCount.estimate]), [
        ["shop/main/customers", 250],
        ["shop/main/orders", 100]
      ])
      assert.strictEqual((yield* reader.sourceStates)[0]!.serverVersion, "Fake 1.1")
    }).pipe(Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")]))))
  })

  it.effect("a lineage-only source is always re-read: its edges move even when its datasets did not", () => {
    const fake = fakeConnector()
    fake.set("shop", rawSource([customers, orders, products]))
    fake.set("models", rawSource([], { edges: [{ from: "shop/main/customers", to: "shop/main/orders" }] }))
    const yaml = catalogYaml([fakeSourceYaml("shop"), fakeSourceYaml("models")])
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      const reader = yield* Reader
      yield* scanner.run()
      const edges = () =>
        Effect.map(reader.lineage(), (l) => l.edges.filter((e) => e.origin === "dbt").map((e) => [e.from, e.to]))
      assert.deepStrictEqual(yield* edges(), [["shop/main/customers", "shop/main/orders"]])
      fake.set("models", rawSource([], { edges: [{ from: "shop/main/customers", to: "shop/main/products" }] }))
      yield* scanner.run()
      assert.deepStrictEqual(yield* edges(), [["shop/main/customers", "shop/main/products"]])
    }).pipe(Effect.provide(CatalogTest([fake.connector], yaml)))
  })

  it.effect("a human override survives a re-scan that rewrites its dataset", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      const reader = yield* Reader
      yield* scanner.run()
      const set = yield* (yield* Corrections).set("shop/main/orders/total", "special")
      assert.deepStrictEqual([set.previous, set.machine, set.by, set.drift], ["not", "not", "dpo@example.com", true])
      // The re-scan changes the column's type and adds a personal column beside it.
      fake.set(
        "shop",
        rawSource([
          customers,
          dataset("orders", [
            ...orders.columns.slice(0, 2),
            column("total", 3, { type: "decimal(10,2)" }),
            column("email", 4)
          ])
        ])
      )
      const report = yield* scanner.run()
      assert.strictEqual(report.summary.changed, 1)
      const total = (yield* reader.dataset("shop/main/orders")).columns.find((c) => c.name === "total")!
      assert.strictEqual(total.type, "decimal(10,2)")
      assert.deepStrictEqual(
        [total.classification.value, total.classification.overridden, total.classification.by],
        ["special", true, "dpo@example.com"]
      )
      // The override counts in what the scan reports as flagged (4 before, + total, + the new email).
      assert.deepStrictEqual(report.summary.personalBySource, { shop: 6 })
      assert.strictEqual(report.sources[0]!.personal, 6)
    }).pipe(Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")]), signer)))
  })

  it.effect("a source taken out of catalog.yml leaves the catalog, recorded with who removed it", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    fake.set("crm", crm)
    return Effect.gen(function*() {
      const scanner = yield* Scanner
      yield* scanner.run()
      yield* writeConfig(catalogYaml([fakeSourceYaml("crm")]))
      const report = yield* scanner.run()
      assert.strictEqual(report.summary.dropped, 2)
      assert.deepStrictEqual(report.sources.map((s) => s.id), ["crm"])
      assert.deepStrictEqual((yield* (yield* Reader).datasets).datasets.map((d) => d.id), ["crm/main/audit_log"])
      const removed = (yield* changeLog).filter((r) => r.kind === "source.removed")
      assert.deepStrictEqual(removed.map((r) => [r.entity, r.by, JSON.parse(r.detail)]), [
        ["shop", "dpo@example.com", { datasets: 2, reason: "no longer in catalog.yml" }]
      ])
      assert.deepStrictEqual((yield* (yield* StoreReader).sources).map((s) => s.id), ["crm"])
    }).pipe(Effect.provide(CatalogTest([fake.connector], twoSources, signer)))
  })

  it.effect("catalog-only says that no metadata leaves the machine", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    return Effect.gen(function*() {
      const report = yield* (yield* Scanner).run()
      assert.deepStrictEqual(report.upload, {
        status: "skipped",
        message: "Stayed local: catalog-only is on, so no metadata ever leaves this machine."
      })
      assert.isTrue((yield* (yield* Reader).status).catalogOnly)
    }).pipe(
      Effect.provide(CatalogTest([fake.connector], catalogYaml([fakeSourceYaml("shop")], ["catalogOnly: true"])))
    )
  })

  it.effect("progress is told as each source starts and finishes or fails", () => {
    const fake = fakeConnector()
    fake.set("shop", shop)
    fake.set("crm", unreachable("crm"))
    const events: Array<Parameters<Progress>[0]> = []
    return Effect.gen(function*() {
      yield* (yield* Scanner).run((e) => events.push(e))
      assert.strictEqual(events.length, 4)
      assert.deepStrictEqual(
        events.filter((e) => e.phase !== "start").map((e) => [e.source, e.phase]).sort(),
        [["crm", "failed"], ["shop", "done"]]
      )
      assert.deepStrictEqual(events.filter((e) => e.phase !== "start").map((e) => e.done), [1, 2])
      assert.isTrue(events.every((e) => e.total === 2))
    }).pipe(Effect.provide(CatalogTest([fake.connector], twoSources)))
  })
})
