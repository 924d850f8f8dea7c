/** The schema version a catalog file records (for `doctor`, which must not migrate or lock the file). */
import { Effect, Schema } from "effect"
import { DatabaseSync } from "node:sqlite"

const Version = Schema.UndefinedOr(Schema.Struct({ v: Schema.NullOr(Schema.Number) }))
const decodeVersion = Schema.decodeUnknownSync(Version)

/**
 * The highest migration applied to the catalog at `file`, opened read-only: 0 when none is recorded,
 * -1 when the file is not a catalog this tool can read.
 */
export const storedSchemaVersion = (file: string): Effect.Effect<number> =>
  Effect.try(() => {
    const db = new DatabaseSync(file, { readOnly: true })
    try {
      return decodeVersion(db.prepare("SELECT max(migration_id) AS v FROM effect_sql_migrations").get())?.v ?? 0
    } finally {
      db.close()
    }
  }).pipe(Effect.orElseSucceed(() => -1))
