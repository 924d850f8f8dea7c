// Rewrites the hand-written src/classifier/data/*.json in the house layout (not model.json and calibration.json, which
// npm run classifier:train writes): objects one key per line, arrays of
// strings wrapped at 120 columns. `node scripts/classifier/format-data.mjs` after editing a data file.
import fs from "node:fs"
import path from "node:path"

const dir = path.resolve(import.meta.dirname, "../../src/classifier/data")
const WIDTH = 120

const fmt = (v, indent) => {
  const pad = " ".repeat(indent)
  const inner = " ".repeat(indent + 2)
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === "string")) {
      const one = JSON.stringify(v).replace(/","/g, "\", \"")
      if (pad.length + one.length <= WIDTH || v.length === 0) return one
      const lines = []
      let line = ""
      for (const s of v.map((x) => JSON.stringify(x))) {
        if (line !== "" && inner.length + line.length + s.length + 2 > WIDTH) {
          lines.push(line + ",")
          line = s
        } else line = line === "" ? s : `${line}, ${s}`
      }
      lines.push(line)
      return `[\n${lines.map((l) => inner + l).join("\n")}\n${pad}]`
    }
    const compact = JSON.stringify(v)
    if (compact.length + pad.length <= WIDTH && v.every((x) => typeof x !== "object" || Array.isArray(x))) {
      return compact.replace(/","/g, "\", \"").replace(/\],\[/g, "], [")
    }
    return `[\n${v.map((x) => inner + fmt(x, indent + 2)).join(",\n")}\n${pad}]`
  }
  if (v !== null && typeof v === "object") {
    const compact = JSON.stringify(v).replace(/","/g, "\", \"").replace(/":/g, "\": ").replace(/,"/g, ", \"")
    if (compact.length + pad.length <= WIDTH && indent > 0) return compact.replace(/^\{/, "{ ").replace(/\}$/, " }")
    return `{\n${
      Object.entries(v).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${fmt(x, indent + 2)}`).join(",\n")
    }\n${pad}}`
  }
  return JSON.stringify(v)
}

for (
  const f of fs.readdirSync(dir).filter((x) => x.endsWith(".json") && x !== "model.json" && x !== "calibration.json")
    .sort()
) {
  const p = path.join(dir, f)
  const data = JSON.parse(fs.readFileSync(p, "utf8"))
  const out = fmt(data, 0) + "\n"
  JSON.parse(out)
  fs.writeFileSync(p, out)
}
