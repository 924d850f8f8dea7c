/**
 * `catalog config` and `catalog sources` as their handlers get them: the Settings service over the real
 * ConfigFile and file system, in a temporary working folder with a catalog.yml and an environment.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { SourceState } from "../../src/domain/Catalog.js"
import { NodeFilesLive } from "../../src/layers/NodeFiles.js"
import { AppEnv } from "../../src/services/AppEnv.js"
import { ConfigFile } from "../../src/services/ConfigFile.js"
import { Settings } from "../../src/services/Settings.js"

const yaml = `version: 1
controller: { name: Example GmbH, contact: privacy@example.com }
catalogOnly: true
sources:
  - { id: shop, kind: postgres, driver: pg, connectionRef: SHOP_DB_URL, region: eu-west-1 }
  - { id: crm, kind: postgres, driver: pg, connectionRef: CRM_DB_URL }
  - { id: dict, kind: manual, driver: csv, path: dict.csv }
`
const secret = "postgres://reader:s3cret-value@127.0.0.1/shop"

const inFolder = <A, E>(body: (dir: string) => Effect.Effect<A, E, Settings>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ldc-settings-"))
      fs.writeFileSync(path.join(dir, "catalog.yml"), yaml)
      return dir
    }),
    (dir) =>
      body(dir).pipe(
        Effect.provide(
          Settings.Default.pipe(
            Layer.provideMerge(ConfigFile.Default),
            Layer.provideMerge(
              Layer.succeed(AppEnv, {
                cwd: dir,
                env: { SHOP_DB_URL: secret, CATALOG_SIGNER_EMAIL: "dpo@example.com" },
                interactive: false,
                stderrIsTTY: false
              })
            ),
            Layer.provideMerge(NodeFilesLive)
          )
        )
      ),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("Settings", () => {
  it.effect("show: the files, catalog-only, controller and each source's variable state, never a secret", () =>
    inFolder((dir) =>
      Effect.gen(function*() {
        const shown = yield* (yield* Settings).show()
        assert.strictEqual(shown.config, path.join(dir, "catalog.yml"))
        assert.strictEqual(shown.dataDir, path.join(dir, ".catalog"))
        assert.isTrue(shown.catalogOnly)
        assert.include(shown.egress, "no metadata ever leaves this machine")
        assert.deepStrictEqual(shown.controller, { name: "Example GmbH", contact: "privacy@example.com" })
        assert.deepStrictEqual(shown.sources.map((s) => [s.id, s.connectionRef, s.path, s.secretSet, s.secret]), [
          ["shop", "SHOP_DB_URL", null, true, "set"],
          ["crm", "CRM_DB_URL", null, false, "missing"],
          ["dict", null, "dict.csv", null, null]
        ])
        assert.deepStrictEqual(shown.environment, {
          CATALOG_CONFIG: null,
          CATALOG_DATA: null,
          CATALOG_SIGNER_EMAIL: "dpo@example.com"
        })
        assert.notInclude(JSON.stringify(shown), "s3cret-value")
      })
    ))

  it.effect("sources: each configured source with the catalog's state of it, `never` when never scanned", () =>
    inFolder(() =>
      Effect.gen(function*() {
        const scanned: SourceState = {
          id: "shop",
          kind: "postgres",
          driver: "pg",
          label: null,
          region: "eu-west-1",
          userAuthored: false,
          reachable: true,
          status: "ok",
          error: null,
          serverVersion: "16.4",
          lastAttemptAt: "2026-11-24T09:00:00.000Z",
          lastScannedAt: "2026-11-24T09:00:00.000Z",
          staleness: "fresh",
          datasets: 12
        }
        const list = yield* (yield* Settings).sources(Effect.succeed([scanned]))
        assert.deepStrictEqual(
          list.sources.map((s) => [s.id, s.secret, s.status, s.staleness, s.datasets, s.lastScannedAt]),
          [
            ["shop", "set", "ok", "fresh", 12, "2026-11-24T09:00:00.000Z"],
            ["crm", "missing", "never", "never", 0, null],
            ["dict", null, "never", "never", 0, null]
          ]
        )
      })
    ))
})
