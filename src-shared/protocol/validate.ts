/**
 * Boundary validation: parse anything that arrives from outside (IPC, CLI,
 * worker thread, WebSocket) into a typed value or one readable error.
 */
import type { z } from 'zod';
import { describeZodError } from './common';
import type { JobError } from './errors';
import { jobRequestSchema, type JobRequest } from './requests';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: JobError };

export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what: string): Parsed<z.infer<S>> {
  const r = schema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, error: { code: 'invalid-input', message: describeZodError(r.error, what) } };
}

export function parseJobRequest(input: unknown): Parsed<JobRequest> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { code: 'invalid-input', message: 'job request must be a JSON object with a "type" field' } };
  }
  const t = (input as { type?: unknown }).type;
  if (typeof t !== 'string') return { ok: false, error: { code: 'invalid-input', message: 'job request has no "type" field' } };
  return parseWith(jobRequestSchema, input, `${t} request`);
}
