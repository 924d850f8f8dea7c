/**
 * The portal's licences (issue 12, `catalog admin licence …`): what was issued for which claim, until when,
 * to whom it was mailed, and which were revoked. The key itself is never stored. Times are ISO-8601 UTC
 * strings supplied by the caller (Effect's Clock). The implementation over `@effect/sql` (PostgreSQL and
 * SQLite) is src/layers/portal/licenceStore.ts.
 */
import { Context, type Effect } from "effect"
import type { PortalStoreError } from "../PortalStore.js"

export interface LicenceRecord {
  readonly id: string
  readonly claimId: string
  readonly issuedAt: string
  readonly expiresAt: string
  readonly revokedAt: string | null
  /** The address the key was mailed to; null when it was printed for the operator to hand over. */
  readonly issuedTo: string | null
}

export class LicenceStore extends Context.Tag("catalog/portal/LicenceStore")<LicenceStore, {
  /** Records a licence (issuedTo may be set later with `markMailed`). */
  readonly issue: (licence: Omit<LicenceRecord, "revokedAt">) => Effect.Effect<LicenceRecord, PortalStoreError>
  /** The address the key was mailed to (after a successful send). */
  readonly markMailed: (id: string, to: string) => Effect.Effect<void, PortalStoreError>
  /**
   * Revokes a licence (idempotent: a second revoke keeps the first time). Answers the licence as now stored;
   * null when there is no such licence.
   */
  readonly revoke: (id: string, at: string) => Effect.Effect<LicenceRecord | null, PortalStoreError>
  readonly get: (id: string) => Effect.Effect<LicenceRecord | null, PortalStoreError>
  /** The claim's licences, newest first. */
  readonly byClaim: (claimId: string) => Effect.Effect<ReadonlyArray<LicenceRecord>, PortalStoreError>
  /** Every licence, newest first. */
  readonly list: Effect.Effect<ReadonlyArray<LicenceRecord>, PortalStoreError>
  /** The ids of every revoked licence, sorted. */
  readonly revokedIds: Effect.Effect<ReadonlyArray<string>, PortalStoreError>
}>() {}
