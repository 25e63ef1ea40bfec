import { availableParallelism } from 'node:os';
import { MechError, messageOf } from '../../src-shared/errors';
import { checkCancelled } from '../numeric/cancel';
import { type WorkerModule, startWorker, workerModule } from '../base/worker-module';
import { type ScanPart, type ScanShared, scanRows } from './log-ratio-scan';

/** The scanning threads' module (src-worker/worker-module.ts), or null. */
const checkWorker = (): WorkerModule | null =>
  workerModule(new URL('./check-worker.ts', import.meta.url), import.meta.url);

/**
 * Scans below this many pair x output comparisons stay on the calling thread (a thread costs ~50 ms to start, more
 * through tsx).
 */
const THREADED_SCAN_WORK = 2e8;

/**
 * Threads for a scan of `work` comparisons: `requested` when given (at most the cores), else one below
 * THREADED_SCAN_WORK and the cores above; always one without the worker module (the CLI's own thread).
 */
export function scanThreads(work: number, requested?: number): number {
  if (!checkWorker()) return 1;
  if (requested !== undefined) return Math.max(1, Math.min(requested, availableParallelism()));
  return work < THREADED_SCAN_WORK ? 1 : availableParallelism();
}

/** Allocate a Float64Array on a SharedArrayBuffer (so worker threads read it without a copy). */
export function sharedFloat64(length: number): Float64Array {
  return new Float64Array(new SharedArrayBuffer(length * 8));
}

/**
 * Run the scan on `threads` worker threads (the calling thread waits: it only polls for progress and
 * cancellation), or on this thread when threads is 1. `shared` must be on SharedArrayBuffers for threads > 1.
 */
export async function scanInThreads(
  shared: ScanShared,
  threads: number,
  signal?: AbortSignal,
  progress?: (fraction: number, message: string) => void,
): Promise<ScanPart[]> {
  const mod = threads > 1 ? checkWorker() : null;
  if (!mod) {
    const part = scanRows(shared, () => signal?.aborted === true);
    checkCancelled(signal);
    return [part];
  }
  const { control, n } = shared;
  const workers = Array.from({ length: threads }, () => startWorker(mod, import.meta.url));
  const poll = setInterval(() => {
    if (signal?.aborted) Atomics.store(control, 2, 1);
    // row i has n - 1 - i pairs: the pairs of the rows done so far
    const rows = Math.min(n, Atomics.load(control, 1));
    progress?.(1 - ((n - rows) / n) ** 2, `privacy check: ${rows} of ${n} rows (${threads} threads)`);
  }, 250);
  try {
    const parts = await Promise.all(
      workers.map(
        (w) =>
          new Promise<ScanPart>((resolve, reject) => {
            w.once('message', (r: { type: string; part?: ScanPart; message?: string }) => {
              if (r.type === 'part') resolve(r.part!);
              else reject(new MechError('internal', `a privacy-check thread failed: ${r.message}`));
            });
            w.once('error', (e) => reject(new MechError('internal', `a privacy-check thread failed: ${messageOf(e)}`)));
            w.postMessage({ shared });
          }),
      ),
    );
    checkCancelled(signal);
    return parts;
  } finally {
    Atomics.store(control, 2, 1);
    clearInterval(poll);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
