/**
 * The portal's storage contract. One implementation over `@effect/sql` serves both back ends
 * (PostgreSQL for a hosted portal with several processes on one database, SQLite for a small team or a
 * test) in src/layers/portal/. Every method is atomic: several portal processes on one PostgreSQL never
 * lose or duplicate an upload, a claim state change or a rate-limit count.
 *
 * Secrets are stored only as SHA-256 hex digests (`…Hash`): claim tokens, record keys, session ids,
 * one-time codes. Times are ISO-8601 UTC strings supplied by the caller (Effect's Clock).
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { ClaimState, TenantRow } from "../domain/Portal.js"
import type { SchemaMigrationRequired } from "../errors/index.js"

export type PortalStoreError = SqlError | SchemaMigrationRequired

export interface ClaimRecord {
  readonly id: string
  readonly state: ClaimState
  readonly successorId: string | null
  readonly recipient: string | null
  readonly unbound: boolean
  /** Unbound: someone opened it and became its admin; bound: the recipient proved the address at least once. */
  readonly opened: boolean
  readonly createdAt: string
  readonly lastUploadAt: string | null
  readonly bytes: number | null
  readonly sha256: string | null
  /** Filled on the claim page by the recipient (null until then). */
  readonly controllerName: string | null
  readonly controllerContact: string | null
  readonly controllerUpdatedAt: string | null
}

export interface IngestInput {
  readonly claimId: string
  readonly tokenHash: string
  readonly recordKeyHash: string
  readonly recipient: string | null
  readonly unbound: boolean
  /** The snapshot bytes as received (UTF-8 JSON text), stored whole. */
  readonly body: string
  readonly bytes: number
  readonly sha256: string
  readonly at: string
}

export type CodeCheck = "ok" | "wrong" | "expired" | "locked" | "none"

export class PortalStore extends Context.Tag("portal/PortalStore")<PortalStore, {
  readonly backend: "postgres" | "sqlite"
  /**
   * Stores the snapshot and its new live claim in one transaction; the record's previous live claim (same
   * `recordKeyHash`) becomes `superseded` with this one as its successor, and its snapshot, sessions and code
   * are deleted in the same transaction (its page shows a notice, never the draft). Never two live claims
   * per record.
   */
  readonly ingest: (
    input: IngestInput
  ) => Effect.Effect<{ readonly claim: ClaimRecord; readonly supersedes: string | null }, PortalStoreError>
  readonly claimByTokenHash: (tokenHash: string) => Effect.Effect<ClaimRecord | null, PortalStoreError>
  readonly claimById: (id: string) => Effect.Effect<ClaimRecord | null, PortalStoreError>
  /** The snapshot body of a claim (null once superseded or removed). */
  readonly snapshotOf: (claimId: string) => Effect.Effect<string | null, PortalStoreError>
  readonly tenants: Effect.Effect<ReadonlyArray<TenantRow>, PortalStoreError>
  /**
   * Removes the record `claimId` belongs to, in one transaction: every claim with its record key (live,
   * superseded, already removed) is marked removed, and their snapshots, sessions and codes are deleted. So
   * no link of the record opens anything, and no superseded claim points at a removed successor. Answers the
   * claim as now stored and the ids of every claim of the record; null when there is no such claim.
   */
  readonly remove: (
    claimId: string,
    at: string
  ) => Effect.Effect<
    { readonly claim: ClaimRecord; readonly claims: ReadonlyArray<string> } | null,
    PortalStoreError
  >
  /**
   * Counts one upload from `address` in the window starting at `windowStart` and returns the count after
   * it (atomic increment: concurrent processes never lose a count).
   */
  readonly countUpload: (address: string, windowStart: string) => Effect.Effect<number, PortalStoreError>
  /** Gives back one count (an upload refused after counting, e.g. invalid), never below zero. */
  readonly uncountUpload: (address: string, windowStart: string) => Effect.Effect<void, PortalStoreError>
  /** Replaces the claim's one-time code (hash), valid until `expiresAt`, with a fresh attempt budget. */
  readonly saveCode: (claimId: string, codeHash: string, expiresAt: string) => Effect.Effect<void, PortalStoreError>
  /** Checks a code (atomic attempt count; `locked` after 5 wrong tries); a code that passes is used up. */
  readonly checkCode: (claimId: string, codeHash: string, now: string) => Effect.Effect<CodeCheck, PortalStoreError>
  readonly createSession: (
    claimId: string,
    sessionHash: string,
    role: "admin" | "recipient",
    expiresAt: string
  ) => Effect.Effect<void, PortalStoreError>
  readonly sessionOf: (
    sessionHash: string,
    now: string
  ) => Effect.Effect<{ readonly claimId: string; readonly role: "admin" | "recipient" } | null, PortalStoreError>
  /** Unbound claims: the first caller becomes the admin (atomic); false when someone already did. */
  readonly openUnbound: (
    claimId: string,
    sessionHash: string,
    expiresAt: string
  ) => Effect.Effect<boolean, PortalStoreError>
  readonly setController: (
    claimId: string,
    name: string | null,
    contact: string | null,
    at: string
  ) => Effect.Effect<void, PortalStoreError>
}>() {}
