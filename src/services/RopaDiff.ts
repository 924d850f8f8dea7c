/** What moved in the RoPA draft between two readings: the signal of `watch --ci`. */
import type { Activity, RopaDraft } from "../domain/Compliance.js"

export interface RopaMove {
  readonly activity: string
  /** `activity`, a legal field name, `dataCategories`, `dataSubjects`, `special`, `criminal` or `systems`. */
  readonly field: string
  readonly from: unknown
  readonly to: unknown
  readonly summary: string
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Core fields: the activity itself, its four legal fields (value and status), data categories and subjects, special/criminal, systems. */
export const diffRopa = (before: RopaDraft, after: RopaDraft): ReadonlyArray<RopaMove> => {
  const moves: Array<RopaMove> = []
  const prev = new Map(before.activities.map((a) => [a.key, a]))
  const next = new Map(after.activities.map((a) => [a.key, a]))
  for (const [key] of prev) {
    if (!next.has(key)) {
      moves.push({ activity: key, field: "activity", from: "present", to: "gone", summary: `activity ${key} is gone` })
    }
  }
  for (const [key, a] of next) {
    const b = prev.get(key)
    if (!b) {
      moves.push({
        activity: key,
        field: "activity",
        from: "absent",
        to: "present",
        summary: `new activity ${key} (${a.name})`
      })
      continue
    }
    for (const f of ["purpose", "lawfulBasis", "retention", "transfers"] as const) {
      const x = b.legal[f], y = a.legal[f]
      if (x.value !== y.value || x.status !== y.status || x.needsReview !== y.needsReview) {
        moves.push({
          activity: key,
          field: f,
          from: { value: x.value, status: x.status, needsReview: x.needsReview },
          to: { value: y.value, status: y.status, needsReview: y.needsReview },
          summary: `${key}.${f}: ${x.status}${x.needsReview ? " (needs review)" : ""} "${x.value ?? ""}" → ${y.status}${
            y.needsReview ? " (needs review)" : ""
          } "${y.value ?? ""}"`
        })
      }
    }
    const cats = (x: Activity) => x.dataCategories.map((c) => `${c.category}:${c.class}`).sort()
    if (!same(cats(b), cats(a))) {
      const added = cats(a).filter((c) => !cats(b).includes(c)), removed = cats(b).filter((c) => !cats(a).includes(c))
      moves.push({
        activity: key,
        field: "dataCategories",
        from: cats(b),
        to: cats(a),
        summary: `${key} data categories: ${[...added.map((c) => `+${c}`), ...removed.map((c) => `-${c}`)].join(", ")}`
      })
    }
    for (const f of ["dataSubjects", "special", "criminal", "systems"] as const) {
      if (!same(b[f], a[f])) {
        moves.push({
          activity: key,
          field: f,
          from: b[f],
          to: a[f],
          summary: `${key}.${f}: ${JSON.stringify(b[f])} → ${JSON.stringify(a[f])}`
        })
      }
    }
  }
  return moves
}
