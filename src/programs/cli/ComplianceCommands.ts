/** `annotate set`: fill or confirm a legal field of the RoPA draft. Confirming is a human act that names its person. */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer } from "effect"
import { RopaInputInvalid } from "../../errors/index.js"
import { WriteLive } from "../../layers/Main.js"
import { Annotations } from "../../services/Annotations.js"
import { legalFields } from "../../services/Ropa.js"
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
    const annotations = yield* Annotations
    // The usage fix lists the activity keys, so a missing catalog is reported before a missing argument.
    const draft = yield* annotations.draft
    const keys = annotations.keysOf(draft)
    const [activityKey, field, value] = yield* positionals(args, {
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
    const r = yield* annotations.set({ activityKey, field, value, confirm }, draft)
    yield* emit(r, (f) =>
      `${f.activityKey}.${f.field}: ${
        f.status === "confirmed" ? green(`confirmed by ${f.confirmedBy}`) : yellow("saved as a draft fill (suggested)")
      } — ${f.value}`)
  }).pipe(Effect.provide(Annotations.Default.pipe(Layer.provide(WriteLive))))).pipe(Command.withDescription(
    "Fill a legal field of an activity (a draft fill, suggested), or confirm it with --confirm as CATALOG_SIGNER_EMAIL."
  ))
