/**
 * 'Connect a machine' on the claim page (issue 12, pairing): the record's admin creates sync tokens for
 * the machines that upload its draft, sees them listed, and revokes them.
 *
 * The record's admin is whoever holds a session on the claim: the unbound claim's admin (its first
 * opener), or — a bound claim — its proven recipient (who proved the mailbox with a one-time code). Both
 * own the record on the portal; nobody else (the link alone opens nothing on a bound claim) can pair.
 *
 *   POST /claim/:token/sync-tokens         `label` (optional) → 200, the token shown once with the two
 *                                          lines to set on the machine
 *   POST /claim/:token/sync-tokens/revoke  `id` → 303 back to the claim (claim-scoped: a token of another
 *                                          claim is untouched)
 * Both forms are checked as every claim-page POST is (same origin; a session of this claim).
 * Tokens: `sync_` + 32 random bytes (base64url); stored as SHA-256 only; ids `st_` + 12 random bytes.
 */
import { Effect, Either } from "effect"
import { syncTokenIdPrefix, syncTokenPrefix } from "../../domain/Sync.js"
import { SyncTokenStore } from "../../services/portal/SyncTokenStore.js"
import type { ClaimRecord } from "../../services/PortalStore.js"
import { type ConnectMachineView, renderNoticePage, renderSyncTokenCreatedPage } from "./ClaimPage.js"
import { claimPath, html, see, sessionPost } from "./Claims.js"
import { nowIso, PortalContext, randomToken, sha256Hex } from "./Context.js"

/** The section's data for the claim page of `claim` (shown to a session holder only). */
export const connectMachineView = (claim: ClaimRecord, token: string) =>
  Effect.map(SyncTokenStore, (tokens) => tokens.listByClaim(claim.id)).pipe(
    Effect.flatten,
    Effect.map((list): ConnectMachineView => ({
      createAction: `${claimPath(token)}/sync-tokens`,
      revokeAction: `${claimPath(token)}/sync-tokens/revoke`,
      tokens: list
    }))
  )

/** POST /claim/:token/sync-tokens */
export const createSyncToken = (token: string) =>
  Effect.gen(function*() {
    const checked = yield* sessionPost(token, "connect machines")
    if (Either.isLeft(checked)) return checked.left
    const { claim, form } = checked.right
    const label = (form.get("label") ?? "").replace(/\s+/g, " ").trim().slice(0, 100)
    const secret = `${syncTokenPrefix}${randomToken(32)}`
    const created = yield* (yield* SyncTokenStore).create({
      id: `${syncTokenIdPrefix}${randomToken(12)}`,
      claimId: claim.id,
      tokenHash: sha256Hex(secret),
      label: label === "" ? null : label,
      at: yield* nowIso
    })
    const { publicUrl } = yield* PortalContext
    return html(renderSyncTokenCreatedPage({
      id: created.id,
      label: created.label,
      token: secret,
      portalUrl: publicUrl,
      backTo: claimPath(token)
    }))
  })

/** POST /claim/:token/sync-tokens/revoke */
export const revokeSyncToken = (token: string) =>
  Effect.gen(function*() {
    const checked = yield* sessionPost(token, "connect machines")
    if (Either.isLeft(checked)) return checked.left
    const { claim, form } = checked.right
    const id = (form.get("id") ?? "").trim()
    const revoked = id.startsWith(syncTokenIdPrefix) && id.length < 100
      ? yield* (yield* SyncTokenStore).revoke(claim.id, id, yield* nowIso)
      : false
    if (!revoked) {
      return html(
        renderNoticePage({
          title: "No such token",
          message: "This draft has no active sync token with that id (it may already be revoked).",
          code: null,
          fix: "Go back to the draft and use the Revoke button beside the token.",
          status: 404
        }),
        404
      )
    }
    return see(`${claimPath(token)}?saved=revoked#connect`)
  })
