/**
 * `catalog verify`'s first two gates as functions: the free build (officialInstalled false) answers
 * PORTAL_NOT_INSTALLED before anything else; off a terminal (AppEnv.interactive false: no TTY,
 * --non-interactive or CI) CONFIRM_REQUIRED says signing is a human act no flag turns off.
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { installedGate, terminalGate } from "../../../src/programs/cli/VerifyCommands.js"

const env = (interactive: boolean) => ({ cwd: "/tmp", env: {}, interactive, stderrIsTTY: interactive })

describe("verify's gates", () => {
  it("the free build: PORTAL_NOT_INSTALLED (exit 1), with where sealing is available instead", () => {
    const r = Effect.runSync(Effect.either(installedGate(false)))
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) {
      expect(r.left.code).toBe("PORTAL_NOT_INSTALLED")
      expect(r.left.message).toContain("free build")
      expect(r.left.fix).toContain("claim page")
    }
    expect(Either.isRight(Effect.runSync(Effect.either(installedGate(true))))).toBe(true)
  })

  it("off a terminal: CONFIRM_REQUIRED, a human act no flag turns off", () => {
    const r = Effect.runSync(Effect.either(terminalGate(env(false))))
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) {
      expect(r.left.code).toBe("CONFIRM_REQUIRED")
      expect(r.left.message).toContain("human act")
      expect(r.left.fix).toContain("yourself in a terminal")
    }
    expect(Either.isRight(Effect.runSync(Effect.either(terminalGate(env(true)))))).toBe(true)
  })
})
