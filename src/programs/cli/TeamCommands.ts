/** `export` / `import` (team catalog file) and `evidence` (bundle with fingerprints, and its verification). */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CatalogFileInvalid } from "../../errors/index.js"
import { ReadLive, WriteLive } from "../../layers/Main.js"
import { actor, AppEnv } from "../../services/AppEnv.js"
import { verifyEvidence, writeEvidence } from "../../services/Evidence.js"
import { Reader } from "../../services/Reader.js"
import { serializeTeamFile, TeamFileService, validateTeamFile } from "../../services/TeamFile.js"
import { version } from "../../version.js"
import { emit, green } from "./render.js"

const TeamLive = TeamFileService.Default.pipe(Layer.provideMerge(WriteLive))

export const exportCmd = Command.make("export", { out: Options.text("out").pipe(Options.optional) }, ({ out }) =>
  Effect.gen(function*() {
    const team = yield* TeamFileService
    const file = yield* Effect.orDie(team.exportFile)
    const text = serializeTeamFile(file)
    const target = Option.getOrUndefined(out)
    if (target === undefined) return yield* Effect.sync(() => process.stdout.write(text))
    const env = yield* AppEnv
    const abs = path.resolve(env.cwd, target)
    yield* Effect.sync(() => fs.writeFileSync(abs, text))
    const counts = { overrides: file.overrides.length, lineage: file.lineage.length, glossary: file.glossary.length, descriptions: file.descriptions.length, annotations: file.annotations.length, dora: file.dora.length }
    yield* emit({ written: abs, format: file.format, version: file.version, counts }, (x) => `Wrote ${x.written} (${Object.entries(x.counts).map(([k, n]) => `${n} ${k}`).join(", ")}).`)
  }).pipe(Effect.provide(TeamLive)))

export const importCmd = Command.make("import", { file: Args.text({ name: "file" }) }, ({ file }) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const abs = path.resolve(env.cwd, file)
    if (!fs.existsSync(abs)) return yield* new CatalogFileInvalid({ message: `${file} does not exist.`, param: "file" })
    const raw = yield* Effect.try({ try: () => JSON.parse(fs.readFileSync(abs, "utf8")) as unknown, catch: () => new CatalogFileInvalid({ message: `${file} is not JSON, so not a team catalog file.`, param: "file" }) })
    const valid = yield* validateTeamFile(raw, file)
    const team = yield* TeamFileService
    const r = yield* Effect.orDie(team.importFile(valid, actor(env), file))
    yield* emit({ imported: file, ...r }, (x) => `${green("Imported")} ${x.imported}: ${x.rows} rows, ${x.applied} applied (newer rows win on conflicts).`)
  }).pipe(Effect.provide(TeamLive)))

export const evidence = Command.make("evidence", {
  out: Options.text("out").pipe(Options.optional),
  verify: Options.text("verify").pipe(Options.optional)
}, ({ out, verify }) =>
  Effect.gen(function*() {
    const env = yield* AppEnv
    const dir = Option.getOrUndefined(verify)
    if (dir !== undefined) {
      const r = yield* verifyEvidence(path.resolve(env.cwd, dir))
      yield* emit({ verified: true, ...r }, (x) => `${green("Verified")} ${x.dir}: ${x.artifacts.length} artifacts match their fingerprints.`)
      return
    }
    const target = path.resolve(env.cwd, Option.getOrElse(out, () => `evidence-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}`))
    const manifest = yield* Effect.gen(function*() {
      const reader = yield* Reader
      return yield* writeEvidence(target, {
        tool: `local-data-catalog/${version}`,
        ropa: yield* reader.compliance,
        dora: yield* reader.dora,
        provenance: yield* reader.provenance,
        changes: yield* reader.changes("0", 1000)
      })
    }).pipe(Effect.provide(ReadLive))
    yield* emit({ dir: target, ...manifest }, (m) => [`Evidence bundle written to ${m.dir} (${m.stamp}):`, ...m.artifacts.map((a) => `  ${a.file}  sha256:${a.sha256.slice(0, 16)}…`), `Verify later with: catalog evidence --verify ${m.dir}`].join("\n"))
  }))

