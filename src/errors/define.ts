import { Data } from "effect"

/** Which table of SPEC.md's Errors section a code belongs to. */
export type ErrorGroup = "setup" | "sources" | "compliance" | "portal" | "agents"

/** The fixed facts of one registry code. */
export interface ErrorSpec {
  readonly group: ErrorGroup
  /** Default message; an instance may carry a more specific one. */
  readonly message: string
  /** How to get past it; `null` where there is nothing to do (e.g. `PORTAL_NOT_INSTALLED`). */
  readonly fix: string | null
  /** HTTP status when the read API answers with this code. */
  readonly status: number
  /** Process exit code: 1 for every registry error, 2 for usage errors. */
  readonly exitCode: 1 | 2
  /** `false` for codes of the agent surface / read API only (not in the CLI registry). */
  readonly cli: boolean
}

/** What a caller may add when raising a registry error. */
export interface ErrorInput {
  readonly message?: string
  readonly fix?: string
  readonly param?: string
  readonly details?: unknown
  /**
   * The input's shape is wrong (a missing, extra or malformed argument), not the catalog's state:
   * the process exits 2 (usage) while the code stays the command's own (e.g. CLASSIFY_INPUT_INVALID).
   */
  readonly usage?: boolean
}

/** The JSON body every surface prints: `{ error: { code, message, fix?, param? } }`. */
export interface ErrorBody {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly fix?: string
    readonly param?: string
    readonly details?: unknown
  }
}

/** Base shape shared by every registry error. */
export interface CatalogErrorShape {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly fix: string | null
  readonly param: string | undefined
  readonly details: unknown
  readonly spec: ErrorSpec
  /** 2 when the input's shape was wrong (usage), else the registry's exit code. */
  readonly exitCode: 1 | 2
}

/**
 * Defines one tagged error class for one registry code. Every class carries its code, message, fix,
 * HTTP status and exit code, so a typed failure turns into `error.code` on every surface unchanged.
 */
export const defineError = <const Tag extends string, const Code extends string>(
  tag: Tag,
  code: Code,
  spec: ErrorSpec
) => {
  class RegistryError extends Data.TaggedError(tag)<{ readonly input: ErrorInput }> implements CatalogErrorShape {
    static readonly code: Code = code
    static readonly spec: ErrorSpec = spec
    readonly code: Code = code
    readonly spec: ErrorSpec = spec
    constructor(input: ErrorInput = {}) {
      super({ input })
    }
    override get message(): string {
      return this.input.message ?? spec.message
    }
    get fix(): string | null {
      return this.input.fix ?? spec.fix
    }
    get param(): string | undefined {
      return this.input.param
    }
    get details(): unknown {
      return this.input.details
    }
    get exitCode(): 1 | 2 {
      return this.input.usage === true ? 2 : spec.exitCode
    }
  }
  return RegistryError
}
