import { addEqualityTesters } from "@effect/vitest"

addEqualityTesters()

// node:sqlite announces itself as experimental on every import; the warning is noise in test output.
const emit = process.emitWarning.bind(process)
process.emitWarning = ((warning: string | Error, ...rest: Array<unknown>) => {
  const text = typeof warning === "string" ? warning : warning.message
  const kind = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type
  if (kind === "ExperimentalWarning" && /SQLite/i.test(text)) return
  return (emit as (w: string | Error, ...r: Array<unknown>) => void)(warning, ...rest)
}) as typeof process.emitWarning
