/**
 * The portal's seals (issue 12, part 4): each seal of a claim with its signed artifacts, written in one
 * transaction (a seal is stored whole or not at all) and never changed afterwards. Implemented over
 * `@effect/sql` for PostgreSQL and SQLite in src/layers/portal/sealStore.ts. Times are ISO-8601 UTC strings
 * supplied by the caller.
 */
import { Context, type Effect } from "effect"
import type { AcknowledgedCall, SealedArtifact, Signer } from "../../domain/Sync.js"
import type { PortalStoreError } from "../PortalStore.js"

export interface SealRecord {
  /** `seal_…` */
  readonly id: string
  readonly claimId: string
  readonly sealedAt: string
  readonly signer: Signer
  readonly termsVersion: string | null
  readonly acknowledgedOpenCalls: ReadonlyArray<typeof AcknowledgedCall.Type>
  readonly licence: { readonly id: string; readonly issuedAt: string; readonly expiresAt: string }
  readonly snapshotSha256: string
  /** Which human path sealed it. */
  readonly via: "claim-page" | "verify"
}

export class SealStore extends Context.Tag("portal/SealStore")<SealStore, {
  /**
   * Stores the seal and its artifacts (in order) in one transaction — only while the claim is still live and
   * its newest snapshot is still the one sealed (`seal.snapshotSha256`), checked under the transaction's
   * lock: false (nothing stored) when a push, a re-invite or a removal came in between.
   */
  readonly save: (
    seal: SealRecord,
    artifacts: ReadonlyArray<SealedArtifact>
  ) => Effect.Effect<boolean, PortalStoreError>
  /** The claim's newest seal, or null. */
  readonly latest: (claimId: string) => Effect.Effect<SealRecord | null, PortalStoreError>
  /** A seal's artifacts in the order they were saved. */
  readonly artifacts: (sealId: string) => Effect.Effect<ReadonlyArray<SealedArtifact>, PortalStoreError>
}>() {}
