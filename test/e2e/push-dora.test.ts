/**
 * `catalog push` pulls the DORA cells filled on the claim page after a successful upload, end to end with
 * real processes: the built CLI (dist/bin.js) scans a SQLite source with DORA in scope, invites unbound to a
 * portal started as `catalog admin serve --port 0 --json`, the claim's admin connects the machine and fills
 * cells on the page; `push` then reports what it pulled (`dora: { status, applied, unchanged, conflicts,
 * refused }`, a person's local value kept as a conflict). When the DORA pull fails after the push stood (a
 * proxy in front of the portal answers 503 on sync/dora only), push warns DORA_PULL_FAILED and exits 0.
 * `catalog dora pull` resolves its pairing as push does (SYNC_UNAUTHORIZED naming a pasted licence key).
 */
import { generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../programs/portal/harness.js"
import { type CliResult, tempProject, writeFile } from "../utils/cli.js"
import { type PortalProcess, runCliAsync, startPortalProcess } from "../utils/portalProcess.js"

const E = "969500EXAMPLEBANK039"

interface PushJson {
  readonly claimId: string
  readonly dora:
    | {
      readonly status: "pulled"
      readonly applied: number
      readonly unchanged: number
      readonly conflicts: number
      readonly refused: number
      readonly conflictCells: ReadonlyArray<{ table: string; field: string; local: { value: string } }>
    }
    | { readonly status: "failed"; readonly error: { code: string; message: string; fix: string | null } }
    | { readonly status: "not-in-scope" }
}

describe("push pulls the DORA fills", () => {
  const project = tempProject("ldc-push-dora-")
  const workspace = path.join(project.dir, "workspace")
  const portalCwd = path.join(project.dir, "portal")
  const dbFile = path.join(workspace, "app.db")
  let portal: PortalProcess
  let proxy: http.Server
  let proxyUrl = ""
  let token = ""
  let claimId = ""

  const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<CliResult> =>
    runCliAsync(args, workspace, { APP_DB: dbFile, CATALOG_SIGNER_EMAIL: "cio@bank.example", ...env })
  const paired = (url = portal.info.url) => ({ CATALOG_PORTAL_URL: url, CATALOG_SYNC_TOKEN: token })

  beforeAll(async () => {
    fs.mkdirSync(workspace)
    fs.mkdirSync(portalCwd)
    const db = new DatabaseSync(dbFile)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, full_name TEXT)")
    db.close()
    writeFile(
      workspace,
      "catalog.yml",
      [
        "sources:",
        "  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: eu-west-1 }",
        "dora:",
        "  inScope: true",
        `  entity: { lei: ${E}, name: Example Bank AG, country: DE, currency: EUR }`,
        ""
      ].join("\n")
    )
    const { privateKey } = generateKeyPairSync("ed25519")
    const signing = path.join(portalCwd, "signing.pem")
    fs.writeFileSync(signing, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
    portal = await startPortalProcess(portalCwd, {
      CATALOG_PORTAL_SIGNING_KEY: signing,
      CATALOG_PORTAL_HOME: path.join(portalCwd, "home"),
      CATALOG_DEV_MODE: "1"
    })
    const base = portal.info.url
    const start = await cli(["start", "--json"])
    expect(start.code, start.stderr).toBe(0)
    const invite = await cli(["invite", "--unbound", "--yes", "--json"], { CATALOG_PORTAL_URL: base })
    expect(invite.code, invite.stderr).toBe(0)
    claimId = (invite.json as { claimId: string }).claimId
    const claimPath = new URL((invite.json as { claimUrl: string }).claimUrl).pathname
    const post = (target: string, body: Record<string, string>, cookie?: string) =>
      request(base, target, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: base,
          ...(cookie !== undefined ? { cookie } : {})
        },
        body: new URLSearchParams(body).toString()
      })
    const opened = await post(`${claimPath}/open`, {})
    expect(opened.status).toBe(303)
    const session = opened.headers["set-cookie"]![0]!.split(";")[0]!
    const created = await post(`${claimPath}/sync-tokens`, { label: "laptop" }, session)
    token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(created.body)![1]!
    for (
      const cell of [
        { table: "B_02.01", rowKey: "CTR-001", field: "c0050", value: "250000" },
        { table: "B_01.01", rowKey: E, field: "c0050", value: "BaFin" }
      ]
    ) {
      expect((await post(`${claimPath}/dora`, cell, session)).status, JSON.stringify(cell)).toBe(303)
    }
    // A person set B_01.01 c0050 on this machine: the portal's value must not replace it.
    const set = await cli(["dora", "set", "B_01.01", E, "c0050", "Bundesanstalt", "--json"])
    expect(set.code, set.stdout + set.stderr).toBe(0)

    // A proxy in front of the portal that fails only the DORA pull (everything else passes through).
    proxy = http.createServer((req, res) => {
      if ((req.url ?? "").startsWith("/api/portal/v1/sync/dora")) {
        res.writeHead(503, { "content-type": "text/plain" })
        res.end("maintenance")
        return
      }
      const target = new URL(base)
      const upstream = http.request({
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers
      }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      })
      upstream.on("error", () => {
        res.writeHead(502)
        res.end()
      })
      req.pipe(upstream)
    })
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r))
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`
  }, 180_000)

  afterAll(async () => {
    await portal?.stop()
    await new Promise<void>((r) => (proxy === undefined ? r() : proxy.close(() => r())))
    project.cleanup()
  })

  it("after the upload: the cells applied, the person's value kept as a conflict (--json, exit 0)", async () => {
    const r = await cli(["push", "--json"], paired())
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const push = r.json as PushJson
    expect(push.claimId).toBe(claimId)
    expect(push.dora).toMatchObject({ status: "pulled", applied: 1, unchanged: 0, conflicts: 1, refused: 0 })
    if (push.dora.status !== "pulled") throw new Error("not pulled")
    expect(push.dora.conflictCells[0]).toMatchObject({
      table: "B_01.01",
      field: "c0050",
      local: { value: "Bundesanstalt" }
    })
    // The register holds the pulled cell; the person's value stands.
    const show = (await cli(["dora", "show", "--json"])).json as {
      register: { tables: Array<{ code: string; rows: Array<{ key: string; cells: Record<string, string> }> }> }
    }
    const cells = (code: string) => show.register.tables.find((t) => t.code === code)!.rows[0]!.cells
    expect(cells("B_02.01")["c0050"]).toBe("250000")
    expect(cells("B_01.01")["c0050"]).toBe("Bundesanstalt")
  })

  it("the human report: counts, the conflict, and where the details are", async () => {
    const r = await cli(["push"], paired())
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Pushed the draft to claim ${claimId}`)
    expect(r.stdout).toContain("DORA cells from the claim page: 0 applied, 1 unchanged, 1 conflict(s).")
    expect(r.stdout).toContain("conflict  B_01.01")
    expect(r.stdout).toContain("catalog dora pull")
  })

  it("a DORA pull that fails after the push stood: DORA_PULL_FAILED as a warning, exit 0", async () => {
    const json = await cli(["push", "--json"], paired(proxyUrl))
    expect(json.code, json.stdout + json.stderr).toBe(0)
    const push = json.json as PushJson
    expect(push.claimId).toBe(claimId)
    expect(push.dora).toMatchObject({ status: "failed", error: { code: "DORA_PULL_FAILED" } })
    const human = await cli(["push"], paired(proxyUrl))
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("Pushed the draft")
    expect(human.stderr).toContain("warning: DORA_PULL_FAILED")
    expect(human.stderr).toContain("The push stood.")
    expect(human.stdout + human.stderr).not.toContain(token)
  })

  it("dora pull resolves the pairing as push does: a pasted licence key is named as such", async () => {
    const r = await cli(["dora", "pull", "--json"], {
      CATALOG_PORTAL_URL: portal.info.url,
      CATALOG_SYNC_TOKEN: "lic_abc.def"
    })
    expect(r.code).toBe(1)
    const e = (JSON.parse(r.stderr || r.stdout) as { error: { code: string; message: string } }).error
    expect(e.code).toBe("SYNC_UNAUTHORIZED")
    expect(e.message).toContain("licence key")
  })
})
