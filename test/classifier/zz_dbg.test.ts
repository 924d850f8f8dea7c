import { it } from "vitest"
import * as fs from "node:fs"
import { classifySource, tokensOf } from "../../src/classifier/engine.js"
it("dbg", () => {
  for (const n of ["hubspot__contact_lists", "contact_list_data", "hubspot__tickets", "purchase_orders", "tax_ids", "customer_tax_ids", "contact_list_name"]) console.log(n, tokensOf(n))
  const want = (process.env.DBG ?? "").split(",")
  for (const f of ["dbt-hubspot", "mywind", "stripe"]) {
    const c = JSON.parse(fs.readFileSync(`/work/main/test/classifier/corpus/${f}.json`, "utf8"))
    const v = classifySource(c.datasets)
    c.datasets.forEach((ds: any, i: number) => {
      if (!want.includes(ds.name)) return
      ds.columns.forEach((col: any, j: number) => console.log(ds.name, col.name, col.type, JSON.stringify(v[i][j])))
    })
  }
})
