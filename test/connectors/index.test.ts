import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { builtinKinds } from "../../src/domain/Config.js"
import { ConnectorsLive } from "../../src/layers/connectors/index.js"
import { parseConnectionUrl, relationsReadBy, scrub } from "../../src/layers/connectors/internal.js"
import { Connectors } from "../../src/services/Connectors.js"

describe("ConnectorsLive", () => {
  it.effect("registers every built-in kind", () =>
    Effect.gen(function*() {
      const connectors = yield* Connectors
      assert.deepStrictEqual([...connectors.kinds], [...builtinKinds])
      for (const kind of builtinKinds) {
        const c = yield* connectors.get(kind)
        assert.strictEqual(c.kind, kind)
        assert.strictEqual(c.needsSecret, kind !== "manual" && kind !== "dbt")
      }
    }).pipe(Effect.provide(ConnectorsLive)))

  it.effect("an unknown kind fails with DRIVER_MISSING naming it", () =>
    Effect.gen(function*() {
      const connectors = yield* Connectors
      const error = yield* Effect.flip(connectors.get("snowflake-ish"))
      assert.strictEqual(error.code, "DRIVER_MISSING")
      assert.include(error.message, "snowflake-ish")
    }).pipe(Effect.provide(ConnectorsLive)))
})

describe("connector internals", () => {
  it("relationsReadBy finds FROM / JOIN / comma-list relations, skipping strings and comments", () => {
    const refs = relationsReadBy(`
      select a.x, (select max(y) from "Sub Table" s) -- from ignored_comment
      from ((\`db\`.\`left_t\` \`l\` left join db.right_t r on r.id = l.id))
      join public.other as o on true, extra e, main."Quoted"
      where a.name <> 'from not_a_table' and exists (select 1 from inner_t)`)
    assert.deepStrictEqual(refs.map((r) => `${r.schema ?? ""}.${r.name}`).sort(), [
      ".Sub Table", ".extra", ".inner_t", "db.left_t", "db.right_t", "main.Quoted", "public.other"
    ])
    assert.deepStrictEqual(relationsReadBy("select * from json_each('[1]')"), [])
  })

  it("parseConnectionUrl and scrub keep passwords out", () => {
    const p = parseConnectionUrl("postgres://me:p%40ss@db.internal:6543/app?sslmode=require", ["postgres"], 5432)
    assert.deepStrictEqual(p, { host: "db.internal", port: 6543, database: "app", user: "me", password: "p@ss" })
    assert.isNull(parseConnectionUrl("mysql://x@y/z", ["postgres"], 5432))
    assert.strictEqual(parseConnectionUrl("postgres:///app?host=/var/run/postgresql", ["postgres"], 5432)?.host, "/var/run/postgresql")
    assert.strictEqual(scrub("failed for p@ss and p%40ss", ["p@ss"]), "failed for *** and ***")
  })
})
