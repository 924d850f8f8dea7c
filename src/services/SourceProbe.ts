/**
 * Probing one configured source (`catalog test <id>`): resolve its secret, connect through its
 * connector, and report the server's version and the round-trip time.
 */
import { Effect } from "effect"
import { SourceNotFound } from "../errors/index.js"
import { ConfigFile } from "./ConfigFile.js"
import { Connectors } from "./Connectors.js"
import { Secrets } from "./Secrets.js"

/** Probes configured sources. */
export class SourceProbe extends Effect.Service<SourceProbe>()("catalog/SourceProbe", {
  effect: Effect.gen(function*() {
    const config = yield* ConfigFile
    const connectors = yield* Connectors
    const secrets = yield* Secrets

    /** The source with this id reached (or its connector's error); SOURCE_NOT_FOUND when it is not configured. */
    const probe = Effect.fn("SourceProbe.probe")(function*(id: string) {
      const cfg = yield* config.load()
      const source = cfg.file.sources.find((s) => s.id === id)
      if (!source) {
        return yield* new SourceNotFound({
          message: `No source with id "${id}" in ${cfg.path}.`,
          fix: "List the configured sources with `catalog sources`.",
          param: "id"
        })
      }
      const connector = yield* connectors.get(source.kind)
      const secret = yield* secrets.resolve(source, connector.needsSecret)
      const t0 = performance.now()
      const reached = yield* connector.probe({ source, secret, baseDir: cfg.baseDir })
      const ms = Math.round(performance.now() - t0)
      return {
        id,
        kind: source.kind,
        reachable: true,
        target: reached.target,
        serverVersion: reached.serverVersion,
        ms
      }
    })

    return { probe } as const
  }),
  dependencies: [Secrets.Default]
}) {}
