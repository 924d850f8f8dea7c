/**
 * `Files` on the local disk (NodeFilesLive), through the service as the services use it: private
 * modes whatever the umask, atomic replaces that leave no temporary file, a FIFO that is probed and
 * refused without ever being opened, and failures as plain-words reasons.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { NodeFilesLive } from "../../src/layers/NodeFiles.js"
import { Files } from "../../src/services/Files.js"

const mode = (p: string): number => fs.statSync(p).mode & 0o777

/** A fresh folder (removed afterwards) under a umask that would make new files 0644 and folders 0755. */
const inTemp = <A, E>(body: (dir: string) => Effect.Effect<A, E, Files>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => ({ dir: fs.mkdtempSync(path.join(os.tmpdir(), "ldc-files-")), umask: process.umask(0o022) })),
    ({ dir }) => body(dir).pipe(Effect.provide(NodeFilesLive)),
    ({ dir, umask }) =>
      Effect.sync(() => {
        process.umask(umask)
        fs.rmSync(dir, { recursive: true, force: true })
      })
  )

describe("NodeFilesLive", () => {
  it.effect("writes a file 0600 in new folders 0700, replaces it whole and leaves no temporary file", () =>
    inTemp((dir) =>
      Effect.gen(function*() {
        const files = yield* Files
        const file = path.join(dir, "a", "b", "out.json")
        yield* files.writePrivateFile(file, "first\n")
        assert.strictEqual(fs.readFileSync(file, "utf8"), "first\n")
        assert.strictEqual(mode(file), 0o600)
        assert.strictEqual(mode(path.join(dir, "a")), 0o700)
        assert.strictEqual(mode(path.join(dir, "a", "b")), 0o700)
        fs.chmodSync(file, 0o644)
        yield* files.writePrivateFile(file, new TextEncoder().encode("second\n"))
        assert.strictEqual(fs.readFileSync(file, "utf8"), "second\n")
        assert.strictEqual(mode(file), 0o600)
        assert.deepStrictEqual(yield* files.readDirectory(path.join(dir, "a", "b")), ["out.json"])
      })
    ))

  it.effect("writes through a symbolic link: the link stays, its target is replaced", () =>
    inTemp((dir) =>
      Effect.gen(function*() {
        const files = yield* Files
        const target = path.join(dir, "real.env")
        const link = path.join(dir, ".env")
        fs.writeFileSync(target, "A=1\n")
        fs.symlinkSync(target, link)
        yield* files.writePrivateFile(link, "A=2\n")
        assert.isTrue(fs.lstatSync(link).isSymbolicLink())
        assert.strictEqual(fs.readFileSync(target, "utf8"), "A=2\n")
      })
    ))

  it.effect("probes and refuses a named pipe without opening it; a missing or oversized file says why", () =>
    inTemp((dir) =>
      Effect.gen(function*() {
        const files = yield* Files
        const fifo = path.join(dir, "pipe")
        execFileSync("mkfifo", [fifo])
        // An open of the FIFO for reading would block this test forever: both answers come from stat.
        assert.strictEqual((yield* files.probe(fifo)).kind, "special")
        const refused = yield* Effect.flip(files.readRegularFile(fifo))
        assert.strictEqual(refused.reason, "is a named pipe (FIFO), not a regular file")
        assert.deepStrictEqual(yield* files.probe(path.join(dir, "none")), { kind: "missing", size: 0 })
        assert.strictEqual((yield* Effect.flip(files.readRegularFile(path.join(dir, "none")))).reason, "does not exist")
        const big = path.join(dir, "big.csv")
        fs.writeFileSync(big, "x".repeat(2 * 1024 * 1024))
        assert.strictEqual(
          (yield* Effect.flip(files.readRegularFile(big, 1024 * 1024))).reason,
          "is 2 MB, more than the 1 MB it may be"
        )
        assert.strictEqual((yield* files.readRegularFile(big)).length, 2 * 1024 * 1024)
        assert.strictEqual(
          (yield* Effect.flip(files.readRegularFile(dir))).reason,
          "is a folder, not a regular file"
        )
      })
    ))

  it.effect("a failed write is a plain-words reason and leaves nothing behind", () =>
    inTemp((dir) =>
      Effect.gen(function*() {
        const files = yield* Files
        fs.writeFileSync(path.join(dir, "plain"), "")
        const e = yield* Effect.flip(files.writePrivateFile(path.join(dir, "plain", "sub", "x.json"), "{}"))
        assert.strictEqual(e._tag, "FileError")
        assert.strictEqual(e.reason, "a part of the path is a file, not a folder")
        assert.deepStrictEqual(fs.readdirSync(dir), ["plain"])
        assert.strictEqual((yield* Effect.flip(files.readText(path.join(dir, "gone")))).reason, "it does not exist")
      })
    ))

  it.effect("moves a staged folder over a non-empty one whole (0700), and removes what it is asked to", () =>
    inTemp((dir) =>
      Effect.gen(function*() {
        const files = yield* Files
        const target = path.join(dir, "bundle")
        fs.mkdirSync(target)
        fs.writeFileSync(path.join(target, "old.json"), "old")
        const staging = yield* files.stagingFolder(target)
        assert.strictEqual(mode(staging), 0o700)
        yield* files.writePrivateFile(path.join(staging, "new.json"), "new")
        yield* files.moveFolderInto(staging, target)
        assert.deepStrictEqual(fs.readdirSync(target), ["new.json"])
        assert.deepStrictEqual(fs.readdirSync(dir), ["bundle"])
        yield* files.rename(path.join(target, "new.json"), path.join(target, "renamed.json"))
        assert.deepStrictEqual(fs.readdirSync(target), ["renamed.json"])
        yield* files.remove(target, { recursive: true })
        yield* files.remove(target) // already gone: no failure
        assert.deepStrictEqual(fs.readdirSync(dir), [])
      })
    ))
})
