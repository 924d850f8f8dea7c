import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Reader, ReaderLive } from "../../../src/services/Reader.js"
import { parseQuery } from "../../../src/services/reader/input.js"
import {
  fold,
  ftsQuery,
  nameWords,
  rankHits,
  searchCandidates,
  type SearchColumnRow,
  type SearchDatasetRow,
  searchPage,
  searchTerms
} from "../../../src/services/reader/search.js"
import { StoreReader } from "../../../src/services/Store.js"
import { readerConfig } from "./standIn.js"

const dataset = (id: string, score: number, comment: string | null = null): SearchDatasetRow => {
  const [, schema = "", name = ""] = id.split("/")
  return { id, score, kind: "table", schema_name: schema, name, comment }
}
const column = (datasetId: string, name: string, more: Partial<SearchColumnRow> = {}): SearchColumnRow => ({
  id: `${datasetId}/${name}`,
  dataset_id: datasetId,
  name,
  type: "text",
  comment: null,
  m_value: "personal",
  m_category: "contact",
  o_value: null,
  ...more
})

/** A small catalog: what the full-text index could have found for "customer" or "customer email". */
const datasets = [
  dataset("pg/crm/customers", 10),
  dataset("pg/billing/invoices", 8, "Invoices sent to customers"),
  dataset("pg/public/t1", 5)
]
const columns = [
  column("pg/crm/customers", "email"),
  column("pg/crm/customers", "id", { type: "bigint", m_value: "not", m_category: null }),
  column("pg/billing/invoices", "customer_id", { type: "bigint", m_value: "not", m_category: null }),
  column("pg/billing/invoices", "note", { comment: "the customer's own words" }),
  column("pg/public/t1", "customerEmail", { o_value: "not" })
]
const glossary = [{ term: "Customer", definition: "Someone who bought something from us.", score: 3 }]

const rank = (q: string) => Effect.map(parseQuery(q), (query) => rankHits({ query, datasets, columns, glossary }))

describe("FTS query building", () => {
  it("each term a quoted prefix, names split as the index splits them, duplicates once", () => {
    assert.deepStrictEqual(searchTerms(["customerEmail", "first_name", "Zip-Code"]), [
      "customer",
      "email",
      "first",
      "name",
      "zip",
      "code"
    ])
    assert.strictEqual(ftsQuery(["customer", "email"], "AND"), "\"customer\"* AND \"email\"*")
    assert.strictEqual(ftsQuery(["customer_email", "EMAIL"], "OR"), "\"customer\"* OR \"email\"*")
    assert.isNull(ftsQuery([], "AND"))
    assert.isNull(ftsQuery(["--", "..."], "OR"))
  })

  it("names are matched folded: no accents, lower case", () => {
    assert.strictEqual(fold("Müller Ångström"), "muller angstrom")
    assert.deepStrictEqual(nameWords("dateOfBirth_Straße"), ["date", "of", "birth", "straße"])
  })

  it("asks for three candidates per hit wanted, between 30 and 200", () => {
    assert.deepStrictEqual([1, 10, 20, 50, 100].map(searchCandidates), [30, 30, 60, 150, 200])
  })
})

describe("rankHits", () => {
  it.effect("orders the hits: dataset names × 1.2, column names × 1, comments × 0.6, glossary × 1.5", () =>
    Effect.gen(function*() {
      const hits = yield* rank("customer")
      assert.deepStrictEqual(hits.map((h) => [h.kind, h.id, h.score]), [
        ["dataset", "pg/crm/customers", 12],
        ["column", "pg/billing/invoices/customer_id", 8],
        ["column", "pg/public/t1/customerEmail", 5],
        ["column", "pg/billing/invoices/note", 4.8],
        ["glossary", "glossary:Customer", 4.5]
      ])
      assert.deepStrictEqual(hits[0], {
        kind: "dataset",
        id: "pg/crm/customers",
        datasetId: "pg/crm/customers",
        title: "pg/crm/customers",
        score: 12,
        why: "dataset name matches \"customer\"",
        snippet: "table crm.customers · 2 columns"
      })
      assert.deepStrictEqual(hits[2], {
        kind: "column",
        id: "pg/public/t1/customerEmail",
        datasetId: "pg/public/t1",
        title: "pg/public/t1/customerEmail",
        score: 5,
        why: "column name matches \"customer\"",
        snippet: "customerEmail text · not",
        classification: "not"
      })
      assert.strictEqual(hits[3]?.why, "column comment mentions \"customer\"")
      assert.strictEqual(hits[3]?.snippet, "note text · personal (contact) · the customer's own words")
      assert.deepStrictEqual(hits[4], {
        kind: "glossary",
        id: "glossary:Customer",
        datasetId: null,
        title: "Customer",
        score: 4.5,
        why: "glossary term matches \"customer\"",
        snippet: "Someone who bought something from us."
      })
    }))

  it.effect("a column scores by the share of the terms it and its dataset's name cover", () =>
    Effect.gen(function*() {
      const hits = yield* rank("customer email")
      assert.deepStrictEqual(hits.map((h) => [h.id, h.score]), [
        ["pg/crm/customers", 12],
        ["pg/crm/customers/email", 10],
        ["pg/public/t1/customerEmail", 5],
        ["glossary:Customer", 4.5],
        ["pg/billing/invoices/customer_id", 4],
        ["pg/billing/invoices/note", 2.4]
      ])
      assert.strictEqual(
        hits[1]?.why,
        "column name matches \"email\" in a dataset whose name matches"
      )
      assert.strictEqual(hits[3]?.why, "glossary term matches \"customer email\"")
    }))

  it.effect("equal scores are ordered by id; scores are rounded to 3 decimals after sorting", () =>
    Effect.gen(function*() {
      const query = yield* parseQuery("email")
      const hits = rankHits({
        query,
        datasets: [
          dataset("c/x/email_log", 1.0000001),
          dataset("a/x/email_log", 1.0000001),
          dataset("b/x/email_log", 1.0000002)
        ],
        columns: [],
        glossary: [{ term: "Email", definition: "An address.", score: 0.123456 }]
      })
      assert.deepStrictEqual(hits.map((h) => [h.id, h.score]), [
        ["b/x/email_log", 1.2],
        ["a/x/email_log", 1.2],
        ["c/x/email_log", 1.2],
        ["glossary:Email", 0.185]
      ])
    }))

  it.effect("a dataset found only by its schema name is a hit that says what was asked", () =>
    Effect.gen(function*() {
      const query = yield* parseQuery("billing")
      const hits = rankHits({ query, datasets: [dataset("pg/billing/invoices", 2)], columns: [], glossary: [] })
      assert.deepStrictEqual(hits.map((h) => h.why), ["dataset name matches \"billing\""])
    }))
})

describe("searchPage", () => {
  it.effect("keeps the first `limit` hits and says how many there were", () =>
    Effect.gen(function*() {
      const hits = yield* rank("customer")
      const page = searchPage("customer", hits, 2)
      assert.deepStrictEqual(
        [page.q, page.returned, page.total, page.truncated, page.hits.map((h) => h.id)],
        ["customer", 2, 5, true, ["pg/crm/customers", "pg/billing/invoices/customer_id"]]
      )
      const all = searchPage("customer", hits, 20)
      assert.deepStrictEqual([all.returned, all.total, all.truncated], [5, 5, false])
    }))
})

describe("Reader.search over the store", () => {
  it.effect("falls back to any word when no dataset has them all, and ranks what the store found", () =>
    Effect.gen(function*() {
      const asked: Array<readonly [string, number]> = []
      const store = Layer.mock(StoreReader, {
        searchDatasets: (match, limit) =>
          Effect.sync(() => {
            asked.push([match, limit])
            return match.includes(" OR ") ? datasets : []
          }),
        searchColumnsOf: (ids) => Effect.succeed(columns.filter((c) => ids.includes(c.dataset_id))),
        searchGlossary: () => Effect.succeed(glossary)
      })
      const reader = yield* Effect.provide(Reader, ReaderLive.pipe(Layer.provide(store), Layer.provide(readerConfig)))
      const result = yield* reader.search("customer email", "2")
      assert.deepStrictEqual(asked, [["\"customer\"* AND \"email\"*", 30], ["\"customer\"* OR \"email\"*", 30]])
      assert.deepStrictEqual(
        [result.q, result.returned, result.total, result.hits.map((h) => h.id)],
        ["customer email", 2, 6, ["pg/crm/customers", "pg/crm/customers/email"]]
      )
    }))
})
