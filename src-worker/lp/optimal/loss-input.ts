import { MechError } from '../../../src-shared/errors';
import type { Matrix } from '../../linalg/matrix';
import type { Domain } from '../../metric/domain';

/**
 * Local adapter for losses (docs/measures.md, "Gain and loss functions") until the measure module's loss types
 * exist: a dense Matrix loss[w][x] (rows = outputs/guesses w, columns =
 * secrets x), a function loss(w, x), or a built-in name. Built-in names need
 * a distance between an output and a secret: the domain's own distance when
 * the outputs are the secrets, or the output set's distanceToSecret.
 */
export type LossInput = Matrix | ((w: number, x: number) => number) | 'bin' | 'dist' | 'dist2';

/** Outputs of a mechanism when they differ from the secrets (e.g. another grid). */
export interface OutputSet {
  readonly n: number;
  label(w: number): string;
  /** Distance from output w to secret x, for the built-in distance losses. */
  distanceToSecret?(w: number, x: number): number;
}

/** The secrets themselves as outputs. */
export function secretsAsOutputs(domain: Domain): OutputSet {
  return { n: domain.n, label: (w) => domain.label(w), distanceToSecret: (w, x) => domain.distance(w, x) };
}

/**
 * Outputs on another grid in the coordinates of a secret grid (secret cell
 * (r, c) at (r*step, c*step)): output cell (r, c) at origin + (r, c) * outStep,
 * distances by the secret grid's metric.
 */
export function gridOutputSet(
  secrets: Domain,
  rows: number,
  cols: number,
  outStep: number,
  origin: readonly [number, number] = [0, 0],
): OutputSet {
  const g = secrets.structure.grid;
  if (!g) throw new MechError('invalid-input', `grid outputs need a grid domain of secrets, got ${secrets.spec}`);
  if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(cols) || cols < 1)
    throw new MechError('invalid-input', `output grid must be at least 1 x 1, got ${rows} x ${cols}`);
  if (!(outStep > 0) || !Number.isFinite(outStep))
    throw new MechError('invalid-input', `output grid cell size must be > 0, got ${outStep}`);
  const metric = g.metric;
  return {
    n: rows * cols,
    label: (w) => `out(${Math.floor(w / cols)},${w % cols})`,
    distanceToSecret: (w, x) => {
      const dy = Math.abs(origin[0] + Math.floor(w / cols) * outStep - Math.floor(x / g.cols) * g.step);
      const dx = Math.abs(origin[1] + (w % cols) * outStep - (x % g.cols) * g.step);
      if (metric === 'manhattan') return dx + dy;
      if (metric === 'chebyshev') return Math.max(dx, dy);
      return Math.hypot(dx, dy);
    },
  };
}

/** Resolve a loss to a function of (output w, secret x), validating shapes and values lazily. */
export function resolveLoss(loss: LossInput, outputs: OutputSet, n: number): (w: number, x: number) => number {
  if (typeof loss === 'function') return loss;
  if (typeof loss === 'string') {
    if (loss === 'bin') return (w, x) => (w === x ? 0 : 1);
    const d = outputs.distanceToSecret;
    if (!d)
      throw new MechError(
        'invalid-input',
        `loss '${loss}' needs distances from the outputs to the secrets; give a loss matrix or function instead`,
      );
    if (loss === 'dist') return d;
    if (loss === 'dist2') return (w, x) => d(w, x) ** 2;
    throw new MechError('invalid-input', `unknown loss '${String(loss)}' (bin, dist, dist2, a matrix or a function)`);
  }
  if (loss.rows !== outputs.n || loss.cols !== n) {
    throw new MechError(
      'invalid-input',
      `loss matrix is ${loss.rows} x ${loss.cols}, expected ${outputs.n} outputs x ${n} secrets (loss[w][x])`,
    );
  }
  return (w, x) => loss.data[w * n + x]!;
}

/**
 * The LP's cost pi_x loss(w, x) at x*m + w, rescaled to max |cost| = 1: the
 * optimum is the same channel at any positive scale, and HiGHS treats costs
 * of 1e20 and more as infinite (a 1e308 loss made the solve fail). Reported
 * objectives are scaled back by `scale`.
 */
export function scaledCost(
  domain: Domain,
  outputs: OutputSet,
  pi: ArrayLike<number>,
  lossAt: (w: number, x: number) => number,
): { cost: Float64Array; scale: number } {
  const n = domain.n;
  const m = outputs.n;
  const cost = new Float64Array(n * m);
  for (let x = 0; x < n; x++) {
    const px = pi[x]!;
    for (let w = 0; w < m; w++) {
      const l = lossAt(w, x);
      if (!Number.isFinite(l))
        throw new MechError(
          'invalid-input',
          `loss(${outputs.label(w)}, ${domain.label(x)}) is ${l}, not a finite number`,
        );
      cost[x * m + w] = px * l;
    }
  }
  let scale = 0;
  for (let i = 0; i < cost.length; i++) scale = Math.max(scale, Math.abs(cost[i]!));
  if (!(scale > 0) || !Number.isFinite(scale)) scale = 1;
  if (scale !== 1) for (let i = 0; i < cost.length; i++) cost[i] = cost[i]! / scale;
  return { cost, scale };
}
