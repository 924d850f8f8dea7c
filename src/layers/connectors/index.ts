/**
 * The built-in connectors by kind. `get` fails with DriverMissing for a kind nobody implements.
 */
import { Effect, Layer } from "effect"
import { DriverMissing } from "../../errors/index.js"
import { type Connector, Connectors } from "../../services/Connectors.js"
import { DbtConnector } from "./Dbt.js"
import { ManualCsvConnector } from "./ManualCsv.js"
import { MysqlConnector } from "./Mysql.js"
import { PostgresConnector } from "./Postgres.js"
import { SqliteConnector } from "./Sqlite.js"

export { ManualCsvConnector, manualCsvPath, parseSchemaCsv } from "./ManualCsv.js"
export { MysqlConnector } from "./Mysql.js"
export { PostgresConnector } from "./Postgres.js"
export { SqliteConnector, sqlitePath } from "./Sqlite.js"

/** Every built-in connector, in the order `builtinKinds` lists them. */
export const builtinConnectors: ReadonlyArray<Connector> = [
  PostgresConnector,
  MysqlConnector,
  SqliteConnector,
  ManualCsvConnector,
  DbtConnector
]

/** A `Connectors` registry over the given connectors (tests can add fakes). */
export const makeConnectors = (connectors: ReadonlyArray<Connector>): Connectors["Type"] => {
  const byKind = new Map(connectors.map((c) => [c.kind, c] as const))
  const kinds = connectors.map((c) => c.kind)
  return {
    kinds,
    get: (kind) => {
      const c = byKind.get(kind)
      return c !== undefined
        ? Effect.succeed(c)
        : Effect.fail(
          new DriverMissing({
            message: `No driver is registered for source kind "${kind}".`,
            fix: `Use one of the built-in kinds: ${
              kinds.join(", ")
            }. Connectors for other systems are not in this build yet.`,
            param: "kind"
          })
        )
    }
  }
}

/** The built-in connectors: postgres, mysql, sqlite, manual. */
export const ConnectorsLive: Layer.Layer<Connectors> = Layer.succeed(Connectors, makeConnectors(builtinConnectors))
