/**
 * The concurrency workload of the portal's store (test/layers/portal/concurrency.test.ts): one share of
 * it, run by each of two "portal processes" (two PostgreSQL pools in the test process, or two child
 * processes on one SQLite file, see portalHammer.ts). Every phase runs at once, on one record, one
 * address and window, and three claims prepared beforehand.
 */
import { Effect } from "effect"
import type { CodeCheck, PortalStore } from "../../src/services/PortalStore.js"

export interface Workload {
  /** Tells the two shares apart (ids, tokens and session hashes carry it). */
  readonly worker: string
  readonly record: string
  readonly ingests: number
  readonly address: string
  readonly window: string
  readonly counts: number
  readonly unboundClaim: string
  readonly opens: number
  /** Holds the code hash `right`. */
  readonly codeClaim: string
  readonly rightChecks: number
  /** Holds the code hash `right`; checked only with wrong codes. */
  readonly wrongClaim: string
  readonly wrongChecks: number
  readonly now: string
}

export interface WorkloadResult {
  readonly claims: ReadonlyArray<{ readonly id: string; readonly supersedes: string | null }>
  readonly counts: ReadonlyArray<number>
  readonly opens: ReadonlyArray<boolean>
  readonly rightChecks: ReadonlyArray<CodeCheck>
  readonly wrongChecks: ReadonlyArray<CodeCheck>
}

const range = (n: number): ReadonlyArray<number> => Array.from({ length: n }, (_, i) => i)

export const runWorkload = (
  store: PortalStore["Type"],
  w: Workload
): Effect.Effect<WorkloadResult, unknown> =>
  Effect.all({
    claims: Effect.forEach(range(w.ingests), (i) => {
      const body = JSON.stringify({ worker: w.worker, i })
      return store.ingest({
        claimId: `cl_${w.worker}_${i}`,
        tokenHash: `tok_${w.worker}_${i}`,
        recordKeyHash: w.record,
        recipient: "dpo@acme.example",
        unbound: false,
        body,
        bytes: Buffer.byteLength(body),
        sha256: `sha_${w.worker}_${i}`,
        at: w.now
      }).pipe(Effect.map((r) => ({ id: r.claim.id, supersedes: r.supersedes })))
    }, { concurrency: "unbounded" }),
    counts: Effect.forEach(range(w.counts), () => store.countUpload(w.address, w.window), {
      concurrency: "unbounded"
    }),
    opens: Effect.forEach(
      range(w.opens),
      (i) => store.openUnbound(w.unboundClaim, `sess_${w.worker}_${i}`, "2099-01-01T00:00:00.000Z"),
      { concurrency: "unbounded" }
    ),
    rightChecks: Effect.forEach(range(w.rightChecks), () => store.checkCode(w.codeClaim, "right", w.now), {
      concurrency: "unbounded"
    }),
    wrongChecks: Effect.forEach(range(w.wrongChecks), (i) => store.checkCode(w.wrongClaim, `wrong${i}`, w.now), {
      concurrency: "unbounded"
    })
  }, { concurrency: "unbounded" })
