/**
 * Paths a user types, and the files the catalog writes on their behalf. Every path that comes from a
 * flag, an argument or a variable (`--from`, `--out`, `import <file>`, `evidence --verify`,
 * `CATALOG_CONFIG`, `CATALOG_DATA`) is checked here before it is read or written, so a folder, a pipe,
 * a device, a missing or unreachable path becomes the caller's registry error naming the flag — never
 * a crash, never a read that blocks on a FIFO. Everything the catalog writes is private to the
 * account (folders 0700, files 0600), and a file is replaced atomically (temporary file + rename), so
 * a reader never sees half of it and an interrupted write loses nothing.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
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

const errnoOf = (e: unknown): string => (typeof e === "object" && e !== null && "code" in e ? String(e.code) : "")

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

/** The default cap on a file read whole. */
export const defaultMaxBytes = 64 * 1024 * 1024

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
const writableAncestor = <E>(abs: string, typed: string, o: PathOptions<E>): Effect.Effect<string, E> =>
  Effect.suspend(() => {
    let dir = path.dirname(abs)
    for (;;) {
      const p = probePath(dir)
      if (p.kind === "directory") break
      if (p.kind === "file" || p.kind === "special") {
        return Effect.fail(
          o.refuse(`${shown(typed)} cannot be created: ${dir} is a file, not a folder; ${o.flag} needs ${o.what}.`)
        )
      }
      if (p.kind === "unreachable") {
        return Effect.fail(o.refuse(`${shown(typed)} cannot be created: ${dir} cannot be reached (${p.reason}).`))
      }
      const up = path.dirname(dir)
      if (up === dir) break
      dir = up
    }
    try {
      fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK)
    } catch (e) {
      return Effect.fail(o.refuse(`${shown(typed)} cannot be written: no write access to ${dir} (${reasonOf(e)}).`))
    }
    return Effect.succeed(dir)
  })

/** A file the user named, read whole: refuses an empty path, a folder, a pipe or device, a missing, unreadable or oversized file. */
export const readUserFile = <E>(
  cwd: string,
  typed: string,
  o: PathOptions<E> & { readonly maxBytes?: number }
): Effect.Effect<{ readonly path: string; readonly text: string }, E> =>
  Effect.suspend(() => {
    if (typed.trim() === "") return Effect.fail(o.refuse(`${o.flag} is empty; it needs the path of ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    return readRegularFile(abs, o.maxBytes ?? defaultMaxBytes).pipe(
      Effect.mapError((reason) => o.refuse(`${shown(typed)} ${reason}; ${o.flag} needs ${o.what}.`)),
      Effect.map((text) => ({ path: abs, text }))
    )
  })

/** A folder the user named, to read from: refuses an empty path, a file, a missing or unreachable folder. */
export const userFolder = <E>(cwd: string, typed: string, o: PathOptions<E>): Effect.Effect<string, E> =>
  Effect.suspend(() => {
    if (typed.trim() === "") return Effect.fail(o.refuse(`${o.flag} is empty; it needs the path of ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const p = probePath(abs)
    switch (p.kind) {
      case "directory":
        return Effect.succeed(abs)
      case "missing":
        return Effect.fail(o.refuse(`${shown(typed)} does not exist; ${o.flag} needs ${o.what}.`))
      case "unreachable":
        return Effect.fail(o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`))
      default:
        return Effect.fail(o.refuse(`${shown(typed)} is a file, not a folder; ${o.flag} needs ${o.what}.`))
    }
  })

/** Where a file will be written: refuses a folder, a pipe or device, and a place that cannot be written. `exists`: a file is there now. */
export const outputFileTarget = <E>(
  cwd: string,
  typed: string,
  o: PathOptions<E>
): Effect.Effect<{ readonly path: string; readonly exists: boolean }, E> =>
  Effect.suspend(() => {
    if (typed.trim() === "") return Effect.fail(o.refuse(`${o.flag} is empty; it needs ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const p = probePath(abs)
    switch (p.kind) {
      case "directory":
        return Effect.fail(
          o.refuse(`${shown(typed)} is a folder; ${o.flag} needs ${o.what}, e.g. ${path.join(typed, "catalog.json")}.`)
        )
      case "special":
        return Effect.fail(
          o.refuse(`${shown(typed)} is not a regular file (a pipe, socket or device); ${o.flag} needs ${o.what}.`)
        )
      case "unreachable":
        return Effect.fail(o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`))
      default:
        return Effect.map(writableAncestor(abs, typed, o), () => ({ path: abs, exists: p.kind === "file" }))
    }
  })

export interface FolderTarget {
  readonly path: string
  readonly exists: boolean
  readonly entries: ReadonlyArray<string>
}

/** Where a folder will be written: refuses a file, a pipe or device, and a place that cannot be written. `entries`: what it holds now. */
export const outputFolderTarget = <E>(cwd: string, typed: string, o: PathOptions<E>): Effect.Effect<FolderTarget, E> =>
  Effect.suspend((): Effect.Effect<FolderTarget, E> => {
    if (typed.trim() === "") return Effect.fail(o.refuse(`${o.flag} is empty; it needs ${o.what}.`))
    const abs = path.resolve(cwd, typed)
    const p = probePath(abs)
    switch (p.kind) {
      case "file":
        return Effect.fail(o.refuse(`${shown(typed)} is a file, not a folder; ${o.flag} needs ${o.what}.`))
      case "special":
        return Effect.fail(
          o.refuse(`${shown(typed)} is not a folder (it is a pipe, socket or device); ${o.flag} needs ${o.what}.`)
        )
      case "unreachable":
        return Effect.fail(o.refuse(`${shown(typed)} cannot be reached (${p.reason}); ${o.flag} needs ${o.what}.`))
      case "missing":
        return Effect.map(writableAncestor(abs, typed, o), () => ({ path: abs, exists: false, entries: [] }))
      case "directory":
        try {
          fs.accessSync(abs, fs.constants.W_OK | fs.constants.X_OK)
          return Effect.succeed({ path: abs, exists: true, entries: fs.readdirSync(abs) })
        } catch (e) {
          return Effect.fail(o.refuse(`${shown(typed)} cannot be written (${reasonOf(e)}); ${o.flag} needs ${o.what}.`))
        }
    }
  })

// ── writing (synchronous building blocks; callers wrap them in Effect.try with their own error) ──

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

/** `writePrivateFile` as an Effect whose failure is the caller's registry error. */
export const writePrivate = <E>(
  file: string,
  content: string | Uint8Array,
  refuse: Refuse<E>
): Effect.Effect<void, E> =>
  Effect.try({
    try: () => writePrivateFile(file, content),
    catch: (e) => refuse(`${file} cannot be written (${reasonOf(e)}).`)
  })
