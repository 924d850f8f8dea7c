// The main job on the bundled sample sources (a SQLite shop/clinic database and an HR data-dictionary
// CSV): builds samples/build/shop.db from samples/shop.sql (schema only), puts the sample config at
// .catalog/catalog.yml (unless you already have a catalog.yml), and runs `catalog start`.
import { spawnSync } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { DatabaseSync } from "node:sqlite"
import { join, resolve } from "node:path"

const db = resolve("samples/build/shop.db")
mkdirSync("samples/build", { recursive: true })
rmSync(db, { force: true })
const conn = new DatabaseSync(db)
conn.exec(readFileSync("samples/shop.sql", "utf8"))
conn.close()

const dataDir = resolve(process.env.CATALOG_DATA ?? ".catalog")
const env = { ...process.env, SAMPLE_SHOP_DB: db }
if (!process.env.CATALOG_CONFIG && !existsSync("catalog.yml")) {
  mkdirSync(dataDir, { recursive: true })
  const target = join(dataDir, "catalog.yml")
  const text = readFileSync("samples/catalog.yml", "utf8").replace("path: hr-dictionary.csv", `path: ${resolve("samples/hr-dictionary.csv")}`)
  writeFileSync(target, text)
  env.CATALOG_CONFIG = target
  // So that later `npm run catalog -- start` finds the sample database too.
  const dotenv = existsSync(".env") ? readFileSync(".env", "utf8") : ""
  if (!/^SAMPLE_SHOP_DB=/m.test(dotenv)) appendFileSync(".env", `${dotenv === "" || dotenv.endsWith("\n") ? "" : "\n"}SAMPLE_SHOP_DB=${db}\n`)
}
const args = process.argv.slice(2)
const r = spawnSync(process.execPath, ["dist/bin.js", "start", ...args], { stdio: "inherit", env })
if (r.status === 0 && !args.includes("--json")) {
  console.log("\nTry: npm run catalog -- status · npm run catalog -- search email · npm run catalog -- show shop/main/patients")
}
process.exit(r.status ?? 1)
