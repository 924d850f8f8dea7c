import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { toErrorBody } from "../../../src/errors/index.js"
import {
  changesLimits,
  changeWindow,
  parseDatasetFilter,
  parseLimit,
  parseQuery,
  parseSince,
  parseTimestamp,
  searchLimits
} from "../../../src/services/reader/input.js"

describe("parseLimit", () => {
  it.effect("absent is the default; numbers and plain digits within bounds are taken", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* parseLimit(undefined, searchLimits), 20)
      assert.strictEqual(yield* parseLimit(undefined, changesLimits), 50)
      assert.strictEqual(yield* parseLimit(7, searchLimits), 7)
      assert.strictEqual(yield* parseLimit("7", searchLimits), 7)
      assert.strictEqual(yield* parseLimit("1", searchLimits), 1)
      assert.strictEqual(yield* parseLimit(100, searchLimits), 100)
      assert.strictEqual(yield* parseLimit("1000", changesLimits), 1000)
    }))

  it.effect("out of bounds or not plain digits is INVALID_PARAM naming limit", () =>
    Effect.gen(function*() {
      for (const raw of [0, 101, "0", "101", "-1", " 5", "5 ", "+5", "5.0", "1e1", "0x10", "", 2.5, Number.NaN, true]) {
        const e = yield* Effect.flip(parseLimit(raw, searchLimits))
        assert.deepStrictEqual(toErrorBody(e), {
          error: {
            code: "INVALID_PARAM",
            message: `limit must be a whole number from 1 to 100, written in plain digits; got ${JSON.stringify(raw)}.`,
            fix: "Pass limit between 1 and 100 (default 20).",
            param: "limit"
          }
        }, `limit ${JSON.stringify(raw)}`)
      }
      const over = yield* Effect.flip(parseLimit("1001", changesLimits))
      assert.strictEqual(over.fix, "Pass limit between 1 and 1000 (default 50).")
    }))

  it.effect("the error names the caller's own parameter", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(parseLimit("x", { default: 10, max: 50 }, "pageSize"))
      assert.strictEqual(e.param, "pageSize")
      assert.strictEqual(e.message, "pageSize must be a whole number from 1 to 50, written in plain digits; got \"x\".")
    }))
})

describe("parseTimestamp", () => {
  it("reads dates as UTC midnight and date-times with their offset", () => {
    assert.strictEqual(parseTimestamp("2026-01-31")?.toISOString(), "2026-01-31T00:00:00.000Z")
    assert.strictEqual(parseTimestamp("2026-01-31T12:00:00Z")?.toISOString(), "2026-01-31T12:00:00.000Z")
    assert.strictEqual(parseTimestamp("2026-01-31 12:00Z")?.toISOString(), "2026-01-31T12:00:00.000Z")
    assert.strictEqual(parseTimestamp("2026-01-31T12:00:00+02:00")?.toISOString(), "2026-01-31T10:00:00.000Z")
    assert.strictEqual(parseTimestamp("2026-01-31T12:00:00-0130")?.toISOString(), "2026-01-31T13:30:00.000Z")
    assert.strictEqual(parseTimestamp("2026-01-31T12:00:00.123456789Z")?.toISOString(), "2026-01-31T12:00:00.123Z")
    assert.strictEqual(parseTimestamp("2026-01-31T12:00:00.5Z")?.toISOString(), "2026-01-31T12:00:00.500Z")
    assert.strictEqual(parseTimestamp("2024-02-29")?.toISOString(), "2024-02-29T00:00:00.000Z")
    assert.strictEqual(parseTimestamp("2000-02-29")?.toISOString(), "2000-02-29T00:00:00.000Z")
  })

  it("reads a date-time without an offset as local time", () => {
    assert.strictEqual(parseTimestamp("2026-01-31T12:34")?.getTime(), new Date(2026, 0, 31, 12, 34).getTime())
  })

  it("is null for malformed text and for times that do not exist", () => {
    for (
      const text of [
        "",
        "2026-1-31",
        " 2026-01-31",
        "2026-01-31T12",
        "31/01/2026",
        "2026-02-30",
        "2026-04-31",
        "2026-11-31",
        "2100-02-29",
        "2026-13-01",
        "2026-00-10",
        "2026-01-00",
        "2026-01-31T24:00",
        "2026-01-31T12:60",
        "2026-01-31T12:00:60",
        "2026-01-31T12:00+24:00",
        "2026-01-31T12:00+02:60",
        "yesterday"
      ]
    ) assert.isNull(parseTimestamp(text), text)
  })
})

describe("parseSince", () => {
  it.effect("absent, a sequence number or a timestamp", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* parseSince(undefined))
      assert.deepStrictEqual(yield* parseSince(0), { seq: 0 })
      assert.deepStrictEqual(yield* parseSince("0"), { seq: 0 })
      assert.deepStrictEqual(yield* parseSince("42"), { seq: 42 })
      assert.deepStrictEqual(yield* parseSince(String(Number.MAX_SAFE_INTEGER)), { seq: Number.MAX_SAFE_INTEGER })
      assert.deepStrictEqual(yield* parseSince("2026-01-31"), { at: "2026-01-31T00:00:00.000Z" })
      assert.deepStrictEqual(yield* parseSince("2026-01-31T12:00:00+02:00"), { at: "2026-01-31T10:00:00.000Z" })
    }))

  it.effect("anything else is INVALID_PARAM naming since", () =>
    Effect.gen(function*() {
      for (const raw of [-1, "-1", 1.5, "1.5", "9007199254740992", "2026-02-30", "", " 3", "soon", false]) {
        const e = yield* Effect.flip(parseSince(raw))
        assert.deepStrictEqual(toErrorBody(e), {
          error: {
            code: "INVALID_PARAM",
            message:
              `since must be a change sequence number (0 to 9007199254740991, plain digits) or an ISO-8601 timestamp; got ${
                JSON.stringify(raw)
              }.`,
            fix:
              "Pass since=0 for the whole change-log, a sequence number from a change entry, or a timestamp like 2026-01-31T12:00:00Z.",
            param: "since"
          }
        }, `since ${JSON.stringify(raw)}`)
      }
    }))
})

describe("changeWindow", () => {
  it("after a sequence number, from an instant, or from just before the last scan started", () => {
    assert.deepStrictEqual(changeWindow({ seq: 0 }, "2026-01-01T00:00:00.000Z"), { sinceSeq: 0, label: "0" })
    assert.deepStrictEqual(changeWindow({ at: "2026-01-31T10:00:00.000Z" }, null), {
      sinceAt: "2026-01-31T10:00:00.000Z",
      label: "2026-01-31T10:00:00.000Z"
    })
    assert.deepStrictEqual(changeWindow(undefined, "2026-01-05T08:00:00.000Z"), {
      sinceAt: "2026-01-05T07:59:59.999Z",
      label: "last scan (2026-01-05T08:00:00.000Z)"
    })
    assert.deepStrictEqual(changeWindow(undefined, null), { label: null })
  })
})

describe("parseQuery", () => {
  it.effect("splits the words on blanks and builds the AND query", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseQuery("  customer\temail  "), {
        words: ["customer", "email"],
        text: "customer email",
        match: "\"customer\"* AND \"email\"*"
      })
    }))

  it.effect("no searchable word is INVALID_PARAM naming q", () =>
    Effect.gen(function*() {
      for (const raw of ["", "   ", "--- ...", undefined, 42]) {
        const e = yield* Effect.flip(parseQuery(raw))
        assert.deepStrictEqual(toErrorBody(e), {
          error: {
            code: "INVALID_PARAM",
            message: "Search needs words to look for.",
            fix: "Give one or more words, e.g. `catalog search customer email`.",
            param: "q"
          }
        }, `q ${JSON.stringify(raw)}`)
      }
    }))
})

describe("parseDatasetFilter", () => {
  it.effect("absent or an id passes through", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* parseDatasetFilter(undefined, "dataset"))
      assert.strictEqual(yield* parseDatasetFilter("pg/public/users", "dataset"), "pg/public/users")
    }))

  it.effect("an empty id is INVALID_PARAM naming the caller's parameter, when it has one", () =>
    Effect.gen(function*() {
      const fix =
        "Leave it out for every edge, or give one dataset's id (list them with GET /api/v1/datasets or `catalog datasets`)."
      assert.deepStrictEqual(toErrorBody(yield* Effect.flip(parseDatasetFilter("", "datasetId"))), {
        error: {
          code: "INVALID_PARAM",
          message: "datasetId must be a dataset id <source>/<schema>/<table>; got an empty value.",
          fix,
          param: "datasetId"
        }
      })
      assert.deepStrictEqual(toErrorBody(yield* Effect.flip(parseDatasetFilter("", undefined))), {
        error: {
          code: "INVALID_PARAM",
          message: "The dataset id must be a dataset id <source>/<schema>/<table>; got an empty value.",
          fix
        }
      })
    }))
})
