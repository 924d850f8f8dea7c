/**
 * `start`: scans every configured source through its connector (metadata only), classifies every
 * column, and commits the whole result in one transaction. An unreachable source is reported and
 * skipped; the others are still scanned and stored.
 */
import { DateTime, Effect } from "effect"
import { createHash } from "node:crypto"
import { coverageLine } from "../domain/Catalog.js"
import type { SourceConfig } from "../domain/Config.js"
import type { RawSource } from "../domain/Metadata.js"
import type { CatalogErrorShape, ErrorInput } from "../errors/define.js"
import { isCatalogError, NoSourceDetected, NoSources, SourceUnreachable } from "../errors/index.js"
import { actor, AppEnv } from "./AppEnv.js"
import { Classifier } from "./Classifier.js"
import { ConfigFile } from "./ConfigFile.js"
import { Connectors } from "./Connectors.js"
import { redact } from "./Redact.js"
import { Secrets } from "./Secrets.js"
import { datasetId, type ScanSummary, type SourceOutcome, Store } from "./Store.js"

/** A fingerprint of everything a scan stores except the row estimates (which drift with every ANALYZE). */
export const sourceFingerprint = (raw: RawSource, classifierVersion: string): string => {
  const h = createHash("sha1").update(classifierVersion)
  for (const d of raw.datasets) {
    let s = `${d.schema}\u0001${d.name}\u0001${d.kind}\u0001${d.comment ?? ""}\u0001`
    for (const c of d.columns) {
      const r = c.references
      s += `${c.name}\u0002${c.type}\u0002${c.nullable ? 1 : 0}\u0002${c.position}\u0002${c.comment ?? ""}\u0002${
        c.isPrimaryKey ? 1 : 0
      }\u0002${r ? `${r.schema}.${r.table}.${r.column}` : ""}\u0003`
    }
    for (const x of d.dependsOn) s += `${x.schema}.${x.name}\u0004`
    h.update(s)
  }
  return h.digest("base64")
}

/**
 * A copy of a registry error whose message and fix have passed the redaction step (the secrets of
 * every configured source, URL credentials, key=value secrets). Every per-source error of a scan
 * goes through here before it is reported, returned or stored.
 */
export const redactError = <E extends CatalogErrorShape & { readonly input: ErrorInput }>(
  e: E,
  secrets: ReadonlyArray<string | null>
): E => {
  const Ctor = e.constructor as new(input: ErrorInput) => E
  return new Ctor({
    ...e.input,
    message: redact(e.message, secrets),
    ...(e.fix !== null ? { fix: redact(e.fix, secrets) } : {})
  })
}

export interface SourceReport {
  readonly id: string
  readonly kind: string
  readonly reached: boolean
  readonly datasets: number
  readonly columns: number
  readonly personal: number
  readonly ms: number
  readonly error: { readonly code: string; readonly message: string; readonly fix: string | null } | null
}

export interface ScanReport {
  readonly summary: ScanSummary
  readonly sources: ReadonlyArray<SourceReport>
  readonly coverage: {
    readonly complete: boolean
    readonly reached: ReadonlyArray<string>
    readonly missing: ReadonlyArray<string>
    readonly line: string
  }
  /** Whether the refreshed draft left this machine (the CLI replaces it after the upload of a paired machine). */
  readonly upload: UploadOutcome
}

/**
 * What happened to the refreshed draft after a scan: `local` (not paired), `skipped` (catalog-only, or the
 * pairing is misconfigured), `uploaded` to the paired claim, or `failed` (the code; the scan still stands).
 */
export interface UploadOutcome {
  readonly status: "local" | "skipped" | "uploaded" | "failed"
  /** The line every surface prints. */
  readonly message: string
  readonly claimId?: string
  readonly bytes?: number
  readonly sha256?: string
  readonly error?: { readonly code: string; readonly message: string; readonly fix: string | null }
}

/** Called as each source finishes; the CLI draws progress on stderr from it. */
export type Progress = (
  event: {
    readonly done: number
    readonly total: number
    readonly source: string
    readonly phase: "start" | "done" | "failed"
  }
) => void

export class Scanner extends Effect.Service<Scanner>()("catalog/Scanner", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv
    const config = yield* ConfigFile
    const secrets = yield* Secrets
    const connectors = yield* Connectors
    const classifier = yield* Classifier
    const store = yield* Store

    const scanOne = (source: SourceConfig, baseDir: string, known: ReadonlyArray<string | null>) =>
      Effect.gen(function*() {
        const connector = yield* connectors.get(source.kind)
        const secret = yield* secrets.resolve(source, connector.needsSecret)
        return yield* connector.scan({ source, secret, baseDir })
      }).pipe(
        // A connector that crashes fails its own source, like any other failure; the scan goes on.
        Effect.catchAllDefect((defect) =>
          Effect.fail(
            new SourceUnreachable({
              message: `The ${source.kind} connector failed on source ${source.id}: ${
                defect instanceof Error ? defect.message : String(defect)
              }.`,
              fix: `Run \`catalog test ${source.id}\` to see the failure on its own; report it if it persists.`
            })
          )
        ),
        Effect.mapError((e) => redactError(e, known))
      )

    /** The resolved connection strings of every source: no scan message may contain one. */
    const knownSecrets = (sources: ReadonlyArray<SourceConfig>) =>
      Effect.forEach(
        sources,
        (source) =>
          source.connectionRef === undefined
            ? Effect.succeed(null)
            : secrets.resolve(source, false).pipe(Effect.orElseSucceed(() => null))
      )

    const run = Effect.fn("Scanner.run")(function*(progress: Progress = () => {}) {
      const startedAt = DateTime.formatIso(yield* DateTime.now)
      const loaded = yield* config.load()
      const sources = loaded.file.sources
      if (sources.length === 0) {
        return yield* new NoSources({ message: `${loaded.path} lists no sources.` })
      }
      const known = yield* knownSecrets(sources)
      let done = 0
      const results = yield* Effect.forEach(sources, (source) =>
        Effect.gen(function*() {
          progress({ done, total: sources.length, source: source.id, phase: "start" })
          const t0 = performance.now()
          const result = yield* Effect.either(scanOne(source, loaded.baseDir, known))
          done++
          progress({
            done,
            total: sources.length,
            source: source.id,
            phase: result._tag === "Right" ? "done" : "failed"
          })
          return { source, result, ms: Math.round(performance.now() - t0) }
        }), { concurrency: 4 })

      const outcomes: Array<SourceOutcome> = []
      const reports: Array<SourceReport> = []
      const previousFingerprints = yield* Effect.orDie(store.sourceFingerprints)
      for (const { ms, result, source } of results) {
        const base = {
          id: source.id,
          kind: source.kind,
          driver: source.driver,
          label: source.label ?? null,
          region: source.region ?? null,
          userAuthored: false,
          connectionRef: source.connectionRef ?? null,
          path: source.path ?? null
        }
        /** The source's line of the scan report (same key order for every outcome). */
        const report = (r: Pick<SourceReport, "reached" | "datasets" | "columns" | "personal" | "error">) =>
          reports.push({
            id: source.id,
            kind: source.kind,
            reached: r.reached,
            datasets: r.datasets,
            columns: r.columns,
            personal: r.personal,
            ms,
            error: r.error
          })
        if (result._tag === "Right") {
          const raw = result.right
          const columns = raw.datasets.reduce((n, d) => n + d.columns.length, 0)
          const rawFingerprint = sourceFingerprint(raw, classifier.version)
          if (raw.edges === undefined && previousFingerprints.get(source.id) === rawFingerprint) {
            // Same structure, same classifier: nothing to classify or diff; only estimates may have moved.
            const estimates = raw.datasets.map((d) => ({
              id: datasetId(source.id, d.schema, d.name),
              estimate: d.rowEstimate,
              source: d.rowEstimateSource
            }))
            outcomes.push({ _tag: "Unchanged", ...base, serverVersion: raw.serverVersion, estimates })
            report({ reached: true, datasets: raw.datasets.length, columns, personal: 0, error: null })
            continue
          }
          const verdicts = classifier.classifySource(raw.datasets)
          outcomes.push({
            _tag: "Scanned",
            ...base,
            serverVersion: raw.serverVersion,
            datasets: raw.datasets,
            verdicts,
            rawFingerprint,
            ...(raw.edges !== undefined ? { edges: raw.edges } : {})
          })
          const personal = verdicts.reduce((n, vs) => n + vs.filter((v) => v.value !== "not").length, 0)
          report({ reached: true, datasets: raw.datasets.length, columns, personal, error: null })
        } else {
          const e = result.left
          const unreachable = e instanceof SourceUnreachable
          // The Store takes only a redacted message (RedactedText): this is where it is made.
          outcomes.push({
            _tag: "Failed",
            ...base,
            status: unreachable ? "unreachable" : "error",
            errorCode: e.code,
            errorMessage: redact(e.message, known)
          })
          report({
            reached: false,
            datasets: 0,
            columns: 0,
            personal: 0,
            error: { code: e.code, message: e.message, fix: isCatalogError(e) ? e.fix : null }
          })
        }
      }
      const reached = reports.filter((r) => r.reached)
      if (reached.length === 0) {
        // One source: its own error is the most useful answer (it names the variable or the host).
        const only = results.length === 1 ? results[0]!.result : null
        if (only !== null && only._tag === "Left") return yield* only.left
        const allSecrets = reports.every((r) =>
          r.error?.code === "SECRET_UNRESOLVED" || r.error?.code === "SECRET_PLACEHOLDER_UNREPLACED"
        )
        const detail = reports.map((r) => `${r.id}: ${r.error?.code} ${r.error?.message}`).join("; ")
        if (allSecrets) {
          return yield* new NoSourceDetected({ message: `Nothing to scan: ${detail}`, details: { sources: reports } })
        }
        return yield* new SourceUnreachable({
          message: `No source could be reached: ${detail}`,
          fix: "Fix the sources named above (run `catalog test <id>` for each), then re-run `catalog start`.",
          details: { sources: reports }
        })
      }
      // Sources that were scanned before but are no longer configured leave the catalog.
      const previous = yield* Effect.orDie(store.knownSources)
      const removed = previous.filter((id) => !sources.some((s) => s.id === id))
      const summary = yield* Effect.orDie(
        store.commitScan({ startedAt, outcomes, removedSources: removed, by: actor(env) })
      )
      const missing = reports.filter((r) => !r.reached)
      return {
        summary,
        sources: reports.map((r) => (r.reached ? { ...r, personal: summary.personalBySource[r.id] ?? 0 } : r)),
        coverage: {
          complete: missing.length === 0,
          reached: reached.map((r) => r.id),
          missing: missing.map((r) => r.id),
          line: coverageLine(reports.length, missing.map((r) => ({ id: r.id, reason: r.error?.code ?? "error" })))
        },
        upload: (loaded.file.catalogOnly
          ? { status: "skipped", message: "Stayed local: catalog-only is on, so no metadata ever leaves this machine." }
          : {
            status: "local",
            message: "Stayed local: this machine is not paired with a portal, so nothing was uploaded."
          }) satisfies UploadOutcome as UploadOutcome
      } satisfies ScanReport
    })

    return { run } as const
  })
}) {}
