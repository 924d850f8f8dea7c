/**
 * `catalog dora pull` end to end with real processes: the built CLI (dist/bin.js) and a portal started as
 * `catalog admin serve --port 0 --json`. An unbound snapshot with DORA in scope is uploaded, opened by its
 * admin on the claim page, a machine is connected ('Connect a machine' → a sync token), cells are filled
 * through the page's form, and the machine pulls them: applied (attributed "from the portal, by claim
 * admin", logged as dora.set), unchanged on a second pull, a conflict with a person's local value kept,
 * DORA_PULL_FAILED when the portal is down, SYNC_MISCONFIGURED when not paired.
 */
import { generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CliResult, tempProject, writeFile } from "../utils/cli.js"
import { type PortalProcess, runCliAsync, startPortalProcess } from "../utils/portalProcess.js"
import { sampleSnapshot } from "../utils/snapshots.js"

const E = "969500EXAMPLEBANK039"

interface Pull {
  readonly claimId: string
  readonly fills: number
  readonly applied: Array<{ table: string; rowKey: string; field: string; value: string; by: string }>
  readonly unchanged: Array<{ table: string; rowKey: string; field: string; value: string }>
  readonly conflicts: Array<{
    table: string
    rowKey: string
    field: string
    local: { value: string; by: string }
    portal: { value: string; by: string }
    fix: string
  }>
  readonly refused: Array<unknown>
}
interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string }
}

/** A form POST from the portal's own page (same origin), with the session cookie when given. */
const post = async (base: string, pathname: string, body: Record<string, string>, cookie?: string) =>
  fetch(new URL(pathname, base), {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: base,
      ...(cookie !== undefined ? { cookie } : {})
    },
    body: new URLSearchParams(body).toString()
  })

describe("catalog dora pull", () => {
  const project = tempProject("ldc-dora-pull-")
  const workspace = path.join(project.dir, "workspace")
  const portalCwd = path.join(project.dir, "portal")
  let portal: PortalProcess
  let syncToken = ""
  let claimId = ""
  const cli = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}): Promise<CliResult> =>
    runCliAsync(args, workspace, { CATALOG_SIGNER_EMAIL: "", USER: os.userInfo().username, ...env })
  const paired = () => ({ CATALOG_PORTAL_URL: portal.info.url, CATALOG_SYNC_TOKEN: syncToken })

  beforeAll(async () => {
    fs.mkdirSync(workspace, { recursive: true })
    fs.mkdirSync(portalCwd, { recursive: true })
    const { privateKey } = generateKeyPairSync("ed25519")
    const keyFile = path.join(portalCwd, "portal-signing.pem")
    fs.writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
    portal = await startPortalProcess(portalCwd, {
      CATALOG_PORTAL_SIGNING_KEY: keyFile,
      CATALOG_PORTAL_HOME: path.join(project.dir, "portal-home")
    })
    const base = portal.info.url
    // The record on the portal: an unbound snapshot with DORA in scope, opened by its admin.
    const up = await fetch(new URL("/api/portal/v1/snapshots", base), {
      method: "POST",
      headers: { "content-type": "application/json", "x-catalog-record-key": "k".repeat(43) },
      body: JSON.stringify(sampleSnapshot({ doraInScope: true, unbound: true, recipient: null }))
    })
    expect(up.status).toBe(201)
    const receipt = (await up.json()) as { claimId: string; claimUrl: string }
    claimId = receipt.claimId
    const claimPath = new URL(receipt.claimUrl).pathname
    const opened = await post(base, `${claimPath}/open`, {})
    expect(opened.status).toBe(303)
    const cookie = (opened.headers.get("set-cookie") ?? "").split(";")[0]!
    // 'Connect a machine': the token is shown once.
    const created = await post(base, `${claimPath}/sync-tokens`, { label: "laptop" }, cookie)
    expect(created.status).toBe(200)
    syncToken = /sync_[A-Za-z0-9_-]{20,}/.exec(await created.text())?.[0] ?? ""
    expect(syncToken).toMatch(/^sync_/)
    // Three cells filled on the claim page.
    for (
      const cell of [
        { table: "B_02.01", rowKey: "CTR-001", field: "c0050", value: "250000" },
        { table: "B_02.01", rowKey: "CTR-001", field: "c0040", value: "eur" },
        { table: "B_01.01", rowKey: E, field: "c0050", value: "BaFin" }
      ]
    ) {
      const r = await post(base, `${claimPath}/dora`, cell, cookie)
      expect(r.status, JSON.stringify(cell)).toBe(303)
    }
    // The machine: the same entity, DORA in scope; a person set B_01.01 c0050 here first.
    writeFile(
      workspace,
      "catalog.yml",
      [
        "sources: []",
        "dora:",
        "  inScope: true",
        `  entity: { lei: ${E}, name: Example Bank AG, country: DE, currency: EUR }`,
        ""
      ].join("\n")
    )
    const set = await cli(["dora", "set", "B_01.01", E, "c0050", "Bundesanstalt", "--json"], {
      CATALOG_SIGNER_EMAIL: "cio@bank.example"
    })
    expect(set.code, set.stdout + set.stderr).toBe(0)
  }, 120_000)

  afterAll(async () => {
    await portal?.stop()
    project.cleanup()
  })

  it("applies the portal's cells, keeps a person's local value and reports the conflict (exit 0)", async () => {
    const r = await cli(["dora", "pull", "--json"], paired())
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const pull = r.json as Pull
    expect(pull.claimId).toBe(claimId)
    expect(pull.fills).toBe(3)
    expect(pull.applied.map((a) => `${a.table} ${a.rowKey} ${a.field}=${a.value} by ${a.by}`).sort()).toEqual([
      "B_02.01 CTR-001 c0040=eba_CU:EUR by claim admin",
      "B_02.01 CTR-001 c0050=250000 by claim admin"
    ])
    expect(pull.conflicts).toHaveLength(1)
    expect(pull.conflicts[0]).toMatchObject({
      table: "B_01.01",
      rowKey: E,
      field: "c0050",
      local: { value: "Bundesanstalt", by: "cio@bank.example" },
      portal: { value: "BaFin", by: "claim admin" }
    })
    expect(pull.conflicts[0]!.fix).toContain(`catalog dora set B_01.01 ${E} c0050 BaFin`)
    expect(pull.refused).toEqual([])
    // The register holds the pulled cells, the person's value untouched.
    const show = (await cli(["dora", "show", "--json"])).json as {
      register: { tables: Array<{ code: string; rows: Array<{ key: string; cells: Record<string, string> }> }> }
    }
    const cells = (code: string) => show.register.tables.find((t) => t.code === code)!.rows[0]!.cells
    expect(cells("B_02.01")).toMatchObject({ c0010: "CTR-001", c0040: "eba_CU:EUR", c0050: "250000" })
    expect(cells("B_01.01")["c0050"]).toBe("Bundesanstalt")
    // Logged as dora.set, attributed to the portal's person.
    const log = (await cli(["log", "--since", "0", "--json"])).json as {
      changes: Array<{ kind: string; entity: string; by?: string }>
    }
    const pulled = log.changes.filter((c) => c.kind === "dora.set" && c.entity.startsWith("B_02.01"))
    expect(pulled.map((c) => c.by)).toEqual(["from the portal, by claim admin", "from the portal, by claim admin"])
    // The human-readable report lists the conflict and its fix.
    const human = await cli(["dora", "pull"], paired())
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("conflict  B_01.01")
    expect(human.stdout).toContain("here:   Bundesanstalt (set by cio@bank.example")
  })

  it("a second pull changes nothing: the cells are unchanged, the conflict still listed", async () => {
    const r = await cli(["dora", "pull", "--json"], paired())
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const pull = r.json as Pull
    expect(pull.applied).toEqual([])
    expect(pull.unchanged.map((u) => `${u.table} ${u.field}`).sort()).toEqual(["B_02.01 c0040", "B_02.01 c0050"])
    expect(pull.conflicts).toHaveLength(1)
  })

  it("SYNC_UNAUTHORIZED passes through for a token the portal does not know (exit 1)", async () => {
    const r = await cli(["dora", "pull", "--json"], { ...paired(), CATALOG_SYNC_TOKEN: `sync_${"x".repeat(43)}` })
    expect(r.code).toBe(1)
    expect((JSON.parse(r.stderr || r.stdout) as ErrorJson).error.code).toBe("SYNC_UNAUTHORIZED")
  })

  it("SYNC_MISCONFIGURED when the machine is not paired (no portal address, or no token)", async () => {
    for (const env of [{ CATALOG_PORTAL_URL: "", CATALOG_SYNC_TOKEN: "" }, { CATALOG_PORTAL_URL: portal.info.url }]) {
      const r = await cli(["dora", "pull", "--json"], env)
      expect(r.code).toBe(1)
      const e = (JSON.parse(r.stderr || r.stdout) as ErrorJson).error
      expect(e.code).toBe("SYNC_MISCONFIGURED")
      expect(e.fix).toContain("Connect a machine")
    }
  })

  it("DORA_PULL_FAILED with the cause and fix when the portal is down; nothing changed", async () => {
    const url = portal.info.url
    await portal.stop()
    const r = await cli(["dora", "pull", "--json"], { CATALOG_PORTAL_URL: url, CATALOG_SYNC_TOKEN: syncToken })
    expect(r.code).toBe(1)
    const e = (JSON.parse(r.stderr || r.stdout) as ErrorJson).error
    expect(e.code).toBe("DORA_PULL_FAILED")
    expect(e.message).toContain("refused")
    expect(e.fix).toContain("catalog dora pull")
    expect(r.stderr + r.stdout).not.toContain(syncToken)
  })
})
