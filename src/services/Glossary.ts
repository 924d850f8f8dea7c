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
import { Context, DateTime, Effect, Layer } from "effect"
import { DescribeEntityUnknown, GlossaryTermUnknown } from "../errors/index.js"
import { ChangeLog } from "./ChangeLog.js"
import { Store, type StoreError, StoreReader } from "./Store.js"

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
  ) => Effect.Effect<GlossarySetResult, GlossaryTermUnknown | DescribeEntityUnknown | StoreError>
}>() {}

export const GlossaryLive = Layer.effect(
  Glossary,
  Effect.gen(function*() {
    const reader = yield* StoreReader
    const store = yield* Store
    const changeLog = yield* ChangeLog

    const set: Glossary["Type"]["set"] = (input) =>
      store.transaction(Effect.gen(function*() {
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
        const prev = yield* reader.glossaryTerm(term)

        let datasets: ReadonlyArray<string>
        if (input.datasets === undefined) {
          datasets = prev !== null ? prev.datasets : []
        } else {
          const wanted = [...new Set(input.datasets.map((d) => d.trim()).filter((d) => d !== ""))]
          const resolved: Array<string> = []
          const unknown: Array<string> = []
          for (const id of wanted) {
            const hit = yield* reader.resolveDatasetId(id)
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

        if (
          prev !== null && prev.term === term && prev.definition === definition &&
          JSON.stringify(prev.datasets) === JSON.stringify(datasets)
        ) {
          return { term, definition, datasets, updatedAt: prev.updated_at, by: prev.by, outcome: "unchanged" as const }
        }
        const at = DateTime.formatIso(yield* DateTime.now)
        yield* store.saveGlossaryTerm({ rowid: prev?.rowid ?? null, term, definition, datasets, at, by: input.by })
        yield* changeLog.record({
          at,
          scanId: null,
          kind: "glossary.set",
          entity: term,
          sourceId: null,
          detail: {
            definition,
            datasets,
            previous: prev !== null
              ? { term: prev.term, definition: prev.definition, datasets: prev.datasets }
              : null
          },
          by: input.by
        })
        return {
          term,
          definition,
          datasets,
          updatedAt: at,
          by: input.by,
          outcome: prev !== null ? "updated" as const : "created" as const
        }
      }))

    return Glossary.of({ set })
  })
)
