/**
 * Glossary writes: `glossary set <term> <definition> [--datasets id,id]`. A term is matched
 * case-insensitively (setting "customer" updates "Customer"). Each row of `glossary` has its search
 * document in `glossary_fts` under the same rowid, so `catalog search` (and the MCP/HTTP search)
 * finds terms by any word of the term or the definition. Changes land in the change-log as
 * `glossary.set`, attributed to the person.
 *
 * Related dataset ids must exist in the catalog; an unknown one is refused with
 * `DESCRIBE_ENTITY_UNKNOWN` ("no dataset or column with that id", the registry's code for exactly
 * that), naming `datasets`. `GLOSSARY_TERM_UNKNOWN` is kept for a missing term or definition.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { DescribeEntityUnknown, GlossaryTermUnknown } from "../errors/index.js"
import { type GlossaryRow, resolveDatasetId, searchWords } from "./Store.js"

export interface GlossarySetInput {
  readonly term: string
  readonly definition: string
  /** `undefined`: keep the term's related datasets (none for a new term); an array replaces them. */
  readonly datasets: ReadonlyArray<string> | undefined
  readonly by: string
}

export interface GlossarySetResult {
  readonly term: string
  readonly definition: string
  readonly datasets: ReadonlyArray<string>
  readonly updatedAt: string
  readonly by: string | null
  /** `created`, `updated`, or `unchanged` (same definition and datasets: nothing written). */
  readonly outcome: "created" | "updated" | "unchanged"
}

export class Glossary extends Context.Tag("catalog/Glossary")<Glossary, {
  readonly set: (
    input: GlossarySetInput
  ) => Effect.Effect<GlossarySetResult, GlossaryTermUnknown | DescribeEntityUnknown | SqlError.SqlError>
}>() {}

/** The search document of a term: its words as written and split (`customerLifetimeValue` → `customer lifetime value`). */
const ftsTerm = (term: string): string => {
  const split = searchWords(term)
  return split === term ? term : `${term} ${split}`
}

export const GlossaryLive = Layer.effect(
  Glossary,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findDataset = (id: string) => resolveDatasetId(sql, id)

    const set: Glossary["Type"]["set"] = (input) =>
      sql.withTransaction(Effect.gen(function*() {
        const term = input.term.trim().replace(/\s+/g, " ")
        const definition = input.definition.trim()
        if (term === "") {
          return yield* new GlossaryTermUnknown({ message: "The glossary term is missing.", param: "term" })
        }
        if (definition === "") {
          return yield* new GlossaryTermUnknown({
            message: `The definition of "${term}" is missing.`,
            fix: `Usage: catalog glossary set "${term}" "<plain-English definition>" [--datasets id,id]`,
            param: "definition"
          })
        }
        const prev = (yield* sql<
          GlossaryRow & { rowid: number }
        >`SELECT rowid, * FROM glossary WHERE term = ${term} COLLATE NOCASE`)[0]

        let datasets: ReadonlyArray<string>
        if (input.datasets === undefined) {
          datasets = prev !== undefined ? (JSON.parse(prev.datasets) as Array<string>) : []
        } else {
          const wanted = [...new Set(input.datasets.map((d) => d.trim()).filter((d) => d !== ""))]
          const resolved: Array<string> = []
          const unknown: Array<string> = []
          for (const id of wanted) {
            const hit = yield* findDataset(id)
            if (hit === null) unknown.push(id)
            else if (!resolved.includes(hit)) resolved.push(hit)
          }
          if (unknown.length > 0) {
            return yield* new DescribeEntityUnknown({
              message: `No dataset with id ${
                unknown.map((u) => `"${u}"`).join(", ")
              }; the glossary term was not saved.`,
              fix:
                "Related datasets must be in the catalog: list ids with `catalog datasets` (or `catalog describe list`) and pass them as --datasets id,id.",
              param: "datasets",
              details: { unknown }
            })
          }
          datasets = resolved
        }

        const datasetsJson = JSON.stringify(datasets)
        if (
          prev !== undefined && prev.term === term && prev.definition === definition && prev.datasets === datasetsJson
        ) {
          return { term, definition, datasets, updatedAt: prev.updated_at, by: prev.by, outcome: "unchanged" as const }
        }
        const at = new Date().toISOString()
        let rowid: number
        if (prev !== undefined) {
          yield* sql`UPDATE glossary SET term = ${term}, definition = ${definition}, datasets = ${datasetsJson}, updated_at = ${at}, by = ${input.by} WHERE rowid = ${prev.rowid}`
          rowid = prev.rowid
          yield* sql`DELETE FROM glossary_fts WHERE rowid = ${rowid}`
        } else {
          const inserted = yield* sql<
            { rowid: number }
          >`INSERT INTO glossary (term, definition, datasets, updated_at, by) VALUES (${term}, ${definition}, ${datasetsJson}, ${at}, ${input.by}) RETURNING rowid`
          rowid = inserted[0]!.rowid
        }
        yield* sql`INSERT INTO glossary_fts (rowid, term, definition) VALUES (${rowid}, ${
          ftsTerm(term)
        }, ${definition})`
        const detail = {
          definition,
          datasets,
          previous: prev !== undefined
            ? { term: prev.term, definition: prev.definition, datasets: JSON.parse(prev.datasets) as Array<string> }
            : null
        }
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${at}, NULL, 'glossary.set', ${term}, NULL, ${
          JSON.stringify(detail)
        }, ${input.by})`
        return {
          term,
          definition,
          datasets,
          updatedAt: at,
          by: input.by,
          outcome: prev !== undefined ? "updated" as const : "created" as const
        }
      }))

    return Glossary.of({ set })
  })
)
