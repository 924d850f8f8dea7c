/**
 * The connector port: one implementation per source kind. A connector reads the source's system
 * catalog (metadata only) and returns a `RawSource`. It never reads a row value and never counts.
 */
import { Context, type Effect, type Either } from "effect"
import type { SourceConfig } from "../domain/Config.js"
import type { RawSource } from "../domain/Metadata.js"
import type { DriverMissing, SourceUnreachable } from "../errors/index.js"

/** What a connector gets for one run. */
export interface ConnectorInput {
  readonly source: SourceConfig
  /** The resolved connection string (from the variable named by `connectionRef`); `null` for `manual`. */
  readonly secret: string | null
  /** Folder of the config file; relative paths (`manual` CSVs, SQLite files) resolve against it. */
  readonly baseDir: string
}

/** Result of a probe: reachable, with the server's version when it reports one. */
export interface ProbeResult {
  readonly serverVersion: string | null
  /** e.g. `127.0.0.1:5432/pagila` — never the password. */
  readonly target: string
}

export type ConnectorError = SourceUnreachable | DriverMissing

/** What a metadata file a user names holds (`add manual --from`): its tables and columns; `null` when it does not say. */
export type FileContents = { readonly tables: number; readonly columns: number } | null

/** Why a metadata file a user names is not one the kind can read; `fix` is `null` where the caller knows best. */
export interface FileProblem {
  readonly message: string
  readonly fix: string | null
}

/** One source kind's scanner. */
export interface Connector {
  readonly kind: string
  /** Whether the kind needs a connection string from `connectionRef`. */
  readonly needsSecret: boolean
  readonly probe: (input: ConnectorInput) => Effect.Effect<ProbeResult, ConnectorError>
  readonly scan: (input: ConnectorInput) => Effect.Effect<RawSource, ConnectorError>
  /**
   * For a kind whose metadata is a file the user names (a data dictionary, a dbt manifest): reads the
   * file's text as `add` does before anything is written (`label` names the file in messages, `target`
   * is the source it describes).
   */
  readonly readFile?: (
    text: string,
    file: { readonly label: string; readonly target: string }
  ) => Either.Either<FileContents, FileProblem>
}

/** The registry of connectors by kind. */
export class Connectors extends Context.Tag("catalog/Connectors")<Connectors, {
  readonly get: (kind: string) => Effect.Effect<Connector, DriverMissing>
  readonly kinds: ReadonlyArray<string>
}>() {}
