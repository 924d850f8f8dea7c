import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Reader, ReaderLive } from "../../../src/services/Reader.js"
import { makeReaderCaches, makeVersionedCache, makeWordsCache } from "../../../src/services/reader/cache.js"
import { readerConfig, type StoreCounts, storeStandIn } from "./standIn.js"

describe("words cache", () => {
  it("computes a name's words once: a hit is the very same array", () => {
    const words = makeWordsCache()
    const first = words("customerEmail")
    assert.deepStrictEqual(first, ["customer", "email"])
    assert.strictEqual(words("customerEmail"), first)
  })

  it("holds max + 1 names; the next new name empties it", () => {
    const words = makeWordsCache(2)
    const a = words("a_name")
    words("b_name")
    words("c_name")
    assert.strictEqual(words("a_name"), a, "three names fit a cache of 2")
    words("d_name")
    const again = words("a_name")
    assert.notStrictEqual(again, a, "the fourth name emptied it")
    assert.deepStrictEqual(again, a)
  })

  it("is not shared between caches", () => {
    const one = makeWordsCache()
    const other = makeWordsCache()
    assert.notStrictEqual(other("first_name"), one("first_name"))
    const caches = [makeReaderCaches(), makeReaderCaches()]
    assert.notStrictEqual(caches[0]?.words("last_name"), caches[1]?.words("last_name"))
    assert.notStrictEqual(caches[0]?.datasets, caches[1]?.datasets)
  })
})

describe("versioned cache", () => {
  const counting = () => {
    const built: Array<string> = []
    const build = (key: string) => () => Effect.sync(() => (built.push(key), `${key}#${built.length}`))
    return { built, build }
  }

  it.effect("builds a key once per data version", () =>
    Effect.gen(function*() {
      const cache = makeVersionedCache<string>(10)
      const { build, built } = counting()
      assert.strictEqual(yield* cache.get("x", "v1", build("x")), "x#1")
      assert.strictEqual(yield* cache.get("x", "v1", build("x")), "x#1")
      assert.strictEqual(yield* cache.get("y", "v1", build("y")), "y#2")
      assert.strictEqual(yield* cache.get("x", "v2", build("x")), "x#3", "a new version empties it")
      assert.strictEqual(cache.size(), 1)
      assert.deepStrictEqual(built, ["x", "y", "x"])
    }))

  it.effect("keeps no failure", () =>
    Effect.gen(function*() {
      const cache = makeVersionedCache<string>(10)
      let tries = 0
      const failing = () => Effect.suspend(() => (tries++, Effect.fail("nope" as const)))
      assert.strictEqual(yield* Effect.flip(cache.get("x", "v1", failing)), "nope")
      assert.strictEqual(yield* Effect.flip(cache.get("x", "v1", failing)), "nope")
      assert.strictEqual(tries, 2)
      assert.strictEqual(cache.size(), 0)
    }))

  it.effect("holds at most max values, dropping the oldest added", () =>
    Effect.gen(function*() {
      const cache = makeVersionedCache<string>(2)
      const { build, built } = counting()
      for (const key of ["a", "b", "c"]) yield* cache.get(key, "v1", build(key))
      assert.strictEqual(cache.size(), 2)
      yield* cache.get("c", "v1", build("c"))
      yield* cache.get("b", "v1", build("b"))
      assert.deepStrictEqual(built, ["a", "b", "c"], "b and c are kept")
      yield* cache.get("a", "v1", build("a"))
      assert.deepStrictEqual(built, ["a", "b", "c", "a"], "a was dropped")
      assert.strictEqual(cache.size(), 2)
    }))
})

describe("the Reader's dataset cache", () => {
  const reader = (counts: StoreCounts) =>
    Effect.provide(Reader, ReaderLive.pipe(Layer.provide(storeStandIn(counts)), Layer.provide(readerConfig)))

  it.effect("answers a dataset again from the cache until the store's data version moves", () =>
    Effect.gen(function*() {
      const counts: StoreCounts = { datasetReads: 0, version: "1" }
      const r = yield* reader(counts)
      const first = yield* r.dataset("pg/public/users")
      assert.strictEqual(first.columns[0]?.id, "pg/public/users/email")
      assert.strictEqual(yield* r.dataset("pg/public/users"), first)
      assert.strictEqual(counts.datasetReads, 1)
      counts.version = "2"
      const after = yield* r.dataset("pg/public/users")
      assert.notStrictEqual(after, first)
      assert.deepStrictEqual(after, first)
      assert.strictEqual(counts.datasetReads, 2)
    }))

  it.effect("does not keep DATASET_NOT_FOUND", () =>
    Effect.gen(function*() {
      const counts: StoreCounts = { datasetReads: 0, version: "1" }
      const r = yield* reader(counts)
      const e = yield* Effect.flip(r.dataset("missing/x/y", "datasetId"))
      assert.deepStrictEqual([e.code, e.param], ["DATASET_NOT_FOUND", "datasetId"])
      yield* Effect.flip(r.dataset("missing/x/y"))
      assert.strictEqual(counts.datasetReads, 2)
    }))

  it.effect("keeps 2,000 datasets: the 2,001st drops the first", () =>
    Effect.gen(function*() {
      const counts: StoreCounts = { datasetReads: 0, version: "1" }
      const r = yield* reader(counts)
      for (let i = 0; i < 2_000; i++) yield* r.dataset(`pg/public/t${i}`)
      yield* r.dataset("pg/public/t0")
      assert.strictEqual(counts.datasetReads, 2_000, "all 2,000 are kept")
      yield* r.dataset("pg/public/t2000")
      yield* r.dataset("pg/public/t0")
      assert.strictEqual(counts.datasetReads, 2_002, "t0 was dropped for t2000")
    }))

  it.effect("a second Reader instance does not share the first one's cache", () =>
    Effect.gen(function*() {
      const counts: StoreCounts = { datasetReads: 0, version: "1" }
      const one = yield* reader(counts)
      const two = yield* reader(counts)
      const a = yield* one.dataset("pg/public/users")
      assert.strictEqual(counts.datasetReads, 1)
      const b = yield* two.dataset("pg/public/users")
      assert.strictEqual(counts.datasetReads, 2, "the second instance read the store")
      assert.notStrictEqual(b, a)
      assert.strictEqual(yield* one.dataset("pg/public/users"), a)
      assert.strictEqual(yield* two.dataset("pg/public/users"), b)
      assert.strictEqual(counts.datasetReads, 2)
    }))
})
