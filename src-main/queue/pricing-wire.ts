/**
 * The wire of the queue pricing (pricing-master.ts, pricing-service.ts): key
 * names, the version a master and a worker must share, and the frames they
 * exchange through Redis lists. A frame is binary: 'MSP1', the length of a
 * JSON header (u32, little-endian), the header, then the raw bytes of the
 * typed arrays it lists ([name, type, length] in order). Float64Arrays travel
 * as their 8 bytes each, never as JSON text, and come out bit for bit.
 * Nothing read from Redis is trusted: a frame whose sizes do not add up, or
 * whose header does not parse, is refused with a message naming what is wrong.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { MechError } from '../../src-shared/errors';
import { QUEUE_PREFIX } from './connection';

/** Raised when a master and a worker would not read each other's frames the same way. */
export const PRICING_PROTOCOL = 1;

/** What a worker advertises and a master expects: the package version and the frame protocol. */
export function pricingVersion(): string {
  let pkg = '0.0.0';
  try {
    // src-main/queue/*.ts and out/cli/main.js both sit two folders below the package root
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    pkg = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    /* unknown: 0.0.0 (only equal unknowns match) */
  }
  return `${pkg}/pricing-${PRICING_PROTOCOL}`;
}

/** A pricing worker's registration (renewed while it lives; it lapses lockMs after the worker dies). */
export const workerKey = (id: string): string => `${QUEUE_PREFIX}:pricing:worker:${id}`;
export const WORKER_KEY_PATTERN = `${QUEUE_PREFIX}:pricing:worker:*`;
/** The list a worker takes its frames from, and the list a master takes its replies from. */
export const inboxKey = (id: string): string => `${QUEUE_PREFIX}:pricing:inbox:${id}`;
export const replyKey = (id: string): string => `${QUEUE_PREFIX}:pricing:reply:${id}`;

export const registrationSchema = z.object({
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

const MAGIC = Buffer.from('MSP1');
/** Largest header (JSON) and frame accepted. */
const MAX_HEADER = 1 << 20;
export const MAX_FRAME_BYTES = 2 ** 31 - 1;

export interface Frame {
  head: Record<string, unknown>;
  arrays: Record<string, Typed>;
}

export function encodeFrame(head: Record<string, unknown>, arrays: Record<string, Typed | undefined> = {}): Buffer {
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
  return Buffer.concat([MAGIC, len, json, ...parts]);
}

const listSchema = z.array(z.tuple([z.string().max(40), z.enum(['f64', 'i32', 'u8']), z.int().min(0)])).max(16);

export function decodeFrame(buf: Buffer): Frame {
  const bad = (why: string): never => {
    throw new MechError('invalid-input', `a pricing frame from Redis is malformed: ${why}`);
  };
  if (buf.length < 8 || !buf.subarray(0, 4).equals(MAGIC)) bad('it does not start with MSP1');
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
export function need<K extends Kind>(frame: Frame, name: string, kind: K, length: number | null): InstanceType<(typeof KINDS)[K]> {
  const a = frame.arrays[name];
  if (!a || kindOf(a) !== kind || (length !== null && a.length !== length))
    throw new MechError('invalid-input', `a pricing frame from Redis lacks ${name} (${kind}${length !== null ? ` x ${length}` : ''})`);
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
      throw new MechError('invalid-input', `a pricing frame from Redis has a bad row ${k}: ${a} <= ${f} * ${b} (n = ${n})`);
  }
  return { from, to, factor };
}
