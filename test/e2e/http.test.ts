/**
 * `catalog open` end to end: the built CLI serves a scanned SQLite catalog, driven over real HTTP.
 * Every route answers the Reader's value (deep-equal to the CLI's --json), errors come in the
 * registry's envelope, non-GET and unknown routes are 404 ENDPOINT_NOT_FOUND with the endpoint
 * list, the Host guard refuses non-loopback names, the OpenAPI document passes an independent
 * validator, the port can be taken (PORT_IN_USE), and Ctrl+C / SIGTERM exit 0.
 */
import SwaggerParser from "@apidevtools/swagger-parser"
import { HttpClient, OpenApi } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import type { ChildProcess } from "node:child_process"
import * as http from "node:http"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../../src/programs/http/Api.js"
import { indexBody, ServerLive } from "../../src/programs/http/Server.js"
import { Reader } from "../../src/services/Reader.js"
import { runCli, spawnCli, tempProject } from "../utils/cli.js"

interface ErrorBody {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly fix?: string
    readonly param?: string
    readonly details?: Record<string, unknown>
  }
}
interface Endpoint {
  readonly method: string
  readonly path: string
  readonly description: string
}
interface HttpResult {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: unknown
}

/** SPEC.md §B: exactly these ten GET routes (OpenAPI path syntax). */
const tenRoutes = [
  "/api/v1/datasets",
  "/api/v1/datasets/{id}",
  "/api/v1/search",
  "/api/v1/lineage",
  "/api/v1/compliance/state",
  "/api/v1/provenance",
  "/api/v1/changes",
  "/api/v1/glossary",
  "/api/v1/dora",
  "/api/v1/openapi.json"
]

const parse = (s: string): unknown => {
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

/** One request over node:http (fetch cannot set Host), no keep-alive. */
const request = (
  port: number,
  target: string,
  opts: { readonly method?: string; readonly headers?: Record<string, string> } = {}
) =>
  new Promise<HttpResult>((resolve, reject) => {
    const method = opts.method ?? "GET"
    const req = http.request(
      { host: "127.0.0.1", port, path: target, method, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: parse(body) })
        })
      }
    )
    req.on("error", reject)
    if (method === "POST" || method === "PUT" || method === "PATCH") {
      req.setHeader("content-type", "application/json")
      req.end("{\"q\":\"email\"}")
    } else req.end()
  })

const errorOf = (r: HttpResult) => (r.json as ErrorBody).error

/** Starts `catalog open --json` and resolves with the `{url, api, port}` line it prints once listening. */
const startServer = (
  args: ReadonlyArray<string>,
  opts: { readonly cwd: string; readonly env?: Record<string, string | undefined> }
) =>
  new Promise<
    { readonly child: ChildProcess; readonly port: number; readonly url: string; readonly stderr: () => string }
  >((resolve, reject) => {
    const child = spawnCli(["open", "--json", ...args], opts)
    let out = ""
    let err = ""
    const timer = setTimeout(() => reject(new Error(`catalog open did not start: ${err}`)), 30_000)
    child.stderr!.on("data", (c: Buffer) => (err += c.toString("utf8")))
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8")
      const line = out.split("\n")[0]
      if (out.includes("\n") && line !== undefined) {
        clearTimeout(timer)
        const info = JSON.parse(line) as { url: string; port: number }
        resolve({ child, port: info.port, url: info.url, stderr: () => err })
      }
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`catalog open exited ${code}: ${out} ${err}`))
    })
  })

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once("exit", (code) => resolve(code))
  })

describe("catalog open: the read API over HTTP (built bin)", () => {
  const p = tempProject("ldc-http-")
  const env = { SHOP_DB: path.join(p.dir, "shop.db"), USER: "tester" }
  const cli = (...args: Array<string>) => runCli(args, { cwd: p.dir, env })
  let server: Awaited<ReturnType<typeof startServer>>
  const get = (target: string, opts?: Parameters<typeof request>[2]) => request(server.port, target, opts)

  beforeAll(async () => {
    const db = new DatabaseSync(env.SHOP_DB)
    db.exec(`
      CREATE TABLE customers (id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT, email TEXT, birth_date DATE, created_at TIMESTAMP);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total_cents INTEGER, ordered_at TIMESTAMP);
      CREATE TABLE "odd/name" (id INTEGER PRIMARY KEY, phone TEXT);
      CREATE TABLE "Kunden Daten" (id INTEGER PRIMARY KEY, nachname TEXT);
      CREATE VIEW big_orders AS SELECT o.id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total_cents > 10000;
    `)
    db.close()
    // Before the first scan `open` fails fast, like every read command (checked in its own test below).
    expect(cli("add", "sqlite", "--ref", "SHOP_DB", "--id", "shop", "--json").code).toBe(0)
  })

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill("SIGKILL")
      await exitOf(server.child)
    }
    p.cleanup()
  })

  it("before the first scan: MAP_NOT_FOUND (exit 1), nothing listens", () => {
    const r = cli("open", "--port", "0", "--json")
    expect(r.code).toBe(1)
    expect((r.json as ErrorBody).error.code).toBe("MAP_NOT_FOUND")
    expect((r.json as ErrorBody).error.fix).toContain("catalog start")
  })

  it("starts on 127.0.0.1 (port 0 = a free port, printed) after a scan", async () => {
    expect(cli("start", "--json").code).toBe(0)
    server = await startServer(["--port", "0"], { cwd: p.dir, env })
    expect(server.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`)
    expect(server.stderr()).toContain(server.url)
  })

  it("GET /api/v1 lists every served endpoint: itself and the ten routes", async () => {
    const r = await get("/api/v1")
    expect(r.status).toBe(200)
    const body = r.json as { version: string; endpoints: Array<Endpoint> }
    expect(typeof body.version).toBe("string")
    const listed = body.endpoints.map((e) => `${e.method} ${e.path}`)
    expect(listed[0]).toBe("GET /api/v1")
    expect([...listed].sort()).toEqual(
      ["GET /api/v1", ...tenRoutes.map((t) => `GET ${t.replace("{id}", ":id")}`)].sort()
    )
    for (const e of body.endpoints) expect(e.description.length, e.path).toBeGreaterThan(0)
    expect((await get("/api/v1/")).json).toEqual(body)
  })

  it("every route answers the Reader's value: deep-equal to the CLI's --json", async () => {
    const strip = (v: unknown) => {
      const o = { ...(v as Record<string, unknown>) }
      delete o["generatedAt"]
      return o
    }
    const pairs: Array<[string, Array<string>, boolean?]> = [
      ["/api/v1/datasets", ["datasets"]],
      ["/api/v1/datasets/shop/main/customers", ["show", "shop/main/customers"]],
      ["/api/v1/search?q=email", ["search", "email"]],
      ["/api/v1/search?q=customer%20email&limit=3", ["search", "customer", "email", "--limit", "3"]],
      ["/api/v1/lineage", ["lineage", "list"]],
      ["/api/v1/lineage?dataset=shop/main/big_orders", ["lineage", "list", "--dataset", "shop/main/big_orders"]],
      ["/api/v1/changes?since=0", ["log", "--since", "0"]],
      ["/api/v1/changes", ["log"]],
      ["/api/v1/glossary", ["glossary", "list"]],
      ["/api/v1/dora", ["dora", "show"]],
      ["/api/v1/compliance/state", ["annotate", "list"], true],
      ["/api/v1/provenance", ["provenance"], true]
    ]
    for (const [route, args, timed] of pairs) {
      const [h, c] = [await get(route), cli(...args, "--json")]
      expect(h.status, route).toBe(200)
      expect(h.headers["content-type"], route).toContain("application/json")
      expect(c.code, args.join(" ")).toBe(0)
      expect(timed ? strip(h.json) : h.json, route).toEqual(timed ? strip(c.json) : c.json)
    }
    const lineage = (await get("/api/v1/lineage")).json as { edges: Array<unknown> }
    expect(lineage.edges.length).toBeGreaterThan(0)
  })

  it("a dataset id is accepted raw and percent-encoded; an unknown one is 404 DATASET_NOT_FOUND", async () => {
    const raw = await get("/api/v1/datasets/shop/main/customers")
    const encoded = await get(`/api/v1/datasets/${encodeURIComponent("shop/main/customers")}`)
    expect(raw.status).toBe(200)
    expect(encoded.json).toEqual(raw.json)
    expect((raw.json as { id: string }).id).toBe("shop/main/customers")
    // Names that need escaping: a space, and a "/" inside a name (the id carries it as %2F).
    const list = (await get("/api/v1/datasets")).json as { datasets: Array<{ id: string }> }
    for (const id of ["shop/main/Kunden Daten", "shop/main/odd%2Fname"]) {
      expect(list.datasets.map((d) => d.id)).toContain(id)
      const enc = await get(`/api/v1/datasets/${encodeURIComponent(id)}`)
      expect(enc.status, id).toBe(200)
      expect((enc.json as { id: string }).id).toBe(id)
      const rawForm = await get(`/api/v1/datasets/${id.split("/").map(encodeURIComponent).join("/")}`)
      expect(rawForm.json, id).toEqual(enc.json)
    }
    const missing = await get("/api/v1/datasets/shop/main/nope")
    expect(missing.status).toBe(404)
    expect(errorOf(missing)).toMatchObject({
      code: "DATASET_NOT_FOUND",
      param: "id",
      details: { id: "shop/main/nope" }
    })
    expect((await get(`/api/v1/datasets/${"x".repeat(300)}`)).status).toBe(404)
  })

  it("/lineage?dataset=<unknown> is 404 DATASET_NOT_FOUND naming `dataset`, the route's own parameter (not the Reader's `id`)", async () => {
    for (
      const target of [
        "/api/v1/lineage?dataset=nope",
        "/api/v1/lineage?dataset=shop/main/nope",
        `/api/v1/lineage?dataset=${encodeURIComponent("shop/main/nope")}`
      ]
    ) {
      const r = await get(target)
      expect(r.status, target).toBe(404)
      expect(errorOf(r), target).toMatchObject({ code: "DATASET_NOT_FOUND", param: "dataset" })
    }
    // An empty id names no dataset at all: INVALID_PARAM naming the parameter (MCP refuses datasetId "" the same way).
    const empty = await get("/api/v1/lineage?dataset=")
    expect(empty.status).toBe(400)
    expect(errorOf(empty)).toMatchObject({ code: "INVALID_PARAM", param: "dataset" })
  })

  it("every route takes only its own query parameters, each once: an unknown or repeated one is 400 INVALID_PARAM naming it", async () => {
    const index = ((await get("/api/v1")).json as { endpoints: Array<Endpoint> }).endpoints
    const concrete = (p: string) => p.replace(":id", encodeURIComponent("shop/main/customers"))
    // What each route needs to answer 200; the unknown parameter comes on top of it.
    const valid: Record<string, string> = { "/api/v1/search": "q=email" }
    expect(index).toHaveLength(11)
    for (const e of index) {
      const base = concrete(e.path)
      const ok = valid[e.path]
      expect((await get(ok ? `${base}?${ok}` : base)).status, base).toBe(200)
      for (
        const [extra, param] of [
          ["nope=1", "nope"],
          ["Limit=5", "Limit"],
          ["datasetId=shop%2Fmain%2Fcustomers", "datasetId"],
          ["x=1&x=2", "x"],
          ["=1", ""]
        ] as const
      ) {
        const target = `${base}?${ok ? `${ok}&` : ""}${extra}`
        const r = await get(target)
        expect(r.status, target).toBe(400)
        expect(errorOf(r), target).toMatchObject({ code: "INVALID_PARAM", param })
        expect(errorOf(r).message, target).toContain("Unknown query parameter")
      }
    }
    // Unknown before anything else: a route with a missing required parameter still names the stranger.
    expect(errorOf(await get("/api/v1/search?nope=1"))).toMatchObject({ code: "INVALID_PARAM", param: "nope" })
    const repeated: Array<[string, string]> = [
      ["/api/v1/search?q=a&q=b", "q"],
      ["/api/v1/search?q=email&limit=1&limit=1", "limit"],
      ["/api/v1/changes?since=0&since=0", "since"],
      ["/api/v1/changes?limit=1&limit=2", "limit"],
      ["/api/v1/lineage?dataset=a&dataset=a", "dataset"]
    ]
    for (const [target, param] of repeated) {
      const r = await get(target)
      expect(r.status, target).toBe(400)
      expect(errorOf(r), target).toMatchObject({ code: "INVALID_PARAM", param })
      expect(errorOf(r).message, target).toMatch(/given 2 times/)
    }
  })

  it("a malformed or missing query parameter is 400 INVALID_PARAM naming it", async () => {
    const cases: Array<[string, string]> = [
      ["/api/v1/search", "q"],
      ["/api/v1/search?q=", "q"],
      ["/api/v1/search?q=%20%20", "q"],
      ["/api/v1/search?q=email&limit=abc", "limit"],
      ["/api/v1/search?q=email&limit=0", "limit"],
      ["/api/v1/search?q=email&limit=101", "limit"],
      ["/api/v1/search?q=email&limit=2.5", "limit"],
      ["/api/v1/search?q=a&q=b", "q"],
      ["/api/v1/changes?since=yesterday", "since"],
      ["/api/v1/changes?since=-1", "since"],
      ["/api/v1/changes?limit=abc", "limit"],
      ["/api/v1/changes?limit=1001", "limit"],
      ["/api/v1/changes?limit=1&limit=2", "limit"],
      ["/api/v1/lineage?dataset=a&dataset=b", "dataset"],
      // a sequence number beyond Number.MAX_SAFE_INTEGER, or a timestamp that names no real time
      ["/api/v1/changes?since=99999999999999999999999", "since"],
      ["/api/v1/changes?since=9007199254740992", "since"],
      ["/api/v1/changes?since=1e3", "since"],
      ["/api/v1/changes?since=0x10", "since"],
      ["/api/v1/changes?since=%200", "since"],
      ["/api/v1/changes?since=", "since"],
      ["/api/v1/changes?since=2026-02-30", "since"],
      ["/api/v1/changes?since=2026-13-01", "since"],
      ["/api/v1/changes?since=2026-01-31T24:00:00Z", "since"],
      ["/api/v1/changes?since=2026-01-31T12:60:00Z", "since"],
      ["/api/v1/changes?since=2026-01-31T12:00:00%2B25:00", "since"],
      ["/api/v1/changes?since=%202026-01-31", "since"]
    ]
    // limit: plain decimal digits within range, nothing else (both routes)
    for (const route of ["/api/v1/search?q=email&", "/api/v1/changes?"]) {
      for (
        const bad of [
          "1e1",
          "0x10",
          "%205",
          "5%20",
          "5.0",
          "-0",
          "-1",
          "%2B5",
          "",
          "99999999999999999999",
          "Infinity",
          "NaN",
          "%D9%A5"
        ]
      ) {
        cases.push([`${route}limit=${bad}`, "limit"])
      }
    }
    for (const [route, param] of cases) {
      const r = await get(route)
      expect(r.status, route).toBe(400)
      expect(errorOf(r), route).toMatchObject({ code: "INVALID_PARAM", param })
      expect(errorOf(r).message.length, route).toBeGreaterThan(0)
      expect(errorOf(r).fix, route).toBeTruthy()
    }
    const badId = await get("/api/v1/datasets/%E0%A4%A")
    expect(badId.status).toBe(400)
    expect(errorOf(badId)).toMatchObject({ code: "INVALID_PARAM", param: "id" })
    expect((await get("/api/v1/search?q=email&limit=100")).status).toBe(200)
    expect((await get("/api/v1/changes?since=2020-01-01T00:00:00Z&limit=1000")).status).toBe(200)
    // the edges of what is valid still answer
    const last = await get(`/api/v1/changes?since=${Number.MAX_SAFE_INTEGER}`)
    expect(last.status).toBe(200)
    expect(last.json).toMatchObject({ since: String(Number.MAX_SAFE_INTEGER), returned: 0 })
    for (
      const since of [
        "2024-02-29",
        "2026-01-31T12:00",
        "2026-01-31%2012:00:00",
        "2026-01-31T12:00:00.123456Z",
        "2026-01-31T12:00:00%2B01:00",
        "2026-01-31T12:00:00-0130"
      ]
    ) {
      expect((await get(`/api/v1/changes?since=${since}`)).status, since).toBe(200)
    }
    expect((await get("/api/v1/changes?since=2026-01-31T12:00:00%2B01:00")).json).toMatchObject({
      since: "2026-01-31T11:00:00.000Z"
    })
    expect((await get("/api/v1/changes?limit=1")).status).toBe(200)
  })

  it("the CLI shares the Reader's parsing: log --since/--limit and search --limit exit 2 with INVALID_PARAM on the same values", () => {
    const cases: Array<[Array<string>, string]> = [
      [["log", "--since", "99999999999999999999999"], "since"],
      [["log", "--since", "2026-02-30"], "since"],
      [["log", "--limit", "1e1"], "limit"],
      [["log", "--limit", " 5"], "limit"],
      [["log", "--limit", ""], "limit"],
      [["search", "email", "--limit", "0x10"], "limit"],
      [["search", "email", "--limit", "5.0"], "limit"],
      [["search", "email", "--limit", "-0"], "limit"]
    ]
    for (const [args, param] of cases) {
      const r = cli(...args, "--json")
      expect(r.code, args.join(" ")).toBe(2)
      expect((r.json as ErrorBody).error, args.join(" ")).toMatchObject({ code: "INVALID_PARAM", param })
    }
    expect(cli("log", "--since", String(Number.MAX_SAFE_INTEGER), "--limit", "1", "--json").code).toBe(0)
  })

  it("POST, PUT, PATCH, DELETE, HEAD and OPTIONS on every path: 404 ENDPOINT_NOT_FOUND listing the endpoints", async () => {
    const index = ((await get("/api/v1")).json as { endpoints: Array<Endpoint> }).endpoints
    const paths = [
      "/api/v1",
      ...tenRoutes.map((t) => t.replace("{id}", "shop%2Fmain%2Fcustomers")),
      "/api/v1/search?q=email",
      "/",
      "/api/v1/nope"
    ]
    for (const target of paths) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        const r = await get(target, { method })
        expect(r.status, `${method} ${target}`).toBe(404)
        expect(errorOf(r).code, `${method} ${target}`).toBe("ENDPOINT_NOT_FOUND")
        expect(errorOf(r).details?.["endpoints"], `${method} ${target}`).toEqual(index)
        expect(r.headers["access-control-allow-origin"]).toBeUndefined()
      }
      expect((await get(target, { method: "HEAD" })).status, `HEAD ${target}`).toBe(404)
    }
  })

  it("an unknown GET route is 404 ENDPOINT_NOT_FOUND listing the endpoints; / serves the portal page, which is not an endpoint", async () => {
    const index = ((await get("/api/v1")).json as { endpoints: Array<Endpoint> }).endpoints
    for (
      const target of [
        "/api/v1/nope",
        "/api/v1/compliance",
        "/api/v1/openapi",
        "/api/v2/datasets",
        "/API/V1/DATASETS",
        "/nope",
        "/assets/nope.js",
        "/index.php?x=1"
      ]
    ) {
      const r = await get(target)
      expect(r.status, target).toBe(404)
      expect(errorOf(r).code, target).toBe("ENDPOINT_NOT_FOUND")
      expect(errorOf(r).details?.["endpoints"], target).toEqual(index)
    }
    const page = await get("/")
    expect(page.status).toBe(200)
    expect(page.headers["content-type"]).toContain("text/html")
    expect(index.map((e) => e.path)).not.toContain("/")
  })

  it("a Host that is not a loopback name is refused (403, error envelope); loopback names are served; no CORS headers", async () => {
    for (
      const host of [
        "evil.example",
        `evil.example:${server.port}`,
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "0.0.0.0"
      ]
    ) {
      for (const target of ["/api/v1/datasets", "/", "/api/v1/nope"]) {
        const r = await get(target, { headers: { Host: host } })
        expect(r.status, `${host} ${target}`).toBe(403)
        expect(errorOf(r), host).toMatchObject({ code: "INVALID_PARAM", param: "Host" })
      }
    }
    for (
      const host of [
        `127.0.0.1:${server.port}`,
        "127.0.0.1",
        `localhost:${server.port}`,
        "LOCALHOST",
        `[::1]:${server.port}`
      ]
    ) {
      expect((await get("/api/v1/dora", { headers: { Host: host } })).status, host).toBe(200)
    }
    for (const target of ["/api/v1/datasets", "/api/v1/openapi.json", "/", "/api/v1/nope"]) {
      const r = await get(target, { headers: { Origin: "http://evil.example" } })
      expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-")), target).toEqual([])
    }
  })

  it("/api/v1/openapi.json passes an independent OpenAPI validator and lists exactly the ten routes", async () => {
    const r = await get("/api/v1/openapi.json")
    expect(r.status).toBe(200)
    const doc = r.json as {
      openapi: string
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
    }
    expect(doc.openapi).toMatch(/^3\.1\./)
    await SwaggerParser.validate(structuredClone(doc) as never)
    expect(Object.keys(doc.paths).sort()).toEqual([...tenRoutes].sort())
    for (const [p, item] of Object.entries(doc.paths)) {
      expect(Object.keys(item), p).toEqual(["get"])
      expect(Object.keys(item["get"]!.responses), p).toContain("200")
    }
    expect(Object.keys(doc.paths["/api/v1/datasets/{id}"]!["get"]!.responses)).toContain("404")
    // every route can answer 400 INVALID_PARAM (an unknown query parameter, at the least)
    for (const [p, item] of Object.entries(doc.paths)) {
      expect(item["get"]!.responses["400"], p).toEqual({
        description: expect.stringContaining("unknown, repeated"),
        content: { "application/json": { schema: { $ref: "#/components/schemas/InvalidParamError" } } }
      })
    }
  })

  it("reads the live catalog: a correction made while serving shows on the next request", async () => {
    const before = (await get("/api/v1/datasets/shop/main/orders")).json as {
      columns: Array<{ id: string; classification: { value: string } }>
    }
    const col = before.columns.find((c) => c.id === "shop/main/orders/total_cents")!
    expect(col.classification.value).not.toBe("special")
    expect(cli("classify", "set", "shop/main/orders/total_cents", "special", "--json").code).toBe(0)
    const after = (await get("/api/v1/datasets/shop/main/orders")).json as typeof before
    expect(after.columns.find((c) => c.id === col.id)!.classification).toMatchObject({
      value: "special",
      overridden: true
    })
    expect(after).toEqual(cli("show", "shop/main/orders", "--json").json)
  })

  it("a taken port is PORT_IN_USE (exit 1) naming --port and CATALOG_HTTP_PORT; a bad port is INVALID_PARAM (exit 2)", () => {
    const flag = cli("open", "--port", String(server.port), "--json")
    expect(flag.code).toBe(1)
    expect(errorOf({ json: flag.json } as HttpResult).code).toBe("PORT_IN_USE")
    expect(errorOf({ json: flag.json } as HttpResult).fix).toMatch(/--port/)
    expect(errorOf({ json: flag.json } as HttpResult).fix).toMatch(/CATALOG_HTTP_PORT/)
    const viaEnv = runCli(["open", "--json"], { cwd: p.dir, env: { ...env, CATALOG_HTTP_PORT: String(server.port) } })
    expect(viaEnv.code).toBe(1)
    expect((viaEnv.json as ErrorBody).error.code).toBe("PORT_IN_USE")
    expect((viaEnv.json as ErrorBody).error.message).toContain(String(server.port))
    for (const bad of ["abc", "70000", "-1"]) {
      const r = cli("open", "--port", bad, "--json")
      expect(r.code, bad).toBe(2)
      expect((r.json as ErrorBody).error, bad).toMatchObject({ code: "INVALID_PARAM", param: "--port" })
    }
    const badEnv = runCli(["open", "--json"], { cwd: p.dir, env: { ...env, CATALOG_HTTP_PORT: "http" } })
    expect(badEnv.code).toBe(2)
    expect((badEnv.json as ErrorBody).error).toMatchObject({ code: "INVALID_PARAM", param: "CATALOG_HTTP_PORT" })
  })

  it("--port wins over CATALOG_HTTP_PORT; SIGTERM closes and exits 0", async () => {
    const other = await startServer(["--port", "0"], {
      cwd: p.dir,
      env: { ...env, CATALOG_HTTP_PORT: String(server.port) }
    })
    expect(other.port).not.toBe(server.port)
    expect((await request(other.port, "/api/v1/dora")).status).toBe(200)
    other.child.kill("SIGTERM")
    expect(await exitOf(other.child)).toBe(0)
  })

  it("Ctrl+C (SIGINT) closes the listener and exits 0", async () => {
    server.child.kill("SIGINT")
    expect(await exitOf(server.child)).toBe(0)
    await expect(request(server.port, "/api/v1")).rejects.toThrow()
  })
})

// ── In process: the same server over a test listener, with a Reader that breaks ──────────────────
describe("catalog open: server composition (in process)", () => {
  const Broken = Layer.mock(Reader, { datasets: Effect.die(new Error("disk on fire")) })
  const TestServer = ServerLive.pipe(Layer.provide(Broken), Layer.provideMerge(NodeHttpServer.layerTest))

  layer(TestServer)((it) => {
    it.effect("a defect is 500 INTERNAL_ERROR in the error envelope, not an empty body", () =>
      Effect.gen(function*() {
        const res = yield* HttpClient.get("/api/v1/datasets")
        assert.strictEqual(res.status, 500)
        const body = (yield* res.json) as ErrorBody
        assert.strictEqual(body.error.code, "INTERNAL_ERROR")
        assert.include(body.error.message, "disk on fire")
        assert.isString(body.error.fix)
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))

    it.effect("the served OpenAPI document is OpenApi.fromApi(Api): generated from the contract", () =>
      Effect.gen(function*() {
        const res = yield* HttpClient.get("/api/v1/openapi.json")
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(yield* res.json, JSON.parse(JSON.stringify(OpenApi.fromApi(Api))))
      }))

    it.effect("every answer carries the security headers: routes, errors, the fallback, the page", () =>
      Effect.gen(function*() {
        for (const target of ["/api/v1/openapi.json", "/api/v1/datasets", "/api/v1/nope", "/api/v1", "/"]) {
          const res = yield* HttpClient.get(target)
          assert.deepInclude(res.headers, {
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            "x-frame-options": "DENY",
            "referrer-policy": "no-referrer",
            "cross-origin-resource-policy": "same-origin"
          }, target)
        }
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))

    it.effect("GET /api/v1 is derived from the contract too", () =>
      Effect.gen(function*() {
        const res = yield* HttpClient.get("/api/v1")
        assert.deepStrictEqual(yield* res.json, JSON.parse(JSON.stringify(indexBody)))
      }))
  })
})
