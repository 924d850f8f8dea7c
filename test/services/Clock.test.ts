/**
 * Services take the time from Effect's Clock, not from the machine's: under TestClock every stamp a
 * write leaves (the result, the stored row, the change-log entry) is the instant the clock says, in
 * the same ISO-8601 form `Date.prototype.toISOString` gives.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { StoreMemoryLive } from "../../src/layers/SqlMemory.js"
import { Glossary, GlossaryLive } from "../../src/services/Glossary.js"
import { Store, StoreReader } from "../../src/services/Store.js"
import { column, dataset, scannedOutcome, verdict } from "../utils/TestLayers.js"

const GlossaryMemory = GlossaryLive.pipe(Layer.provideMerge(StoreMemoryLive))

const instant = "2031-02-03T04:05:06.789Z"

/** One source with one table of two columns, as a connector and the classifier would hand it over. */
const shop = scannedOutcome(
  [dataset("customers", [
    column("id", 1, { type: "integer", nullable: false, isPrimaryKey: true }),
    column("email", 2)
  ])],
  [[verdict("not", "token:id"), verdict("personal", "token:email")]]
)

describe("the clock services stamp with", () => {
  it.effect("a glossary write is stamped with the time TestClock says, in the result, the row and the change-log", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse(instant))
      const glossary = yield* Glossary
      const reader = yield* StoreReader
      const created = yield* glossary.set({
        term: "Active customer",
        definition: "Ordered this year",
        datasets: [],
        by: "ann"
      })
      assert.strictEqual(created.outcome, "created")
      assert.strictEqual(created.updatedAt, instant)
      assert.strictEqual((yield* reader.glossaryTerm("Active customer"))?.updated_at, instant)

      // The clock moves on by 90 minutes: the next write carries the new time, not the machine's.
      yield* TestClock.adjust("90 minutes")
      const updated = yield* glossary.set({
        term: "Active customer",
        definition: "Ordered in 12 months",
        datasets: undefined,
        by: "bob"
      })
      assert.strictEqual(updated.outcome, "updated")
      assert.strictEqual(updated.updatedAt, "2031-02-03T05:35:06.789Z")

      const { rows } = yield* reader.changes({ sinceSeq: 0, limit: 10 }) // newest first
      assert.deepStrictEqual(
        rows.map((r) => [r.kind, r.at, r.by]),
        [["glossary.set", "2031-02-03T05:35:06.789Z", "bob"], ["glossary.set", instant, "ann"]]
      )
    }).pipe(Effect.provide(GlossaryMemory)))

  it.effect("the store stamps what it writes itself (a scan committed, a source removed) with the clock's time too", () =>
    Effect.gen(function*() {
      const store = yield* Store
      const reader = yield* StoreReader
      yield* TestClock.setTime(Date.parse("2029-12-31T23:59:59.000Z"))
      yield* store.commitScan({
        startedAt: "2029-12-31T23:59:00.000Z",
        outcomes: [shop],
        removedSources: [],
        by: "ann"
      })
      assert.strictEqual((yield* reader.lastScan)?.finished_at, "2029-12-31T23:59:59.000Z")
      yield* TestClock.adjust("1 second")
      yield* store.removeSource("shop", "bob")
      const { rows } = yield* reader.changes({ sinceSeq: 0, limit: 100 })
      const removed = rows.filter((r) => r.kind === "source.removed")
      assert.deepStrictEqual(removed.map((r) => [r.at, r.by]), [["2030-01-01T00:00:00.000Z", "bob"]])
      const scanned = rows.filter((r) => r.kind !== "source.removed")
      assert.isAbove(scanned.length, 0)
      assert.deepStrictEqual([...new Set(scanned.map((r) => r.at))], ["2029-12-31T23:59:59.000Z"])
    }).pipe(Effect.provide(StoreMemoryLive)))
})
