/**
 * Identifier tokenisation for the classifier: split a column or table name into whole, folded
 * tokens. Matching downstream is always token-to-token (never substring), so `passport` never
 * contains `pass` and `statement` never contains `state`.
 *
 * Steps: camelCase/PascalCase and letter/digit boundaries → separators (`_ - . $ # space /`) →
 * accent folding and lower-casing (`é→e`, `ß→ss`, `ü→u`) → abbreviation expansion (`dob → date birth`)
 * → compound splitting of glued words against the lexicon (`firstname → first name`,
 * `geburtsdatum → geburt datum`), memoised per raw token.
 */

/** What the tokenizer knows: whole words it may split compounds into, and abbreviations. */
export interface Lexicon {
  /** Every known word (folded), used to keep known words whole and to split compounds. */
  readonly words: ReadonlySet<string>
  /** Two-letter words allowed as compound parts (`id`, `no`, `at`, `by`, `ip`). */
  readonly shortParts: ReadonlySet<string>
  /** Known words that must never be used as a compound part (too ambiguous when glued). */
  readonly noParts: ReadonlySet<string>
  /** Abbreviation → its expansion in tokens (`fname → [first, name]`). */
  readonly abbreviations: ReadonlyMap<string, ReadonlyArray<string>>
  /** Tokens dropped after splitting (`of`, `de`, `van`…). */
  readonly stopwords: ReadonlySet<string>
}

const foldMap: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
  ſ: "s"
}

// eslint-disable-next-line no-control-regex
const asciiOnly = /^[\x00-\x7f]*$/
const combiningMarks = /[\u0300-\u036f]/g
const specialLetters = /[ßæœøłđðþıſ]/g

/** Lower-case and strip accents: `Größe → grosse`, `prénom → prenom`, `Straße → strasse`. */
export const fold = (s: string): string => {
  const lower = s.toLowerCase()
  if (asciiOnly.test(lower)) return lower
  return lower
    .replace(specialLetters, (c) => foldMap[c] ?? c)
    .normalize("NFD")
    .replace(combiningMarks, "")
}

/**
 * German umlaut spelled out (`ue`, `oe`, `ae`) folded to the bare vowel, so that `strasse`,
 * `geburtsdatum`, `gebuehr` and `gebühr` meet: the vocabulary is stored in the `ü → u` form.
 */
export const deUmlaut = (
  s: string
): string => (s.includes("ae") || s.includes("oe") || s.includes("ue") ? s.replace(/([aou])e/g, "$1") : s)

/**
 * Split an identifier on separators, camelCase, acronym and letter/digit boundaries, keeping the
 * original case until each piece is folded. `IPAddress` → `ip address`, `address2` → `address 2`.
 * ASCII names (nearly all of them) take a single-pass scanner; others the Unicode regexes.
 */
export const splitRaw = (name: string): Array<string> => (asciiOnly.test(name) ? splitAscii(name) : splitUnicode(name))

const UPPER = 1
const LOWER = 2
const DIGIT = 3
const charClass = (c: number): number =>
  c >= 97 && c <= 122 ? LOWER : c >= 65 && c <= 90 ? UPPER : c >= 48 && c <= 57 ? DIGIT : 0

const splitAscii = (name: string): Array<string> => {
  const out: Array<string> = []
  const n = name.length
  let start = -1
  let prev = 0
  for (let i = 0; i < n; i++) {
    const k = charClass(name.charCodeAt(i))
    if (k === 0) {
      if (start >= 0) out.push(name.slice(start, i).toLowerCase())
      start = -1
      prev = 0
      continue
    }
    if (start < 0) {
      start = i
      prev = k
      continue
    }
    let boundary = false
    if (k === UPPER && (prev === LOWER || prev === DIGIT)) boundary = true
    else if (k === UPPER && prev === UPPER) {
      // ACRONYM + Word: IPAddress → IP | Address (a word needs at least two lower-case letters)
      boundary = charClass(name.charCodeAt(i + 1)) === LOWER && charClass(name.charCodeAt(i + 2)) === LOWER
    } else if (k === DIGIT && prev !== DIGIT) boundary = true
    else if (k !== DIGIT && prev === DIGIT) boundary = true
    if (boundary) {
      out.push(name.slice(start, i).toLowerCase())
      start = i
    }
    prev = k
  }
  if (start >= 0) out.push(name.slice(start).toLowerCase())
  return out
}

const splitUnicode = (name: string): Array<string> => {
  const out: Array<string> = []
  // Separators: anything that is not a letter or digit (Unicode-aware).
  const parts = name.split(/[^\p{L}\p{N}]+/u)
  for (const part of parts) {
    if (part.length === 0) continue
    const pieces = part
      // lower/digit → Upper: firstName → first Name
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
      // ACRONYM → Word: IPAddress → IP Address
      .replace(/(\p{Lu})(\p{Lu}\p{Ll}{2,})/gu, "$1 $2")
      // letters ↔ digits: address2 → address 2, p2022 → p 2022
      .replace(/(\p{L})(\p{N})/gu, "$1 $2")
      .replace(/(\p{N})(\p{L})/gu, "$1 $2")
      .split(" ")
    for (const p of pieces) if (p.length > 0) out.push(fold(p))
  }
  return out
}

/** A tokenizer bound to a lexicon; memoises per raw token and per whole identifier. */
export interface Tokenizer {
  /** Whole-token analysis of an identifier, with abbreviations expanded and compounds split. */
  readonly tokens: (name: string) => ReadonlyArray<string>
  /** Free text (a comment): words only, no compound splitting, stopwords kept out. */
  readonly words: (text: string) => ReadonlyArray<string>
  /** Split one glued lower-case word into known parts, or `null` when it does not split cleanly. */
  readonly splitCompound: (word: string) => ReadonlyArray<string> | null
  /** Whether the lexicon knows this word (with umlaut folding and plural tolerance). */
  readonly knows: (word: string) => boolean
}

const isDigits = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return s.length > 0
}

const pluralRules: ReadonlyArray<readonly [string, string]> = [
  ["ies", "y"],
  ["es", ""],
  ["s", ""],
  ["en", ""],
  ["n", ""],
  ["i", "e"],
  ["i", "o"],
  ["e", "a"]
]

const englishPlurals: ReadonlyArray<readonly [string, string]> = [
  ["ies", "y"],
  ["s", ""],
  ["es", ""]
]

/** Memo tables stop growing at this size (a source of unique generated names must not grow them forever). */
const CACHE_LIMIT = 50_000

const MAX_PARTS = 4
const MIN_SPLIT_LENGTH = 5

export const createTokenizer = (lexicon: Lexicon): Tokenizer => {
  const { abbreviations, noParts, shortParts, stopwords, words } = lexicon
  const compoundCache = new Map<string, ReadonlyArray<string> | null>()
  // The first three letters of every known word: a compound part can only start where these do,
  // which prunes the split of unknown words (random ids, codes) to almost nothing.
  const prefixes = new Set<string>()
  for (const w of words) if (w.length >= 3) prefixes.add(w.slice(0, 3))
  for (const w of abbreviations.keys()) if (w.length >= 3) prefixes.add(w.slice(0, 3))

  /** The lexicon form of a word: itself, its umlaut-folded form, or a simple singular. */
  const direct = (w: string): string | null => {
    if (words.has(w)) return w
    const d = deUmlaut(w)
    if (d !== w && words.has(d)) return d
    return null
  }
  const canonical = (w: string): string | null => {
    // Every rule below keeps the first three letters: an unknown prefix cannot become a known word.
    if (w.length >= 4 && !prefixes.has(w.slice(0, 3))) return null
    const d = direct(w)
    if (w.length < 3) return d
    if (d !== null) {
      // A known plural still folds to its known singular (customers → customer), so that table and
      // key nouns meet (`customers.customer_id`).
      if (/(ss|us|is)$/.test(w)) return d
      for (const [suffix, replacement] of englishPlurals) {
        if (w.endsWith(suffix)) {
          const stem = w.slice(0, w.length - suffix.length) + replacement
          if (stem.length >= 2 && words.has(stem)) return stem
        }
      }
      return d
    }
    // Plurals in the seven languages: -s, -es, -ies→y, -en, -n, Italian -i→-e/-o, -e→-a.
    if (/(ss|us|is)$/.test(w)) return null
    if (w.length === 3) return w.endsWith("s") && words.has(w.slice(0, 2)) ? w.slice(0, 2) : null
    for (const [suffix, replacement] of pluralRules) {
      if (w.endsWith(suffix)) {
        const stem = w.slice(0, w.length - suffix.length) + replacement
        if (stem.length >= 2) {
          const c = direct(stem)
          if (c !== null) return c
        }
      }
    }
    return null
  }

  const knows = (w: string): boolean => canonical(w) !== null || abbreviations.has(w)

  const isPart = (w: string): boolean => {
    if (w.length < 2) return false
    if (w.length === 2) return shortParts.has(w)
    if (noParts.has(w)) return false
    return canonical(w) !== null || abbreviations.has(w)
  }

  /** Part forms allowed inside a compound: the word, the word + plural/linking `s`, `es`, `n`, `en`. */
  const partOf = (w: string): string | null => {
    if (isPart(w)) return abbreviations.has(w) ? w : (canonical(w) ?? w)
    // German linking elements (geburts|datum, kunden|nummer) and plural parts.
    for (const suffix of ["s", "es", "n", "en", "e"]) {
      if (w.length > suffix.length + 2 && w.endsWith(suffix)) {
        const stem = w.slice(0, -suffix.length)
        if (stem.length >= 3 && !noParts.has(stem) && canonical(stem) !== null) return canonical(stem)
      }
    }
    return null
  }

  const splitCompound = (word: string): ReadonlyArray<string> | null => {
    const cached = compoundCache.get(word)
    if (cached !== undefined) return cached
    let result: ReadonlyArray<string> | null = null
    // A compound must start with a known word: reject at once when no known word starts like it.
    const startsKnown = prefixes.has(word.slice(0, 3)) || shortParts.has(word.slice(0, 2))
    if (startsKnown && word.length >= MIN_SPLIT_LENGTH && /^[a-z]+$/.test(word)) {
      // best[i] = fewest parts covering word[0, i); ties prefer the longer last part.
      const n = word.length
      const best: Array<{ count: number; parts: Array<string> } | null> = new Array(n + 1).fill(null)
      best[0] = { count: 0, parts: [] }
      for (let end = 2; end <= n; end++) {
        for (let start = Math.max(0, end - 24); start <= end - 2; start++) {
          const prev = best[start]
          if (prev === null || prev.count >= MAX_PARTS) continue
          if (start === 0 && end === n) continue
          if (end - start >= 3 && !prefixes.has(word.slice(start, start + 3))) continue
          const part = partOf(word.slice(start, end))
          if (part === null) continue
          const cur = best[end]
          if (cur === null || prev.count + 1 < cur.count) {
            best[end] = { count: prev.count + 1, parts: [...prev.parts, part] }
          }
        }
      }
      const found = best[n]
      if (found !== null && found !== undefined && found.count >= 2) result = found.parts
    }
    if (compoundCache.size < CACHE_LIMIT) compoundCache.set(word, result)
    return result
  }

  const expandCache = new Map<string, ReadonlyArray<string>>()
  const expand = (raw: string, out: Array<string>): void => {
    let cached = expandCache.get(raw)
    if (cached === undefined) {
      const pieces: Array<string> = []
      if (isDigits(raw)) pieces.push(raw)
      else expandUncached(raw, pieces)
      cached = pieces
      if (expandCache.size < CACHE_LIMIT) expandCache.set(raw, cached)
    }
    for (const p of cached) out.push(p)
  }

  const expandUncached = (raw: string, out: Array<string>): void => {
    const abbr = abbreviations.get(raw)
    if (abbr !== undefined) {
      for (const t of abbr) out.push(t)
      return
    }
    const c = canonical(raw)
    if (c !== null) {
      out.push(c)
      return
    }
    const parts = splitCompound(raw)
    if (parts !== null) {
      for (const p of parts) {
        const a = abbreviations.get(p)
        if (a !== undefined) { for (const t of a) out.push(t) }
        else out.push(canonical(p) ?? p)
      }
      return
    }
    out.push(raw)
  }

  // Whole names are not memoised here (the engine memoises what it needs per name and per shape);
  // each raw piece's expansion is.
  const tokens = (name: string): ReadonlyArray<string> => {
    const raw = splitRaw(name)
    const joined: Array<string> = []
    // `e mail` / `e-mail` → `email`
    for (let i = 0; i < raw.length; i++) {
      const t = raw[i]!
      if (t === "e" && raw[i + 1] === "mail") {
        joined.push("email")
        i++
      } else joined.push(t)
    }
    const out: Array<string> = []
    for (const t of joined) expand(t, out)
    let stop = 0
    for (const t of out) if (stopwords.has(t)) stop++
    if (stop === 0 || stop === out.length) return out
    return out.filter((t) => !stopwords.has(t))
  }

  const wordsOf = (text: string): ReadonlyArray<string> => {
    const out: Array<string> = []
    for (const w of text.split(/[^\p{L}\p{N}]+/u)) {
      if (w.length === 0) continue
      const f = fold(w)
      if (stopwords.has(f)) continue
      const abbr = abbreviations.get(f)
      if (abbr !== undefined) { for (const t of abbr) out.push(t) }
      else out.push(canonical(f) ?? f)
    }
    return out
  }

  return { tokens, words: wordsOf, splitCompound, knows }
}
