/**
 * The `dbt` connector: a lineage-only source. It reads a dbt `manifest.json` of schema v10–v12
 * (dbt 1.6 and later; any other schema version, or a manifest with no nodes, is refused with the
 * reason) and returns lineage edges between dataset ids of its *target* warehouse source, and no
 * datasets of its own. Errors describe what is wrong with the file and never quote its content.
 *
 * Mapping (see docs/lineage.md):
 * - models, seeds and snapshots map to `<target>/<schema>/<alias or name>`; sources map to
 *   `<target>/<schema>/<identifier or name>` (a source's name may differ from its table, e.g.
 *   `source.hubspot.hubspot.company` → `public.company_data`). The database segment of the dbt
 *   relation is dropped: the catalog's ids have three segments.
 * - a node with no `schema` is placed by its `relation_name` (duckdb/postgres `"db"."s"."t"`,
 *   BigQuery `` `p`.`s`.`t` `` quoting both handled).
 * - tests, operations, analyses, unit tests and other non-relation nodes are skipped; an ephemeral
 *   model (no relation) is skipped *as an endpoint* but its dependencies are followed through, so
 *   `a → ephemeral → b` becomes the edge `a → b`.
 * - the same relation reached twice (a seed and a source over one table) is one endpoint; edges are
 *   de-duplicated and self-edges dropped.
 * Endpoints the catalog never scanned stay as edges with an unresolvable end (Store resolves ids
 * case-insensitively against the scanned datasets at commit time).
 */
import { Effect, Either } from "effect"
import * as path from "node:path"
import type { RawEdge, RawSource } from "../../domain/Metadata.js"
import { AddInputInvalid, type SourceUnreachable } from "../../errors/index.js"
import type { Connector, ConnectorInput, ProbeResult } from "../../services/Connectors.js"
import { datasetId } from "../../services/Store.js"
import { readRegularFile, unreachable } from "./internal.js"

/** One manifest node or source that is a relation in the warehouse. */
export interface DbtRelation {
  readonly uniqueId: string
  readonly resourceType: "model" | "seed" | "snapshot" | "source"
  /** `<target>/<schema>/<table>` */
  readonly datasetId: string
  readonly schema: string
  readonly name: string
}

/** What a manifest says, mapped onto the target source. */
export interface DbtManifest {
  /** The manifest schema version (`…/manifest/v12.json` → 12). */
  readonly schemaVersion: number
  readonly dbtVersion: string | null
  readonly adapter: string | null
  readonly target: string
  readonly relations: ReadonlyArray<DbtRelation>
  /** Distinct dataset ids the relations map to (a seed and a source over one table count once). */
  readonly datasets: ReadonlyArray<string>
  readonly edges: ReadonlyArray<RawEdge>
  /** Nodes that are not relations, by reason. */
  readonly skipped: {
    readonly tests: number
    readonly operations: number
    readonly analyses: number
    readonly ephemeral: number
    readonly disabled: number
    readonly other: number
  }
}

type Obj = Readonly<Record<string, unknown>>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null)
const shaped = (v: unknown, pattern: RegExp): string | null => {
  const s = str(v)
  return s !== null && pattern.test(s) ? s : null
}
const strings = (
  v: unknown
): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [])

/** Splits a quoted relation (`"db"."schema"."t"`, `` `p`.`s`.`t` ``, `db.schema.t`) into its parts. */
export const splitRelation = (relation: string): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let i = 0
  while (i < relation.length) {
    const ch = relation[i]!
    if (ch === "\"" || ch === "`" || ch === "[") {
      const close = ch === "[" ? "]" : ch
      let j = i + 1
      let part = ""
      while (j < relation.length) {
        if (relation[j] === close) {
          if (relation[j + 1] === close && close !== "]") {
            part += close
            j += 2
            continue
          }
          break
        }
        part += relation[j]
        j++
      }
      parts.push(part)
      i = j + 1
    } else if (ch === ".") {
      i++
    } else {
      let j = i
      while (j < relation.length && relation[j] !== ".") j++
      parts.push(relation.slice(i, j).trim())
      i = j
    }
  }
  return parts
}

const relationTypes = new Set(["model", "seed", "snapshot"])

/** The manifest schema versions this connector reads (dbt 1.6 wrote v10, 1.7 v11, 1.8 and later v12). */
export const supportedManifestVersions = { min: 10, max: 12 } as const
const supportedText = `v${supportedManifestVersions.min}–v${supportedManifestVersions.max} (dbt 1.6 and later)`

/**
 * Maps a dbt manifest onto the datasets of `target`. Pure: the caller reads and JSON-parses the
 * file. `Left` carries a human reason when the value is not a dbt manifest.
 */
export const parseDbtManifest = (json: unknown, target: string): Either.Either<DbtManifest, string> => {
  if (!isObj(json)) return Either.left("the file is not a JSON object, so not a dbt manifest.")
  const metadata = isObj(json["metadata"]) ? json["metadata"] : null
  const schemaUrl = metadata !== null ? str(metadata["dbt_schema_version"]) : null
  if (schemaUrl === null) {
    return Either.left(
      "it has no metadata.dbt_schema_version, so it is not a dbt manifest (dbt writes target/manifest.json)."
    )
  }
  // Only what the pattern matched is named back (an artifact kind and a number), never the value itself.
  const kind = /\/dbt\/([a-z-]{1,40})\/v(\d{1,6})(?:\.json)?$/i.exec(schemaUrl)
  if (kind === null) {
    return Either.left(
      "its metadata.dbt_schema_version is not a dbt artifact schema URL (…/dbt/manifest/v12.json), so it is not a dbt manifest."
    )
  }
  const artifact = kind[1]!.toLowerCase()
  const schemaVersion = Number(kind[2])
  if (artifact !== "manifest") {
    return Either.left(
      `it is a dbt ${artifact} artifact (schema v${schemaVersion}), not the manifest; pass target/manifest.json.`
    )
  }
  if (schemaVersion < supportedManifestVersions.min || schemaVersion > supportedManifestVersions.max) {
    return Either.left(`its dbt_schema_version is manifest v${schemaVersion}; supported are manifest ${supportedText}.`)
  }
  if (!isObj(json["nodes"])) return Either.left("it has no \"nodes\" object, so it is not a complete dbt manifest.")
  const nodes = json["nodes"]
  if (Object.keys(nodes).length === 0) {
    return Either.left(
      `it holds no nodes (no models, seeds or snapshots), so it has no lineage; run \`dbt compile\` in the project to write a complete manifest.`
    )
  }
  const sources = isObj(json["sources"]) ? json["sources"] : {}

  const skipped = { tests: 0, operations: 0, analyses: 0, ephemeral: 0, disabled: 0, other: 0 }
  const relationOf = new Map<string, DbtRelation>()
  /** Ephemeral (and other relation-less) models: their parents, followed through. */
  const passThrough = new Map<string, ReadonlyArray<string>>()
  const children: Array<{ readonly id: string; readonly parents: ReadonlyArray<string> }> = []

  const place = (
    uniqueId: string,
    node: Obj,
    resourceType: DbtRelation["resourceType"],
    table: string | null
  ): DbtRelation | null => {
    const rel = str(node["relation_name"])
    const relParts = rel !== null ? splitRelation(rel) : []
    // The node's own fields decide; a node without a schema is placed by its relation_name alone.
    const own = str(node["schema"])
    const fromRelation = own === null && relParts.length >= 2
    const schema = fromRelation ? relParts[relParts.length - 2]! : own
    const name = fromRelation ? relParts[relParts.length - 1]! : table
    if (schema === null || name === null) return null
    return { uniqueId, resourceType, datasetId: datasetId(target, schema, name), schema, name }
  }

  for (const [key, value] of Object.entries(nodes)) {
    if (!isObj(value)) continue
    const uniqueId = str(value["unique_id"]) ?? key
    const type = str(value["resource_type"]) ?? uniqueId.split(".")[0] ?? ""
    const config = isObj(value["config"]) ? value["config"] : {}
    const dependsOn = isObj(value["depends_on"]) ? strings(value["depends_on"]["nodes"]) : []
    if (!relationTypes.has(type)) {
      if (type === "test") skipped.tests++
      else if (type === "operation" || type === "sql_operation") skipped.operations++
      else if (type === "analysis") skipped.analyses++
      else skipped.other++
      continue
    }
    if (config["enabled"] === false) {
      skipped.disabled++
      continue
    }
    const ephemeral = config["materialized"] === "ephemeral" ||
      ("relation_name" in value && value["relation_name"] === null && type === "model")
    if (ephemeral) {
      skipped.ephemeral++
      passThrough.set(uniqueId, dependsOn)
      continue
    }
    const relation = place(
      uniqueId,
      value,
      type as DbtRelation["resourceType"],
      str(value["alias"]) ?? str(value["name"])
    )
    if (relation === null) {
      skipped.other++
      continue
    }
    relationOf.set(uniqueId, relation)
    children.push({ id: uniqueId, parents: dependsOn })
  }
  for (const [key, value] of Object.entries(sources)) {
    if (!isObj(value)) continue
    const uniqueId = str(value["unique_id"]) ?? key
    const config = isObj(value["config"]) ? value["config"] : {}
    if (config["enabled"] === false) {
      skipped.disabled++
      continue
    }
    const relation = place(uniqueId, value, "source", str(value["identifier"]) ?? str(value["name"]))
    if (relation === null) {
      skipped.other++
      continue
    }
    relationOf.set(uniqueId, relation)
  }

  // The relations a parent stands for: itself, or (ephemeral) whatever it reads, transitively
  // (a full walk per start node, so cycles among ephemeral models cannot cut a result short).
  const memo = new Map<string, ReadonlyArray<string>>()
  const resolve = (start: string): ReadonlyArray<string> => {
    const direct = relationOf.get(start)
    if (direct !== undefined) return [direct.datasetId]
    const cached = memo.get(start)
    if (cached !== undefined) return cached
    const out = new Set<string>()
    const seen = new Set<string>()
    const stack = [start]
    while (stack.length > 0) {
      const id = stack.pop()!
      if (seen.has(id)) continue
      seen.add(id)
      const rel = relationOf.get(id)
      if (rel !== undefined) out.add(rel.datasetId)
      else for (const p of [...(passThrough.get(id) ?? [])].reverse()) stack.push(p)
    }
    const result = [...out]
    memo.set(start, result)
    return result
  }

  const edges: Array<RawEdge> = []
  const seen = new Set<string>()
  for (const child of children) {
    const to = relationOf.get(child.id)!.datasetId
    for (const parent of child.parents) {
      for (const from of resolve(parent)) {
        const k = `${from}\u0000${to}`
        if (from === to || seen.has(k)) continue
        seen.add(k)
        edges.push({ from, to })
      }
    }
  }
  const relations = [...relationOf.values()]
  return Either.right({
    schemaVersion,
    // Both end up in the stored server version: kept only when they look like a version and an adapter name.
    dbtVersion: metadata !== null ? shaped(metadata["dbt_version"], /^\d{1,4}\.\d{1,4}[0-9A-Za-z.+-]{0,24}$/) : null,
    adapter: metadata !== null ? shaped(metadata["adapter_type"], /^[A-Za-z][A-Za-z0-9_-]{0,39}$/) : null,
    target,
    relations,
    datasets: [...new Set(relations.map((r) => r.datasetId))].sort(),
    edges,
    skipped
  })
}

/** Parses manifest text (JSON) and maps it; `Left` with a reason when it is not a dbt manifest. */
export const readDbtManifest = (text: string, target: string): Either.Either<DbtManifest, string> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(
      `not valid JSON${jsonProblemAt(text, e)}; dbt writes the manifest as one JSON object to target/manifest.json.`
    )
  }
  return parseDbtManifest(json, target)
}

/**
 * Where JSON.parse stopped, as a line and column; never its message, which quotes the text (an
 * .env passed as a manifest would put its first line, secrets included, into the error).
 */
const jsonProblemAt = (text: string, e: unknown): string => {
  const body = text.replace(/^\uFEFF/, "")
  if (body.trim() === "") return " (the file is empty)"
  const first = body.trimStart()[0]
  if (first !== "{" && first !== "[") {
    const offset = body.length - body.trimStart().length
    const line = body.slice(0, offset).split("\n").length
    return ` (line ${line}: the file does not start with "{")`
  }
  const message = e instanceof Error ? e.message : ""
  const lineCol = /\(line (\d+) column (\d+)\)/.exec(message)
  if (lineCol !== null) return ` (line ${lineCol[1]}, column ${lineCol[2]})`
  const position = /at position (\d+)/.exec(message)
  if (position !== null) {
    const before = body.slice(0, Number(position[1]))
    const lines = before.split("\n")
    return ` (line ${lines.length}, column ${lines[lines.length - 1]!.length + 1})`
  }
  return /end of JSON input/i.test(message) ? " (the file ends in the middle of a value)" : ""
}

/**
 * Reads a manifest file (a regular file only: a FIFO or device is refused before it is opened) and
 * maps it onto `target`. `catalog add dbt --from` and the connector share the checks; failures are
 * `AddInputInvalid` naming `from` and never quote the file.
 */
export const loadDbtManifest = (
  file: string,
  target: string,
  fileLabel: string
): Effect.Effect<DbtManifest, AddInputInvalid> =>
  readRegularFile(file).pipe(
    Effect.mapError((reason) => `${reason}.`),
    Effect.flatMap((text) => readDbtManifest(text, target)),
    Effect.mapError((reason) =>
      new AddInputInvalid({
        message: `${fileLabel}: ${reason}`,
        fix: `Pass dbt's target/manifest.json (schema ${supportedText}) with --from; \`dbt compile\` writes it.`,
        param: "from"
      })
    )
  )

/** The manifest path of a dbt source, resolved against the config folder. */
export const dbtManifestPath = (input: ConnectorInput): string | null => {
  const p = input.source.path
  return p === undefined || p.trim() === "" ? null : path.resolve(input.baseDir, p)
}

const load = (
  input: ConnectorInput
): Effect.Effect<{ readonly file: string; readonly manifest: DbtManifest }, SourceUnreachable> =>
  Effect.gen(function*() {
    const id = input.source.id
    const file = dbtManifestPath(input)
    if (file === null) {
      return yield* unreachable(
        `dbt source ${id} names no manifest.`,
        `Set \`path\` of source ${id} in catalog.yml to dbt's target/manifest.json, then run \`catalog test ${id}\`.`,
        []
      )
    }
    const target = input.source.target
    if (target === undefined || target.trim() === "") {
      return yield* unreachable(
        `dbt source ${id} names no target warehouse source.`,
        `Set \`target\` of source ${id} in catalog.yml to the id of the warehouse source its models live in (see \`catalog sources\`).`,
        []
      )
    }
    const text = yield* readRegularFile(file).pipe(
      Effect.mapError((reason) =>
        unreachable(
          `The dbt manifest ${file} of source ${id} ${reason}.`,
          `Run \`dbt compile\` (or \`dbt build\`) to write target/manifest.json, or fix \`path\` of source ${id} in catalog.yml (relative paths resolve against ${input.baseDir}).`,
          [input.secret]
        )
      )
    )
    const manifest = yield* readDbtManifest(text, target.trim()).pipe(
      Either.mapLeft((reason) =>
        unreachable(
          `${file}: ${reason}`,
          `Point \`path\` of source ${id} at dbt's target/manifest.json (schema ${supportedText}), then run \`catalog test ${id}\`.`,
          [input.secret]
        )
      )
    )
    return { file, manifest }
  })

const versionLabel = (m: DbtManifest): string =>
  `dbt ${m.dbtVersion ?? "?"} manifest v${m.schemaVersion}${m.adapter !== null ? ` (${m.adapter})` : ""}`

const probe = Effect.fn("Connectors.dbt.probe")(function*(input: ConnectorInput) {
  const { file, manifest } = yield* load(input)
  const result: ProbeResult = {
    serverVersion: versionLabel(manifest),
    target: `${file} → ${manifest.target} (${manifest.datasets.length} relations, ${manifest.edges.length} edges)`
  }
  return result
})

const scan = Effect.fn("Connectors.dbt.scan")(function*(input: ConnectorInput) {
  const { manifest } = yield* load(input)
  const result: RawSource = { datasets: [], edges: manifest.edges, serverVersion: versionLabel(manifest) }
  return result
})

/** The `dbt` connector (a manifest file; lineage only, no secret). */
export const DbtConnector: Connector = {
  kind: "dbt",
  needsSecret: false,
  probe,
  scan,
  readFile: (text, { label, target }) =>
    Either.mapBoth(readDbtManifest(text, target), {
      onLeft: (reason) => ({ message: `${label}: ${reason}`, fix: null }),
      onRight: () => null
    })
}
