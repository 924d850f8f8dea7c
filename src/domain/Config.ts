/**
 * The shape of `catalog.yml`, decoded with Schema. Secrets never live here: `connectionRef` is the
 * *name* of an environment variable that holds the connection string.
 */
import { Schema } from "effect"

/** The built-in source kinds. */
export const builtinKinds = ["postgres", "mysql", "sqlite", "manual", "dbt"] as const
export type BuiltinKind = (typeof builtinKinds)[number]

/** The default driver of each built-in kind. */
export const defaultDriver: Record<BuiltinKind, string> = {
  postgres: "pg",
  mysql: "mysql2",
  sqlite: "node:sqlite",
  manual: "csv",
  dbt: "dbt-manifest"
}

const SourceId = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, {
    message: () => "a source id uses letters, digits, - and _ (up to 64 characters), starting with a letter or digit"
  })
)
const EnvVarName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    message: () => "an environment variable name (letters, digits, _), never the secret itself"
  })
)

const NonEmpty = (what: string) => Schema.String.pipe(Schema.filter((s) => s.trim() !== "" || `${what} is empty`))

/** The fields of one source, before the rules that tie them to its kind. */
const SourceFields = Schema.Struct({
  id: SourceId,
  kind: Schema.String.pipe(Schema.minLength(1)),
  driver: Schema.String.pipe(Schema.minLength(1)),
  /** Name of the environment variable holding the connection string (not needed for `manual`). */
  connectionRef: Schema.optional(EnvVarName),
  /** `manual`: path of the schema CSV; `dbt`: path of manifest.json (relative to the config file's folder). */
  path: Schema.optional(NonEmpty("path")),
  /** `dbt`: the id of the warehouse source whose datasets the manifest's models map onto. */
  target: Schema.optional(NonEmpty("target")),
  label: Schema.optional(Schema.String),
  /** Where the data is hosted, e.g. `eu-west-1`, `us-east-1`, `DE`. */
  region: Schema.optional(Schema.String),
  role: Schema.optional(Schema.Literal("controller", "processor")),
  /** Schemas / databases to scan; default: every non-system one. An empty list would scan nothing, so it is refused. */
  schemas: Schema.optional(
    Schema.Array(NonEmpty("a schema name")).pipe(
      Schema.minItems(1, {
        message: () =>
          "an empty list scans nothing; list the schemas to scan, or leave the key out to scan every non-system schema"
      })
    )
  )
})

/** Which keys each built-in kind needs and which it has no use for. */
interface KindRules {
  readonly needs: ReadonlyArray<"connectionRef" | "path" | "target">
  /** At least one of these (the CSV may come from a path or from a variable). */
  readonly oneOf?: ReadonlyArray<"connectionRef" | "path">
  readonly unused: ReadonlyArray<"connectionRef" | "path" | "target" | "schemas">
}
const kindRules: Record<BuiltinKind, KindRules> = {
  postgres: { needs: ["connectionRef"], unused: ["path", "target"] },
  mysql: { needs: ["connectionRef"], unused: ["path", "target"] },
  sqlite: { needs: ["connectionRef"], unused: ["path", "target", "schemas"] },
  manual: { needs: [], oneOf: ["path", "connectionRef"], unused: ["target", "schemas"] },
  dbt: { needs: ["path", "target"], unused: ["connectionRef", "schemas"] }
}

const needWhy: Record<"connectionRef" | "path" | "target", (kind: string) => string> = {
  connectionRef: (kind) =>
    `a ${kind} source needs connectionRef: the NAME of the environment variable holding its ${
      kind === "sqlite" ? "database file's path" : "connection string"
    }`,
  path: (kind) =>
    kind === "dbt"
      ? "a dbt source needs path: dbt's target/manifest.json (relative to catalog.yml)"
      : `a ${kind} source needs path`,
  target: () => "a dbt source needs target: the id of the warehouse source its models live in"
}

const isBuiltin = (kind: string): kind is BuiltinKind => (builtinKinds as ReadonlyArray<string>).includes(kind)

/**
 * The rules a built-in kind puts on a source's keys: the driver that implements it, the keys it needs,
 * and the keys it has no use for (a value that would silently do nothing). User-authored kinds are
 * checked by their connector.
 */
export const sourceKindIssue = (
  s: typeof SourceFields.Type
): { readonly path: ReadonlyArray<string>; readonly message: string } | null => {
  if (!isBuiltin(s.kind)) return null
  const driver = defaultDriver[s.kind]
  if (s.driver !== driver) {
    return {
      path: ["driver"],
      message: `driver "${s.driver}" does not implement kind ${s.kind}; a ${s.kind} source uses driver ${driver}`
    }
  }
  const rules = kindRules[s.kind]
  for (const k of rules.needs) if (s[k] === undefined) return { path: [k], message: needWhy[k](s.kind) }
  if (rules.oneOf !== undefined && rules.oneOf.every((k) => s[k] === undefined)) {
    return {
      path: [rules.oneOf[0]!],
      message: "a manual source needs path: the data-dictionary CSV (relative to catalog.yml)"
    }
  }
  for (const k of rules.unused) {
    if (s[k] !== undefined) {
      const uses = (Object.keys(kindRules) as Array<BuiltinKind>).filter((x) => !kindRules[x].unused.includes(k))
      return {
        path: [k],
        message: `${k} does not apply to a ${s.kind} source (it is read for ${uses.join(", ")} sources only); remove it`
      }
    }
  }
  return null
}

/** One configured source. */
export const SourceConfig = SourceFields.pipe(Schema.filter((s) => sourceKindIssue(s) ?? undefined))
export type SourceConfig = typeof SourceConfig.Type

/** The whole `catalog.yml`. */
export const CatalogFile = Schema.Struct({
  version: Schema.optional(Schema.Literal(1)),
  sources: Schema.optionalWith(Schema.Array(SourceConfig), { default: () => [] }),
  controller: Schema.optional(
    Schema.Struct({ name: Schema.optional(Schema.String), contact: Schema.optional(Schema.String) })
  ),
  dora: Schema.optional(Schema.Struct({
    inScope: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    entity: Schema.optional(Schema.Struct({
      lei: Schema.optional(Schema.String),
      name: Schema.optional(Schema.String),
      country: Schema.optional(Schema.String),
      currency: Schema.optional(Schema.String)
    }))
  })),
  /** When true no metadata ever leaves the machine, even when paired. */
  catalogOnly: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type CatalogFile = typeof CatalogFile.Type
