/**
 * "Fill the DORA register" on the claim page and GET /api/portal/v1/sync/dora, in-process on both back
 * ends: a valid cell is stored (normalised as `dora set` stores it) and listed on the page; an invalid value
 * is refused with why (400, nothing stored); a cross-site POST is refused (403); no session, no fill (403);
 * the sync route answers the claim's fills for its sync token only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sampleSnapshot } from "../../utils/snapshots.js"
import { type Backend, type Portal, request, startTestPortal, upload } from "./harness.js"

const E = "969500EXAMPLEBANK039"

describe.each<Backend>(["sqlite", "postgres"])("DORA fills on %s", (backend) => {
  let portal: Portal
  let claimPath = ""
  let claimId = ""
  let cookie = ""
  let syncToken = ""
  beforeAll(async () => {
    portal = await startTestPortal(backend)
    const up = await upload(portal, sampleSnapshot({ doraInScope: true, unbound: true, recipient: null }))
    expect(up.status).toBe(201)
    const receipt = up.json as { claimId: string; claimUrl: string }
    claimId = receipt.claimId
    claimPath = new URL(receipt.claimUrl).pathname
    const opened = await form(`${claimPath}/open`, "")
    expect(opened.status).toBe(303)
    cookie = String(opened.headers["set-cookie"]?.[0] ?? "").split(";")[0]!
    const created = await form(`${claimPath}/sync-tokens`, "label=test", { cookie })
    syncToken = /sync_[A-Za-z0-9_-]{20,}/.exec(created.body)?.[0] ?? ""
    expect(syncToken).toMatch(/^sync_/)
  }, 120_000)
  afterAll(async () => {
    await portal?.close()
  })

  const form = (pathname: string, body: string, headers: Record<string, string> = {}) =>
    request(portal.url, pathname, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.url, ...headers },
      body
    })
  const fill = (cell: Record<string, string>, headers: Record<string, string> = { cookie }) =>
    form(`${claimPath}/dora`, new URLSearchParams(cell).toString(), headers)
  const page = (target = claimPath) => request(portal.url, target, { headers: { cookie } })
  const pulled = () =>
    request(portal.url, "/api/portal/v1/sync/dora", { headers: { "x-catalog-sync-token": syncToken } })

  it("the page offers one form per register table with its column codes", async () => {
    const r = await page()
    expect(r.status).toBe(200)
    expect(r.body).toContain("Fill the DORA register")
    expect(r.body).toContain(`action="${claimPath}/dora"`)
    expect(r.body).toContain(`data-table="B_05.01"`)
    expect(r.body).toContain(`<option value="c0050">c0050`)
    expect(r.body).toContain("No cell filled yet.")
  })

  it("a valid cell is stored normalised, attributed to the claim admin, listed, and served to the paired machine", async () => {
    const r = await fill({ table: "b_02.01", rowKey: "CTR-001", field: "0040", value: "eur" })
    expect(r.status).toBe(303)
    expect(r.headers["location"]).toBe(`${claimPath}?saved=dora#dora-fill`)
    const shown = await page(`${claimPath}?saved=dora`)
    expect(shown.body).toContain("DORA cell saved.")
    expect(shown.body).toMatch(
      /<td><code>B_02\.01<\/code><\/td><td><code>CTR-001<\/code><\/td><td><code>c0040<\/code><\/td><td>eba_CU:EUR<\/td><td>claim admin<\/td>/
    )
    // A later fill of the same cell replaces it.
    expect((await fill({ table: "B_02.01", rowKey: "CTR-001", field: "c0040", value: "USD" })).status).toBe(303)
    const api = await pulled()
    expect(api.status).toBe(200)
    expect(api.json).toMatchObject({
      claimId,
      fills: [{ table: "B_02.01", rowKey: "CTR-001", field: "c0040", value: "eba_CU:USD", by: "claim admin" }]
    })
  })

  it("an invalid value, table, field or row key is refused with why (400), nothing stored", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ table: "B_01.01", rowKey: E, field: "c0040", value: "not-a-date" }, "DORA_INPUT_INVALID"],
      [{ table: "B_99.99", rowKey: "X", field: "c0010", value: "x" }, "Unknown DORA table"],
      [{ table: "B_02.01", rowKey: "CTR-001", field: "c9999", value: "x" }, "has no column"],
      [{ table: "B_02.01", rowKey: "CTR-001", field: "c0010", value: "CTR-002" }, "key column"],
      [{ table: "B_02.01", rowKey: "CTR-001", field: "c0050", value: "" }, "required"]
    ]
    for (const [cell, why] of cases) {
      const r = await fill(cell)
      expect(r.status, JSON.stringify(cell)).toBe(400)
      expect(r.body).toContain("The cell was not saved")
      expect(r.body).toContain(why)
    }
    const api = await pulled()
    expect((api.json as { fills: Array<unknown> }).fills).toHaveLength(1)
  })

  it("a cross-site POST is refused (403); without a session nothing is filled (403)", async () => {
    const cross = await fill({ table: "B_02.01", rowKey: "CTR-9", field: "c0050", value: "1" }, {
      cookie,
      origin: "https://evil.example"
    })
    expect(cross.status).toBe(403)
    const none = await fill({ table: "B_02.01", rowKey: "CTR-9", field: "c0050", value: "1" }, {})
    expect(none.status).toBe(403)
    expect(none.body).toContain("Open the draft first")
    expect((((await pulled()).json) as { fills: Array<unknown> }).fills).toHaveLength(1)
  })

  it("GET sync/dora without a valid sync token is SYNC_UNAUTHORIZED (401)", async () => {
    for (const headers of [{}, { "x-catalog-sync-token": `sync_${"y".repeat(43)}` }]) {
      const r = await request(portal.url, "/api/portal/v1/sync/dora", { headers })
      expect(r.status).toBe(401)
      expect(r.json).toMatchObject({ error: { code: "SYNC_UNAUTHORIZED" } })
    }
  })
})
