/**
 * Paths a user types, and the files the catalog writes on their behalf. Every path that comes from a
 * flag, an argument or a variable (`--from`, `--out`, `import <file>`, `evidence --verify`,
 * `CATALOG_CONFIG`, `CATALOG_DATA`) is checked here before it is read or written, so a folder, a pipe,
 * a device, a missing or unreachable path becomes the caller's registry error naming the flag — never
 * a crash, never a read that blocks on a FIFO. Everything the catalog writes is private to the
 * account (folders 0700, files 0600), and a file is replaced atomically (temporary file + rename), so
 * a reader never sees half of it and an interrupted write loses nothing.
 *
 * This module is the abstraction: the `Files` service (what the catalog does with files, as Effects)
 * and the path checks built on it. Its implementation on the local disk is `layers/NodeFiles.ts`.
 */
import { Context, Data, Effect } from "effect"
import * as path from "node:path"

/** Mode of every folder the catalog creates (owner only). */
export const privateDirMode = 0o700
/** Mode of every file the catalog writes (owner read/write only). */
export const privateFileMode = 0o600

/**
 * How a caller turns a path problem into its own registry error: the helper writes the message
 * (what is wrong with the path), the caller chooses the code, the `param` and the fix.
 */
export type Refuse<E> = (message: string) => E

/** What a path names, without following it into a read (a FIFO is never opened to find out). */
export type PathKind = "missing" | "file" | "directory" | "special" | "unreachable"

export interface PathProbe {
  readonly kind: PathKind
  readonly size: number
  /** Why the path cannot be reached (`unreachable` only). */
  readonly reason?: string
}

/** The errno code of a thrown file-system error (`ENOENT`…), or `""`. */
export const errnoOf = (
  e: unknown
): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "")

/** A plain-words reason for a file-system error (no stack, no errno soup). */
export const reasonOf = (e: unknown): string => {
  switch (errnoOf(e)) {
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "ENOTDIR":
      return "a part of the path is a file, not a folder"
    case "ENAMETOOLONG":
      return "the path is too long"
    case "ELOOP":
      return "the path loops through symbolic links"
    case "EROFS":
      return "the file system is read-only"
    case "ENOSPC":
      return "the disk is full"
    case "EDQUOT":
      return "the disk quota is exhausted"
    case "EISDIR":
      return "it is a folder"
    case "ENOENT":
      return "it does not exist"
    case "EBUSY":
      return "it is busy"
    default:
      return e instanceof Error ? e.message : String(e)
  }
}

/** The default cap on a file read whole. */
export const defaultMaxBytes = 64 * 1024 * 1024

/** A file operation that failed; `reason` is in plain words (see each operation). Never leaves a service. */
export class FileError extends Data.TaggedError("FileError")<{ readonly reason: string }> {}

/** What the catalog does with files. Every write is private (folders 0700, files 0600) and atomic. */
export interface FilesShape {
  /** What `path` names right now, found without opening it (a FIFO cannot block). */
  readonly probe: (path: string) => Effect.Effect<PathProbe>
  /**
   * Reads `path` whole, only if it is a regular file of at most `maxBytes` (default `defaultMaxBytes`),
   * re-checked on the open descriptor. `reason` follows the file's name: "does not exist", "is a named
   * pipe (FIFO), not a regular file", "cannot be read (permission denied)"; never the file's content.
   */
  readonly readRegularFile: (path: string, maxBytes?: number) => Effect.Effect<string, FileError>
  /** Reads a file the caller has probed, as UTF-8 text. */
  readonly readText: (path: string) => Effect.Effect<string, FileError>
  /** Reads a file the caller has probed, as bytes. */
  readonly readBytes: (path: string) => Effect.Effect<Uint8Array, FileError>
  /** Succeeds when entries may be created in the folder `dir` (write and search access). */
  readonly checkWritable: (dir: string) => Effect.Effect<void, FileError>
  /** The names in the folder `dir`. */
  readonly readDirectory: (dir: string) => Effect.Effect<ReadonlyArray<string>, FileError>
  /**
   * Creates `dir` and any missing parents as 0700. With `tighten`, an existing `dir` is set to 0700 too
   * (folders the catalog owns, such as `.catalog/`, written more openly by older versions).
   */
  readonly ensurePrivateDir: (dir: string, options?: { readonly tighten?: boolean }) => Effect.Effect<void, FileError>
  /**
   * Writes `content` to `file` atomically as 0600: a temporary file beside it, flushed, then renamed
   * over it. Missing parent folders are created 0700. A symbolic link is written through (its target
   * is replaced), so a linked `.env` or `catalog.yml` stays linked.
   */
  readonly writePrivateFile: (file: string, content: string | Uint8Array) => Effect.Effect<void, FileError>
  /** A fresh private folder beside `target` to build a replacement in (`moveFolderInto` puts it in place). */
  readonly stagingFolder: (target: string) => Effect.Effect<string, FileError>
  /**
   * Puts the folder `fresh` at `target`: a rename when `target` is missing or empty; otherwise the old
   * folder is moved aside, the new one renamed in, and the old one removed — if the second rename fails
   * the old folder is put back, so `target` is always either the old folder or the new one.
   */
  readonly moveFolderInto: (fresh: string, target: string) => Effect.Effect<void, FileError>
  /** Renames `from` to `to` (one step: a reader sees the old name or the new one). */
  readonly rename: (from: string, to: string) => Effect.Effect<void, FileError>
  /** Removes `path` (with `recursive`, a folder and what it holds); nothing there is no failure. */
  readonly remove: (path: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, FileError>
}

/** The file system, as services see it. The live one is `NodeFilesLive` (layers/NodeFiles.ts). */
export class Files extends Context.Tag("catalog/Files")<Files, FilesShape>() {}

/** How a path is named in messages: as the user typed it. */
const shown = (typed: string): string => (typed === "" ? "\"\"" : typed)

export interface PathOptions<E> {
  /** The flag or argument as the user knows it, e.g. `--from`, `the file argument`, `CATALOG_CONFIG`. */
  readonly flag: string
  /** What the flag takes, e.g. `a data-dictionary CSV file`. */
  readonly what: string
  readonly refuse: Refuse<E>
}

/** The nearest folder above `abs` that exists; refuses when a file sits in the way or it cannot be written. */
const writableAncestor = <E>(abs: string, typed: string, o: PathOptions<E>): Effect.Effect<string, E, Files> =>
  Effect.gen(function*() {
    const files = yield* Files
    let dir = path.dirname(abs)
    for (;;) {
      const p = yield* files.probe(dir)
      if (p.kind === "directory") break
      if (p.kind === "file" || p.kind === "special") {
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} cannot be created: ${dir} is a file, not a folder; ${o.flag} needs ${o.what}.`)
        )
      }
      if (p.kind === "unreachable") {
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} cannot be created: ${dir} cannot be reached (${p.reason}).`)
        )
      }
      const up = path.dirname(dir)
      if (up === dir) break
      dir = up
    }
    const found = dir
    yield* files.checkWritable(found).pipe(
      Effect.mapError((e) => o.refuse(`${shown(typed)} cannot be written: no write access to ${found} (${e.reason}).`))
    )
    return found
  })

/** A file the user named, read whole: refuses an empty path, a folder, a pipe or device, a missing, unreadable or oversized file. */
export const readUserFile = <E>(
  cwd: string,
  typed: string,
  o: PathOptions<E> & { readonly maxBytes?: number }
): Effect.Effect<{ readonly path: string; readonly text: string }, E, Files> =>
  Effect.gen(function*() {
    if (typed.trim() === "") return yield* Effect.fail(o.refuse(`${o.flag} is empty; it needs the path of ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const text = yield* (yield* Files).readRegularFile(abs, o.maxBytes ?? defaultMaxBytes).pipe(
      Effect.mapError((e) => o.refuse(`${shown(typed)} ${e.reason}; ${o.flag} needs ${o.what}.`))
    )
    return { path: abs, text }
  })

/** A folder the user named, to read from: refuses an empty path, a file, a missing or unreachable folder. */
export const userFolder = <E>(cwd: string, typed: string, o: PathOptions<E>): Effect.Effect<string, E, Files> =>
  Effect.gen(function*() {
    if (typed.trim() === "") return yield* Effect.fail(o.refuse(`${o.flag} is empty; it needs the path of ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const p = yield* (yield* Files).probe(abs)
    switch (p.kind) {
      case "directory":
        return abs
      case "missing":
        return yield* Effect.fail(o.refuse(`${shown(typed)} does not exist; ${o.flag} needs ${o.what}.`))
      case "unreachable":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`)
        )
      default:
        return yield* Effect.fail(o.refuse(`${shown(typed)} is a file, not a folder; ${o.flag} needs ${o.what}.`))
    }
  })

/** Where a file will be written: refuses a folder, a pipe or device, and a place that cannot be written. `exists`: a file is there now. */
export const outputFileTarget = <E>(
  cwd: string,
  typed: string,
  o: PathOptions<E>
): Effect.Effect<{ readonly path: string; readonly exists: boolean }, E, Files> =>
  Effect.gen(function*() {
    if (typed.trim() === "") return yield* Effect.fail(o.refuse(`${o.flag} is empty; it needs ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const p = yield* (yield* Files).probe(abs)
    switch (p.kind) {
      case "directory":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} is a folder; ${o.flag} needs ${o.what}, e.g. ${path.join(typed, "catalog.json")}.`)
        )
      case "special":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} is not a regular file (a pipe, socket or device); ${o.flag} needs ${o.what}.`)
        )
      case "unreachable":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`)
        )
      default:
        yield* writableAncestor(abs, typed, o)
        return { path: abs, exists: p.kind === "file" }
    }
  })

export interface FolderTarget {
  readonly path: string
  readonly exists: boolean
  readonly entries: ReadonlyArray<string>
}

/** Where a folder will be written: refuses a file, a pipe or device, and a place that cannot be written. `entries`: what it holds now. */
export const outputFolderTarget = <E>(
  cwd: string,
  typed: string,
  o: PathOptions<E>
): Effect.Effect<FolderTarget, E, Files> =>
  Effect.gen(function*() {
    if (typed.trim() === "") return yield* Effect.fail(o.refuse(`${o.flag} is empty; it needs ${o.what}.`))
    const files = yield* Files
    const abs = path.resolve(cwd, typed)
    const p = yield* files.probe(abs)
    switch (p.kind) {
      case "file":
        return yield* Effect.fail(o.refuse(`${shown(typed)} is a file, not a folder; ${o.flag} needs ${o.what}.`))
      case "special":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} is not a folder (it is a pipe, socket or device); ${o.flag} needs ${o.what}.`)
        )
      case "unreachable":
        return yield* Effect.fail(
          o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`)
        )
      case "missing":
        yield* writableAncestor(abs, typed, o)
        return { path: abs, exists: false, entries: [] }
      case "directory": {
        const entries = yield* files.checkWritable(abs).pipe(
          Effect.zipRight(files.readDirectory(abs)),
          Effect.mapError((e) =>
            o.refuse(`${shown(typed)} cannot be written (${e.reason}); ${o.flag} needs ${o.what}.`)
          )
        )
        return { path: abs, exists: true, entries }
      }
    }
  })

/** `Files.writePrivateFile` whose failure is the caller's registry error. */
export const writePrivate = <E>(
  file: string,
  content: string | Uint8Array,
  refuse: Refuse<E>
): Effect.Effect<void, E, Files> =>
  Effect.flatMap(Files, (files) =>
    files.writePrivateFile(file, content).pipe(
      Effect.mapError((e) => refuse(`${file} cannot be written (${e.reason}).`))
    ))
