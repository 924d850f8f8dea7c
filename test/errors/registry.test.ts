/**
 * The registry's classes as Schemas: each is a Schema.TaggedError whose code is its literal, whose
 * encoded form is the one error envelope every surface prints, and which carries its HTTP status.
 */
import { HttpApiSchema } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  ConfigNotFound,
  DatasetNotFound,
  errorClasses,
  InvalidParam,
  MapNotFound,
  PortalNotInstalled,
  registry,
  SourceUnreachable,
  toErrorBody
} from "../../src/errors/index.js"

// Compile-time: a class's code is its own literal, on the class and on the instance.
const literal: "CONFIG_NOT_FOUND" = new ConfigNotFound().code
const staticLiteral: "DATASET_NOT_FOUND" = DatasetNotFound.code
// @ts-expect-error another code's literal does not fit
const wrong: "CONFIG_INVALID" = new ConfigNotFound().code

describe("registry error classes", () => {
  it("keep literal codes", () => {
    assert.deepStrictEqual([literal, staticLiteral, wrong], [
      "CONFIG_NOT_FOUND",
      "DATASET_NOT_FOUND",
      "CONFIG_NOT_FOUND"
    ])
  })

  it("are listed once, and the registry is read from them in the order they are defined", () => {
    const codes = errorClasses.map((c) => c.code)
    assert.strictEqual(new Set(codes).size, codes.length)
    assert.deepStrictEqual(registry.map((r) => r.code), codes)
    for (const [i, c] of errorClasses.entries()) assert.deepStrictEqual(registry[i], { code: c.code, ...c.spec })
    assert.deepStrictEqual(codes.slice(0, 2), ["NODE_VERSION_UNSUPPORTED", "CONFIG_NOT_FOUND"])
    assert.deepStrictEqual(codes.slice(-3), ["INVALID_PARAM", "DATASET_NOT_FOUND", "ENDPOINT_NOT_FOUND"])
  })

  it("encode through their own Schema to the error envelope, with the registry's message and fix", () => {
    for (const cls of errorClasses) {
      const e = new cls()
      assert.deepStrictEqual(Schema.encodeUnknownSync(cls)(e), {
        error: {
          code: cls.code,
          message: cls.spec.message,
          ...(cls.spec.fix !== null ? { fix: cls.spec.fix } : {})
        }
      })
      assert.deepStrictEqual(toErrorBody(e), Schema.encodeUnknownSync(cls)(e))
      assert.strictEqual(e.code, cls.code)
      assert.strictEqual(e.exitCode, cls.spec.exitCode)
    }
  })

  it("decode from the envelope back to an instance of the class", () => {
    const body = {
      error: { code: "DATASET_NOT_FOUND", message: "No dataset with id \"x\".", param: "id", details: { id: "x" } }
    } as const
    const e = Schema.decodeUnknownSync(DatasetNotFound)(body)
    assert.instanceOf(e, DatasetNotFound)
    assert.strictEqual(e._tag, "DatasetNotFound")
    assert.strictEqual(e.fix, null)
    assert.deepStrictEqual(Schema.encodeSync(DatasetNotFound)(e), body)
    assert.throws(() => Schema.decodeUnknownSync(DatasetNotFound)({ error: { code: "MAP_NOT_FOUND", message: "m" } }))
  })

  it("write the body's keys in the contract's order and leave out a fix that does not exist", () => {
    const e = new InvalidParam({ details: { n: 1 }, param: "limit", message: "bad limit" })
    assert.strictEqual(
      JSON.stringify(e.body),
      "{\"error\":{\"code\":\"INVALID_PARAM\",\"message\":\"bad limit\",\"fix\":\"See `catalog help <command>` for the accepted parameters.\",\"param\":\"limit\",\"details\":{\"n\":1}}}"
    )
    assert.strictEqual(new PortalNotInstalled().fix, null)
    assert.deepStrictEqual(Object.keys(new PortalNotInstalled().body.error), ["code", "message"])
  })

  it("carry their HTTP status as the HttpApi annotation", () => {
    for (const cls of errorClasses) assert.strictEqual(HttpApiSchema.getStatusError(cls), cls.spec.status, cls.code)
    assert.strictEqual(HttpApiSchema.getStatusError(DatasetNotFound), 404)
    assert.strictEqual(HttpApiSchema.getStatusError(InvalidParam), 400)
  })

  it("exit 2 when raised for usage, without it showing in the body", () => {
    const e = new InvalidParam({ param: "--port", usage: true })
    assert.strictEqual(e.exitCode, 2)
    assert.notProperty(e.body.error, "usage")
    assert.strictEqual(new SourceUnreachable({ usage: true }).exitCode, 2)
    assert.strictEqual(new SourceUnreachable().exitCode, 1)
  })

  it("can be raised again from their input (as the scanner does after redaction)", () => {
    const e = new SourceUnreachable({ message: "pg down", param: "--source", details: { id: "pg" }, usage: true })
    const again = new SourceUnreachable(e.input)
    assert.deepStrictEqual(again.body, e.body)
    assert.strictEqual(again.exitCode, 2)
  })

  it.effect("are yieldable failures, caught by their tag", () =>
    Effect.gen(function*() {
      const code = yield* Effect.gen(function*() {
        return yield* new MapNotFound()
      }).pipe(Effect.catchTag("MapNotFound", (e) => Effect.succeed(e.code)))
      assert.strictEqual(code, "MAP_NOT_FOUND")
      const flipped = yield* Effect.flip(new ConfigNotFound({ message: "no file at ./x" }))
      assert.instanceOf(flipped, Error)
      assert.strictEqual(flipped.message, "no file at ./x")
    }))
})
