#!/usr/bin/env node
/**
 * Entry point. Checks the runtime before anything else is loaded (the program needs node:sqlite),
 * loads `.env` from the working folder, then lazy-loads the program for the command.
 */
import * as fs from "node:fs"
import * as module from "node:module"
import * as path from "node:path"

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  const body = {
    error: {
      code: "NODE_VERSION_UNSUPPORTED",
      message: `This is Node.js ${process.versions.node}; local-data-catalog needs 22.18 or newer.`,
      fix:
        "Install Node.js 22.18 or newer (https://nodejs.org), or run it through `npx` / `npm run` in this repository, which uses the bundled node@22."
    }
  }
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(body, null, 2) + "\n")
  else process.stderr.write(`NODE_VERSION_UNSUPPORTED: ${body.error.message}\n  fix: ${body.error.fix}\n`)
  process.exit(1)
}

// node:sqlite prints an ExperimentalWarning on first use; it is noise for users and breaks nothing.
const emitWarning = process.emitWarning.bind(process)
process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
  const text = typeof warning === "string" ? warning : warning.message
  if (/SQLite is an experimental feature/i.test(text)) return
  return (emitWarning as (w: string | Error, ...r: Array<unknown>) => void)(warning, ...rest)
}) as typeof process.emitWarning

// Cache compiled code between runs: most of a cold start is compiling the bundle.
module.enableCompileCache?.()

const envFile = path.join(process.cwd(), ".env")
const envStat = fs.statSync(envFile, { throwIfNoEntry: false })
if (envStat !== undefined && !envStat.isFile()) {
  // A named pipe or a device would block the read forever: no input may hang the CLI.
  process.stderr.write(`warning: ${envFile} is not a regular file; it was not read.\n`)
} else if (envStat !== undefined && envStat.size > 1024 * 1024) {
  process.stderr.write(`warning: ${envFile} is larger than 1 MB; it was not read.\n`)
} else if (envStat !== undefined) {
  try {
    process.loadEnvFile(envFile) // never overrides variables already set
  } catch (e) {
    // Node's message names the file and the problem, never its content.
    process.stderr.write(`warning: could not read ${envFile}: ${e instanceof Error ? e.message : String(e)}\n`)
  }
}

const { run } = await import("./programs/cli/main.js")
run(process.argv)
