/**
 * `catalog.yml`: found in the working folder, then `.catalog/catalog.yml`, or at `CATALOG_CONFIG`;
 * decoded with Schema; errors name the bad key and its line. Edits keep the user's comments.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { CatalogFile, type SourceConfig } from "../domain/Config.js"
import { ConfigInvalid, ConfigNotFound } from "../errors/index.js"
import { AppEnv, dataDir, type AppEnvShape } from "./AppEnv.js"

export interface LoadedConfig {
  /** Absolute path of the file read. */
  readonly path: string
  /** Folder of the file: relative paths in it resolve against this. */
  readonly baseDir: string
  readonly file: CatalogFile
}

/** The candidate locations, in lookup order. */
export const configCandidates = (e: AppEnvShape): ReadonlyArray<string> => {
  const explicit = e.env["CATALOG_CONFIG"]
  if (explicit !== undefined && explicit !== "") return [path.resolve(e.cwd, explicit)]
  return [path.join(e.cwd, "catalog.yml"), path.join(dataDir(e), "catalog.yml")]
}

/** Where a new catalog.yml is written when none exists. */
export const defaultConfigPath = (e: AppEnvShape): string => configCandidates(e)[0]!

const lineOf = (text: string, offset: number): number => text.slice(0, offset).split("\n").length

/** Parses and validates one file's text. Exported for tests and `doctor`. */
export const parseConfigText = (text: string, file: string): Either.Either<CatalogFile, ConfigInvalid> => {
  const doc = YAML.parseDocument(text, { prettyErrors: false })
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!
    const line = err.linePos?.[0]?.line ?? lineOf(text, err.pos[0])
    return Either.left(new ConfigInvalid({ message: `${file}:${line}: YAML syntax error: ${err.message.split("\n")[0]}`, details: { line } }))
  }
  const raw: unknown = doc.toJS() ?? {}
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return Either.left(new ConfigInvalid({ message: `${file}:1: the file must be a mapping of keys (sources, controller, dora, catalogOnly)` }))
  }
  const known = new Set(["version", "sources", "controller", "dora", "catalogOnly"])
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      const node = doc.get(key, true) as { range?: [number, number, number] } | undefined
      const keyNode = (doc.contents as YAML.YAMLMap).items.find((p) => YAML.isScalar(p.key) && p.key.value === key)
      const offset = (keyNode?.key as { range?: [number, number, number] } | undefined)?.range?.[0] ?? node?.range?.[0] ?? 0
      return Either.left(new ConfigInvalid({ message: `${file}:${lineOf(text, offset)}: unknown key "${key}"`, param: key, details: { key, line: lineOf(text, offset) } }))
    }
  }
  const decoded = Schema.decodeUnknownEither(CatalogFile, { onExcessProperty: "error" })(raw)
  if (Either.isRight(decoded)) {
    const ids = new Set<string>()
    for (const [i, s] of decoded.right.sources.entries()) {
      if (ids.has(s.id)) {
        const node = doc.getIn(["sources", i, "id"], true) as { range?: [number, number, number] } | undefined
        const line = lineOf(text, node?.range?.[0] ?? 0)
        return Either.left(new ConfigInvalid({ message: `${file}:${line}: sources[${i}].id "${s.id}" is used twice`, param: `sources.${i}.id`, details: { key: `sources.${i}.id`, line } }))
      }
      ids.add(s.id)
    }
    return Either.right(decoded.right)
  }
  const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
  const first = issues[0]
  const keyPath = first ? first.path.map(String) : []
  // Point at the deepest node that exists.
  let offset = 0
  for (let n = keyPath.length; n >= 0; n--) {
    const node = doc.getIn(keyPath.slice(0, n).map((k) => (/^\d+$/.test(k) ? Number(k) : k)), true) as { range?: [number, number, number] } | undefined
    if (node?.range) {
      offset = node.range[0]
      break
    }
  }
  const line = lineOf(text, offset)
  const key = keyPath.join(".") || "(root)"
  return Either.left(new ConfigInvalid({ message: `${file}:${line}: ${key}: ${first?.message ?? "invalid value"}`, param: key, details: { key, line } }))
}

export class ConfigFile extends Effect.Service<ConfigFile>()("catalog/ConfigFile", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv

    const find = (): string | null => configCandidates(env).find((p) => fs.existsSync(p)) ?? null

    /** The config, or `ConfigNotFound`. */
    const load = Effect.fn("ConfigFile.load")(function*() {
      const file = find()
      if (file === null) {
        return yield* new ConfigNotFound({ message: `No catalog.yml found (looked at ${configCandidates(env).join(", ")}).` })
      }
      const text = yield* Effect.sync(() => fs.readFileSync(file, "utf8"))
      const parsed = yield* parseConfigText(text, path.relative(env.cwd, file) || file)
      return { path: file, baseDir: path.dirname(file), file: parsed } satisfies LoadedConfig
    })

    /** The config, or `null` when there is none yet (commands that create it). */
    const loadOptional = Effect.fn("ConfigFile.loadOptional")(function*() {
      if (find() === null) return null
      return yield* load()
    })

    /** Applies an edit to the YAML document (comments and order kept) and writes it atomically. */
    const edit = Effect.fn("ConfigFile.edit")(function*(f: (doc: YAML.Document) => void) {
      const file = find() ?? defaultConfigPath(env)
      const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# local-data-catalog configuration; see catalog.yml.example\nversion: 1\nsources: []\n"
      const doc = YAML.parseDocument(text)
      f(doc)
      const out = doc.toString({ lineWidth: 0 })
      yield* parseConfigText(out, file)
      yield* Effect.sync(() => {
        fs.mkdirSync(path.dirname(file), { recursive: true })
        const tmp = `${file}.${process.pid}.tmp`
        fs.writeFileSync(tmp, out)
        fs.renameSync(tmp, file)
      })
      return file
    })

    const addSource = (source: SourceConfig) =>
      edit((doc) => {
        if (!doc.has("sources") || !YAML.isSeq(doc.get("sources", true))) doc.set("sources", doc.createNode([]))
        const clean = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined))
        ;(doc.get("sources", true) as YAML.YAMLSeq).add(doc.createNode(clean))
      })

    const removeSource = (id: string) =>
      edit((doc) => {
        const seq = doc.get("sources", true)
        if (!YAML.isSeq(seq)) return
        seq.items = seq.items.filter((item) => !(YAML.isMap(item) && item.get("id") === id))
      })

    const setKey = (key: string, value: unknown) => edit((doc) => doc.set(key, value))

    return { find, load, loadOptional, addSource, removeSource, setKey } as const
  })
}) {}
