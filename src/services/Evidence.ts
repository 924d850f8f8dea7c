/**
 * Evidence bundle: the RoPA draft (JSON and a readable Markdown document), the DORA draft, provenance
 * and a change-log extract, with a manifest of SHA-256 fingerprints. `verify` recomputes them. When the
 * record has a seal, its signed artifacts (as pulled and verified: each file, its `.sig` and the pinned
 * `signing-key.pem`) are included under `sealed/` with their fingerprints too.
 */
import { DateTime, Effect } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import type { ChangeList } from "../domain/Catalog.js"
import type { DoraState, Provenance, RopaDraft } from "../domain/Compliance.js"
import { EvidenceHashMismatch, InvalidParam } from "../errors/index.js"
import { Files } from "./Files.js"

export const evidenceFormat = "local-data-catalog/evidence"

export interface Manifest {
  readonly format: string
  readonly version: 1
  readonly tool: string
  readonly generatedAt: string
  readonly seal: "draft" | "sealed"
  readonly stamp: string
  readonly artifacts: ReadonlyArray<
    { readonly file: string; readonly sha256: string; readonly bytes: number; readonly description: string }
  >
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex")

/** Where a seal's files go inside a bundle: `sealed/<name>` (one level, plain names). */
export const sealedPrefix = "sealed/"
const sealedFile = /^sealed\/[A-Za-z0-9][A-Za-z0-9._-]{0,120}$/

/** An artifact path a bundle may list: a file directly in the bundle, or one in its `sealed/` folder. */
const artifactPathOk = (file: string): boolean =>
  (file === path.basename(file) && file !== "." && file !== "..") || (sealedFile.test(file) && !file.includes(".."))

export const ropaMarkdown = (r: RopaDraft): string => {
  const lines: Array<string> = [
    "# Record of processing activities (GDPR Art. 30(1))",
    "",
    `> **${r.stamp}.** Generated ${r.generatedAt} by local-data-catalog from metadata only. Legal fields marked *suggested* are machine drafts awaiting a named person's confirmation.`,
    "",
    `**Controller:** ${
      r.controller
        ? `${r.controller.name ?? "(name missing)"} — ${r.controller.contact ?? "(contact missing)"}`
        : "(not set: controller.name / controller.contact in catalog.yml)"
    }`,
    "",
    `**Open legal calls:** ${r.openLegalCalls}`,
    ""
  ]
  for (const a of r.activities) {
    lines.push(`## ${a.name} (\`${a.key}\`)`, "", a.description, "")
    lines.push(`- **Data subjects:** ${a.dataSubjects.join(", ")}`)
    lines.push(
      `- **Categories of personal data:** ${
        a.dataCategories.map((c) => `${c.category}${c.class !== "personal" ? ` (**${c.class}**)` : ""}`).join(", ") ||
        "none"
      }`
    )
    lines.push(
      `- **Special-category data (Art. 9):** ${a.special ? "yes" : "no"} · **Criminal-offence data (Art. 10):** ${
        a.criminal ? "yes" : "no"
      }`
    )
    lines.push(`- **Systems:** ${a.systems.join(", ")} · **Datasets:** ${a.datasets.join(", ")}`)
    lines.push(`- **Recipients:** ${a.recipients.join(", ") || "to be recorded"}`, "")
    lines.push("| field | status | value |", "|---|---|---|")
    for (const f of [a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers]) {
      const status = f.status === "confirmed"
        ? `confirmed by ${f.confirmedBy ?? "?"} at ${f.confirmedAt ?? "?"}${f.needsReview ? " — **needs review**" : ""}`
        : "suggested"
      lines.push(`| ${f.field} | ${status} | ${(f.value ?? "").replace(/\|/g, "\\|").replace(/\n/g, " ")} |`)
    }
    lines.push("")
  }
  return lines.join("\n")
}

/** Whether a folder's entries are an earlier evidence bundle: a manifest of ours, and nothing it does not list. */
export const earlierBundle = Effect.fn("Evidence.earlierBundle")(function*(
  dir: string,
  entries: ReadonlyArray<string>
): Effect.fn.Return<
  { readonly generatedAt: string | null; readonly strangers: ReadonlyArray<string> } | null,
  never,
  Files
> {
  if (!entries.includes("manifest.json")) return null
  const files = yield* Files
  const manifestPath = path.join(dir, "manifest.json")
  if ((yield* files.probe(manifestPath)).kind !== "file") return null
  const text = yield* Effect.option(files.readText(manifestPath))
  if (text._tag === "None") return null
  let manifest: Partial<Manifest>
  try {
    manifest = JSON.parse(text.value) as Partial<Manifest>
  } catch {
    return null
  }
  if (manifest.format !== evidenceFormat || !Array.isArray(manifest.artifacts)) return null
  const listed = new Set(["manifest.json", ...manifest.artifacts.map((a) => a.file)])
  if (manifest.artifacts.some((a) => a.file.startsWith(sealedPrefix))) listed.add("sealed")
  return {
    generatedAt: typeof manifest.generatedAt === "string" ? manifest.generatedAt : null,
    strangers: entries.filter((e) => !listed.has(e))
  }
})

/**
 * Writes the bundle as a new folder `dir` (0700, files 0600): built beside it under a temporary name,
 * then moved in, so `dir` is never half-written. The caller has checked `dir` is missing, empty or an
 * earlier bundle the user agreed to replace; an earlier bundle is swapped out whole.
 */
export const writeEvidence = (
  dir: string,
  input: {
    readonly tool: string
    readonly ropa: RopaDraft
    readonly dora: DoraState
    readonly provenance: Provenance
    readonly changes: ChangeList
    /** The newest seal's files (`.catalog/sealed/<sealId>/`), written under `sealed/`; empty without a seal. */
    readonly sealed?: ReadonlyArray<{ readonly name: string; readonly body: Uint8Array }>
  }
): Effect.Effect<Manifest, InvalidParam, Files> =>
  Effect.gen(function*() {
    const disk = yield* Files
    const files: Array<{ file: string; body: string | Uint8Array; description: string }> = [
      {
        file: "ropa.json",
        body: `${JSON.stringify(input.ropa, null, 2)}\n`,
        description: "RoPA draft (Art. 30) as data"
      },
      { file: "ropa.md", body: `${ropaMarkdown(input.ropa)}\n`, description: "RoPA draft as a readable document" },
      {
        file: "dora.json",
        body: `${JSON.stringify(input.dora, null, 2)}\n`,
        description: "DORA Register of Information draft"
      },
      {
        file: "provenance.json",
        body: `${JSON.stringify(input.provenance, null, 2)}\n`,
        description: "source reachability, staleness, classifier methods, change-log head"
      },
      {
        file: "changes.json",
        body: `${JSON.stringify(input.changes, null, 2)}\n`,
        description: "change-log extract, newest first"
      }
    ]
    for (const s of input.sealed ?? []) {
      files.push({
        file: `${sealedPrefix}${s.name}`,
        body: s.body,
        description: s.name.endsWith(".sig")
          ? `detached Ed25519 signature of ${s.name.slice(0, -4)} (the sealed record)`
          : s.name === "signing-key.pem"
          ? "the portal's public key, as pinned on this machine (verify the signatures with openssl)"
          : `sealed artifact ${s.name} (signed by the portal)`
      })
    }
    const manifest: Manifest = {
      format: evidenceFormat,
      version: 1,
      tool: input.tool,
      generatedAt: DateTime.formatIso(yield* DateTime.now),
      seal: input.ropa.seal,
      stamp: "DRAFT, not an official record",
      artifacts: files.map((f) => ({
        file: f.file,
        sha256: sha256(f.body),
        bytes: typeof f.body === "string" ? Buffer.byteLength(f.body) : f.body.length,
        description: f.description
      }))
    }
    const staging = yield* disk.stagingFolder(dir)
    yield* Effect.gen(function*() {
      for (const f of files) yield* disk.writePrivateFile(path.join(staging, ...f.file.split("/")), f.body)
      yield* disk.writePrivateFile(path.join(staging, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`)
      yield* disk.moveFolderInto(staging, dir)
    }).pipe(
      Effect.catchAll((e) => Effect.zipRight(disk.remove(staging, { recursive: true }), Effect.fail(e)))
    )
    return manifest
  }).pipe(
    Effect.mapError((e) =>
      new InvalidParam({
        message: `The evidence bundle cannot be written to ${dir} (${e.reason}); nothing was written.`,
        fix: "Pass --out a folder you can write (default: evidence-<timestamp> in the working folder).",
        param: "out"
      })
    )
  )

const mismatch = (message: string, param: string) =>
  new EvidenceHashMismatch({
    message,
    fix: "Point --verify at a folder written by `catalog evidence`, or regenerate the bundle with `catalog evidence`.",
    param
  })

/** Recomputes every fingerprint; the first mismatch (changed, missing) fails naming the artifact. `dir` is an existing folder (checked by the caller). */
export const verifyEvidence = (dir: string) =>
  Effect.gen(function*() {
    const disk = yield* Files
    const manifestPath = path.join(dir, "manifest.json")
    const kind = (yield* disk.probe(manifestPath)).kind
    if (kind !== "file") {
      return yield* mismatch(
        `${dir} has no manifest.json${kind === "missing" ? "" : " file"}: it is not an evidence bundle.`,
        "verify"
      )
    }
    const notJson = () =>
      mismatch(`${manifestPath} is not JSON: the manifest was changed after it was written.`, "manifest.json")
    const text = yield* Effect.mapError(disk.readText(manifestPath), notJson)
    const manifest = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: notJson })
    const artifacts =
      typeof manifest === "object" && manifest !== null && (manifest as Partial<Manifest>).format === evidenceFormat
        ? (manifest as Partial<Manifest>).artifacts
        : undefined
    if (
      !Array.isArray(artifacts) || artifacts.some((a: unknown) =>
        typeof a !== "object" || a === null || typeof (a as { file?: unknown }).file !== "string" ||
        typeof (a as { sha256?: unknown }).sha256 !== "string"
      )
    ) {
      return yield* mismatch(
        `${manifestPath} is not an evidence manifest (format ${evidenceFormat} with a list of artifacts and their fingerprints).`,
        "manifest.json"
      )
    }
    const results = yield* Effect.forEach(artifacts, (a) =>
      Effect.gen(function*() {
        // An artifact is a file directly in the bundle: a name that leaves the folder is never read.
        const inside = artifactPathOk(a.file)
        const p = path.join(dir, a.file)
        const actual = inside && (yield* disk.probe(p)).kind === "file"
          ? yield* disk.readBytes(p).pipe(Effect.map(sha256), Effect.orElseSucceed(() => null))
          : null
        return { file: a.file, expected: a.sha256, actual, ok: actual === a.sha256 }
      }))
    const bad = results.filter((r) => !r.ok)
    if (bad.length > 0) {
      return yield* new EvidenceHashMismatch({
        message: `${
          bad.map((b) => `${b.file} ${b.actual === null ? "is missing" : "no longer matches its fingerprint"}`).join(
            "; "
          )
        }.`,
        param: bad[0]!.file,
        details: { artifacts: bad }
      })
    }
    return { dir, generatedAt: (manifest as Partial<Manifest>).generatedAt ?? null, artifacts: results }
  })
