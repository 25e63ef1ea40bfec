/**
 * Web mode's file transfers: how bytes leave the server as a browser
 * download and enter it as a browser upload, without the page ever seeing or
 * naming a path on the server's machine.
 *
 * The host writes an export (a channel CSV, the released CSV of apply, a
 * project) into this process's private folder (mode 0700 under the OS temp
 * folder) and offers it under a one-time, unguessable token: the page gets
 * `/download/TOKEN` and the file's name as the user will know it; the web
 * server serves it once (then deletes it) to a GET carrying that token.
 * An upload is the reverse: the page asks for a slot (a token, a name and a
 * byte cap) over its WebSocket, POSTs the picked file's bytes to
 * `/upload/TOKEN` and then names the token in the call that uses the file.
 * Tokens expire after TRANSFER_TTL_MS; every file is removed with the
 * folder when the host closes.
 *
 * The folder is bounded while the server runs: upload slots (each counted at
 * the size the page announced, from the slot on), downloads not yet fetched
 * and the unpacked channels of uploaded projects together hold at most
 * TEMP_MAX_BYTES, and at most TEMP_MAX_ITEMS slots and downloads wait at
 * once; a slot or download past either cap is refused with one message
 * naming it. Expired slots and downloads are removed (at every call and once
 * a minute); an uploaded project's channels are removed once they have gone
 * UNPACKED_TTL_MS without being read, and beyond the UNPACKED_MAX_FOLDERS
 * most recently read.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { ApiError } from '../../src-shared/protocol';

/** How long an offered download or an upload slot stays valid. */
export const TRANSFER_TTL_MS = 15 * 60 * 1000;
/**
 * Largest file the page may upload (a project with its kept channels): larger ones are refused with 413 before they are
 * stored.
 */
export const MAX_UPLOAD_BYTES = 256 * 2 ** 20;
/** Bytes the private folder may hold: upload slots, downloads not yet fetched, uploaded projects' channels. */
export const TEMP_MAX_BYTES = 2 * 2 ** 30;
/** Upload slots and downloads waiting at once. */
export const TEMP_MAX_ITEMS = 64;
/** An uploaded project's unpacked channels are removed after this long without being read. */
export const UNPACKED_TTL_MS = 60 * 60 * 1000;
/** Uploaded projects whose channels are kept at once (the channel store looks in its 20 most recent folders). */
const UNPACKED_MAX_FOLDERS = 20;
/** How often expired items are removed when no call comes. */
const SWEEP_MS = 60 * 1000;

/** Caps of the private folder and the clock expiry is measured by (tests pass their own). */
interface TransfersOptions {
  now?: () => number;
  maxBytes?: number;
  maxItems?: number;
}

/** A byte count as messages give it: `2 GiB`, `1.5 MiB`, `812 bytes`. */
export function bytesText(n: number): string {
  if (n >= 2 ** 30 && n % 2 ** 30 === 0) return `${n / 2 ** 30} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(n % 2 ** 20 === 0 ? 0 : 1)} MiB`;
  return n === 1 ? '1 byte' : `${n} bytes`;
}

/** A file the page may download once: the URL to fetch and the name the browser saves it under. */
interface DownloadOffer {
  url: string;
  name: string;
  bytes: number;
}

interface Offered {
  file: string;
  name: string;
  mime: string;
  bytes: number;
  expires: number;
}

interface Slot {
  file: string;
  name: string;
  maxBytes: number;
  /** What the page announced (held from the slot on; the body may not be larger). */
  bytes: number;
  expires: number;
  received: boolean;
}

/** An uploaded project's unpacked channel folder. */
interface Held {
  bytes: number;
  lastRead: number;
  onExpire: () => void;
}

/** One HTTP answer of a transfer route: status and a one-line text for the page. */
interface TransferAnswer {
  status: number;
  message: string;
}

const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** A file name as a browser may save it: no folders, no control characters, at most 120 characters. */
export function downloadName(name: string, fallback = 'download'): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-').replace(/^[.\s-]+/, '');
  return clean.slice(0, 120) || fallback;
}

export class Transfers {
  private folder: Promise<string> | null = null;
  private readonly offered = new Map<string, Offered>();
  private readonly slots = new Map<string, Slot>();
  private readonly held = new Map<string, Held>();
  private serial = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;
  readonly maxBytes: number;
  readonly maxItems: number;

  constructor(opts: TransfersOptions | (() => number) = {}) {
    const o = typeof opts === 'function' ? { now: opts } : opts;
    this.now = o.now ?? Date.now;
    this.maxBytes = o.maxBytes ?? TEMP_MAX_BYTES;
    this.maxItems = o.maxItems ?? TEMP_MAX_ITEMS;
  }

  /** This process's private folder (created on first use, 0700); from then on expired items are swept once a minute. */
  private dir(): Promise<string> {
    if (!this.folder) {
      this.folder = mkdtemp(join(tmpdir(), 'mechstudio-web-'));
      this.timer = setInterval(() => this.prune(), SWEEP_MS);
      this.timer.unref();
    }
    return this.folder;
  }

  /** Bytes the private folder holds (slots at their announced size). */
  get usedBytes(): number {
    let n = 0;
    for (const m of [this.offered, this.slots, this.held] as Map<string, { bytes: number }>[])
      for (const v of m.values()) n += v.bytes;
    return n;
  }

  /**
   * Refuse `what` when `bytes` more (and `items` more slots or downloads) would pass a cap: one line naming the cap.
   */
  private room(what: string, bytes: number, items: number): void {
    const waiting = this.offered.size + this.slots.size;
    const later = `fetch the downloads waiting, or try again when they expire (${TRANSFER_TTL_MS / 60_000} minutes)`;
    if (waiting + items > this.maxItems)
      throw new ApiError({
        code: 'too-large',
        message: `${what}: the server already holds ${waiting} downloads and uploads waiting, its cap of ${this.maxItems}; ${later}`,
      });
    const used = this.usedBytes;
    if (used + bytes > this.maxBytes || (bytes === 0 && used >= this.maxBytes))
      throw new ApiError({
        code: 'too-large',
        message: `${what} does not fit in the server's temporary space, capped at ${bytesText(this.maxBytes)}: ${bytesText(used)} is held by downloads not yet fetched, uploads not yet opened and uploaded projects' channels; ${later}`,
      });
  }

  /**
   * A fresh path in the private folder for a file the host is about to write (its name is never shown); refused when
   * the folder is full.
   */
  async newFile(ext: string, what = 'the download'): Promise<string> {
    this.room(what, 0, 1);
    return this.file(ext);
  }

  private async file(ext: string): Promise<string> {
    return join(await this.dir(), `f${++this.serial}${ext}`);
  }

  /** A fresh private folder (0700) in the private folder, e.g. for the kept channels of an uploaded project. */
  async newFolder(what = 'the upload'): Promise<string> {
    this.room(what, 0, 0);
    const d = join(await this.dir(), `d${++this.serial}`);
    await mkdir(d, { mode: 0o700 });
    return d;
  }

  /**
   * Offer a written file as a one-time download under `name` (the file is the offer's from now on; removed when over a
   * cap).
   */
  async offer(file: string, name: string, mime: string): Promise<DownloadOffer> {
    this.prune();
    const bytes = (await stat(file)).size;
    const safe = downloadName(name);
    try {
      this.room(`${safe} (${bytesText(bytes)})`, bytes, 1);
    } catch (e) {
      await rm(file, { force: true });
      throw e;
    }
    const token = randomBytes(24).toString('base64url');
    this.offered.set(token, { file, name: safe, mime, bytes, expires: this.now() + TRANSFER_TTL_MS });
    return { url: `/download/${token}`, name: safe, bytes };
  }

  /**
   * Keep `dir` (an uploaded project's unpacked channels, made by newFolder) until it goes UNPACKED_TTL_MS
   * without being read (touch), then remove it and call `onExpire`. Refused (and removed) over the byte cap;
   * an empty folder is removed at once. Returns its bytes.
   */
  async hold(dir: string, what: string, onExpire: () => void): Promise<number> {
    this.prune();
    const bytes = await folderBytes(dir);
    if (bytes === 0) {
      await rm(dir, { recursive: true, force: true });
      return 0;
    }
    try {
      this.room(`${what}'s kept channels (${bytesText(bytes)})`, bytes, 0);
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      throw e;
    }
    while (this.held.size >= UNPACKED_MAX_FOLDERS) {
      const [oldest] = [...this.held.entries()].sort((a, b) => a[1].lastRead - b[1].lastRead);
      await this.expire(oldest![0], oldest![1]);
    }
    this.held.set(dir, { bytes, lastRead: this.now(), onExpire });
    return bytes;
  }

  /** A channel was read from `dir`: its expiry starts again. */
  touch(dir: string): void {
    const h = this.held.get(dir);
    if (h) h.lastRead = this.now();
  }

  /** Remove a folder of the private folder now (held or not). */
  async release(dir: string): Promise<void> {
    this.held.delete(dir);
    await rm(dir, { recursive: true, force: true });
  }

  private async expire(dir: string, h: Held): Promise<void> {
    this.held.delete(dir);
    h.onExpire();
    await rm(dir, { recursive: true, force: true });
  }

  /** The offered file for `token`, taken (a second GET gets nothing); null when unknown or expired. */
  take(token: string): { file: string; name: string; mime: string } | null {
    this.prune();
    const o = TOKEN.test(token) ? this.offered.get(token) : undefined;
    if (!o) return null;
    this.offered.delete(token);
    return { file: o.file, name: o.name, mime: o.mime };
  }

  /**
   * A slot for one upload of at most `maxBytes` of the user's file `name`: the URL the page POSTs to and the token it
   * names later.
   */
  async slot(
    name: string,
    maxBytes: number = MAX_UPLOAD_BYTES,
    announced: number = maxBytes,
  ): Promise<{ url: string; token: string }> {
    this.prune();
    const safe = downloadName(name, 'upload');
    const bytes = Math.min(maxBytes, announced);
    this.room(`${safe} (${bytesText(bytes)})`, bytes, 1);
    const token = randomBytes(24).toString('base64url');
    const file = await this.file('.upload');
    this.slots.set(token, {
      file,
      name: safe,
      maxBytes,
      bytes,
      expires: this.now() + TRANSFER_TTL_MS,
      received: false,
    });
    return { url: `/upload/${token}`, token };
  }

  /** Store a POSTed body into its slot: at most the slot's bytes, once. */
  async receive(token: string, body: Readable, declared: number | null): Promise<TransferAnswer> {
    this.prune();
    const s = TOKEN.test(token) ? this.slots.get(token) : undefined;
    if (!s || s.received)
      return { status: 404, message: 'this upload link has expired or was used: pick the file again' };
    const cap = s.maxBytes >= 2 ** 20 ? `${Math.floor(s.maxBytes / 2 ** 20)} MiB` : `${s.maxBytes} bytes`;
    const over = (n: number): TransferAnswer =>
      n > s.maxBytes
        ? { status: 413, message: `${s.name} is over the ${cap} the app takes` }
        : {
            status: 413,
            message: `${s.name} is larger than the ${bytesText(s.bytes)} its upload was announced as: pick it again`,
          };
    if (declared !== null && declared > s.bytes) {
      // refused before a byte is stored: the slot is done (the page picks the file again)
      this.slots.delete(token);
      return over(declared);
    }
    s.received = true;
    let seen = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        cb(seen > s.bytes ? new RangeError('over') : null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(s.file, { flags: 'wx', mode: 0o600 }));
    } catch (e) {
      this.slots.delete(token);
      await rm(s.file, { force: true });
      return e instanceof RangeError
        ? over(seen)
        : { status: 400, message: `${s.name} did not arrive whole: pick it again` };
    }
    s.bytes = seen;
    return { status: 204, message: '' };
  }

  /** The uploaded file of `token` (its path, private, and the user's name for it), taken; null when none arrived. */
  claim(token: string): { file: string; name: string } | null {
    this.prune();
    const s = this.slots.get(token);
    if (!s || !s.received) return null;
    this.slots.delete(token);
    return { file: s.file, name: s.name };
  }

  /** sweep() in the background (a file already gone is no error; any other is left for the next sweep). */
  private prune(): void {
    this.sweep().catch(() => undefined);
  }

  /** Remove expired offers and slots with their files, and uploaded projects' channels unread for UNPACKED_TTL_MS. */
  async sweep(): Promise<void> {
    const t = this.now();
    const gone: Promise<void>[] = [];
    for (const map of [this.offered, this.slots] as Map<string, { file: string; expires: number }>[])
      for (const [k, v] of map)
        if (v.expires <= t) {
          map.delete(k);
          gone.push(rm(v.file, { force: true }));
        }
    for (const [dir, h] of this.held) if (h.lastRead + UNPACKED_TTL_MS <= t) gone.push(this.expire(dir, h));
    await Promise.all(gone);
  }

  /** Remove the private folder and everything in it. */
  async dispose(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.offered.clear();
    this.slots.clear();
    this.held.clear();
    const dir = this.folder;
    this.folder = null;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}

/** Bytes of the files directly in `dir` (an unpacked channel folder has no subfolders). */
async function folderBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true }))
    if (e.isFile()) n += (await stat(join(dir, e.name))).size;
  return n;
}
