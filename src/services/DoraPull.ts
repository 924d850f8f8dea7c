/**
 * Pulling the DORA cells filled on the claim page into the machine's register (issue 12 part 2): `catalog
 * dora pull`, and `push` after an upload. Each fill is written through the same `Dora.set` as `catalog dora
 * set` (the same checks, the same `dora.set` change-log entry), attributed "from the portal, by <who>".
 *
 * The conflict rule (docs/dora.md): a portal fill never silently drops a person's local value.
 *   - the local cell is empty, or holds a value an earlier pull wrote (attributed "from the portal, by …")
 *     → the fill is applied;
 *   - the local cell already holds the portal's value → unchanged (its attribution is kept);
 *   - the local cell holds a different value a person set on this machine (`dora set`, `dora import`)
 *     → the local value stays and the fill is reported as a conflict, with both values, who set them, and
 *     the fix (`catalog dora set … <value>` to take the portal's, or change the cell on the portal).
 * A fill this machine's checks refuse (e.g. a table of a newer template) is reported as refused, with why.
 * Conflicts and refusals are results, not failures: the pull succeeds and lists them.
 */
import { Effect } from "effect"
import type { DoraFill } from "../domain/Sync.js"
import type { DoraEntity } from "../dora/register.js"
import { Dora } from "./Dora.js"
import { type DoraFillsRequest, PortalClient } from "./PortalClient.js"
import { StoreReader } from "./Store.js"

/** How a pulled cell is attributed locally: `from the portal, by <who filled it on the claim page>`. */
export const portalFillPrefix = "from the portal, by "
/** Whether a local cell was written by a pull (not by a person on this machine). */
export const isPortalFill = (by: string): boolean => by.startsWith(portalFillPrefix)

/** A shell argument, quoted when it needs it (for the fix a conflict prints). */
const arg = (s: string): string => /^[A-Za-z0-9_.:@%+\-/]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`

export interface PulledCell {
  readonly table: string
  readonly rowKey: string
  readonly field: string
  readonly value: string
  /** Who filled it on the portal, and when. */
  readonly by: string
  readonly at: string
}

export interface AppliedCell extends PulledCell {
  /** The local value it replaced (null: the cell was empty), always one an earlier pull wrote. */
  readonly previous: string | null
}

export interface PullConflict {
  readonly table: string
  readonly rowKey: string
  readonly field: string
  readonly local: { readonly value: string; readonly by: string; readonly at: string }
  readonly portal: { readonly value: string; readonly by: string; readonly at: string }
  /** How to resolve it, either way. */
  readonly fix: string
}

export interface RefusedCell extends PulledCell {
  readonly code: string
  readonly reason: string
}

export interface PullResult {
  readonly portal: string
  readonly claimId: string
  /** How many fills the portal holds for the claim. */
  readonly fills: number
  readonly applied: ReadonlyArray<AppliedCell>
  readonly unchanged: ReadonlyArray<PulledCell>
  readonly conflicts: ReadonlyArray<PullConflict>
  readonly refused: ReadonlyArray<RefusedCell>
}

const cellKey = (table: string, rowKey: string, field: string) => `${table}\u0000${rowKey}\u0000${field}`

/**
 * GET the paired claim's fills and apply them to the local register under the conflict rule. Fails only
 * when the fills cannot be had (SYNC_UNAUTHORIZED, CLAIM_NOT_SYNCABLE, DORA_PULL_FAILED): nothing changed then.
 */
export const pullDoraFills = Effect.fn("DoraPull.pull")(
  function*(entity: DoraEntity, request: DoraFillsRequest) {
    const client = yield* PortalClient
    const dora = yield* Dora
    const reader = yield* StoreReader
    const answer = yield* client.doraFills(request)
    const local = new Map(
      (yield* Effect.orDie(reader.doraCells)).map((c) => [cellKey(c.table_code, c.row_key, c.column_code), c])
    )
    const applied: Array<AppliedCell> = []
    const unchanged: Array<PulledCell> = []
    const conflicts: Array<PullConflict> = []
    const refused: Array<RefusedCell> = []
    const pulled = (f: DoraFill): PulledCell => ({
      table: f.table,
      rowKey: f.rowKey,
      field: f.field,
      value: f.value,
      by: f.by,
      at: f.at
    })
    for (const f of answer.fills) {
      const mine = local.get(cellKey(f.table, f.rowKey, f.field))
      if (mine !== undefined && mine.value === f.value) {
        unchanged.push(pulled(f))
        continue
      }
      if (mine !== undefined && !isPortalFill(mine.by)) {
        conflicts.push({
          table: f.table,
          rowKey: f.rowKey,
          field: f.field,
          local: { value: mine.value, by: mine.by, at: mine.at },
          portal: { value: f.value, by: f.by, at: f.at },
          fix: `To take the portal's value: catalog dora set ${arg(f.table)} ${arg(f.rowKey)} ${arg(f.field)} ${
            arg(f.value)
          }; to keep this machine's, change the cell on the claim page to ${JSON.stringify(mine.value)}.`
        })
        continue
      }
      const result = yield* dora.set(entity, {
        tableCode: f.table,
        rowKey: f.rowKey,
        field: f.field,
        value: f.value,
        remove: false,
        by: `${portalFillPrefix}${f.by}`
      }).pipe(Effect.either)
      if (result._tag === "Left") {
        refused.push({ ...pulled(f), code: result.left.code, reason: result.left.message })
        continue
      }
      applied.push({ ...pulled(f), previous: mine?.value ?? null })
      local.set(cellKey(f.table, f.rowKey, f.field), {
        table_code: f.table,
        row_key: f.rowKey,
        column_code: f.field,
        value: f.value,
        by: `${portalFillPrefix}${f.by}`,
        at: result.right.at
      })
    }
    return {
      portal: request.portalUrl,
      claimId: answer.claimId,
      fills: answer.fills.length,
      applied,
      unchanged,
      conflicts,
      refused
    } satisfies PullResult
  }
)
