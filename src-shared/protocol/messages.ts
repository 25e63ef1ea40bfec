/**
 * Job events seen by every consumer (CLI, Electron renderer, web bridge) and
 * the messages a worker thread posts on its progress port.
 */
import { z } from 'zod';
import { jobErrorSchema } from './errors';
import { jobResultSchema } from './results';

/**
 * One round of an optimal-mechanism LP while it runs, for a live convergence
 * chart (the same quantities as the result's lp.history): the objective of the
 * best private mechanism of the round, the best certified lower bound so far
 * (null before the first complete pricing round), their relative gap (null
 * likewise), the elapsed time and the monotonic progress fraction.
 */
export const lpSampleSchema = z.object({
  round: z.int().min(0),
  objective: z.number(),
  bound: z.number().nullable(),
  gap: z.number().min(0).nullable(),
  elapsedMs: z.number().min(0),
  fraction: z.number().min(0).max(1),
  /**
   * Queue workers that have priced this LP's rounds so far (an LP priced on a job queue; absent when priced on one
   * machine).
   */
  pricingWorkers: z.int().min(0).optional(),
});
export type LpSample = z.infer<typeof lpSampleSchema>;

export const progressSchema = z.object({
  /** 0..1 when known, null for indeterminate work. */
  fraction: z.number().min(0).max(1).nullable(),
  message: z.string().max(500),
  /** Optimal-LP rounds: the typed sample behind the message. */
  lp: lpSampleSchema.optional(),
});
export const jobEventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('queued'), jobId: z.string(), type: z.string() }),
  z.object({
    kind: z.literal('progress'),
    jobId: z.string(),
    fraction: z.number().min(0).max(1).nullable(),
    message: z.string(),
    lp: lpSampleSchema.optional(),
  }),
  z.object({ kind: z.literal('result'), jobId: z.string(), result: jobResultSchema, elapsedMs: z.number() }),
  z.object({ kind: z.literal('error'), jobId: z.string(), error: jobErrorSchema, elapsedMs: z.number() }),
]);
export type JobEvent = z.infer<typeof jobEventSchema>;
/** What the worker entry returns to the dispatcher (errors are values, never thrown across threads). */
export const workerReplySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), result: jobResultSchema }),
  z.object({ ok: z.literal(false), error: jobErrorSchema }),
]);
export type WorkerReply = z.infer<typeof workerReplySchema>;
