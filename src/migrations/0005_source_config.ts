import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What catalog.yml said of each source when it was last scanned, beyond its kind and driver: the NAME of
 * the variable holding its connection string (never the secret) and its file path (manual, dbt). `invite`
 * compares them with catalog.yml to tell that the catalog no longer describes what is configured.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE sources ADD COLUMN connection_ref TEXT`
  yield* sql`ALTER TABLE sources ADD COLUMN path TEXT`
})
