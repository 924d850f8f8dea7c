import { it } from "vitest"
import type { RawDataset } from "../../src/domain/Metadata.js"
import { classifySource } from "../../src/classifier/engine.js"
const words = ["customer","order","product","email","first_name","last_name","amount","created_at","status","address","city","phone","notes","type","code","price","quantity","description","birth_date","user_id","account","balance","invoice","payment","shipment","tracking","region","country","title","label","value","score","rating","comment","session","token","ip_address","device","event","visit","diagnosis","patient","offence","sentence","salary","department","manager","supplier","category","sku"]
const rnd = (i: number) => (Math.imul(i + 1, 2654435761) >>> 0)
it("bench", () => {
  const datasets: RawDataset[] = []
  for (let t = 0; t < 10000; t++) {
    const cols = []
    for (let c = 0; c < 20; c++) {
      const r = rnd(t * 20 + c)
      // realistic mix: ~half shared names, ~half unique names
      const name = (r % 2 === 0) ? `${words[r % words.length]}_${words[(r >> 8) % words.length]}` : `${words[r % words.length]}_${words[(r >> 8) % words.length]}_${t}_${c}`
      cols.push({ name, type: ["integer","text","varchar(50)","timestamp","boolean","numeric(10,2)"][r % 6]!, nullable: true, position: c + 1, comment: c % 5 === 0 ? `The ${words[(r>>4) % words.length]} of the record` : null, isPrimaryKey: c === 0, references: c === 3 ? { schema: "s", table: `t_${(t + 1) % 10000}`, column: "id" } : null })
    }
    datasets.push({ schema: "s", name: `${words[t % words.length]}_${words[(t >> 3) % words.length]}_${t}`, kind: "table", comment: null, rowEstimate: null, rowEstimateSource: "none", columns: cols, dependsOn: [] })
  }
  for (let k = 0; k < 4; k++) {
    const t0 = performance.now()
    const out = classifySource(datasets)
    const t1 = performance.now()
    console.log(`run ${k}: ${out.length} tables, ${out.reduce((a, x) => a + x.length, 0)} columns in ${(t1 - t0).toFixed(0)} ms`)
  }
})
