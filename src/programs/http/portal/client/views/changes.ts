import type { ChangeEntry } from "../../../../../domain/Catalog.js"
import { api } from "../api.js"
import { datasetHref, h, replace } from "../dom.js"
import { classBadge, errorPanel, fmtDate, fmtNum, isClass, pageHeader, timeAgo } from "../ui.js"

const kindInfo: Record<string, { readonly label: string; readonly tone: string }> = {
  "dataset.added": { label: "dataset added", tone: "add" },
  "dataset.dropped": { label: "dataset dropped", tone: "drop" },
  "column.added": { label: "column added", tone: "add" },
  "column.dropped": { label: "column dropped", tone: "drop" },
  "column.type_changed": { label: "type changed", tone: "change" },
  "column.reclassified": { label: "reclassified by scan", tone: "change" },
  "column.classified": { label: "human correction", tone: "human" },
  "column.classification_cleared": { label: "correction cleared", tone: "human" },
  "source.added": { label: "source added", tone: "add" },
  "source.removed": { label: "source removed", tone: "drop" },
  "lineage.added": { label: "flow asserted", tone: "human" },
  "lineage.removed": { label: "flow removed", tone: "human" },
  "glossary.set": { label: "glossary term", tone: "human" },
  "ropa.field_filled": { label: "RoPA draft fill", tone: "human" },
  "ropa.field_confirmed": { label: "RoPA confirmed", tone: "human" },
  "dora.set": { label: "DORA cell set", tone: "human" },
  "dora.import": { label: "DORA import", tone: "human" }
}

/** Where a change's entity lives: a dataset page for datasets and columns. */
const entityLink = (c: ChangeEntry): HTMLElement => {
  const area = c.kind.split(".")[0]
  const elsewhere: Record<string, string> = {
    source: "#/provenance",
    lineage: "#/lineage",
    ropa: "#/ropa",
    dora: "#/dora"
  }
  if (area === "glossary") {
    return h("a", { href: `#/glossary?term=${encodeURIComponent(c.entity)}`, class: "mono" }, c.entity)
  }
  if (area !== undefined && elsewhere[area]) return h("a", { href: elsewhere[area], class: "mono" }, c.entity)
  const datasetId = c.kind.startsWith("column.") ? c.entity.split("/").slice(0, -1).join("/") : c.entity
  return h("a", { href: datasetHref(datasetId), class: "mono" }, c.entity)
}

export const changeItem = (c: ChangeEntry): HTMLElement => {
  const k = kindInfo[c.kind] ?? { label: c.kind.replace(/[._]/g, " "), tone: "change" }
  const detail = (c.detail ?? {}) as Record<string, unknown>
  const to = typeof detail["to"] === "string" ? detail["to"] : null
  return h(
    "li",
    { class: `change tone-${k.tone}` },
    h(
      "div",
      { class: "change-head" },
      h("span", { class: `badge kind tone-${k.tone}` }, k.label),
      to && isClass(to) && c.kind.includes("class") ? classBadge(to) : null,
      h("span", { class: "change-when" }, timeAgo(c.at), h("span", { class: "muted" }, ` #${c.seq}`))
    ),
    h("div", { class: "change-summary" }, c.summary),
    h(
      "div",
      { class: "change-meta" },
      entityLink(c),
      c.by ? h("span", { class: "by" }, "by ", h("strong", null, c.by)) : null
    )
  )
}

const rangeLabel = (since: string | null): string => {
  if (since === null) return ""
  if (since === "0") return "The whole change-log: "
  if (/^\d+$/.test(since)) return `After change #${since}: `
  return `Since ${since.replace(/\(([^)]+)\)/, (_, iso: string) => `(${fmtDate(iso)})`)}: `
}

export const changesView = async (query: URLSearchParams): Promise<HTMLElement> => {
  const since = query.get("since") ?? ""
  let limit = Number(query.get("limit") ?? 50) || 50
  const page = h(
    "div",
    { class: "page changes-page" },
    pageHeader(
      "Changes",
      "The append-only change-log, newest first: datasets and columns added or dropped, type changes, reclassifications by the scan, and human corrections with who made them."
    )
  )

  const scopes: ReadonlyArray<readonly [string, string]> = [["", "Since the last scan"], ["0", "Everything"]]
  const nav = h(
    "div",
    { class: "segmented", role: "group", "aria-label": "Which changes" },
    scopes.map(([v, label]) =>
      h("a", {
        href: v ? `#/changes?since=${v}` : "#/changes",
        class: "seg-btn",
        "aria-current": since === v ? "page" : null
      }, label)
    )
  )
  const body = h("div", { "aria-live": "polite" })
  page.append(h("div", { class: "toolbar" }, nav), body)

  const load = async () => {
    try {
      const list = await api.changes(since || undefined, limit)
      const more = list.truncated && limit < 1000
        ? h("button", {
          type: "button",
          class: "btn",
          onclick: () => {
            limit = Math.min(1000, limit * 4)
            void load()
          }
        }, `Show more (${fmtNum(list.total - list.returned)} older)`)
        : null
      replace(
        body,
        h(
          "p",
          { class: "muted" },
          rangeLabel(list.since),
          `${fmtNum(list.returned)} of ${fmtNum(list.total)} changes.`
        ),
        list.changes.length === 0
          ? h(
            "div",
            { class: "empty" },
            h("p", { class: "empty-title" }, "No changes in this range."),
            since === "" ? h("p", null, h("a", { href: "#/changes?since=0" }, "Show the whole change-log")) : null
          )
          : h("div", { class: "card" }, h("ol", { class: "changes" }, list.changes.map(changeItem)), more)
      )
    } catch (e) {
      replace(body, errorPanel(e))
    }
  }
  await load()
  return page
}
