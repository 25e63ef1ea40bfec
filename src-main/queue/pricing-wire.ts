/**
 * The wire of the queue pricing (pricing-master.ts, pricing-service.ts): key
 * names, the version a master and a worker must share, and the frames they
 * exchange through Redis lists. A frame is binary: 'MSP1', the length of a
 * JSON header (u32, little-endian), the header, then the raw bytes of the
 * typed arrays it lists ([name, type, length] in order). Float64Arrays travel
 * as their 8 bytes each, never as JSON text, and come out bit for bit.
 * Nothing read from Redis is trusted: a frame whose sizes do not add up, or
 * whose header does not parse, is refused with a message naming what is wrong.
 *
 * Authentication. With a queue secret (MECHSTUDIO_QUEUE_SECRET, or the file
 * MECHSTUDIO_QUEUE_SECRET_FILE names, the same on the master and every
 * worker) every frame starts 'MSS2' and ends with its HMAC-SHA256 under the
 * secret, and every registration carries one: a process that can write to
 * the Redis but does not hold the secret can neither register as a worker
 * nor answer for one. Without a secret frames start 'MSP2' and nothing is
 * authenticated (the master says so once); either way the master recomputes
 * every bound a worker sends (src-worker/lp/pricing/pricing-certificate.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { MechError } from '../../src-shared/errors';
import { QUEUE_PREFIX } from './connection';
import { packageVersion } from '../fs/package-version';

/** Raised when a master and a worker would not read each other's frames the same way. */
const PRICING_PROTOCOL = 2;

/** What a worker advertises and a master expects: the package version and the frame protocol. */
export function pricingVersion(): string {
  // unknown: 0.0.0 (only equal unknowns match)
  return `${packageVersion() ?? '0.0.0'}/pricing-${PRICING_PROTOCOL}`;
}

/** A pricing worker's registration (renewed while it lives; it lapses lockMs after the worker dies). */
export const workerKey = (id: string): string => `${QUEUE_PREFIX}:pricing:worker:${id}`;
export const WORKER_KEY_PATTERN = `${QUEUE_PREFIX}:pricing:worker:*`;
/** The list a worker takes its frames from, and the list a master takes its replies from. */
export const inboxKey = (id: string): string => `${QUEUE_PREFIX}:pricing:inbox:${id}`;
export const replyKey = (id: string): string => `${QUEUE_PREFIX}:pricing:reply:${id}`;

const registrationSchema = z.object({
  id: z.string().min(1).max(200),
  version: z.string().max(200),
  threads: z.int().min(1).max(4096),
  host: z.string().max(300),
  pid: z.int(),
});
export type Registration = z.infer<typeof registrationSchema>;

type Typed = Float64Array | Int32Array | Uint8Array;
const KINDS = { f64: Float64Array, i32: Int32Array, u8: Uint8Array } as const;
type Kind = keyof typeof KINDS;
const kindOf = (a: Typed): Kind => (a instanceof Float64Array ? 'f64' : a instanceof Int32Array ? 'i32' : 'u8');

const MAGIC = Buffer.from('MSP2');
const SIGNED = Buffer.from('MSS2');
const TAG_BYTES = 32;
/** Shortest queue secret accepted (bytes of text). */
const MIN_SECRET_LENGTH = 16;

/**
 * The queue secret from the environment (see above), or undefined when none is set; a short or unreadable one is
 * refused.
 */
export function pricingKey(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  let text = env.MECHSTUDIO_QUEUE_SECRET;
  const file = env.MECHSTUDIO_QUEUE_SECRET_FILE;
  if (!text && file) {
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (e) {
      throw new MechError(
        'invalid-input',
        `MECHSTUDIO_QUEUE_SECRET_FILE: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  }
  if (!text) return undefined;
  if (text.length < MIN_SECRET_LENGTH)
    throw new MechError(
      'invalid-input',
      `the queue secret must be at least ${MIN_SECRET_LENGTH} characters (it has ${text.length})`,
    );
  return Buffer.from(text, 'utf8');
}

const tagOf = (key: Buffer, body: Buffer): Buffer => createHmac('sha256', key).update(body).digest();

/** A registration as stored in Redis: its JSON, with `sig` (the HMAC of the JSON without it) when there is a key. */
export function signedRegistration(r: Registration, key: Buffer | undefined): string {
  const body = JSON.stringify(r);
  return key ? JSON.stringify({ ...r, sig: tagOf(key, Buffer.from(body)).toString('hex') }) : body;
}

/**
 * A stored registration read back, or why it is not believed (it does not parse, or its signature is missing or wrong).
 */
export function readRegistration(text: string | null, key: Buffer | undefined): Registration | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text ?? 'null');
  } catch {
    return 'its registration is not JSON';
  }
  const sig = raw !== null && typeof raw === 'object' ? (raw as { sig?: unknown }).sig : undefined;
  const parsed = registrationSchema.safeParse(raw);
  if (!parsed.success) return 'its registration does not parse';
  const r = parsed.data;
  if (!key)
    return sig === undefined
      ? r
      : 'its registration is signed but this master has no queue secret (MECHSTUDIO_QUEUE_SECRET)';
  if (typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig))
    return "its registration is not signed with this queue's secret";
  const want = tagOf(key, Buffer.from(JSON.stringify(r)));
  return timingSafeEqual(want, Buffer.from(sig, 'hex')) ? r : "its registration is not signed with this queue's secret";
}
/** Largest header (JSON) and frame accepted. */
const MAX_HEADER = 1 << 20;
export interface Frame {
  head: Record<string, unknown>;
  arrays: Record<string, Typed>;
}

export function encodeFrame(
  head: Record<string, unknown>,
  arrays: Record<string, Typed | undefined> = {},
  key?: Buffer,
): Buffer {
  const list: [string, Kind, number][] = [];
  const parts: Buffer[] = [];
  for (const [name, a] of Object.entries(arrays)) {
    if (!a) continue;
    list.push([name, kindOf(a), a.length]);
    parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  }
  const json = Buffer.from(JSON.stringify({ ...head, a: list }));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  if (!key) return Buffer.concat([MAGIC, len, json, ...parts]);
  const body = Buffer.concat([SIGNED, len, json, ...parts]);
  return Buffer.concat([body, tagOf(key, body)]);
}

const listSchema = z.array(z.tuple([z.string().max(40), z.enum(['f64', 'i32', 'u8']), z.int().min(0)])).max(16);

/** A frame read from Redis; with a key, only one signed with it (see above). */
export function decodeFrame(raw: Buffer, key?: Buffer): Frame {
  const bad = (why: string): never => {
    throw new MechError('invalid-input', `a pricing frame from Redis is malformed: ${why}`);
  };
  const magic = raw.subarray(0, 4);
  let buf = raw;
  if (key) {
    if (!magic.equals(SIGNED))
      bad(magic.equals(MAGIC) ? "it is not signed with this queue's secret" : 'it does not start with MSS2');
    if (raw.length < 8 + TAG_BYTES) bad('it is too short for its signature');
    buf = raw.subarray(0, raw.length - TAG_BYTES);
    if (!timingSafeEqual(tagOf(key, buf), raw.subarray(raw.length - TAG_BYTES)))
      bad("its signature does not match this queue's secret");
  } else if (!magic.equals(MAGIC))
    bad(
      magic.equals(SIGNED)
        ? 'it is signed but this side has no queue secret (MECHSTUDIO_QUEUE_SECRET)'
        : 'it does not start with MSP2',
    );
  if (buf.length < 8) bad('it is too short');
  const hl = buf.readUInt32LE(4);
  if (hl > MAX_HEADER || 8 + hl > buf.length) bad(`header length ${hl} of a ${buf.length}-byte frame`);
  let head: Record<string, unknown>;
  try {
    head = JSON.parse(buf.subarray(8, 8 + hl).toString('utf8')) as Record<string, unknown>;
  } catch {
    return bad('the header is not JSON');
  }
  if (head === null || typeof head !== 'object' || Array.isArray(head)) bad('the header is not an object');
  const list = listSchema.safeParse(head.a);
  if (!list.success) bad('the array list does not parse');
  let at = 8 + hl;
  const arrays: Record<string, Typed> = {};
  for (const [name, kind, length] of list.data!) {
    const C = KINDS[kind];
    const bytes = length * C.BYTES_PER_ELEMENT;
    if (at + bytes > buf.length) bad(`array ${name} runs past the end`);
    // a copy: the Buffer's offset need not be aligned for 8-byte elements
    const a = new C(length);
    new Uint8Array(a.buffer).set(buf.subarray(at, at + bytes));
    arrays[name] = a;
    at += bytes;
  }
  if (at !== buf.length) bad(`${buf.length - at} bytes left after the arrays`);
  delete head.a;
  return { head, arrays };
}

/** The arrays of a frame that must be there, of the expected type and length (null: any length). */
export function need<K extends Kind>(
  frame: Frame,
  name: string,
  kind: K,
  length: number | null,
): InstanceType<(typeof KINDS)[K]> {
  const a = frame.arrays[name];
  if (!a || kindOf(a) !== kind || (length !== null && a.length !== length))
    throw new MechError(
      'invalid-input',
      `a pricing frame from Redis lacks ${name} (${kind}${length !== null ? ` x ${length}` : ''})`,
    );
  return a as InstanceType<(typeof KINDS)[K]>;
}

/** Pricing rows as three arrays of a frame. */
export function rowsArrays(rows: { from: Int32Array; to: Int32Array; factor: Float64Array }): Record<string, Typed> {
  return { from: rows.from, to: rows.to, factor: rows.factor };
}

/** The pricing rows of a frame, each secret index checked against n. */
export function frameRows(frame: Frame, n: number): { from: Int32Array; to: Int32Array; factor: Float64Array } {
  const from = need(frame, 'from', 'i32', null);
  const to = need(frame, 'to', 'i32', from.length);
  const factor = need(frame, 'factor', 'f64', from.length);
  for (let k = 0; k < from.length; k++) {
    const a = from[k]!;
    const b = to[k]!;
    const f = factor[k]!;
    if (!(a >= 0 && a < n && b >= 0 && b < n && f > 0 && Number.isFinite(f)))
      throw new MechError(
        'invalid-input',
        `a pricing frame from Redis has a bad row ${k}: ${a} <= ${f} * ${b} (n = ${n})`,
      );
  }
  return { from, to, factor };
}
