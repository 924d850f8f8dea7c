/** The scan's own layers: the Scanner with the connectors and the classifier (imported lazily by Main.ts). */
import { Layer } from "effect"
import { Scanner } from "../services/Scanner.js"
import { ClassifierLive } from "./ClassifierLive.js"
import { ConnectorsLive } from "./connectors/index.js"

export const ScanLive = Scanner.Default.pipe(Layer.provide(ConnectorsLive), Layer.provide(ClassifierLive))
