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
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "an environment variable name (letters, digits, _), never the secret itself" })
)

/** One configured source. */
export const SourceConfig = Schema.Struct({
  id: SourceId,
  kind: Schema.String.pipe(Schema.minLength(1)),
  driver: Schema.String.pipe(Schema.minLength(1)),
  /** Name of the environment variable holding the connection string (not needed for `manual`). */
  connectionRef: Schema.optional(EnvVarName),
  /** `manual`: path of the schema CSV; `dbt`: path of manifest.json (relative to the config file's folder). */
  path: Schema.optional(Schema.String),
  /** `dbt`: the id of the warehouse source whose datasets the manifest's models map onto. */
  target: Schema.optional(Schema.String),
  label: Schema.optional(Schema.String),
  /** Where the data is hosted, e.g. `eu-west-1`, `us-east-1`, `DE`. */
  region: Schema.optional(Schema.String),
  role: Schema.optional(Schema.Literal("controller", "processor")),
  /** Schemas / databases to scan; default: every non-system one. */
  schemas: Schema.optional(Schema.Array(Schema.String))
})
export type SourceConfig = typeof SourceConfig.Type

/** The whole `catalog.yml`. */
export const CatalogFile = Schema.Struct({
  version: Schema.optional(Schema.Literal(1)),
  sources: Schema.optionalWith(Schema.Array(SourceConfig), { default: () => [] }),
  controller: Schema.optional(Schema.Struct({ name: Schema.optional(Schema.String), contact: Schema.optional(Schema.String) })),
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
