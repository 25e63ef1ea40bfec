import { checkCancelled as checkSignal } from '../../numeric/cancel';

/** What may end one solve early besides cancellation: a deadline (performance.now() ms) or a stop test. */
export interface RunStop {
  deadline?: number;
  shouldStop?: () => boolean;
}

/**
 * Options every LP entry point accepts.
 *
 * Cancellation: the signal is checked between model-building phases and just
 * before the solve. A HiGHS solve is one synchronous WebAssembly call, so an
 * abort that arrives while it runs cannot be observed on this thread (the event
 * loop is blocked); the job dispatcher cancels a running solve by terminating
 * the worker thread, which also discards the runtime's memory, or, without
 * losing the worker, by setting a shared cancelFlag that the solver's interrupt
 * checkpoints read. During the solve, progress messages (iteration counts, at
 * most one per second) come from the same checkpoints.
 */
export interface LpOptions {
  signal?: AbortSignal;
  /**
   * Cancellation that works during a solve: an Int32Array over a
   * SharedArrayBuffer whose element 0 the dispatcher sets non-zero (Atomics)
   * from another thread. Read at HiGHS' simplex/IPM interrupt checkpoints, so
   * the worker survives the cancellation (unlike terminating it).
   */
  cancelFlag?: Int32Array;
  /** Phase progress: fraction in [0, 1] and a short message (building, solving, extracting). */
  onProgress?: (fraction: number, message: string) => void;
  /**
   * Ends a one-model solve (solveSparseLp) at HiGHS' next checkpoint when
   * its deadline passes or its stop test says so: a MechError 'cancelled'
   * whose detail.reason is 'time-limit' or 'stopped' (persistent-lp.ts
   * runStopReason), so the caller can keep what it has instead.
   */
  stop?: RunStop;
  /** Wall-clock limit for the solve, in seconds (HiGHS time_limit). */
  timeLimitSeconds?: number;
  /**
   * HiGHS LP algorithm. Default: dual simplex for small models, interior
   * point with crossover above IPM_ROW_THRESHOLD rows (see persistent-lp.ts
   * and test/bench/lp.bench.ts).
   */
  solver?: 'simplex' | 'ipm' | 'choose';
  /**
   * Interior-point only: run crossover to an exact vertex (default true).
   * Without it the IPM solution is returned directly, measured 1.6-1.8x
   * faster on the grid mechanism LPs, its objective within ~1e-8 relative of
   * the optimum (IPM tolerance); the privacy repair still makes it exactly private.
   */
  crossover?: boolean;
  /**
   * Hand HiGHS the primal LP or its dual (see SparseLp.toDualModelData).
   * Entry points pick the faster one for their shape; this overrides it.
   */
  formulation?: 'primal' | 'dual';
  /** Extra HiGHS options (snake_case names), for benchmarks and experts; applied last. */
  highsOptions?: Record<string, string | number | boolean>;
}

/** The engine's one cancellation check (numeric/cancel.ts) on the LP's signal, naming the phase. */
export function checkCancelled(options: LpOptions | undefined, phase: string): void {
  checkSignal(options?.signal, `LP cancelled while ${phase}`);
}

/** Whether the job asked to stop: the shared cancel flag (read by solver checkpoints during a solve) or the signal. */
export function cancelRequested(options: LpOptions | undefined): boolean {
  const flag = options?.cancelFlag;
  return (flag !== undefined && Atomics.load(flag, 0) !== 0) || options?.signal?.aborted === true;
}

export function progress(options: LpOptions | undefined, fraction: number, message: string): void {
  options?.onProgress?.(fraction, message);
}

/**
 * Options for a model re-solved many times by simplex from its last basis (decomposition master and pricing):
 * the caller's signal and cancel flag, the primal form handed over as is, and the simplex strategy
 * (1 dual, 4 primal) before any of the caller's HiGHS options.
 */
export function warmSimplexOptions(options: LpOptions | undefined, strategy: 1 | 4): LpOptions {
  return {
    signal: options?.signal,
    cancelFlag: options?.cancelFlag,
    solver: 'simplex',
    formulation: 'primal',
    highsOptions: { simplex_strategy: strategy, ...options?.highsOptions },
  };
}

/** A domain in the progress's words: a grid by its cells in km (the app's unit for grids), else its values. */
export function placesWords(domain: {
  n: number;
  spec: string;
  structure: { grid?: { rows: number; cols: number; step: number } };
}): string {
  const g = domain.structure.grid;
  return g ? `the ${g.rows} x ${g.cols} grid of ${g.step} km cells` : `the ${domain.n} values of ${domain.spec}`;
}

/**
 * How far a solve that stops at `target` has come, from its relative gap, in [0, 1]: 0 at a gap of 100%, 1 at the
 * target, even steps per factor of ten (the gap of a decomposition falls about geometrically): the progress bar
 * moves with every round, not only when the solve ends.
 */
export function gapFraction(gap: number, target: number): number {
  if (!(gap < 1)) return 0;
  if (gap <= target) return 1;
  return Math.min(1, Math.max(0, Math.log(gap) / Math.log(target)));
}
