/**
 * The one place where the CLI and the project runner touch user paths.
 *
 * Reading: regular files only, checked with stat BEFORE any open (a FIFO is
 * never opened, so nothing blocks on a writer that never comes; /dev/zero,
 * /dev/urandom and directories are refused), opened non-blocking and checked
 * again on the descriptor (a file swapped for a FIFO between the two is
 * caught), read with a byte cap that also holds for files whose stat size is
 * 0 (/proc). Every failure is one MechError 'invalid-input' naming the file
 * (EIO on /proc/self/mem, EACCES, ...).
 *
 * Writing: never replace anything but a regular file (a device node, FIFO,
 * socket or directory at the path is refused); directories are created one
 * level at a time (Node's recursive mkdir loops forever under /proc);
 * writes are atomic (a temp file in the same directory, fsync, rename); temp
 * files are named `.mechstudio-tmp-PID-...` so that the next write into the
 * same directory removes those of dead processes (or older than an hour) that
 * a killed save left behind.
 */
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { MechError, invalid } from '../../src-worker/errors';

/** Prefix of every temp file this program writes (the stale-file sweep matches it). */
export const TEMP_PREFIX = '.mechstudio-tmp-';
/** A temp file of a live process older than this is stale too (ms). */
export const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/** Default cap for text files read whole (bytes). */
export const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;

/** Pseudo file systems no output may be written under. */
const FORBIDDEN_WRITE_ROOTS = ['/proc', '/sys'];

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFile()) return 'a regular file';
  return 'not a regular file';
}

/** A short reason for a failed system call ('no such file', 'permission denied', 'EIO: i/o error'). */
export function errnoText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a parent is not a directory';
    case 'ENAMETOOLONG':
      return 'name too long';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EIO':
      return 'input/output error (EIO)';
    default: {
      const m = err instanceof Error ? err.message : String(e);
      // Node's messages repeat the syscall and path ("EIO: i/o error, read"); keep the reason only
      return m.replace(/,\s*(open|read|stat|lstat|mkdir|rename|write|scandir)\b.*$/, '');
    }
  }
}

function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MiB`;
}

/** NUL bytes and the like in a path are a user's typo, not an internal error. */
function checkPathText(path: string, what: string): void {
  if (path.includes('\0')) invalid(`${what} path contains a NUL byte`);
  if (path === '') invalid(`${what} path is empty`);
}

/** stat (following links) and require a regular file of at most maxBytes. */
function statForRead(path: string, what: string, maxBytes: number): Stats {
  checkPathText(path, what);
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  if (!st.isFile()) invalid(`${what} '${path}' is ${kindOf(st)}, not a regular file`);
  if (st.size > maxBytes) invalid(`${what} '${path}' is ${mib(st.size)}, over the ${mib(maxBytes)} limit`);
  return st;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Read a regular file whole as UTF-8 text, synchronously (bounded: a regular
 * file of at most maxBytes). For small inputs (projects, priors, losses,
 * domain files).
 */
export function readRegularFileSync(path: string, what: string, maxBytes = DEFAULT_MAX_READ_BYTES): string {
  const chunks: Buffer[] = [];
  let total = 0;
  readRegularFileChunksSync(path, what, maxBytes, (c) => {
    chunks.push(Buffer.from(c));
    total += c.length;
  });
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Read a regular file synchronously in 1 MiB chunks (the buffer passed to
 * onChunk is reused: copy what you keep), stopping at maxBytes with an error.
 */
export function readRegularFileChunksSync(path: string, what: string, maxBytes: number, onChunk: (chunk: Buffer) => void): void {
  const st = statForRead(path, what, maxBytes);
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (e) {
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || !sameFile(st, fst)) invalid(`${what} '${path}' changed while it was opened; try again`);
    let total = 0;
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        // a regular file never says EAGAIN; anything that does is not a file we wait for
        invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
      }
      if (n === 0) break;
      total += n;
      if (total > maxBytes) invalid(`${what} '${path}' is over the ${mib(maxBytes)} limit`);
      onChunk(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Check, without reading it whole, that a file can be read: a regular file
 * of at most maxBytes whose first bytes read without an I/O error (so
 * /proc/self/mem fails here, naming the file, and not later in a worker).
 */
export function checkReadableFileSync(path: string, what: string, maxBytes = DEFAULT_MAX_READ_BYTES): void {
  const st = statForRead(path, what, maxBytes);
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (e) {
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile() || !sameFile(st, fst)) invalid(`${what} '${path}' changed while it was opened; try again`);
    try {
      readSync(fd, Buffer.allocUnsafe(4096), 0, 4096, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Open a regular file for reading without ever blocking on open: stat first,
 * open non-blocking, check the descriptor. Returns the handle and the size.
 */
export async function openRegularFile(path: string, what: string, maxBytes = DEFAULT_MAX_READ_BYTES): Promise<{ handle: FileHandle; size: number }> {
  checkPathText(path, what);
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  if (!st.isFile()) invalid(`${what} '${path}' is ${kindOf(st)}, not a regular file`);
  if (st.size > maxBytes) invalid(`${what} '${path}' is ${mib(st.size)}, over the ${mib(maxBytes)} limit`);
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (e) {
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  try {
    const fst = await handle.stat();
    if (!fst.isFile() || !sameFile(st, fst)) invalid(`${what} '${path}' changed while it was opened; try again`);
  } catch (e) {
    await handle.close().catch(() => undefined);
    if (e instanceof MechError) throw e;
    invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
  }
  return { handle, size: st.size };
}

/**
 * Read a regular file in chunks (async: the event loop, and so Ctrl-C, stays
 * responsive), calling onChunk for each; stops at maxBytes with an error.
 */
export async function readRegularFileChunks(
  path: string,
  what: string,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  signal?: AbortSignal,
): Promise<void> {
  const { handle } = await openRegularFile(path, what, maxBytes);
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (;;) {
      if (signal?.aborted) throw new MechError('cancelled', `reading ${what} '${path}' was cancelled`);
      let n: number;
      try {
        ({ bytesRead: n } = await handle.read(buf, 0, buf.length, null));
      } catch (e) {
        invalid(`cannot read ${what} '${path}': ${errnoText(e)}`);
      }
      if (n === 0) return;
      total += n;
      if (total > maxBytes) invalid(`${what} '${path}' is over the ${mib(maxBytes)} limit`);
      onChunk(buf.subarray(0, n));
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------
// Writing

function underForbiddenRoot(abs: string): string | null {
  for (const root of FORBIDDEN_WRITE_ROOTS) if (abs === root || abs.startsWith(root + sep)) return root;
  return null;
}

function lstatOrNull(path: string, what: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') invalid(`cannot write ${what} '${path}': a parent is not a directory`);
    invalid(`cannot write ${what} '${path}': ${errnoText(e)}`);
  }
}

/**
 * The path may be (re)written: nothing there, or a regular file (or a link to
 * one). A directory, device node, FIFO or socket is refused.
 */
export function checkWriteTarget(path: string, what = 'output'): void {
  checkPathText(path, what);
  const abs = resolve(path);
  const root = underForbiddenRoot(abs);
  if (root) invalid(`cannot write ${what} '${abs}': ${root} is a system pseudo file system`);
  const st = lstatOrNull(abs, what);
  if (st === null) return;
  let target = st;
  if (st.isSymbolicLink()) {
    try {
      target = statSync(abs);
    } catch {
      invalid(`cannot write ${what} '${abs}': it is a dangling symbolic link`);
    }
  }
  if (!target.isFile()) invalid(`cannot write ${what} '${abs}': it is ${kindOf(target)}; only a regular file is ever replaced`);
}

/**
 * Create a directory and its missing parents, one level at a time (never
 * Node's recursive mkdir, which loops forever under /proc). An existing path
 * that is not a directory is refused.
 */
export function ensureDir(dir: string, what = 'output directory'): string {
  const { abs, missing } = planDir(dir, what);
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && lstatOrNull(m, what)?.isDirectory()) continue;
      invalid(`cannot create ${what} '${abs}': ${m === abs ? '' : `'${m}': `}${errnoText(e)}`);
    }
  }
  return abs;
}

/**
 * Check, without creating anything, that `dir` is a directory or could be
 * created: its nearest existing ancestor is a directory we may write into,
 * and it is not under /proc or /sys.
 */
export function checkDirTarget(dir: string, what = 'output directory'): string {
  const { abs, missing } = planDir(dir, what);
  const existing = missing.length ? dirname(missing[0]!) : abs;
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (e) {
    invalid(`cannot ${missing.length ? 'create' : 'write into'} ${what} '${abs}': ${errnoText(e)} on '${existing}'`);
  }
  return abs;
}

/** The absolute path and its missing components (outermost first); refuses non-directories on the way. */
function planDir(dir: string, what: string): { abs: string; missing: string[] } {
  checkPathText(dir, what);
  const abs = resolve(dir);
  const root = underForbiddenRoot(abs);
  if (root) invalid(`cannot create ${what} '${abs}': ${root} is a system pseudo file system`);
  const missing: string[] = [];
  let p = abs;
  for (;;) {
    const st = lstatOrNull(p, what);
    if (st !== null) {
      let s = st;
      if (st.isSymbolicLink()) {
        try {
          s = statSync(p);
        } catch {
          invalid(`cannot create ${what} '${abs}': '${p}' is a dangling symbolic link`);
        }
      }
      if (!s.isDirectory()) invalid(`cannot create ${what} '${abs}': '${p}' is ${kindOf(s)}, not a directory`);
      break;
    }
    missing.push(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  return { abs, missing: missing.reverse() };
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When each directory was last swept (a long-running server sweeps again after SWEEP_AGAIN_MS). */
const swept = new Map<string, number>();
const SWEEP_AGAIN_MS = 10 * 60 * 1000;

/**
 * Remove temp files that a killed save left in `dir`: names starting with
 * TEMP_PREFIX whose process is gone, or older than STALE_TEMP_AGE_MS.
 * Returns how many were removed. Called before each write; a directory is
 * listed at most once per SWEEP_AGAIN_MS (unless forced).
 */
export function sweepStaleTemps(dir: string, force = false): number {
  const abs = resolve(dir);
  const last = swept.get(abs);
  if (!force && last !== undefined && Date.now() - last < SWEEP_AGAIN_MS) return 0;
  swept.set(abs, Date.now());
  let names: string[];
  try {
    names = readdirSync(abs);
  } catch {
    return 0;
  }
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const m = /^(\d+)-/.exec(name.slice(TEMP_PREFIX.length));
    const file = join(abs, name);
    try {
      const st = lstatSync(file);
      if (!st.isFile()) continue;
      const dead = m ? !pidAlive(Number(m[1])) : true;
      if (dead || now - st.mtimeMs > STALE_TEMP_AGE_MS) {
        unlinkSync(file);
        removed++;
      }
    } catch {
      /* gone already, or not ours to remove */
    }
  }
  return removed;
}

let tempSeq = 0;

/** A fresh temp path in the directory of `path` (the final name is kept as a suffix for readability). */
export function tempPathFor(path: string): string {
  const abs = resolve(path);
  const base = basename(abs).slice(0, 100);
  return join(dirname(abs), `${TEMP_PREFIX}${process.pid}-${Date.now().toString(36)}-${++tempSeq}-${base}`);
}

/**
 * Move a finished temp file onto `path`, refusing (and removing the temp
 * file) when something other than a regular file has appeared there.
 */
export function publishTemp(tmp: string, path: string, what = 'output'): void {
  try {
    checkWriteTarget(path, what);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* not there */
    }
    if (e instanceof MechError) throw e;
    invalid(`cannot write ${what} '${path}': ${errnoText(e)}`);
  }
  try {
    const dfd = openSync(dirname(resolve(path)), 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    /* directories cannot be fsynced on some platforms */
  }
}

/**
 * Prepare an atomic write of `path`: the target may be replaced, its
 * directory exists (created if needed), stale temp files there are swept.
 * Returns the temp path to write.
 */
export function prepareWrite(path: string, what = 'output'): string {
  checkWriteTarget(path, what);
  const abs = resolve(path);
  ensureDir(dirname(abs), `directory of ${what}`);
  sweepStaleTemps(dirname(abs));
  return tempPathFor(abs);
}

/** Write text or bytes to `path` atomically (temp file in the same directory, fsync, rename, fsync the directory). */
export function writeFileAtomic(path: string, data: string | Uint8Array, what = 'output'): void {
  const abs = resolve(path);
  const tmp = prepareWrite(abs, what);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
  } catch (e) {
    if (fd !== null) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
    invalid(`cannot write ${what} '${abs}': ${errnoText(e)}`);
  }
  publishTemp(tmp, abs, what);
}

/**
 * writeFileAtomic for a server that must not block its event loop on disk
 * writes: the same checks (lstat-only, never an open of the target) and temp
 * naming, with the data written, synced and renamed asynchronously.
 */
export async function writeFileAtomicAsync(path: string, data: string | Uint8Array, what = 'output'): Promise<void> {
  const abs = resolve(path);
  const tmp = prepareWrite(abs, what);
  let fh: FileHandle | null = null;
  try {
    fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = null;
  } catch (e) {
    if (fh !== null) await fh.close().catch(() => undefined);
    try {
      unlinkSync(tmp);
    } catch {
      /* not created */
    }
    invalid(`cannot write ${what} '${abs}': ${errnoText(e)}`);
  }
  publishTemp(tmp, abs, what);
}
