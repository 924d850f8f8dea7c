/**
 * Seals pulled from the portal and verified on this machine (`seals`, issue 12): read by the Reader for
 * every surface's `sealInfo`; written once per seal with its change-log entry (`seal.sealed`), and the
 * `seal.lapsed` entry the first time a command notices the licence expired.
 */
import type { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ChangeLog } from "../../services/ChangeLog.js"
import { sealLapsedKind, sealSealedKind } from "../../services/Seals.js"
import { SealRow, type Store, type StoreReader } from "../../services/Store.js"
import { findOne } from "./rows.js"

const columns =
  "id, claim_id, sealed_at, signer_name, signer_role, signer_email, terms_version, acknowledged, licence_id, licence_issued_at, licence_expires_at, dir, manifest_sha256, stored_at"

export const sealsRepository = (sql: SqlClient.SqlClient, changeLog?: ChangeLog["Type"]) => {
  const one = findOne("seals", SealRow)
  const reads = {
    latestSeal: one(sql`SELECT ${sql.literal(columns)} FROM seals ORDER BY sealed_at DESC, id DESC LIMIT 1`),
    seal: (id: string) => one(sql`SELECT ${sql.literal(columns)} FROM seals WHERE id = ${id}`)
  } satisfies Pick<StoreReader["Type"], "latestSeal" | "seal">

  const insertSeal: Store["Type"]["insertSeal"] = (row, by) =>
    sql.withTransaction(Effect.gen(function*() {
      const existing = yield* one(sql`SELECT ${sql.literal(columns)} FROM seals WHERE id = ${row.id}`)
      if (existing !== null) return { inserted: false }
      yield* sql`INSERT INTO seals ${sql.insert({ ...row })}`
      if (changeLog !== undefined) {
        yield* changeLog.record({
          at: row.stored_at,
          scanId: null,
          kind: sealSealedKind,
          entity: row.id,
          sourceId: null,
          detail: {
            claimId: row.claim_id,
            sealedAt: row.sealed_at,
            signerName: row.signer_name,
            signerRole: row.signer_role,
            termsVersion: row.terms_version,
            licenceId: row.licence_id,
            acknowledged: JSON.parse(row.acknowledged) as unknown
          },
          by
        })
      }
      return { inserted: true }
    }))

  const recordSealLapsed: Store["Type"]["recordSealLapsed"] = (seal, at) =>
    sql.withTransaction(Effect.gen(function*() {
      if (changeLog === undefined) return false
      if (yield* changeLog.recorded(sealLapsedKind, seal.id)) return false
      yield* changeLog.record({
        at,
        scanId: null,
        kind: sealLapsedKind,
        entity: seal.id,
        sourceId: null,
        detail: { licenceId: seal.licenceId, expiresAt: seal.expiresAt },
        by: null
      })
      return true
    }))

  return { reads, writes: { insertSeal, recordSealLapsed } }
}
