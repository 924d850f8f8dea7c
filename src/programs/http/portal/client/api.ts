/**
 * The page's only data path: GET requests to the read API (/api/v1) of the `catalog open` process.
 */
import type { ChangeList, Dataset, DatasetList, LineageList, SearchResult } from "../../../../domain/Catalog.js"
import type { DoraState, Glossary, Provenance, RopaDraft } from "../../../../domain/Compliance.js"

/** An error body of the API (`{error:{code,message,fix}}`), or the API not answering at all. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fix: string | null,
    readonly status: number,
    readonly param: string | null
  ) {
    super(message)
  }
}

type Query = Readonly<Record<string, string | number | undefined>>

const url = (path: string, query?: Query): string => {
  const q = new URLSearchParams()
  if (query) { for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, String(v)) }
  const qs = q.toString()
  return `/api/v1${path}${qs ? `?${qs}` : ""}`
}

const asError = (status: number, body: unknown): ApiError => {
  const e = (body as { error?: { code?: unknown; message?: unknown; fix?: unknown; param?: unknown } } | null)?.error
  if (e && typeof e.code === "string") {
    return new ApiError(
      e.code,
      typeof e.message === "string" ? e.message : e.code,
      typeof e.fix === "string" ? e.fix : null,
      status,
      typeof e.param === "string" ? e.param : null
    )
  }
  return new ApiError(`HTTP_${status}`, `The read API answered with status ${status}.`, null, status, null)
}

export const get = async <T>(path: string, query?: Query): Promise<T> => {
  let res: Response
  try {
    res = await fetch(url(path, query), { headers: { accept: "application/json" }, cache: "no-store" })
  } catch {
    throw new ApiError(
      "API_UNREACHABLE",
      "The local read API is not answering: the `catalog open` process has stopped.",
      "Start it again in a terminal with `catalog open`, then reload this page.",
      0,
      null
    )
  }
  let body: unknown = null
  try {
    body = await res.json()
  } catch {
    body = null
  }
  if (!res.ok) throw asError(res.status, body)
  return body as T
}

export const api = {
  datasets: () => get<DatasetList>("/datasets"),
  dataset: (id: string) => get<Dataset>(`/datasets/${encodeURIComponent(id)}`),
  search: (q: string, limit?: number) => get<SearchResult>("/search", { q, limit }),
  lineage: (dataset?: string) => get<LineageList>("/lineage", { dataset }),
  compliance: () => get<RopaDraft>("/compliance/state"),
  provenance: () => get<Provenance>("/provenance"),
  changes: (since?: string, limit?: number) => get<ChangeList>("/changes", { since, limit }),
  glossary: () => get<Glossary>("/glossary"),
  dora: () => get<DoraState>("/dora"),
  index: () => get<unknown>("")
}
