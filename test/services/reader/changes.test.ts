import { assert, describe, it } from "@effect/vitest"
import { summarizeChange } from "../../../src/services/reader/changes.js"

const by = (kind: string, entity: string, who: string | null = "ana@example.com") => ({ kind, entity, by: who })

describe("summarizeChange", () => {
  const cases: ReadonlyArray<readonly [ReturnType<typeof by>, Record<string, unknown>, string]> = [
    [
      by("dataset.added", "pg/public/users", null),
      { kind: "table", columns: 12, personal: 3 },
      "new table pg/public/users (12 columns, 3 flagged)"
    ],
    [by("dataset.added", "pg/public/v", null), {}, "new dataset pg/public/v (? columns, 0 flagged)"],
    [by("dataset.dropped", "pg/public/old", null), {}, "dataset pg/public/old is gone"],
    [
      by("column.added", "pg/public/users/email", null),
      { type: "text", classification: "personal" },
      "new column pg/public/users/email text → personal"
    ],
    [by("column.dropped", "pg/public/users/fax", null), {}, "column pg/public/users/fax is gone"],
    [
      by("column.type_changed", "pg/public/users/age", null),
      { from: "int", to: "bigint" },
      "column pg/public/users/age type int → bigint"
    ],
    [
      by("column.reclassified", "pg/public/users/note", null),
      { from: "not", to: "personal", rule: "name-token" },
      "scan reclassified pg/public/users/note: not → personal (name-token)"
    ],
    [
      by("column.classified", "pg/public/users/email"),
      { from: "personal", to: "not" },
      "ana@example.com set pg/public/users/email to not (was personal)"
    ],
    [
      by("column.classification_cleared", "pg/public/users/email"),
      { to: "personal" },
      "ana@example.com cleared the override on pg/public/users/email; back to the scan's personal"
    ],
    [by("source.added", "pg", null), { kind: "postgres" }, "source pg (postgres) scanned for the first time"],
    [
      by("ropa.field_filled", "activity/crm/purpose"),
      { value: "Billing" },
      "ana@example.com filled activity/crm/purpose (draft, not confirmed): Billing"
    ],
    [
      by("ropa.field_confirmed", "activity/crm/purpose"),
      { value: "Billing" },
      "ana@example.com confirmed activity/crm/purpose: Billing"
    ],
    [
      by("lineage.added", "e_1"),
      { from: "pg/a/b", to: "pg/a/c" },
      "ana@example.com added lineage pg/a/b → pg/a/c"
    ],
    [
      by("lineage.removed", "e_1"),
      { from: "pg/a/b", to: "pg/a/c" },
      "ana@example.com removed lineage pg/a/b → pg/a/c"
    ],
    [by("glossary.set", "Customer"), {}, "ana@example.com set glossary term \"Customer\""],
    [by("description.drafted", "pg/public/users", null), {}, "description drafted for pg/public/users"],
    [by("dora.import", "B_01.01"), {}, "ana@example.com imported DORA table B_01.01"],
    [by("dora.set", "B_01.01/1/c0010"), {}, "ana@example.com set DORA cell B_01.01/1/c0010"],
    [by("catalog.imported", "team.json"), {}, "ana@example.com imported the team catalog file team.json"],
    [by("source.removed", "pg"), { datasets: 4 }, "source pg removed with its 4 datasets"],
    [by("source.removed", "pg"), {}, "source pg removed with its 0 datasets"],
    [by("something.new", "x/y", null), { a: 1 }, "something.new x/y"]
  ]
  for (const [row, detail, line] of cases) {
    it(`${row.kind}: ${line}`, () => {
      assert.strictEqual(summarizeChange(row, detail), line)
    })
  }

  it("names someone when a human act has no author", () => {
    for (
      const kind of [
        "column.classified",
        "column.classification_cleared",
        "ropa.field_filled",
        "ropa.field_confirmed",
        "lineage.added",
        "lineage.removed",
        "glossary.set",
        "dora.import",
        "dora.set",
        "catalog.imported"
      ]
    ) assert.match(summarizeChange(by(kind, "x", null), {}), /^someone /, kind)
  })
})
