import { Layer } from "effect"
import { createHash } from "node:crypto"
import contexts from "../classifier/data/contexts.json" with { type: "json" }
import lexicon from "../classifier/data/lexicon.json" with { type: "json" }
import markers from "../classifier/data/markers.json" with { type: "json" }
import nouns from "../classifier/data/nouns.json" with { type: "json" }
import rules from "../classifier/data/rules.json" with { type: "json" }
import types from "../classifier/data/types.json" with { type: "json" }
import vocabulary from "../classifier/data/vocabulary.json" with { type: "json" }
import { classifySource, learntVersions } from "../classifier/engine.js"
import { Classifier } from "../services/Classifier.js"
import { version as toolVersion } from "../version.js"

/** The classifier engine, pure and synchronous; its version covers the tool version and every data file (the calibration and the second stage's weights too). */
export const ClassifierLive = Layer.sync(Classifier, () =>
  Classifier.of({
    classifySource,
    version: createHash("sha1").update(toolVersion).update(
      JSON.stringify([
        contexts,
        lexicon,
        markers,
        nouns,
        rules,
        types,
        vocabulary,
        learntVersions.calibration,
        learntVersions.model
      ])
    ).digest("hex").slice(0, 16)
  }))
