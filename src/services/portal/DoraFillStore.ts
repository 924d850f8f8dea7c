/**
 * The DORA cells filled on the claim page (issue 12 part 2), per claim: one current value per (claim,
 * table, row key, field); a later fill of the same cell replaces the earlier one. The implementation over
 * `@effect/sql` (PostgreSQL and SQLite) is src/layers/portal/doraFillStore.ts.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { DoraFill } from "../../domain/Sync.js"
import type { SchemaMigrationRequired } from "../../errors/index.js"

export type DoraFillStoreError = SqlError | SchemaMigrationRequired

export class DoraFillStore extends Context.Tag("portal/DoraFillStore")<DoraFillStore, {
  /** Stores the fill (its table, row key and field already checked and normalised), replacing the cell's earlier fill. */
  readonly put: (claimId: string, fill: DoraFill) => Effect.Effect<void, DoraFillStoreError>
  /** The claim's fills, ordered by table, row key and field. */
  readonly list: (claimId: string) => Effect.Effect<ReadonlyArray<DoraFill>, DoraFillStoreError>
  /** How many cells the claim has filled. */
  readonly count: (claimId: string) => Effect.Effect<number, DoraFillStoreError>
}>() {}
