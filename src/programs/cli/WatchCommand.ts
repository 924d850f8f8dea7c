/**
 * `watch`: one re-scan, then what moved. `--ci` exits 3 when a core RoPA field moved (and says
 * which); `--webhook <url>` POSTs a JSON change summary — a failed delivery is WEBHOOK_FAILED and the
 * re-scan still stands.
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import { NoSources, WebhookFailed } from "../../errors/index.js"
import { ScanLive } from "../../layers/Main.js"
import { indexPath } from "../../layers/Sql.js"
import { AppEnv, dataDir } from "../../services/AppEnv.js"
import { ConfigFile } from "../../services/ConfigFile.js"
import { Reader } from "../../services/Reader.js"
import { diffRopa } from "../../services/RopaDiff.js"
import { Scanner } from "../../services/Scanner.js"
import { Sync } from "../../services/Sync.js"
import { version } from "../../version.js"
import { discardNewCatalogOnFailure } from "./firstScan.js"
import { bold, emit, green, red, stderrLine, yellow } from "./render.js"
import { SyncOnCatalog } from "./SyncCommands.js"

const deliver = (url: string, body: unknown) =>
  Effect.tryPromise({
    try: async () => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": `local-data-catalog/${version}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000)
      })
      if (!res.ok) throw new Error(`the receiver answered HTTP ${res.status}`)
      return res.status
    },
    catch: (e) =>
      new WebhookFailed({
        message: `Webhook delivery to ${url} failed: ${
          e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e)
        }; the local re-scan stands.`,
        param: "webhook"
      })
  })

export const watch = Command.make("watch", {
  ci: Options.boolean("ci").pipe(Options.withDescription("exit 3 when a core RoPA field moved")),
  webhook: Options.text("webhook").pipe(
    Options.withPseudoName("<url>"),
    Options.withDescription("POST the change summary to this http(s) URL"),
    Options.optional
  )
}, ({ ci, webhook }) =>
  Effect.gen(function*() {
    const loaded = yield* (yield* ConfigFile).load()
    if (loaded.file.sources.length === 0) return yield* new NoSources({ message: `${loaded.path} lists no sources.` })
    const url = Option.getOrUndefined(webhook)
    if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) {
      return yield* new WebhookFailed({
        message: `"${url}" is not an http(s) URL.`,
        fix: "Pass --webhook https://host/path.",
        param: "webhook"
      })
    }
    const env = yield* AppEnv
    const hadCatalog = fs.existsSync(indexPath(dataDir(env)))
    const result = yield* Effect.gen(function*() {
      const reader = yield* Reader
      const before = hadCatalog ? yield* reader.compliance : null
      const report = yield* (yield* Scanner).run()
      const after = yield* reader.compliance
      const changes = yield* reader.changes(undefined, 1000) // default window: this scan
      // A paired machine uploads the refreshed draft; whatever happens there, the re-scan stands.
      const upload = yield* (yield* Sync).afterScan(report.upload)
      return { report, moved: before === null ? [] : diffRopa(before, after), changes, upload }
    }).pipe(Effect.provide(SyncOnCatalog), Effect.provide(ScanLive), discardNewCatalogOnFailure)
    const summary = {
      event: "catalog.rescan",
      tool: `local-data-catalog/${version}`,
      at: new Date().toISOString(),
      scanId: result.report.summary.scanId,
      coverage: result.report.coverage,
      summary: result.report.summary,
      ropaMoved: result.moved,
      changes: result.changes.changes.map((c) => ({ seq: c.seq, kind: c.kind, entity: c.entity, summary: c.summary }))
    }
    const moved = ci && result.moved.length > 0
    let delivery: { url: string; status: number } | { skipped: string } | {
      url: string
      delivered: false
      error: { code: string; message: string; fix: string | null }
    } | null = null
    if (url !== undefined) {
      if (loaded.file.catalogOnly) {
        delivery = { skipped: "catalog-only is on: no metadata leaves this machine, so the webhook was not called" }
      } else {
        const outcome = yield* Effect.either(deliver(url, summary))
        if (outcome._tag === "Right") delivery = { url, status: outcome.right }
        else if (!moved) {
          // The error carries the summary, so --json still prints one JSON value.
          return yield* new WebhookFailed({
            message: outcome.left.message,
            param: "webhook",
            details: { ...summary, webhook: { url, delivered: false } }
          })
        } else {
          // A moved core field outranks a failed delivery (exit 3), and the output reports both.
          delivery = {
            url,
            delivered: false,
            error: { code: outcome.left.code, message: outcome.left.message, fix: outcome.left.fix }
          }
        }
      }
    }
    const failed = delivery !== null && "delivered" in delivery ? delivery : null
    yield* emit({
      ...summary,
      ...(delivery ? { webhook: delivery } : {}),
      upload: result.upload,
      exitCode: moved ? 3 : 0
    }, (s) =>
      [
        `${bold("Re-scan")} #${s.scanId}: ${s.summary.changes} change entries. ${s.coverage.line}`,
        s.ropaMoved.length === 0
          ? green("No core RoPA field moved.")
          : yellow(`${s.ropaMoved.length} core RoPA field(s) moved:`),
        ...s.ropaMoved.map((m) => `  ${m.summary}`),
        ...(delivery && !("delivered" in delivery)
          ? ["skipped" in delivery ? delivery.skipped : `Webhook delivered (HTTP ${delivery.status}).`]
          : []),
        s.upload.error !== undefined
          ? `${yellow(s.upload.message)}${s.upload.error.fix !== null ? `\n  fix: ${s.upload.error.fix}` : ""}`
          : s.upload.message
      ].join("\n"))
    if (failed !== null) {
      yield* stderrLine(
        `${red(failed.error.code)}: ${failed.error.message}${failed.error.fix ? `\n  fix: ${failed.error.fix}` : ""}`
      )
    }
    if (moved) {
      yield* Effect.sync(() => {
        process.exitCode = 3
      })
    }
  })).pipe(Command.withDescription(
    "Re-scan every source, then report what moved in the RoPA draft. --ci exits 3 when a core RoPA field moved (activities, legal fields, data categories or subjects, special/criminal data, systems) and says which; --webhook POSTs a JSON change summary (metadata only; skipped when catalog-only is on)."
  ))
