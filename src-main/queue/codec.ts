/**
 * What travels through Redis. BullMQ stores job data and return values as
 * JSON, which would turn Infinity, NaN and -0 (results carry them: an
 * effective eps of Infinity, NaN in a table) into null or 0; the local pool
 * passes them through structured clone. So requests and replies travel as
 * one JSON string in which those numbers are tagged, and come back exactly.
 *
 * Job data:     { v: 1, request: TEXT, csv?: true }
 *   csv: the client wants the channel CSV of a mechanism / capacity job; the
 *   worker writes it to its own temp file (never to a path from the queue)
 *   and returns its bytes, gzipped.
 * Return value: TEXT of { v: 1, reply: WorkerReply, csv?: BASE64 }
 * Failure:      the job fails with "[CODE] message" (UnrecoverableError for
 *   bad input and cancellations: never retried).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { jobErrorSchema, type JobError } from '../../src-shared/protocol/common';
import { workerReplySchema, type WorkerReply } from '../../src-shared/protocol/messages';
import { parseDomainSpecText } from '../../src-worker/metric/parse-domain-spec';

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

/** Job data as BullMQ stores it. */
export const jobDataSchema = z.strictObject({
  v: z.literal(1),
  request: z.string().max(512 * 1024 * 1024),
  csv: z.literal(true).optional(),
});
export type JobData = z.infer<typeof jobDataSchema>;

/** Largest gzipped channel CSV a worker returns through Redis. */
export const MAX_CSV_GZ_BYTES = 128 * 1024 * 1024;

export function encodeReturn(reply: WorkerReply, csv?: Buffer): string {
  return encodeValue(csv ? { v: 1, reply, csv: gzipSync(csv).toString('base64') } : { v: 1, reply });
}

const returnSchema = z.strictObject({ v: z.literal(1), reply: z.unknown(), csv: z.string().optional() });

/** A worker's return value: the validated reply and the CSV bytes, or a JobError saying what is wrong with it. */
export function decodeReturn(value: unknown): { reply: WorkerReply; csv?: Buffer } | { error: JobError } {
  const bad = (why: string): { error: JobError } => ({ error: { code: 'internal', message: `a queue worker sent a malformed reply (${why})` } });
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
    return bad(`${issue && issue.path.length ? `at ${issue.path.map(String).join('.')}: ` : ''}${issue?.message ?? ''}`);
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

/** Inverse of failureText; a reason without a code (BullMQ's own, e.g. stalled too often) is 'crashed' or 'internal'. */
export function parseFailure(reason: string | undefined): JobError {
  const text = reason ?? 'the job failed without a reason';
  const m = /^\[([a-z-]+)\] ([\s\S]*)$/.exec(text);
  if (m) {
    const e = jobErrorSchema.safeParse({ code: m[1], message: m[2] });
    if (e.success) return e.data;
  }
  if (/stalled/i.test(text)) return { code: 'crashed', message: `the job's worker stopped (killed or cut off from Redis) too many times: ${text}` };
  return { code: 'internal', message: `a queue worker failed: ${text}` };
}

/**
 * graph:FILE / csv:FILE domain texts anywhere in a request (a `domain` field
 * at any depth: requests, mechanism specs, a run-project's domains). The
 * engine reads such files where the job runs, so a queued job must not name
 * one: on a worker it would read that machine's files (whatever a Redis
 * writer asks for), and a project's file on the client's machine is not there.
 */
export function fileDomains(request: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (k === 'domain' && typeof x === 'string') {
        try {
          const kind = parseDomainSpecText(x).parsed.kind;
          if (kind === 'graph' || kind === 'csv') found.push(x.trim());
        } catch {
          // malformed: the engine's own validation reports it
        }
      } else if (typeof x === 'object') walk(x, depth + 1);
    }
  };
  walk(request, 0);
  return found;
}

/** The one error for a queued request that names a file domain. */
export function fileDomainError(spec: string): JobError {
  return {
    code: 'invalid-input',
    message: `domain '${spec.length > 200 ? `${spec.slice(0, 200)}...` : spec}' names a file, which is read where a job runs: jobs on the queue must carry their data (run without --queue, or give the domain inline)`,
  };
}
