import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { RawDataset } from "../../../src/domain/Metadata.js"
import { loadSchemaCsv, ManualCsvConnector, parseSchemaCsv } from "../../../src/layers/connectors/ManualCsv.js"
import type { ConnectorInput } from "../../../src/services/Connectors.js"
import { fixturesDir } from "../../utils/databases.js"

const dictionaries = path.join(fixturesDir, "data-dictionary")

const input = (file: string, baseDir = dictionaries): ConnectorInput => ({
  source: { id: "dict", kind: "manual", driver: "csv", path: file },
  secret: null,
  baseDir
})

const col = (datasets: ReadonlyArray<RawDataset>, table: string, column: string) => {
  const c = datasets.find((d) => d.name === table)?.columns.find((x) => x.name === column)
  if (c === undefined) throw new Error(`${table}.${column} missing`)
  return c
}

const parsed = (text: string): ReadonlyArray<RawDataset> => {
  const result = parseSchemaCsv(text, "dict.csv")
  if (Either.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

describe("ManualCsvConnector", () => {
  it.live("imports the OMOP CDM 5.4 field-level dictionary: 39 tables, 432 columns", () =>
    Effect.gen(function*() {
      const raw = yield* ManualCsvConnector.scan(input("omop-cdm-5.4/OMOP_CDMv5.4_Field_Level.csv"))
      assert.strictEqual(raw.serverVersion, null)
      assert.strictEqual(raw.datasets.length, 39)
      assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 432)
      for (const d of raw.datasets) {
        assert.strictEqual(d.kind, "file")
        assert.strictEqual(d.schema, "main")
        assert.strictEqual(d.rowEstimate, null)
        assert.strictEqual(d.rowEstimateSource, "none")
      }
      const person = raw.datasets.find((d) => d.name === "person")!
      assert.strictEqual(person.columns[0]!.name, "person_id")
      assert.strictEqual(person.columns[0]!.position, 1)
      assert.strictEqual(person.columns[0]!.type, "integer")
      assert.isTrue(person.columns[0]!.isPrimaryKey)
      assert.isFalse(person.columns[0]!.nullable)
      assert.include(person.columns[0]!.comment ?? "", "every person with a different unique identifier")
      // fkTableName CONCEPT / fkFieldName CONCEPT_ID resolve to the dictionary's own spelling.
      assert.deepStrictEqual(col(raw.datasets, "person", "gender_concept_id").references, {
        schema: "main",
        table: "concept",
        column: "concept_id"
      })
      // `NA` is null, not the text "NA".
      const nullable = col(raw.datasets, "person", "month_of_birth")
      assert.isTrue(nullable.nullable)
      assert.isNull(nullable.references)
      assert.isFalse(raw.datasets.some((d) => d.columns.some((c) => c.comment === "NA" || c.type === "NA")))
    }))

  it.live("imports the Hakai JSP dictionary (UTF-8 BOM, PK/FK key column): 16 tables, 254 columns", () =>
    Effect.gen(function*() {
      const raw = yield* ManualCsvConnector.scan(input("hakai-jsp/data_dictionary.csv"))
      assert.strictEqual(raw.datasets.length, 16)
      assert.strictEqual(raw.datasets.reduce((n, d) => n + d.columns.length, 0), 254)
      assert.strictEqual(raw.datasets[0]!.name, "sites", "the BOM does not leak into the first header")
      const siteId = col(raw.datasets, "sites", "site_id")
      assert.isTrue(siteId.isPrimaryKey)
      assert.strictEqual(siteId.type, "text")
      assert.strictEqual(siteId.comment, "Unique alphanumeric ID assigned to each site")
      assert.strictEqual(
        col(raw.datasets, "sites", "region").comment,
        "General geographic zone. \"DI\" (Discovery Islands) or \"JS\" (Johnstone Strait)"
      )
      assert.deepStrictEqual(col(raw.datasets, "survey_data", "site_id").references, {
        schema: "main",
        table: "sites",
        column: "site_id"
      })
      // key "PK, FK" with references "fish_field_data".
      const ufn = col(raw.datasets, "fish_lab_data", "ufn")
      assert.isTrue(ufn.isPrimaryKey)
      assert.deepStrictEqual(ufn.references, { schema: "main", table: "fish_field_data", column: "ufn" })
      // "fish_field_data, fish_lab_data": the first parent.
      assert.deepStrictEqual(col(raw.datasets, "stock_id", "ufn").references, {
        schema: "main",
        table: "fish_field_data",
        column: "ufn"
      })
      assert.strictEqual(col(raw.datasets, "ysi", "quality_level").type, "")
      const probe = yield* ManualCsvConnector.probe(input("hakai-jsp/data_dictionary.csv"))
      assert.strictEqual(probe.target, path.join(dictionaries, "hakai-jsp/data_dictionary.csv"))
    }))

  it("a header without `column` fails with ADD_INPUT_INVALID naming it", () => {
    const result = parseSchemaCsv("table,field_kind,type\nusers,email,text\n", "bad.csv")
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.strictEqual(result.left.code, "ADD_INPUT_INVALID")
      assert.strictEqual(result.left._tag, "AddInputInvalid")
      assert.include(result.left.message, "\"column\"")
      assert.include(result.left.message, "bad.csv")
      assert.notInclude(result.left.message, "\"table\"")
    }
    const noTable = parseSchemaCsv("col,type\nemail,text\n", "t.csv")
    assert.isTrue(Either.isLeft(noTable) && noTable.left.message.includes("\"table\""))
  })

  it("quoted cells keep commas, quotes and newlines; schema column, aliases and NA", () => {
    const datasets = parsed([
      "Schema,Table Name,Column_Name,Data Type,Description,Nullable",
      "crm,users,id,bigint,\"Primary id, never reused\",NO",
      "crm,users,bio,text,\"Line one\nline \"\"two\"\"\",YES",
      "crm,users,note,NA,NA,",
      "sales,orders,user_id,bigint,,"
    ].join("\r\n"))
    assert.deepStrictEqual(datasets.map((d) => `${d.schema}.${d.name}`), ["crm.users", "sales.orders"])
    const users = datasets[0]!
    assert.strictEqual(users.columns[0]!.comment, "Primary id, never reused")
    assert.isFalse(users.columns[0]!.nullable)
    assert.strictEqual(users.columns[1]!.comment, "Line one\nline \"two\"")
    assert.isTrue(users.columns[1]!.nullable)
    assert.strictEqual(users.columns[2]!.type, "")
    assert.isNull(users.columns[2]!.comment)
    assert.deepStrictEqual(users.columns.map((c) => c.position), [1, 2, 3])
  })

  it("references spelled table.column or just the table (its primary key); a plain name header", () => {
    const datasets = parsed(
      "table,name,type,references,key\nusers,id,int,,PK\norders,owner,int,users.id,FK\norders,buyer,int,users,FK\n"
    )
    assert.isTrue(col(datasets, "users", "id").isPrimaryKey)
    assert.deepStrictEqual(col(datasets, "orders", "owner").references, {
      schema: "main",
      table: "users",
      column: "id"
    })
    assert.deepStrictEqual(col(datasets, "orders", "buyer").references, {
      schema: "main",
      table: "users",
      column: "id"
    })
  })

  it("empty files, missing cells, duplicates and broken quoting are ADD_INPUT_INVALID", () => {
    for (
      const text of [
        "",
        "table,column,type\n",
        "table,column,type\nusers,,text\n",
        "table,column,type\nusers,id,int\nusers,id,int\n",
        "table,column,type\nusers,\"id,int\n"
      ]
    ) {
      const result = parseSchemaCsv(text, "x.csv")
      assert.isTrue(Either.isLeft(result), JSON.stringify(text))
      if (Either.isLeft(result)) assert.strictEqual(result.left.code, "ADD_INPUT_INVALID")
    }
    const dup = parseSchemaCsv("table,column,type\nusers,id,int\nusers,id,int\n", "x.csv")
    assert.isTrue(Either.isLeft(dup) && dup.left.message.includes("line 3"))
  })

  it.live("a missing file is SOURCE_UNREACHABLE whose fix names the path; bad content too", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(ManualCsvConnector.scan(input("nope/missing.csv")))
      assert.strictEqual(error.code, "SOURCE_UNREACHABLE")
      assert.include(error.message, path.join(dictionaries, "nope/missing.csv"))
      assert.include(error.fix ?? "", "nope/missing.csv")
      const dir = mkdtempSync(path.join(tmpdir(), "ldc-csv-"))
      try {
        writeFileSync(path.join(dir, "bad.csv"), "table,type\nusers,int\n")
        const bad = yield* Effect.flip(ManualCsvConnector.scan(input("bad.csv", dir)))
        assert.strictEqual(bad.code, "SOURCE_UNREACHABLE")
        assert.include(bad.message, "\"column\"")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it("no error quotes the file: a .env, bad quoting or a duplicate row is described by line and count only", () => {
    const secret = "Pl4nted-Secr3t-Value"
    const cases = [
      `DATABASE_URL=postgres://app:${secret}@db.internal:5432/app\nOTHER=1\n`,
      `table,column,type\nusers,"${secret}"x,int\n`,
      `table,column,type\nusers,id${secret},int\nusers,"${secret},int\n`,
      `table,column,type\nusers,${secret},int\nusers,${secret},int\n`,
      `table,column,type\nusers,x${secret}"y,int\n`
    ]
    for (const text of cases) {
      const result = parseSchemaCsv(text, "dict.csv")
      assert.isTrue(Either.isLeft(result), text)
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left.code, "ADD_INPUT_INVALID")
        assert.notInclude(`${result.left.message} ${result.left.fix}`, secret)
        assert.match(result.left.message, /line \d/)
      }
    }
    const header = parseSchemaCsv(cases[0]!, "dict.csv")
    assert.isTrue(
      Either.isLeft(header) &&
        /header row \(line 1, 1 cell\) has no "table", "column", "type" columns/.test(header.left.message)
    )
  })

  it.live("a FIFO, a device or a folder is refused before it is opened, by the connector and by add's loader", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "ldc-csv-"))
      try {
        const fifo = path.join(dir, "dict.csv")
        execFileSync("mkfifo", [fifo])
        for (
          const [target, reason] of [[fifo, /named pipe \(FIFO\)/], ["/dev/zero", /character device/], [
            dir,
            /a folder/
          ]] as const
        ) {
          const t0 = performance.now()
          const scan = yield* Effect.flip(ManualCsvConnector.scan(input(target, dir)))
          const probe = yield* Effect.flip(ManualCsvConnector.probe(input(target, dir)))
          const add = yield* Effect.flip(loadSchemaCsv(target, "--from"))
          assert.isBelow(performance.now() - t0, 2000)
          for (const e of [scan, probe]) {
            assert.strictEqual(e.code, "SOURCE_UNREACHABLE")
            assert.match(e.message, reason)
            assert.include(e.message, "not a regular file")
          }
          assert.strictEqual(add.code, "ADD_INPUT_INVALID")
          assert.strictEqual(add.param, "from")
          assert.match(add.message, reason)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})
