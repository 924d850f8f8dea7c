/**
 * Fast checks derived from a plain Schema's own AST: for the catalog's rows at the SQL edge
 * (layers/store/rows.ts) and the read API's response bodies (programs/http/Handlers.ts).
 *
 * The resources the Reader returns are plain JSON shapes: structs, arrays, strings, numbers, booleans,
 * literals and their unions, with no transformation anywhere, so encoding one through its Schema gives back
 * the same value (same keys, same order, same values). Schema's general encoder still walks it at a few
 * microseconds a node; this check is derived once from the Schema's own AST and, when it passes, the value
 * is the body. When it fails (an undeclared field, a wrong type), Schema's encoder runs and reports why.
 * A Schema with any other kind of node (a transformation, a declaration, a recursive part) gets no fast
 * check: Schema's encoder always runs.
 */
import { Schema, type SchemaAST } from "effect"

export type Check = (u: unknown) => boolean

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The check of a value against `ast`, or `null` when `ast` is not a plain node (a transformation, a
 * declaration, a recursive part: then only Schema itself can say). A struct's excess properties fail it.
 */
export const valueCheck = (ast: SchemaAST.AST): Check | null => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UnknownKeyword":
      return () => true
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Union": {
      // Literal members (a class value, `null`) by one set lookup; the others in turn.
      const literals = new Set(ast.types.flatMap((t) => (t._tag === "Literal" ? [t.literal] : [])))
      const checks = ast.types.filter((t) => t._tag !== "Literal").map(valueCheck)
      if (checks.some((c) => c === null)) return null
      if (checks.length === 0) return (u) => literals.has(u as SchemaAST.LiteralValue)
      if (checks.length === 1) {
        const only = checks[0]!
        return (u) => literals.has(u as SchemaAST.LiteralValue) || only(u)
      }
      return (u) => literals.has(u as SchemaAST.LiteralValue) || checks.some((c) => c!(u))
    }
    case "Refinement": {
      if (valueCheck(ast.from) === null) return null
      return Schema.is(Schema.make(ast))
    }
    case "TupleType": {
      if (ast.elements.length > 0 || ast.rest.length !== 1) return null
      const item = valueCheck(ast.rest[0]!.type)
      if (item === null) return null
      return (u) => Array.isArray(u) && u.every(item)
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return null
      const fields: Array<{ readonly name: string; readonly optional: boolean; readonly check: Check }> = []
      for (const p of ast.propertySignatures) {
        const check = valueCheck(p.type)
        if (check === null || typeof p.name !== "string") return null
        fields.push({ name: p.name, optional: p.isOptional, check })
      }
      const declared = new Set(fields.map((f) => f.name))
      return (u) => {
        if (!isRecord(u)) return false
        for (const f of fields) {
          if (!(f.name in u)) {
            if (f.optional) continue
            return false
          }
          const v = u[f.name]
          // An optional field given as `undefined`: Schema's encoder decides.
          if (v === undefined || !f.check(v)) return false
        }
        for (const k in u) if (!declared.has(k)) return false
        return true
      }
    }
    default:
      return null
  }
}

/**
 * For a plain Schema: whether a value is, as it stands, that Schema's encoded form (then it is the body).
 * `null` for any other Schema.
 */
export const plainCheck = <A, I>(schema: Schema.Schema<A, I>): ((a: A) => boolean) | null => valueCheck(schema.ast)
