/**
 * Search: the FTS5 query the store runs, and the ranker that turns the store's candidate datasets,
 * their columns and the glossary terms it found into scored, explained hits.
 */
import type { Context, Effect } from "effect"
import type { SearchHit, SearchResult } from "../../domain/Catalog.js"
import { type SearchColumnRow, searchWords, type StoreReader } from "../Store.js"

export type { SearchColumnRow }
import { boundBytes } from "./resources.js"

type StoreReaderApi = Context.Tag.Service<StoreReader>
/** A dataset the store's full-text index found, with its FTS score. */
export type SearchDatasetRow = Effect.Effect.Success<ReturnType<StoreReaderApi["searchDatasets"]>>[number]
/** A glossary term the store's full-text index found, with its FTS score. */
export type SearchGlossaryRow = Effect.Effect.Success<ReturnType<StoreReaderApi["searchGlossary"]>>[number]

/** A search request's words: as the user wrote them, joined back for display, and as an FTS5 AND query. */
export interface SearchQuery {
  readonly words: ReadonlyArray<string>
  readonly text: string
  readonly match: string
}

const nonWord = /[^\p{L}\p{N}]+/u

/** The lower-case search terms in user words (`customerEmail` and `customer_email` give customer, email). */
export const searchTerms = (words: ReadonlyArray<string>): Array<string> =>
  words.flatMap((w) => searchWords(w).toLowerCase().split(nonWord)).filter((t) => t.length > 0)

/** Turns user words into an FTS5 query: each word a quoted prefix term. */
export const ftsQuery = (words: ReadonlyArray<string>, op: "AND" | "OR"): string | null => {
  const terms = searchTerms(words)
  if (terms.length === 0) return null
  return [...new Set(terms)].map((t) => `"${t}"*`).join(` ${op} `)
}

/** Lower case without accents: `Müller` and `muller` compare equal. */
export const fold = (s: string): string => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()

/** The folded words of a name or comment, as the ranker matches terms against them. */
export const nameWords = (s: string): ReadonlyArray<string> =>
  fold(searchWords(s)).split(nonWord).filter((t) => t.length > 0)

/** How many candidate datasets to ask the index for, for a page of `limit` hits. */
export const searchCandidates = (limit: number): number => Math.min(200, Math.max(30, limit * 3))

/** What the ranker scores: the request and what the store found for it. */
export interface RankInput {
  readonly query: SearchQuery
  readonly datasets: ReadonlyArray<SearchDatasetRow>
  readonly columns: ReadonlyArray<SearchColumnRow>
  readonly glossary: ReadonlyArray<SearchGlossaryRow>
}

/**
 * Every hit, best first (ties by id), scores rounded to 3 decimals. A dataset is a hit when its name
 * or schema has a word starting with a term (FTS score × 1.2); a column when its name (× 1) or comment
 * (× 0.6) does, scaled by the share of the terms the column and its dataset's name cover; a glossary
 * term always (× 1.5). `wordsOf` gives a name's words (a cache of `nameWords` in the Reader).
 */
export const rankHits = (
  input: RankInput,
  wordsOf: (s: string) => ReadonlyArray<string> = nameWords
): Array<SearchHit> => {
  const { query } = input
  const terms = searchTerms(query.words)
  const columnsByDataset = new Map<string, Array<SearchColumnRow>>()
  for (const c of input.columns) {
    const list = columnsByDataset.get(c.dataset_id)
    if (list) list.push(c)
    else columnsByDataset.set(c.dataset_id, [c])
  }
  const folded = terms.map((t) => [t, fold(t)] as const)
  const matches = (s: string) => {
    const ws = wordsOf(s)
    return folded.filter(([, f]) => ws.some((w) => w.startsWith(f))).map(([t]) => t)
  }
  const hits: Array<SearchHit> = []
  for (const r of input.datasets) {
    const name = r.id.split("/").slice(-1)[0] ?? r.id
    const dm = matches(name)
    if (dm.length > 0 || matches(r.schema_name).length > 0) {
      const cols = columnsByDataset.get(r.id) ?? []
      const snippet = `${r.kind} ${r.schema_name}.${r.name} · ${cols.length} columns${
        r.comment ? ` · ${r.comment.slice(0, 100)}` : ""
      }`
      hits.push({
        kind: "dataset",
        id: r.id,
        datasetId: r.id,
        title: r.id,
        score: r.score * 1.2,
        why: `dataset name matches ${dm.map((t) => `"${t}"`).join(", ") || `"${query.text}"`}`,
        snippet
      })
    }
    for (const c of columnsByDataset.get(r.id) ?? []) {
      const byName = matches(c.name)
      const byComment = c.comment ? matches(c.comment) : []
      if (byName.length === 0 && byComment.length === 0) continue
      const value = c.o_value ?? c.m_value
      const category = c.o_value === null || c.o_value === c.m_value
        ? c.m_category
        : c.o_value === "not"
        ? null
        : c.o_value
      const coverage = new Set([...byName, ...byComment, ...dm]).size / Math.max(1, new Set(terms).size)
      hits.push({
        kind: "column",
        id: c.id,
        datasetId: r.id,
        title: c.id,
        score: r.score * (byName.length > 0 ? 1 : 0.6) * coverage,
        why: byName.length > 0
          ? `column name matches ${byName.map((t) => `"${t}"`).join(", ")}${
            dm.length > 0 ? " in a dataset whose name matches" : ""
          }`
          : `column comment mentions ${byComment.map((t) => `"${t}"`).join(", ")}`,
        snippet: `${c.name} ${c.type} · ${value}${category ? ` (${category})` : ""}${
          c.comment ? ` · ${c.comment.slice(0, 80)}` : ""
        }`,
        classification: value
      })
    }
  }
  for (const t of input.glossary) {
    hits.push({
      kind: "glossary",
      id: `glossary:${t.term}`,
      datasetId: null,
      title: t.term,
      score: t.score * 1.5,
      why: `glossary term matches "${query.text}"`,
      snippet: t.definition.slice(0, 160)
    })
  }
  hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
  return hits.map((h) => ({ ...h, score: Math.round(h.score * 1000) / 1000 }))
}

/** The first `limit` ranked hits, cut to the list byte budget, with how many there were. */
export const searchPage = (text: string, hits: ReadonlyArray<SearchHit>, limit: number): SearchResult => {
  const out = boundBytes(hits.slice(0, limit))
  return {
    q: text,
    returned: out.length,
    total: hits.length,
    truncated: hits.length > out.length,
    hits: out
  }
}
