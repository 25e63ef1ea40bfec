/**
 * The one place where the CLI, the project runner and the web host touch
 * user paths.
 *
 * Reading: regular files only, checked with stat BEFORE any open (a FIFO is
 * never opened, so nothing blocks on a writer that never comes; /dev/zero,
 * /dev/urandom and directories are refused), opened non-blocking and checked
 * again on the descriptor (a file swapped for a FIFO between the two is
 * caught), read with a byte cap that also holds for files whose stat size is
 * 0 (/proc): never more than cap + 1 bytes. A file over its cap is one
 * MechError 'too-large'; every other failure is one MechError 'invalid-input'
 * naming the file (EIO on /proc/self/mem, EACCES, ...). The web host also
 * refuses to read anything that resolves under /proc or /sys
 * (`refuseSystemFs`), and confines its reads to the workspace root
 * (`confineTo`): the last name is opened without following a link and the
 * descriptor itself is checked, its real path under the root and one link
 * only (src-worker/base/confined-open.ts), so a path swapped between the
 * workspace's check and the open reads nothing outside.
 *
 * Writing: never under /proc or /sys (also through a symbolic link or a
 * linked parent); never replace anything but a regular file (a device node,
 * FIFO, socket, directory or dangling link at the path is refused);
 * directories are created one level at a time (Node's recursive mkdir loops
 * forever under /proc); writes are atomic (a temp file in the same
 * directory, fsync, rename); temp files are named `.mechstudio-tmp-PID-...`
 * so that the next write into the same directory removes those of dead
 * processes (or older than an hour) that a killed save left behind.
 *
 * Every check is written once, as a generator of file-system steps, and run
 * either synchronously (CLI) or on the promise API (the web server, which
 * must never block its event loop): runSync / runAsync in fs-steps.ts.
 */
import { type Stats } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { MechError, invalid } from '../../src-shared/errors';
import {
  fileKind as kindOf,
  ioReason as errnoText,
  checkCancelled,
  LINK_AT_OPEN,
  confinedProblem,
  confinedRefusal,
} from '../../src-worker/index';
import { call, isErr, runAsync, runSync, type Fd, type Steps } from './fs-steps';

/** Prefix of every temp file this program writes (the stale-file sweep matches it). */
export const TEMP_PREFIX = '.mechstudio-tmp-';
/** A temp file of a live process older than this is stale too (ms). */
const STALE_TEMP_AGE_MS = 60 * 60 * 1000;

/** Default cap for text files read whole (bytes). */
const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;

/** Pseudo file systems nothing may be written under (nor read from, with refuseSystemFs). */
const FORBIDDEN_ROOTS = ['/proc', '/sys'];

function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MiB`;
}

/** NUL bytes and the like in a path are a user's typo, not an internal error. */
function checkPathText(path: string, what: string): void {
  if (path.includes('\0')) invalid(`${what} path contains a NUL byte`);
  if (path === '') invalid(`${what} path is empty`);
}

function tooLarge(message: string): never {
  throw new MechError('too-large', message);
}

function underForbiddenRoot(abs: string): string | null {
  for (const root of FORBIDDEN_ROOTS) if (abs === root || abs.startsWith(root + sep)) return root;
  return null;
}

// ---------------------------------------------------------------------------
// Reading

export interface ReadOptions {
  /** Refuse anything that resolves under /proc or /sys (the web host: size-0 files that read forever or fail). */
  refuseSystemFs?: boolean;
  /**
   * The workspace root (a real path): read only what lies under it, checked on
   * the descriptor after the open (no link followed at the last name, real
   * path under the root, one link only). Implies refuseSystemFs.
   */
  confineTo?: string;
}

/** The web host's reads: a client's paths never read from /proc or /sys. */
export const REFUSE_SYSTEM_FS: ReadOptions = { refuseSystemFs: true };

/** stat (following links) and require a regular file of at most maxBytes. Returns the path to open and its stat. */
function* readTarget(
  path: string,
  what: string,
  maxBytes: number,
  opts: ReadOptions,
): Steps<{ target: string; st: Stats }> {
  checkPathText(path, what);
  let target = path;
  if (opts.refuseSystemFs || opts.confineTo !== undefined) {
    const real = yield* call<string>({ op: 'realpath', path: resolve(path) });
    if (isErr(real)) invalid(`cannot read ${what} '${path}': ${errnoText(real)}`);
    if (underForbiddenRoot(real))
      invalid(`${what} '${path}' is not a regular file (files under /proc and /sys are refused)`);
    target = real;
  }
  const st = yield* call<Stats>({ op: 'stat', path: target });
  if (isErr(st)) invalid(`cannot read ${what} '${path}': ${errnoText(st)}`);
  if (!st.isFile()) invalid(`${what} '${path}' is ${kindOf(st)}, not a regular file`);
  const problem = opts.confineTo === undefined ? null : confinedProblem(opts.confineTo, target, st.nlink);
  if (problem !== null) throw confinedRefusal(what, path, problem);
  if (st.size > maxBytes) tooLarge(`${what} '${path}' is ${mib(st.size)}, over the ${mib(maxBytes)} limit`);
  return { target, st };
}

/**
 * Open a checked regular file non-blocking (a FIFO swapped in after the stat
 * cannot block the open) and check that the descriptor is still that file.
 */
function* openChecked(path: string, what: string, maxBytes: number, opts: ReadOptions): Steps<Fd> {
  const { target, st } = yield* readTarget(path, what, maxBytes, opts);
  const root = opts.confineTo;
  const fd = yield* call<Fd>({ op: 'openRead', path: target, noFollow: root !== undefined });
  if (isErr(fd) && fd.code === 'ELOOP' && root !== undefined) throw confinedRefusal(what, path, LINK_AT_OPEN);
  if (isErr(fd)) invalid(`cannot read ${what} '${path}': ${errnoText(fd)}`);
  const fst = yield* call<Stats>({ op: 'fstat', fd });
  if (isErr(fst) || !fst.isFile() || st.dev !== fst.dev || st.ino !== fst.ino) {
    yield* call<void>({ op: 'close', fd });
    if (isErr(fst)) invalid(`cannot read ${what} '${path}': ${errnoText(fst)}`);
    invalid(`${what} '${path}' changed while it was opened; try again`);
  }
  if (root !== undefined) {
    const problem = yield* openedProblem(fd, fst, target, root);
    if (problem !== null) {
      yield* call<void>({ op: 'close', fd });
      throw confinedRefusal(what, path, problem);
    }
  }
  return fd;
}

/**
 * Why an opened descriptor may not be read under `root`: its real path (from
 * /proc/self/fd; without /proc, the real path of the name if it is still the
 * same inode) and its link count, checked after the open.
 */
function* openedProblem(fd: Fd, fst: Stats, target: string, root: string): Steps<string | null> {
  let real = yield* call<string>({ op: 'fdPath', fd });
  if (isErr(real)) {
    real = yield* call<string>({ op: 'realpath', path: target });
    const now = isErr(real) ? real : yield* call<Stats>({ op: 'stat', path: real });
    if (isErr(real) || isErr(now) || now.dev !== fst.dev || now.ino !== fst.ino)
      return 'changed while it was opened; nothing was read';
  }
  return confinedProblem(root, real, fst.nlink);
}

/** Read in chunks of at most 1 MiB (the buffer is reused), never past cap + 1 bytes in all. */
function* readChunks(
  path: string,
  what: string,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  opts: ReadOptions,
  signal?: AbortSignal,
): Steps<void> {
  const fd = yield* openChecked(path, what, maxBytes, opts);
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (;;) {
      checkCancelled(signal, `reading ${what} '${path}' was cancelled`);
      // a regular file never says EAGAIN; anything that does is not a file we wait for
      const n = yield* call<number>({
        op: 'read',
        fd,
        buf,
        len: Math.max(1, Math.min(buf.length, maxBytes + 1 - total)),
        pos: null,
      });
      if (isErr(n)) invalid(`cannot read ${what} '${path}': ${errnoText(n)}`);
      if (n === 0) return;
      total += n;
      if (total > maxBytes) tooLarge(`${what} '${path}' is over the ${mib(maxBytes)} limit`);
      onChunk(buf.subarray(0, n));
    }
  } finally {
    yield* call<void>({ op: 'close', fd });
  }
}

/** Chunks of a file read whole, as one UTF-8 string. */
function textCollector(): { push: (c: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let total = 0;
  return {
    push: (c) => {
      chunks.push(Buffer.from(c));
      total += c.length;
    },
    text: () => Buffer.concat(chunks, total).toString('utf8'),
  };
}

/**
 * Read a regular file whole as UTF-8 text, synchronously (bounded: a regular
 * file of at most maxBytes). For small inputs (projects, priors, losses,
 * domain files).
 */
export function readRegularFileSync(
  path: string,
  what: string,
  maxBytes = DEFAULT_MAX_READ_BYTES,
  opts: ReadOptions = {},
): string {
  const out = textCollector();
  runSync(readChunks(path, what, maxBytes, out.push, opts));
  return out.text();
}

/**
 * readRegularFileSync with `beforeStep` called before each file-system call
 * (its op and path): tests change the file system between a check and the
 * open, deterministically.
 */
export function readRegularFileSyncStepped(
  path: string,
  what: string,
  maxBytes: number,
  opts: ReadOptions,
  beforeStep: (op: string, path?: string) => void,
): string {
  const out = textCollector();
  runSync(readChunks(path, what, maxBytes, out.push, opts), (s) => beforeStep(s.op, 'path' in s ? s.path : undefined));
  return out.text();
}

/** readRegularFileSync on the promise API: the web server's reads. */
export async function readRegularFile(
  path: string,
  what: string,
  maxBytes = DEFAULT_MAX_READ_BYTES,
  opts: ReadOptions = {},
): Promise<string> {
  const out = textCollector();
  await runAsync(readChunks(path, what, maxBytes, out.push, opts));
  return out.text();
}

/**
 * Read a regular file synchronously in 1 MiB chunks (the buffer passed to
 * onChunk is reused: copy what you keep), stopping at maxBytes with an error.
 */
export function readRegularFileChunksSync(
  path: string,
  what: string,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  opts: ReadOptions = {},
): void {
  runSync(readChunks(path, what, maxBytes, onChunk, opts));
}

/**
 * Read a regular file in chunks (async: the event loop, and so Ctrl-C, stays
 * responsive), calling onChunk for each; stops at maxBytes with an error.
 */
export function readRegularFileChunks(
  path: string,
  what: string,
  maxBytes: number,
  onChunk: (chunk: Buffer) => void,
  signal?: AbortSignal,
  opts: ReadOptions = {},
): Promise<void> {
  return runAsync(readChunks(path, what, maxBytes, onChunk, opts, signal));
}

function* readableSteps(path: string, what: string, maxBytes: number): Steps<void> {
  const fd = yield* openChecked(path, what, maxBytes, {});
  const n = yield* call<number>({ op: 'read', fd, buf: Buffer.allocUnsafe(4096), len: 4096, pos: 0 });
  yield* call<void>({ op: 'close', fd });
  if (isErr(n) && n.code !== 'EAGAIN') invalid(`cannot read ${what} '${path}': ${errnoText(n)}`);
}

/**
 * Check, without reading it whole, that a file can be read: a regular file
 * of at most maxBytes whose first bytes read without an I/O error (so
 * /proc/self/mem fails here, naming the file, and not later in a worker).
 */
export function checkReadableFileSync(path: string, what: string, maxBytes = DEFAULT_MAX_READ_BYTES): void {
  runSync(readableSteps(path, what, maxBytes));
}

/**
 * Check, without opening it, that `path` is a regular file of at most
 * maxBytes (async: the web host checks files a job or project names before
 * any worker opens them).
 */
export async function checkRegularFile(
  path: string,
  what: string,
  maxBytes = DEFAULT_MAX_READ_BYTES,
  opts: ReadOptions = {},
): Promise<{ target: string; size: number }> {
  const { target, st } = await runAsync(readTarget(path, what, maxBytes, opts));
  return { target, size: st.size };
}

// ---------------------------------------------------------------------------
// Writing

/** lstat, with a missing path as null (and a refusal for any other error). */
function* lstatOrNull(path: string, what: string): Steps<Stats | null> {
  const st = yield* call<Stats>({ op: 'lstat', path });
  if (!isErr(st)) return st;
  if (st.code === 'ENOENT') return null;
  invalid(`cannot write ${what} '${path}': ${errnoText(st)}`);
}

/**
 * The path may be (re)written: outside /proc and /sys, and nothing there or
 * a regular file (or a link to one that is not under /proc or /sys). A
 * directory, device node, FIFO, socket or dangling link is refused.
 */
function* writeTarget(path: string, what: string): Steps<string> {
  checkPathText(path, what);
  const abs = resolve(path);
  const root = underForbiddenRoot(abs);
  if (root) invalid(`cannot write ${what} '${abs}': ${root} is a system pseudo file system`);
  const st = yield* lstatOrNull(abs, what);
  if (st === null) return abs;
  let target = st;
  if (st.isSymbolicLink()) {
    const t = yield* call<Stats>({ op: 'stat', path: abs });
    if (isErr(t)) invalid(`cannot write ${what} '${abs}': it is a dangling symbolic link`);
    const real = yield* call<string>({ op: 'realpath', path: abs });
    const linkedRoot = isErr(real) ? null : underForbiddenRoot(real);
    if (linkedRoot) invalid(`cannot write ${what} '${abs}': it links under ${linkedRoot}, a system pseudo file system`);
    target = t;
  }
  if (!target.isFile())
    invalid(`cannot write ${what} '${abs}': it is ${kindOf(target)}; only a regular file is ever replaced`);
  return abs;
}

/**
 * The absolute path and its missing components (outermost first); refuses non-directories and /proc, /sys on the way.
 */
function* planDir(dir: string, what: string): Steps<{ abs: string; missing: string[] }> {
  checkPathText(dir, what);
  const abs = resolve(dir);
  const root = underForbiddenRoot(abs);
  if (root) invalid(`cannot create ${what} '${abs}': ${root} is a system pseudo file system`);
  const missing: string[] = [];
  let p = abs;
  for (;;) {
    const st = yield* lstatOrNull(p, what);
    if (st !== null) {
      let s = st;
      if (st.isSymbolicLink()) {
        const t = yield* call<Stats>({ op: 'stat', path: p });
        if (isErr(t)) invalid(`cannot create ${what} '${abs}': '${p}' is a dangling symbolic link`);
        s = t;
      }
      if (!s.isDirectory()) invalid(`cannot create ${what} '${abs}': '${p}' is ${kindOf(s)}, not a directory`);
      // a linked folder may lead into /proc or /sys
      const real = yield* call<string>({ op: 'realpath', path: p });
      const linkedRoot = isErr(real) ? null : underForbiddenRoot(real);
      if (linkedRoot)
        invalid(`cannot create ${what} '${abs}': '${p}' leads under ${linkedRoot}, a system pseudo file system`);
      break;
    }
    missing.push(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  return { abs, missing: missing.reverse() };
}

function* ensureDirSteps(dir: string, what: string): Steps<string> {
  const { abs, missing } = yield* planDir(dir, what);
  for (const m of missing) {
    const r = yield* call<void>({ op: 'mkdir', path: m });
    if (!isErr(r)) continue;
    if (r.code === 'EEXIST' && (yield* lstatOrNull(m, what))?.isDirectory()) continue;
    invalid(`cannot create ${what} '${abs}': ${m === abs ? '' : `'${m}': `}${errnoText(r)}`);
  }
  return abs;
}

function* dirTarget(dir: string, what: string): Steps<string> {
  const { abs, missing } = yield* planDir(dir, what);
  const existing = missing.length ? dirname(missing[0]!) : abs;
  const r = yield* call<void>({ op: 'access', path: existing });
  if (isErr(r))
    invalid(`cannot ${missing.length ? 'create' : 'write into'} ${what} '${abs}': ${errnoText(r)} on '${existing}'`);
  return abs;
}

/**
 * The path may be (re)written: see writeTarget. Returns the absolute path.
 */
export function checkWriteTarget(path: string, what = 'output'): string {
  return runSync(writeTarget(path, what));
}

/** checkWriteTarget on the promise API, and its directory is (or can be created as) one outside /proc and /sys. */
export async function checkWriteTargetAsync(path: string, what = 'output'): Promise<string> {
  const abs = await runAsync(writeTarget(path, what));
  await runAsync(planDir(dirname(abs), `directory of ${what}`));
  return abs;
}

/**
 * Create a directory and its missing parents, one level at a time (never
 * Node's recursive mkdir, which loops forever under /proc). An existing path
 * that is not a directory is refused.
 */
export function ensureDir(dir: string, what = 'output directory'): string {
  return runSync(ensureDirSteps(dir, what));
}

/**
 * Check, without creating anything, that `dir` is a directory or could be
 * created: its nearest existing ancestor is a directory we may write into,
 * and it is not under /proc or /sys.
 */
export function checkDirTarget(dir: string, what = 'output directory'): string {
  return runSync(dirTarget(dir, what));
}

/** checkDirTarget on the promise API. */
export function checkDirTargetAsync(dir: string, what = 'output directory'): Promise<string> {
  return runAsync(dirTarget(dir, what));
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

function* sweepSteps(dir: string, force: boolean): Steps<number> {
  const abs = resolve(dir);
  const last = swept.get(abs);
  if (!force && last !== undefined && Date.now() - last < SWEEP_AGAIN_MS) return 0;
  swept.set(abs, Date.now());
  const names = yield* call<string[]>({ op: 'readdir', path: abs });
  if (isErr(names)) return 0;
  const now = Date.now();
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const m = /^(\d+)-/.exec(name.slice(TEMP_PREFIX.length));
    const file = join(abs, name);
    const st = yield* call<Stats>({ op: 'lstat', path: file });
    if (isErr(st) || !st.isFile()) continue;
    const dead = m ? !pidAlive(Number(m[1])) : true;
    // gone already, or not ours to remove: skip
    if ((dead || now - st.mtimeMs > STALE_TEMP_AGE_MS) && !isErr(yield* call<void>({ op: 'unlink', path: file })))
      removed++;
  }
  return removed;
}

let tempSeq = 0;

/** A fresh temp path in the directory of `path` (the final name is kept as a suffix for readability). */
function tempPathFor(path: string): string {
  const abs = resolve(path);
  const base = basename(abs).slice(0, 100);
  return join(dirname(abs), `${TEMP_PREFIX}${process.pid}-${Date.now().toString(36)}-${++tempSeq}-${base}`);
}

function* publishSteps(tmp: string, path: string, what: string): Steps<void> {
  let failure: unknown = null;
  try {
    yield* writeTarget(path, what);
    const r = yield* call<void>({ op: 'rename', path: tmp, to: path });
    if (isErr(r)) failure = r;
  } catch (e) {
    failure = e;
  }
  if (failure !== null) {
    yield* call<void>({ op: 'unlink', path: tmp }); // not there: fine
    if (failure instanceof MechError) throw failure;
    invalid(`cannot write ${what} '${path}': ${errnoText(failure)}`);
  }
  // directories cannot be fsynced on some platforms: a failure here is not one
  yield* call<void>({ op: 'fsyncDir', path: dirname(resolve(path)) });
}

/**
 * Move a finished temp file onto `path`, refusing (and removing the temp
 * file) when something other than a regular file has appeared there.
 */
export function publishTemp(tmp: string, path: string, what = 'output'): void {
  runSync(publishSteps(tmp, path, what));
}

function* prepareSteps(path: string, what: string): Steps<string> {
  const abs = yield* writeTarget(path, what);
  yield* ensureDirSteps(dirname(abs), `directory of ${what}`);
  yield* sweepSteps(dirname(abs), false);
  return tempPathFor(abs);
}

/**
 * Prepare an atomic write of `path`: the target may be replaced, its
 * directory exists (created if needed), stale temp files there are swept.
 * Returns the temp path to write.
 */
export function prepareWrite(path: string, what = 'output'): string {
  return runSync(prepareSteps(path, what));
}

function* writeAtomicSteps(path: string, data: string | Uint8Array, what: string): Steps<string> {
  const abs = resolve(path);
  const tmp = yield* prepareSteps(abs, what);
  const w = yield* call<void>({ op: 'writeNew', path: tmp, data });
  if (isErr(w)) {
    yield* call<void>({ op: 'unlink', path: tmp }); // not created: fine
    invalid(`cannot write ${what} '${abs}': ${errnoText(w)}`);
  }
  yield* publishSteps(tmp, abs, what);
  return abs;
}

/**
 * Write text or bytes to `path` atomically (temp file in the same directory,
 * fsync, rename, fsync the directory). Returns the absolute path.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, what = 'output'): string {
  return runSync(writeAtomicSteps(path, data, what));
}

/**
 * writeFileAtomic for a server that must not block its event loop on disk:
 * the same checks (lstat-only, never an open of the target), temp naming and
 * stale sweep, every call on the promise API.
 */
export function writeFileAtomicAsync(path: string, data: string | Uint8Array, what = 'output'): Promise<string> {
  return runAsync(writeAtomicSteps(path, data, what));
}
