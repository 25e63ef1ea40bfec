/**
 * The optimal LP's pricing threads, decided here for every caller. A request that gives lpThreads is priced on that
 * many. One that leaves it out is priced, on a host's pool of `pool` threads, on the pool's size (the app host fills
 * it into the page's requests, AppInfo.workers), or on `requested` threads at most the pool (the CLI's --threads N
 * on the machine's cores), at most MAX_LP_THREADS; and for a direct caller of the engine (no host fills it) on the
 * machine's cores from THREADED_MIN_VARIABLES variables, one thread below.
 */
import { availableParallelism } from 'node:os';
import { MAX_LP_THREADS, isGivenMechanism, type JobRequest } from '../../../src-shared/protocol/index';

/**
 * Pricing threads when none are asked: every core on problems of at least this many variables (n*m), one below
 * (a pricing thread's start, about 0.1 s with its own solver, costs more than it saves on small problems).
 */
const THREADED_MIN_VARIABLES = 100 * 100;

/**
 * Where an LP is priced: on a host's pool of `pool` threads (`requested`: the threads a command line asks for), or
 * by a direct caller, by the problem's size (`cores`: the machine's, by default os.availableParallelism()).
 */
type LpThreadsOn = { pool: number; requested?: number } | { variables: number; cores?: number };

/** The pricing threads of an optimal LP: `asked` (the request's lpThreads) when given, else the default `on`. */
export function lpThreads(asked: number | undefined, on: LpThreadsOn): number {
  if (asked !== undefined) return asked;
  if ('pool' in on) {
    const threads = Math.min(on.requested ?? on.pool, on.pool);
    return Math.max(1, Math.min(MAX_LP_THREADS, Math.floor(threads) || 1));
  }
  return on.variables >= THREADED_MIN_VARIABLES ? Math.max(1, on.cores ?? availableParallelism()) : 1;
}

/**
 * Fill lpThreads of every optimal construction `req` builds and leaves it out of (a comparison's rows built from their
 * kind too) with the default on a host's pool; one that gives it keeps it.
 */
export function withDefaultLpThreads(req: JobRequest, on: { pool: number; requested?: number }): JobRequest {
  const threads = lpThreads(undefined, on);
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
