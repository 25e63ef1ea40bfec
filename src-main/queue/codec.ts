/**
 * What travels through Redis. BullMQ stores job data and return values as
 * JSON, which would turn Infinity, NaN and -0 (results carry them: an
 * effective eps of Infinity, NaN in a table) into null or 0; the local pool
 * passes them through structured clone. So requests and replies travel as
 * one JSON string in which those numbers are tagged, and come back exactly.
 *
 * Job data:     { v: 1, request: TEXT, csv?: true, files?: { PATH: TEXT } }
 *   files: the graph:FILE / csv:FILE domain files the request names, read
 *   by the client (at most MAX_CARRIED_FILE_BYTES together); the worker
 *   serves the engine's reads from them and reads nothing from its disk.
 *   csv: the client wants the channel CSV of a mechanism / capacity job; the
 *   worker writes it to its own temp file (never to a path from the queue)
 *   and returns its bytes, gzipped.
 * Return value: TEXT of { v: 1, reply: WorkerReply, csv?: BASE64 }
 * Failure:      the job fails with "[CODE] message" (UnrecoverableError for
 *   bad input and cancellations: never retried).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { jobErrorSchema, type JobError, workerReplySchema, type WorkerReply } from '../../src-shared/protocol/index';
import { parseDomainSpecText } from '../../src-worker/index';

const TAG = '\u0000num:';
const SPECIAL: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };

/** JSON text with non-finite numbers and -0 tagged. */
export function encodeValue(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== 'number') return v;
    if (Number.isNaN(v)) return `${TAG}NaN`;
    if (v === Infinity) return `${TAG}Infinity`;
    if (v === -Infinity) return `${TAG}-Infinity`;
    if (Object.is(v, -0)) return `${TAG}-0`;
    return v;
  });
}

/** Inverse of encodeValue (throws SyntaxError on text that is not JSON). */
export function decodeValue(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (typeof v === 'string' && v.startsWith(TAG)) {
      const n = SPECIAL[v.slice(TAG.length)];
      if (n !== undefined) return n;
    }
    return v;
  });
}

/**
 * Domain files one queued job may carry, in UTF-8 bytes, all files together:
 * the job data lives in Redis and is copied to the worker, so it stays well
 * under what a worker reads comfortably (the engine's own cap per file is
 * 128 MiB, for local runs).
 */
export const MAX_CARRIED_FILE_BYTES = 64 * 2 ** 20;

/**
 * The request text of one queued job, in UTF-8 bytes. A worker parses it in
 * one go while its lock on the job must stay valid (the lock is renewed just
 * before, for a full lock period: 30 s by default); 128 MiB parse in about
 * 3 s (a 2000 x 2000 channel is 86 MiB), well inside it. A bigger request
 * is refused at submit and failed for good by the worker before parsing:
 * otherwise a parse longer than the lock has the job taken back as stalled
 * and started again, over and over.
 */
export const MAX_QUEUE_REQUEST_BYTES = 128 * 2 ** 20;

/** UTF-8 bytes of text, without encoding it when its length alone decides against `max`. */
function utf8BytesOver(text: string, max: number): number | null {
  if (text.length > max) return text.length; // every UTF-16 unit is at least one byte
  if (text.length * 3 <= max) return null;
  const n = Buffer.byteLength(text, 'utf8');
  return n > max ? n : null;
}

const mib = (n: number): string => `${(n / 2 ** 20).toFixed(n < 10 * 2 ** 20 ? 1 : 0)} MiB`;

/** Why a job's request text is too large for the queue (checked at submit), or null. */
export function requestTooLarge(text: string, max = MAX_QUEUE_REQUEST_BYTES): JobError | null {
  const n = utf8BytesOver(text, max);
  if (n === null) return null;
  return {
    code: 'too-large',
    message: `this job's request is ${mib(n)}, over the ${mib(max)} a job on the queue may carry: run it without the queue, or give its large inputs as files (csv:FILE, graph:FILE)`,
  };
}

/**
 * Job data off the queue that is too large to parse (the request text, the
 * carried files together), checked before anything is parsed, or null.
 */
export function payloadTooLarge(data: unknown): JobError | null {
  if (data === null || typeof data !== 'object') return null;
  const { request, files } = data as { request?: unknown; files?: unknown };
  if (typeof request === 'string') {
    const n = utf8BytesOver(request, MAX_QUEUE_REQUEST_BYTES);
    if (n !== null)
      return {
        code: 'too-large',
        message: `the queued job's request is ${mib(n)}, over the ${mib(MAX_QUEUE_REQUEST_BYTES)} a job may carry`,
      };
  }
  if (files !== null && typeof files === 'object') {
    let total = 0;
    // at least one byte each (the schema counts them exactly)
    for (const t of Object.values(files)) if (typeof t === 'string') total += t.length;
    if (total > MAX_CARRIED_FILE_BYTES)
      return {
        code: 'too-large',
        message: `the queued job's files are over ${mib(MAX_CARRIED_FILE_BYTES)} together, more than a job may carry`,
      };
  }
  return null;
}

/** Job data as BullMQ stores it. */
export const jobDataSchema = z.strictObject({
  v: z.literal(1),
  request: z.string().max(MAX_QUEUE_REQUEST_BYTES),
  csv: z.literal(true).optional(),
  /**
   * The domain files the request names (path as written -> UTF-8 text), read by the client; at most
   * MAX_CARRIED_FILE_BYTES together.
   */
  files: z
    .record(z.string().min(1).max(4096), z.string())
    .refine(
      (f) => Object.values(f).reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0) <= MAX_CARRIED_FILE_BYTES,
      `the domain files of a queued job must be at most ${MAX_CARRIED_FILE_BYTES / 2 ** 20} MiB together`,
    )
    .optional(),
});
export type JobData = z.infer<typeof jobDataSchema>;

/** Job data a worker replaced by its verdict (worker.ts): the job fails with it when next taken. */
export const failedForGoodSchema = z.strictObject({
  failedForGood: z.strictObject({ code: z.enum(['too-large', 'invalid-input']), message: z.string().max(500) }),
});

/** Largest gzipped channel CSV a worker returns through Redis. */
export const MAX_CSV_GZ_BYTES = 128 * 1024 * 1024;

export function encodeReturn(reply: WorkerReply, csv?: Buffer): string {
  return encodeValue(csv ? { v: 1, reply, csv: gzipSync(csv).toString('base64') } : { v: 1, reply });
}

const returnSchema = z.strictObject({ v: z.literal(1), reply: z.unknown(), csv: z.string().optional() });

/** A worker's return value: the validated reply and the CSV bytes, or a JobError saying what is wrong with it. */
export function decodeReturn(value: unknown): { reply: WorkerReply; csv?: Buffer } | { error: JobError } {
  const bad = (why: string): { error: JobError } => ({
    error: { code: 'internal', message: `a queue worker sent a malformed reply (${why})` },
  });
  if (typeof value !== 'string') return bad('not text');
  let parsed: unknown;
  try {
    parsed = decodeValue(value);
  } catch {
    return bad('not JSON');
  }
  const env = returnSchema.safeParse(parsed);
  if (!env.success) return bad('no reply record');
  const r = workerReplySchema.safeParse(env.data.reply);
  if (!r.success) {
    const issue = r.error.issues[0];
    return bad(
      `${issue && issue.path.length ? `at ${issue.path.map(String).join('.')}: ` : ''}${issue?.message ?? ''}`,
    );
  }
  if (env.data.csv === undefined) return { reply: r.data };
  try {
    return { reply: r.data, csv: gunzipSync(Buffer.from(env.data.csv, 'base64')) };
  } catch {
    return bad('the channel CSV does not unpack');
  }
}

/** "[code] message": how a failed job carries its JobError in BullMQ's failedReason. */
export function failureText(error: JobError): string {
  return `[${error.code}] ${error.message}`;
}

/**
 * Inverse of failureText; a reason without a code (BullMQ's own, e.g. stalled too often) is 'crashed' or 'internal'.
 */
export function parseFailure(reason: string | undefined): JobError {
  const text = reason ?? 'the job failed without a reason';
  const m = /^\[([a-z-]+)\] ([\s\S]*)$/.exec(text);
  if (m) {
    const e = jobErrorSchema.safeParse({ code: m[1], message: m[2] });
    if (e.success) return e.data;
  }
  if (/stalled/i.test(text))
    return {
      code: 'crashed',
      message: `the job's worker stopped (killed or cut off from Redis) too many times: ${text}`,
    };
  return { code: 'internal', message: `a queue worker failed: ${text}` };
}

/** A graph:FILE / csv:FILE domain of a request: its text and the file as the engine would open it. */
interface FileDomain {
  spec: string;
  file: string;
}

/**
 * graph:FILE / csv:FILE domains anywhere in a request (a `domain` field at
 * any depth: requests, mechanism specs, a run-project's domains). The engine
 * reads such files where the job runs; a queued job carries them instead
 * (JobData.files), so a worker never reads its own machine's files.
 */
export function fileDomainRefs(request: unknown): FileDomain[] {
  const found: FileDomain[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === 'domain' && typeof x === 'string') {
        try {
          const parsed = parseDomainSpecText(x).parsed;
          if (parsed.kind === 'graph' || parsed.kind === 'csv') found.push({ spec: x.trim(), file: parsed.file });
        } catch {
          // malformed: the engine's own validation reports it
        }
      } else if (typeof x === 'object') walk(x, depth + 1);
    }
  };
  walk(request, 0);
  return found;
}

/** The domain texts of fileDomainRefs. */
export function fileDomains(request: unknown): string[] {
  return fileDomainRefs(request).map((r) => r.spec);
}

/**
 * The files a job must carry, checked against what it carries: every file its
 * domains name, and nothing else. Returns the JobError to fail with, or null.
 */
export function carriedFilesError(request: unknown, files: Readonly<Record<string, string>>): JobError | null {
  const needed = new Set(fileDomainRefs(request).map((r) => r.file));
  for (const f of needed) {
    if (!Object.hasOwn(files, f))
      return {
        code: 'invalid-input',
        message: `the domain file '${f.slice(0, 200)}' was not sent with the job: a job on the queue carries the files its domains name`,
      };
  }
  for (const f of Object.keys(files)) {
    if (!needed.has(f))
      return {
        code: 'invalid-input',
        message: `the job carries a file its domains do not name ('${f.slice(0, 200)}')`,
      };
  }
  return null;
}
