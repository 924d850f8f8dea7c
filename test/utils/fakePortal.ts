/**
 * A small fake portal: a real HTTP server speaking the machine↔portal contract of src/domain/Portal.ts
 * (`POST /api/portal/v1/snapshots`), for testing `invite`'s client side without the real portal. It
 * records every request (the exact body bytes and the headers), validates the body with the snapshot
 * Schema, answers 201 with an IngestReceipt (superseding the same record key's previous claim), or —
 * as the test sets it — the portal's error envelopes (401, 413, 429 with Retry-After), an HTML 404 from
 * something that is not a portal, or a 500 without an envelope.
 */
import { Schema } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as http from "node:http"
import * as net from "node:net"
import type { IngestReceipt, MailOutcome } from "../../src/domain/Portal.js"
import {
  claimIdPrefix,
  claimPagePrefix,
  claimTokenPrefix,
  ingestPath,
  recordKeyHeader
} from "../../src/domain/Portal.js"
import { Snapshot } from "../../src/domain/Snapshot.js"

export type FakePortalMode =
  | "ok"
  | "mail-not-configured"
  | "unauthorized"
  | "too-large"
  | "rate-limited"
  | "html-404"
  | "server-error"

export interface ReceivedUpload {
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

export interface FakePortal {
  readonly url: string
  readonly received: Array<ReceivedUpload>
  mode: FakePortalMode
  /** When set, uploads must carry `Authorization: Bearer <token>` (else 401, as the real portal does). */
  requireToken: string | null
  readonly close: () => Promise<void>
}

const envelope = (code: string, message: string, fix: string) => JSON.stringify({ error: { code, message, fix } })

export const startFakePortal = async (): Promise<FakePortal> => {
  const liveByRecord = new Map<string, string>()
  let claims = 0
  const state: { mode: FakePortalMode; requireToken: string | null } = { mode: "ok", requireToken: null }
  const received: Array<ReceivedUpload> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body })
      const json = (status: number, text: string, headers: Record<string, string> = {}) =>
        res.writeHead(status, { "content-type": "application/json", ...headers }).end(text)
      if (state.mode === "html-404" || req.method !== "POST" || req.url !== ingestPath) {
        res.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not Found</h1></body></html>")
        return
      }
      if (state.mode === "server-error") {
        res.writeHead(502, { "content-type": "text/plain" }).end("Bad Gateway")
        return
      }
      const auth = req.headers["authorization"]
      if (state.mode === "unauthorized" || (state.requireToken !== null && auth !== `Bearer ${state.requireToken}`)) {
        return json(
          401,
          envelope(
            "INGEST_UNAUTHORIZED",
            "This portal requires an ingest token.",
            "Set CATALOG_INGEST_TOKEN to the token the portal operator gave you."
          )
        )
      }
      if (state.mode === "rate-limited") {
        return json(
          429,
          envelope(
            "INGEST_RATE_LIMITED",
            "Too many uploads from this address.",
            "Wait an hour, then re-run `catalog invite`."
          ),
          { "retry-after": "1800" }
        )
      }
      if (state.mode === "too-large") {
        return json(
          413,
          envelope("SNAPSHOT_TOO_LARGE", "The snapshot exceeds the 5 MB upload cap.", "Remove sources you do not need.")
        )
      }
      const key = req.headers[recordKeyHeader]
      let snapshot: Snapshot
      try {
        snapshot = Schema.decodeUnknownSync(Snapshot)(JSON.parse(body.toString("utf8")))
      } catch (e) {
        return json(400, envelope("INVALID_PARAM", `Not a snapshot: ${String(e).slice(0, 200)}`, "Send a snapshot."))
      }
      if (typeof key !== "string" || key === "") {
        return json(400, envelope("INVALID_PARAM", "The record key header is missing.", `Send ${recordKeyHeader}.`))
      }
      const recordHash = createHash("sha256").update(key).digest("hex")
      claims += 1
      const claimId = `${claimIdPrefix}${claims}`
      const supersedes = liveByRecord.get(recordHash) ?? null
      liveByRecord.set(recordHash, claimId)
      const mail: MailOutcome = snapshot.unbound
        ? { status: "not-needed", transport: null, error: null }
        : state.mode === "mail-not-configured"
        ? {
          status: "not-configured",
          transport: null,
          error: {
            code: "MAIL_NOT_CONFIGURED",
            message: "No mail delivery is configured.",
            fix: "Set a mail API key variable and CATALOG_MAIL_FROM, or CATALOG_SENDMAIL_CMD, or CATALOG_DEV_MODE=1."
          }
        }
        : { status: "sent", transport: "provider", error: null }
      const receipt: IngestReceipt = {
        claimId,
        claimUrl: `${url}${claimPagePrefix}/${claimTokenPrefix}${randomBytes(16).toString("base64url")}`,
        state: "live",
        recipient: snapshot.recipient,
        unbound: snapshot.unbound,
        bytes: body.length,
        sha256: createHash("sha256").update(body).digest("hex"),
        receivedAt: new Date().toISOString(),
        supersedes,
        mail
      }
      return json(201, JSON.stringify(receipt))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
  return {
    url,
    received,
    get mode() {
      return state.mode
    },
    set mode(m: FakePortalMode) {
      state.mode = m
    },
    get requireToken() {
      return state.requireToken
    },
    set requireToken(t: string | null) {
      state.requireToken = t
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A port on 127.0.0.1 where nothing listens (found free, then released): connecting is refused. */
export const closedPort = async (): Promise<number> => {
  const s = net.createServer()
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
  const port = (s.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}
