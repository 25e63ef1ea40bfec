/**
 * File-system steps: each check of safe-fs.ts is written once, as a generator of the file-system calls it needs, and
 * run either synchronously (the CLI: runSync) or on the promise API (the web server, which must never block its event
 * loop: runAsync). A step's answer is its value or its error, so a check decides on errors as on values.
 */
import {
  accessSync,
  readlinkSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { descriptorLink } from '../../src-worker/index';

/** One file-system call a check needs; its answer is the value or the error. */
type Step =
  | { op: PathOp | 'fsyncDir'; path: string }
  | { op: 'rename'; path: string; to: string }
  | { op: 'writeNew'; path: string; data: string | Uint8Array }
  | { op: 'openRead'; path: string; noFollow: boolean }
  | { op: 'fstat' | 'close' | 'fdPath'; fd: Fd }
  | { op: 'read'; fd: Fd; buf: Buffer; len: number; pos: number | null };
/** A descriptor: a number when run sync, a FileHandle when run async. */
export type Fd = number | FileHandle;
type Answer = { ok: true; value: unknown } | { ok: false; err: NodeJS.ErrnoException };
export type Steps<T> = Generator<Step, T, Answer>;

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;

/** The calls that take only a path, run sync or async (access asks for write and search permission). */
const PATH_CALLS = {
  stat: { sync: (p: string) => statSync(p), async: (p: string) => fsp.stat(p) },
  lstat: { sync: (p: string) => lstatSync(p), async: (p: string) => fsp.lstat(p) },
  realpath: { sync: (p: string) => realpathSync(p), async: (p: string) => fsp.realpath(p) },
  readdir: { sync: (p: string) => readdirSync(p), async: (p: string) => fsp.readdir(p) },
  mkdir: { sync: (p: string) => mkdirSync(p), async: (p: string) => fsp.mkdir(p) },
  unlink: { sync: (p: string) => unlinkSync(p), async: (p: string) => fsp.unlink(p) },
  access: {
    sync: (p: string) => accessSync(p, constants.W_OK | constants.X_OK),
    async: (p: string) => fsp.access(p, constants.W_OK | constants.X_OK),
  },
};
type PathOp = keyof typeof PATH_CALLS;
const isPathStep = (s: Step): s is { op: PathOp; path: string } => Object.hasOwn(PATH_CALLS, s.op);

function syncCall(s: Step): unknown {
  if (isPathStep(s)) return PATH_CALLS[s.op].sync(s.path);
  switch (s.op) {
    case 'rename':
      return renameSync(s.path, s.to);
    case 'openRead':
      return openSync(s.path, s.noFollow ? READ_FLAGS | NO_FOLLOW : READ_FLAGS);
    case 'fstat':
      return fstatSync(s.fd as number);
    case 'fdPath':
      return readlinkSync(descriptorLink(s.fd as number));
    case 'read':
      return readSync(s.fd as number, s.buf, 0, s.len, s.pos);
    case 'close':
      return closeSync(s.fd as number);
    case 'fsyncDir':
    case 'writeNew': {
      const fd = s.op === 'fsyncDir' ? openSync(s.path, 'r') : openSync(s.path, NEW_FILE_FLAGS, 0o644);
      try {
        if (s.op === 'writeNew') {
          const bytes = typeof s.data === 'string' ? Buffer.from(s.data, 'utf8') : s.data;
          for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      return undefined;
    }
  }
}

async function asyncCall(s: Step): Promise<unknown> {
  if (isPathStep(s)) return PATH_CALLS[s.op].async(s.path);
  switch (s.op) {
    case 'rename':
      return fsp.rename(s.path, s.to);
    case 'openRead':
      return fsp.open(s.path, s.noFollow ? READ_FLAGS | NO_FOLLOW : READ_FLAGS);
    case 'fstat':
      return (s.fd as FileHandle).stat();
    case 'fdPath':
      return fsp.readlink(descriptorLink((s.fd as FileHandle).fd));
    case 'read':
      return (await (s.fd as FileHandle).read(s.buf, 0, s.len, s.pos)).bytesRead;
    case 'close':
      return (s.fd as FileHandle).close();
    case 'fsyncDir':
    case 'writeNew': {
      const fh = s.op === 'fsyncDir' ? await fsp.open(s.path, 'r') : await fsp.open(s.path, NEW_FILE_FLAGS, 0o644);
      try {
        if (s.op === 'writeNew') await fh.writeFile(s.data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      return undefined;
    }
  }
}

export function runSync<T>(g: Steps<T>, beforeStep?: (s: Step) => void): T {
  let r = g.next(undefined as unknown as Answer);
  while (!r.done) {
    let a: Answer;
    try {
      beforeStep?.(r.value);
      a = { ok: true, value: syncCall(r.value) };
    } catch (e) {
      a = { ok: false, err: e as NodeJS.ErrnoException };
    }
    r = g.next(a);
  }
  return r.value;
}

export async function runAsync<T>(g: Steps<T>): Promise<T> {
  let r = g.next(undefined as unknown as Answer);
  while (!r.done) {
    let a: Answer;
    try {
      a = { ok: true, value: await asyncCall(r.value) };
    } catch (e) {
      a = { ok: false, err: e as NodeJS.ErrnoException };
    }
    r = g.next(a);
  }
  return r.value;
}

/** One step whose value is a T, or the error (an Error, never a T). */
export function* call<T>(s: Step): Generator<Step, T | NodeJS.ErrnoException, Answer> {
  const a = yield s;
  return a.ok ? (a.value as T) : a.err;
}
export const isErr = (v: unknown): v is NodeJS.ErrnoException => v instanceof Error;
