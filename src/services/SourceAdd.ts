/**
 * Adding a source to catalog.yml (`catalog add`): checks the kind and its inputs (a variable's NAME for
 * database kinds, a data-dictionary CSV for `manual`, a dbt manifest and a configured warehouse for
 * `dbt`), refuses an id already taken with other settings, writes only the variable's name, and leaves
 * a placeholder line in `.env` when that variable is not set.
 */
import { Effect, Either } from "effect"
import * as path from "node:path"
import { builtinKinds, defaultDriver, type SourceConfig } from "../domain/Config.js"
import { AddInputInvalid } from "../errors/index.js"
import { AppEnv } from "./AppEnv.js"
import { ConfigFile } from "./ConfigFile.js"
import { Connectors, type FileContents, type FileProblem } from "./Connectors.js"
import { Files, type PathOptions, readUserFile } from "./Files.js"
import { Secrets } from "./Secrets.js"

/** What `catalog add` was given; `kind` is required, every flag optional. */
export interface SourceAddInput {
  readonly kind: string
  readonly ref: string | undefined
  readonly from: string | undefined
  readonly target: string | undefined
  readonly id: string | undefined
  readonly label: string | undefined
  readonly region: string | undefined
  readonly role: string | undefined
}

/** The source was written (with what a `manual` dictionary describes), or the same one was already there. */
export type SourceAddResult =
  | {
    readonly added: true
    readonly source: SourceConfig
    readonly config: string
    readonly envPlaceholder: boolean
    readonly preview: { readonly tables: number; readonly columns: number } | null
  }
  | {
    readonly added: false
    readonly source: SourceConfig
    readonly config: string | null
    readonly envPlaceholder: false
    readonly message: "already configured"
  }

const roles = ["controller", "processor"] as const
const isRole = (r: string): r is (typeof roles)[number] => (roles as ReadonlyArray<string>).includes(r)

/** Adds sources to catalog.yml. */
export class SourceAdd extends Effect.Service<SourceAdd>()("catalog/SourceAdd", {
  effect: Effect.gen(function*() {
    const config = yield* ConfigFile
    const secrets = yield* Secrets
    const connectors = yield* Connectors
    const env = yield* AppEnv
    const files = yield* Files

    /** A file the user named (shared path checks), read through this service's file system. */
    const userFile = <E>(typed: string, o: PathOptions<E>) =>
      readUserFile(env.cwd, typed, o).pipe(Effect.provideService(Files, files))

    /** The folder catalog.yml is (or will be) in: source paths are written relative to it. */
    const configDir = Effect.map(config.find(), (found) => path.dirname(found ?? path.join(env.cwd, "catalog.yml")))

    /** The file a file-backed kind reads (a data dictionary, a dbt manifest), read by its connector, which knows the format. */
    const readFileOf = (kind: string, text: string, label: string, target: string) =>
      Effect.map(
        connectors.get(kind),
        (c): Either.Either<FileContents, FileProblem> =>
          c.readFile === undefined ? Either.right(null) : c.readFile(text, { label, target })
      )

    /** A lineage-only source: the manifest must parse and --target must name a configured warehouse source. */
    const dbtSource = Effect.fn("SourceAdd.dbtSource")(function*(
      input: SourceAddInput,
      existing: ReadonlyArray<SourceConfig>
    ) {
      const { from } = input
      const target = input.target?.trim()
      const warehouses = existing.filter((s) => s.kind !== "dbt").map((s) => s.id)
      const usage = `catalog add dbt --from target/manifest.json --target <${
        warehouses.join("|") || "warehouse-source-id"
      }> --yes`
      if (from === undefined) {
        return yield* new AddInputInvalid({
          message: "A dbt source needs --from <manifest.json> (dbt writes it to target/ on `dbt compile`).",
          fix: usage,
          param: "from"
        })
      }
      if (target === undefined || target === "") {
        return yield* new AddInputInvalid({
          message:
            "A dbt source needs --target <warehouse-source-id>: the configured source whose datasets the models map onto.",
          fix: usage,
          param: "target"
        })
      }
      // A folder, a pipe, an empty, missing or unreadable path is ADD_INPUT_INVALID naming --from (shared path checks).
      const { path: abs, text } = yield* userFile(from, {
        flag: "--from",
        what: "dbt's manifest.json",
        refuse: (message) =>
          new AddInputInvalid({
            message,
            fix: `Pass the path of dbt's manifest.json with --from (run \`dbt compile\` to write it). ${usage}`,
            param: "from"
          })
      })
      const warehouse = existing.find((s) => s.id === target)
      if (warehouse === undefined || warehouse.kind === "dbt") {
        return yield* new AddInputInvalid({
          message: warehouse === undefined
            ? `--target "${target}" is not a configured source.`
            : `--target "${target}" is itself a dbt source; it must name the warehouse source the models live in.`,
          fix: warehouses.length > 0
            ? `Use one of: ${warehouses.join(", ")}.`
            : "Add the warehouse first (e.g. catalog add postgres --ref DATABASE_URL), then add dbt with --target <its id>.",
          param: "target"
        })
      }
      const checked = yield* readFileOf("dbt", text, from, warehouse.id)
      if (checked._tag === "Left") {
        return yield* new AddInputInvalid({
          message: checked.left.message,
          fix: checked.left.fix ?? `Pass dbt's target/manifest.json (schema v10–v12). ${usage}`,
          param: "from"
        })
      }
      const id = input.id ?? "dbt"
      const prior = existing.find((s) => s.id === id)
      if (prior !== undefined && prior.kind === "dbt" && prior.target !== warehouse.id) {
        return yield* new AddInputInvalid({
          message: `dbt source "${id}" already exists with target "${prior.target ?? ""}".`,
          fix: `Pick another id with --id, or remove it first: catalog sources remove ${id} --yes`,
          param: "id"
        })
      }
      const source: SourceConfig = {
        id,
        kind: "dbt",
        driver: defaultDriver.dbt,
        path: path.relative(yield* configDir, abs) || abs,
        target: warehouse.id
      }
      return { source, preview: null }
    })

    /** A data dictionary: the CSV must parse; what it describes is reported back. */
    const manualSource = Effect.fn("SourceAdd.manualSource")(function*(input: SourceAddInput) {
      const { from } = input
      if (from === undefined) {
        return yield* new AddInputInvalid({
          message: "A manual source needs --from <schema.csv>.",
          fix: "catalog add manual --from <schema.csv> --yes (header: table,column,type[,description]).",
          param: "from"
        })
      }
      // A folder, a pipe, an empty or unreadable path is ADD_INPUT_INVALID naming --from (shared path checks).
      const { path: abs, text } = yield* userFile(from, {
        flag: "--from",
        what: "a data-dictionary CSV file (header table,column,type[,description])",
        refuse: (message) =>
          new AddInputInvalid({
            message,
            fix: "Pass the path of a data-dictionary CSV with --from: catalog add manual --from <schema.csv> --yes.",
            param: "from"
          })
      })
      const checked = yield* readFileOf("manual", text, from, input.id ?? "manual")
      if (checked._tag === "Left") {
        const { fix, message } = checked.left
        return yield* new AddInputInvalid({ message, ...(fix !== null ? { fix } : {}), param: "from" })
      }
      const preview = checked.right
      const source: SourceConfig = {
        id: input.id ?? "manual",
        kind: "manual",
        driver: defaultDriver.manual,
        path: path.relative(yield* configDir, abs) || abs
      }
      return { source, preview }
    })

    /** A database kind: --ref names the variable holding the connection string, never the string itself. */
    const databaseSource = Effect.fn("SourceAdd.databaseSource")(function*(input: SourceAddInput) {
      const { kind, ref } = input
      if (ref === undefined) {
        return yield* new AddInputInvalid({
          message:
            `A ${kind} source needs --ref <ENV_VAR_NAME>: the name of the variable holding its connection string.`,
          fix: `catalog add ${kind} --ref DATABASE_URL (then set DATABASE_URL in .env)`,
          param: "ref"
        })
      }
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(ref)) {
        return yield* new AddInputInvalid({
          message: "--ref takes the NAME of an environment variable, not a connection string or secret.",
          fix:
            `Put the connection string in .env (e.g. DATABASE_URL=…) and run catalog add ${kind} --ref DATABASE_URL.`,
          param: "ref"
        })
      }
      const builtin = builtinKinds.find((k) => k === kind)
      const source: SourceConfig = {
        id: input.id ?? kind,
        kind,
        driver: builtin !== undefined ? defaultDriver[builtin] : kind,
        connectionRef: ref
      }
      return { source, preview: null }
    })

    /** Adds the source, or reports the identical one already configured. */
    const add = Effect.fn("SourceAdd.add")(function*(input: SourceAddInput) {
      const { kind, role } = input
      // A kind of no built-in connector must be one a configured connector provides (else DRIVER_MISSING).
      if (!(builtinKinds as ReadonlyArray<string>).includes(kind)) yield* connectors.get(kind)
      if (role !== undefined && !isRole(role)) {
        return yield* new AddInputInvalid({
          message: `--role must be controller or processor; got "${role}".`,
          param: "role"
        })
      }
      const existing = (yield* config.loadOptional())?.file.sources ?? []
      const made = kind === "dbt"
        ? yield* dbtSource(input, existing)
        : kind === "manual"
        ? yield* manualSource(input)
        : yield* databaseSource(input)
      const { label, region } = input
      const source: SourceConfig = {
        ...made.source,
        ...(label !== undefined ? { label } : {}),
        ...(region !== undefined ? { region } : {}),
        ...(role !== undefined ? { role } : {})
      }
      const same = existing.find((s) => s.id === source.id)
      if (same) {
        const identical = same.kind === source.kind && same.connectionRef === source.connectionRef &&
          same.path === source.path
        if (!identical) {
          return yield* new AddInputInvalid({
            message: `A source with id "${source.id}" already exists with different settings.`,
            fix: `Pick another id with --id, or remove it first: catalog sources remove ${source.id} --yes`,
            param: "id"
          })
        }
        return {
          added: false,
          source: same,
          config: yield* config.find(),
          envPlaceholder: false,
          message: "already configured"
        } satisfies SourceAddResult
      }
      const file = yield* config.addSource(source)
      const placeholder = source.connectionRef ? yield* secrets.writePlaceholder(source.connectionRef, kind) : false
      return {
        added: true,
        source,
        config: file,
        envPlaceholder: placeholder,
        preview: made.preview
      } satisfies SourceAddResult
    })

    return { add } as const
  }),
  dependencies: [Secrets.Default]
}) {}
