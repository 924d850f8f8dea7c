import type { Activity, LegalField, RopaDraft } from "../../../../../domain/Compliance.js"
import { api } from "../api.js"
import { datasetHref, h } from "../dom.js"
import {
  classBadge,
  cli,
  codeBlock,
  command,
  draftStamp,
  empty,
  expandableRow,
  facts,
  fmtDate,
  humanAct,
  pageHeader,
  ph,
  pill,
  plural,
  section,
  table,
  timeAgo
} from "../ui.js"

const fieldLabel: Record<LegalField["field"], string> = {
  purpose: "Purpose",
  lawfulBasis: "Lawful basis",
  retention: "Retention",
  transfers: "Transfers"
}

const statusBadge = (f: LegalField): HTMLElement =>
  f.status === "confirmed"
    ? pill(
      [h("span", { class: "glyph", "aria-hidden": "true" }, "✓"), " Confirmed"],
      "ok",
      "Confirmed by a named human"
    )
    : pill(
      [h("span", { class: "glyph", "aria-hidden": "true" }, "?"), " Suggested"],
      "warn",
      "A machine suggestion awaiting a human"
    )

const legalHead = ["Field", "Value", "Status", "Confirmed", "Human act"]

const legalRows = (a: Activity, f: LegalField): Array<HTMLTableRowElement> => {
  const open = f.status !== "confirmed" || f.needsReview
  const more = open
    ? expandableRow(
      "Confirm…",
      legalHead.length,
      h(
        "div",
        { class: "correct-body" },
        h(
          "p",
          { class: "small" },
          "A legal call only a named human may confirm. Set ",
          h("code", null, "CATALOG_SIGNER_EMAIL"),
          " first; the confirmation records who and when. Edit the value as needed:"
        ),
        command(cli("annotate", "set", a.key, f.field, f.value ?? f.suggestion ?? ph("<value>"), "--confirm"))
      )
    )
    : null
  const row = h(
    "tr",
    { class: `legal ${f.status}${f.needsReview ? " review" : ""}`, "data-field": `${a.key}/${f.field}` },
    h("th", { scope: "row" }, fieldLabel[f.field], h("div", { class: "small muted mono" }, f.field)),
    h(
      "td",
      null,
      f.value !== null ? h("span", null, f.value) : h("span", { class: "muted" }, "not filled"),
      f.suggestion !== null && f.suggestion !== f.value
        ? h("div", { class: "small muted" }, "Suggested from the scan: ", f.suggestion)
        : null
    ),
    h(
      "td",
      null,
      statusBadge(f),
      f.needsReview
        ? h("div", { class: "drift", role: "note" }, "⚠ The data under it changed since it was confirmed: review")
        : null
    ),
    h(
      "td",
      { class: "small" },
      f.status === "confirmed"
        ? h(
          "span",
          null,
          "by ",
          h("strong", null, f.confirmedBy ?? "unknown"),
          f.confirmedAt ? [" · ", timeAgo(f.confirmedAt)] : null
        )
        : h("span", { class: "muted" }, "—")
    ),
    h("td", { class: "act-cell" }, more ? more.button : h("span", { class: "muted small" }, "done"))
  )
  return more ? [row, more.row] : [row]
}

const activityCard = (a: Activity): HTMLElement => {
  const fields = [a.legal.purpose, a.legal.lawfulBasis, a.legal.retention, a.legal.transfers]
  const open = fields.filter((f) => f.status !== "confirmed" || f.needsReview).length
  return h(
    "article",
    { class: "card activity", "aria-labelledby": `act-${a.key}` },
    h(
      "header",
      { class: "activity-head" },
      h("h2", { id: `act-${a.key}` }, a.name),
      h("code", { class: "small" }, a.key),
      open > 0 ? pill(`${open} open`, "warn") : pill("all confirmed", "ok"),
      a.special ? classBadge("special") : null,
      a.criminal ? classBadge("criminal") : null
    ),
    a.description ? h("p", null, a.description) : null,
    facts([
      ["Systems", a.systems.length > 0 ? a.systems.join(", ") : h("span", { class: "muted" }, "none")],
      [
        "Data subjects",
        a.dataSubjects.length > 0 ? a.dataSubjects.join(", ") : h("span", { class: "muted" }, "not drafted")
      ],
      [
        "Data categories",
        a.dataCategories.length > 0
          ? h(
            "ul",
            { class: "cats" },
            a.dataCategories.map((c) =>
              h(
                "li",
                null,
                classBadge(c.class),
                " ",
                c.category,
                h("span", { class: "muted" }, ` (${plural(c.columns, "column")})`)
              )
            )
          )
          : h("span", { class: "muted" }, "none")
      ],
      [
        "Recipients",
        a.recipients.length > 0 ? a.recipients.join(", ") : h("span", { class: "muted" }, "none recorded")
      ],
      [
        "Datasets",
        a.datasets.length > 0
          ? h(
            "ul",
            { class: "inline-list" },
            a.datasets.map((d) => h("li", null, h("a", { href: datasetHref(d), class: "mono" }, d)))
          )
          : h("span", { class: "muted" }, "none")
      ]
    ]),
    table(`Legal fields of ${a.name}`, legalHead, fields.flatMap((f) => legalRows(a, f)), "legal-table stack")
  )
}

export const ropaView = async (): Promise<HTMLElement> => {
  const r: RopaDraft = await api.compliance()
  const page = h(
    "div",
    { class: "page ropa" },
    pageHeader(
      "Record of processing (RoPA)",
      "The GDPR Art. 30 record of processing activities as drafted from the map. Purpose, lawful basis, retention and transfers are legal calls: the tool only suggests them, and only a named human may confirm one."
    ),
    draftStamp(r.stamp)
  )

  const controller = r.controller
  const controllerOk = controller !== null && controller.name !== null && controller.contact !== null
  page.appendChild(h(
    "div",
    { class: "grid2 top" },
    section(
      "Controller",
      facts([
        ["Name", controller?.name ?? h("span", { class: "missing" }, "missing")],
        ["Contact", controller?.contact ?? h("span", { class: "missing" }, "missing")]
      ]),
      controllerOk ?
        null :
        h(
          "div",
          null,
          h(
            "p",
            { class: "small" },
            "Add the controller block to ",
            h("code", null, "catalog.yml"),
            " (or enter it on the claim page):"
          ),
          codeBlock(
            "controller:\n  name: Example GmbH\n  contact: privacy@example.com\n",
            "catalog.yml controller block"
          )
        )
    ),
    section(
      "Status",
      facts([
        [
          "Seal",
          h(
            "span",
            null,
            pill(r.seal === "draft" ? "draft" : r.seal, r.seal === "draft" ? "warn" : "ok"),
            h("span", { class: "muted small" }, " (signing is a paid portal step)")
          )
        ],
        ["Activities", String(r.activities.length)],
        [
          "Open legal calls",
          r.openLegalCalls > 0 ? h("strong", { class: "warn-text" }, String(r.openLegalCalls)) : "none"
        ],
        ["Drafted", h("span", null, fmtDate(r.generatedAt))]
      ])
    )
  ))

  if (r.activities.length === 0) {
    page.appendChild(
      section(
        "Activities",
        empty(
          "No processing activity drafted yet.",
          "Activities are drafted from the datasets that hold personal data. Scan, then list the activity keys and fields you can fill:",
          "catalog start",
          "catalog annotate list"
        )
      )
    )
  } else {
    for (const a of r.activities) page.appendChild(activityCard(a))
  }

  page.appendChild(
    humanAct(
      "Filling and confirming legal fields",
      [
        "Without ",
        h("code", null, "--confirm"),
        " an answer is saved as a draft fill (still suggested). With ",
        h("code", null, "--confirm"),
        " it records who confirmed it and when; that needs ",
        h("code", null, "CATALOG_SIGNER_EMAIL"),
        ". A value of None closes a field as 'does not apply', which is itself a confirmation."
      ],
      "catalog annotate list",
      cli("annotate", "set", ph("<activityKey>"), ph("<field>"), ph("<value>")),
      cli("annotate", "set", ph("<activityKey>"), ph("<field>"), ph("<value>"), "--confirm")
    )
  )
  return page
}
