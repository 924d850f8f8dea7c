/**
 * The Reader's input parsing, shared by every surface: the CLI passes flag values as typed, HTTP the
 * raw query strings, MCP the decoded JSON values. Text must be exactly what it means: no surrounding
 * blanks, no sign, no exponent, no hex, no fraction. A bad value is INVALID_PARAM naming the parameter.
 */
import { Effect } from "effect"
import { InvalidParam } from "../../errors/index.js"
import { ftsQuery, type SearchQuery } from "./search.js"

/** The bounds of a `limit`: what an absent value means and the largest one accepted. */
export interface LimitBounds {
  readonly default: number
  readonly max: number
}

export const searchLimits = { default: 20, max: 100 } as const
export const changesLimits = { default: 50, max: 1000 } as const

const decimalInteger = /^[0-9]+$/

/** A count or sequence number: a safe integer, from a JSON number or from plain decimal digits; else NaN. */
const integerOf = (raw: unknown): number => {
  const n = typeof raw === "number"
    ? raw
    : typeof raw === "string" && decimalInteger.test(raw)
    ? Number(raw)
    : Number.NaN
  return Number.isSafeInteger(n) ? n : Number.NaN
}

/** Parses `limit` (an integer within bounds; absent = the default) or fails with `INVALID_PARAM` naming it. */
export const parseLimit = (
  raw: unknown,
  bounds: LimitBounds,
  param = "limit"
): Effect.Effect<number, InvalidParam> =>
  Effect.suspend(() => {
    if (raw === undefined) return Effect.succeed(bounds.default)
    const n = integerOf(raw)
    if (Number.isNaN(n) || n < 1 || n > bounds.max) {
      return Effect.fail(
        new InvalidParam({
          message: `${param} must be a whole number from 1 to ${bounds.max}, written in plain digits; got ${
            JSON.stringify(raw)
          }.`,
          fix: `Pass ${param} between 1 and ${bounds.max} (default ${bounds.default}).`,
          param
        })
      )
    }
    return Effect.succeed(n)
  })

const daysIn = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28)
    : [4, 6, 9, 11].includes(month)
    ? 30
    : 31

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]` and `Z` or `±HH[:]MM` (a space for the `T` too). */
const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/

/**
 * An ISO-8601 timestamp as an instant, or null when it is malformed or names no real time
 * (2026-02-30, 24:00, 12:60). Without an offset, a date is UTC midnight and a date-time is local
 * time, as JavaScript reads them.
 */
export const parseTimestamp = (text: string): Date | null => {
  const m = isoTimestamp.exec(text)
  if (m === null) return null
  const [, y, mo, d, hh, mi, ss, frac, zone, zh, zm] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null
  if (hh === undefined) return new Date(`${y}-${mo}-${d}T00:00:00.000Z`)
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss ?? "0") > 59) return null
  if (zh !== undefined && (Number(zh) > 23 || Number(zm) > 59)) return null
  const ms = frac === undefined ? "000" : frac.slice(0, 3).padEnd(3, "0")
  const offset = zone === undefined ? "" : zone === "Z" ? "Z" : `${zone[0]}${zh}:${zm}`
  const at = new Date(`${y}-${mo}-${d}T${hh}:${mi}:${ss ?? "00"}.${ms}${offset}`)
  return Number.isNaN(at.getTime()) ? null : at
}

/** Where a change-log read starts: after a sequence number, or at an instant (ISO-8601, UTC). */
export type Since = { readonly seq: number } | { readonly at: string }

/** `since`: a change sequence number (a safe integer >= 0), or an ISO-8601 timestamp; absent = the default. */
export const parseSince = (raw: unknown): Effect.Effect<Since | undefined, InvalidParam> =>
  Effect.suspend((): Effect.Effect<Since | undefined, InvalidParam> => {
    if (raw === undefined) return Effect.succeed(undefined)
    const seq = integerOf(raw)
    if (!Number.isNaN(seq) && seq >= 0) return Effect.succeed({ seq } as const)
    const at = typeof raw === "string" ? parseTimestamp(raw) : null
    if (at !== null) return Effect.succeed({ at: at.toISOString() } as const)
    return Effect.fail(
      new InvalidParam({
        message:
          `since must be a change sequence number (0 to ${Number.MAX_SAFE_INTEGER}, plain digits) or an ISO-8601 timestamp; got ${
            JSON.stringify(raw)
          }.`,
        fix:
          "Pass since=0 for the whole change-log, a sequence number from a change entry, or a timestamp like 2026-01-31T12:00:00Z.",
        param: "since"
      })
    )
  })

/**
 * Which change-log entries a read covers, and how the answer names it: after a sequence number, from
 * an instant, or (no `since`) from the start of the last scan; everything when there was no scan.
 */
export interface ChangeWindow {
  readonly sinceSeq?: number
  readonly sinceAt?: string
  readonly label: string | null
}

export const changeWindow = (since: Since | undefined, lastScanStartedAt: string | null): ChangeWindow => {
  if (since === undefined) {
    return lastScanStartedAt === null
      ? { label: null }
      : {
        sinceAt: new Date(Date.parse(lastScanStartedAt) - 1).toISOString(),
        label: `last scan (${lastScanStartedAt})`
      }
  }
  return "seq" in since ? { sinceSeq: since.seq, label: String(since.seq) } : { sinceAt: since.at, label: since.at }
}

/** `q`: words separated by blanks, at least one of them searchable; else INVALID_PARAM naming `q`. */
export const parseQuery = (raw: unknown): Effect.Effect<SearchQuery, InvalidParam> =>
  Effect.suspend(() => {
    const words = typeof raw === "string" ? raw.split(/\s+/).filter((w) => w.length > 0) : []
    const match = ftsQuery(words, "AND")
    if (match === null) {
      return Effect.fail(
        new InvalidParam({
          message: "Search needs words to look for.",
          fix: "Give one or more words, e.g. `catalog search customer email`.",
          param: "q"
        })
      )
    }
    return Effect.succeed({ words, text: words.join(" "), match })
  })

/**
 * A dataset id the caller gave to narrow a read (absent = no narrowing). An empty one is INVALID_PARAM
 * naming the caller's parameter (`dataset`, `datasetId`, `--dataset`) when it gave one.
 */
export const parseDatasetFilter = (
  id: string | undefined,
  param: string | undefined
): Effect.Effect<string | undefined, InvalidParam> =>
  id === ""
    ? Effect.fail(
      new InvalidParam({
        message: `${param ?? "The dataset id"} must be a dataset id <source>/<schema>/<table>; got an empty value.`,
        fix:
          "Leave it out for every edge, or give one dataset's id (list them with GET /api/v1/datasets or `catalog datasets`).",
        ...(param !== undefined ? { param } : {})
      })
    )
    : Effect.succeed(id)
