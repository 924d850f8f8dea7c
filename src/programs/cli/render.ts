/** Printing: JSON on stdout for machines, plain text for humans; errors in the registry's one shape. */
import { Console, Context, Effect } from "effect"

/** Global flags, read once from argv before the command tree parses. */
export class CliFlags extends Context.Tag("catalog/CliFlags")<CliFlags, {
  readonly json: boolean
  readonly yes: boolean
  readonly nonInteractive: boolean
}>() {}

/** Prints a result: the value as JSON with --json, else the human rendering. */
export const emit = <A>(value: A, human: (a: A) => string) =>
  Effect.flatMap(CliFlags, (f) => (f.json ? Console.log(JSON.stringify(value, null, 2)) : Console.log(human(value))))

/** A line for the human on stderr (see AppEnv.stderrLine). */
export { stderrLine } from "../../services/AppEnv.js"

const useColor = () => process.stdout.isTTY === true && process.env["NO_COLOR"] === undefined
const wrap = (code: string) => (s: string) => (useColor() ? `\u001b[${code}m${s}\u001b[0m` : s)
export const bold = wrap("1")
export const dim = wrap("2")
export const red = wrap("31")
export const yellow = wrap("33")
export const green = wrap("32")

const classColor: Record<string, (s: string) => string> = {
  criminal: red,
  special: wrap("35"),
  personal: yellow,
  not: dim
}
export const classLabel = (v: string) => (classColor[v] ?? ((s: string) => s))(v)

/** A plain left-aligned table. */
export const table = (headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  // eslint-disable-next-line no-control-regex
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "").length
  const widths = headers.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ""))))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat(widths[i]! - visible(c)))).join("  ")
  return [bold(line(headers)), ...rows.map(line)].join("\n")
}
