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
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';

/** How long an offered download or an upload slot stays valid. */
export const TRANSFER_TTL_MS = 15 * 60 * 1000;
/** Largest file the page may upload (a project with its kept channels): larger ones are refused with 413 before they are stored. */
export const MAX_UPLOAD_BYTES = 256 * 2 ** 20;

/** A file the page may download once: the URL to fetch and the name the browser saves it under. */
export interface DownloadOffer {
  url: string;
  name: string;
  bytes: number;
}

interface Offered {
  file: string;
  name: string;
  mime: string;
  expires: number;
}

interface Slot {
  file: string;
  name: string;
  maxBytes: number;
  expires: number;
  received: boolean;
}

/** One HTTP answer of a transfer route: status and a one-line text for the page. */
export interface TransferAnswer {
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
  private serial = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** This process's private folder (created on first use, 0700). */
  private dir(): Promise<string> {
    this.folder ??= mkdtemp(join(tmpdir(), 'mechstudio-web-'));
    return this.folder;
  }

  /** A fresh path in the private folder for a file the host is about to write (its name is never shown). */
  async newFile(ext: string): Promise<string> {
    return join(await this.dir(), `f${++this.serial}${ext}`);
  }

  /** A fresh private folder (0700) in the private folder, e.g. for the kept channels of an uploaded project. */
  async newFolder(): Promise<string> {
    const d = join(await this.dir(), `d${++this.serial}`);
    await mkdir(d, { mode: 0o700 });
    return d;
  }

  /** Offer a written file as a one-time download under `name` (the file is the offer's from now on). */
  async offer(file: string, name: string, mime: string): Promise<DownloadOffer> {
    this.prune();
    const bytes = (await stat(file)).size;
    const token = randomBytes(24).toString('base64url');
    const safe = downloadName(name);
    this.offered.set(token, { file, name: safe, mime, expires: this.now() + TRANSFER_TTL_MS });
    return { url: `/download/${token}`, name: safe, bytes };
  }

  /** The offered file for `token`, taken (a second GET gets nothing); null when unknown or expired. */
  take(token: string): { file: string; name: string; mime: string } | null {
    this.prune();
    const o = TOKEN.test(token) ? this.offered.get(token) : undefined;
    if (!o) return null;
    this.offered.delete(token);
    return { file: o.file, name: o.name, mime: o.mime };
  }

  /** A slot for one upload of at most `maxBytes` of the user's file `name`: the URL the page POSTs to and the token it names later. */
  async slot(name: string, maxBytes: number = MAX_UPLOAD_BYTES): Promise<{ url: string; token: string }> {
    this.prune();
    const token = randomBytes(24).toString('base64url');
    const file = await this.newFile('.upload');
    this.slots.set(token, { file, name: downloadName(name, 'upload'), maxBytes, expires: this.now() + TRANSFER_TTL_MS, received: false });
    return { url: `/upload/${token}`, token };
  }

  /** Store a POSTed body into its slot: at most the slot's bytes, once. */
  async receive(token: string, body: Readable, declared: number | null): Promise<TransferAnswer> {
    this.prune();
    const s = TOKEN.test(token) ? this.slots.get(token) : undefined;
    if (!s || s.received) return { status: 404, message: 'this upload link has expired or was used: pick the file again' };
    const cap = s.maxBytes >= 2 ** 20 ? `${Math.floor(s.maxBytes / 2 ** 20)} MiB` : `${s.maxBytes} bytes`;
    const over = (): TransferAnswer => ({ status: 413, message: `${s.name} is over the ${cap} the app takes` });
    if (declared !== null && declared > s.maxBytes) return over();
    s.received = true;
    let seen = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        cb(seen > s.maxBytes ? new RangeError('over') : null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(s.file, { flags: 'wx', mode: 0o600 }));
    } catch (e) {
      this.slots.delete(token);
      await rm(s.file, { force: true });
      return e instanceof RangeError ? over() : { status: 400, message: `${s.name} did not arrive whole: pick it again` };
    }
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

  /** Drop expired offers and slots with their files. */
  private prune(): void {
    const t = this.now();
    for (const map of [this.offered, this.slots] as Map<string, { file: string; expires: number }>[])
      for (const [k, v] of map)
        if (v.expires <= t) {
          map.delete(k);
          void rm(v.file, { force: true });
        }
  }

  /** Remove the private folder and everything in it. */
  async dispose(): Promise<void> {
    this.offered.clear();
    this.slots.clear();
    const dir = this.folder;
    this.folder = null;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}
