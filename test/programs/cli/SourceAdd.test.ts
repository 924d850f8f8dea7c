/**
 * `catalog add` as its handler runs it: the SourceAdd service over the real ConfigFile, Secrets and
 * connectors, in a temporary working folder.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ConnectorsLazy } from "../../../src/layers/Main.js"
import { NodeFilesLive } from "../../../src/layers/NodeFiles.js"
import { AppEnv } from "../../../src/services/AppEnv.js"
import { ConfigFile } from "../../../src/services/ConfigFile.js"
import { SourceAdd, type SourceAddInput } from "../../../src/services/SourceAdd.js"

const input = (over: Partial<SourceAddInput> & { readonly kind: string }): SourceAddInput => ({
  ref: undefined,
  from: undefined,
  target: undefined,
  id: undefined,
  label: undefined,
  region: undefined,
  role: undefined,
  ...over
})

/** SourceAdd in a fresh folder (removed afterwards); `env` is the process environment it sees. */
const inFolder = <A, E>(
  body: (dir: string) => Effect.Effect<A, E, SourceAdd>,
  env: Record<string, string> = {}
) =>
  Effect.acquireUseRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ldc-add-"))),
    (dir) =>
      body(dir).pipe(
        Effect.provide(
          SourceAdd.Default.pipe(
            Layer.provide(ConnectorsLazy),
            Layer.provideMerge(ConfigFile.Default),
            Layer.provide(Layer.succeed(AppEnv, { cwd: dir, env, interactive: false, stderrIsTTY: false })),
            Layer.provide(NodeFilesLive)
          )
        )
      ),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("SourceAdd", () => {
  it.effect("writes only the variable's name, and a .env placeholder when the variable is not set", () =>
    inFolder((dir) =>
      Effect.gen(function*() {
        const adds = yield* SourceAdd
        const r = yield* adds.add(input({ kind: "sqlite", ref: "SHOP_DB", region: "eu-west-1", role: "controller" }))
        assert.deepStrictEqual(r, {
          added: true,
          source: {
            id: "sqlite",
            kind: "sqlite",
            driver: "node:sqlite",
            connectionRef: "SHOP_DB",
            region: "eu-west-1",
            role: "controller"
          },
          config: path.join(dir, "catalog.yml"),
          envPlaceholder: true,
          preview: null
        })
        assert.include(fs.readFileSync(path.join(dir, "catalog.yml"), "utf8"), "connectionRef: SHOP_DB")
        assert.match(fs.readFileSync(path.join(dir, ".env"), "utf8"), /^SHOP_DB="replace-me:\/\/sqlite-/m)
        // The same source again is no change; the same id with other settings is refused, naming --id.
        const again = yield* adds.add(input({ kind: "sqlite", ref: "SHOP_DB" }))
        assert.strictEqual(again.added, false)
        const clash = yield* Effect.flip(adds.add(input({ kind: "sqlite", ref: "OTHER_DB" })))
        assert.strictEqual(clash.code, "ADD_INPUT_INVALID")
        assert.strictEqual(clash.param, "id")
      })
    ))

  it.effect("refuses a connection string in --ref, a role it does not know and a dbt source without --from", () =>
    inFolder((dir) =>
      Effect.gen(function*() {
        const adds = yield* SourceAdd
        const secret = yield* Effect.flip(adds.add(input({ kind: "postgres", ref: "postgres://u:p@h/db" })))
        assert.strictEqual(secret.param, "ref")
        assert.notInclude(secret.message, "u:p@h")
        const role = yield* Effect.flip(adds.add(input({ kind: "postgres", ref: "PG", role: "owner" })))
        assert.strictEqual(role.message, "--role must be controller or processor; got \"owner\".")
        const dbt = yield* Effect.flip(adds.add(input({ kind: "dbt", target: "shop" })))
        assert.strictEqual(dbt.param, "from")
        assert.isFalse(fs.existsSync(path.join(dir, "catalog.yml")), "nothing is written when the input is refused")
      })
    ))

  it.effect(
    "a manual source reports what its dictionary describes, with its path relative to catalog.yml",
    () =>
      inFolder((dir) =>
        Effect.gen(function*() {
          fs.writeFileSync(
            path.join(dir, "dict.csv"),
            "table,column,type\ncrm.contacts,email,text\ncrm.contacts,name,text\n"
          )
          const r = yield* (yield* SourceAdd).add(input({ kind: "manual", from: "dict.csv", id: "dict" }))
          assert.deepStrictEqual(r.added ? [r.source, r.preview] : null, [
            { id: "dict", kind: "manual", driver: "csv", path: "dict.csv" },
            { tables: 1, columns: 2 }
          ])
        })
      )
  )

  it.effect("a dictionary or a manifest its connector cannot read is refused naming --from and the file, nothing written", () =>
    inFolder((dir) =>
      Effect.gen(function*() {
        const adds = yield* SourceAdd
        fs.writeFileSync(path.join(dir, "dict.csv"), "column,type\nemail,text\n")
        const dict = yield* Effect.flip(adds.add(input({ kind: "manual", from: "dict.csv" })))
        assert.strictEqual(dict.code, "ADD_INPUT_INVALID")
        assert.strictEqual(dict.param, "from")
        assert.match(dict.message, /^dict\.csv: /)
        assert.include(dict.fix ?? "", "table,column,type")
        fs.writeFileSync(
          path.join(dir, "catalog.yml"),
          "version: 1\nsources:\n  - id: wh\n    kind: sqlite\n    driver: node:sqlite\n    connectionRef: WH_PATH\n"
        )
        fs.writeFileSync(path.join(dir, "manifest.json"), "{ not json")
        const manifest = yield* Effect.flip(adds.add(input({ kind: "dbt", from: "manifest.json", target: "wh" })))
        assert.strictEqual(manifest.param, "from")
        assert.match(manifest.message, /^manifest\.json: not valid JSON/)
        assert.include(manifest.fix ?? "", "Pass dbt's target/manifest.json")
        assert.notInclude(fs.readFileSync(path.join(dir, "catalog.yml"), "utf8"), "dbt")
      })
    ))
})
