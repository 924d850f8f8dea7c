/**
 * The compliance drafts the read surfaces serve: the Art. 30 RoPA draft, the glossary and the DORA
 * Register of Information. All are DRAFTs; the seal is `draft` in the free build.
 */
import { Schema } from "effect"
import { Coverage, SourceState } from "./Catalog.js"
import { SealState } from "./Sync.js"

export const LegalFieldName = Schema.Literal("purpose", "lawfulBasis", "retention", "transfers")
export type LegalFieldName = typeof LegalFieldName.Type

/** One legal call: a machine suggestion until a named human confirms it. */
export const LegalField = Schema.Struct({
  field: LegalFieldName,
  value: Schema.NullOr(Schema.String),
  status: Schema.Literal("suggested", "confirmed"),
  /** What the tool drafted from the scan, kept beside a human fill. */
  suggestion: Schema.NullOr(Schema.String),
  confirmedBy: Schema.optional(Schema.String),
  confirmedAt: Schema.optional(Schema.String),
  /** The data under a confirmed field changed since it was confirmed. */
  needsReview: Schema.Boolean
})
export type LegalField = typeof LegalField.Type

export const Activity = Schema.Struct({
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  systems: Schema.Array(Schema.String),
  datasets: Schema.Array(Schema.String),
  dataSubjects: Schema.Array(Schema.String),
  dataCategories: Schema.Array(
    Schema.Struct({
      category: Schema.String,
      class: Schema.Literal("personal", "special", "criminal"),
      columns: Schema.Number
    })
  ),
  special: Schema.Boolean,
  criminal: Schema.Boolean,
  recipients: Schema.Array(Schema.String),
  legal: Schema.Struct({ purpose: LegalField, lawfulBasis: LegalField, retention: LegalField, transfers: LegalField })
})
export type Activity = typeof Activity.Type

export const RopaDraft = Schema.Struct({
  seal: Schema.Literal("draft", "sealed"),
  /** The record's seal, as Status.sealInfo (absent only in snapshots made before it existed). */
  sealInfo: Schema.optional(SealState),
  stamp: Schema.String,
  generatedAt: Schema.String,
  controller: Schema.NullOr(
    Schema.Struct({ name: Schema.NullOr(Schema.String), contact: Schema.NullOr(Schema.String) })
  ),
  activities: Schema.Array(Activity),
  /** Legal fields still `suggested` (or needing review): the open legal calls. */
  openLegalCalls: Schema.Number
})
export type RopaDraft = typeof RopaDraft.Type

export const GlossaryTerm = Schema.Struct({
  term: Schema.String,
  definition: Schema.String,
  datasets: Schema.Array(Schema.String),
  updatedAt: Schema.String,
  by: Schema.optional(Schema.String)
})
export type GlossaryTerm = typeof GlossaryTerm.Type

export const Glossary = Schema.Struct({
  returned: Schema.Number,
  total: Schema.Number,
  truncated: Schema.Boolean,
  terms: Schema.Array(GlossaryTerm)
})
export type Glossary = typeof Glossary.Type

/** One reason the register cannot be exported, located by table code, row key and column code. */
export const DoraViolation = Schema.Struct({
  table: Schema.String,
  rowKey: Schema.NullOr(Schema.String),
  column: Schema.NullOr(Schema.String),
  reason: Schema.String
})
export type DoraViolation = typeof DoraViolation.Type

export const DoraRegister = Schema.Struct({
  /** As configured under `dora.entity` in catalog.yml. */
  entity: Schema.Struct({
    lei: Schema.NullOr(Schema.String),
    name: Schema.NullOr(Schema.String),
    country: Schema.NullOr(Schema.String),
    currency: Schema.NullOr(Schema.String)
  }),
  /** The tables that hold at least one row, in template order (docs/dora.md). */
  tables: Schema.Array(Schema.Struct({
    code: Schema.String,
    name: Schema.String,
    /** The key columns whose values, joined by `|`, make a row key (none: the single row `_`). */
    rowKey: Schema.optional(Schema.Array(Schema.String)),
    rows: Schema.Array(Schema.Struct({
      key: Schema.String,
      cells: Schema.Record({ key: Schema.String, value: Schema.String }),
      /** Column codes filled from catalog.yml rather than by a person. */
      prefilled: Schema.optional(Schema.Array(Schema.String))
    }))
  })),
  validation: Schema.Struct({
    valid: Schema.Boolean,
    violations: Schema.Array(DoraViolation)
  }),
  /** What parameters.csv of an export would hold (reference date and level are defaults `dora export` can override). */
  parameters: Schema.optional(Schema.Struct({
    entityID: Schema.NullOr(Schema.String),
    refPeriod: Schema.String,
    baseCurrency: Schema.NullOr(Schema.String),
    decimalsInteger: Schema.String,
    decimalsMonetary: Schema.String
  })),
  stamp: Schema.optional(Schema.String)
})
export type DoraRegister = typeof DoraRegister.Type

export const DoraState = Schema.Struct({ inScope: Schema.Boolean, register: Schema.NullOr(DoraRegister) })
export type DoraState = typeof DoraState.Type

export const Provenance = Schema.Struct({
  seal: Schema.Literal("draft", "sealed"),
  /** The record's seal, as Status.sealInfo (absent only in snapshots made before it existed). */
  sealInfo: Schema.optional(SealState),
  stamp: Schema.String,
  generatedAt: Schema.String,
  lastScanAt: Schema.NullOr(Schema.String),
  coverage: Coverage,
  sources: Schema.Array(SourceState),
  classifierMethods: Schema.Record({ key: Schema.String, value: Schema.Number }),
  changeLogHead: Schema.NullOr(Schema.Struct({ seq: Schema.Number, at: Schema.String }))
})
export type Provenance = typeof Provenance.Type
