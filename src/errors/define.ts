import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { type Cause, Data, Schema, SchemaAST } from "effect"
import { pipeArguments } from "effect/Pipeable"

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

/** One registry error: a tagged error (yieldable, caught by its tag) whose `code` is its literal code. */
export interface RegistryError<Tag extends string, Code extends string>
  extends Cause.YieldableError, CatalogErrorShape
{
  readonly _tag: Tag
  readonly code: Code
  readonly message: string
}

/**
 * A registry error class. It is its own Schema (built on first use): the type side is the instance, the
 * encoded side the error envelope, so every surface (CLI, MCP, HTTP and the OpenAPI document) encodes it
 * through the class itself. It carries its HTTP status as an `HttpApiSchema` annotation.
 */
export interface RegistryErrorClass<Self, Tag extends string, Code extends string>
  extends Schema.Schema<Self, ErrorEnvelope<Code>>
{
  new(input?: ErrorInput): RegistryError<Tag, Code>
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

/** An error's fields as its body carries them, in the body's order: a `fix` of `null` and absent fields left out. */
const bodyFields = (e: {
  readonly message: string
  readonly fix: string | null
  readonly param?: string | undefined
  readonly details?: unknown
}) => ({
  message: e.message,
  ...(e.fix !== null ? { fix: e.fix } : {}),
  ...(e.param !== undefined ? { param: e.param } : {}),
  ...(e.details !== undefined ? { details: e.details } : {})
})

/** What marks a value as a Schema (`Schema.isSchema`); a registry class is one, its parts built lazily. */
const variance = { _A: (_: never) => _, _I: (_: never) => _, _R: (_: never) => _ }

/** Every registry class, in the order defined (the registry is derived from this one list). */
export const definedErrors: ReadonlyArray<AnyRegistryErrorClass> = defined

// The body's fields every registry error shares on the wire, built once. `fix` is omitted where the
// instance has none (`null`: the class's transformation maps the two).
const sharedFields = {
  message: Schema.String,
  fix: Schema.optional(Schema.String),
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
  // The class's Schema is built on first use (HttpApi, an encoded body, a decode): a start-up makes ~70
  // classes and reads none of their Schemas unless it prints an error. Kept per class: the one the
  // registry exports (`class X extends defineError…`), which decoding makes.
  const wire = new WeakMap<object, SchemaAST.Transformation>()
  const encoders = new WeakMap<object, (e: Base) => ErrorEnvelope<Code>>()

  /** The instance's fields (the body's): what decoding an envelope gives the constructor. */
  interface Fields {
    readonly code: Code
    readonly message: string
    readonly fix: string | null
    readonly param?: string
    readonly details?: unknown
  }

  class Base extends Data.TaggedError(tag)<Fields> {
    static readonly _tag = tag
    static readonly code = code
    static readonly spec = spec
    static readonly [Schema.TypeId] = variance
    static readonly Type: Base
    static readonly Encoded: ErrorEnvelope<Code>
    static readonly Context: never
    /**
     * The wire form: the error envelope (the flat fields' encoded side, identified `<Tag>Error`) ↔ an
     * instance of this class, with the HTTP status (and the response's description) that HttpApi reads.
     */
    static get ast(): SchemaAST.Transformation {
      return wire.get(this) ?? wireOf(this)
    }
    static annotations(annotations: Schema.Annotations.GenericSchema<Base>) {
      return Schema.make<Base, ErrorEnvelope<Code>, never>(this.ast).annotations(annotations)
    }
    static pipe() {
      // eslint-disable-next-line prefer-rest-params
      return pipeArguments(this, arguments)
    }
    static override toString() {
      return `${tag}`
    }

    /** 2 when raised for a usage problem. */
    readonly usage: boolean
    constructor(input: ErrorInput | Fields = {}) {
      const { usage, ...props } = input as ErrorInput
      // The registry's message and fix unless given (a decoded body gives `fix: null` where it has none).
      super({
        ...props,
        code,
        message: props.message ?? spec.message,
        fix: props.fix !== undefined ? props.fix : spec.fix
      } as Fields)
      this.usage = usage === true
    }
    get spec(): ErrorSpec {
      return spec
    }
    get exitCode(): 1 | 2 {
      return this.usage ? 2 : spec.exitCode
    }
    get input(): ErrorInput {
      return { ...bodyFields(this), ...(this.usage ? { usage: true } : {}) }
    }
    get body(): ErrorBody {
      const Self = this.constructor
      let encode = encoders.get(Self)
      if (encode === undefined) {
        encode = Schema.encodeSync(Self as unknown as Schema.Schema<Base, ErrorEnvelope<Code>>)
        encoders.set(Self, encode)
      }
      return encode(this)
    }
  }

  /**
   * The wire form of class `Self`: the error envelope (the flat fields' encoded side, identified
   * `<Tag>Error`) ↔ an instance of `Self`, with the HTTP status (and the response's description) that
   * HttpApi reads.
   */
  const wireOf = (Self: typeof Base): SchemaAST.Transformation => {
    const fields = { code: Schema.Literal(code), ...sharedFields }
    const Envelope = Schema.Struct({ error: Schema.Struct(fields) }).annotations({
      identifier: `${tag}Error`
    })
    const Instance = Schema.declare((u): u is Base => u instanceof Self, { identifier: tag })
    const { ast } = Schema.transform(Envelope, Instance, {
      strict: true,
      decode: ({ error }) =>
        new Self({
          code,
          message: error.message,
          fix: error.fix ?? null,
          ...(error.param !== undefined ? { param: error.param } : {}),
          ...(error.details !== undefined ? { details: error.details } : {})
        }),
      encode: (e) => ({ error: { code, ...bodyFields(e) } })
    }).annotations(HttpApiSchema.annotations({ status: spec.status, description: `${code}: ${spec.message}` }))
    if (!SchemaAST.isTransformation(ast)) throw new Error("Schema.transform built no Transformation")
    wire.set(Self, ast)
    return ast
  }
  // The one widening: the class's schema is the envelope transformation its `ast` getter builds.
  const Registered = Base as unknown as RegistryErrorClass<Self, Tag, Code>
  defined.push(Registered)
  return Registered
}
