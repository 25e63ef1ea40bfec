/**
 * The optimal LP's pricing threads when a request leaves lpThreads out and runs on a pool of `workers` threads: the
 * pool's size, at most MAX_LP_THREADS. The app host fills it into the page's requests (AppInfo.workers; the page
 * leaves it out), the CLI into its own when --threads N sizes its pool. Where neither does, the engine decides (the
 * machine's cores from THREADED_MIN_VARIABLES variables, one thread below, where a thread's start costs more than
 * it saves).
 */
import { MAX_LP_THREADS, isGivenMechanism, type JobRequest } from '../../src-shared/protocol/index';

/**
 * Fill lpThreads of every optimal construction `req` builds and leaves it out of (a comparison's rows built from their
 * kind too).
 */
export function withDefaultLpThreads(req: JobRequest, workers: number): JobRequest {
  const threads = Math.max(1, Math.min(MAX_LP_THREADS, Math.floor(workers) || 1));
  const specs =
    req.type === 'mechanism'
      ? [req]
      : req.type === 'measure' || req.type === 'check'
        ? [req.mechanism]
        : req.type === 'compare'
          ? req.mechanisms.filter((m) => !isGivenMechanism(m))
          : [];
  for (const spec of specs)
    if (spec && spec.kind === 'optimal' && spec.lpThreads === undefined) spec.lpThreads = threads;
  return req;
}
