/**
 * Filling and confirming the legal fields of the RoPA draft (`catalog annotate set`). A fill stays
 * `suggested`; confirming is a human act that names its person (CATALOG_SIGNER_EMAIL) and records the
 * activity's fingerprint, so a later change to the activity marks the answer for review.
 */
import { DateTime, Effect } from "effect"
import type { RopaDraft } from "../domain/Compliance.js"
import { RopaInputInvalid, RopaNoneUnconfirmed, SignerRequired } from "../errors/index.js"
import { actor, AppEnv } from "./AppEnv.js"
import { Reader } from "./Reader.js"
import { activityFingerprint, fieldAliases, legalFields } from "./Ropa.js"
import { Store } from "./Store.js"

/** One answer to a legal field: `value` "None" closes the field as "does not apply" (and needs `confirm`). */
export interface AnnotationInput {
  readonly activityKey: string
  /** A legal field's name or one of its aliases (any case). */
  readonly field: string
  readonly value: string
  readonly confirm: boolean
}

/** Writes legal-field answers of the RoPA draft. */
export class Annotations extends Effect.Service<Annotations>()("catalog/Annotations", {
  effect: Effect.gen(function*() {
    const reader = yield* Reader
    const store = yield* Store
    const env = yield* AppEnv

    /** The keys of the draft's activities, as a fix lists them. */
    const keysOf = (draft: RopaDraft): ReadonlyArray<string> => draft.activities.map((a) => a.key)

    /**
     * Saves the answer and gives the field as the draft now reports it. `draft` is the draft the caller
     * already read (for its usage fix), else it is read here.
     */
    const set = Effect.fn("Annotations.set")(function*(input: AnnotationInput, current?: RopaDraft) {
      const { activityKey: key, confirm, field: rawField, value } = input
      const draft = current ?? (yield* reader.compliance)
      const keys = keysOf(draft)
      const activity = draft.activities.find((a) => a.key === key)
      if (!activity) {
        return yield* new RopaInputInvalid({
          message: `No activity with key "${key}".`,
          fix: `Run \`catalog annotate list\`; keys: ${keys.join(", ") || "(none yet: run catalog start)"}.`,
          param: "activityKey"
        })
      }
      const field = fieldAliases[rawField.toLowerCase()] ?? fieldAliases[rawField]
      if (field === undefined) {
        return yield* new RopaInputInvalid({
          message: `"${rawField}" is not a legal field.`,
          fix: `Use one of: ${legalFields.join(", ")}.`,
          param: "field"
        })
      }
      const isNone = value.toLowerCase() === "none"
      if (isNone && !confirm) {
        return yield* new RopaNoneUnconfirmed({
          message: `'None' closes ${key}.${field} as 'does not apply', which is a legal confirmation.`,
          fix:
            `Re-run with --confirm (and CATALOG_SIGNER_EMAIL set): catalog annotate set ${key} ${field} None --confirm`,
          param: "value"
        })
      }
      const signer = (env.env["CATALOG_SIGNER_EMAIL"] ?? "").trim()
      if (confirm && signer === "") {
        return yield* new SignerRequired({
          message: `Confirming ${key}.${field} needs a named person.`,
          fix:
            "Set CATALOG_SIGNER_EMAIL to your e-mail address and re-run; without --confirm the answer saves as a draft fill.",
          param: "CATALOG_SIGNER_EMAIL"
        })
      }
      const at = DateTime.formatIso(yield* DateTime.now)
      yield* Effect.orDie(store.setAnnotation({
        activity_key: key,
        field,
        value: isNone ? "None" : value,
        status: confirm ? "confirmed" : "suggested",
        by: confirm ? signer : actor(env),
        at,
        confirmed_by: confirm ? signer : null,
        confirmed_at: confirm ? at : null,
        basis: confirm ? activityFingerprint(activity) : null
      }))
      const after = (yield* reader.compliance).activities.find((a) => a.key === key)!.legal[field]
      return { activityKey: key, ...after }
    })

    return { draft: reader.compliance, keysOf, set } as const
  })
}) {}
