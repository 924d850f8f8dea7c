/**
 * Decoding rows of `index.db` at the SQL edge. A row that does not decode to its Schema was written by
 * another version of the tool (or by hand): `SCHEMA_MIGRATION_REQUIRED`, naming the table and column.
 */
import { Effect, Either, ParseResult, Schema, type SchemaAST } from "effect"
import { type Check, valueCheck } from "../../domain/PlainSchema.js"
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

// ── the fast path ────────────────────────────────────────────────────────────────────────────
// A catalog read returns up to hundreds of thousands of rows, and Schema's general decoder costs a few
// microseconds a row (10,200 dataset rows: 12–30 ms). A row Schema here is a struct of plain fields
// (strings, numbers, literals, null, their unions; a few refined ones): for such a struct each field's
// check is derived once from the Schema's own AST (domain/PlainSchema.ts), and a row that passes is
// exactly what decoding would give (its declared fields: a row that also holds others is copied without
// them). A row that fails is decoded by Schema to get the failure it reports.

interface FastRow {
  /** 0: not a row of the schema; 1: one, holding only declared fields; 2: one, with other fields too. */
  readonly check: (row: unknown) => 0 | 1 | 2
  readonly pick: (row: Record<string, unknown>) => Record<string, unknown>
}

/** The fast check and copy of a struct Schema of plain fields; `null` for any other (Schema decodes it). */
const fastRowOf = (ast: SchemaAST.AST): FastRow | null => {
  if (ast._tag !== "TypeLiteral" || ast.indexSignatures.length > 0) return null
  const fields: Array<{ readonly name: string; readonly optional: boolean; readonly check: Check }> = []
  for (const p of ast.propertySignatures) {
    const check = valueCheck(p.type)
    if (check === null || typeof p.name !== "string") return null
    fields.push({ name: p.name, optional: p.isOptional, check })
  }
  return {
    check: (row) => {
      if (typeof row !== "object" || row === null) return 0
      const r = row as Record<PropertyKey, unknown>
      let present = 0
      for (const f of fields) {
        if (!(f.name in r)) {
          if (f.optional) continue
          return 0
        }
        if (!f.check(r[f.name])) return 0
        present++
      }
      let keys = 0
      for (const _ in r) keys++
      return keys === present ? 1 : 2
    },
    pick: (row) => {
      const out: Record<string, unknown> = {}
      for (const f of fields) if (f.name in row) out[f.name] = row[f.name]
      return out
    }
  }
}

/** Every row as `schema`, or the ParseError Schema reports for the first row that is not one. */
const rowsDecoder = <A, I>(
  schema: Schema.Schema<A, I>
): (rows: ReadonlyArray<unknown>) => Either.Either<ReadonlyArray<A>, ParseResult.ParseError> => {
  const decode = Schema.decodeUnknownEither(Schema.Array(schema))
  const fast = fastRowOf(schema.ast)
  if (fast === null) return decode
  return (rows) => {
    let extra = false
    for (const row of rows) {
      const shape = fast.check(row)
      if (shape === 0) return decode(rows)
      if (shape === 2) extra = true
    }
    // The check above is the Schema's own, field by field: these are its values (copied only when a row
    // carries fields the Schema does not declare, which decoding would drop).
    return Either.right((extra ? rows.map((r) => fast.pick(r as Record<string, unknown>)) : rows) as ReadonlyArray<A>)
  }
}

/** Decodes every row of a result as `schema`, failing with `rowInvalid` naming `table`. */
export const decodeRows = <A, I>(table: string, schema: Schema.Schema<A, I>) => {
  const decode = rowsDecoder(schema)
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
  const decode = rowsDecoder(schema)
  return (rows: ReadonlyArray<unknown>): ReadonlyArray<A> =>
    Either.getOrThrowWith(decode(rows), (e) => new RowDecodeFailure(rowInvalid(table, e)))
}
