/**
 * Two portal processes on one database never lose or duplicate an upload, a claim state change or a
 * rate-limit count. PostgreSQL: two separate connection pools (two `portalStoreLayer`s, as two processes
 * behind a load balancer would hold), built at once on a fresh database (so their migrations race too).
 * SQLite: two child processes on one file (one connection each, as two portal processes on one host),
 * started at once on a fresh file; they must wait for each other's write lock, never fail with SQLITE_BUSY.
 *
 * Each share of the workload (test/utils/portalWorkload.ts) ingests one record 20 times, counts 100
 * uploads of one address in one window, opens one unbound claim 10 times, checks one claim's right code
 * 10 times and another's with wrong codes 10 times — all at once, in both processes at once.
 */
import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as readline from "node:readline"
import {
  portalMigrations,
  portalSqlClient,
  portalStoreLayer,
  portalStoreOnClient
} from "../../../src/layers/portal/PortalSql.js"
import { maxCodeAttempts } from "../../../src/layers/portal/store.js"
import { PortalStore } from "../../../src/services/PortalStore.js"
import { makePgDatabase } from "../../utils/databases.js"
import { runWorkload, type Workload, type WorkloadResult } from "../../utils/portalWorkload.js"

const now = "2026-09-01T10:00:00.000Z"

/** One share of the workload; `worker` tells the two apart. */
const share = (worker: string): Workload => ({
  worker,
  record: "rec_shared",
  ingests: 20,
  address: "203.0.113.7",
  window: "2026-09-01T10:00:00.000Z",
  counts: 100,
  unboundClaim: "cl_unbound",
  opens: 10,
  codeClaim: "cl_code",
  rightChecks: 10,
  wrongClaim: "cl_wrong",
  wrongChecks: 10,
  now
})

/** The three claims the workload works on, with their codes. */
const prepare = Effect.gen(function*() {
  const store = yield* PortalStore
  const claim = (id: string, unbound: boolean) => {
    const body = JSON.stringify({ id })
    return store.ingest({
      claimId: id,
      tokenHash: `tok_${id}`,
      recordKeyHash: `rec_${id}`,
      recipient: unbound ? null : "dpo@acme.example",
      unbound,
      body,
      bytes: body.length,
      sha256: `sha_${id}`,
      at: now
    })
  }
  yield* claim("cl_unbound", true)
  yield* claim("cl_code", false)
  yield* claim("cl_wrong", false)
  yield* store.saveCode("cl_code", "right", "2099-01-01T00:00:00.000Z")
  yield* store.saveCode("cl_wrong", "right", "2099-01-01T00:00:00.000Z")
})

const tally = <A extends string | boolean>(values: ReadonlyArray<A>): Map<A, number> => {
  const m = new Map<A, number>()
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1)
  return m
}

/** What the two shares returned, and what the database holds afterwards, against the contract. */
const verify = (results: ReadonlyArray<WorkloadResult>, workloads: ReadonlyArray<Workload>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const w = workloads[0]!
    const ingests = workloads.reduce((n, x) => n + x.ingests, 0)
    const counts = workloads.reduce((n, x) => n + x.counts, 0)
    const opens = workloads.reduce((n, x) => n + x.opens, 0)
    const rightChecks = workloads.reduce((n, x) => n + x.rightChecks, 0)
    const wrongChecks = workloads.reduce((n, x) => n + x.wrongChecks, 0)

    // Ingest: every upload stored once, one live claim, a single chain of successors.
    const returned = results.flatMap((r) => r.claims)
    assert.strictEqual(returned.length, ingests)
    const ids = new Set(returned.map((c) => c.id))
    assert.strictEqual(ids.size, ingests)
    const supersedes = returned.map((c) => c.supersedes)
    assert.strictEqual(supersedes.filter((s) => s === null).length, 1, "exactly one ingest found nothing live")
    const superseded = supersedes.filter((s): s is string => s !== null)
    assert.strictEqual(new Set(superseded).size, ingests - 1, "no claim superseded twice")
    for (const s of superseded) assert.isTrue(ids.has(s))

    const rows = yield* sql<{ id: string; state: string; successor_id: string | null }>`SELECT id, state, successor_id
      FROM claims WHERE record_key_hash = ${w.record}`
    assert.strictEqual(rows.length, ingests)
    assert.deepStrictEqual(new Set(rows.map((r) => r.id)), ids)
    const states = tally(rows.map((r) => r.state))
    assert.strictEqual(states.get("live"), 1)
    assert.strictEqual(states.get("superseded"), ingests - 1)
    const successors = rows.flatMap((r) => (r.successor_id === null ? [] : [r.successor_id]))
    assert.strictEqual(successors.length, ingests - 1)
    assert.strictEqual(new Set(successors).size, ingests - 1, "each claim is the successor of at most one")
    for (const s of successors) assert.isTrue(ids.has(s), `successor ${s} exists`)
    // Following successors from the one claim nobody points at visits every claim and ends at the live one.
    const byId = new Map(rows.map((r) => [r.id, r]))
    let at = rows.find((r) => !successors.includes(r.id))
    let steps = 0
    while (at !== undefined && at.successor_id !== null) {
      at = byId.get(at.successor_id)
      steps++
    }
    assert.strictEqual(steps, ingests - 1)
    assert.strictEqual(at?.state, "live")
    // One snapshot is kept, the live claim's: each superseding ingest deleted its predecessor's.
    const snapshots = yield* sql<{ id: string }>`SELECT c.id FROM snapshots s
      JOIN claims c ON c.id = s.claim_id WHERE c.record_key_hash = ${w.record}`
    assert.deepStrictEqual(snapshots.map((r) => r.id), [at?.id])

    // Rate-limit counts: every value 1..N returned once, N stored.
    const seen = results.flatMap((r) => r.counts).sort((a, b) => a - b)
    assert.deepStrictEqual(seen, Array.from({ length: counts }, (_, i) => i + 1))
    const stored = yield* sql<{ count: number }>`SELECT count FROM upload_counts
      WHERE address = ${w.address} AND window_start = ${w.window}`
    assert.strictEqual(Number(stored[0]?.count), counts)

    // openUnbound: one winner, one admin session.
    const opened = tally(results.flatMap((r) => r.opens))
    assert.strictEqual(opened.get(true), 1)
    assert.strictEqual(opened.get(false), opens - 1)
    const sessions = yield* sql<{ role: string }>`SELECT role FROM sessions WHERE claim_id = ${w.unboundClaim}`
    assert.deepStrictEqual(sessions.map((s) => s.role), ["admin"])

    // The right code passes once; wrong codes lock after exactly maxCodeAttempts tries.
    const right = tally(results.flatMap((r) => r.rightChecks))
    assert.strictEqual(right.get("ok"), 1)
    assert.strictEqual(right.get("none"), rightChecks - 1)
    const wrong = tally(results.flatMap((r) => r.wrongChecks))
    assert.strictEqual(wrong.get("wrong"), maxCodeAttempts)
    assert.strictEqual(wrong.get("locked"), wrongChecks - maxCodeAttempts)
    const attempts = yield* sql<{ attempts: number }>`SELECT attempts FROM codes WHERE claim_id = ${w.wrongClaim}`
    assert.strictEqual(Number(attempts[0]?.attempts), maxCodeAttempts)
  })

describe("two portal processes on one PostgreSQL database", () => {
  it.scopedLive("lose and duplicate nothing: ingests, counts, openUnbound and codes", () =>
    Effect.gen(function*() {
      const db = yield* makePgDatabase({ analyze: false })
      const settings = { databaseUrl: db.url, home: "/nonexistent" }
      const process = () => Layer.build(portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(settings))))
      // Two pools, built at once on an empty database: their migrations race as well.
      const [a, b] = yield* Effect.all([process(), process()], { concurrency: 2 })
      const storeA = yield* Effect.provide(PortalStore, a)
      const storeB = yield* Effect.provide(PortalStore, b)
      yield* Effect.provide(prepare, a)
      const workloads = [share("a"), share("b")]
      const results = yield* Effect.all([runWorkload(storeA, workloads[0]!), runWorkload(storeB, workloads[1]!)], {
        concurrency: 2
      })
      yield* Effect.provide(verify(results, workloads), b)
      const migrated = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: number | string }>`SELECT count(*) AS n FROM portal_migrations`),
        a
      )
      assert.strictEqual(Number(migrated[0]?.n), Object.keys(portalMigrations).length, "each migration ran once")
    }), { timeout: 120_000 })
})

// ── SQLite: two child processes on one file ─────────────────────────────────────────────────────

const viteNode = path.resolve(import.meta.dirname, "../../../node_modules/.bin/vite-node")
const hammer = path.resolve(import.meta.dirname, "../../utils/portalHammer.ts")

interface Child {
  readonly ready: Promise<void>
  readonly send: (w: Workload) => void
  readonly result: Promise<WorkloadResult>
}

const startChild = (home: string): Child => {
  const child = spawn(viteNode, [hammer, home], { stdio: ["pipe", "pipe", "pipe"] })
  const stderr: Array<string> = []
  child.stderr.on("data", (b: Buffer) => stderr.push(b.toString("utf8")))
  const lines = readline.createInterface({ input: child.stdout })
  const queue: Array<string> = []
  const waiters: Array<(line: string) => void> = []
  lines.on("line", (line) => {
    const w = waiters.shift()
    if (w !== undefined) w(line)
    else queue.push(line)
  })
  const exited = new Promise<never>((_, reject) =>
    child.on("close", (code) => reject(new Error(`hammer exited ${code}: ${stderr.join("").slice(0, 4000)}`)))
  )
  const nextLine = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const q = queue.shift()
        if (q !== undefined) resolve(q)
        else waiters.push(resolve)
      }),
      exited
    ])
  const ready = nextLine().then((line) => {
    if (line !== "ready") throw new Error(`hammer said ${line}`)
  })
  return {
    ready,
    send: (w) => child.stdin.end(`${JSON.stringify(w)}\n`),
    result: ready.then(nextLine).then((line) => JSON.parse(line) as WorkloadResult)
  }
}

describe("two portal processes on one SQLite file", () => {
  it.scopedLive("wait for each other (no SQLITE_BUSY) and lose and duplicate nothing", () =>
    Effect.gen(function*() {
      const home = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "portal-conc-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      // Started at once on a fresh file: their migrations race too.
      const children = [startChild(home), startChild(home)]
      yield* Effect.promise(() => Promise.all(children.map((c) => c.ready)))
      const settings = { databaseUrl: null, home }
      const mine = yield* Layer.build(portalStoreOnClient.pipe(Layer.provideMerge(portalSqlClient(settings))))
      yield* Effect.provide(prepare, mine)
      const workloads = [share("a"), share("b")]
      children.forEach((c, i) => c.send(workloads[i]!))
      const results = yield* Effect.promise(() => Promise.all(children.map((c) => c.result)))
      yield* Effect.provide(verify(results, workloads), mine)
      const migrated = yield* Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*) AS n FROM portal_migrations`),
        mine
      )
      assert.strictEqual(Number(migrated[0]?.n), Object.keys(portalMigrations).length, "each migration ran once")
      // The layer is the one the portal uses.
      assert.strictEqual(
        yield* Effect.scoped(Effect.provide(Effect.map(PortalStore, (s) => s.backend), portalStoreLayer(settings))),
        "sqlite"
      )
    }), { timeout: 120_000 })
})
