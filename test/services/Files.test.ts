/**
 * The path checks are written against the `Files` interface only: over a file system that exists
 * nowhere but in this test, they turn what it says into the caller's registry error with the same
 * words as on a real disk — and an empty path is refused before the file system is asked anything.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  FileError,
  Files,
  outputFileTarget,
  outputFolderTarget,
  type PathProbe,
  readUserFile,
  userFolder,
  writePrivate
} from "../../src/services/Files.js"

/** A file system where only the listed paths exist (every other path is missing). */
const disk = (paths: Record<string, PathProbe>) =>
  Layer.mock(Files, {
    probe: (p) => Effect.succeed(paths[p] ?? { kind: "missing", size: 0 }),
    checkWritable: (dir) =>
      dir === "/ro" ? Effect.fail(new FileError({ reason: "the file system is read-only" })) : Effect.void,
    readDirectory: () => Effect.succeed(["a.json"]),
    readRegularFile: (p) =>
      p === "/work/dict.csv"
        ? Effect.succeed("table,column\n")
        : Effect.fail(new FileError({ reason: "does not exist" })),
    writePrivateFile: () => Effect.fail(new FileError({ reason: "the disk is full" }))
  })

const dir: PathProbe = { kind: "directory", size: 0 }
const file: PathProbe = { kind: "file", size: 10 }
const o = { flag: "--out", what: "a folder for the package", refuse: (message: string) => message }

describe("path checks over the Files interface", () => {
  it.effect("an output folder: a pipe, a file, a read-only place or an existing folder", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* Effect.flip(outputFolderTarget("/work", "fifo", o)),
        "fifo is not a folder (it is a pipe, socket or device); --out needs a folder for the package."
      )
      assert.strictEqual(
        yield* Effect.flip(outputFolderTarget("/work", "notes.txt", o)),
        "notes.txt is a file, not a folder; --out needs a folder for the package."
      )
      // A missing folder is created later: the nearest folder above it must be writable.
      assert.strictEqual(
        yield* Effect.flip(outputFolderTarget("/work", "/ro/new/out", o)),
        "/ro/new/out cannot be written: no write access to /ro (the file system is read-only)."
      )
      assert.deepStrictEqual(yield* outputFolderTarget("/work", "out", o), {
        path: "/work/out",
        exists: true,
        entries: ["a.json"]
      })
      assert.deepStrictEqual(yield* outputFolderTarget("/work", "fresh", o), {
        path: "/work/fresh",
        exists: false,
        entries: []
      })
    }).pipe(
      Effect.provide(disk({
        "/": dir,
        "/work": dir,
        "/work/out": dir,
        "/ro": dir,
        "/work/fifo": { kind: "special", size: 0 },
        "/work/notes.txt": file
      }))
    ))

  it.effect("an output file under a file, an unreachable path, a folder to read from", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* Effect.flip(outputFileTarget("/work", "notes.txt/sub/x.json", o)),
        "notes.txt/sub/x.json cannot be created: /work/notes.txt is a file, not a folder; --out needs a folder for the package."
      )
      assert.strictEqual(
        yield* Effect.flip(userFolder("/work", "locked", { ...o, flag: "--verify" })),
        "locked cannot be reached (permission denied); --verify needs a folder for the package."
      )
      assert.deepStrictEqual(yield* outputFileTarget("/work", "notes.txt", o), {
        path: "/work/notes.txt",
        exists: true
      })
    }).pipe(
      Effect.provide(disk({
        "/": dir,
        "/work": dir,
        "/work/notes.txt": file,
        "/work/locked": { kind: "unreachable", size: 0, reason: "permission denied" }
      }))
    ))

  it.effect("a file the user named: read, or refused in the file system's words; an empty path asks nothing", () =>
    Effect.gen(function*() {
      const from = { flag: "--from", what: "a data-dictionary CSV file", refuse: (message: string) => message }
      assert.deepStrictEqual(yield* readUserFile("/work", "dict.csv", from), {
        path: "/work/dict.csv",
        text: "table,column\n"
      })
      assert.strictEqual(
        yield* Effect.flip(readUserFile("/work", "gone.csv", from)),
        "gone.csv does not exist; --from needs a data-dictionary CSV file."
      )
      assert.strictEqual(
        yield* Effect.flip(writePrivate("/work/catalog.yml", "x", (message) => message)),
        "/work/catalog.yml cannot be written (the disk is full)."
      )
    }).pipe(Effect.provide(disk({}))))

  it.effect("an empty path is refused before the file system is asked anything", () =>
    Effect.gen(function*() {
      const from = { flag: "--from", what: "a data-dictionary CSV file", refuse: (message: string) => message }
      assert.strictEqual(
        yield* Effect.flip(readUserFile("/work", " ", from)),
        "--from is empty; it needs the path of a data-dictionary CSV file."
      )
      assert.strictEqual(
        yield* Effect.flip(outputFolderTarget("/work", "", o)),
        "--out is empty; it needs a folder for the package."
      )
    }).pipe(Effect.provide(Layer.mock(Files, {}))))
})
