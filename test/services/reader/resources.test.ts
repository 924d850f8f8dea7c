import { assert, describe, it } from "@effect/vitest"
import {
  boundBytes,
  classificationOf,
  coverageOf,
  highestClass,
  rowCountDisplay,
  tierOf,
  toChange,
  toColumn,
  toDataset,
  toDatasetSummary,
  toEdge,
  toRopaColumn,
  toRopaSource,
  toSourceState
} from "../../../src/services/reader/resources.js"
import type { SourceRow } from "../../../src/services/Store.js"
import { columnRow, datasetRow } from "./standIn.js"

describe("row counts and staleness", () => {
  it("shows the planner's estimate rounded, or says there is none", () => {
    assert.strictEqual(rowCountDisplay(1234567.6), "~1,234,568 rows (estimate)")
    assert.strictEqual(rowCountDisplay(0), "~0 rows (estimate)")
    assert.strictEqual(rowCountDisplay(null), "unknown (no planner estimate)")
  })

  it("fresh under 24 h, stale-warn under 7 days, stale-loud after, never without a scan", () => {
    const now = new Date("2026-01-10T00:00:00.000Z")
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString()
    assert.deepStrictEqual(
      [null, hoursAgo(0), hoursAgo(23.99), hoursAgo(24), hoursAgo(167.99), hoursAgo(168)].map((t) => tierOf(t, now)),
      ["never", "fresh", "fresh", "stale-warn", "stale-warn", "stale-loud"]
    )
  })

  it("the highest class present", () => {
    assert.strictEqual(highestClass({ personal: 1, special: 0, criminal: 1, not: 4 }), "criminal")
    assert.strictEqual(highestClass({ personal: 1, special: 2, criminal: 0, not: 4 }), "special")
    assert.strictEqual(highestClass({ personal: 3, special: 0, criminal: 0, not: 4 }), "personal")
    assert.strictEqual(highestClass({ personal: 0, special: 0, criminal: 0, not: 4 }), "not")
  })
})

describe("classification", () => {
  it("is the scan's verdict when nobody overrode it", () => {
    assert.deepStrictEqual(classificationOf(columnRow("pg/a/b", "email")), {
      value: "personal",
      rule: "name-token",
      confidence: 0.9,
      method: "name-token",
      category: "contact",
      overridden: false,
      machine: {
        value: "personal",
        rule: "name-token",
        confidence: 0.9,
        method: "name-token",
        category: "contact",
        evidence: ["name"]
      },
      drift: false
    })
  })

  it("is the human's value over it, with who, when and whether they disagree", () => {
    const c = classificationOf(
      columnRow("pg/a/b", "diagnosis", { o_value: "special", o_by: "ana@example.com", o_at: "2026-01-05T00:00:00Z" })
    )
    assert.deepStrictEqual(
      [c.value, c.rule, c.confidence, c.method, c.category, c.overridden, c.by, c.at, c.drift, c.machine.value],
      [
        "special",
        "human-override",
        1,
        "human",
        "special",
        true,
        "ana@example.com",
        "2026-01-05T00:00:00Z",
        true,
        "personal"
      ]
    )
    const same = classificationOf(columnRow("pg/a/b", "email", { o_value: "personal" }))
    assert.deepStrictEqual([same.category, same.drift, "by" in same, "at" in same], ["contact", false, false, false])
    assert.strictEqual(classificationOf(columnRow("pg/a/b", "email", { o_value: "not" })).category, null)
    assert.strictEqual(
      classificationOf(columnRow("pg/a/b", "x", { m_value: "not", o_value: "personal" })).category,
      "personal"
    )
    assert.strictEqual(classificationOf(columnRow("pg/a/b", "x", { o_value: "criminal" })).category, "criminal")
  })
})

describe("rows as resources", () => {
  it("a column", () => {
    const col = toColumn(columnRow("pg/a/b", "id", { is_pk: 1, nullable: 0, ref: "pg/a/c/id", position: 3 }))
    assert.deepStrictEqual(
      [col.id, col.name, col.position, col.type, col.nullable, col.primaryKey, col.references, col.comment],
      ["pg/a/b/id", "id", 3, "text", false, true, "pg/a/c/id", null]
    )
  })

  it("a dataset with its classes and its lineage split up and down", () => {
    const edge = (from: string, to: string) =>
      toEdge({
        id: `e_${from}_${to}`,
        from_id: from,
        to_id: to,
        origin: "user",
        created_at: "2026-01-01T00:00:00Z",
        by: null,
        from_known: 1,
        to_known: 0
      })
    const d = toDataset(
      datasetRow("pg/a/b"),
      [toColumn(columnRow("pg/a/b", "email")), toColumn(columnRow("pg/a/b", "id", { m_value: "not" }))],
      [edge("pg/a/up", "pg/a/b"), edge("pg/a/b", "pg/a/down")]
    )
    assert.deepStrictEqual(d.classes, { personal: 1, special: 0, criminal: 0, not: 1 })
    assert.deepStrictEqual(d.rowCount, { estimate: 1200, display: "~1,200 rows (estimate)", source: "planner" })
    assert.deepStrictEqual(d.lineage.upstream.map((e) => e.from), ["pg/a/up"])
    assert.deepStrictEqual(d.lineage.downstream.map((e) => e.to), ["pg/a/down"])
    assert.strictEqual(d.lineage.upstream[0]?.resolvable, false)
    assert.isFalse("by" in (d.lineage.upstream[0] ?? {}))
    assert.deepStrictEqual(Object.keys(d), [
      "id",
      "source",
      "schema",
      "name",
      "kind",
      "comment",
      "rowCount",
      "owners",
      "classes",
      "columns",
      "lineage",
      "firstSeenAt",
      "scannedAt"
    ])
  })

  it("a dataset summary counts the columns left over as not personal", () => {
    const s = toDatasetSummary({ ...datasetRow("pg/a/b"), columns: 10, personal: 2, special: 1, criminal: 0 })
    assert.deepStrictEqual([s.columnCount, s.classes, s.highest], [10, {
      personal: 2,
      special: 1,
      criminal: 0,
      not: 7
    }, "special"])
  })

  it("a change entry with its summary and its parsed detail", () => {
    assert.deepStrictEqual(
      toChange({
        seq: 7,
        at: "2026-01-01T00:00:00Z",
        scan_id: null,
        kind: "column.classified",
        entity: "pg/a/b/email",
        source_id: "pg",
        detail: "{\"from\":\"personal\",\"to\":\"not\"}",
        by: "ana@example.com"
      }),
      {
        seq: 7,
        at: "2026-01-01T00:00:00Z",
        kind: "column.classified",
        entity: "pg/a/b/email",
        source: "pg",
        summary: "ana@example.com set pg/a/b/email to not (was personal)",
        detail: { from: "personal", to: "not" },
        by: "ana@example.com",
        scanId: null
      }
    )
  })
})

describe("sources and coverage", () => {
  const row: SourceRow = {
    id: "pg",
    kind: "postgres",
    driver: "pg",
    label: "scanned label",
    region: null,
    user_authored: 0,
    status: "unreachable",
    error_code: "SOURCE_UNREACHABLE",
    error_message: "connect to postgres://app:hunter2@db:5432/app failed",
    server_version: null,
    last_attempt_at: "2026-01-09T00:00:00.000Z",
    last_ok_at: "2026-01-01T00:00:00.000Z",
    datasets: 4
  }
  const now = new Date("2026-01-10T00:00:00.000Z")

  it("catalog.yml's words over the scan's; the error message redacted", () => {
    const s = toSourceState("pg", row, { id: "pg", kind: "postgres", driver: "pg", label: "CRM" }, now)
    assert.deepStrictEqual(
      [s.label, s.region, s.reachable, s.status, s.error?.code, s.staleness, s.datasets],
      ["CRM", null, false, "unreachable", "SOURCE_UNREACHABLE", "stale-loud", 4]
    )
    assert.notInclude(s.error?.message ?? "", "hunter2")
    const never = toSourceState("new", undefined, undefined, now)
    assert.deepStrictEqual(
      [never.kind, never.driver, never.status, never.staleness, never.error, never.datasets],
      ["unknown", "unknown", "never", "never", null, 0]
    )
  })

  it("coverage says which sources were not reached and why", () => {
    const ok = toSourceState("lite", { ...row, id: "lite", status: "ok", error_code: null }, undefined, now)
    const down = toSourceState("pg", row, undefined, now)
    const fresh = toSourceState("csv", undefined, undefined, now)
    assert.deepStrictEqual(coverageOf([ok, down, fresh]), {
      complete: false,
      reached: ["lite"],
      missing: ["pg", "csv"],
      line: "1 of 3 sources reached; not reached: pg (SOURCE_UNREACHABLE), csv (never scanned)."
    })
    assert.isTrue(coverageOf([ok]).complete)
    assert.isFalse(coverageOf([]).complete)
  })
})

describe("RoPA inputs", () => {
  it("a personal-data column and a source as the draft reads them", () => {
    assert.deepStrictEqual(
      toRopaColumn({
        dataset_id: "pg/crm/users",
        source_id: "pg",
        schema_name: "crm",
        table_name: "users",
        kind: "table",
        name: "email",
        value: "personal",
        category: "contact",
        is_pk: 0,
        ref: null
      }),
      {
        datasetId: "pg/crm/users",
        source: "pg",
        schema: "crm",
        table: "users",
        kind: "table",
        column: "email",
        value: "personal",
        category: "contact",
        primaryKey: false,
        ref: null
      }
    )
    const scanned: SourceRow = {
      id: "pg",
      kind: "postgres",
      driver: "pg",
      label: "scanned",
      region: "eu-west-1",
      user_authored: 0,
      status: "ok",
      error_code: null,
      error_message: null,
      server_version: "16",
      last_attempt_at: "2026-01-01T00:00:00.000Z",
      last_ok_at: "2026-01-01T00:00:00.000Z",
      datasets: 1
    }
    assert.deepStrictEqual(toRopaSource(scanned, undefined), {
      id: "pg",
      kind: "postgres",
      label: "scanned",
      region: "eu-west-1",
      role: null
    })
    assert.deepStrictEqual(
      toRopaSource(scanned, { id: "pg", kind: "postgres", driver: "pg", label: "CRM", role: "processor" }),
      { id: "pg", kind: "postgres", label: "CRM", region: "eu-west-1", role: "processor" }
    )
  })
})

describe("boundBytes", () => {
  it("keeps the longest prefix that fits the budget (2 bytes of brackets, then each item and a separator)", () => {
    const items = ["aaaa", "bbbb", "cccc"]
    assert.deepStrictEqual(boundBytes(items, 23), items)
    assert.deepStrictEqual(boundBytes(items, 22), ["aaaa", "bbbb"])
    assert.deepStrictEqual(boundBytes(items, 16), ["aaaa", "bbbb"])
    assert.deepStrictEqual(boundBytes(items, 15), ["aaaa"])
    assert.deepStrictEqual(boundBytes(items, 9), ["aaaa"])
    assert.deepStrictEqual(boundBytes(items, 8), [])
    assert.strictEqual(boundBytes(Array.from({ length: 2_000 }, (_, i) => "x".repeat(100 + (i % 3)))).length, 961)
  })
})
