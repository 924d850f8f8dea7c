/**
 * Change summaries: the one English line the change-log shows for each entry, from its kind, entity,
 * author and detail. A kind this file does not know is shown as `<kind> <entity>`.
 */
import type { ChangeRow } from "../Store.js"

/** What a summary reads of a change-log row. */
export type ChangeFacts = Pick<ChangeRow, "kind" | "entity" | "by">

/** The English line for one change, `detail` being its parsed detail object. */
export const summarizeChange = (r: ChangeFacts, d: Record<string, unknown>): string => {
  switch (r.kind) {
    case "dataset.added":
      return `new ${String(d["kind"] ?? "dataset")} ${r.entity} (${String(d["columns"] ?? "?")} columns, ${
        String(d["personal"] ?? 0)
      } flagged)`
    case "dataset.dropped":
      return `dataset ${r.entity} is gone`
    case "column.added":
      return `new column ${r.entity} ${String(d["type"] ?? "")} → ${String(d["classification"] ?? "")}`
    case "column.dropped":
      return `column ${r.entity} is gone`
    case "column.type_changed":
      return `column ${r.entity} type ${String(d["from"])} → ${String(d["to"])}`
    case "column.reclassified":
      return `scan reclassified ${r.entity}: ${String(d["from"])} → ${String(d["to"])} (${String(d["rule"] ?? "")})`
    case "column.classified":
      return `${r.by ?? "someone"} set ${r.entity} to ${String(d["to"])} (was ${String(d["from"])})`
    case "column.classification_cleared":
      return `${r.by ?? "someone"} cleared the override on ${r.entity}; back to the scan's ${String(d["to"])}`
    case "source.added":
      return `source ${r.entity} (${String(d["kind"] ?? "")}) scanned for the first time`
    case "ropa.field_filled":
      return `${r.by ?? "someone"} filled ${r.entity} (draft, not confirmed): ${String(d["value"] ?? "")}`
    case "ropa.field_confirmed":
      return `${r.by ?? "someone"} confirmed ${r.entity}: ${String(d["value"] ?? "")}`
    case "lineage.added":
      return `${r.by ?? "someone"} added lineage ${String(d["from"] ?? "")} → ${String(d["to"] ?? "")}`
    case "lineage.removed":
      return `${r.by ?? "someone"} removed lineage ${String(d["from"] ?? "")} → ${String(d["to"] ?? "")}`
    case "glossary.set":
      return `${r.by ?? "someone"} set glossary term "${r.entity}"`
    case "description.drafted":
      return `description drafted for ${r.entity}`
    case "dora.import":
      return `${r.by ?? "someone"} imported DORA table ${r.entity}`
    case "dora.set":
      return `${r.by ?? "someone"} set DORA cell ${r.entity}`
    case "catalog.imported":
      return `${r.by ?? "someone"} imported the team catalog file ${r.entity}`
    case "source.removed":
      return `source ${r.entity} removed with its ${String(d["datasets"] ?? 0)} datasets`
    case "sync.paired":
      return `paired with claim ${String(d["claimId"] ?? "?")} (token ${r.entity}) by ${r.by ?? "someone"}`
    case "sync.pushed":
      return `pushed the draft to claim ${r.entity} (${String(d["bytes"] ?? "?")} bytes) by ${r.by ?? "someone"}`
    case "seal.sealed":
      return `sealed by ${String(d["signerName"] ?? "?")} (${String(d["signerRole"] ?? "?")}): seal ${r.entity}`
    case "seal.lapsed":
      return `unsealed: licence expired (seal ${r.entity}, licence ${String(d["licenceId"] ?? "?")} until ${
        String(d["expiresAt"] ?? "?")
      })`
    default:
      return `${r.kind} ${r.entity}`
  }
}
