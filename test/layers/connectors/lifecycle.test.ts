/**
 * The database connectors own their pools: every scan and probe closes every connection and timer
 * it opened, on success and on every failure (refused login, unknown database, closed port, host
 * that does not resolve). Checked two ways: the process holds no more sockets or timers than before
 * (a leaked pool keeps a Node process alive after its work is done), and the server sees no
 * session of the connector left open.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { MysqlConnector } from "../../../src/layers/connectors/Mysql.js"
import { PostgresConnector } from "../../../src/layers/connectors/Postgres.js"
import type { Connector, ConnectorError, ConnectorInput } from "../../../src/services/Connectors.js"
import { mariaDatabaseLayer, mariadb, pgDatabaseLayer, psql, TestDatabaseTag } from "../../utils/databases.js"

const input = (kind: "postgres" | "mysql", url: string): ConnectorInput => ({
  source: { id: "src", kind, driver: kind === "postgres" ? "pg" : "mysql2", connectionRef: "URL" },
  secret: url,
  baseDir: process.cwd()
})

/** Sockets and timers the process holds (what keeps Node from exiting). */
const handles = () => {
  const counts = new Map<string, number>()
  for (const r of process.getActiveResourcesInfo()) {
    if (r === "TCPSocketWrap" || r === "Timeout" || r === "TCPWRAP" || r === "GetAddrInfoReqWrap") {
      counts.set(r, (counts.get(r) ?? 0) + 1)
    }
  }
  return counts
}

/** Runs scan and probe, lets pending callbacks settle, and asserts nothing was left behind. */
const leavesNothingOpen = (connector: Connector, i: ConnectorInput, expectFailure: boolean) =>
  Effect.gen(function*() {
    yield* Effect.sleep("100 millis")
    const before = handles()
    const runs: ReadonlyArray<(i: ConnectorInput) => Effect.Effect<unknown, ConnectorError>> = [
      connector.scan,
      connector.probe
    ]
    for (const run of runs) {
      const result = yield* Effect.either(run(i))
      assert.strictEqual(result._tag, expectFailure ? "Left" : "Right", JSON.stringify(result))
      if (result._tag === "Left") assert.strictEqual(result.left.code, "SOURCE_UNREACHABLE")
    }
    yield* Effect.sleep("300 millis")
    const after = handles()
    for (const [kind, n] of after) {
      assert.isAtMost(n, before.get(kind) ?? 0, `${kind} left open: ${n} now, ${before.get(kind) ?? 0} before`)
    }
  })

describe("PostgreSQL pools are closed on every path", () => {
  layer(pgDatabaseLayer({ sql: "create table customers (id int primary key, email text);" }), {
    timeout: "120 seconds",
    excludeTestServices: true
  })("db", (it) => {
    it.effect("success: no handle left, no session left on the server", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        yield* leavesNothingOpen(PostgresConnector, input("postgres", db.url), false)
        const sessions = yield* psql(
          "postgres",
          `select count(*) from pg_stat_activity where datname = '${db.name}' and application_name = 'local-data-catalog'`
        )
        assert.strictEqual(sessions.trim(), "0")
      }))

    it.effect("unknown user, unknown database, closed port, unresolvable host: no handle left", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        for (
          const url of [
            `postgres://ldc_no_such_role:pw@127.0.0.1:5432/${db.name}`,
            "postgres://postgres@127.0.0.1:5432/ldc_no_such_db",
            "postgres://postgres:pw@127.0.0.1:1/x",
            "postgres://postgres:pw@ldc-no-such-host.invalid:5432/x"
          ]
        ) yield* leavesNothingOpen(PostgresConnector, input("postgres", url), true)
      }))
  })
})

describe("MySQL / MariaDB pools are closed on every path", () => {
  layer(mariaDatabaseLayer({ sql: "CREATE TABLE customers (id INT PRIMARY KEY, email VARCHAR(100));" }), {
    timeout: "120 seconds",
    excludeTestServices: true
  })("db", (it) => {
    it.effect("success: no handle left, no connection left on the server", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        yield* leavesNothingOpen(MysqlConnector, input("mysql", db.url), false)
        const left = yield* mariadb(null, `SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = '${db.name}'`)
        assert.strictEqual(left.trim(), "0")
      }))

    it.effect("wrong password, unknown user, unknown database, closed port, unresolvable host: no handle left", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabaseTag
        for (
          const url of [
            `mysql://root:wrong-password@127.0.0.1:3306/${db.name}`,
            `mysql://ldc_no_such_user:pw@127.0.0.1:3306/${db.name}`,
            "mysql://root:@127.0.0.1:3306/ldc_no_such_db",
            "mysql://root:pw@127.0.0.1:1/x",
            "mysql://root:pw@ldc-no-such-host.invalid:3306/x"
          ]
        ) yield* leavesNothingOpen(MysqlConnector, input("mysql", url), true)
      }))
  })
})
