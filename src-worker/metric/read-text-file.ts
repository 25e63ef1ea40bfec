import { MechError, invalid } from '../../src-shared/errors';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import { fileKind, ioReason, type StatKind } from '../base/file-kind';

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
 *    code, never the file's content.
 */

interface FsLike {
  statSync(p: string): StatKind & { size: number };
  fstatSync(fd: number): { isFile(): boolean; size: number };
  openSync(p: string, flags: number): number;
  readSync(fd: number, buf: Uint8Array, off: number, len: number, pos: number | null): number;
  closeSync(fd: number): void;
  constants: { O_RDONLY: number; O_NONBLOCK?: number };
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
export async function withCarriedFiles<T>(files: Readonly<Record<string, string>> | undefined, f: () => Promise<T>): Promise<T> {
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
  if (text === undefined) invalid(`${what} '${file}' was not sent with this job: a job from the queue reads only the files its client sent`);
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > maxBytes) throw tooBig(file, what, bytes, maxBytes);
  return text;
}

/** Read FILE as UTF-8 text under the rules above; `what` names the file's role ('distance file'). */
export function readRegularTextFile(file: string, what: string, maxBytes = ADMISSION_LIMITS.maxFileBytes, fs: FsLike | undefined = nodeFs()): string {
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
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    invalid(`cannot read ${what} '${file}': ${ioReason(e)}`);
  }
  try {
    if (!fs.fstatSync(fd).isFile()) invalid(`cannot read ${what} '${file}': it is not a regular file`);
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

const human = (b: number): string => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(b >= 10 * 2 ** 20 ? 0 : 1)} MiB` : `${b} bytes`);

/** `bytes`: the size stat() reported, or how far the read got when it stopped one byte past the cap. */
function tooBig(file: string, what: string, bytes: number, maxBytes: number): MechError {
  return new MechError(
    'too-large',
    `${what} '${file}' is ${bytes > maxBytes + 1 ? human(bytes) : `over ${human(maxBytes)}`}; at most ${human(maxBytes)} are read (a larger domain could not be validated and used in bounded time anyway)`,
    { bytes, limit: maxBytes },
  );
}
