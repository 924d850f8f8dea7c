/**
 * The read API encodes every answer through the Schemas its contract declares: a success body
 * through the route's success Schema (a value that breaks it is 500 INTERNAL_ERROR, never sent),
 * an error through the registry class itself, which the contract declares as the route's error.
 */
import { HttpApi, HttpApiSchema, HttpClient } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Option, Schema, SchemaAST } from "effect"
import type { DatasetList } from "../../../src/domain/Catalog.js"
import type { Glossary } from "../../../src/domain/Compliance.js"
import { DatasetNotFound, InvalidParam } from "../../../src/errors/index.js"
import { Api, successSchemas } from "../../../src/programs/http/Api.js"
import { ServerLive } from "../../../src/programs/http/Server.js"
import { Reader } from "../../../src/services/Reader.js"

/** Keys deliberately not in the Schema's order: the bytes keep the value's own order (the CLI's). */
const glossary: Glossary = {
  terms: [{ updatedAt: "2026-01-01T00:00:00.000Z", term: "Customer", datasets: ["app/main/x"], definition: "A buyer" }],
  truncated: false,
  total: 1,
  returned: 1
}
/** An undeclared field: TypeScript lets a non-literal object through; the contract does not. */
const withUndeclared = { returned: 0, total: 0, truncated: false, datasets: [], internalNote: "not in the contract" }
const datasets: DatasetList = withUndeclared
/** A mistyped field, as a row read without its Schema would be. */
const mistyped: Glossary = JSON.parse("{\"returned\":\"one\",\"total\":1,\"truncated\":false,\"terms\":[]}")

const serverOver = (reader: Layer.Layer<Reader>) =>
  ServerLive.pipe(Layer.provide(reader), Layer.provideMerge(NodeHttpServer.layerTest))

const ErrorBody = Schema.parseJson(
  Schema.Struct({ error: Schema.Struct({ code: Schema.String, message: Schema.String }) })
)

/** GET `path`: the status and the raw bytes. */
const get = (path: string) =>
  Effect.flatMap(HttpClient.get(path), (res) => Effect.map(res.text, (text) => ({ status: res.status, text })))

/** A response that broke its contract: 500 INTERNAL_ERROR naming the encode failure, the value not sent. */
const assertRefused = (r: { readonly status: number; readonly text: string }, leaked: string) => {
  assert.strictEqual(r.status, 500)
  const body = Schema.decodeUnknownSync(ErrorBody)(r.text)
  assert.strictEqual(body.error.code, "INTERNAL_ERROR")
  assert.include(body.error.message, "ParseError")
  assert.notInclude(r.text, leaked)
}

describe("read API: answers are encoded through the declared Schemas", () => {
  layer(serverOver(Layer.mock(Reader, { glossary: Effect.succeed(glossary), datasets: Effect.succeed(datasets) })))(
    (it) => {
      it.effect("a value that matches its success Schema is sent, with the value's own bytes", () =>
        Effect.gen(function*() {
          const r = yield* get("/api/v1/glossary")
          assert.strictEqual(r.status, 200)
          assert.strictEqual(r.text, JSON.stringify(glossary))
        }))

      it.effect("a field the success Schema does not declare fails loudly: 500, the value is not sent", () =>
        Effect.gen(function*() {
          assertRefused(yield* get("/api/v1/datasets"), "not in the contract")
        }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))
    }
  )

  layer(serverOver(Layer.mock(Reader, { glossary: Effect.succeed(mistyped) })))((it) => {
    it.effect("a mistyped field fails loudly: 500, the value is not sent", () =>
      Effect.gen(function*() {
        assertRefused(yield* get("/api/v1/glossary"), "\"one\"")
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None)))
  })

  it("every route's declared success Schema is the one its handler encodes through", () => {
    const declared = new Map<string, unknown>(Object.entries(successSchemas))
    const seen: Array<string> = []
    HttpApi.reflect(Api, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        assert.strictEqual<unknown>(endpoint.successSchema, declared.get(endpoint.name), endpoint.name)
        seen.push(endpoint.name)
      }
    })
    assert.sameMembers(seen, [...declared.keys()])
  })

  it("the registry classes themselves are the contract's error schemas, with their status", () => {
    const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => SchemaAST.isUnion(ast) ? ast.types : [ast]
    const dataset = Api.groups["catalog"]!.endpoints["dataset"]!
    assert.include(members(dataset.errorSchema.ast), DatasetNotFound.ast)
    assert.include(members(Api.errorSchema.ast), InvalidParam.ast)
    const errors = new Map<string, ReadonlyMap<number, { readonly ast: Option.Option<SchemaAST.AST> }>>()
    HttpApi.reflect(Api, { onGroup: () => {}, onEndpoint: ({ endpoint, errors: e }) => errors.set(endpoint.name, e) })
    assert.isTrue(Option.isSome(errors.get("dataset")!.get(HttpApiSchema.getStatusError(DatasetNotFound))!.ast))
    assert.strictEqual(HttpApiSchema.getStatusError(DatasetNotFound), 404)
  })
})
