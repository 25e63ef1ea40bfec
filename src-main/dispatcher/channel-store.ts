/**
 * Channels the app host keeps: a mechanism job asked with keepChannel has its
 * whole channel stored here, content-addressed, and later measure, check,
 * rows, export and apply requests name it by `channelRef` instead of carrying
 * the matrix through the page (an optimal LP is never solved again for them).
 *
 * In memory: Float64Arrays on SharedArrayBuffers (workers read them in
 * place), bounded by total entries, least recently used dropped first.
 *
 * On disk (so that a kept channel survives a restart of the app or server):
 * every channel is written, as soon as it is kept, to the app's channel
 * cache (`<config dir>/channels/`, bounded, oldest dropped first), which is
 * what keeps the channels of a project never saved; saving a project writes
 * the channels its results name into the folder beside the project file
 * (`NAME.channels/` for `NAME.json`), its durable home. A channel is two
 * files named by its id:
 *
 *   ch-<id>.f64   the doubles, row-major, Float64 little-endian (rows x cols x 8 bytes)
 *   ch-<id>.json  its record: format, id, rows, cols, labels, sha256 of the
 *                 doubles file, and what produced it (the mechanism request,
 *                 a summary of its result, when)
 *
 * The id is `ch-` + the first 32 hex digits of sha256(shape, labels, doubles),
 * so a channel read back is checked against its own name: the doubles file's
 * sha256, its size, the labels' counts and the id must all agree, or the
 * channel is refused with one message naming the file and what is wrong
 * (and the page shows its result as not kept). A lookup finds a channel in
 * memory, then in the folders of the projects opened or saved, then in the
 * cache.
 */
import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as fsp from 'node:fs/promises';
import { z } from 'zod';
import type { ChannelPayload } from '../../src-shared/protocol/index';
import { keptRowSource, type KeptChannel } from '../../src-worker/index';
import { checkRegularFile, ensureDir, REFUSE_SYSTEM_FS, writeFileAtomicAsync } from '../fs/safe-fs';
import { messageOf } from '../../src-shared/errors';

/** Total entries kept in memory (8 bytes each; 3e7 = 240 MB). */
const CHANNEL_STORE_MAX_ENTRIES = 30_000_000;
/** Bytes the app's channel cache on disk may hold (oldest files dropped first). */
const CHANNEL_CACHE_MAX_BYTES = 4 * 2 ** 30;
/** Largest record file (labels) read back. */
const MAX_RECORD_BYTES = 256 * 2 ** 20;
/** Largest doubles file read back (2^31 bytes: 16,384 x 16,384). */
const MAX_DATA_BYTES = 2 ** 31;

const CHANNEL_ID = /^ch-[0-9a-f]{32}$/;
const LITTLE_ENDIAN = endianness() === 'LE';

/** What produced a kept channel (its record's `producedBy`): the request, a summary of the result, when. */
type ChannelOrigin = {
  request?: Record<string, unknown>;
  summary?: Record<string, unknown>;
  computedAt: string;
};

const recordSchema = z.object({
  format: z.literal('mechstudio-channel'),
  version: z.literal(1),
  id: z.string().regex(CHANNEL_ID),
  rows: z.int().min(1),
  cols: z.int().min(1),
  dtype: z.literal('float64le'),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rowLabels: z.array(z.string()),
  colLabels: z.array(z.string()),
  producedBy: z.looseObject({ computedAt: z.string() }).optional(),
});
type ChannelRecord = z.infer<typeof recordSchema>;

/** A kept channel's place: found (in memory now) or not, with the reason in one sentence. */
type ChannelLookup = { ok: true; channel: KeptChannel } | { ok: false; problem: string };

/** The doubles as little-endian bytes (a view on little-endian hosts, a swapped copy elsewhere). */
function leBytes(data: Float64Array): Uint8Array {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (LITTLE_ENDIAN) return bytes;
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 8) for (let k = 0; k < 8; k++) out[i + k] = bytes[i + 7 - k]!;
  return out;
}

/** The channel's id: sha256 over its shape, labels and doubles (little-endian), 32 hex digits. */
export function channelId(ch: KeptChannel): string {
  const h = createHash('sha256');
  h.update(`${ch.rows}x${ch.cols}\n`);
  h.update(JSON.stringify(ch.rowLabels));
  h.update(JSON.stringify(ch.colLabels));
  h.update(leBytes(ch.data));
  return `ch-${h.digest('hex').slice(0, 32)}`;
}

/** A channel payload (number arrays) as a kept channel in shared memory. */
function keptFromPayload(ch: ChannelPayload): KeptChannel {
  const data = new Float64Array(new SharedArrayBuffer(ch.rows * ch.cols * 8));
  data.set(ch.data);
  return { rows: ch.rows, cols: ch.cols, data, rowLabels: ch.rowLabels, colLabels: ch.colLabels };
}

/** The folder that holds a project file's channels: NAME.channels beside NAME.json. */
export function channelFolderOf(projectPath: string): string {
  const base = basename(projectPath).replace(/\.json$/i, '');
  return join(dirname(projectPath), `${base}.channels`);
}

/** The kept channels a project's results name (its mechanisms' channelRefs). */
export function projectChannelRefs(project: { results?: Record<string, { result: unknown }> | undefined }): string[] {
  const refs = new Set<string>();
  for (const k of Object.values(project.results ?? {})) {
    const r = k.result as { type?: unknown; channelRef?: unknown };
    if (r.type === 'mechanism' && typeof r.channelRef === 'string') refs.add(r.channelRef);
  }
  return [...refs];
}

const dataFile = (dir: string, id: string): string => join(dir, `${id}.f64`);
const recordFile = (dir: string, id: string): string => join(dir, `${id}.json`);

/** Write a channel's two files into `dir` (atomic each; the doubles first, so a record always has its data). */
async function writeChannelFiles(
  dir: string,
  id: string,
  ch: KeptChannel,
  origin: ChannelOrigin | undefined,
): Promise<void> {
  ensureDir(dir, 'channel folder');
  const bytes = leBytes(ch.data);
  await writeFileAtomicAsync(dataFile(dir, id), bytes, 'kept channel');
  const record: ChannelRecord = {
    format: 'mechstudio-channel',
    version: 1,
    id,
    rows: ch.rows,
    cols: ch.cols,
    dtype: 'float64le',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    rowLabels: ch.rowLabels,
    colLabels: ch.colLabels,
    ...(origin ? { producedBy: origin } : {}),
  };
  await writeFileAtomicAsync(recordFile(dir, id), JSON.stringify(record), 'kept channel record');
}

/** Whether `dir` holds a complete copy of channel `id` (its record and a doubles file of the record's size). */
async function hasChannelFiles(dir: string, id: string): Promise<boolean> {
  try {
    const rec = recordSchema.parse(JSON.parse(await fsp.readFile(recordFile(dir, id), 'utf8')));
    const st = await fsp.stat(dataFile(dir, id));
    return st.isFile() && st.size === rec.rows * rec.cols * 8;
  } catch {
    return false;
  }
}

/**
 * Read channel `id` from `dir`, checked: null when its record is not there, else the channel or what is wrong with it.
 */
async function readChannelFiles(dir: string, id: string): Promise<ChannelLookup | null> {
  const recPath = recordFile(dir, id);
  const where = (p: string): string => `the kept channel file ${p}`;
  try {
    await fsp.lstat(recPath);
  } catch {
    return null;
  }
  const bad = (p: string, why: string): ChannelLookup => ({
    ok: false,
    problem: `${where(p)} ${why}: compute its mechanism again`,
  });
  let rec: ChannelRecord;
  try {
    await checkRegularFile(recPath, 'kept channel record', MAX_RECORD_BYTES, REFUSE_SYSTEM_FS);
    const parsed = recordSchema.safeParse(JSON.parse(await fsp.readFile(recPath, 'utf8')));
    if (!parsed.success) return bad(recPath, 'is not a channel record');
    rec = parsed.data;
  } catch (e) {
    return bad(recPath, `cannot be read (${messageOf(e).split('\n')[0]})`);
  }
  if (rec.id !== id) return bad(recPath, `names another channel (${rec.id})`);
  if (rec.rowLabels.length !== rec.rows || rec.colLabels.length !== rec.cols)
    return bad(
      recPath,
      `has ${rec.rowLabels.length} row and ${rec.colLabels.length} column labels for a ${rec.rows} x ${rec.cols} channel`,
    );
  const datPath = dataFile(dir, id);
  const expected = rec.rows * rec.cols * 8;
  let bytes: Buffer;
  try {
    const { size } = await checkRegularFile(datPath, 'kept channel', MAX_DATA_BYTES, REFUSE_SYSTEM_FS);
    if (size !== expected)
      return bad(datPath, `has ${size} bytes, not the ${expected} of a ${rec.rows} x ${rec.cols} channel of doubles`);
    bytes = await fsp.readFile(datPath);
  } catch (e) {
    return bad(
      datPath,
      /no such file|ENOENT/i.test(messageOf(e)) ? 'is missing' : `cannot be read (${messageOf(e).split('\n')[0]})`,
    );
  }
  if (bytes.length !== expected) return bad(datPath, `has ${bytes.length} bytes, not ${expected}`);
  if (createHash('sha256').update(bytes).digest('hex') !== rec.sha256)
    return bad(datPath, 'does not match its sha256 (it was changed or damaged)');
  const shared = new SharedArrayBuffer(expected);
  const view = new Uint8Array(shared);
  if (LITTLE_ENDIAN) view.set(bytes);
  else for (let i = 0; i < expected; i += 8) for (let k = 0; k < 8; k++) view[i + k] = bytes[i + 7 - k]!;
  const channel: KeptChannel = {
    rows: rec.rows,
    cols: rec.cols,
    data: new Float64Array(shared),
    rowLabels: rec.rowLabels,
    colLabels: rec.colLabels,
  };
  if (channelId(channel) !== id) return bad(datPath, 'does not hash to its name (labels or doubles changed)');
  // a name and a sha256 anyone can recompute: the doubles themselves must be a channel (finite, >= 0, rows summing to
  // 1)
  try {
    keptRowSource(channel, 'channel');
  } catch (e) {
    return bad(datPath, `is not a channel of probabilities (${messageOf(e).replace(/^channel: /, '')})`);
  }
  return { ok: true, channel };
}

interface ChannelStoreOptions {
  /** Entries kept in memory (default CHANNEL_STORE_MAX_ENTRIES). */
  maxEntries?: number;
  /** The app's channel cache on disk (default none: kept in memory only, as for the CLI and tests). */
  cacheDir?: string | null;
  /** Bytes the cache may hold (default CHANNEL_CACHE_MAX_BYTES). */
  cacheMaxBytes?: number;
}

export class ChannelStore {
  private readonly kept = new Map<string, KeptChannel>();
  private readonly origins = new Map<string, ChannelOrigin>();
  private entries = 0;
  private readonly maxEntries: number;
  readonly cacheDir: string | null;
  private readonly cacheMaxBytes: number;
  /** Folders of projects opened or saved, most recent first: where their channels are looked for. */
  private readonly folders: string[] = [];
  /** Names messages give folders the user does not know by their path (addFolder's shownAs). */
  private readonly shown = new Map<string, string>();
  /** Told the folder a channel was read back from (web mode keeps an uploaded project's folder while it is read). */
  private readonly folderReaders = new Set<(dir: string) => void>();
  /** Writes to the cache still running (save and close wait for them). */
  private readonly pending = new Set<Promise<void>>();
  /** Why the last cache write failed, if it did (the channel is then kept in memory only). */
  cacheProblem: string | null = null;

  constructor(opts: ChannelStoreOptions | number = {}) {
    const o = typeof opts === 'number' ? { maxEntries: opts } : opts;
    this.maxEntries = o.maxEntries ?? CHANNEL_STORE_MAX_ENTRIES;
    this.cacheDir = o.cacheDir ?? null;
    this.cacheMaxBytes = o.cacheMaxBytes ?? CHANNEL_CACHE_MAX_BYTES;
  }

  /**
   * Keep a channel (in memory now, in the cache on disk soon); returns its id (the same channel always gets the same
   * id).
   */
  put(ch: KeptChannel | ChannelPayload, origin?: ChannelOrigin): string {
    const channel = ch.data instanceof Float64Array ? (ch as KeptChannel) : keptFromPayload(ch as ChannelPayload);
    const id = channelId(channel);
    if (origin && !this.origins.has(id)) this.origins.set(id, origin);
    const known = this.kept.has(id);
    this.remember(id, this.kept.get(id) ?? channel);
    if (!known && this.cacheDir !== null) this.track(this.writeCache(id, channel));
    return id;
  }

  /** The channel kept in memory under `id` (marked as recently used), or undefined. */
  get(id: string): KeptChannel | undefined {
    const c = this.kept.get(id);
    if (c) {
      this.kept.delete(id);
      this.kept.set(id, c);
    }
    return c;
  }

  /** Channels in memory. */
  get size(): number {
    return this.kept.size;
  }

  /**
   * Look for the channels of a project in `dir` too (a project's NAME.channels folder). `shownAs`: how messages name
   * the folder when it is no folder the user knows (web mode's uploaded project: the file's name).
   */
  addFolder(dir: string, shownAs?: string): void {
    if (shownAs !== undefined) this.shown.set(dir, shownAs);
    const i = this.folders.indexOf(dir);
    if (i >= 0) this.folders.splice(i, 1);
    this.folders.unshift(dir);
    if (this.folders.length > 20) this.folders.pop();
  }

  /** Look in `dir` no more (its files were removed). */
  removeFolder(dir: string): void {
    const i = this.folders.indexOf(dir);
    if (i >= 0) this.folders.splice(i, 1);
    this.shown.delete(dir);
  }

  /** Call `listener` with each project folder a channel is read back from; returns its removal. */
  onFolderRead(listener: (dir: string) => void): () => void {
    this.folderReaders.add(listener);
    return () => this.folderReaders.delete(listener);
  }

  /**
   * Find channel `id`: in memory, else read back (and checked) from the
   * project folders, then the cache. A damaged copy is reported rather than
   * passed over, unless another place holds a good one.
   */
  async locate(id: string): Promise<ChannelLookup> {
    const mem = this.get(id);
    if (mem) return { ok: true, channel: mem };
    if (!CHANNEL_ID.test(id)) return { ok: false, problem: `${id} is not the id of a channel this app keeps` };
    let problem: string | null = null;
    for (const dir of [...this.folders, ...(this.cacheDir !== null ? [this.cacheDir] : [])]) {
      const r = await readChannelFiles(dir, id);
      if (r === null) continue;
      if (r.ok) {
        this.remember(id, r.channel);
        if (dir !== this.cacheDir) for (const l of this.folderReaders) l(dir);
        return r;
      }
      const label = this.shown.get(dir);
      problem ??= label === undefined ? r.problem : r.problem.split(dir).join(label);
    }
    return {
      ok: false,
      problem:
        problem ??
        `the channel ${id} is no longer kept by the app (its files are in neither the project's channel folder nor the app's cache): compute its mechanism again`,
    };
  }

  /**
   * Write the channels `ids` into a project's folder (good copies already
   * there are left as they are) and remove the folder's channels no longer named;
   * a channel that cannot be found is reported, not written.
   */
  async saveTo(
    dir: string,
    ids: readonly string[],
  ): Promise<{ written: string[]; missing: { id: string; problem: string }[] }> {
    await this.flush();
    const want = new Set(ids);
    const written: string[] = [];
    const missing: { id: string; problem: string }[] = [];
    for (const id of want) {
      // a copy already there is kept only when it reads back whole (a damaged one is written again)
      if ((await readChannelFiles(dir, id))?.ok) continue;
      const r = await this.locate(id);
      if (!r.ok) {
        missing.push({ id, problem: r.problem });
        continue;
      }
      await writeChannelFiles(dir, id, r.channel, this.origins.get(id));
      written.push(id);
    }
    let names: string[] = [];
    try {
      names = await fsp.readdir(dir);
    } catch {
      /* no folder: nothing to remove */
    }
    for (const f of names) {
      const m = /^(ch-[0-9a-f]{32})\.(f64|json)$/.exec(f);
      if (m && !want.has(m[1]!)) await fsp.rm(join(dir, f), { force: true });
    }
    if (want.size === 0) await fsp.rmdir(dir).catch(() => undefined);
    else this.addFolder(dir);
    return { written, missing };
  }

  /** Wait for the cache writes still running. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private remember(id: string, ch: KeptChannel): void {
    if (this.kept.has(id)) this.kept.delete(id);
    else this.entries += ch.rows * ch.cols;
    this.kept.set(id, ch);
    while (this.entries > this.maxEntries && this.kept.size > 1) {
      const [first, c] = this.kept.entries().next().value as [string, KeptChannel];
      this.kept.delete(first);
      this.entries -= c.rows * c.cols;
    }
  }

  private track(p: Promise<void>): void {
    const t = p.finally(() => this.pending.delete(t));
    this.pending.add(t);
  }

  private async writeCache(id: string, ch: KeptChannel): Promise<void> {
    const dir = this.cacheDir!;
    try {
      if (!(await hasChannelFiles(dir, id))) await writeChannelFiles(dir, id, ch, this.origins.get(id));
      this.cacheProblem = null;
      await this.pruneCache(id);
    } catch (e) {
      this.cacheProblem = `the channel ${id} could not be written to the app's cache ${dir} (${messageOf(e).split('\n')[0]}); it is kept in memory until the app stops`;
    }
  }

  /** Drop the cache's oldest channels beyond its byte budget (never `keep`). */
  private async pruneCache(keep: string): Promise<void> {
    const dir = this.cacheDir!;
    const files: { id: string; size: number; mtime: number }[] = [];
    for (const f of await fsp.readdir(dir)) {
      const m = /^(ch-[0-9a-f]{32})\.f64$/.exec(f);
      if (!m) continue;
      const st = await fsp.stat(join(dir, f)).catch(() => null);
      if (st) files.push({ id: m[1]!, size: st.size, mtime: st.mtimeMs });
    }
    let total = files.reduce((s, f) => s + f.size, 0);
    files.sort((a, b) => a.mtime - b.mtime);
    for (const f of files) {
      if (total <= this.cacheMaxBytes) break;
      if (f.id === keep) continue;
      await fsp.rm(dataFile(dir, f.id), { force: true });
      await fsp.rm(recordFile(dir, f.id), { force: true });
      total -= f.size;
    }
  }
}
