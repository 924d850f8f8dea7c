import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { type Cause, Option, Schema, SchemaAST } from "effect"

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

/** How one registry code is declared: its code and spec (exit code 1 and `cli: true` unless said otherwise). */
export interface ErrorDefinition<Code extends string>
  extends Omit<ErrorSpec, "exitCode" | "cli">, Partial<Pick<ErrorSpec, "exitCode" | "cli">>
{
  readonly code: Code
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

/** The error envelope of one code, as every surface prints it: `{ error: { code, message, fix?, param?, details? } }`. */
export interface ErrorEnvelope<Code extends string = string> {
  readonly error: {
    readonly code: Code
    readonly message: string
    readonly fix?: string
    readonly param?: string
    readonly details?: unknown
  }
}

/** The JSON body every surface prints: `{ error: { code, message, fix?, param? } }`. */
export type ErrorBody = ErrorEnvelope

/** Base shape shared by every registry error. */
export interface CatalogErrorShape {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly fix: string | null
  readonly param?: string | undefined
  readonly details?: unknown
  readonly spec: ErrorSpec
  /** 2 when the input's shape was wrong (usage), else the registry's exit code. */
  readonly exitCode: 1 | 2
  /** What it was raised with, enough to raise it again (e.g. with a redacted message). */
  readonly input: ErrorInput
  /** The instance in its wire form: the one error body of every surface. */
  readonly body: ErrorBody
}

/** One registry error: a Schema tagged error whose `code` is its literal code. */
export interface RegistryError<Tag extends string, Code extends string>
  extends Cause.YieldableError, CatalogErrorShape
{
  readonly _tag: Tag
  readonly code: Code
  readonly message: string
}

/**
 * A registry error class. It is its own Schema: the type side is the instance, the encoded side the
 * error envelope, so every surface (CLI, MCP, HTTP and the OpenAPI document) encodes it through the
 * class itself. It carries its HTTP status as an `HttpApiSchema` annotation.
 */
export interface RegistryErrorClass<Self, Tag extends string, Code extends string>
  extends Schema.Schema<Self, ErrorEnvelope<Code>>
{
  new(input?: ErrorInput, options?: Schema.MakeOptions): RegistryError<Tag, Code>
  readonly ast: SchemaAST.Transformation
  readonly _tag: Tag
  readonly code: Code
  readonly spec: ErrorSpec
}

/** Any registry error class. */
export interface AnyRegistryErrorClass extends Schema.Schema.AnyNoContext {
  new(input?: ErrorInput): CatalogErrorShape
  readonly code: string
  readonly spec: ErrorSpec
}

const defined: Array<AnyRegistryErrorClass> = []

/** Every registry class, in the order defined (the registry is derived from this one list). */
export const definedErrors: ReadonlyArray<AnyRegistryErrorClass> = defined

// The fields every registry error shares, built once (a registry class is made at start-up for each of
// the ~70 codes: what is not per code must not be rebuilt per code). Message and fix default to the
// registry's in the constructor.
/** `fix` on the wire is omitted where the instance has none (`null`). */
const fixField = Schema.optionalToRequired(Schema.String, Schema.NullOr(Schema.String), {
  decode: Option.getOrNull,
  encode: Option.fromNullable
})
const sharedFields = {
  message: Schema.String,
  fix: fixField,
  param: Schema.optional(Schema.String.annotations({ description: "the request parameter at fault" })),
  details: Schema.optional(Schema.Unknown)
}

/**
 * Defines the tagged error class of one registry code:
 *
 * ```ts
 * export class ConfigNotFound extends defineError<ConfigNotFound>()("ConfigNotFound", {
 *   code: "CONFIG_NOT_FOUND", group: "setup", status: 404, message: "…", fix: "…"
 * }) {}
 * ```
 *
 * The instance's fields are the body's (`code`, `message`, `fix`, `param`, `details`); message and
 * fix default to the registry's. The class registers itself in `definedErrors`.
 */
export const defineError = <Self = never>() =>
<const Tag extends string, const Code extends string>(
  tag: Tag,
  definition: ErrorDefinition<Code>
): RegistryErrorClass<Self, Tag, Code> => {
  const { code } = definition
  const spec: ErrorSpec = {
    group: definition.group,
    message: definition.message,
    fix: definition.fix,
    status: definition.status,
    exitCode: definition.exitCode ?? 1,
    cli: definition.cli ?? true
  }
  const fields = { code: Schema.tag(code), ...sharedFields }
  const wire = new WeakMap<object, SchemaAST.Transformation>()
  // Built on first use (an error body is encoded only when an error is printed).
  let encode: ((e: Base) => ErrorEnvelope<Code>) | undefined

  // The HTTP status (and the response's description) ride on the class's transformation, which
  // HttpApi reads through the envelope below.
  class Base extends Schema.TaggedError<Base>()(tag, fields, [
    {},
    HttpApiSchema.annotations({ status: spec.status, description: `${code}: ${spec.message}` })
  ]) {
    static readonly code = code
    static readonly spec = spec
    // Schema.TaggedError always encodes its `_tag`; a registry error's wire form is the envelope,
    // so the class's schema is its own tagged schema (`super.ast`) behind the envelope.
    static override get ast(): SchemaAST.Transformation {
      const cached = wire.get(this)
      if (cached !== undefined) return cached
      // The envelope is the encoded side of the flat fields, without the class's `_tag`.
      const Envelope = Schema.Struct({ error: Schema.encodedSchema(Schema.Struct(fields)) }).annotations({
        identifier: `${tag}Error`
      })
      const tagged = Schema.make<Base, Schema.Struct.Encoded<typeof fields> & { readonly _tag: Tag }>(super.ast)
      const { ast } = Schema.transform(Envelope, tagged, {
        strict: true,
        decode: ({ error }) => ({ ...error, _tag: tag }),
        encode: ({ _tag, ...error }) => ({ error })
      })
      if (!SchemaAST.isTransformation(ast)) throw new Error("Schema.transform built no Transformation")
      wire.set(this, ast)
      return ast
    }

    /** 2 when raised for a usage problem. */
    readonly usage: boolean
    constructor(input: ErrorInput = {}, options?: Schema.MakeOptions) {
      const { usage, ...props } = input
      // The registry's message and fix unless given (a decoded body gives `fix: null` where it has none).
      super({
        ...props,
        message: props.message ?? spec.message,
        fix: props.fix !== undefined ? props.fix : spec.fix
      }, options)
      this.usage = usage === true
    }
    get spec(): ErrorSpec {
      return spec
    }
    get exitCode(): 1 | 2 {
      return this.usage ? 2 : spec.exitCode
    }
    get input(): ErrorInput {
      return {
        message: this.message,
        ...(this.fix !== null ? { fix: this.fix } : {}),
        ...(this.param !== undefined ? { param: this.param } : {}),
        ...(this.details !== undefined ? { details: this.details } : {}),
        ...(this.usage ? { usage: true } : {})
      }
    }
    get body(): ErrorBody {
      encode ??= Schema.encodeSync(Registered as unknown as Schema.Schema<Base, ErrorEnvelope<Code>>)
      return encode(this)
    }
  }
  // The one widening: the class's schema is the envelope transformation its `ast` getter builds.
  const Registered = Base as unknown as RegistryErrorClass<Self, Tag, Code>
  defined.push(Registered)
  return Registered
}
