/**
 * Decoding rows of `index.db` at the SQL edge. A row that does not decode to its Schema was written by
 * another version of the tool (or by hand): `SCHEMA_MIGRATION_REQUIRED`, naming the table and column.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { SchemaMigrationRequired } from "../../errors/index.js"

/** The columns a decoding failure points at (never the values: a message carries no data). */
const where = (error: ParseResult.ParseError): string => {
  const columns = new Set(
    ParseResult.ArrayFormatter.formatErrorSync(error).flatMap((issue) =>
      issue.path.filter((p): p is string => typeof p === "string")
    )
  )
  return columns.size > 0 ? ` (column ${[...columns].join(", ")})` : ""
}

export const rowInvalid = (table: string, error: ParseResult.ParseError): SchemaMigrationRequired =>
  new SchemaMigrationRequired({
    message: `A row of table ${table} in the local catalog does not have the shape this build reads${where(error)}.`,
    details: { table }
  })

/** Decodes every row of a result as `schema`, failing with `rowInvalid` naming `table`. */
export const decodeRows = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, SchemaMigrationRequired> =>
    Either.match(decode(rows), {
      onLeft: (e) => Effect.fail(rowInvalid(table, e)),
      onRight: Effect.succeed
    })
}

/** Runs a query and decodes all of its rows. */
export const findAll = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = decodeRows(table, schema)
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) => Effect.flatMap(query, decode)
}

/** Runs a query and decodes its first row (`null` when there is none). */
export const findOne = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = decodeRows(table, schema)
  return <E, R>(query: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.flatMap(query, (rows) => Effect.map(decode(rows.slice(0, 1)), (r) => r[0] ?? null))
}

/** A `count(*) AS n` result. */
export const Count = Schema.Struct({ n: Schema.Number })
/** A single `id` column. */
export const Id = Schema.Struct({ id: Schema.String })

/** Thrown inside a synchronous bulk write (the raw node:sqlite handle) and turned back into the coded error. */
export class RowDecodeFailure extends Error {
  constructor(readonly error: SchemaMigrationRequired) {
    super(error.message)
  }
}

/** Synchronous decoding for the raw handle: throws `RowDecodeFailure`. */
export const decodeRowsSync = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): ReadonlyArray<A> =>
    Either.getOrThrowWith(decode(rows), (e) => new RowDecodeFailure(rowInvalid(table, e)))
}
