/**
 * Fan-out of a job whose work is independent per item, over a JobRunner
 * (the local pool or the Redis queue): a sweep is split into slices of its
 * eps grid (`slice` in the sweep request: every part computes the same
 * floats as the whole sweep, and the admission and bound decisions look at
 * the whole grid), the parts run at once, and their results are
 * concatenated in order. The merged result equals the single job's, value
 * for value (test/unit/jobs/fan-out.test.ts). Other jobs run as they are.
 */
import { setMaxListeners } from 'node:events';
import type { JobRequest, SweepRequest } from '../../src-shared/protocol/requests';
import type { JobResult, SweepResult } from '../../src-shared/protocol/results';
import { parseJobRequest } from '../../src-shared/protocol/validate';
import { ApiError } from '../../src-shared/protocol/api';
import type { JobRunner, RunOptions } from './job-runner';

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
  const bounds: SweepResult['bounds'] = { utility: cat((r) => r.bounds.utility)!, leakage: cat((r) => r.bounds.leakage)! };
  const notes = cat((r) => r.bounds.notes);
  if (notes) bounds.notes = notes;
  return { type: 'sweep', domain: first.domain, epsilons: parts.flatMap((r) => r.epsilons), series, bounds };
}

/**
 * Run a request on the runner, a sweep as `parts` slices at once (parts <= 1: as one job). Progress is the
 * mean of the parts'; the first failure cancels the other parts and is the result.
 */
export async function runFannedOut(runner: JobRunner, request: JobRequest, parts: number, options: RunOptions = {}): Promise<JobResult> {
  if (request.type !== 'sweep' || parts <= 1 || request.slice) return runner.run(request, options);
  const parsed = parseJobRequest(request);
  if (!parsed.ok) throw new ApiError(parsed.error);
  const sweep = parsed.value as SweepRequest;
  const slices = sweepSlices(sweep.steps, parts);
  if (slices.length === 1) return runner.run(request, options);
  const fractions = new Array<number>(slices.length).fill(0);
  const inner = new AbortController();
  setMaxListeners(0, inner.signal); // one listener per part (a runner's run() listens for the abort)
  const onAbort = (): void => inner.abort();
  options.signal?.addEventListener('abort', onAbort);
  if (options.signal?.aborted) inner.abort();
  try {
    const results = await Promise.all(
      slices.map((slice, i) =>
        runner
          .run({ ...sweep, slice }, {
            signal: inner.signal,
            onProgress: (f, m) => {
              fractions[i] = f ?? fractions[i]!;
              options.onProgress?.(fractions.reduce((a, b) => a + b, 0) / slices.length, `sweep part ${i + 1} of ${slices.length}: ${m}`);
            },
          })
          .catch((e: unknown) => {
            inner.abort();
            throw e;
          }),
      ),
    );
    return mergeSweeps(results as SweepResult[]);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
