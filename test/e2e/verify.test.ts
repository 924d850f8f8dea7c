/**
 * `catalog verify` end to end with real processes: the built CLI (dist/bin.js) over a SQLite source, a
 * portal started as `catalog admin serve` (SQLite store), a machine paired through the claim page, and a
 * licence issued with `catalog admin licence issue`. Signing is a human act: verify refuses off a TTY, with
 * --non-interactive and under CI=1 even on a pseudo-terminal (CONFIRM_REQUIRED, nothing sealed); on a
 * pseudo-terminal (`script`) a human answers its questions and the record is sealed: the artifacts are stored
 * under .catalog/sealed/<sealId>/ and verify with the real `openssl` against signing-key.pem, `status
 * --json` says sealed with the signer, the change-log says who sealed, and `seal pull` finds it stored.
 */
import { execFileSync, spawn } from "node:child_process"
import { generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { request } from "../programs/portal/harness.js"
import { baseEnv, binPath, type CliResult, tempProject, writeFile } from "../utils/cli.js"
import { type PortalProcess, runCliAsync, startPortalProcess } from "../utils/portalProcess.js"

interface ErrorJson {
  readonly error: { readonly code: string; readonly message: string; readonly fix?: string }
}
const errorOf = (r: CliResult) => (r.json as ErrorJson).error

/** Runs the CLI on a pseudo-terminal, answering each prompt (matched by its text) with one key. */
const onTerminal = (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string>,
  answers: ReadonlyArray<readonly [string, string]>
) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const quote = (a: string) => `'${a.replace(/'/g, "'\\''")}'`
    const cmd = [process.execPath, binPath, ...args].map(quote).join(" ")
    const child = spawn("script", ["-qec", cmd, "/dev/null"], {
      cwd,
      env: baseEnv(env),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let out = ""
    const answered = new Set<number>()
    const onData = (d: Buffer) => {
      out += d.toString()
      answers.forEach(([prompt, key], i) => {
        if (!answered.has(i) && out.includes(prompt)) {
          answered.add(i)
          setTimeout(() => child.stdin.write(key), 200)
        }
      })
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("close", (code) => resolve({ code: code ?? -1, out }))
  })

const hasScript = fs.existsSync("/usr/bin/script")
const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"])
    return true
  } catch {
    return false
  }
})()

describe("catalog verify end to end (portal process on sqlite)", () => {
  const project = tempProject("ldc-verify-")
  const workspace = path.join(project.dir, "workspace")
  const portalCwd = path.join(project.dir, "portal")
  const dbFile = path.join(workspace, "app.db")
  let portal: PortalProcess
  let portalEnv: Record<string, string> = {}
  let token = ""
  let claimId = ""
  let licence = ""

  const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    runCliAsync(args, workspace, { APP_DB: dbFile, ...env })
  const paired = (extra: Record<string, string> = {}) => ({
    APP_DB: dbFile,
    CATALOG_PORTAL_URL: portal.info.url,
    CATALOG_SYNC_TOKEN: token,
    CATALOG_LICENCE_KEY: licence,
    CATALOG_SIGNER_NAME: "Ada Lovelace",
    CATALOG_SIGNER_ROLE: "Data Protection Officer",
    CATALOG_SIGNER_EMAIL: "ada@acme.example",
    ...extra
  })
  const sealPulled = () =>
    request(portal.info.url, "/api/portal/v1/sync/seal", { headers: { "x-catalog-sync-token": token } })

  beforeAll(async () => {
    fs.mkdirSync(workspace)
    fs.mkdirSync(portalCwd)
    const db = new DatabaseSync(dbFile)
    db.exec("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, email TEXT, full_name TEXT)")
    db.close()
    writeFile(
      workspace,
      "catalog.yml",
      "controller: { name: Acme GmbH, contact: privacy@acme.example }\nsources:\n  - { id: app, kind: sqlite, driver: node:sqlite, connectionRef: APP_DB, region: eu-west-1 }\n"
    )
    const { privateKey } = generateKeyPairSync("ed25519")
    const signing = path.join(portalCwd, "signing.pem")
    fs.writeFileSync(signing, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 })
    portalEnv = {
      CATALOG_PORTAL_SIGNING_KEY: signing,
      CATALOG_PORTAL_HOME: path.join(portalCwd, "home"),
      CATALOG_DEV_MODE: "1"
    }
    portal = await startPortalProcess(portalCwd, portalEnv)
    const start = await cli(["start", "--json"])
    expect(start.code, start.stderr).toBe(0)
    const invite = await cli(["invite", "--unbound", "--yes", "--json"], { CATALOG_PORTAL_URL: portal.info.url })
    expect(invite.code, invite.stderr).toBe(0)
    const claimPath = new URL((invite.json as { claimUrl: string }).claimUrl).pathname
    claimId = (invite.json as { claimId: string }).claimId
    const opened = await request(portal.info.url, `${claimPath}/open`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.info.url },
      body: ""
    })
    expect(opened.status).toBe(303)
    const session = opened.headers["set-cookie"]![0]!.split(";")[0]!
    const page = await request(portal.info.url, `${claimPath}/sync-tokens`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: portal.info.url, cookie: session },
      body: "label=verify-e2e"
    })
    token = /CATALOG_SYNC_TOKEN=(sync_[A-Za-z0-9_-]+)/.exec(page.body)![1]!
    const issued = await runCliAsync(["admin", "licence", "issue", claimId, "--json"], portalCwd, portalEnv)
    expect(issued.code, issued.stderr).toBe(0)
    licence = (issued.json as { key: string }).key
    expect(licence).toMatch(/^lic_/)
  }, 120_000)

  afterAll(async () => {
    await portal?.stop()
    project.cleanup()
  })

  it("refuses off a terminal, with --non-interactive and under CI (CONFIRM_REQUIRED); nothing is sealed", async () => {
    const piped = await cli(["verify", "--json"], paired())
    expect(piped.code).toBe(1)
    expect(errorOf(piped).code).toBe("CONFIRM_REQUIRED")
    expect(errorOf(piped).message).toContain("human act")
    expect(errorOf(piped).message).toContain("No flag turns that off")
    const flagged = await cli(["verify", "--non-interactive", "--seal-with-open-calls", "--json"], paired())
    expect(errorOf(flagged).code).toBe("CONFIRM_REQUIRED")
    const ci = await cli(["verify", "--json"], paired({ CI: "1" }))
    expect(errorOf(ci).code).toBe("CONFIRM_REQUIRED")
    if (hasScript) {
      // A pseudo-terminal does not help under CI, nor with --non-interactive.
      const ciTty = await onTerminal(["verify"], workspace, paired({ CI: "1" }), [])
      expect(ciTty.out).toContain("CONFIRM_REQUIRED")
      expect(ciTty.code).toBe(1)
      const flagTty = await onTerminal(["verify", "--non-interactive"], workspace, paired(), [])
      expect(flagTty.out).toContain("CONFIRM_REQUIRED")
    }
    expect((await sealPulled()).status).toBe(404)
    expect(fs.existsSync(path.join(workspace, ".catalog", "sealed"))).toBe(false)
  }, 60_000)

  it.skipIf(!hasScript)(
    "on a terminal: OPEN_LEGAL_CALLS without the flag; a 'no' at the end seals nothing",
    async () => {
      const open = await onTerminal(["verify"], workspace, paired(), [])
      expect(open.out).toContain("OPEN_LEGAL_CALLS")
      expect(open.out).toContain("--seal-with-open-calls")
      expect(open.code).toBe(1)
      const no = await onTerminal(["verify", "--seal-with-open-calls"], workspace, paired(), [
        ["Seal with these calls open", "y"],
        ["Sign and seal this record now?", "n"]
      ])
      expect(no.out).toContain("About to seal the official record")
      expect(no.out).toContain("CONFIRM_REQUIRED")
      expect(no.code).toBe(1)
      expect((await sealPulled()).status).toBe(404)
    },
    60_000
  )

  it.skipIf(!hasScript)(
    "on a terminal, a human seals: artifacts stored and verifiable with openssl, status sealed",
    async () => {
      const r = await onTerminal(["verify", "--seal-with-open-calls"], workspace, paired(), [
        ["Seal with these calls open", "y"],
        ["Sign and seal this record now?", "y"]
      ])
      expect(r.code, r.out).toBe(0)
      expect(r.out).toContain("Ada Lovelace (Data Protection Officer)")
      expect(r.out).toMatch(/Sealed.*seal_/)
      const sealedRoot = path.join(workspace, ".catalog", "sealed")
      const ids = fs.readdirSync(sealedRoot)
      expect(ids).toHaveLength(1)
      const dir = path.join(sealedRoot, ids[0]!)
      const files = fs.readdirSync(dir).sort()
      expect(files).toEqual(expect.arrayContaining([
        "manifest.json",
        "manifest.json.sig",
        "ropa.html",
        "ropa.html.sig",
        "ropa.json",
        "ropa.json.sig",
        "signing-key.pem"
      ]))
      expect(fs.statSync(path.join(dir, "ropa.json.sig")).size).toBe(64)
      // The pinned key is what the portal publishes.
      const published = await request(portal.info.url, "/api/portal/v1/signing-key")
      expect(fs.readFileSync(path.join(dir, "signing-key.pem"), "utf8").trim()).toBe(published.body.trim())
      if (hasOpenssl) {
        for (const f of ["ropa.json", "ropa.html", "manifest.json"]) {
          const out = execFileSync("openssl", [
            "pkeyutl",
            "-verify",
            "-pubin",
            "-inkey",
            "signing-key.pem",
            "-rawin",
            "-in",
            f,
            "-sigfile",
            `${f}.sig`
          ], { cwd: dir }).toString()
          expect(out).toContain("Signature Verified Successfully")
        }
      }
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as {
        signer: { name: string }
        acknowledgedOpenCalls: ReadonlyArray<unknown>
      }
      expect(manifest.signer.name).toBe("Ada Lovelace")
      expect(manifest.acknowledgedOpenCalls.length).toBeGreaterThan(0)

      const status = await cli(["status", "--json"])
      expect(status.code, status.stderr).toBe(0)
      const s = status.json as {
        seal: string
        sealInfo: {
          state: string
          reason: string | null
          last: { id: string; signer: { name: string; role: string }; licence: { claimId: string; state: string } }
        }
      }
      expect(s.seal).toBe("sealed")
      expect(s.sealInfo.state).toBe("sealed")
      expect(s.sealInfo.reason).toBeNull()
      expect(s.sealInfo.last.id).toBe(ids[0])
      expect(s.sealInfo.last.signer).toMatchObject({ name: "Ada Lovelace", role: "Data Protection Officer" })
      expect(s.sealInfo.last.licence).toMatchObject({ claimId, state: "active" })
      const human = await cli(["status"])
      expect(human.stdout).toMatch(
        /Record: .*SEALED.* by Ada Lovelace \(Data Protection Officer\) on \d{4}-\d{2}-\d{2}, licence until \d{4}-/
      )
      const provenance = await cli(["provenance", "--json"])
      expect((provenance.json as { seal: string }).seal).toBe("sealed")
      const log = await cli(["log", "--json"])
      expect(log.stdout).toContain("sealed by Ada Lovelace (Data Protection Officer)")

      // `evidence` carries the sealed artifacts under sealed/ with their fingerprints; --verify recomputes them.
      const ev = await cli(["evidence", "--out", "ev", "--json"])
      expect(ev.code, ev.stderr).toBe(0)
      const evManifest = ev.json as { seal: string; artifacts: ReadonlyArray<{ file: string; sha256: string }> }
      expect(evManifest.seal).toBe("sealed")
      const sealedInEvidence = evManifest.artifacts.map((a) => a.file).filter((f) => f.startsWith("sealed/"))
      expect(sealedInEvidence).toEqual(expect.arrayContaining([
        "sealed/ropa.json",
        "sealed/ropa.json.sig",
        "sealed/manifest.json",
        "sealed/signing-key.pem"
      ]))
      expect(fs.readFileSync(path.join(workspace, "ev", "sealed", "ropa.json"))).toEqual(
        fs.readFileSync(path.join(dir, "ropa.json"))
      )
      const evVerify = await cli(["evidence", "--verify", "ev", "--json"])
      expect(evVerify.code, evVerify.stderr).toBe(0)
      fs.appendFileSync(path.join(workspace, "ev", "sealed", "ropa.json"), " ")
      const evTampered = await cli(["evidence", "--verify", "ev", "--json"])
      expect(errorOf(evTampered).code).toBe("EVIDENCE_HASH_MISMATCH")
      expect(errorOf(evTampered).message).toContain("sealed/ropa.json")

      // The portal has it too; `seal pull` finds it already stored (same id, nothing rewritten).
      expect((await sealPulled()).status).toBe(200)
      const pull = await cli(["seal", "pull", "--json"], paired())
      expect(pull.code, pull.stderr).toBe(0)
      expect(pull.json).toMatchObject({ sealId: ids[0], stored: false })

      // A second machine paired with the same claim: its first push pulls the seal the portal reports,
      // verified against the key it just pinned; its status is sealed too.
      const second = path.join(project.dir, "second")
      fs.mkdirSync(second)
      fs.copyFileSync(path.join(workspace, "catalog.yml"), path.join(second, "catalog.yml"))
      const scan2 = await runCliAsync(["start", "--json"], second, { APP_DB: dbFile })
      expect(scan2.code, scan2.stderr).toBe(0)
      const push2 = await runCliAsync(["push", "--json"], second, { ...paired(), CATALOG_LICENCE_KEY: "" })
      expect(push2.code, push2.stderr).toBe(0)
      expect((push2.json as { seal: unknown }).seal).toEqual({ status: "pulled", sealId: ids[0] })
      expect(fs.readFileSync(path.join(second, ".catalog", "sealed", ids[0]!, "ropa.json"))).toEqual(
        fs.readFileSync(path.join(dir, "ropa.json"))
      )
      const status2 = await runCliAsync(["status", "--json"], second, { APP_DB: dbFile })
      expect(status2.json as { seal: string; sealInfo: { last: { id: string } } }).toMatchObject({
        seal: "sealed",
        sealInfo: { last: { id: ids[0] } }
      })
    },
    90_000
  )
})
