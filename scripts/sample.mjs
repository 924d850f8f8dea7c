// The bundled sample, in a workspace of its own: samples/workspace/ (gitignored) holds the sample's
// catalog.yml, its .env (SAMPLE_SHOP_DB) and its .catalog/, and every command runs with that folder as
// its working folder. The repository's own catalog.yml, .env and .catalog/ stay the user's: the sample
// never reads or writes them, so `catalog add postgres …` in the project never joins the sample's
// invented controller, and the sample never sees the user's databases.
//
//   npm run sample                       build the sample database and scan it (`catalog start`)
//   npm run sample -- --json             the same, as JSON
//   npm run sample -- <command> [args]   any other catalog command against the sample, e.g.
//                                        npm run sample -- status · npm run sample -- search email
//
// SAMPLE_WORKSPACE moves the workspace (tests use a temporary folder).
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { join, relative, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"

const repo = resolve(import.meta.dirname, "..")
const samples = join(repo, "samples")
const workspace = resolve(process.env.SAMPLE_WORKSPACE || join(samples, "workspace"))
const config = join(workspace, "catalog.yml")
const dataDir = join(workspace, ".catalog")

/** Writes a file the way the catalog does: private (0600), replaced in one rename. */
const writePrivate = (file, text) => {
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, text, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
}

mkdirSync(workspace, { recursive: true, mode: 0o700 })

// The sample database: schema only (no rows), rebuilt from samples/shop.sql each time and renamed in.
const db = join(workspace, "shop.db")
const dbTmp = `${db}.${process.pid}.tmp`
rmSync(dbTmp, { force: true })
const conn = new DatabaseSync(dbTmp)
conn.exec(readFileSync(join(samples, "shop.sql"), "utf8"))
conn.close()
renameSync(dbTmp, db)

// The sample's configuration and dictionary, written once: later edits in the workspace are kept.
if (!existsSync(config)) {
  copyFileSync(join(samples, "hr-dictionary.csv"), join(workspace, "hr-dictionary.csv"))
  writePrivate(config, readFileSync(join(samples, "catalog.yml"), "utf8"))
}
const dotenv = join(workspace, ".env")
const envText = existsSync(dotenv) ? readFileSync(dotenv, "utf8") : ""
if (!/^SAMPLE_SHOP_DB=/m.test(envText)) {
  // Relative to the workspace (the SQLite connector resolves it against catalog.yml's folder).
  writePrivate(dotenv, `${envText}${envText === "" || envText.endsWith("\n") ? "" : "\n"}SAMPLE_SHOP_DB=shop.db\n`)
}

// An earlier version of this script put the sample's configuration into the repository's .catalog/.
const legacy = join(repo, ".catalog", "catalog.yml")
if (
  workspace === join(samples, "workspace") && existsSync(legacy) &&
  /connectionRef:\s*SAMPLE_SHOP_DB/.test(readFileSync(legacy, "utf8"))
) {
  process.stderr.write(
    `note: ${
      relative(process.cwd(), legacy) || legacy
    } is the sample's configuration, written there by an earlier \`npm run sample\`; ` +
      `the sample now lives in ${
        relative(process.cwd(), workspace)
      }/. Delete .catalog/ (and SAMPLE_SHOP_DB in .env) if you do not need it.\n`
  )
}

// The sample's own files, whatever the caller's environment says: an inherited CATALOG_CONFIG or
// CATALOG_DATA must not point the sample at the user's catalog.
const env = { ...process.env, CATALOG_CONFIG: config, CATALOG_DATA: dataDir }
delete env.SAMPLE_SHOP_DB // taken from the workspace's .env

const args = process.argv.slice(2)
const argv = args.length === 0 || args[0].startsWith("-") ? ["start", ...args] : args
const bin = join(repo, "dist", "bin.js")
if (!existsSync(bin)) {
  process.stderr.write(`${bin} is missing: run \`npm run build\` first (npm run sample does it for you).\n`)
  process.exit(1)
}
const r = spawnSync(process.execPath, [bin, ...argv], { stdio: "inherit", env, cwd: workspace })
if (r.status === 0 && argv[0] === "start" && !argv.includes("--json")) {
  const rel = relative(repo, workspace) || "."
  console.log(
    `\nThe sample lives in ${
      rel.startsWith("..") ? workspace : rel
    }/ (its own catalog.yml, .env and .catalog/); your project's catalog.yml is untouched.`
  )
  console.log(
    "Try: npm run sample -- status · npm run sample -- search email · npm run sample -- show shop/main/patients · npm run sample -- log --since 0"
  )
}
process.exit(r.status ?? 1)
