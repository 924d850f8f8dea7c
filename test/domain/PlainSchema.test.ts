/**
 * The read API's fast path: a plain resource that already is its encoded form is sent as it is; anything
 * else (an undeclared field, a wrong type, a missing field) goes to Schema's encoder, which reports it.
 */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { plainCheck } from "../../src/domain/PlainSchema.js"
import { successSchemas } from "../../src/programs/http/Api.js"

const Hit = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("dataset", "column"),
  score: Schema.Number,
  flagged: Schema.Boolean,
  by: Schema.optional(Schema.String),
  note: Schema.NullOr(Schema.String)
})
const Page = Schema.Struct({ total: Schema.Number, hits: Schema.Array(Hit), extra: Schema.Unknown })
const hit = { id: "shop/main/customers", kind: "dataset", score: 2.5, flagged: true, note: null } as const

describe("plainCheck", () => {
  const check = plainCheck(Page)!

  it("passes a value that is its own encoded form, which Schema encodes to the same bytes", () => {
    const value = {
      total: 2,
      hits: [hit, { ...hit, kind: "column" as const, by: "dpo@example.com" }],
      extra: { any: [1] }
    }
    expect(check(value)).toBe(true)
    const encoded = Schema.encodeSync(Page, { onExcessProperty: "error", propertyOrder: "original" })(value)
    expect(JSON.stringify(encoded)).toBe(JSON.stringify(value))
  })

  it.each([
    ["an undeclared field", { total: 1, hits: [{ ...hit, secret: "x" }], extra: null }],
    ["a wrong type", { total: "1", hits: [], extra: null }],
    ["a value outside a literal set", { total: 1, hits: [{ ...hit, kind: "table" }], extra: null }],
    ["a missing field", { total: 1, hits: [{ id: "a", kind: "dataset", score: 1, flagged: false }], extra: null }],
    ["an optional field given as undefined", { total: 1, hits: [{ ...hit, by: undefined }], extra: null }],
    ["not an array", { total: 1, hits: hit, extra: null }]
  ])("sends %s to Schema's encoder", (_, value) => {
    expect(check(value as never)).toBe(false)
  })

  it("has a fast check for the plain resources and none for a transformation", () => {
    expect(plainCheck(successSchemas.dataset)).not.toBeNull()
    expect(plainCheck(successSchemas.search)).not.toBeNull()
    expect(plainCheck(Schema.NumberFromString)).toBeNull()
  })
})
