/**
 * Datapoint formats of the DORA register, in two layers:
 *
 * - `normaliseInput`: what `dora import` / `dora set` accept — the lexical form of the column's type
 *   (an LEI-shaped value, a `YYYY-MM-DD` value, a two-letter country, a member of the closed list…),
 *   normalised to the form the xBRL-CSV package needs (`DE` → `eba_GA:DE`, `x28` → `eba_BT:x28`).
 *   Anything else is `DORA_INPUT_INVALID`.
 * - `cellProblem`: full validity, checked on every read and before an export — ISO 17442 check
 *   digits, real calendar dates, assigned ISO 3166-1 / ISO 4217 codes, signs, type-of-code formats.
 */
import iso3166 from "./iso3166.json" with { type: "json" }
import iso4217 from "./iso4217.json" with { type: "json" }
import type { EnumDef, Template, TemplateColumn, Templates } from "./templates.js"

// ── ISO 17442 (LEI) ─────────────────────────────────────────────────────────────────────────────
const leiShape = /^[A-Z0-9]{18}[0-9]{2}$/

/** Letters → two digits (A=10 … Z=35), digits unchanged, then the number mod 97 (ISO 7064 MOD 97-10). */
const mod97 = (s: string): number => {
  let r = 0
  for (const ch of s) {
    const v = ch >= "A" && ch <= "Z" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48
    r = v >= 10 ? (r * 100 + v) % 97 : (r * 10 + v) % 97
  }
  return r
}

/** The two check digits for the first 18 characters of an LEI. */
export const leiCheckDigits = (base: string): string => String(98 - mod97(`${base.toUpperCase()}00`)).padStart(2, "0")

/** 18 upper-case alphanumerics plus 2 digits (the DPM shape rule), without the checksum. */
export const isLeiShaped = (s: string): boolean => leiShape.test(s)

/** A well-formed LEI whose check digits are right (the whole code mod 97 = 1). */
export const isValidLei = (s: string): boolean => leiShape.test(s) && mod97(s) === 1

/** Why a value is not a valid LEI, or null. */
export const leiProblem = (s: string): string | null => {
  if (!leiShape.test(s)) {
    return `"${s}" is not an LEI: it needs 18 upper-case letters or digits followed by 2 check digits (20 characters)`
  }
  if (mod97(s) !== 1) {
    return `LEI "${s}" has wrong check digits (ISO 17442, MOD 97-10): for ${s.slice(0, 18)} they are ${
      leiCheckDigits(s.slice(0, 18))
    }`
  }
  return null
}

// ── dates, codes ────────────────────────────────────────────────────────────────────────────────
const dateShape = /^\d{4}-\d{2}-\d{2}$/

/** `YYYY-MM-DD` naming a real calendar day (`9999-12-31` included). */
export const isCalendarDate = (s: string): boolean => {
  if (!dateShape.test(s)) return false
  const [y, m, d] = s.split("-").map(Number) as [number, number, number]
  if (m < 1 || m > 12 || d < 1) return false
  const days = [
    31,
    (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31
  ][m - 1]!
  return d <= days
}

const countries: Readonly<Record<string, string>> = iso3166.codes
const currencies: Readonly<Record<string, string>> = iso4217.codes

/** An officially assigned ISO 3166-1 alpha-2 code (upper case). */
export const isCountryCode = (s: string): boolean => Object.hasOwn(countries, s)
/** An active ISO 4217 alphabetic code (upper case). */
export const isCurrencyCode = (s: string): boolean => Object.hasOwn(currencies, s)

export const countryPrefix = "eba_GA:"
export const currencyPrefix = "eba_CU:"
/** `eba_GA:qx2007`: "not applicable", allowed only in the key country columns of B_02.02. */
export const countryNotApplicable = "eba_GA:qx2007"
/** The literal for a string key that does not apply (EBA Q&A 2024_7285), e.g. B_04.01.c0040 for a non-branch. */
export const notApplicable = "Not applicable"

const euidShape = /^[A-Z]{2}[A-Z0-9]{1,14}\.[A-Za-z0-9./-]{1,50}$/

/** Columns whose value is an identification code whose format follows a sibling "type of code" column. */
export const codeTypeColumn: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "B_02.02": { c0030: "c0040" },
  "B_03.02": { c0020: "c0030" },
  "B_05.01": { c0010: "c0020", c0030: "c0040", c0110: "c0120" },
  "B_05.02": { c0030: "c0040", c0060: "c0070" },
  "B_07.01": { c0020: "c0030" }
}

const qx2007Allowed: Readonly<Record<string, ReadonlyArray<string>>> = { "B_02.02": ["c0130", "c0150", "c0160"] }

// ── input layer ─────────────────────────────────────────────────────────────────────────────────
export type Normalised = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly reason: string }
const ok = (value: string): Normalised => ({ ok: true, value })
const bad = (reason: string): Normalised => ({ ok: false, reason })

const listOf = (def: EnumDef): string => {
  const entries = Object.entries(def.values ?? {})
  return entries.length <= 30
    ? entries.map(([k, v]) => `${k} (${v})`).join(", ")
    : `${entries.length} codes, see docs/dora.md`
}

/** Resolves an enumerated value: the full code, the bare member (`x28`), or the label (`Yes`), case-insensitively. */
export const resolveEnum = (def: EnumDef, raw: string): string | null => {
  const s = raw.trim()
  const lower = s.toLowerCase()
  const values = def.values
  if (values === undefined) {
    // An open list (LICENCED_ACTIVITY): members are `<prefix>:x<digits>`.
    const m = new RegExp(`^(?:${def.prefix.toLowerCase()}:)?(x\\d+)$`).exec(lower)
    return m ? `${def.prefix}:${m[1]}` : null
  }
  for (const [code, label] of Object.entries(values)) {
    const member = code.slice(code.indexOf(":") + 1)
    if (code.toLowerCase() === lower || member.toLowerCase() === lower || label.toLowerCase() === lower) return code
  }
  // The label without its note in brackets ("LEI (verified …)" → "LEI"), or its acronym ("…, NIN" → "NIN").
  for (const [code, label] of Object.entries(values)) {
    const short = label.replace(/\s*\(.*\)\s*$/, "").toLowerCase()
    const acronym = /,\s*([A-Z]{2,5})$/.exec(label.replace(/\s*\(.*\)\s*$/, ""))?.[1]?.toLowerCase()
    if (short === lower || acronym === lower) return code
  }
  return null
}

/**
 * The value as the register stores it, or why it cannot be a value of this column at all.
 * An empty value is handled by the caller (it clears a cell; it is never allowed in a key column).
 */
export const normaliseInput = (
  templates: Templates,
  table: Template,
  column: TemplateColumn,
  raw: string
): Normalised => {
  const s = raw.trim()
  const where = `${table.code}.${column.code} (${column.name})`
  if (s.startsWith("#")) return bad(`${where}: a value may not begin with "#" (EBA filing rule)`)
  switch (column.type) {
    case "lei": {
      const v = s.toUpperCase()
      return isLeiShaped(v)
        ? ok(v)
        : bad(`${where}: "${s}" is not an LEI (18 letters or digits followed by 2 check digits)`)
    }
    case "date":
      return dateShape.test(s) ? ok(s) : bad(`${where}: "${s}" is not a date written YYYY-MM-DD`)
    case "country": {
      if (/^(eba_ga:)?qx2007$/i.test(s)) return ok(countryNotApplicable)
      const m = /^(?:eba_ga:)?([a-z]{2})$/i.exec(s)
      return m
        ? ok(`${countryPrefix}${m[1]!.toUpperCase()}`)
        : bad(`${where}: "${s}" is not a country code; write the ISO 3166-1 alpha-2 code, e.g. DE or eba_GA:DE`)
    }
    case "currency": {
      const m = /^(?:eba_cu:)?([a-z]{3})$/i.exec(s)
      return m
        ? ok(`${currencyPrefix}${m[1]!.toUpperCase()}`)
        : bad(`${where}: "${s}" is not a currency code; write the ISO 4217 code, e.g. EUR or eba_CU:EUR`)
    }
    case "monetary":
      return /^-?\d+(\.\d+)?$/.test(s)
        ? ok(s)
        : bad(
          `${where}: "${s}" is not an amount; write a plain unscaled number with "." as decimal separator and no thousands separator or symbol (e.g. 2561000.50)`
        )
    case "integer":
      return /^-?\d+$/.test(s) ? ok(s) : bad(`${where}: "${s}" is not a whole number`)
    case "boolean":
      return /^(true|false)$/i.test(s)
        ? ok(s.toLowerCase())
        : bad(`${where}: "${s}" is not a boolean; this link column takes "true"`)
    case "enum": {
      const def = column.enum !== undefined ? templates.enums[column.enum] : undefined
      if (def === undefined) return ok(s)
      const code = resolveEnum(def, s)
      return code !== null
        ? ok(code)
        : bad(
          `${where}: "${s}" is not in the closed list ${column.enum}: ${
            def.values ? listOf(def) : `codes ${def.prefix}:x<number>`
          }`
        )
    }
    case "code":
    case "string":
      return ok(s)
  }
}

// ── validity layer ──────────────────────────────────────────────────────────────────────────────
/**
 * Why a stored, non-empty value is not valid for its column, or null. `row` gives the sibling
 * cells (for identification codes, whose format follows their "type of code" column).
 */
export const cellProblem = (
  templates: Templates,
  table: Template,
  column: TemplateColumn,
  value: string,
  row: Readonly<Record<string, string>>
): string | null => {
  if (value.startsWith("#")) return `"${value}" begins with "#", which the EBA filing rules forbid`
  if (value !== value.trim()) return `"${value}" has leading or trailing blanks`
  switch (column.type) {
    case "lei":
      return leiProblem(value)
    case "date":
      return isCalendarDate(value) ? null : `"${value}" is not a valid date (YYYY-MM-DD, a real calendar day)`
    case "country": {
      if (value === countryNotApplicable) {
        return (qx2007Allowed[table.code] ?? []).includes(column.code)
          ? null
          : `"${value}" (not applicable) is only allowed in the key country columns of B_02.02; give the country`
      }
      if (!value.startsWith(countryPrefix)) {
        return `"${value}" is not a country code of the form eba_GA:<ISO 3166-1 alpha-2>`
      }
      const cc = value.slice(countryPrefix.length)
      return isCountryCode(cc) ? null : `unknown country "${cc}": not an ISO 3166-1 alpha-2 code`
    }
    case "currency": {
      if (!value.startsWith(currencyPrefix)) return `"${value}" is not a currency code of the form eba_CU:<ISO 4217>`
      const cc = value.slice(currencyPrefix.length)
      return isCurrencyCode(cc) ? null : `unknown currency "${cc}": not an active ISO 4217 code`
    }
    case "monetary":
      if (!/^-?\d+(\.\d+)?$/.test(value)) return `"${value}" is not an amount (plain decimal, "." separator)`
      return value.startsWith("-") ? `the amount ${value} is negative; it must be 0 or more` : null
    case "integer":
      if (!/^-?\d+$/.test(value)) return `"${value}" is not a whole number`
      if (value.startsWith("-")) return `${value} is negative; it must be 0 or more`
      if (table.code === "B_05.02" && column.code === "c0050" && Number(value) < 1) {
        return `rank ${value} must be 1 or more (1 = the direct provider)`
      }
      return null
    case "boolean":
      return value === "true" ? null : `"${value}": this link column must be "true"`
    case "enum": {
      const def = column.enum !== undefined ? templates.enums[column.enum] : undefined
      if (def === undefined) return null
      if (def.values === undefined) {
        return new RegExp(`^${def.prefix}:x\\d+$`).test(value)
          ? null
          : `"${value}" is not a code of ${column.enum} (${def.prefix}:x<number>)`
      }
      return Object.hasOwn(def.values, value) ? null : `"${value}" is not in the closed list ${column.enum}`
    }
    case "code": {
      const typeCol = codeTypeColumn[table.code]?.[column.code]
      const type = typeCol !== undefined ? row[typeCol] : undefined
      if (type === "eba_qCO:qx2000") {
        const p = leiProblem(value)
        return p === null ? null : `${p} (its type of code ${typeCol} is LEI)`
      }
      if (type === "eba_qCO:qx2002" && !euidShape.test(value)) {
        return `"${value}" is not an EUID (country code, register identifier, ".", registration number, e.g. NLNHR.12345678) as its type of code ${typeCol} says`
      }
      return null
    }
    case "string":
      return null
  }
}
