/**
 * The Reader's caches. Each belongs to one Reader instance (the layer makes them when it builds the
 * Reader) and is bounded; nothing here is module state.
 */
import { Effect } from "effect"
import type { Dataset } from "../../domain/Catalog.js"
import { nameWords } from "./search.js"

/** A name's search words, computed once per name. */
export type WordsCache = (s: string) => ReadonlyArray<string>

/**
 * Column and dataset names repeat across a catalog: their search words are computed once. The cache
 * holds `max` + 1 names at most: when it is over `max`, the next new name empties it first.
 */
export const makeWordsCache = (max = 50_000): WordsCache => {
  const memo = new Map<string, ReadonlyArray<string>>()
  return (s) => {
    const hit = memo.get(s)
    if (hit !== undefined) return hit
    const words = nameWords(s)
    if (memo.size > max) memo.clear()
    memo.set(s, words)
    return words
  }
}

/**
 * Values by key, valid for one version of the data: a lookup at another version empties the cache
 * first. At most `max` values: adding one to a full cache drops the oldest added.
 */
export interface VersionedCache<A> {
  /** The value for `key` at `version`: the cached one, else `build`'s (kept when it succeeds). */
  readonly get: <E, R>(key: string, version: string, build: () => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How many values it holds. */
  readonly size: () => number
}

export const makeVersionedCache = <A>(max: number): VersionedCache<A> => {
  const entries = new Map<string, A>()
  let cachedVersion = ""
  return {
    get: (key, version, build) =>
      Effect.suspend(() => {
        if (version !== cachedVersion) {
          entries.clear()
          cachedVersion = version
        }
        const hit = entries.get(key)
        if (hit !== undefined) return Effect.succeed(hit)
        return Effect.map(build(), (value) => {
          if (entries.size >= max) {
            const oldest = entries.keys().next()
            if (oldest.done !== true) entries.delete(oldest.value)
          }
          entries.set(key, value)
          return value
        })
      }),
    size: () => entries.size
  }
}

/** The caches of one Reader instance. */
export interface ReaderCaches {
  readonly words: WordsCache
  /**
   * Long-running readers (open, mcp) answer the same datasets again and again; a dataset is rebuilt
   * only after another process committed (the store's data version moved): a scan, a correction, an
   * import. At most 2,000 datasets are kept.
   */
  readonly datasets: VersionedCache<Dataset>
}

/** New, empty caches: call once per Reader instance. */
export const makeReaderCaches = (): ReaderCaches => ({
  words: makeWordsCache(50_000),
  datasets: makeVersionedCache<Dataset>(2_000)
})
