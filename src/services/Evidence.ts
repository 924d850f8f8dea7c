/**
 * Evidence bundle: the RoPA draft (JSON and a readable Markdown document), the DORA draft, provenance
 * and a change-log extract, with a manifest of SHA-256 fingerprints. `verify` recomputes them.
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { DoraState, Provenance, RopaDraft } from "../domain/Compliance.js"
import type { ChangeList } from "../domain/Catalog.js"
import { EvidenceHashMismatch } from "../errors/index.js"

export const evidenceFormat = "local-data-catalog/evidence"

export interface Manifest {
  readonly format: string
  readonly version: 1
  readonly tool: string
  readonly generatedAt: string
  readonly seal: "draft"
  readonly stamp: string
  readonly artifacts: ReadonlyArray<{ readonly file: string; readonly sha256: string; readonly bytes: number; readonly description: string }>
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex")

export const ropaMarkdown = (r: RopaDraft): string => {
  const lines: Array<string> = [
    "# Record of processing activities (GDPR Art. 30(1))",
    "",
    `> **${r.stamp}.** Generated ${r.generatedAt} by local-data-catalog from metadata only. Legal fields marked *suggested* are machine drafts awaiting a named person's confirmation.`,
    "",
    `**Controller:** ${r.controller ? `${r.controller.name ?? "(name missing)"} — ${r.controller.contact ?? "(contact missing)"}` : "(not set: controller.name / controller.contact in catalog.yml)"}`,
    "",
    `**Open legal calls:** ${r.openLegalCalls}`,
    ""
  ]
  for (const a of r.activities) {
    lines.push(`## ${a.name} (\`${a.key}\`)`, "", a.description, "")
    lines.push(`- **Data subjects:** ${a.dataSubjects.join(", ")}`)
    lines.push(`- **Categories of personal data:** ${a.dataCategories.map((c) => `${c.category}${c.class !== "personal" ? ` (**${c.class}**)` : ""}`).join(", ") || "none"}`)
    lines.push(`- **Special-category data (Art. 9):** ${a.special ? "yes" : "no"} · **Criminal-offence data (Art. 10):** ${a.criminal ? "yes" : "no"}`)
    lines.push(`- **Systems:** ${a.systems.join(", ")} · **Datasets:** ${a.datasets.join(", ")}`)
    lines.push(`- **Recipients:** ${a.recipients.join(", ") || "to be recorded"}`, "")
    lines.push("| field | status | value |", "|---|---|---|")
    for (const f of [a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers]) {
      const status = f.status === "confirmed" ? `confirmed by ${f.confirmedBy ?? "?"} at ${f.confirmedAt ?? "?"}${f.needsReview ? " — **needs review**" : ""}` : "suggested"
      lines.push(`| ${f.field} | ${status} | ${(f.value ?? "").replace(/\|/g, "\\|").replace(/\n/g, " ")} |`)
    }
    lines.push("")
  }
  return lines.join("\n")
}

/** Writes the bundle into `dir` (created; existing artifacts are replaced) and returns the manifest. */
export const writeEvidence = (dir: string, input: { readonly tool: string; readonly ropa: RopaDraft; readonly dora: DoraState; readonly provenance: Provenance; readonly changes: ChangeList }) =>
  Effect.sync(() => {
    fs.mkdirSync(dir, { recursive: true })
    const files: Array<{ file: string; body: string; description: string }> = [
      { file: "ropa.json", body: `${JSON.stringify(input.ropa, null, 2)}\n`, description: "RoPA draft (Art. 30) as data" },
      { file: "ropa.md", body: `${ropaMarkdown(input.ropa)}\n`, description: "RoPA draft as a readable document" },
      { file: "dora.json", body: `${JSON.stringify(input.dora, null, 2)}\n`, description: "DORA Register of Information draft" },
      { file: "provenance.json", body: `${JSON.stringify(input.provenance, null, 2)}\n`, description: "source reachability, staleness, classifier methods, change-log head" },
      { file: "changes.json", body: `${JSON.stringify(input.changes, null, 2)}\n`, description: "change-log extract, newest first" }
    ]
    for (const f of files) fs.writeFileSync(path.join(dir, f.file), f.body)
    const manifest: Manifest = {
      format: evidenceFormat,
      version: 1,
      tool: input.tool,
      generatedAt: new Date().toISOString(),
      seal: "draft",
      stamp: "DRAFT, not an official record",
      artifacts: files.map((f) => ({ file: f.file, sha256: sha256(f.body), bytes: Buffer.byteLength(f.body), description: f.description }))
    }
    fs.writeFileSync(path.join(dir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`)
    return manifest
  })

/** Recomputes every fingerprint; the first mismatch (changed, missing) fails naming the artifact. */
export const verifyEvidence = (dir: string) =>
  Effect.gen(function*() {
    const manifestPath = path.join(dir, "manifest.json")
    if (!fs.existsSync(manifestPath)) {
      return yield* new EvidenceHashMismatch({ message: `${dir} has no manifest.json: it is not an evidence bundle.`, fix: "Point --verify at a folder written by `catalog evidence`.", param: "verify" })
    }
    const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as Manifest
    const results = manifest.artifacts.map((a) => {
      const p = path.join(dir, a.file)
      const actual = fs.existsSync(p) ? sha256(fs.readFileSync(p)) : null
      return { file: a.file, expected: a.sha256, actual, ok: actual === a.sha256 }
    })
    const bad = results.filter((r) => !r.ok)
    if (bad.length > 0) {
      return yield* new EvidenceHashMismatch({
        message: `${bad.map((b) => `${b.file} ${b.actual === null ? "is missing" : "no longer matches its fingerprint"}`).join("; ")}.`,
        param: bad[0]!.file,
        details: { artifacts: bad }
      })
    }
    return { dir, generatedAt: manifest.generatedAt, artifacts: results }
  })
