/**
 * `invite`'s machine side: the metadata-only snapshot (src/domain/Snapshot.ts) drafted from the one
 * Reader, the preview a human reads before anything leaves, why the catalog is stale (if it is), the
 * snapshot file (exactly the bytes an upload sends) and the machine's record key.
 *
 * Nothing here reads a source: the snapshot holds what the Reader serves — names, types, flags, lineage,
 * the RoPA and DORA drafts and provenance — never a row value and never a secret.
 */
import { DateTime, Effect, Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as path from "node:path"
import type { Dataset, LineageEdge, SourceState } from "../domain/Catalog.js"
import type { LegalField } from "../domain/Compliance.js"
import type { SourceConfig } from "../domain/Config.js"
import { Snapshot, snapshotFileName, snapshotFormat, snapshotVersion, uploadCapBytes } from "../domain/Snapshot.js"
import { type ConfigInvalid, type ConfigNotFound, InvalidParam, SnapshotTooLarge } from "../errors/index.js"
import { version } from "../version.js"
import { AppEnv, dataDir } from "./AppEnv.js"
import { ConfigFile } from "./ConfigFile.js"
import { Files } from "./Files.js"
import { Reader } from "./Reader.js"
import { StoreReader } from "./Store.js"

/** The record key's file in the data folder (see `recordKeyHeader` in domain/Portal.ts). */
export const recordKeyFileName = "record-key"

/** What every preview says about the contents. */
export const contentsLine = "no row values, no secrets: names, types, flags and drafts only"

/** Who the claim link is for: an address, or `unbound` (whoever opens it first), or neither yet (`--no-upload`). */
export interface InviteRecipient {
  readonly recipient: string | null
  readonly unbound: boolean
}

/** One reason the catalog is stale for `invite`. */
export interface StaleReason {
  readonly source: string
  readonly reason: string
}

/** A drafted snapshot and the bytes that would be sent. */
export interface BuiltSnapshot {
  readonly snapshot: Snapshot
  /** `JSON.stringify(snapshot)`: the file's content and the upload's body. */
  readonly body: string
  readonly bytes: number
  readonly sha256: string
}

type FieldStatus = "suggested" | "confirmed" | "needs review"

/** The readable account of what would be sent. */
export interface InvitePreview {
  readonly recipient: string | null
  readonly unbound: boolean
  /** The portal address (CATALOG_PORTAL_URL as set), or null when it is not set. */
  readonly portal: string | null
  readonly controller: { readonly name: string | null; readonly contact: string | null } | null
  readonly sources: number
  readonly datasets: number
  readonly columns: number
  readonly personalDataItems: number
  readonly classes: { readonly personal: number; readonly special: number; readonly criminal: number }
  readonly lineageEdges: number
  readonly glossaryTerms: number
  readonly ropa: {
    readonly activities: ReadonlyArray<{
      readonly key: string
      readonly name: string
      readonly datasets: number
      readonly legal: {
        readonly purpose: FieldStatus
        readonly lawfulBasis: FieldStatus
        readonly retention: FieldStatus
        readonly transfers: FieldStatus
      }
    }>
    readonly openLegalCalls: number
  }
  readonly dora: { readonly inScope: boolean; readonly tables: number; readonly rows: number }
  readonly coverage: { readonly complete: boolean; readonly line: string }
  readonly lastScanAt: string | null
  readonly staleness: ReadonlyArray<
    { readonly source: string; readonly staleness: SourceState["staleness"]; readonly lastScannedAt: string | null }
  >
  readonly contents: string
  readonly stamp: string
}

const sha256Hex = (body: string): string => createHash("sha256").update(body, "utf8").digest("hex")

const fieldStatus = (f: LegalField): FieldStatus =>
  f.status === "confirmed" ? (f.needsReview ? "needs review" : "confirmed") : "suggested"

/** SNAPSHOT_TOO_LARGE when `bytes` exceed the cap (5,000,000 bytes unless a test lowers it). */
export const checkSize = (bytes: number, cap: number = uploadCapBytes): Effect.Effect<void, SnapshotTooLarge> =>
  bytes > cap
    ? Effect.fail(
      new SnapshotTooLarge({
        message: `The snapshot is ${bytes.toLocaleString("en")} bytes; the upload cap is ${
          cap.toLocaleString("en")
        } bytes (5 MB). Nothing was sent.`,
        details: { bytes, cap }
      })
    )
    : Effect.void

/**
 * Every lineage edge: the Reader's list is bounded for a reply's size, so the edges each dataset carries
 * (upstream and downstream) complete it; each edge once, by id.
 */
const allEdges = (listed: ReadonlyArray<LineageEdge>, datasets: ReadonlyArray<Dataset>): Array<LineageEdge> => {
  const byId = new Map<string, LineageEdge>()
  for (const e of listed) byId.set(e.id, e)
  for (const d of datasets) for (const e of [...d.lineage.upstream, ...d.lineage.downstream]) byId.set(e.id, e)
  return [...byId.values()]
}

const recordKeyPattern = /^[A-Za-z0-9_-]{43}$/

export class Invite extends Effect.Service<Invite>()("catalog/Invite", {
  effect: Effect.gen(function*() {
    const reader = yield* Reader
    const store = yield* StoreReader
    const config = yield* ConfigFile
    const files = yield* Files
    const env = yield* AppEnv
    const dir = dataDir(env)

    const orDie = <A, E>(e: Effect.Effect<A, E>) => Effect.orDie(e)
    const dataDirRefusal = (message: string) =>
      new InvalidParam({
        message,
        fix: "Set CATALOG_DATA to a folder you can write (default: .catalog in the working folder).",
        param: "CATALOG_DATA"
      })

    const configured: Effect.Effect<ReadonlyArray<SourceConfig>, ConfigNotFound | ConfigInvalid> = Effect.map(
      config.load(),
      (l) => l.file.sources
    )

    /**
     * Why the catalog does not describe what catalog.yml configures now: a source never scanned or last
     * scanned more than a week ago (`never` / `stale-loud`), a source scanned but no longer configured,
     * and a source whose kind or driver changed since the scan recorded it. Empty when it is fresh.
     */
    const staleness = Effect.gen(function*() {
      const sources = yield* configured
      const states = yield* orDie(reader.sourceStates)
      const recorded = yield* orDie(store.sources)
      const reasons: Array<StaleReason> = []
      for (const s of sources) {
        const row = recorded.find((r) => r.id === s.id)
        const state = states.find((x) => x.id === s.id)
        if (row === undefined) {
          reasons.push({ source: s.id, reason: "configured in catalog.yml but never scanned" })
          continue
        }
        const changed: Array<string> = []
        if (row.kind !== s.kind) changed.push(`kind ${row.kind} → ${s.kind}`)
        if (row.driver !== s.driver) changed.push(`driver ${row.driver} → ${s.driver}`)
        // Recorded since schema 5; a row with neither was scanned before (unknown, not a change) or has
        // neither. The variable's name only, never its value.
        const ref = row.connection_ref ?? null
        const file = row.path ?? null
        if (ref !== null || file !== null) {
          if (ref !== (s.connectionRef ?? null)) {
            changed.push(`connection variable ${ref ?? "none"} → ${s.connectionRef ?? "none"}`)
          }
          if (file !== (s.path ?? null)) changed.push(`path ${file ?? "none"} → ${s.path ?? "none"}`)
        }
        if (changed.length > 0) {
          reasons.push({ source: s.id, reason: `changed in catalog.yml since the last scan (${changed.join(", ")})` })
        } else if (state?.staleness === "never") {
          reasons.push({
            source: s.id,
            reason: `never scanned successfully${state.error ? ` (the last attempt failed: ${state.error.code})` : ""}`
          })
        } else if (state?.staleness === "stale-loud") {
          reasons.push({
            source: s.id,
            reason: `last scanned ${state.lastScannedAt ?? "long ago"}, more than a week ago`
          })
        }
      }
      for (const r of recorded) {
        if (!sources.some((s) => s.id === r.id)) {
          reasons.push({
            source: r.id,
            reason: `scanned but no longer in catalog.yml (${r.datasets} datasets of it are still in the catalog)`
          })
        }
      }
      return reasons as ReadonlyArray<StaleReason>
    })

    /** The snapshot, drafted from the Reader; `body` is exactly what is written and sent. */
    const build = (who: InviteRecipient) =>
      Effect.gen(function*() {
        const loaded = yield* config.load()
        const status = yield* orDie(reader.status)
        const list = yield* orDie(reader.datasets)
        const datasets = yield* Effect.forEach(list.datasets, (d) => orDie(reader.dataset(d.id)))
        const lineage = yield* orDie(reader.lineage())
        const glossary = yield* orDie(reader.glossary)
        const ropa = yield* orDie(reader.compliance)
        const dora = yield* orDie(reader.dora)
        const provenance = yield* orDie(reader.provenance)
        const c = loaded.file.controller
        const snapshot: Snapshot = {
          format: snapshotFormat,
          version: snapshotVersion,
          tool: { name: "local-data-catalog", version },
          createdAt: DateTime.formatIso(yield* DateTime.now),
          recipient: who.recipient,
          unbound: who.unbound,
          controller: c ? { name: c.name ?? null, contact: c.contact ?? null } : null,
          status,
          datasets,
          lineage: allEdges(lineage.edges, datasets),
          glossary,
          ropa,
          dora,
          provenance
        }
        // The portal validates the upload with the same Schema: a snapshot that would not pass is a bug here.
        yield* Schema.validate(Snapshot)(snapshot).pipe(Effect.orDie)
        const body = JSON.stringify(snapshot)
        return {
          snapshot,
          body,
          bytes: Buffer.byteLength(body, "utf8"),
          sha256: sha256Hex(body)
        } satisfies BuiltSnapshot
      })

    /** The readable account of `built`, for the human who decides whether it leaves. */
    const preview = (built: BuiltSnapshot, portal: string | null): InvitePreview => {
      const s = built.snapshot
      const register = s.dora.register
      return {
        recipient: s.recipient,
        unbound: s.unbound,
        portal,
        controller: s.controller,
        sources: s.status.sources,
        datasets: s.datasets.length,
        columns: s.datasets.reduce((n, d) => n + d.columns.length, 0),
        personalDataItems: s.status.personalDataItems,
        classes: {
          personal: s.status.classes.personal,
          special: s.status.classes.special,
          criminal: s.status.classes.criminal
        },
        lineageEdges: s.lineage.length,
        glossaryTerms: s.glossary.terms.length,
        ropa: {
          activities: s.ropa.activities.map((a) => ({
            key: a.key,
            name: a.name,
            datasets: a.datasets.length,
            legal: {
              purpose: fieldStatus(a.legal.purpose),
              lawfulBasis: fieldStatus(a.legal.lawfulBasis),
              retention: fieldStatus(a.legal.retention),
              transfers: fieldStatus(a.legal.transfers)
            }
          })),
          openLegalCalls: s.ropa.openLegalCalls
        },
        dora: {
          inScope: s.dora.inScope,
          tables: register?.tables.length ?? 0,
          rows: register?.tables.reduce((n, t) => n + t.rows.length, 0) ?? 0
        },
        coverage: { complete: s.status.coverage.complete, line: s.status.coverage.line },
        lastScanAt: s.status.lastScanAt,
        staleness: s.status.sourceStates.map((x) => ({
          source: x.id,
          staleness: x.staleness,
          lastScannedAt: x.lastScannedAt
        })),
        contents: contentsLine,
        stamp: s.ropa.stamp
      }
    }

    /** Writes the snapshot file (atomically, 0600) and returns its absolute path. */
    const write = (built: BuiltSnapshot) =>
      Effect.gen(function*() {
        const file = path.join(dir, snapshotFileName)
        yield* files.writePrivateFile(file, built.body).pipe(
          Effect.mapError((e) => dataDirRefusal(`The invite snapshot ${file} cannot be written (${e.reason}).`))
        )
        return file
      })

    /** The machine's record key (32 random bytes, base64url), created 0600 on first use; never printed. */
    const recordKey = Effect.gen(function*() {
      const file = path.join(dir, recordKeyFileName)
      const probe = yield* files.probe(file)
      if (probe.kind === "file") {
        const text = (yield* files.readRegularFile(file, 1024).pipe(
          Effect.mapError((e) => dataDirRefusal(`The record key ${file} cannot be read (${e.reason}).`))
        )).trim()
        if (recordKeyPattern.test(text)) return text
        // A damaged key cannot be repaired; the record is uploaded under a fresh one (the portal sees a new record).
      } else if (probe.kind !== "missing") {
        return yield* dataDirRefusal(`The record key ${file} is not a regular file; remove whatever is there.`)
      }
      const key = randomBytes(32).toString("base64url")
      yield* files.writePrivateFile(file, key + "\n").pipe(
        Effect.mapError((e) => dataDirRefusal(`The record key ${file} cannot be written (${e.reason}).`))
      )
      return key
    })

    return { staleness, build, preview, write, recordKey } as const
  })
}) {}
