/**
 * The `Files` service on Node's file system, and the synchronous building blocks it is made of (the
 * connectors, themselves Node layers, use `regularFile` / `readRegularFile` directly). node:fs rather
 * than @effect/platform's FileSystem: a probe must be a stat that never opens a FIFO, a read must open
 * with O_NONBLOCK and re-check the descriptor, and a write must create the file 0600 and fsync it
 * before the rename — none of which FileSystem's operations promise.
 */
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  defaultMaxBytes,
  errnoOf,
  FileError,
  Files,
  type PathProbe,
  privateDirMode,
  privateFileMode,
  reasonOf
} from "../services/Files.js"

/** What `p` names right now. */
export const probePath = (p: string): PathProbe => {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    if (st === undefined) return { kind: "missing", size: 0 }
    return { kind: st.isFile() ? "file" : st.isDirectory() ? "directory" : "special", size: st.size }
  } catch (e) {
    return { kind: "unreachable", size: 0, reason: reasonOf(e) }
  }
}

/** What a non-regular path is, found with stat (which never opens it, so a FIFO cannot block). */
export const describeNonFile = (st: fs.Stats): string =>
  st.isDirectory()
    ? "a folder"
    : st.isFIFO()
    ? "a named pipe (FIFO)"
    : st.isCharacterDevice()
    ? "a character device"
    : st.isBlockDevice()
    ? "a block device"
    : st.isSocket()
    ? "a socket"
    : "not a regular file"

const megabytes = (n: number): string => `${(n / (1024 * 1024)).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`

const problemOf = (st: fs.Stats, maxBytes: number): string | null =>
  st.isDirectory()
    ? "is a folder, not a regular file"
    : !st.isFile()
    ? `is ${describeNonFile(st)}, not a regular file`
    : st.size > maxBytes
    ? `is ${megabytes(st.size)}, more than the ${megabytes(maxBytes)} it may be`
    : null

/**
 * Whether `abs` can be read as a regular file, found without opening it. When it cannot, `reason` says
 * why in words that follow the file's name ("does not exist", "is a named pipe (FIFO), not a regular file").
 */
export const regularFile = (
  abs: string,
  maxBytes = defaultMaxBytes
): { readonly ok: true; readonly size: number } | { readonly ok: false; readonly reason: string } => {
  let st: fs.Stats | undefined
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false })
  } catch (e) {
    return { ok: false, reason: `cannot be reached (${reasonOf(e)})` }
  }
  if (st === undefined) return { ok: false, reason: "does not exist" }
  const problem = problemOf(st, maxBytes)
  return problem === null ? { ok: true, size: st.size } : { ok: false, reason: problem }
}

/**
 * Reads a file whole, only if it is a regular file: checked with stat first, then opened with
 * O_NONBLOCK (a path swapped for a FIFO in between cannot block the open) and checked again on the
 * open descriptor. Fails with the reason in words that follow the file's name — never its content.
 */
export const readRegularFile = (abs: string, maxBytes = defaultMaxBytes): Effect.Effect<string, string> =>
  Effect.suspend(() => {
    const checked = regularFile(abs, maxBytes)
    if (!checked.ok) return Effect.fail(checked.reason)
    let fd: number | undefined
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
      const problem = problemOf(fs.fstatSync(fd), maxBytes)
      return problem === null ? Effect.succeed(fs.readFileSync(fd, "utf8")) : Effect.fail(problem)
    } catch (e) {
      return Effect.fail(`cannot be read (${reasonOf(e)})`)
    } finally {
      if (fd !== undefined) fs.closeSync(fd)
    }
  })

// ── writing (synchronous building blocks; the service below wraps each in an Effect) ──

/**
 * Creates `dir` and any missing parents as 0700. With `tighten`, an existing `dir` is set to 0700 too
 * (folders the catalog owns, such as `.catalog/`, written more openly by older versions).
 */
export const ensurePrivateDir = (dir: string, options: { readonly tighten?: boolean } = {}): void => {
  const missing: Array<string> = []
  let d = path.resolve(dir)
  while (probePath(d).kind === "missing") {
    missing.unshift(d)
    const up = path.dirname(d)
    if (up === d) break
    d = up
  }
  for (const m of missing) {
    try {
      fs.mkdirSync(m, { mode: privateDirMode })
    } catch (e) {
      if (errnoOf(e) !== "EEXIST") throw e
    }
    fs.chmodSync(m, privateDirMode) // the umask may have taken bits off; set exactly 0700
  }
  if (missing.length === 0 && options.tighten === true) tightenMode(dir, privateDirMode)
}

/** Sets `p` to `mode` when it exists and grants more; best effort (a file of another account is left alone). */
export const tightenMode = (p: string, mode: number): void => {
  try {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    if (st !== undefined && (st.mode & 0o777 & ~mode) !== 0) fs.chmodSync(p, mode)
  } catch {
    // Not ours to change (EPERM) or gone meanwhile: the next write by its owner tightens it.
  }
}

/**
 * Writes `content` to `file` atomically as 0600: a temporary file beside it, flushed, then renamed
 * over it. Missing parent folders are created 0700. A symbolic link is written through (its target
 * is replaced), so a linked `.env` or `catalog.yml` stays linked.
 */
export const writePrivateFile = (file: string, content: string | Uint8Array): void => {
  let target = path.resolve(file)
  try {
    if (fs.lstatSync(target).isSymbolicLink()) target = fs.realpathSync(target)
  } catch {
    // Missing (or a dangling link): write the path itself.
  }
  ensurePrivateDir(path.dirname(target))
  const tmp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
  )
  let fd: number | undefined
  try {
    fd = fs.openSync(tmp, "wx", privateFileMode)
    fs.fchmodSync(fd, privateFileMode)
    const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content
    let off = 0
    while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off)
    fs.fsyncSync(fd)
    fs.closeSync(fd)
    fd = undefined
    fs.renameSync(tmp, target)
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw e
  }
}

/** A fresh private folder beside `target` to build a replacement in (`moveFolderInto` puts it in place). */
export const stagingFolder = (target: string): string => {
  const parent = path.dirname(path.resolve(target))
  ensurePrivateDir(parent)
  const dir = path.join(parent, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`)
  fs.mkdirSync(dir, { mode: privateDirMode })
  fs.chmodSync(dir, privateDirMode)
  return dir
}

/**
 * Puts the folder `fresh` at `target`: a rename when `target` is missing or empty; otherwise the old
 * folder is moved aside, the new one renamed in, and the old one removed — if the second rename fails
 * the old folder is put back, so `target` is always either the old folder or the new one.
 */
export const moveFolderInto = (fresh: string, target: string): void => {
  const abs = path.resolve(target)
  const p = probePath(abs)
  if (p.kind === "missing" || (p.kind === "directory" && fs.readdirSync(abs).length === 0)) {
    fs.renameSync(fresh, abs)
    return
  }
  const old = path.join(
    path.dirname(abs),
    `.${path.basename(abs)}.${process.pid}.${randomBytes(4).toString("hex")}.old`
  )
  fs.renameSync(abs, old)
  try {
    fs.renameSync(fresh, abs)
  } catch (e) {
    fs.renameSync(old, abs)
    throw e
  }
  fs.rmSync(old, { recursive: true, force: true })
}

/** Runs a synchronous building block; a throw becomes `FileError` with its plain-words reason. */
const attempt = <A>(f: () => A): Effect.Effect<A, FileError> =>
  Effect.try({ try: f, catch: (e) => new FileError({ reason: reasonOf(e) }) })

/** `Files` on the local disk (node:fs). */
export const NodeFilesLive: Layer.Layer<Files> = Layer.succeed(
  Files,
  Files.of({
    probe: (p) => Effect.sync(() => probePath(p)),
    readRegularFile: (abs, maxBytes = defaultMaxBytes) =>
      Effect.mapError(readRegularFile(abs, maxBytes), (reason) => new FileError({ reason })),
    readText: (file) => attempt(() => fs.readFileSync(file, "utf8")),
    readBytes: (file) => attempt((): Uint8Array => fs.readFileSync(file)),
    checkWritable: (dir) => attempt(() => fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK)),
    readDirectory: (dir) => attempt((): ReadonlyArray<string> => fs.readdirSync(dir)),
    ensurePrivateDir: (dir, options) => attempt(() => ensurePrivateDir(dir, options)),
    writePrivateFile: (file, content) => attempt(() => writePrivateFile(file, content)),
    stagingFolder: (target) => attempt(() => stagingFolder(target)),
    moveFolderInto: (fresh, target) => attempt(() => moveFolderInto(fresh, target)),
    rename: (from, to) => attempt(() => fs.renameSync(from, to)),
    remove: (p, options) => attempt(() => fs.rmSync(p, { recursive: options?.recursive === true, force: true }))
  })
)
