/** `annotate set`: fill or confirm a legal field of the RoPA draft. Confirming is a human act that names its person. */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { RopaInputInvalid, RopaNoneUnconfirmed, SignerRequired } from "../../errors/index.js"
import { WriteLive } from "../../layers/Main.js"
import { actor, AppEnv } from "../../services/AppEnv.js"
import { Reader } from "../../services/Reader.js"
import { activityFingerprint, fieldAliases, legalFields } from "../../services/Ropa.js"
import { Store } from "../../services/Store.js"
import { emit, green, yellow } from "./render.js"
import { positionals } from "./usage.js"

export const annotateSet = Command.make("set", {
  args: Args.text({ name: "activityKey field value" }).pipe(
    Args.withDescription(`the activity key, the legal field (${legalFields.join(", ")}) and its value`),
    Args.repeated
  ),
  confirm: Options.boolean("confirm").pipe(
    Options.withDescription("confirm the legal call as the person named by CATALOG_SIGNER_EMAIL")
  )
}, ({ args, confirm }) =>
  Effect.gen(function*() {
    const reader = yield* Reader
    const draft = yield* reader.compliance
    const keys = draft.activities.map((a) => a.key)
    const [key, rawField, value] = yield* positionals(args, {
      error: RopaInputInvalid,
      fix: `Usage: catalog annotate set <activityKey> <${legalFields.join("|")}> <value> [--confirm]. Keys: ${
        keys.join(", ") || "(none yet: run catalog start)"
      }.`,
      params: [
        { param: "activityKey", missing: "The activity key is missing." },
        { param: "field", missing: "The field is missing." },
        { param: "value", missing: "The value is missing.", rest: true }
      ]
    })
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
    const env = yield* AppEnv
    const signer = (env.env["CATALOG_SIGNER_EMAIL"] ?? "").trim()
    if (confirm && signer === "") {
      return yield* new SignerRequired({
        message: `Confirming ${key}.${field} needs a named person.`,
        fix:
          "Set CATALOG_SIGNER_EMAIL to your e-mail address and re-run; without --confirm the answer saves as a draft fill.",
        param: "CATALOG_SIGNER_EMAIL"
      })
    }
    const at = new Date().toISOString()
    const store = yield* Store
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
    yield* emit({ activityKey: key, ...after }, (f) =>
      `${f.activityKey}.${f.field}: ${
        f.status === "confirmed" ? green(`confirmed by ${f.confirmedBy}`) : yellow("saved as a draft fill (suggested)")
      } — ${f.value}`)
  }).pipe(Effect.provide(WriteLive))).pipe(Command.withDescription(
    "Fill a legal field of an activity (a draft fill, suggested), or confirm it with --confirm as CATALOG_SIGNER_EMAIL."
  ))
