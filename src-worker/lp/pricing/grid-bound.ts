/**
 * A certified lower bound on the best mechanism of a grid too large for the decomposition's master (docs/lp.md,
 * "A bound without a master"): the Lagrangian bound at given duals lambda of the row sums,
 *   L(lambda) = sum_x lambda_x + sum_w min(0, min over P of (c_w - lambda) . r),
 * valid for any lambda (weak duality: every private channel's column w lies in P, the column polytope of the exact
 * model, and its rows sum to 1). Each output's term is an exact pricing (exact-pricing.ts) with the grid's factors by
 * offset (n entries, not n^2) over a window: the negative entries of c_w - lambda and the positive ones within
 * WINDOW_FACTOR of them. Leaving positive entries out lowers the objective, so the window's certificate still
 * bounds the whole pricing from below; an output not priced (the time ran out) adds its box bound
 * sum_x min(0, c_w(x) - lambda_x). Nothing n x n is held: the costs c_w(x) = pi_x loss(w, x) are made per output.
 */
import { type WorkerModule, workerModule as findWorkerModule, startWorker } from '../../base/worker-module';
import { MechError, messageOf } from '../../../src-shared/errors';
import type { GridMetric } from '../../metric/domain';
import { gridDomain } from '../../metric/grid';
import { ExactPricer } from './exact-pricing';
import { gridPricingFactors } from './exact-pricing-factors';

/**
 * Factor 1/f below which positive entries are left out of an output's window. Measured on 50 x 50 (0.5 km cells,
 * eps ln 4 per km, duals from the coarse start, one thread): the whole grid 236.7 s and 1.200079 km; 1e-4 (13 cells)
 * 137.0 s and 1.200343 km (the coarse duals of that run differ in the fourth digit); 8 cells (about 4e-3) 103.6 s and
 * 1.195228 km.
 */
const WINDOW_FACTOR = 1e-4;

export interface GridBoundProblem {
  rows: number;
  cols: number;
  step: number;
  metric: GridMetric;
  eps: number;
  loss: 'dist' | 'dist2';
  pi: Float64Array;
  /** The row sums' duals, in the costs' units (pi times the loss). */
  duals: Float64Array;
}

/** One thread's share of the bound: outputs w with w % threads === thread. */
interface GridBoundPart {
  outputs: number;
  /** Outputs priced exactly (the others have their box bound). */
  priced: number;
  /** sum over this share's outputs of min(0, their bound). */
  sum: number;
  pivots: number;
  /** Outputs whose pricing reached its pivot cap (their certificate still bounds them). */
  capped: number;
}

/** The grid's distance of an offset (|dr|, |dc|) in cells: the grid domain's own (metric/grid.ts, its lattice). */
export function offsetDistance(metric: GridMetric, step: number): (dr: number, dc: number) => number {
  const lattice = gridDomain(1, 1, step, metric).structure.lattice!;
  return (dr, dc) => lattice.offsetDistance([dr, dc]);
}

/** Cells around each negative entry (in each coordinate) a window reaches: factors beyond are below WINDOW_FACTOR. */
export function windowMargin(eps: number, step: number): number {
  return Math.ceil(Math.log(1 / WINDOW_FACTOR) / (eps * step));
}

/**
 * This thread's share of the bound's output terms, stopping (the rest at their box bound) when `stop` says so;
 * `priced` is called after each output priced.
 */
export function gridBoundPart(
  p: GridBoundProblem,
  thread: number,
  threads: number,
  stop: () => boolean,
  priced?: () => void,
): GridBoundPart {
  const { rows, cols, pi, duals } = p;
  const n = rows * cols;
  const dist = offsetDistance(p.metric, p.step);
  const pricer = new ExactPricer(n, gridPricingFactors(rows, cols, p.eps, dist));
  // Loss by offset: l(|dr| cols + |dc|).
  const L = new Float64Array(n);
  for (let dr = 0; dr < rows; dr++)
    for (let dc = 0; dc < cols; dc++) {
      const d = dist(dr, dc);
      L[dr * cols + dc] = p.loss === 'dist2' ? d * d : d;
    }
  const margin = windowMargin(p.eps, p.step);
  const v = new Float64Array(n);
  const near = new Uint8Array(n);
  const neg = new Int32Array(n);
  const warm = new Float64Array(n);
  let prev: Float64Array | null = null;
  let prevW = -1;
  const part: GridBoundPart = { outputs: 0, priced: 0, sum: 0, pivots: 0, capped: 0 };
  let stopped = false;
  for (let w = thread; w < n; w += threads) {
    part.outputs++;
    const rw = Math.floor(w / cols);
    const cw = w % cols;
    let box = 0;
    let p0 = 0;
    for (let r = 0, x = 0; r < rows; r++) {
      const o = Math.abs(r - rw) * cols;
      for (let c = 0; c < cols; c++, x++) {
        const t = pi[x]! * L[o + Math.abs(c - cw)]! - duals[x]!;
        v[x] = t;
        if (t < 0) {
          box += t;
          neg[p0++] = x;
        }
      }
    }
    if (p0 === 0) continue; // no negative entry: r = 0 is optimal, the term is 0
    stopped ||= stop();
    if (stopped) {
      part.sum += box;
      continue;
    }
    // The window: the cells within `margin` of a negative entry (in each coordinate); positive entries elsewhere are
    // left out (set to 0). Negative entries can lie far apart (sparse areas have large duals per unit of prior), so
    // the union of their boxes, not their bounding box.
    near.fill(0);
    for (let k = 0; k < p0; k++) {
      const a = neg[k]!;
      const ra = Math.floor(a / cols);
      const ca = a % cols;
      const c0 = Math.max(0, ca - margin);
      const c1 = Math.min(cols - 1, ca + margin);
      for (let r = Math.max(0, ra - margin); r <= Math.min(rows - 1, ra + margin); r++)
        near.fill(1, r * cols + c0, r * cols + c1 + 1);
    }
    for (let x = 0; x < n; x++) if (!near[x] && v[x]! > 0) v[x] = 0;
    // Warm start: this thread's previous output's column moved by the offset between the two outputs (translation
    // invariance of the factors; only the negative entries are read).
    if (prev) {
      const dr = rw - Math.floor(prevW / cols);
      const dc = cw - (prevW % cols);
      for (let k = 0; k < p0; k++) {
        const a = neg[k]!;
        const r = Math.floor(a / cols) - dr;
        const c = (a % cols) - dc;
        warm[a] = r >= 0 && r < rows && c >= 0 && c < cols ? prev[r * cols + c]! : 0;
      }
    }
    const res = pricer.solveBound(v, prev ? warm : null);
    prev = res.shape;
    prevW = w;
    part.priced++;
    part.pivots += res.pivots;
    if (res.status !== 'optimal') part.capped++;
    part.sum += Math.min(0, res.bound);
    priced?.();
  }
  return part;
}

/** The bound and how it was reached. */
export interface GridBound {
  /** L(lambda): a certified lower bound on the best expected loss. */
  bound: number;
  outputs: number;
  priced: number;
  pivots: number;
  capped: number;
  threads: number;
  timeMs: number;
}

interface BoundReply {
  type: string;
  part?: GridBoundPart;
  code?: string;
  message?: string;
}

/**
 * L(lambda) over `threads` pricing threads (this thread when the worker module is not found or threads is 1). The
 * pricing stops at `deadline` (performance.now() ms) or when shouldStop says so (read between outputs; the outputs
 * left keep their box bound, so the result is a bound either way).
 */
export async function gridLagrangianBound(
  p: GridBoundProblem,
  opts: {
    threads: number;
    deadline: number;
    shouldStop?: () => boolean;
    /** Outputs priced so far (about once a second). */
    onProgress?: (priced: number, outputs: number) => void;
  },
): Promise<GridBound> {
  const t0 = performance.now();
  const n = p.rows * p.cols;
  let base = 0;
  for (let x = 0; x < p.duals.length; x++) base += p.duals[x]!;
  const mod = opts.threads > 1 ? pricingWorkerModule() : null;
  const threads = mod ? opts.threads : 1;
  let parts: GridBoundPart[];
  if (!mod) {
    let count = 0;
    let shown = performance.now();
    const stop = (): boolean => performance.now() >= opts.deadline || opts.shouldStop?.() === true;
    const priced = (): void => {
      count++;
      if (opts.onProgress && performance.now() - shown >= 1000)
        ((shown = performance.now()), opts.onProgress(count, n));
    };
    parts = [gridBoundPart(p, 0, 1, stop, priced)];
  } else {
    // [stop, outputs priced]
    const flag = new Int32Array(new SharedArrayBuffer(8));
    const workers = Array.from({ length: threads }, () => startWorker(mod, import.meta.url));
    // The deadline and the caller's stop, checked while the threads work (they read the flag between outputs).
    let ticks = 0;
    const watch = setInterval(() => {
      if (performance.now() >= opts.deadline || opts.shouldStop?.()) Atomics.store(flag, 0, 1);
      if (++ticks % 10 === 0) opts.onProgress?.(Atomics.load(flag, 1), n);
    }, 100);
    try {
      parts = await Promise.all(
        workers.map(
          (w, t) =>
            new Promise<GridBoundPart>((resolve, reject) => {
              w.on('message', (r: BoundReply) => {
                if (r.type === 'gridBounded' && r.part) resolve(checkedPart(r.part, n, t, threads));
                else reject(new MechError((r.code ?? 'internal') as 'internal', r.message ?? 'grid bound failed'));
              });
              w.on('error', (e) => reject(new MechError('internal', `a pricing thread failed: ${messageOf(e)}`)));
              w.postMessage({ type: 'gridBound', problem: p, thread: t, threads, stopFlag: flag });
            }),
        ),
      );
    } finally {
      clearInterval(watch);
      await Promise.all(workers.map((w) => w.terminate()));
    }
  }
  const sum = (k: keyof GridBoundPart): number => parts.reduce((s, q) => s + q[k], 0);
  return {
    bound: base + sum('sum'),
    outputs: sum('outputs'),
    priced: sum('priced'),
    pivots: sum('pivots'),
    capped: sum('capped'),
    threads,
    timeMs: performance.now() - t0,
  };
}

/**
 * A thread's reply believed only when it is a share's shape: its count of outputs, priced ones among them, and a
 * finite sum of terms min(0, .) (so at most 0).
 */
function checkedPart(part: GridBoundPart, n: number, thread: number, threads: number): GridBoundPart {
  const outputs = Math.ceil((n - thread) / threads);
  const ok =
    part.outputs === outputs &&
    part.priced >= 0 &&
    part.priced <= outputs &&
    Number.isFinite(part.sum) &&
    part.sum <= 0 &&
    part.pivots >= 0 &&
    part.capped >= 0;
  if (!ok) throw new MechError('internal', `pricing thread ${thread}: its share of the grid bound is malformed`);
  return part;
}

const pricingWorkerModule = (): WorkerModule | null =>
  findWorkerModule(new URL('./pricing-worker.ts', import.meta.url), import.meta.url);
