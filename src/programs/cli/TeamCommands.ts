/** `export` / `import` (team catalog file) and `evidence` (bundle with fingerprints, and its verification). */
import { Args, Command, Options, Prompt } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { CatalogFileInvalid, ConfirmRequired, InvalidParam } from "../../errors/index.js"
import { ReadLive, WriteLive } from "../../layers/Main.js"
import { actor, AppEnv } from "../../services/AppEnv.js"
import { earlierBundle, verifyEvidence, writeEvidence } from "../../services/Evidence.js"
import { outputFileTarget, outputFolderTarget, readUserFile, userFolder, writePrivate } from "../../services/Files.js"
import { Reader } from "../../services/Reader.js"
import { sealedFiles } from "../../services/Seals.js"
import { serializeTeamFile, TeamFileService, validateTeamFile } from "../../services/TeamFile.js"
import { version } from "../../version.js"
import { CliFlags, emit, green } from "./render.js"

const TeamLive = TeamFileService.Default.pipe(Layer.provideMerge(WriteLive))

/** `--yes`, or a yes at the terminal; off a terminal, no. */
const confirmed = (question: string) =>
  Effect.gen(function*() {
    if ((yield* CliFlags).yes) return true
    if (!(yield* AppEnv).interactive) return false
    return yield* Prompt.confirm({ message: question, initial: false })
  })

const outParam = (fix: string) => (message: string) => new InvalidParam({ message, fix, param: "out" })

export const exportCmd = Command.make(
  "export",
  {
    out: Options.text("out").pipe(
      Options.withPseudoName("<file>"),
      Options.withDescription("write to this file instead of stdout"),
      Options.optional
    )
  },
  ({ out }) =>
    Effect.gen(function*() {
      const env = yield* AppEnv
      const typed = Option.getOrUndefined(out)
      // The destination is checked before anything is read: a folder, a device or an existing file never gets half a file.
      const target = typed === undefined ? undefined : yield* outputFileTarget(env.cwd, typed, {
        flag: "--out",
        what: "the path of a file to write the team catalog to",
        refuse: outParam(
          "Pass --out a file path such as team-catalog.json, or leave --out out to print the file on stdout."
        )
      })
      if (target?.exists === true && !(yield* confirmed(`${typed} exists. Replace it with this export?`))) {
        return yield* new ConfirmRequired({
          message: `${typed} already exists; the export would replace it.`,
          fix: `Re-run with --yes to replace it (catalog export --out ${typed} --yes), or pass another file name.`,
          param: "yes"
        })
      }
      const file = yield* Effect.flatMap(TeamFileService, (team) => Effect.orDie(team.exportFile)).pipe(
        Effect.provide(TeamLive)
      )
      const text = serializeTeamFile(file)
      if (target === undefined) return yield* Effect.sync(() => process.stdout.write(text))
      yield* writePrivate(target.path, text, outParam("Pass --out a file in a folder you can write."))
      const counts = {
        overrides: file.overrides.length,
        lineage: file.lineage.length,
        glossary: file.glossary.length,
        descriptions: file.descriptions.length,
        annotations: file.annotations.length,
        dora: file.dora.length
      }
      yield* emit(
        { written: target.path, replaced: target.exists, format: file.format, version: file.version, counts },
        (x) =>
          `${x.replaced ? "Replaced" : "Wrote"} ${x.written} (${
            Object.entries(x.counts).map(([k, n]) => `${n} ${k}`).join(", ")
          }).`
      )
    })
).pipe(Command.withDescription(
  "Write the team catalog file: every human-made fact (classification overrides, user lineage edges, glossary, descriptions, RoPA fills and confirmations with who confirmed, DORA cells) as deterministic JSON with format and integer version. Without --out it prints the file. An existing file is replaced only with --yes (atomically); the file is private to your account (0600)."
))

export const importCmd = Command.make(
  "import",
  { file: Args.text({ name: "file" }).pipe(Args.withDescription("a team catalog file written by `catalog export`")) },
  ({ file }) =>
    Effect.gen(function*() {
      const env = yield* AppEnv
      const { text } = yield* readUserFile(env.cwd, file, {
        flag: "import",
        what: "a team catalog file written by `catalog export`",
        refuse: (message) => new CatalogFileInvalid({ message, param: "file" })
      })
      const raw = yield* Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () =>
          new CatalogFileInvalid({ message: `${file} is not JSON, so not a team catalog file.`, param: "file" })
      })
      const valid = yield* validateTeamFile(raw, file)
      // The catalog is opened (and created, the first time) only once the file is known to be good.
      const r = yield* Effect.flatMap(TeamFileService, (team) => Effect.orDie(team.importFile(valid, actor(env), file)))
        .pipe(Effect.provide(TeamLive))
      yield* emit(
        { imported: file, ...r },
        (x) => `${green("Imported")} ${x.imported}: ${x.rows} rows, ${x.applied} applied (newer rows win on conflicts).`
      )
    })
).pipe(Command.withDescription(
  "Merge a team catalog file (newer rows win on conflicts). All or nothing: a file that is not a team catalog, from a newer version, or with a confirmed answer naming no confirmer imports nothing."
))

export const evidence = Command.make("evidence", {
  out: Options.text("out").pipe(
    Options.withPseudoName("<dir>"),
    Options.withDescription("folder to write (default evidence-<timestamp>)"),
    Options.optional
  ),
  verify: Options.text("verify").pipe(
    Options.withPseudoName("<dir>"),
    Options.withDescription("check a bundle against its manifest"),
    Options.optional
  )
}, ({ out, verify }) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const toVerify = Option.getOrUndefined(verify)
    if (toVerify !== undefined) {
      const dir = yield* userFolder(env.cwd, toVerify, {
        flag: "--verify",
        what: "an evidence bundle folder written by `catalog evidence`",
        refuse: (message) =>
          new InvalidParam({
            message,
            fix: "Pass --verify the folder `catalog evidence` wrote (it holds manifest.json).",
            param: "verify"
          })
      })
      const r = yield* verifyEvidence(dir)
      yield* emit({ verified: true, ...r }, (x) =>
        `${green("Verified")} ${x.dir}: ${x.artifacts.length} artifacts match their fingerprints.`)
      return
    }
    const typed = Option.getOrElse(out, () =>
      `evidence-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}`)
    const fix = "Pass --out a new or empty folder (default: evidence-<timestamp> in the working folder)."
    const target = yield* outputFolderTarget(env.cwd, typed, {
      flag: "--out",
      what: "a new or empty folder for the evidence bundle",
      refuse: outParam(fix)
    })
    // A non-empty folder: only an earlier bundle (its manifest and the artifacts it lists, nothing else) may be replaced, and only when confirmed.
    if (target.entries.length > 0) {
      const earlier = yield* earlierBundle(target.path, target.entries)
      if (earlier === null || earlier.strangers.length > 0) {
        const strangers = earlier === null ? target.entries : earlier.strangers
        return yield* new InvalidParam({
          message: `${typed} is not empty and ${
            earlier === null ? "is not an evidence bundle" : "holds files that are not part of its evidence bundle"
          } (${strangers.slice(0, 5).join(", ")}${
            strangers.length > 5 ? `, … ${strangers.length - 5} more` : ""
          }); the bundle is never mixed with other files, even with --yes.`,
          fix,
          param: "out"
        })
      }
      if (!(yield* confirmed(`${typed} holds an earlier evidence bundle. Replace it?`))) {
        return yield* new ConfirmRequired({
          message: `${typed} already holds an evidence bundle${
            earlier.generatedAt !== null ? ` (generated ${earlier.generatedAt})` : ""
          }; writing would replace it.`,
          fix: `Re-run with --yes to replace it (catalog evidence --out ${typed} --yes), or pass --out a new folder.`,
          param: "yes"
        })
      }
    }
    const manifest = yield* Effect.gen(function*() {
      const reader = yield* Reader
      return yield* writeEvidence(target.path, {
        tool: `local-data-catalog/${version}`,
        ropa: yield* reader.compliance,
        dora: yield* reader.dora,
        provenance: yield* reader.provenance,
        changes: yield* reader.changes("0", 1000),
        sealed: yield* sealedFiles((yield* reader.status).sealInfo?.last?.id ?? null)
      })
    }).pipe(Effect.provide(ReadLive))
    yield* emit({ dir: target.path, ...manifest }, (m) =>
      [
        `Evidence bundle written to ${m.dir} (${m.stamp}):`,
        ...m.artifacts.map((a) => `  ${a.file}  sha256:${a.sha256.slice(0, 16)}…`),
        `Verify later with: catalog evidence --verify ${m.dir}`
      ].join("\n"))
  })).pipe(Command.withDescription(
    "Write an evidence bundle (RoPA draft as JSON and Markdown, DORA draft, provenance, change-log extract) with a manifest of SHA-256 fingerprints; --verify recomputes them and names any artifact that changed. --out must be a new or empty folder, or an earlier bundle (replaced whole, with --yes); a folder holding other files is refused."
  ))
