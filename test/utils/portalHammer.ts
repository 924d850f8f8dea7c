/**
 * One "portal process" of the SQLite concurrency test: opens the store in the home given as argv[2]
 * (migrating it, possibly at the same time as its twin), prints `ready`, waits for a line on stdin holding
 * its `Workload` as JSON, runs it and prints the `WorkloadResult` as one JSON line. Run with vite-node.
 */
import { Effect } from "effect"
import * as readline from "node:readline"
import { portalStoreLayer } from "../../src/layers/portal/PortalSql.js"
import { PortalStore } from "../../src/services/PortalStore.js"
import { runWorkload, type Workload } from "./portalWorkload.js"

const home = process.argv[2]
if (home === undefined) throw new Error("usage: portalHammer.ts <home>")

const nextLine = Effect.async<string>((resume) => {
  const rl = readline.createInterface({ input: process.stdin })
  rl.once("line", (line) => {
    rl.close()
    resume(Effect.succeed(line))
  })
})

const program = Effect.gen(function*() {
  const store = yield* PortalStore
  process.stdout.write("ready\n")
  const workload = JSON.parse(yield* nextLine) as Workload
  const result = yield* runWorkload(store, workload)
  process.stdout.write(`${JSON.stringify(result)}\n`)
}).pipe(Effect.provide(portalStoreLayer({ databaseUrl: null, home })))

Effect.runPromise(program).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`)
    process.exit(1)
  }
)
