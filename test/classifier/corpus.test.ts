/**
 * Integrity of the labelled evaluation corpus (test/classifier/corpus + test/classifier/labels).
 * Every corpus column has exactly one label row and every label row names a corpus column.
 * This checks the corpus, not the classifier.
 */
import { parse } from "csv-parse/sync"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import type { DatasetKind, RawDataset, RowEstimateSource } from "../../src/domain/Metadata.js"
import { classValues } from "../../src/domain/Metadata.js"

const here = fileURLToPath(new URL(".", import.meta.url))
const corpusDir = join(here, "corpus")
const labelsDir = join(here, "labels")

interface CorpusFile {
  readonly name: string
  readonly origin: string
  readonly datasets: ReadonlyArray<RawDataset>
}

interface LabelRow {
  readonly schema: string
  readonly table: string
  readonly column: string
  readonly label: string
  readonly category: string
  readonly rationale: string
}

const kinds: ReadonlyArray<DatasetKind> = [
  "table",
  "partitioned_table",
  "partition",
  "view",
  "materialized_view",
  "foreign_table",
  "file"
]
const estimateSources: ReadonlyArray<RowEstimateSource> = [
  "pg_class.reltuples",
  "information_schema.TABLES.TABLE_ROWS",
  "warehouse",
  "none"
]
const header = ["schema", "table", "column", "label", "category", "rationale"]

const corpusNames = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.replace(/\.json$/, ""))
  .sort()
const labelNames = readdirSync(labelsDir)
  .filter((f) => f.endsWith(".csv"))
  .map((f) => f.replace(/\.csv$/, ""))
  .sort()

const key = (schema: string, table: string, column: string) => JSON.stringify([schema, table, column])

const readCorpus = (name: string): CorpusFile =>
  JSON.parse(readFileSync(join(corpusDir, `${name}.json`), "utf8")) as CorpusFile

const readLabels = (name: string): { header: ReadonlyArray<string>; rows: ReadonlyArray<LabelRow> } => {
  const text = readFileSync(join(labelsDir, `${name}.csv`), "utf8")
  const records = parse(text, { bom: true, relax_column_count: false }) as Array<Array<string>>
  const [head = [], ...body] = records
  return {
    header: head,
    rows: body.map(([schema = "", table = "", column = "", label = "", category = "", rationale = ""]) => ({
      schema,
      table,
      column,
      label,
      category,
      rationale
    }))
  }
}

describe("classifier evaluation corpus", () => {
  it("has a labels file for every corpus file and vice versa", () => {
    expect(corpusNames.length).toBeGreaterThan(0)
    expect(labelNames).toEqual(corpusNames)
  })

  describe.each(corpusNames)("%s", (name) => {
    const corpus = readCorpus(name)
    const { header: head, rows } = readLabels(name)

    it("is named after its file and has an origin", () => {
      expect(corpus.name).toBe(name)
      expect(typeof corpus.origin).toBe("string")
      expect(corpus.origin.length).toBeGreaterThan(0)
      expect(corpus.datasets.length).toBeGreaterThan(0)
    })

    it("matches the RawDataset / RawColumn shape", () => {
      const datasetKeys = [
        "schema",
        "name",
        "kind",
        "comment",
        "rowEstimate",
        "rowEstimateSource",
        "columns",
        "dependsOn"
      ]
      const columnKeys = ["name", "type", "nullable", "position", "comment", "isPrimaryKey", "references"]
      const seen = new Set<string>()
      for (const d of corpus.datasets) {
        expect(Object.keys(d).sort()).toEqual([...datasetKeys].sort())
        expect(typeof d.schema).toBe("string")
        expect(typeof d.name).toBe("string")
        expect(kinds).toContain(d.kind)
        expect(d.comment === null || typeof d.comment === "string").toBe(true)
        expect(d.rowEstimate === null || typeof d.rowEstimate === "number").toBe(true)
        expect(estimateSources).toContain(d.rowEstimateSource)
        expect(Array.isArray(d.dependsOn)).toBe(true)
        const dsKey = JSON.stringify([d.schema, d.name])
        expect(seen.has(dsKey), `duplicate dataset ${dsKey}`).toBe(false)
        seen.add(dsKey)
        expect(d.columns.length).toBeGreaterThan(0)
        const positions = new Set<number>()
        const names = new Set<string>()
        for (const c of d.columns) {
          expect(Object.keys(c).sort()).toEqual([...columnKeys].sort())
          expect(typeof c.name).toBe("string")
          expect(c.name.length).toBeGreaterThan(0)
          expect(typeof c.type).toBe("string")
          expect(typeof c.nullable).toBe("boolean")
          expect(Number.isInteger(c.position) && c.position >= 1).toBe(true)
          expect(c.comment === null || (typeof c.comment === "string" && c.comment.length > 0)).toBe(true)
          expect(typeof c.isPrimaryKey).toBe("boolean")
          if (c.references !== null) {
            expect(Object.keys(c.references).sort()).toEqual(["column", "schema", "table"])
          }
          expect(positions.has(c.position), `duplicate position in ${d.name}`).toBe(false)
          expect(names.has(c.name), `duplicate column ${d.name}.${c.name}`).toBe(false)
          positions.add(c.position)
          names.add(c.name)
        }
      }
    })

    it("has foreign keys that point at columns of the same corpus", () => {
      const columns = new Set(corpus.datasets.flatMap((d) => d.columns.map((c) => key(d.schema, d.name, c.name))))
      for (const d of corpus.datasets) {
        for (const c of d.columns) {
          if (c.references === null) continue
          const target = key(c.references.schema, c.references.table, c.references.column)
          expect(columns.has(target), `${d.name}.${c.name} -> ${target}`).toBe(true)
        }
      }
    })

    it("has the labels header", () => {
      expect(head).toEqual(header)
    })

    it("labels every column exactly once, and nothing else", () => {
      const expected = corpus.datasets.flatMap((d) => d.columns.map((c) => key(d.schema, d.name, c.name)))
      const labelled = rows.map((r) => key(r.schema, r.table, r.column))
      const duplicates = labelled.filter((k, i) => labelled.indexOf(k) !== i)
      expect(duplicates).toEqual([])
      const labelledSet = new Set(labelled)
      const expectedSet = new Set(expected)
      expect(expected.filter((k) => !labelledSet.has(k)), "columns without a label").toEqual([])
      expect(labelled.filter((k) => !expectedSet.has(k)), "labels without a column").toEqual([])
      expect(rows.length).toBe(expected.length)
    })

    it("uses valid labels, categories and rationales", () => {
      for (const r of rows) {
        const where = `${r.schema}.${r.table}.${r.column}`
        expect(classValues, where).toContain(r.label)
        if (r.label === "not") expect(r.category, where).toBe("")
        else expect(r.category, where).toMatch(/^[a-z_]+(\.[a-z_]+)*$/)
        expect(r.rationale.trim().length, where).toBeGreaterThan(15)
        expect(r.rationale, where).toMatch(/policy/)
      }
    })
  })
})
