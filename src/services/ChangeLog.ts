/**
 * The change-log (`changes` table, append-only): the one writer of its entries. Every write to the
 * catalog — a scan, a correction, a glossary term, a DORA cell, a team-file import — records what it
 * did here, inside the transaction of the write itself, so a change and its entry land together or not
 * at all. Reading the log is `StoreReader.changes`.
 */
import type { SqlError } from "@effect/sql"
import { Context, type Effect } from "effect"
import type { StoreError } from "./Store.js"

/** One change-log entry as recorded; `detail` is stored as JSON. */
export interface ChangeEntryInput {
  readonly at: string
  /** The scan that made the change; `null` for a human act. */
  readonly scanId: number | null
  /**
   * `dataset.added`, `column.classified`, `lineage.added`, `dora.set`, `sync.paired` (entity: the sync token
   * id; the first successful sync with it), `sync.pushed` (entity: the claim id)… Each kind's one-line
   * summary is in reader/changes.ts.
   */
  readonly kind: string
  /** The id of what changed: a dataset, column, edge, term, source, DORA cell… */
  readonly entity: string
  readonly sourceId: string | null
  readonly detail: object
  /** Who acted; `null` for the scan itself. */
  readonly by: string | null
}

/** Records change-log entries; call it inside the transaction of the write it records. */
export class ChangeLog extends Context.Tag("catalog/ChangeLog")<ChangeLog, {
  readonly record: (entry: ChangeEntryInput) => Effect.Effect<void, SqlError.SqlError>
  /** Many entries in their order (a scan's), through one prepared statement. */
  readonly recordAll: (entries: ReadonlyArray<ChangeEntryInput>) => Effect.Effect<void, SqlError.SqlError>
  /** Whether an entry of `kind` about `entity` was ever recorded. */
  readonly recorded: (kind: string, entity: string) => Effect.Effect<boolean, StoreError>
}>() {}
