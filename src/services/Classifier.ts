/**
 * The personal-data classifier port: metadata in, one verdict per column out. The implementation
 * (src/classifier/engine.ts, with its vocabularies in src/classifier/data/) is provided by
 * `ClassifierLive` in src/layers, so that commands which do not scan never load it.
 */
import { Context } from "effect"
import type { ColumnVerdict, RawDataset } from "../domain/Metadata.js"

export class Classifier extends Context.Tag("catalog/Classifier")<Classifier, {
  /** Verdicts aligned with `datasets[i].columns[j]`; the whole source is given for cross-table context. */
  readonly classifySource: (datasets: ReadonlyArray<RawDataset>) => ReadonlyArray<ReadonlyArray<ColumnVerdict>>
  /** Changes whenever the vocabularies or rules change: stored verdicts made by another version are redone. */
  readonly version: string
}>() {}
