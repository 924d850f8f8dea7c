// Writes the table of held-out applications into test/classifier/README.md (between the markers), from
// each application's test/classifier/sources/<app>.md (repository, commit, licence, language) and its
// label file (counts). Run: npx node scripts/classifier/corpus-table.mjs
import { parse } from "csv-parse/sync"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")
const sourcesDir = join(root, "test/classifier/sources")
const labelsDir = join(root, "test/classifier/labels")
const readme = join(root, "test/classifier/README.md")

const field = (md, ...names) => {
  for (const name of names) {
    const m = new RegExp(`^\\|\\s*${name}[^|]*\\|\\s*(.+?)\\s*\\|\\s*$`, "mi").exec(md)
    if (m) return m[1]
  }
  return ""
}
const short = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

const rows = []
const total = { columns: 0, personal: 0, special: 0, criminal: 0, not: 0 }
for (const file of readdirSync(sourcesDir).filter((f) => f.endsWith(".md")).sort()) {
  const app = file.replace(/\.md$/, "")
  const labelsFile = join(labelsDir, `${app}.csv`)
  if (!existsSync(labelsFile)) continue
  const md = readFileSync(join(sourcesDir, file), "utf8")
  const labels = parse(readFileSync(labelsFile, "utf8"), { columns: true, skip_empty_lines: true, bom: true })
  const c = { personal: 0, special: 0, criminal: 0, not: 0 }
  for (const l of labels) c[l.label]++
  total.columns += labels.length
  for (const k of Object.keys(c)) total[k] += c[k]
  const repo =
    field(md, "Repository", "Repo").replace(/^https?:\/\/github\.com\//, "").replace(/[`<>]/g, "").split(/\s+/)[0]
  const commit = (/[0-9a-f]{40}/.exec(field(md, "Commit")) ?? /[0-9a-f]{12,40}/.exec(md) ?? [""])[0].slice(0, 12)
  const licence = short(field(md, "Licence", "License").replace(/\s*\(.*$/, ""), 28)
  const language = short(
    field(md, "Language of the names", "Names", "Language").replace(/\*\*/g, "").replace(/\s*\(.*$/, ""),
    22
  )
  rows.push(
    `| [\`${app}\`](sources/${file}) | ${repo} | \`${commit}\` | ${licence} | ${language} | ${labels.length} | ${c.personal} | ${c.special} | ${c.criminal} | ${c.not} |`
  )
}
const table = [
  "| application | repository | commit | licence | names | columns | personal | special | criminal | not |",
  "|---|---|---|---|---|---:|---:|---:|---:|---:|",
  ...rows,
  `| **total** | | | | | ${total.columns} | ${total.personal} | ${total.special} | ${total.criminal} | ${total.not} |`
].join("\n")
const begin = "<!-- held-out-apps:begin -->"
const end = "<!-- held-out-apps:end -->"
const text = readFileSync(readme, "utf8")
const i = text.indexOf(begin)
const j = text.indexOf(end)
if (i === -1 || j === -1) throw new Error(`markers ${begin} / ${end} missing in ${readme}`)
writeFileSync(readme, `${text.slice(0, i + begin.length)}\n${table}\n${text.slice(j)}`)
console.log(`${rows.length} applications, ${total.columns} columns`)
