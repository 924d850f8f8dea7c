/**
 * Human corrections of a column's personal-data flag (`catalog classify set|clear`): stored apart from
 * scan results, so they survive every re-scan, and attributed to CATALOG_SIGNER_EMAIL or the OS user.
 */
import { Effect } from "effect"
import { type ClassValue, classValues } from "../domain/Metadata.js"
import { ClassifyInputInvalid, DescribeEntityUnknown } from "../errors/index.js"
import { actor, AppEnv } from "./AppEnv.js"
import { Store, StoreReader } from "./Store.js"

/** Sets and clears classification overrides. */
export class Corrections extends Effect.Service<Corrections>()("catalog/Corrections", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv
    const store = yield* Store
    const reader = yield* StoreReader

    /** The column, or DESCRIBE_ENTITY_UNKNOWN naming `columnId`. */
    const requireColumn = (id: string) =>
      Effect.gen(function*() {
        const col = yield* Effect.orDie(reader.column(id))
        if (col === null) {
          return yield* new DescribeEntityUnknown({
            message: `No column with id "${id}".`,
            fix: "Column ids are <source>/<schema>/<table>/<column>; list them with `catalog show <datasetId>`.",
            param: "columnId"
          })
        }
        return col
      })

    /** Overrides the column's class; says what it was, what the scan says and whether the two now disagree. */
    const set = Effect.fn("Corrections.set")(function*(id: string, given: string) {
      const value: ClassValue | undefined = classValues.find((c) => c === given)
      if (value === undefined) {
        return yield* new ClassifyInputInvalid({
          message: `"${given}" is not a class; use personal, special, criminal or not.`,
          param: "class"
        })
      }
      // The scan's own class (`m_value`) is what an override sits beside: the override does not change it.
      const col = yield* requireColumn(id)
      const by = actor(env)
      const r = yield* Effect.orDie(store.setOverride(id, value, by))
      return { column: id, value, previous: r.previous, machine: col.m_value, by, drift: col.m_value !== value }
    })

    /** Removes the column's override (if any): it returns to the scan's own class. */
    const clear = Effect.fn("Corrections.clear")(function*(id: string) {
      yield* requireColumn(id)
      const r = yield* Effect.orDie(store.clearOverride(id, actor(env)))
      return { column: id, cleared: r.cleared, value: r.restored }
    })

    return { set, clear } as const
  })
}) {}
