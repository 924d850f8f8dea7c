/**
 * The invite snapshot: the metadata-only draft that `invite` writes (and, once a human confirms, uploads)
 * and that the portal and `serve-claim` render as the claim page. It is built from the one Reader, so it
 * holds exactly what the read surfaces show: datasets, columns and their flags, lineage, glossary, the
 * RoPA and DORA drafts and provenance. Never a row value, never a secret (the Reader holds neither).
 *
 * The bytes sent are `JSON.stringify(snapshot)` (compact UTF-8, no trailing newline); the snapshot file
 * holds exactly those bytes, and `bytes` / `sha256` are of them.
 */
import { Schema } from "effect"
import { Dataset, LineageEdge, Status } from "./Catalog.js"
import { DoraState, Glossary, Provenance, RopaDraft } from "./Compliance.js"

/** The snapshot's format identifier (its `format` field). */
export const snapshotFormat = "local-data-catalog/invite-snapshot" as const
/** The snapshot format version this build writes and reads. */
export const snapshotVersion = 1 as const
/** The upload cap: 5 MB = 5,000,000 bytes of the body sent (SNAPSHOT_TOO_LARGE). */
export const uploadCapBytes = 5_000_000
/** The snapshot file in the data folder (`.catalog/invite-snapshot.json`): exactly the bytes an upload sends. */
export const snapshotFileName = "invite-snapshot.json"

/**
 * A recipient address: one `local@domain` with no spaces, angle brackets or commas (never a list), and no
 * control, format (bidi) or separator characters — it is printed in terminals and mail headers.
 */
export const RecipientEmail = Schema.String.pipe(
  Schema.maxLength(254),
  Schema.pattern(
    /^[^\s@<>,;"()[\]\\\p{Cc}\p{Cf}\p{Z}]+@[^\s@<>,;"()[\]\\\p{Cc}\p{Cf}\p{Z}]+\.[^\s@<>,;"()[\]\\\p{Cc}\p{Cf}\p{Z}]+$/u
  )
)

export const SnapshotController = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  contact: Schema.NullOr(Schema.String)
})

export const Snapshot = Schema.Struct({
  format: Schema.Literal(snapshotFormat),
  version: Schema.Literal(snapshotVersion),
  tool: Schema.Struct({ name: Schema.String, version: Schema.String }),
  /** When the snapshot was drafted (ISO-8601 UTC). */
  createdAt: Schema.String,
  /** Who the claim link is locked to; null with `--unbound` (whoever opens the link first becomes its admin) or before one is chosen (`--no-upload`). */
  recipient: Schema.NullOr(RecipientEmail),
  unbound: Schema.Boolean,
  /** The controller block from catalog.yml (the recipient may complete it on the claim page). */
  controller: Schema.NullOr(SnapshotController),
  status: Status,
  datasets: Schema.Array(Dataset),
  lineage: Schema.Array(LineageEdge),
  glossary: Glossary,
  ropa: RopaDraft,
  dora: DoraState,
  provenance: Provenance
})
export type Snapshot = typeof Snapshot.Type
