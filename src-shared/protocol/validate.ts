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

/**
 * The requests parseJobRequest gave in this process: the value it returns is a new object, so its identity marks it
 * parsed.
 */
const parsedHere = new WeakSet<object>();

/** Parse a job request where it enters this process (the host's submit, the queue worker, the worker thread). */
export function parseJobRequest(input: unknown): Parsed<JobRequest> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      error: { code: 'invalid-input', message: 'job request must be a JSON object with a "type" field' },
    };
  }
  const t = (input as { type?: unknown }).type;
  if (typeof t !== 'string')
    return { ok: false, error: { code: 'invalid-input', message: 'job request has no "type" field' } };
  const parsed = parseWith(jobRequestSchema, input, `${t} request`);
  if (parsed.ok) parsedHere.add(parsed.value);
  return parsed;
}

/**
 * A request as it goes on within a process (runner to runner: the app's fan-out, the pool, the queue client):
 * taken as it is when this process parsed it already (a value of parseJobRequest), parsed otherwise. So a request
 * is parsed once where it enters each process, not again at every runner it passes.
 */
export function jobRequestOf(input: unknown): Parsed<JobRequest> {
  return input !== null && typeof input === 'object' && parsedHere.has(input)
    ? { ok: true, value: input as JobRequest }
    : parseJobRequest(input);
}
