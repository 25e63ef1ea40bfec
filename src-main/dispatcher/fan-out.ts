/**
 * Fan-out of a job whose work is independent per item, over a JobRunner
 * (the local pool or the Redis queue): a sweep is split into slices of its
 * eps grid (`slice` in the sweep request: every part computes the same
 * floats as the whole sweep, and the admission and bound decisions look at
 * the whole grid), the parts run at once, and their results are
 * concatenated in order. A case study whose items are independent
 * (capacities, geo: src-worker/casestudy/parts.ts) is split into slices of
 * its items, merged by the study's own assemble step. The merged result
 * equals the single job's, value for value (test/unit/main/dispatcher/fan-out.test.ts,
 * test/unit/worker/casestudy/parts.test.ts). Other jobs run as they are.
 */
import { setMaxListeners } from 'node:events';
import {
  type JobRequest,
  type SweepRequest,
  type JobResult,
  type SweepResult,
  type CaseStudyRequest,
  type CaseStudyResult,
  jobRequestOf,
  ApiError,
  toApiError,
  type JobEvent,
} from '../../src-shared/protocol/index';
import { MechError, messageOf } from '../../src-shared/errors';
import { JobRunnerBase, type JobRunner, type RunOptions } from './job-runner';
import type { SwitchableRunner } from './switchable-runner';

/** Split the steps 0..steps-1 into at most `parts` contiguous slices of near-equal size. */
export function sweepSlices(steps: number, parts: number): { start: number; count: number }[] {
  const k = Math.max(1, Math.min(steps, Math.floor(parts)));
  const out: { start: number; count: number }[] = [];
  let start = 0;
  for (let i = 0; i < k; i++) {
    const count = Math.floor((steps * (i + 1)) / k) - Math.floor((steps * i) / k);
    out.push({ start, count });
    start += count;
  }
  return out;
}

/** Concatenate sweep parts (in grid order) into one result. */
export function mergeSweeps(parts: SweepResult[]): SweepResult {
  const first = parts[0]!;
  const cat = <T>(get: (r: SweepResult) => T[] | undefined): T[] | undefined => {
    if (parts.some((r) => get(r) === undefined)) return undefined;
    return parts.flatMap((r) => get(r)!);
  };
  const series = first.series.map((s, i) => {
    const merged: SweepResult['series'][number] = {
      kind: s.kind,
      utility: cat((r) => r.series[i]!.utility)!,
      leakage: cat((r) => r.series[i]!.leakage)!,
    };
    const loss = cat((r) => r.series[i]!.expectedLoss);
    if (loss) merged.expectedLoss = loss;
    const notes = cat((r) => r.series[i]!.notes);
    if (notes) merged.notes = notes;
    return merged;
  });
  const bounds: SweepResult['bounds'] = {
    utility: cat((r) => r.bounds.utility)!,
    leakage: cat((r) => r.bounds.leakage)!,
  };
  const notes = cat((r) => r.bounds.notes);
  if (notes) bounds.notes = notes;
  return { type: 'sweep', domain: first.domain, epsilons: parts.flatMap((r) => r.epsilons), series, bounds };
}

/**
 * Run a request on the runner: a sweep as up to `parts` slices of its eps grid, a splittable case study
 * (src-worker/casestudy/parts.ts) as up to `parts` slices of its items, at once; anything else (or parts <= 1)
 * as one job. Progress is the mean of the parts'; the first failure cancels the other parts and is the result.
 */
export async function runFannedOut(
  runner: JobRunner,
  request: JobRequest,
  parts: number,
  options: RunOptions = {},
): Promise<JobResult> {
  if (parts <= 1) return runner.run(request, options);
  if (request.type === 'sweep' && !request.slice) {
    const sweep = parsed(request) as SweepRequest;
    const slices = sweepSlices(sweep.steps, parts);
    if (slices.length === 1) return runner.run(request, options);
    const results = await runParts(
      runner,
      slices.map((slice) => ({ ...sweep, slice })),
      'sweep',
      options,
    );
    return mergeSweeps(results as SweepResult[]);
  }
  if (request.type === 'case-study' && !request.part) {
    // loaded only here: the studies' engine code stays out of the host process until a case study fans out
    const { mergeStudyParts, splitStudy } = await import('../../src-worker/index');
    if (!splitStudy(request.study)) return runner.run(request, options);
    const study = parsed(request) as CaseStudyRequest;
    const params = study.params ?? {};
    let items: number;
    try {
      items = splitStudy(study.study)!.itemCount(params);
    } catch (e) {
      // bad params: the single job reports them, as it would without fan-out
      if (e instanceof MechError) return runner.run(request, options);
      throw e;
    }
    const slices = sweepSlices(items, parts);
    if (slices.length <= 1) return runner.run(request, options);
    const results = await runParts(
      runner,
      slices.map((part) => ({ ...study, part })),
      `case study ${study.study}`,
      options,
    );
    try {
      return mergeStudyParts(study.study, params, results as CaseStudyResult[]);
    } catch (e) {
      throw new ApiError({ code: 'internal', message: messageOf(e) });
    }
  }
  return runner.run(request, options);
}

function parsed(request: JobRequest): JobRequest {
  const p = jobRequestOf(request);
  if (!p.ok) throw new ApiError(p.error);
  return p.value;
}

/** Run the part requests at once; results in order. */
async function runParts(
  runner: JobRunner,
  requests: JobRequest[],
  what: string,
  options: RunOptions,
): Promise<JobResult[]> {
  const fractions = new Array<number>(requests.length).fill(0);
  const inner = new AbortController();
  setMaxListeners(0, inner.signal); // one listener per part (a runner's run() listens for the abort)
  const onAbort = (): void => inner.abort();
  options.signal?.addEventListener('abort', onAbort);
  if (options.signal?.aborted) inner.abort();
  try {
    return await Promise.all(
      requests.map((r, i) =>
        runner
          .run(r, {
            signal: inner.signal,
            onProgress: (f, m) => {
              fractions[i] = f ?? fractions[i]!;
              options.onProgress?.(
                fractions.reduce((a, b) => a + b, 0) / requests.length,
                `${what} part ${i + 1} of ${requests.length}: ${m}`,
              );
            },
          })
          .catch((e: unknown) => {
            inner.abort();
            throw e;
          }),
      ),
    );
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Parts of a fanned-out job when the runner is a Redis queue: a queue job costs ~3 ms, so 16 parts reach 16 worker
 * slots for ~50 ms.
 */
export const QUEUE_PARTS = 16;

/** Whether runFannedOut splits this request (a sweep, or a splittable case study, not already a part). */
async function fansOut(request: JobRequest): Promise<boolean> {
  if (request.type === 'sweep') return !request.slice && request.steps > 1;
  if (request.type !== 'case-study' || request.part) return false;
  const { splitStudy } = await import('../../src-worker/index');
  return splitStudy(request.study) !== null;
}

/**
 * A JobRunner that fans out what runFannedOut splits (sweeps, splittable case studies) into `parts()` jobs on the
 * inner runner, as ONE job to its caller: one id, progress as the mean of the parts', exactly one result or
 * error (the merged result equals the single job's); cancel cancels every part; stop of a fanned job cancels
 * it (a split job has no LP to keep). Everything else goes to the inner runner unchanged. The app's host uses
 * it, so a case study started in the app runs on several pool threads or queue workers at once.
 */
export class FanningRunner extends JobRunnerBase implements JobRunner {
  private readonly fanned = new Map<string, AbortController>();
  private readonly unsubscribe: () => void;
  private seq = 0;

  constructor(
    readonly inner: JobRunner,
    private readonly parts: () => number,
  ) {
    super();
    this.unsubscribe = inner.onJobEvent((e) => this.emit(e));
  }

  get threads(): number {
    return this.inner.threads;
  }

  async submit(request: unknown): Promise<string> {
    const req = parsed(request as JobRequest);
    const n = Math.floor(this.parts());
    if (n <= 1 || !(await fansOut(req))) return this.inner.submit(req);
    const id = `fan-${++this.seq}`;
    const ctl = new AbortController();
    this.fanned.set(id, ctl);
    const started = Date.now();
    this.emit({ kind: 'queued', jobId: id, type: req.type });
    void runFannedOut(this.inner, req, n, {
      signal: ctl.signal,
      onProgress: (fraction, message) => this.emit({ kind: 'progress', jobId: id, fraction, message }),
    })
      .then(
        (result) => this.emit({ kind: 'result', jobId: id, result, elapsedMs: Date.now() - started }),
        (e: unknown) => {
          const error = ctl.signal.aborted ? { code: 'cancelled' as const, message: 'job cancelled' } : toApiError(e);
          this.emit({
            kind: 'error',
            jobId: id,
            error: { code: error.code, message: error.message },
            elapsedMs: Date.now() - started,
          });
        },
      )
      .finally(() => this.fanned.delete(id));
    return id;
  }

  async cancel(jobId: string): Promise<boolean> {
    const ctl = this.fanned.get(jobId);
    if (!ctl) return this.inner.cancel(jobId);
    ctl.abort();
    return true;
  }

  async stop(jobId: string): Promise<boolean> {
    return this.fanned.has(jobId) ? this.cancel(jobId) : this.inner.stop(jobId);
  }

  async close(): Promise<void> {
    for (const ctl of this.fanned.values()) ctl.abort();
    this.unsubscribe();
    await this.inner.close();
  }

  private emit(e: JobEvent): void {
    this.deliver(e);
  }
}

/**
 * The app's jobs (web mode, Electron): fanned out over as many parts as the pool has threads, or QUEUE_PARTS on a
 * queue.
 */
export function appJobs(runner: SwitchableRunner): FanningRunner {
  return new FanningRunner(runner, () => (runner.active === runner.local ? runner.threads : QUEUE_PARTS));
}
