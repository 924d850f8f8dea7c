import { Layer } from "effect"
import { classifySource } from "../classifier/engine.js"
import { Classifier } from "../services/Classifier.js"

/** The classifier engine, pure and synchronous. */
export const ClassifierLive = Layer.succeed(Classifier, Classifier.of({ classifySource }))
