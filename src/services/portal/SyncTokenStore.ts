/**
 * The portal's sync tokens (issue 12, pairing): issued per claim by the claim's admin on the claim page
 * ('Connect a machine'), presented by a paired machine in `x-catalog-sync-token`. Only the token's
 * SHA-256 is stored; the token itself is shown once. Implemented over `@effect/sql` for PostgreSQL and
 * SQLite in src/layers/portal/syncTokenStore.ts. Times are ISO-8601 UTC strings supplied by the caller.
 */
import { Context, type Effect } from "effect"
import type { SyncTokenInfo } from "../../domain/Sync.js"
import type { PortalStoreError } from "../PortalStore.js"

export interface NewSyncToken {
  /** `st_…` */
  readonly id: string
  readonly claimId: string
  /** SHA-256 hex of the `sync_…` token. */
  readonly tokenHash: string
  readonly label: string | null
  readonly at: string
}

/** What a presented token names: its id, its claim, and whether it was revoked. */
export interface SyncTokenMatch {
  readonly tokenId: string
  readonly claimId: string
  readonly revoked: boolean
}

export class SyncTokenStore extends Context.Tag("portal/SyncTokenStore")<SyncTokenStore, {
  readonly create: (token: NewSyncToken) => Effect.Effect<SyncTokenInfo, PortalStoreError>
  /** The claim's tokens, newest first (revoked ones too). */
  readonly listByClaim: (claimId: string) => Effect.Effect<ReadonlyArray<SyncTokenInfo>, PortalStoreError>
  /**
   * Revokes the token `tokenId` of claim `claimId` (claim-scoped: a token of another claim is untouched);
   * true when this call revoked it, false when there is no such token of this claim or it was already revoked.
   */
  readonly revoke: (claimId: string, tokenId: string, at: string) => Effect.Effect<boolean, PortalStoreError>
  readonly findByHash: (tokenHash: string) => Effect.Effect<SyncTokenMatch | null, PortalStoreError>
  /** Records a successful use. */
  readonly touch: (tokenId: string, at: string) => Effect.Effect<void, PortalStoreError>
  /**
   * A paired machine's refreshed snapshot: in one transaction, a new snapshot row of the claim (its newest
   * body; older rows beyond `keptSnapshots` are dropped) and the claim's last upload, bytes and SHA-256 —
   * only while the claim is live ("not-live" otherwise, nothing stored). A concurrent supersede or remove
   * either waits for this transaction (and then drops the row with the claim's others) or wins first.
   */
  readonly appendSnapshot: (input: AppendSnapshot) => Effect.Effect<"stored" | "not-live", PortalStoreError>
}>() {}

export interface AppendSnapshot {
  readonly claimId: string
  readonly body: string
  readonly bytes: number
  readonly sha256: string
  readonly at: string
}

/** How many snapshots of a claim are kept (the newest is the claim's body; the rest are history). */
export const keptSnapshots = 20
