import { describe, expect, it } from "vitest"
import {
  cliRegistry,
  errorClasses,
  InvalidParam,
  registry,
  SourceUnreachable,
  toErrorBody
} from "../../src/errors/index.js"

/** Every code of SPEC.md's Errors tables, copied here so that a rename fails this test. */
export const specCodes = [
  "NODE_VERSION_UNSUPPORTED",
  "CONFIG_NOT_FOUND",
  "CONFIG_INVALID",
  "CONFIG_INPUT_INVALID",
  "PORT_IN_USE",
  "SCHEMA_MIGRATION_REQUIRED",
  "DATA_KEY_INVALID",
  "CONFIRM_REQUIRED",
  "NO_SOURCES",
  "NO_SOURCE_DETECTED",
  "ADD_INPUT_INVALID",
  "CONNECTOR_INPUT_INVALID",
  "CONNECTOR_EXISTS",
  "SOURCE_NOT_FOUND",
  "SOURCE_UNREACHABLE",
  "SECRET_UNRESOLVED",
  "SECRET_PLACEHOLDER_UNREPLACED",
  "DRIVER_MISSING",
  "MAP_NOT_FOUND",
  "STALE_CATALOG",
  "ROPA_INPUT_INVALID",
  "SIGNER_REQUIRED",
  "SIGNER_NAME_REQUIRED",
  "CONTROLLER_REQUIRED",
  "ROPA_NONE_UNCONFIRMED",
  "OPEN_LEGAL_CALLS",
  "ROPA_CONFIRM_UNATTRIBUTED",
  "DORA_INPUT_INVALID",
  "DORA_NOT_SUBMITTABLE",
  "TERMS_NOT_ACCEPTED",
  "CLASSIFY_INPUT_INVALID",
  "DESCRIBE_ENTITY_UNKNOWN",
  "LINEAGE_ENDPOINT_UNKNOWN",
  "LINEAGE_EDGE_NOT_REMOVABLE",
  "GLOSSARY_TERM_UNKNOWN",
  "CATALOG_FILE_INVALID",
  "CATALOG_VERSION_UNSUPPORTED",
  "EVIDENCE_HASH_MISMATCH",
  "INVITE_NOT_FOUND",
  "UPLOAD_NOT_CONFIRMED",
  "INVITE_RECIPIENT_REQUIRED",
  "PORTAL_UNREACHABLE",
  "PORTAL_NOT_INSTALLED",
  "PORTAL_NOT_READY",
  "INGEST_UNAUTHORIZED",
  "INGEST_RATE_LIMITED",
  "SNAPSHOT_TOO_LARGE",
  "SYNC_FAILED",
  "SYNC_MISCONFIGURED",
  "SYNC_UNAUTHORIZED",
  "CLAIM_NOT_SYNCABLE",
  "WEBHOOK_FAILED",
  "DORA_PULL_FAILED",
  "SEAL_PULL_FAILED",
  "LICENCE_MISSING",
  "LICENCE_INVALID",
  "LICENCE_EXPIRED",
  "LICENCE_REVOKED",
  "LICENCE_TENANT_MISMATCH",
  "CLAIM_NOT_FOUND",
  "MAIL_NOT_CONFIGURED",
  "ADMIN_INPUT_INVALID",
  "ADMIN_NOT_CONFIRMED",
  "ADMIN_ENV_INCOMPLETE",
  "INVALID_PARAM",
  "DATASET_NOT_FOUND",
  "ENDPOINT_NOT_FOUND"
]

/**
 * Codes this tool adds to SPEC.md's (codes are only ever added): each names a refusal SPEC.md describes
 * without a code. Listed in `help --json` and docs/commands.md like every code.
 */
export const addedCodes = [
  "CATALOG_ONLY" // invite refuses to upload while catalog-only is on (SPEC.md "What the service does" 7, issue 11)
]

describe("error registry", () => {
  it("holds exactly the codes of SPEC.md and the documented additions, each once", () => {
    const codes = registry.map((e) => e.code)
    expect(new Set(codes).size).toBe(codes.length)
    expect([...codes].sort()).toEqual([...specCodes, ...addedCodes].sort())
  })

  it("leaves DATASET_NOT_FOUND and ENDPOINT_NOT_FOUND out of the CLI registry", () => {
    expect(cliRegistry.map((e) => e.code).sort()).toEqual(
      [...specCodes, ...addedCodes].filter((c) => c !== "DATASET_NOT_FOUND" && c !== "ENDPOINT_NOT_FOUND").sort()
    )
  })

  it("gives every code a message, and a fix wherever one exists", () => {
    for (const e of registry) {
      expect(e.message.length, e.code).toBeGreaterThan(10)
      if (e.code !== "PORTAL_NOT_INSTALLED") expect(e.fix?.length ?? 0, e.code).toBeGreaterThan(10)
    }
  })

  it("uses one tag per class and exit code 2 only for usage", () => {
    const tags = errorClasses.map((c) => new c()._tag)
    expect(new Set(tags).size).toBe(tags.length)
    expect(registry.filter((e) => e.exitCode === 2).map((e) => e.code)).toEqual(["INVALID_PARAM"])
  })

  it("renders the one error body, with instance details over defaults", () => {
    expect(toErrorBody(new SourceUnreachable({ message: "pg down", fix: "check 127.0.0.1:5432" }))).toEqual({
      error: { code: "SOURCE_UNREACHABLE", message: "pg down", fix: "check 127.0.0.1:5432" }
    })
    const body = toErrorBody(new InvalidParam({ param: "limit" }))
    expect(body.error.code).toBe("INVALID_PARAM")
    expect(body.error.param).toBe("limit")
    expect(body.error.fix).toBeTruthy()
  })
})
