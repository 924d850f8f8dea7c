/**
 * A stand-in for the Reader's port, `StoreReader`: a few hand-made rows in memory, and a count of the
 * reads the Reader made. What a test does not give dies when used (Layer.mock).
 */
import { Effect, Layer } from "effect"
import { ReaderConfigTag } from "../../../src/services/Reader.js"
import { type ColumnRow, type DatasetRow, StoreReader } from "../../../src/services/Store.js"

export const datasetRow = (id: string): DatasetRow => {
  const [source = "", schema = "", name = ""] = id.split("/")
  return {
    rowid: 1,
    id,
    source_id: source,
    schema_name: schema,
    name,
    kind: "table",
    comment: null,
    row_estimate: 1200,
    row_estimate_source: "planner",
    first_seen_at: "2026-01-01T00:00:00.000Z",
    scanned_at: "2026-01-02T00:00:00.000Z"
  }
}

export const columnRow = (datasetId: string, name: string, overrides: Partial<ColumnRow> = {}): ColumnRow => ({
  id: `${datasetId}/${name}`,
  dataset_id: datasetId,
  position: 1,
  name,
  type: "text",
  nullable: 1,
  comment: null,
  is_pk: 0,
  ref: null,
  m_value: "personal",
  m_rule: "name-token",
  m_confidence: 0.9,
  m_method: "name-token",
  m_category: "contact",
  m_evidence: "[\"name\"]",
  o_value: null,
  o_by: null,
  o_at: null,
  ...overrides
})

/** What the stand-in was asked, and the data version it reports (a test moves it to mimic a commit). */
export interface StoreCounts {
  datasetReads: number
  version: string
}

/** Every id is a dataset with one column, no edges. */
export const storeStandIn = (counts: StoreCounts) =>
  Layer.mock(StoreReader, {
    dataVersion: Effect.sync(() => counts.version),
    dataset: (id) =>
      Effect.sync(() => {
        counts.datasetReads++
        return id.startsWith("missing/") ? null : datasetRow(id)
      }),
    columnsOf: (id) => Effect.succeed([columnRow(id, "email")]),
    edges: () => Effect.succeed([])
  })

export const readerConfig = Layer.succeed(ReaderConfigTag, {
  controller: null,
  dora: null,
  configuredSources: null,
  catalogOnly: false,
  now: () => new Date("2026-01-03T00:00:00.000Z")
})
