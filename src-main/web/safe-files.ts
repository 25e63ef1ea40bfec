/**
 * Paths a web (or Electron) client gives the host: regular files only, with
 * byte caps, and nothing that can block the event loop or a libuv thread.
 *
 * - Reads: realpath, refuse /proc and /sys (size-0 "regular" files that
 *   read forever or fail with EIO), stat: regular file under the cap, then
 *   open with O_NONBLOCK (a FIFO swapped in after the stat cannot block the
 *   open) and fstat again before reading at most cap + 1 bytes.
 * - Writes: the nearest existing ancestor must be a real folder outside
 *   /proc and /sys (a recursive mkdir under /proc loops in Node), the target
 *   must be absent or a regular file; the bytes go to a temp file in the same
 *   folder, are fsynced, then renamed over the target.
 * All file-system calls are the promise API (libuv thread pool), never sync.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { MechError } from '../../src-worker/errors';

/** Project files (a resolved project embeds its priors as numbers). */
export const MAX_PROJECT_BYTES = 64 * 2 ** 20;
/** CSV priors, losses and case-study parameters the host reads for a project. */
export const MAX_DATA_FILE_BYTES = 64 * 2 ** 20;
/** Domain files (graph:FILE, csv:FILE) the engine reads: the engine's own cap (ADMISSION_LIMITS.maxFileBytes). */
export const MAX_DOMAIN_FILE_BYTES = 128 * 2 ** 20;

const PSEUDO_ROOTS = ['/proc', '/sys'];

function isPseudo(real: string): boolean {
  return PSEUDO_ROOTS.some((r) => real === r || real.startsWith(r + sep));
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException | null)?.code ?? '';
}

function reason(e: unknown): string {
  const c = errCode(e);
  if (c === 'ENOENT') return 'no such file';
  if (c === 'EACCES' || c === 'EPERM') return 'permission denied';
  if (c === 'ENOTDIR') return 'a part of the path is not a folder';
  if (c === 'ELOOP') return 'too many symbolic links';
  if (c === 'ENAMETOOLONG') return 'the path is too long';
  return c || 'unreadable';
}

function mib(n: number): string {
  return `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MiB`;
}

/** Check that `path` is a regular file of at most `maxBytes` (no read). Returns its real path. */
export async function checkRegularFile(path: string, what: string, maxBytes: number): Promise<{ real: string; size: number }> {
  if (path.includes('\0')) throw new MechError('invalid-input', `${what} path contains a NUL byte`);
  let real: string;
  try {
    real = await realpath(resolve(path));
  } catch (e) {
    throw new MechError('invalid-input', `cannot read ${what} '${path}': ${reason(e)}`);
  }
  if (isPseudo(real)) throw new MechError('invalid-input', `${what} '${path}' is not a regular file (files under /proc and /sys are refused)`);
  let st;
  try {
    st = await stat(real);
  } catch (e) {
    throw new MechError('invalid-input', `cannot read ${what} '${path}': ${reason(e)}`);
  }
  if (st.isDirectory()) throw new MechError('invalid-input', `${what} '${path}' is a folder, not a file`);
  if (!st.isFile()) throw new MechError('invalid-input', `${what} '${path}' is not a regular file (a FIFO, device or socket)`);
  if (st.size > maxBytes) throw new MechError('too-large', `${what} '${path}' is ${mib(st.size)}, over the ${mib(maxBytes)} limit`);
  return { real, size: st.size };
}

/** Read a regular file of at most `maxBytes` as UTF-8, without ever blocking on a FIFO or device. */
export async function readRegularFile(path: string, what: string, maxBytes: number): Promise<string> {
  const { real } = await checkRegularFile(path, what, maxBytes);
  let fh;
  try {
    fh = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    throw new MechError('invalid-input', `cannot read ${what} '${path}': ${reason(e)}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new MechError('invalid-input', `${what} '${path}' is not a regular file (a FIFO, device or socket)`);
    if (st.size > maxBytes) throw new MechError('too-large', `${what} '${path}' is ${mib(st.size)}, over the ${mib(maxBytes)} limit`);
    // Read to EOF but never past the cap (a file may grow after the stat).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(buf, 0, buf.length, null));
      } catch (e) {
        throw new MechError('invalid-input', `cannot read ${what} '${path}': ${reason(e)}`);
      }
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new MechError('too-large', `${what} '${path}' is over the ${mib(maxBytes)} limit`);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The nearest existing ancestor of `abs` (realpath), and the folders still to create. */
async function existingAncestor(abs: string): Promise<string> {
  let cur = abs;
  for (let i = 0; i < 256; i++) {
    try {
      return await realpath(cur);
    } catch (e) {
      if (errCode(e) !== 'ENOENT') throw e;
      const up = dirname(cur);
      if (up === cur) throw e;
      cur = up;
    }
  }
  throw new MechError('invalid-input', `the path '${abs}' is too deep`);
}

/**
 * Check that `path` may be written: outside /proc and /sys, in a folder (or
 * one that can be created), and absent or a regular file. Returns the
 * absolute path.
 */
export async function checkWriteTarget(path: string, what: string): Promise<string> {
  if (path.includes('\0')) throw new MechError('invalid-input', `${what} path contains a NUL byte`);
  const abs = resolve(path);
  let anc: string;
  try {
    anc = await existingAncestor(dirname(abs));
  } catch (e) {
    if (e instanceof MechError) throw e;
    throw new MechError('invalid-input', `cannot write ${what} '${path}': ${reason(e)}`);
  }
  if (isPseudo(anc)) throw new MechError('invalid-input', `cannot write ${what} '${path}': files under /proc and /sys are refused`);
  const ast = await stat(anc).catch(() => null);
  if (!ast?.isDirectory()) throw new MechError('invalid-input', `cannot write ${what} '${path}': '${anc}' is not a folder`);
  let st;
  try {
    st = await lstat(abs);
  } catch (e) {
    if (errCode(e) === 'ENOENT') return abs;
    throw new MechError('invalid-input', `cannot write ${what} '${path}': ${reason(e)}`);
  }
  if (st.isSymbolicLink()) {
    const target = await stat(abs).catch(() => null);
    if (target && !target.isFile()) throw new MechError('invalid-input', `cannot write ${what} '${path}': it links to something that is not a regular file`);
    const real = await realpath(abs).catch(() => abs);
    if (isPseudo(real)) throw new MechError('invalid-input', `cannot write ${what} '${path}': files under /proc and /sys are refused`);
    return abs;
  }
  if (st.isDirectory()) throw new MechError('invalid-input', `cannot write ${what} '${path}': it is a folder`);
  if (!st.isFile()) throw new MechError('invalid-input', `cannot write ${what} '${path}': only a regular file is replaced, and this is a FIFO, device or socket`);
  return abs;
}

/** Check that `dir` is (or can be created as) a folder outside /proc and /sys. Returns the absolute path. */
export async function checkOutputDir(dir: string, what: string): Promise<string> {
  if (dir.includes('\0')) throw new MechError('invalid-input', `${what} path contains a NUL byte`);
  const abs = resolve(dir);
  let anc: string;
  try {
    anc = await existingAncestor(abs);
  } catch (e) {
    if (e instanceof MechError) throw e;
    throw new MechError('invalid-input', `cannot write into ${what} '${dir}': ${reason(e)}`);
  }
  if (isPseudo(anc)) throw new MechError('invalid-input', `cannot write into ${what} '${dir}': folders under /proc and /sys are refused`);
  const st = await stat(anc).catch(() => null);
  if (!st?.isDirectory()) throw new MechError('invalid-input', `cannot write into ${what} '${dir}': '${anc}' is not a folder`);
  return abs;
}

/** Write `data` to `path` atomically (temp file in the same folder, fsync, rename), after checkWriteTarget. */
export async function writeFileAtomic(path: string, data: string, what: string): Promise<string> {
  const abs = await checkWriteTarget(path, what);
  const dir = dirname(abs);
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw new MechError('invalid-input', `cannot write ${what} '${path}': ${reason(e)}`);
  }
  const tmp = join(dir, `.${basename(abs)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fh;
  try {
    fh = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    await fh.writeFile(data);
    await fh.sync();
    await fh.close();
    fh = undefined;
    // the target may have been swapped for a FIFO/device since the check: rename replaces the entry, never writes into it
    await rename(tmp, abs);
  } catch (e) {
    await fh?.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw new MechError('invalid-input', `cannot write ${what} '${path}': ${reason(e)}`);
  }
  return abs;
}
