/**
 * Decoding at the SQL edge: the fast path for plain row structs gives exactly what Schema's decoder gives
 * (declared fields only, refinements applied), and a row that is not one fails as Schema says.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { decodeRows, decodeRowsSync, RowDecodeFailure } from "../../../src/layers/store/rows.js"
import { ColumnRow, DatasetSummaryRow } from "../../../src/services/Store.js"

const dataset = (i: number) => ({
  rowid: i,
  id: `pg/public/t${i}`,
  source_id: "pg",
  schema_name: "public",
  name: `t${i}`,
  kind: "table",
  comment: i % 2 === 0 ? null : "a comment",
  row_estimate: i % 3 === 0 ? null : 10 * i,
  row_estimate_source: "planner",
  first_seen_at: "2026-11-24T00:00:00.000Z",
  scanned_at: "2026-11-24T00:00:00.000Z",
  columns: 20,
  personal: 3,
  special: 0,
  criminal: 0,
  extra_column_of_a_join: "dropped"
})
const column = (evidence: string) => ({
  id: "pg/public/t1/email",
  dataset_id: "pg/public/t1",
  position: 1,
  name: "email",
  type: "text",
  nullable: 1,
  comment: null,
  is_pk: 0,
  ref: null,
  m_value: "personal",
  m_rule: "name:email",
  m_confidence: 0.97,
  m_method: "rules",
  m_category: "contact.email",
  m_evidence: evidence,
  o_value: null,
  o_by: null,
  o_at: null
})

describe("rows decoded at the SQL edge", () => {
  it.effect("plain rows come out as Schema decodes them: the declared fields, nothing else", () =>
    Effect.gen(function*() {
      const rows = Array.from({ length: 50 }, (_, i) => dataset(i))
      const got = yield* decodeRows("datasets", DatasetSummaryRow)(rows)
      assert.deepStrictEqual(got, Schema.decodeUnknownSync(Schema.Array(DatasetSummaryRow))(rows))
      assert.notProperty(got[0]!, "extra_column_of_a_join")
    }))

  it.effect("a refined field is still checked (evidence that is not JSON fails, naming the table and column)", () =>
    Effect.gen(function*() {
      const ok = yield* decodeRows("columns", ColumnRow)([column("[\"name: email\"]")])
      assert.strictEqual(ok[0]!.m_evidence, "[\"name: email\"]")
      const bad = yield* Effect.flip(decodeRows("columns", ColumnRow)([column("{evidence: [oops")]))
      assert.strictEqual(bad.code, "SCHEMA_MIGRATION_REQUIRED")
      assert.include(bad.message, "table columns")
      assert.include(bad.message, "m_evidence")
      assert.notInclude(bad.message, "oops")
    }))

  it("a wrong type, a missing field or a value outside a literal set fails, in the sync path too", () => {
    for (
      const row of [
        { ...dataset(1), columns: "20" },
        (({ kind: _kind, ...rest }) => rest)(dataset(1)),
        { ...column("[]"), m_value: "secret" }
      ]
    ) {
      const schema = "m_value" in row ? ColumnRow : DatasetSummaryRow
      const thrown = Either.try(() => decodeRowsSync("t", schema as Schema.Schema<unknown, unknown>)([row]))
      assert.isTrue(Either.isLeft(thrown))
      if (Either.isLeft(thrown)) {
        assert.instanceOf(thrown.left, RowDecodeFailure)
        assert.strictEqual((thrown.left as RowDecodeFailure).error.code, "SCHEMA_MIGRATION_REQUIRED")
      }
    }
  })
})
