import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The local catalog: the record's seal as pulled from the portal (issue 12). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Effect.void
  void sql
})
