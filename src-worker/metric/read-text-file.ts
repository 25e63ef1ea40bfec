import { MechError, invalid } from '../../src-shared/errors';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import { fileKind, ioReason, type StatKind } from '../base/file-kind';
import { LINK_AT_OPEN, confinedProblem, confinedRefusal, descriptorLink } from '../base/confined-open';

/**
 * The engine's one way to read a text file a job names (graph:FILE,
 * csv:FILE domains). A job may come from a web client, so the path is
 * hostile until proven otherwise:
 *
 *  - regular files only: stat() first (it never blocks, even on a FIFO), so
 *    /dev/zero, /dev/urandom, FIFOs, sockets and directories are refused at
 *    once with one message naming the file and what it is;
 *  - opened with O_NONBLOCK and checked again on the descriptor (a path
 *    swapped for a FIFO between stat and open cannot block the worker);
 *  - at most `maxBytes` bytes (ADMISSION_LIMITS.maxFileBytes): the read stops
 *    one byte past the cap, so /proc files that claim size 0 but never end
 *    cost nothing;
 *  - an I/O error (EIO on /proc/self/mem, ...) names the file and the error
 *    code, never the file's content;
 *  - in web mode (withConfinedReads: the workspace root, given with each
 *    task by the dispatcher) the path was checked by the host, but it may
 *    have changed since: the last name is opened without following a link
 *    and the descriptor is checked (real path under the root, one link
 *    only: base/confined-open.ts) before a byte is read.
 */

interface FsLike {
  statSync(p: string): StatKind & { size: number; dev?: number; ino?: number };
  fstatSync(fd: number): { isFile(): boolean; size: number; nlink: number; dev: number; ino: number };
  openSync(p: string, flags: number): number;
  readSync(fd: number, buf: Uint8Array, off: number, len: number, pos: number | null): number;
  closeSync(fd: number): void;
  readlinkSync(p: string): string;
  realpathSync(p: string): string;
  constants: { O_RDONLY: number; O_NONBLOCK?: number; O_NOFOLLOW?: number };
}

/** The workspace root every read of this thread is confined to (web mode), or null (CLI, Electron). */
let confinedRoot: string | null = null;

/** Confine every later read of this thread to `root` (a real path), or lift the confinement with null. */
export function confineEngineReads(root: string | null): void {
  confinedRoot = root;
}

/** Run `f` with this thread's reads confined to `root` (one job per thread at a time, as for carried files). */
export async function withConfinedReads<T>(root: string | undefined, f: () => Promise<T>): Promise<T> {
  if (root === undefined) return f();
  confineEngineReads(root);
  try {
    return await f();
  } finally {
    confineEngineReads(null);
  }
}

/** Why the opened descriptor may not be read under `root` (see base/confined-open.ts), or null. */
function openedProblem(fs: FsLike, fd: number, file: string, root: string): string | null {
  const st = fs.fstatSync(fd);
  let real: string;
  try {
    real = fs.readlinkSync(descriptorLink(fd));
  } catch {
    // no /proc: the name's real path, if it is still the inode opened
    try {
      real = fs.realpathSync(file);
      const now = fs.statSync(real);
      if (now.dev !== st.dev || now.ino !== st.ino) return 'changed while it was opened; nothing was read';
    } catch {
      return 'changed while it was opened; nothing was read';
    }
  }
  return confinedProblem(root, real, st.nlink);
}

function nodeFs(): FsLike | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:fs') as FsLike | undefined;
}

/**
 * Files a job carries with it (a job from the Redis queue: its client read
 * them, src-main/queue/codec.ts). While a job with carried files runs, every
 * read is served from them and a file not among them is refused: that job
 * never reads this machine's files. One job runs per worker thread at a time
 * (piscina's default), so the set belongs to the running job.
 */
let carried: ReadonlyMap<string, string> | null = null;

/** Run `f` with reads served from `files` (path as the domain names it -> text) instead of the file system. */
export async function withCarriedFiles<T>(
  files: Readonly<Record<string, string>> | undefined,
  f: () => Promise<T>,
): Promise<T> {
  if (files === undefined) return f();
  carried = new Map(Object.entries(files));
  try {
    return await f();
  } finally {
    carried = null;
  }
}

function readCarried(files: ReadonlyMap<string, string>, file: string, what: string, maxBytes: number): string {
  const text = files.get(file);
  if (text === undefined)
    invalid(`${what} '${file}' was not sent with this job: a job from the queue reads only the files its client sent`);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > maxBytes) throw tooBig(file, what, bytes, maxBytes);
  return text;
}

/** Read FILE as UTF-8 text under the rules above; `what` names the file's role ('distance file'). */
export function readRegularTextFile(
  file: string,
  what: string,
  maxBytes = ADMISSION_LIMITS.maxFileBytes,
  fs: FsLike | undefined = nodeFs(),
): string {
  if (carried !== null) return readCarried(carried, file, what, maxBytes);
  if (!fs) invalid(`${what} '${file}' cannot be read here (no file system)`);
  if (file.includes('\0')) invalid(`${what} path contains a NUL character`);
  let st: ReturnType<FsLike['statSync']>;
  try {
    st = fs.statSync(file);
  } catch (e) {
    invalid(`cannot read ${what} '${file}': ${ioReason(e)}`);
  }
  if (!st.isFile()) invalid(`cannot read ${what} '${file}': it is ${fileKind(st)}, not a regular file`);
  if (st.size > maxBytes) throw tooBig(file, what, st.size, maxBytes);
  const root = confinedRoot;
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (root !== null ? (fs.constants.O_NOFOLLOW ?? 0) : 0),
    );
  } catch (e) {
    if (root !== null && (e as { code?: unknown })?.code === 'ELOOP') throw confinedRefusal(what, file, LINK_AT_OPEN);
    invalid(`cannot read ${what} '${file}': ${ioReason(e)}`);
  }
  try {
    if (!fs.fstatSync(fd).isFile()) invalid(`cannot read ${what} '${file}': it is not a regular file`);
    const problem = root === null ? null : openedProblem(fs, fd, file, root);
    if (problem !== null) throw confinedRefusal(what, file, problem);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const buf = new Uint8Array(Math.min(1 << 20, maxBytes + 1 - total));
      let got: number;
      try {
        got = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        invalid(`cannot read ${what} '${file}': ${ioReason(e)}`);
      }
      if (got === 0) break;
      chunks.push(got === buf.length ? buf : buf.subarray(0, got));
      total += got;
      if (total > maxBytes) throw tooBig(file, what, total, maxBytes);
    }
    const all = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) (all.set(c, at), (at += c.length));
    return new TextDecoder('utf-8').decode(all);
  } finally {
    try {
      fs.closeSync(fd);
    } catch {
      /* closing a read-only descriptor cannot lose data */
    }
  }
}

const human = (b: number): string =>
  b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(b >= 10 * 2 ** 20 ? 0 : 1)} MiB` : `${b} bytes`;

/** `bytes`: the size stat() reported, or how far the read got when it stopped one byte past the cap. */
function tooBig(file: string, what: string, bytes: number, maxBytes: number): MechError {
  return new MechError(
    'too-large',
    `${what} '${file}' is ${bytes > maxBytes + 1 ? human(bytes) : `over ${human(maxBytes)}`}; at most ${human(maxBytes)} are read (a larger domain could not be validated and used in bounded time anyway)`,
    { bytes, limit: maxBytes },
  );
}
