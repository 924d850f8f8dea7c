/**
 * The classifier's second stage (src/classifier/model.ts): what it may and may not change in the rules'
 * verdicts, with small hand-set weights so each case is exact whatever the trained data file holds. How
 * well the trained weights do is measured leave-one-application-out in evaluation.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import modelData from "../../src/classifier/data/model.json" with { type: "json" }
import { judgeWithTables } from "../../src/classifier/engine.js"
import { decodeModel, type ModelWeights, reconsider, secondStage, sourceFeatures } from "../../src/classifier/model.js"
import type { ColumnVerdict, RawColumn, RawDataset } from "../../src/domain/Metadata.js"

const column = (name: string, type: string, extra: Partial<RawColumn> = {}, position = 1): RawColumn => ({
  name,
  type,
  nullable: true,
  position,
  comment: null,
  isPrimaryKey: false,
  references: null,
  ...extra
})
const table = (name: string, columns: ReadonlyArray<RawColumn>): RawDataset => ({
  schema: "public",
  name,
  kind: "table",
  comment: null,
  rowEstimate: null,
  rowEstimateSource: "none",
  columns,
  dependsOn: []
})

const source: ReadonlyArray<RawDataset> = [
  table("pupils", [
    column("id", "integer", { isPrimaryKey: true }),
    column("first_name", "text"),
    column("last_name", "text"),
    column("birth_date", "date")
  ]),
  table("report_lines", [
    column("id", "integer", { isPrimaryKey: true }),
    column("pupil_id", "integer", { references: { schema: "public", table: "pupils", column: "id" } }),
    column("quarter_mark", "text"),
    column("email_count", "integer"),
    column("created_at", "timestamp")
  ]),
  table("sensors", [column("id", "integer", { isPrimaryKey: true }), column("quarter_mark", "text")])
]

/** Weights that push hard toward `personal` for a column named `…_mark`, and toward `special` for `mark` in a pupil-keyed table. */
const model = (threshold: number, toward: ReadonlyArray<number> = [0, 6, 0, 0]): ModelWeights => ({
  version: "test",
  threshold,
  bias: [2, 0, 0, 0],
  weights: { "tok:mark": toward, "tok:email": [0, 9, 0, 0], "tok:created": [0, 9, 0, 0] }
})

const judged = () => judgeWithTables(source)
const at = (verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>, table: string, col: string): ColumnVerdict => {
  const i = source.findIndex((d) => d.name === table)
  const j = source[i]!.columns.findIndex((c) => c.name === col)
  return verdicts[i]![j]!
}

describe("the second stage", () => {
  it("flags a `not` of the rules it is sure about, with its rule, method, category and evidence", () => {
    const { src, verdicts } = judged()
    expect(at(verdicts, "report_lines", "quarter_mark").value).toBe("not")
    const out = secondStage(model(0.75), src, verdicts)
    const v = at(out, "report_lines", "quarter_mark")
    expect(v).toMatchObject({
      value: "personal",
      rule: "model:tok:mark",
      method: "model",
      category: "person.descriptor"
    })
    expect(v.evidence[0]).toBe(`the rules said not (${at(verdicts, "report_lines", "quarter_mark").rule})`)
    expect(v.evidence).toContain("model: tok:mark")
    expect(v.confidence).toBeGreaterThanOrEqual(0.75)
  })

  it("gives the most probable flag class", () => {
    const { src, verdicts } = judged()
    expect(at(secondStage(model(0.75, [0, 3, 6, 0]), src, verdicts), "report_lines", "quarter_mark")).toMatchObject({
      value: "special",
      category: "special"
    })
  })

  it("leaves a column alone below its threshold", () => {
    const { src, verdicts } = judged()
    expect(at(secondStage(model(0.99), src, verdicts), "report_lines", "quarter_mark")).toBe(
      at(verdicts, "report_lines", "quarter_mark")
    )
  })

  it("never touches a flag, a type veto, a count or flag marker, or the date of an event", () => {
    const { src, verdicts } = judged()
    const out = secondStage(model(0.5), src, verdicts)
    for (
      const [t, c] of [["pupils", "first_name"], ["report_lines", "pupil_id"], ["report_lines", "email_count"], [
        "report_lines",
        "created_at"
      ]] as const
    ) {
      expect(at(out, t, c)).toBe(at(verdicts, t, c))
    }
    expect(at(verdicts, "report_lines", "created_at").value).toBe("not")
    expect(at(verdicts, "report_lines", "email_count").value).toBe("not")
  })

  it("never flags in a table with no person in it", () => {
    const { src, verdicts } = judged()
    expect(at(secondStage(model(0.5), src, verdicts), "sensors", "quarter_mark").value).toBe("not")
  })

  it("the shipped weights decode, and a malformed weights file is refused", () => {
    expect(decodeModel(modelData).threshold).toBeGreaterThan(0.5)
    expect(() => decodeModel({ version: "x", threshold: 0.7, bias: [0, 0, 0], weights: {} })).toThrow(/model.json/)
    expect(() => decodeModel({ version: "x", threshold: 2, bias: [0, 0, 0, 0], weights: {} })).toThrow(/model.json/)
    expect(() => decodeModel({ version: "x", threshold: 0.7, bias: [0, 0, 0, 0], weights: { a: [1, "2", 3, 4] } }))
      .toThrow(/model.json/)
  })

  it("sums memoised parts to exactly what scoring every column's whole feature list gives", () => {
    const shipped = decodeModel(modelData)
    for (const app of ["gibbon", "openemr", "book-secure-move"]) {
      const file = path.join(import.meta.dirname, "corpus", `${app}.json`)
      const datasets = (JSON.parse(fs.readFileSync(file, "utf8")) as { datasets: ReadonlyArray<RawDataset> }).datasets
      const { src, verdicts } = judgeWithTables(datasets)
      for (const threshold of [shipped.threshold, 0.3]) {
        const m = { ...shipped, threshold }
        const features = sourceFeatures(src, verdicts)
        const slow = verdicts.map((row, i) => row.map((v, j) => reconsider(m, v, features[i]![j]!)))
        const fast = secondStage(m, src, verdicts)
        expect(fast).toEqual(slow)
        expect(fast.flat().filter((v) => v.method === "model").length).toBeGreaterThan(0)
      }
    }
  })
})
