import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { builtinKinds } from "../../../src/domain/Config.js"
import { ConnectorsLive } from "../../../src/layers/connectors/index.js"
import { parseConnectionUrl, relationsReadBy } from "../../../src/layers/connectors/internal.js"
import { Connectors } from "../../../src/services/Connectors.js"
import { redact } from "../../../src/services/Redact.js"

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
      ".Sub Table",
      ".extra",
      ".inner_t",
      "db.left_t",
      "db.right_t",
      "main.Quoted",
      "public.other"
    ])
    assert.deepStrictEqual(relationsReadBy("select * from json_each('[1]')"), [])
  })

  it("parseConnectionUrl takes a URL apart", () => {
    const p = parseConnectionUrl("postgres://me:p%40ss@db.internal:6543/app?sslmode=require", ["postgres"], 5432)
    assert.deepStrictEqual(p, { host: "db.internal", port: 6543, database: "app", user: "me", password: "p@ss" })
    assert.isNull(parseConnectionUrl("mysql://x@y/z", ["postgres"], 5432))
    assert.strictEqual(
      parseConnectionUrl("postgres:///app?host=/var/run/postgresql", ["postgres"], 5432)?.host,
      "/var/run/postgresql"
    )
  })
})

describe("redact (the one redaction step of stored and served error messages)", () => {
  it("removes a source's secret and its password in every spelling", () => {
    const url = "postgres://me:p@ss w0rd!@db.internal:6543/app"
    assert.strictEqual(redact("failed for p@ss and p%40ss", ["p@ss"]), "failed for *** and ***")
    const text = redact(
      `connect ${url} failed; password p@ss w0rd! or ${encodeURIComponent("p@ss w0rd!")} or ${JSON.stringify(url)}`,
      [url]
    )
    assert.notInclude(text, "p@ss")
    assert.notInclude(text, "w0rd")
    // The password of another source's URL (parsed out of the value) goes too.
    assert.strictEqual(redact("got Hunter22 back", ["mysql://u:Hunter22@h/db"]), "got *** back")
  })

  it("strips URL credentials and key=value secrets it was not told about", () => {
    assert.strictEqual(
      redact("at postgres://admin:s3cr3t@10.0.0.1:5432/db now"),
      "at postgres://admin:***@10.0.0.1:5432/db now"
    )
    assert.strictEqual(redact("mysql://:onlypass@h/x"), "mysql://:***@h/x")
    assert.strictEqual(redact("host=db password=s3cr3t user=me"), "host=db password=*** user=me")
    assert.strictEqual(
      redact("PGPASSWORD=abc123 DB_PWD='x y' api_key: k-123 token=t0k"),
      "PGPASSWORD=*** DB_PWD=*** api_key: *** token=***"
    )
    assert.strictEqual(redact("{\"password\": \"s3cr3t\", \"user\": \"me\"}"), "{\"password\": ***, \"user\": \"me\"}")
    assert.strictEqual(redact("Authorization: Bearer abcdef123456"), "Authorization: ***")
    assert.strictEqual(redact("sent Bearer abcdef123456"), "sent Bearer ***")
    assert.strictEqual(redact("client_secret=xyz&x=1"), "client_secret=***&x=1")
  })

  it("leaves ordinary messages alone", () => {
    for (
      const m of [
        "Cannot reach PostgreSQL at 127.0.0.1:1 for source pg: connection refused.",
        "Set PG_URL to a URL such as postgres://user@127.0.0.1:5432/dbname, then run `catalog test pg`.",
        "The token stays in .env; a secret is never written to catalog.yml.",
        "d.csv: the header row (line 1, 3 cells) has no \"table\" column."
      ]
    ) assert.strictEqual(redact(m), m)
    // Short values are not searched for on their own (they would shred the text).
    assert.strictEqual(redact("a pg source", ["pg"]), "a pg source")
  })
})
