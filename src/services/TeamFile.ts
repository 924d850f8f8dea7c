/**
 * The team catalog file: every human-made fact of the catalog (classification overrides, user lineage
 * edges, glossary terms, descriptions, RoPA legal-field fills and confirmations with who confirmed,
 * DORA cells) as one deterministic JSON document. Export → import into an empty catalog → export is
 * byte-identical. An import is all or nothing.
 */
import { DateTime, Effect } from "effect"
import { CatalogFileInvalid, CatalogVersionUnsupported, RopaConfirmUnattributed } from "../errors/index.js"
import { ChangeLog } from "./ChangeLog.js"
import { Store, type StoreError, StoreReader } from "./Store.js"

export const teamFileFormat = "local-data-catalog/team-catalog"
export const teamFileVersion = 1

interface Override {
  readonly column: string
  readonly value: string
  readonly by: string
  readonly at: string
}
interface UserEdge {
  readonly from: string
  readonly to: string
  readonly by: string | null
  readonly at: string
}
interface Term {
  readonly term: string
  readonly definition: string
  readonly datasets: ReadonlyArray<string>
  readonly by: string | null
  readonly at: string
}
interface Description {
  readonly entity: string
  readonly text: string
  readonly drafted: boolean
  readonly by: string
  readonly at: string
}
interface Annotation {
  readonly activity: string
  readonly field: string
  readonly value: string
  readonly status: "suggested" | "confirmed"
  readonly by: string | null
  readonly at: string
  readonly basis?: string | null
}
interface DoraCell {
  readonly table: string
  readonly rowKey: string
  readonly column: string
  readonly value: string
  readonly by: string
  readonly at: string
}

export interface TeamFile {
  readonly format: string
  readonly version: number
  readonly overrides: ReadonlyArray<Override>
  readonly lineage: ReadonlyArray<UserEdge>
  readonly glossary: ReadonlyArray<Term>
  readonly descriptions: ReadonlyArray<Description>
  readonly annotations: ReadonlyArray<Annotation>
  readonly dora: ReadonlyArray<DoraCell>
}

/** Stable serialisation: two-space JSON with a trailing newline. */
export const serializeTeamFile = (f: TeamFile): string => `${JSON.stringify(f, null, 2)}\n`

const isObj = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const str = (u: unknown): u is string => typeof u === "string"

/** Checks shape and version; collects every confirmed answer without a confirmer. Pure. */
export const validateTeamFile = (
  raw: unknown,
  file: string
): Effect.Effect<TeamFile, CatalogFileInvalid | CatalogVersionUnsupported | RopaConfirmUnattributed> =>
  Effect.gen(function*() {
    if (
      !isObj(raw) || raw["format"] !== teamFileFormat || typeof raw["version"] !== "number" ||
      !Number.isInteger(raw["version"])
    ) {
      return yield* new CatalogFileInvalid({
        message: `${file} is not a team catalog file: it needs "format": "${teamFileFormat}" and an integer "version".`,
        param: "file"
      })
    }
    const version = raw["version"]
    if (version > teamFileVersion) {
      return yield* new CatalogVersionUnsupported({
        message:
          `${file} has version ${version}; this tool reads up to version ${teamFileVersion}. Nothing was imported.`
      })
    }
    const list = (key: string): ReadonlyArray<unknown> => {
      const v = raw[key]
      return Array.isArray(v) ? v : []
    }
    const bad: Array<string> = []
    const need = (
      section: string,
      i: number,
      row: unknown,
      keys: ReadonlyArray<string>
    ): row is Record<string, unknown> => {
      if (!isObj(row) || keys.some((k) => !str(row[k]))) {
        bad.push(`${section}[${i}] (needs ${keys.join(", ")})`)
        return false
      }
      return true
    }
    const overrides = list("overrides").flatMap((r, i) =>
      need("overrides", i, r, ["column", "value", "by", "at"]) &&
        ["personal", "special", "criminal", "not"].includes(String(r["value"]))
        ? [{ column: String(r["column"]), value: String(r["value"]), by: String(r["by"]), at: String(r["at"]) }]
        : []
    )
    const lineage = list("lineage").flatMap((r, i) =>
      need("lineage", i, r, ["from", "to", "at"])
        ? [{ from: String(r["from"]), to: String(r["to"]), by: str(r["by"]) ? r["by"] : null, at: String(r["at"]) }]
        : []
    )
    const glossary = list("glossary").flatMap((r, i) =>
      need("glossary", i, r, ["term", "definition", "at"])
        ? [{
          term: String(r["term"]),
          definition: String(r["definition"]),
          datasets: Array.isArray(r["datasets"]) ? r["datasets"].filter(str) : [],
          by: str(r["by"]) ? r["by"] : null,
          at: String(r["at"])
        }]
        : []
    )
    const descriptions = list("descriptions").flatMap((r, i) =>
      need("descriptions", i, r, ["entity", "text", "by", "at"])
        ? [{
          entity: String(r["entity"]),
          text: String(r["text"]),
          drafted: r["drafted"] === true,
          by: String(r["by"]),
          at: String(r["at"])
        }]
        : []
    )
    const unattributed: Array<string> = []
    const annotations = list("annotations").flatMap((r, i) => {
      if (!need("annotations", i, r, ["activity", "field", "value", "status", "at"])) return []
      const status = r["status"] === "confirmed" ? "confirmed" as const : "suggested" as const
      const by = str(r["by"]) && r["by"].trim() !== "" ? r["by"] : null
      if (status === "confirmed" && by === null) {
        unattributed.push(`annotations[${i}] ${String(r["activity"])}.${String(r["field"])}`)
      }
      return [{
        activity: String(r["activity"]),
        field: String(r["field"]),
        value: String(r["value"]),
        status,
        by,
        at: String(r["at"]),
        ...(str(r["basis"]) ? { basis: r["basis"] } : {})
      }]
    })
    const dora = list("dora").flatMap((r, i) =>
      need("dora", i, r, ["table", "rowKey", "column", "value", "by", "at"])
        ? [{
          table: String(r["table"]),
          rowKey: String(r["rowKey"]),
          column: String(r["column"]),
          value: String(r["value"]),
          by: String(r["by"]),
          at: String(r["at"])
        }]
        : []
    )
    if (bad.length > 0) {
      return yield* new CatalogFileInvalid({
        message: `${file} has malformed rows: ${bad.slice(0, 20).join("; ")}${
          bad.length > 20 ? ` and ${bad.length - 20} more` : ""
        }. Nothing was imported.`,
        details: { rows: bad }
      })
    }
    if (unattributed.length > 0) {
      return yield* new RopaConfirmUnattributed({
        message: `${unattributed.length} confirmed answer(s) name no confirmer: ${
          unattributed.join("; ")
        }. The whole import was refused.`,
        fix:
          `Add a "by" value (the confirmer's e-mail) to each row named, or set its "status" to "suggested", then import again.`,
        details: { rows: unattributed }
      })
    }
    return {
      format: teamFileFormat,
      version: teamFileVersion,
      overrides,
      lineage,
      glossary,
      descriptions,
      annotations,
      dora
    } satisfies TeamFile
  })

export class TeamFileService extends Effect.Service<TeamFileService>()("catalog/TeamFile", {
  effect: Effect.gen(function*() {
    const reader = yield* StoreReader
    const store = yield* Store
    const changeLog = yield* ChangeLog

    const exportFile: Effect.Effect<TeamFile, StoreError> = Effect.gen(function*() {
      const overrides = yield* reader.overrides
      const edges = yield* reader.userEdges
      const terms = yield* reader.glossaryTerms
      const descs = yield* reader.descriptions
      const notes = yield* reader.annotations
      const cells = yield* reader.doraCells
      return {
        format: teamFileFormat,
        version: teamFileVersion,
        overrides: overrides.map((o) => ({ column: o.column_id, value: o.value, by: o.by, at: o.at })),
        lineage: edges.map((e) => ({ from: e.from_id, to: e.to_id, by: e.by, at: e.created_at })),
        glossary: terms.map((t) => ({
          term: t.term,
          definition: t.definition,
          datasets: t.datasets,
          by: t.by,
          at: t.updated_at
        })),
        descriptions: descs.map((d) => ({
          entity: d.entity_id,
          text: d.text,
          drafted: d.drafted === 1,
          by: d.by,
          at: d.at
        })),
        // A confirmed answer always carries who confirmed it (`by`) and when (`at`).
        annotations: notes.map((a) => ({
          activity: a.activity_key,
          field: a.field,
          value: a.value,
          status: a.status,
          by: a.status === "confirmed" ? a.confirmed_by : a.by,
          at: a.status === "confirmed" ? (a.confirmed_at ?? a.at) : a.at,
          ...(a.basis !== null ? { basis: a.basis } : {})
        })),
        dora: cells.map((c) => ({
          table: c.table_code,
          rowKey: c.row_key,
          column: c.column_code,
          value: c.value,
          by: c.by,
          at: c.at
        }))
      }
    })

    /** Merges a validated file: for a row that exists on both sides, the newer `at` wins. One transaction. */
    const importFile = (f: TeamFile, importedBy: string, file: string) =>
      store.transaction(Effect.gen(function*() {
        let applied = 0
        const count = (merged: boolean) => {
          if (merged) applied++
        }
        for (const o of f.overrides) {
          count(yield* store.mergeOverride({ column_id: o.column, value: o.value, by: o.by, at: o.at }))
        }
        for (const e of f.lineage) count(yield* store.mergeUserEdge(e))
        for (const t of f.glossary) count(yield* store.mergeGlossaryTerm(t))
        for (const d of f.descriptions) {
          count(
            yield* store.mergeDescription({
              entity_id: d.entity,
              text: d.text,
              drafted: d.drafted ? 1 : 0,
              by: d.by,
              at: d.at
            })
          )
        }
        for (const a of f.annotations) {
          const confirmed = a.status === "confirmed"
          const by = a.by ?? importedBy
          count(
            yield* store.mergeAnnotation({
              activity_key: a.activity,
              field: a.field,
              value: a.value,
              status: a.status,
              by,
              at: a.at,
              confirmed_by: confirmed ? by : null,
              confirmed_at: confirmed ? a.at : null,
              basis: a.basis ?? null
            })
          )
        }
        for (const c of f.dora) {
          count(
            yield* store.mergeDoraCell({
              table_code: c.table,
              row_key: c.rowKey,
              column_code: c.column,
              value: c.value,
              by: c.by,
              at: c.at
            })
          )
        }
        const total = f.overrides.length + f.lineage.length + f.glossary.length + f.descriptions.length +
          f.annotations.length + f.dora.length
        yield* changeLog.record({
          at: DateTime.formatIso(yield* DateTime.now),
          scanId: null,
          kind: "catalog.imported",
          entity: file,
          sourceId: null,
          detail: { rows: total, applied },
          by: importedBy
        })
        return { rows: total, applied }
      }))

    return { exportFile, importFile } as const
  })
}) {}
