/**
 * The team catalog file: every human-made fact of the catalog (classification overrides, user lineage
 * edges, glossary terms, descriptions, RoPA legal-field fills and confirmations with who confirmed,
 * DORA cells) as one deterministic JSON document. Export → import into an empty catalog → export is
 * byte-identical. An import is all or nothing.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import { CatalogFileInvalid, CatalogVersionUnsupported, RopaConfirmUnattributed } from "../errors/index.js"
import { edgeId } from "./Store.js"

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
    const sql = yield* SqlClient.SqlClient

    const exportFile: Effect.Effect<TeamFile, SqlError.SqlError> = Effect.gen(function*() {
      const overrides = yield* sql<
        { column_id: string; value: string; by: string; at: string }
      >`SELECT column_id, value, by, at FROM overrides ORDER BY column_id`
      const edges = yield* sql<
        { from_id: string; to_id: string; by: string | null; created_at: string }
      >`SELECT from_id, to_id, by, created_at FROM lineage WHERE origin = 'user' ORDER BY from_id, to_id`
      const terms = yield* sql<
        { term: string; definition: string; datasets: string; by: string | null; updated_at: string }
      >`SELECT term, definition, datasets, by, updated_at FROM glossary ORDER BY term`
      const descs = yield* sql<
        { entity_id: string; text: string; drafted: number; by: string; at: string }
      >`SELECT entity_id, text, drafted, by, at FROM descriptions ORDER BY entity_id`
      const notes = yield* sql<
        {
          activity_key: string
          field: string
          value: string
          status: "suggested" | "confirmed"
          by: string
          at: string
          confirmed_by: string | null
          confirmed_at: string | null
          basis: string | null
        }
      >`SELECT * FROM annotations ORDER BY activity_key, field`
      const cells = yield* sql<
        { table_code: string; row_key: string; column_code: string; value: string; by: string; at: string }
      >`SELECT * FROM dora_cells ORDER BY table_code, row_key, column_code`
      return {
        format: teamFileFormat,
        version: teamFileVersion,
        overrides: overrides.map((o) => ({ column: o.column_id, value: o.value, by: o.by, at: o.at })),
        lineage: edges.map((e) => ({ from: e.from_id, to: e.to_id, by: e.by, at: e.created_at })),
        glossary: terms.map((t) => ({
          term: t.term,
          definition: t.definition,
          datasets: JSON.parse(t.datasets) as Array<string>,
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
      sql.withTransaction(Effect.gen(function*() {
        let applied = 0
        for (const o of f.overrides) {
          const r =
            yield* sql`INSERT INTO overrides (column_id, value, by, at) VALUES (${o.column}, ${o.value}, ${o.by}, ${o.at})
            ON CONFLICT(column_id) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at WHERE excluded.at > overrides.at RETURNING 1`
          applied += r.length
        }
        for (const e of f.lineage) {
          const r =
            yield* sql`INSERT OR IGNORE INTO lineage (id, from_id, to_id, origin, source_id, created_at, by) VALUES (${
              edgeId(e.from, e.to, "user")
            }, ${e.from}, ${e.to}, 'user', NULL, ${e.at}, ${e.by}) RETURNING 1`
          applied += r.length
        }
        for (const t of f.glossary) {
          const r = yield* sql<
            { rowid: number }
          >`INSERT INTO glossary (term, definition, datasets, updated_at, by) VALUES (${t.term}, ${t.definition}, ${
            JSON.stringify(t.datasets)
          }, ${t.at}, ${t.by})
            ON CONFLICT(term) DO UPDATE SET definition = excluded.definition, datasets = excluded.datasets, updated_at = excluded.updated_at, by = excluded.by WHERE excluded.updated_at > glossary.updated_at RETURNING rowid`
          for (const row of r) {
            yield* sql`DELETE FROM glossary_fts WHERE rowid = ${row.rowid}`
            yield* sql`INSERT INTO glossary_fts (rowid, term, definition) VALUES (${row.rowid}, ${t.term}, ${t.definition})`
          }
          applied += r.length
        }
        for (const d of f.descriptions) {
          const r =
            yield* sql`INSERT INTO descriptions (entity_id, text, drafted, by, at) VALUES (${d.entity}, ${d.text}, ${
              d.drafted ? 1 : 0
            }, ${d.by}, ${d.at})
            ON CONFLICT(entity_id) DO UPDATE SET text = excluded.text, drafted = excluded.drafted, by = excluded.by, at = excluded.at WHERE excluded.at > descriptions.at RETURNING 1`
          applied += r.length
        }
        for (const a of f.annotations) {
          const confirmed = a.status === "confirmed"
          const by = a.by ?? importedBy
          const r =
            yield* sql`INSERT INTO annotations (activity_key, field, value, status, by, at, confirmed_by, confirmed_at, basis)
            VALUES (${a.activity}, ${a.field}, ${a.value}, ${a.status}, ${by}, ${a.at}, ${confirmed ? by : null}, ${
              confirmed ? a.at : null
            }, ${a.basis ?? null})
            ON CONFLICT(activity_key, field) DO UPDATE SET value = excluded.value, status = excluded.status, by = excluded.by, at = excluded.at,
              confirmed_by = excluded.confirmed_by, confirmed_at = excluded.confirmed_at, basis = excluded.basis WHERE excluded.at > annotations.at RETURNING 1`
          applied += r.length
        }
        for (const c of f.dora) {
          const r =
            yield* sql`INSERT INTO dora_cells (table_code, row_key, column_code, value, by, at) VALUES (${c.table}, ${c.rowKey}, ${c.column}, ${c.value}, ${c.by}, ${c.at})
            ON CONFLICT(table_code, row_key, column_code) DO UPDATE SET value = excluded.value, by = excluded.by, at = excluded.at WHERE excluded.at > dora_cells.at RETURNING 1`
          applied += r.length
        }
        const total = f.overrides.length + f.lineage.length + f.glossary.length + f.descriptions.length +
          f.annotations.length + f.dora.length
        yield* sql`INSERT INTO changes (at, scan_id, kind, entity, source_id, detail, by) VALUES (${
          new Date().toISOString()
        }, NULL, 'catalog.imported', ${file}, NULL, ${JSON.stringify({ rows: total, applied })}, ${importedBy})`
        return { rows: total, applied }
      }))

    return { exportFile, importFile } as const
  })
}) {}
