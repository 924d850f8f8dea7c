import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** A fingerprint of each source's whole metadata (and the classifier's version): an unchanged source is not re-classified. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE sources ADD COLUMN raw_fingerprint TEXT`
})
