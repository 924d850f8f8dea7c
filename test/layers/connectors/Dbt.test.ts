/**
 * The dbt connector against the real manifests in test/fixtures/dbt (v10–v12; duckdb, BigQuery,
 * postgres) and a small hand-written manifest for what the fixtures lack (snapshots, analyses,
 * disabled nodes, chains of ephemeral models, relation-name fallbacks).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import {
  DbtConnector,
  type DbtManifest,
  loadDbtManifest,
  parseDbtManifest,
  readDbtManifest,
  splitRelation
} from "../../../src/layers/connectors/Dbt.js"
import type { ConnectorInput } from "../../../src/services/Connectors.js"
import { fixturesDir } from "../../utils/databases.js"

const dbtDir = path.join(fixturesDir, "dbt")
const read = (dir: string, target = "wh"): DbtManifest => {
  const r = readDbtManifest(readFileSync(path.join(dbtDir, dir, "manifest.json"), "utf8"), target)
  if (Either.isLeft(r)) throw new Error(r.left)
  return r.right
}
const has = (m: DbtManifest, from: string, to: string) => m.edges.some((e) => e.from === from && e.to === to)

describe("parseDbtManifest on the real fixtures", () => {
  it("jaffle-shop duckdb (v12): models in main, seeds and sources over one relation in raw, 17 edges", () => {
    const m = read("jaffle-shop-duckdb-1.11")
    assert.strictEqual(m.schemaVersion, 12)
    assert.strictEqual(m.dbtVersion, "1.11.7")
    assert.strictEqual(m.adapter, "duckdb")
    // 13 models + 7 seeds + 6 sources; the 6 sources reach the same relations as 6 of the seeds.
    assert.strictEqual(m.relations.length, 26)
    assert.strictEqual(m.datasets.length, 20)
    assert.strictEqual(m.edges.length, 17)
    assert.strictEqual(m.skipped.tests, 27)
    assert.isTrue(has(m, "wh/raw/raw_customers", "wh/main/stg_customers"))
    assert.isTrue(has(m, "wh/main/stg_orders", "wh/main/orders"))
    assert.isTrue(has(m, "wh/main/order_items", "wh/main/orders"))
    assert.isTrue(has(m, "wh/main/orders", "wh/main/customers"))
    // raw_items is a source name and identifier; its seed has the same relation: one dataset id.
    assert.strictEqual(
      m.relations.filter((r) => r.datasetId === "wh/raw/raw_items").map((r) => r.resourceType).sort().join(","),
      "seed,source"
    )
    // No duplicate edge, no self-edge.
    assert.strictEqual(new Set(m.edges.map((e) => `${e.from}>${e.to}`)).size, m.edges.length)
    for (const e of m.edges) assert.notStrictEqual(e.from, e.to)
  })

  it("jaffle_shop BigQuery 1.6 (v10): seeds → stg_* → customers/orders, 8 edges, backtick relations ignored for ids", () => {
    const m = read("jaffle_shop-bigquery-1.6-v10", "bq")
    assert.strictEqual(m.schemaVersion, 10)
    assert.strictEqual(m.adapter, "bigquery")
    assert.strictEqual(m.relations.length, 9)
    assert.strictEqual(m.edges.length, 8)
    assert.isTrue(has(m, "bq/jaffle_shop/raw_payments", "bq/jaffle_shop/stg_payments"))
    assert.isTrue(has(m, "bq/jaffle_shop/stg_payments", "bq/jaffle_shop/customers"))
    assert.isTrue(m.datasets.every((d) => d.startsWith("bq/jaffle_shop/") && !d.includes("`")))
  })

  it("jaffle_shop classic BigQuery 1.9 (v12): 36 models + 3 seeds, operations skipped, incremental daily_orders reads orders", () => {
    const m = read("jaffle_shop-classic-bigquery-1.9")
    assert.strictEqual(m.schemaVersion, 12)
    assert.strictEqual(m.relations.length, 39)
    assert.strictEqual(m.edges.length, 39)
    assert.strictEqual(m.skipped.operations, 2)
    assert.strictEqual(m.skipped.tests, 20)
    assert.isTrue(has(m, "wh/jaffle_shop/orders", "wh/jaffle_shop/daily_orders"))
    assert.isTrue(has(m, "wh/jaffle_shop/raw_orders", "wh/jaffle_shop/stg_orders"))
  })

  it("fivetran hubspot postgres (v12): source identifiers, ephemeral models followed through, 223 edges", () => {
    const m = read("fivetran-hubspot-postgres-1.11", "pg")
    assert.strictEqual(m.schemaVersion, 12)
    assert.strictEqual(m.adapter, "postgres")
    // 150 relation models (154 − 4 ephemeral) + 56 seeds + 61 sources; the seeds reach source relations.
    assert.strictEqual(m.relations.length, 267)
    assert.strictEqual(m.datasets.length, 211)
    assert.strictEqual(m.skipped.ephemeral, 4)
    assert.strictEqual(m.skipped.tests, 73)
    // 227 model→parent edges − 6 out of ephemeral models − 4 into them + 6 passed through.
    assert.strictEqual(m.edges.length, 223)
    // A source named `company` whose table is `company_data`.
    const company = m.relations.find((r) => r.uniqueId === "source.hubspot.hubspot.company")!
    assert.strictEqual(company.datasetId, "pg/public/company_data")
    assert.isTrue(m.edges.some((e) => e.from === "pg/public/company_data"))
    assert.isFalse(m.datasets.includes("pg/public/company"))
    // Ephemeral models never appear as endpoints …
    for (
      const id of [
        "int_hubspot__email_event_aggregates",
        "int_hubspot__email_aggregate_status_change",
        "int_hubspot__form_metrics__by_contact",
        "int_hubspot__engagement_metrics__by_contact"
      ]
    ) {
      assert.isFalse(m.edges.some((e) => e.from.endsWith(`/${id}`) || e.to.endsWith(`/${id}`)), id)
    }
    // … but lineage through them is kept: stg_hubspot__email_event → (ephemeral) → hubspot__email_sends.
    assert.isTrue(has(m, "pg/public_hubspot/stg_hubspot__email_event", "pg/public_hubspot/hubspot__email_sends"))
    assert.isTrue(
      has(m, "pg/public_hubspot/hubspot__email_event_status_change", "pg/public_hubspot/hubspot__email_sends")
    )
    assert.isTrue(has(m, "pg/public_hubspot/stg_hubspot__form", "pg/public_hubspot/hubspot__contacts"))
    assert.isTrue(has(m, "pg/public_hubspot/hubspot__engagements", "pg/public_hubspot/hubspot__contacts"))
  })

  it("each fixture parses in well under a second", () => {
    for (
      const dir of [
        "fivetran-hubspot-postgres-1.11",
        "jaffle-shop-duckdb-1.11",
        "jaffle_shop-bigquery-1.6-v10",
        "jaffle_shop-classic-bigquery-1.9"
      ]
    ) {
      const t0 = performance.now()
      read(dir)
      assert.isBelow(performance.now() - t0, 1500, dir)
    }
  })
})

const synthetic = {
  metadata: {
    dbt_schema_version: "https://schemas.getdbt.com/dbt/manifest/v11.json",
    dbt_version: "1.8.0",
    adapter_type: "snowflake"
  },
  nodes: {
    "model.p.a": {
      unique_id: "model.p.a",
      resource_type: "model",
      schema: "ANALYTICS",
      name: "a",
      alias: "A_TABLE",
      config: { materialized: "table" },
      relation_name: "DB.ANALYTICS.A_TABLE",
      depends_on: { nodes: ["model.p.e2"] }
    },
    "model.p.e1": {
      unique_id: "model.p.e1",
      resource_type: "model",
      schema: "ANALYTICS",
      name: "e1",
      config: { materialized: "ephemeral" },
      relation_name: null,
      depends_on: { nodes: ["source.p.crm.people", "snapshot.p.snap"] }
    },
    "model.p.e2": {
      unique_id: "model.p.e2",
      resource_type: "model",
      schema: "ANALYTICS",
      name: "e2",
      config: { materialized: "ephemeral" },
      relation_name: null,
      depends_on: { nodes: ["model.p.e1", "model.p.e3"] }
    },
    "model.p.e3": {
      unique_id: "model.p.e3",
      resource_type: "model",
      schema: "ANALYTICS",
      name: "e3",
      config: { materialized: "ephemeral" },
      depends_on: { nodes: ["model.p.e2"] }
    },
    "snapshot.p.snap": {
      unique_id: "snapshot.p.snap",
      resource_type: "snapshot",
      schema: "SNAPSHOTS",
      name: "snap",
      alias: "snap",
      config: { materialized: "snapshot" },
      depends_on: { nodes: ["source.p.crm.people"] }
    },
    "model.p.from_relation": {
      unique_id: "model.p.from_relation",
      resource_type: "model",
      name: "ignored",
      config: { materialized: "view" },
      relation_name: "`proj`.`mart`.`tbl`",
      depends_on: { nodes: ["model.p.a", "model.p.missing"] }
    },
    "model.p.off": {
      unique_id: "model.p.off",
      resource_type: "model",
      schema: "ANALYTICS",
      name: "off",
      config: { enabled: false, materialized: "table" },
      depends_on: { nodes: ["model.p.a"] }
    },
    "analysis.p.x": {
      unique_id: "analysis.p.x",
      resource_type: "analysis",
      schema: "ANALYTICS",
      name: "x",
      config: {},
      depends_on: { nodes: ["model.p.a"] }
    },
    "operation.p.on-run-end": {
      unique_id: "operation.p.on-run-end",
      resource_type: "operation",
      config: {},
      depends_on: { nodes: [] }
    },
    "test.p.not_null": {
      unique_id: "test.p.not_null",
      resource_type: "test",
      config: {},
      depends_on: { nodes: ["model.p.a"] }
    }
  },
  sources: {
    "source.p.crm.people": {
      unique_id: "source.p.crm.people",
      resource_type: "source",
      schema: "RAW",
      name: "people",
      identifier: "PEOPLE_V2",
      relation_name: "DB.RAW.PEOPLE_V2"
    }
  }
}

describe("parseDbtManifest on a hand-written manifest", () => {
  it("follows chains (and cycles) of ephemeral models, maps snapshots, falls back to relation_name, skips what is not a relation", () => {
    const r = parseDbtManifest(synthetic, "snow")
    assert.isTrue(Either.isRight(r))
    const m = Either.getOrThrow(r)
    assert.strictEqual(m.schemaVersion, 11)
    assert.deepStrictEqual(m.datasets, [
      "snow/ANALYTICS/A_TABLE",
      "snow/RAW/PEOPLE_V2",
      "snow/SNAPSHOTS/snap",
      "snow/mart/tbl"
    ])
    assert.deepStrictEqual(
      m.edges.map((e) => `${e.from} > ${e.to}`).sort(),
      [
        "snow/ANALYTICS/A_TABLE > snow/mart/tbl",
        "snow/RAW/PEOPLE_V2 > snow/ANALYTICS/A_TABLE",
        "snow/RAW/PEOPLE_V2 > snow/SNAPSHOTS/snap",
        "snow/SNAPSHOTS/snap > snow/ANALYTICS/A_TABLE"
      ]
    )
    assert.deepStrictEqual(m.skipped, { tests: 1, operations: 1, analyses: 1, ephemeral: 3, disabled: 1, other: 0 })
  })

  it("refuses what is not a dbt manifest, saying why", () => {
    const reason = (v: unknown) =>
      Either.match(parseDbtManifest(v, "wh"), { onLeft: (l) => l, onRight: () => "parsed" })
    assert.match(reason([]), /not a JSON object/)
    assert.match(reason({ nodes: {} }), /no metadata\.dbt_schema_version/)
    assert.match(
      reason({ metadata: { dbt_schema_version: "https://schemas.getdbt.com/dbt/catalog/v1.json" }, nodes: {} }),
      /dbt catalog artifact.*not the manifest/
    )
    assert.match(
      reason({ metadata: { dbt_schema_version: "https://schemas.getdbt.com/dbt/manifest/v12.json" } }),
      /no "nodes"/
    )
    const node = {
      "model.p.a": { unique_id: "model.p.a", resource_type: "model", schema: "s", name: "a", depends_on: { nodes: [] } }
    }
    const manifest = (v: string, nodes: unknown) => ({
      metadata: { dbt_schema_version: `https://schemas.getdbt.com/dbt/manifest/${v}.json` },
      nodes
    })
    // Only v10–v12 are read; the message names the version found and what is supported.
    assert.match(reason(manifest("v1", node)), /manifest v1; supported are manifest v10–v12/)
    assert.match(reason(manifest("v99", node)), /manifest v99; supported are manifest v10–v12/)
    assert.match(reason(manifest("v9", node)), /manifest v9;/)
    for (const v of ["v10", "v11", "v12"]) assert.strictEqual(reason(manifest(v, node)), "parsed")
    assert.match(reason(manifest("v12", {})), /holds no nodes/)
    assert.match(
      Either.match(readDbtManifest("{oops", "wh"), { onLeft: (l) => l, onRight: () => "parsed" }),
      /not valid JSON/
    )
    const catalogJson = readFileSync(path.join(dbtDir, "jaffle-shop-duckdb-1.11", "catalog.json"), "utf8")
    assert.match(
      Either.match(readDbtManifest(catalogJson, "wh"), { onLeft: (l) => l, onRight: () => "parsed" }),
      /catalog artifact/
    )
  })

  it("splitRelation handles duckdb/postgres double quotes, BigQuery backticks and bare names", () => {
    assert.deepStrictEqual(splitRelation("\"jaffle_shop\".\"main\".\"stg_orders\""), [
      "jaffle_shop",
      "main",
      "stg_orders"
    ])
    assert.deepStrictEqual(splitRelation("`your-project`.`jaffle_shop`.`customers`"), [
      "your-project",
      "jaffle_shop",
      "customers"
    ])
    assert.deepStrictEqual(splitRelation("db.schema.t"), ["db", "schema", "t"])
    assert.deepStrictEqual(splitRelation("\"we\"\"ird\".\"a.b\""), ["we\"ird", "a.b"])
  })
})

describe("DbtConnector", () => {
  const input = (source: Partial<ConnectorInput["source"]>, baseDir = dbtDir): ConnectorInput => ({
    source: { id: "dbt", kind: "dbt", driver: "dbt-manifest", ...source },
    secret: null,
    baseDir
  })

  it.effect("scans a manifest (path relative to the config folder) into edges and no datasets", () =>
    Effect.gen(function*() {
      assert.isFalse(DbtConnector.needsSecret)
      const r = yield* DbtConnector.scan(input({ path: "jaffle-shop-duckdb-1.11/manifest.json", target: "wh" }))
      assert.deepStrictEqual(r.datasets, [])
      assert.strictEqual(r.edges?.length, 17)
      assert.strictEqual(r.serverVersion, "dbt 1.11.7 manifest v12 (duckdb)")
      const p = yield* DbtConnector.probe(input({ path: "jaffle-shop-duckdb-1.11/manifest.json", target: "wh" }))
      assert.include(p.target, "→ wh")
    }))

  it.effect("a missing file, a missing target or a non-manifest is SOURCE_UNREACHABLE with a fix", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(DbtConnector.scan(input({ path: "nope/manifest.json", target: "wh" })))
      assert.strictEqual(missing.code, "SOURCE_UNREACHABLE")
      assert.include(missing.message, "does not exist")
      assert.include(missing.fix ?? "", "dbt compile")
      const noTarget = yield* Effect.flip(DbtConnector.scan(input({ path: "jaffle-shop-duckdb-1.11/manifest.json" })))
      assert.include(noTarget.message, "names no target")
      const noPath = yield* Effect.flip(DbtConnector.scan(input({ target: "wh" })))
      assert.include(noPath.message, "names no manifest")
      const dir = mkdtempSync(path.join(tmpdir(), "ldc-dbt-"))
      try {
        writeFileSync(path.join(dir, "manifest.json"), "{\"metadata\":{}}")
        const bad = yield* Effect.flip(DbtConnector.scan(input({ path: "manifest.json", target: "wh" }, dir)))
        assert.include(bad.message, "not a dbt manifest")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.live("refuses v1, v99 and an empty manifest with a coded error naming the cause (scan and add's loader)", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "ldc-dbt-"))
      try {
        const node = {
          "model.p.a": {
            unique_id: "model.p.a",
            resource_type: "model",
            schema: "s",
            name: "a",
            depends_on: { nodes: [] }
          }
        }
        const write = (name: string, v: string, nodes: unknown) =>
          writeFileSync(
            path.join(dir, name),
            JSON.stringify({
              metadata: { dbt_schema_version: `https://schemas.getdbt.com/dbt/manifest/${v}.json` },
              nodes
            })
          )
        write("v1.json", "v1", node)
        write("v99.json", "v99", node)
        write("empty.json", "v12", {})
        for (
          const [file, expected] of [["v1.json", /manifest v1; supported are manifest v10–v12/], [
            "v99.json",
            /manifest v99; supported/
          ], ["empty.json", /no nodes/]] as const
        ) {
          const scan = yield* Effect.flip(DbtConnector.scan(input({ path: file, target: "wh" }, dir)))
          assert.strictEqual(scan.code, "SOURCE_UNREACHABLE")
          assert.match(scan.message, expected)
          const add = yield* Effect.flip(loadDbtManifest(path.join(dir, file), "wh", file))
          assert.strictEqual(add.code, "ADD_INPUT_INVALID")
          assert.strictEqual(add.param, "from")
          assert.match(add.message, expected)
          assert.include(add.fix ?? "", "v10–v12")
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.live("an .env passed as a manifest is refused without quoting it; a FIFO or device is refused before it is opened", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "ldc-dbt-"))
      const secret = "Pl4nted-Secr3t-Value"
      try {
        writeFileSync(path.join(dir, ".env"), `DATABASE_URL=postgres://app:${secret}@db.internal:5432/app\n`)
        writeFileSync(
          path.join(dir, "broken.json"),
          `{"metadata": {"dbt_schema_version": "${secret}"}, "nodes": {"x": ${secret}}}`
        )
        writeFileSync(
          path.join(dir, "odd.json"),
          `{"metadata": {"dbt_schema_version": "https://${secret}@x/dbt/manifest/v12.json"}}`
        )
        for (const file of [".env", "broken.json", "odd.json"]) {
          const e = yield* Effect.flip(DbtConnector.scan(input({ path: file, target: "wh" }, dir)))
          assert.strictEqual(e.code, "SOURCE_UNREACHABLE")
          assert.notInclude(`${e.message} ${e.fix}`, secret)
          const add = yield* Effect.flip(loadDbtManifest(path.join(dir, file), "wh", file))
          assert.notInclude(`${add.message} ${add.fix}`, secret)
        }
        const env = yield* Effect.flip(DbtConnector.scan(input({ path: ".env", target: "wh" }, dir)))
        assert.match(env.message, /not valid JSON \(line 1: the file does not start with "\{"\)/)
        const fifo = path.join(dir, "manifest.json")
        execFileSync("mkfifo", [fifo])
        for (const [target, reason] of [[fifo, /named pipe \(FIFO\)/], ["/dev/zero", /character device/]] as const) {
          const t0 = performance.now()
          const e = yield* Effect.flip(DbtConnector.probe(input({ path: target, target: "wh" }, dir)))
          const add = yield* Effect.flip(loadDbtManifest(target, "wh", "--from"))
          assert.isBelow(performance.now() - t0, 2000)
          assert.strictEqual(e.code, "SOURCE_UNREACHABLE")
          assert.match(e.message, reason)
          assert.strictEqual(add.code, "ADD_INPUT_INVALID")
          assert.match(add.message, reason)
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})
