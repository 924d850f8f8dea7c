/** `positionals`: the one way a handler turns a missing or extra free argument into its usage error. */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { AddInputInvalid, ClassifyInputInvalid, GlossaryTermUnknown, toErrorBody } from "../../../src/errors/index.js"
import { type Positional, positionals } from "../../../src/programs/cli/usage.js"

const run = (effect: ReturnType<typeof positionals>) => Effect.runSync(Effect.either(effect))

const columnAndClass: ReadonlyArray<Positional> = [
  { param: "columnId", missing: "The column id is missing." },
  { param: "class", missing: "The class is missing." }
]

describe("positionals", () => {
  it("gives the values when every argument is there", () => {
    expect(run(positionals(["a/b/c/d", "special"], { error: ClassifyInputInvalid, params: columnAndClass })))
      .toEqual(Either.right(["a/b/c/d", "special"]))
  })

  it("names the first missing argument, with the command's code, exit 2 and no fix of its own", () => {
    for (
      const [given, message, param] of [
        [[], "The column id is missing.", "columnId"],
        [["a/b/c/d"], "The class is missing.", "class"]
      ] as const
    ) {
      const r = run(positionals(given, { error: ClassifyInputInvalid, params: columnAndClass }))
      if (Either.isRight(r)) throw new Error("expected a usage error")
      expect(r.left.exitCode).toBe(2)
      expect(toErrorBody(r.left)).toEqual(toErrorBody(new ClassifyInputInvalid({ message, param, usage: true })))
      expect(toErrorBody(r.left).error).toMatchObject({ code: "CLASSIFY_INPUT_INVALID", message, param })
    }
  })

  it("arguments beyond the last are unexpected, named as the last; the message can be the command's own", () => {
    const r = run(positionals(["a", "b", "c", "d"], { error: ClassifyInputInvalid, params: columnAndClass }))
    expect(Either.isLeft(r) && toErrorBody(r.left).error).toMatchObject({
      message: "Unexpected arguments: c d",
      param: "class"
    })
    const own = run(positionals(["on", "off"], {
      error: ClassifyInputInvalid,
      params: [{ param: "catalog-only", missing: "needs on or off" }],
      unexpected: (g) => `got "${g.join(" ")}"`
    }))
    expect(Either.isLeft(own) && own.left.message).toBe("got \"on off\"")
  })

  it("a rest argument takes the remaining words, trimmed; blank is missing, and the message may use earlier values", () => {
    const params: ReadonlyArray<Positional> = [
      { param: "term", missing: "The glossary term is missing.", notBlank: true },
      { param: "definition", missing: ([t]) => `The definition of "${t}" is missing.`, rest: true }
    ]
    const fix = "Usage: catalog glossary set <term> <definition>"
    expect(run(positionals(["Active", " a ", "customer "], { error: GlossaryTermUnknown, params, fix })))
      .toEqual(Either.right(["Active", "a  customer"]))
    const blankDefinition = run(positionals(["Active", " "], { error: GlossaryTermUnknown, params, fix }))
    expect(Either.isLeft(blankDefinition) && toErrorBody(blankDefinition.left).error).toEqual({
      code: "GLOSSARY_TERM_UNKNOWN",
      message: "The definition of \"Active\" is missing.",
      fix,
      param: "definition"
    })
    const blankTerm = run(positionals(["  ", "x"], { error: GlossaryTermUnknown, params, fix }))
    expect(Either.isLeft(blankTerm) && blankTerm.left.param).toBe("term")
  })

  it("an empty argument is a value unless it must not be blank", () => {
    expect(run(positionals([""], { error: AddInputInvalid, params: [{ param: "kind", missing: "no kind" }] })))
      .toEqual(Either.right([""]))
  })
})
