/**
 * `catalog.yml`: found in the working folder, then `.catalog/catalog.yml`, or at `CATALOG_CONFIG`;
 * decoded with Schema; errors name the bad key and its line. Edits keep the user's comments.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import * as path from "node:path"
import * as YAML from "yaml"
import { CatalogFile, type SourceConfig } from "../domain/Config.js"
import { ConfigInvalid, ConfigNotFound } from "../errors/index.js"
import { AppEnv, type AppEnvShape, dataDir } from "./AppEnv.js"
import { Files, readUserFile, writePrivate } from "./Files.js"

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

/** The largest catalog.yml read (a thousand sources fit in a tenth of it). */
export const maxConfigBytes = 1024 * 1024
/** How many nodes aliases may bring in, all together (a real file uses a few, for a region or a schema list). */
export const maxAliasNodes = 10_000
/** How deeply collections may nest (the real shape needs four levels). */
export const maxConfigDepth = 16

type Ranged = { readonly range?: readonly [number, number, number] | null | undefined }
const offsetOf = (node: unknown): number => (node as Ranged | null | undefined)?.range?.[0] ?? 0

const invalid = (file: string, line: number, what: string, key?: string) =>
  new ConfigInvalid({
    message: `${file}:${line}: ${key !== undefined ? `${key}: ` : ""}${what}`,
    ...(key !== undefined ? { param: key } : {}),
    details: key !== undefined ? { key, line } : { line }
  })

/**
 * The YAML checks that come before the shape, each CONFIG_INVALID naming the line: an alias must
 * refer to an anchor above it and not to a node it sits in; all aliases together may bring in at
 * most `maxAliasNodes` nodes (a "billion laughs" file is refused before anything is expanded);
 * collections may not nest deeper than `maxConfigDepth`. Counting is linear in the file's size.
 */
const yamlBounds = (doc: YAML.Document, text: string, file: string): Either.Either<unknown, ConfigInvalid> => {
  const at = (node: unknown) => lineOf(text, offsetOf(node))
  const sizes = new Map<unknown, number>()
  const open = new Set<unknown>()
  let viaAliases = 0
  let problem: ConfigInvalid | null = null
  /** Nodes `node` stands for once expanded; aliases count their target's size towards the budget. */
  const size = (node: unknown, depth: number): number => {
    if (problem !== null) return 0
    if (YAML.isAlias(node)) {
      const target = node.resolve(doc)
      if (target === undefined) {
        problem = invalid(file, at(node), `the alias *${node.source} refers to no anchor &${node.source} above it`)
        return 0
      }
      if (open.has(target)) {
        problem = invalid(
          file,
          at(node),
          `the alias *${node.source} sits inside its own anchor &${node.source}, which would repeat it forever`
        )
        return 0
      }
      const n = size(target, depth)
      viaAliases += n
      if (viaAliases > maxAliasNodes && problem === null) {
        problem = invalid(
          file,
          at(node),
          `aliases expand into more than ${maxAliasNodes} values (a "billion laughs" file); write the values out instead of repeating *aliases`
        )
      }
      return n
    }
    const known = sizes.get(node)
    if (known !== undefined) return known
    let n = 1
    if (YAML.isCollection(node)) {
      if (depth >= maxConfigDepth) {
        problem = invalid(
          file,
          at(node),
          `nested more than ${maxConfigDepth} levels deep; catalog.yml.example shows the shape`
        )
        return 0
      }
      open.add(node)
      for (const item of node.items) {
        n += YAML.isPair(item) ? size(item.key, depth + 1) + size(item.value, depth + 1) : size(item, depth + 1)
        if (problem !== null) break
      }
      open.delete(node)
    }
    sizes.set(node, n)
    return n
  }
  size(doc.contents, 0)
  if (problem !== null) return Either.left(problem)
  try {
    // The yaml package's own bound as well, should the count above ever disagree with it.
    return Either.right(doc.toJS({ maxAliasCount: maxAliasNodes }) ?? {})
  } catch (e) {
    return Either.left(invalid(file, 1, `cannot be read as YAML: ${e instanceof Error ? e.message : String(e)}`))
  }
}

/** Parses and validates one file's text. Exported for tests and `doctor`. */
export const parseConfigText = (text: string, file: string): Either.Either<CatalogFile, ConfigInvalid> => {
  if (Buffer.byteLength(text, "utf8") > maxConfigBytes) {
    return Either.left(
      invalid(file, 1, `the file is larger than ${maxConfigBytes / 1024} KB; catalog.yml lists sources, not data`)
    )
  }
  const doc = YAML.parseDocument(text, { prettyErrors: false, uniqueKeys: true })
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!
    const line = err.linePos?.[0]?.line ?? lineOf(text, err.pos[0])
    return Either.left(
      new ConfigInvalid({
        message: `${file}:${line}: YAML syntax error: ${err.message.split("\n")[0]}`,
        details: { line }
      })
    )
  }
  const js = yamlBounds(doc, text, file)
  if (Either.isLeft(js)) return Either.left(js.left)
  const raw: unknown = js.right
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return Either.left(
      new ConfigInvalid({
        message: `${file}:1: the file must be a mapping of keys (sources, controller, dora, catalogOnly)`
      })
    )
  }
  const known = new Set(["version", "sources", "controller", "dora", "catalogOnly"])
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      const keyNode = (doc.contents as YAML.YAMLMap).items.find((p) => YAML.isScalar(p.key) && p.key.value === key)
      const offset = offsetOf(keyNode?.key) || offsetOf(doc.get(key, true))
      return Either.left(invalid(file, lineOf(text, offset), `unknown key "${key}"`, key))
    }
  }
  const decoded = Schema.decodeUnknownEither(CatalogFile, { onExcessProperty: "error" })(raw)
  if (Either.isRight(decoded)) {
    const cross = crossSourceIssue(decoded.right)
    if (cross === null) return Either.right(decoded.right)
    const at = (keyPath: ReadonlyArray<string | number>) => lineOf(text, offsetOf(doc.getIn(keyPath, true)))
    return Either.left(invalid(file, at(cross.path), cross.message, cross.path.join(".")))
  }
  const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
  const first = issues[0]
  const keyPath = first ? first.path.map(String) : []
  // Point at the deepest node that exists.
  let offset = 0
  for (let n = keyPath.length; n >= 0; n--) {
    const node = doc.getIn(keyPath.slice(0, n).map((k) => (/^\d+$/.test(k) ? Number(k) : k)), true) as
      | Ranged
      | undefined
    if (node?.range) {
      offset = node.range[0]
      break
    }
  }
  return Either.left(
    invalid(file, lineOf(text, offset), first?.message ?? "invalid value", keyPath.join(".") || "(root)")
  )
}

/**
 * Rules across sources: ids are unique regardless of case (they are the first segment of every
 * dataset id and name files on case-insensitive disks), and a dbt source's target is a configured
 * warehouse source.
 */
const crossSourceIssue = (
  f: CatalogFile
): { readonly path: ReadonlyArray<string | number>; readonly message: string } | null => {
  const seen = new Map<string, { readonly i: number; readonly id: string }>()
  for (const [i, s] of f.sources.entries()) {
    const prior = seen.get(s.id.toLowerCase())
    if (prior !== undefined) {
      return {
        path: ["sources", i, "id"],
        message: prior.id === s.id
          ? `"${s.id}" is used twice (also sources.${prior.i}.id); each source needs its own id`
          : `"${s.id}" is the id of sources.${prior.i} ("${prior.id}") in other letter case; ids must differ in more than case, because they start every dataset id and name files`
      }
    }
    seen.set(s.id.toLowerCase(), { i, id: s.id })
  }
  for (const [i, s] of f.sources.entries()) {
    if (s.kind !== "dbt" || s.target === undefined) continue
    const target = f.sources.find((x) => x.id === s.target)
    if (target === undefined || target.kind === "dbt") {
      const warehouses = f.sources.filter((x) => x.kind !== "dbt").map((x) => x.id)
      return {
        path: ["sources", i, "target"],
        message: `${
          target === undefined ? `"${s.target}" is not a configured source` : `"${s.target}" is itself a dbt source`
        }; target names the warehouse source the models live in (${
          warehouses.length > 0 ? `one of: ${warehouses.join(", ")}` : "add it first"
        })`
      }
    }
  }
  return null
}

/** Reads a config file through the shared path checks: a folder, a pipe, an unreadable or oversized file is CONFIG_INVALID. */
const readConfigFile = (e: AppEnvShape, file: string) => {
  const viaEnv = (e.env["CATALOG_CONFIG"] ?? "") !== ""
  return readUserFile(e.cwd, file, {
    flag: viaEnv ? "CATALOG_CONFIG" : "the configuration file",
    what: "a YAML file (catalog.yml)",
    maxBytes: maxConfigBytes,
    refuse: (message) =>
      new ConfigInvalid({
        message,
        fix: viaEnv
          ? "Point CATALOG_CONFIG at a regular, readable catalog.yml (catalog.yml.example documents every key)."
          : `Replace ${
            path.basename(file)
          } with a regular, readable YAML file (catalog.yml.example documents every key), or set CATALOG_CONFIG to one.`,
        param: viaEnv ? "CATALOG_CONFIG" : path.basename(file)
      })
  })
}

export class ConfigFile extends Effect.Service<ConfigFile>()("catalog/ConfigFile", {
  effect: Effect.gen(function*() {
    const env = yield* AppEnv
    const files = yield* Files
    const withFiles = Effect.provideService(Files, files)

    /** The first candidate that exists (whatever it is: a folder there is reported, not skipped). */
    const find = Effect.fn("ConfigFile.find")(function*() {
      for (const candidate of configCandidates(env)) {
        if ((yield* files.probe(candidate)).kind !== "missing") return candidate
      }
      return null
    })
    const shown = (file: string) => path.relative(env.cwd, file) || file

    /** The config, or `ConfigNotFound`. */
    const load = Effect.fn("ConfigFile.load")(function*() {
      const file = yield* find()
      if (file === null) {
        return yield* new ConfigNotFound({
          message: `No catalog.yml found (looked at ${configCandidates(env).join(", ")}).`
        })
      }
      const { text } = yield* withFiles(readConfigFile(env, file))
      const parsed = yield* parseConfigText(text, shown(file))
      return { path: file, baseDir: path.dirname(file), file: parsed } satisfies LoadedConfig
    })

    /** The config, or `null` when there is none yet (commands that create it). */
    const loadOptional = Effect.fn("ConfigFile.loadOptional")(function*() {
      if ((yield* find()) === null) return null
      return yield* load()
    })

    /**
     * Applies an edit to the YAML document (comments and order kept) and writes it atomically, 0600.
     * The file as it is must be valid first, and so must the result: nothing invalid is ever written.
     */
    const edit = Effect.fn("ConfigFile.edit")(function*(f: (doc: YAML.Document) => void) {
      const file = (yield* find()) ?? defaultConfigPath(env)
      const exists = (yield* files.probe(file)).kind !== "missing"
      const text = exists
        ? (yield* withFiles(readConfigFile(env, file))).text
        : "# local-data-catalog configuration; see catalog.yml.example\nversion: 1\nsources: []\n"
      if (exists) yield* parseConfigText(text, shown(file))
      const doc = YAML.parseDocument(text)
      f(doc)
      const out = doc.toString({ lineWidth: 0 })
      yield* Effect.mapError(parseConfigText(out, shown(file)), (e) =>
        new ConfigInvalid({
          message: `${e.message} — in ${shown(file)} as this change would write it; nothing was written.`,
          ...(e.param !== undefined ? { param: e.param } : {}),
          details: e.details
        }))
      // catalog.yml inside the data folder: that folder is the catalog's own, so it is kept private too.
      if (path.dirname(file) === dataDir(env)) {
        yield* files.ensurePrivateDir(path.dirname(file), { tighten: true }).pipe(
          Effect.mapError((e) =>
            new ConfigInvalid({
              message: `${path.dirname(file)} cannot be created (${e.reason}).`,
              fix: "Set CATALOG_DATA to a folder you can write, or create catalog.yml in the working folder.",
              param: "CATALOG_DATA"
            })
          )
        )
      }
      yield* withFiles(writePrivate(
        file,
        out,
        (message) =>
          new ConfigInvalid({
            message,
            fix: `Make ${path.dirname(file)} writable, or set CATALOG_CONFIG to a writable path.`,
            param: "CATALOG_CONFIG"
          })
      ))
      return file
    })

    const addSource = (source: SourceConfig) =>
      edit((doc) => {
        if (!doc.has("sources") || !YAML.isSeq(doc.get("sources", true))) doc.set("sources", doc.createNode([]))
        const clean = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined))
        ;(doc.get("sources", true) as YAML.YAMLSeq).add(doc.createNode(clean))
      })

    const removeFrom = (id: string) => (doc: YAML.Document) => {
      const seq = doc.get("sources", true)
      if (!YAML.isSeq(seq)) return
      seq.items = seq.items.filter((item) => !(YAML.isMap(item) && item.get("id") === id))
    }

    /** Removes a source; refused while a dbt source maps its models onto it (that source would point at nothing). */
    const removeSource = (id: string) =>
      Effect.gen(function*() {
        const current = yield* loadOptional()
        const dependent = current?.file.sources.findIndex((s) => s.kind === "dbt" && s.target === id) ?? -1
        if (current !== null && dependent >= 0) {
          const dbt = current.file.sources[dependent]!
          const text = (yield* withFiles(readConfigFile(env, current.path))).text
          const node = YAML.parseDocument(text).getIn(["sources", dependent, "target"], true)
          const line = lineOf(text, offsetOf(node))
          return yield* new ConfigInvalid({
            message: `${
              shown(current.path)
            }:${line}: source "${id}" is the target of dbt source "${dbt.id}" (sources.${dependent}.target); removing it would leave "${dbt.id}" pointing at nothing. Nothing was changed.`,
            fix:
              `Remove the dbt source first (catalog sources remove ${dbt.id} --yes), or point its target at another warehouse source.`,
            param: `sources.${dependent}.target`,
            details: { key: `sources.${dependent}.target`, line }
          })
        }
        return yield* edit(removeFrom(id))
      })

    const setKey = (key: string, value: unknown) => edit((doc) => doc.set(key, value))

    return { find, load, loadOptional, addSource, removeSource, setKey } as const
  })
}) {}
