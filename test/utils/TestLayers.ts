/**
 * Test layers for the services that sit on the catalog: the real Scanner, Reader, Annotations and
 * Corrections over the in-memory store, the real classifier, the real `ConfigFile` and `Secrets` over a
 * temporary folder holding `catalog.yml`, and a fake connector whose sources the test writes by hand.
 */
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { ColumnVerdict, RawColumn, RawDataset, RawSource } from "../../src/domain/Metadata.js"
import { ClassifierLive } from "../../src/layers/ClassifierLive.js"
import { makeConnectors } from "../../src/layers/connectors/index.js"
import { ReaderConfigLive } from "../../src/layers/Main.js"
import { NodeFilesLive } from "../../src/layers/NodeFiles.js"
import { StoreMemoryLive } from "../../src/layers/SqlMemory.js"
import { Annotations } from "../../src/services/Annotations.js"
import { AppEnv } from "../../src/services/AppEnv.js"
import { ConfigFile } from "../../src/services/ConfigFile.js"
import { type Connector, type ConnectorError, type ConnectorInput, Connectors } from "../../src/services/Connectors.js"
import { Corrections } from "../../src/services/Corrections.js"
import { ReaderLive } from "../../src/services/Reader.js"
import { Scanner } from "../../src/services/Scanner.js"
import { Secrets } from "../../src/services/Secrets.js"
import type { SourceOutcome } from "../../src/services/Store.js"

// ── hand-written metadata ────────────────────────────────────────────────────────────────────
export const column = (name: string, position: number, extra: Partial<RawColumn> = {}): RawColumn => ({
  name,
  type: "text",
  nullable: true,
  position,
  comment: null,
  isPrimaryKey: false,
  references: null,
  ...extra
})

export const dataset = (
  name: string,
  columns: ReadonlyArray<RawColumn>,
  extra: Partial<RawDataset> = {}
): RawDataset => ({
  schema: "main",
  name,
  kind: "table",
  comment: null,
  rowEstimate: 100,
  rowEstimateSource: "pg_class.reltuples",
  columns,
  dependsOn: [],
  ...extra
})

/** A rules verdict as the classifier hands it to the store. */
export const verdict = (value: ColumnVerdict["value"], rule = `token:${value}`): ColumnVerdict => ({
  value,
  rule,
  confidence: 0.9,
  method: "name-token",
  category: value === "not" ? null : "contact.email",
  evidence: [`name ${rule}`]
})

/** A scanned source `shop` (SQLite) as the scanner hands it to the store's commit. */
export const scannedOutcome = (
  datasets: ReadonlyArray<RawDataset>,
  verdicts: ReadonlyArray<ReadonlyArray<ColumnVerdict>>,
  fingerprint = "fp1"
): SourceOutcome => ({
  _tag: "Scanned",
  id: "shop",
  kind: "sqlite",
  driver: "node:sqlite",
  label: null,
  region: null,
  userAuthored: false,
  serverVersion: "3.45",
  datasets,
  verdicts,
  rawFingerprint: fingerprint
})

export const rawSource = (datasets: ReadonlyArray<RawDataset>, extra: Partial<RawSource> = {}): RawSource => ({
  datasets,
  serverVersion: "Fake 1.0",
  ...extra
})

// ── the fake connector ───────────────────────────────────────────────────────────────────────
/** A connector of kind `fake` that answers each source id with what the test set for it. */
export interface FakeConnector {
  readonly connector: Connector
  /** What the next scans of `sourceId` return (a RawSource, a failure, or a defect). */
  readonly set: (sourceId: string, answer: RawSource | Effect.Effect<RawSource, ConnectorError>) => void
  /** Every input the connector was called with, in order. */
  readonly calls: ReadonlyArray<ConnectorInput>
}

export const fakeConnector = (kind = "fake"): FakeConnector => {
  const answers = new Map<string, Effect.Effect<RawSource, ConnectorError>>()
  const calls: Array<ConnectorInput> = []
  const connector: Connector = {
    kind,
    needsSecret: false,
    probe: () => Effect.succeed({ serverVersion: "Fake 1.0", target: "fake" }),
    scan: (input) =>
      Effect.suspend(() => {
        calls.push(input)
        return answers.get(input.source.id) ?? Effect.dieMessage(`the test set no answer for ${input.source.id}`)
      })
  }
  return {
    connector,
    set: (id, answer) => answers.set(id, Effect.isEffect(answer) ? answer : Effect.succeed(answer)),
    calls
  }
}

// ── the environment: a temporary working folder with catalog.yml ───────────────────────────
/** A source of catalog.yml for the fake connector (user-authored kinds need only id, kind and driver). */
export const fakeSourceYaml = (id: string, extra = ""): string =>
  `  - { id: ${id}, kind: fake, driver: fake${extra === "" ? "" : `, ${extra}`} }`

/** catalog.yml's text with the given source lines (and any top-level lines before them). */
export const catalogYaml = (sources: ReadonlyArray<string>, top: ReadonlyArray<string> = []): string =>
  ["version: 1", ...top, sources.length > 0 ? "sources:" : "sources: []", ...sources, ""].join("\n")

/** A fresh temporary folder (removed with the layer) with `catalog.yml` holding `yaml`, as the working folder. */
export const TempEnv = (
  yaml: string,
  env: Readonly<Record<string, string>> = {}
): Layer.Layer<AppEnv> =>
  Layer.scoped(
    AppEnv,
    Effect.acquireRelease(
      Effect.sync(() => {
        const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "catalog-unit-"))
        fs.writeFileSync(path.join(cwd, "catalog.yml"), yaml)
        return cwd
      }),
      (cwd) => Effect.sync(() => fs.rmSync(cwd, { recursive: true, force: true }))
    ).pipe(
      Effect.map((cwd) => ({ cwd, env: { CATALOG_DATA: ".catalog", ...env }, interactive: false, stderrIsTTY: false }))
    )
  )

/** Replaces catalog.yml in the working folder (the Scanner reads it again on every run). */
export const writeConfig = (yaml: string): Effect.Effect<void, never, AppEnv> =>
  Effect.flatMap(AppEnv, (e) => Effect.sync(() => fs.writeFileSync(path.join(e.cwd, "catalog.yml"), yaml)))

/**
 * Scanner, Reader, Annotations and Corrections over a fresh in-memory catalog (with Store, StoreReader
 * and ChangeLog), the real classifier, and the given connectors; provide it per test for isolation.
 */
export const CatalogTest = (
  connectors: ReadonlyArray<Connector>,
  yaml: string,
  env: Readonly<Record<string, string>> = {}
) => {
  const infra = Layer.mergeAll(
    ConfigFile.Default,
    Secrets.Default,
    ClassifierLive,
    Layer.succeed(Connectors, makeConnectors(connectors))
  ).pipe(
    Layer.provideMerge(StoreMemoryLive),
    Layer.provideMerge(TempEnv(yaml, env)),
    Layer.provideMerge(NodeFilesLive)
  )
  const reader = ReaderLive.pipe(Layer.provide(ReaderConfigLive))
  return Layer.mergeAll(Scanner.Default, Annotations.Default, Corrections.Default).pipe(
    Layer.provideMerge(reader),
    Layer.provideMerge(infra)
  )
}
