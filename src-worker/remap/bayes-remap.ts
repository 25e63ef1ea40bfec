import { MechError } from '../errors';
import type { Mechanism, RowSource } from '../mechanism/channel';
import { DenseChannel } from '../mechanism/channel';
import { ImplicitTightChannel } from '../mechanism/implicit/implicit-tight-channel';
import type { Domain } from '../metric/domain';
import type { LossFunction } from '../measure/guess-function';
import { buildLoss, type GuessSpec } from '../measure/loss-spec';
import { optimalRemap } from '../measure/optimal-remap';
import { priorForChannel } from '../measure/prior-for-channel';
import { forEachWeightedColumn } from '../measure/weighted-columns';
import { type ColumnAccess, denseColumns, planarLaplaceColumns, tightColumns, verifyColumns } from './columns';
import { GridBestGuess } from './grid-best-guess';
import { RemappedChannel } from './remapped-channel';

/**
 * How each output's guess was found:
 *  - 'certified-grid': distance loss on a grid without a closed-form best
 *    guess (Euclidean/Chebyshev dist, Manhattan/Chebyshev dist2): convexity
 *    cuts evaluate a few guesses and prove the rest worse (grid-best-guess.ts);
 *  - 'loss-best': the loss's own best response per column (binary, nib,
 *    Manhattan dist and Euclidean dist2 by weighted medians/means, matrices);
 *  - 'measure': the existing row-streaming measure (measure/optimal-remap.ts)
 *    when the channel gives no column access and no grid shortcut applies.
 */
export type RemapMethod = 'certified-grid' | 'loss-best' | 'measure';

export interface BayesRemapOptions {
  /** Column access for the channel (see columns.ts); found automatically for dense and implicit tight channels, and via remapMechanism for planar Laplace. */
  columns?: ColumnAccess | null;
  /** Spot-check the column access against rows first (default true). */
  verifyColumns?: boolean;
  /** Aborted -> MechError 'cancelled' (checked every few hundred columns). */
  signal?: AbortSignal;
  /** Called with (columns done, total) every few hundred columns. */
  onProgress?: (done: number, total: number) => void;
}

export interface BayesRemapResult {
  /** remap[y] = the guess replacing output y (ties: smallest guess index). */
  remap: Int32Array;
  /** C . R as a RowSource over the loss's guesses (eps*d-private whenever C is: post-processing). */
  channel: RemappedChannel;
  /**
   * Expected loss of the remapped channel, sum_y min_w sum_x pi_x C[x][y] l(w, x)
   * = U_l[pi > C] (SPEC §3): the value of measure/optimal-remap.ts.
   */
  remappedLoss: number;
  /**
   * Expected loss of the original channel taken at face value: the output is
   * the guess, sum_x pi_x sum_y C[x][y] l(y, x). Defined only when the
   * outputs are the guesses (same count and labels); null otherwise — a
   * channel whose outputs are not guesses has no face-value guess, and its
   * expected loss under the best use of its outputs is remappedLoss itself.
   */
  originalLoss: number | null;
  /** One sentence saying how originalLoss is defined here. */
  originalDefinition: string;
  /** Per-output contribution min_w sum_x pi_x C[x][y] l(w, x). */
  columnValue: Float64Array;
  method: RemapMethod;
  stats: {
    columns: number;
    /** Guess evaluations of the certified path (a full scan would do columns x guesses). */
    evaluations: number;
    maxEvaluationsPerColumn: number;
    columnAccess: 'direct' | 'row-blocks' | 'measure';
    timeMs: number;
  };
}

const CHECK_EVERY = 256;

/** Column access matching a constructed mechanism, when its type allows it. */
export function columnAccessForMechanism(mech: Mechanism, domain: Domain): ColumnAccess | null {
  const ch = mech.channel;
  if (ch instanceof DenseChannel) return denseColumns(ch);
  if (ch instanceof ImplicitTightChannel) return tightColumns(ch);
  if (mech.kind === 'planar-laplace' && domain.structure.grid && ch.rows === domain.n && ch.cols === domain.n) {
    return planarLaplaceColumns(domain, mech.guaranteedEpsilon);
  }
  return null;
}

/** Bayesian remap of a constructed mechanism (finds its column access). */
export function remapMechanism(mech: Mechanism, domain: Domain, prior: ArrayLike<number>, loss: GuessSpec, opts: BayesRemapOptions = {}): BayesRemapResult {
  return bayesRemap(mech.channel, domain, prior, loss, { ...opts, columns: opts.columns ?? columnAccessForMechanism(mech, domain) });
}

/**
 * The Bayesian (optimal) remap of a channel's outputs for a prior and a loss
 * (issue 14, SPEC §3): output y -> argmin_w sum_x pi_x C[x][y] l(w, x),
 * the remapped channel C . R, and its expected loss next to the original's.
 *
 * Agrees exactly with measure/optimal-remap.ts (the same remap, the same
 * value bit for bit): every posterior column is formed as pi_x * C[x][y] like
 * the measure forms it, and every guess value is summed in the measure's order.
 * Memory: O(n + m) plus the column access's tables — never n x m.
 */
export function bayesRemap(channel: RowSource, domain: Domain, prior: ArrayLike<number>, lossSpec: GuessSpec, opts: BayesRemapOptions = {}): BayesRemapResult {
  const t0 = performance.now();
  const p = priorForChannel(prior, channel);
  if (channel.rows !== domain.n) throw new MechError('invalid-input', `the channel has ${channel.rows} rows but the domain ${domain.spec} has ${domain.n} points`);
  const loss = buildLoss(lossSpec, domain);
  const n = channel.rows;
  const m = channel.cols;
  const G = loss.guesses;
  const facesValue = outputsAreGuesses(channel, loss);
  const originalDefinition = facesValue
    ? 'the original channel at face value: its output is the guess (sum_x pi_x sum_y C[x][y] l(y, x))'
    : 'not defined: the outputs are not guesses of this loss, so the original has no face-value guess (its loss with the best use of its outputs is the remapped loss)';

  const grid = domain.structure.grid;
  const power: 1 | 2 | null = lossSpec.kind === 'dist' ? 1 : lossSpec.kind === 'dist2' ? 2 : null;
  const closedForm = grid && power !== null && ((grid.metric === 'manhattan' && power === 1) || (grid.metric === 'euclidean' && power === 2));
  const certified = grid && power !== null && !closedForm && grid.rows * grid.cols === n ? new GridBestGuess(domain, power) : null;
  let columns = opts.columns ?? null;
  if (columns === null && channel instanceof DenseChannel) columns = denseColumns(channel);
  if (columns === null && channel instanceof ImplicitTightChannel) columns = tightColumns(channel);
  if (columns && (opts.verifyColumns ?? true)) verifyColumns(channel, columns);

  const remap = new Int32Array(m);
  const columnValue = new Float64Array(m);
  let value = 0;
  let original = 0;

  if (!certified && !columns) {
    // No shortcut: the existing measure (row streaming, column blocks) is the remap.
    const r = optimalRemap(p, channel, loss);
    const orig = facesValue ? faceValueLoss(p, channel, loss) : null;
    return finish(r.remap, r.value, r.columnValue, orig, 'measure', 'measure', 0, 0);
  }

  const bestOf = certified ? (q: Float64Array) => certified.best(q) : (q: Float64Array) => loss.best(q);
  const lossOfOutput = facesValue ? faceValueColumn(domain, loss, power) : null;
  let done = 0;
  const visit = (y: number, q: Float64Array): void => {
    const b = bestOf(q);
    remap[y] = b.w;
    columnValue[y] = b.value;
    value += b.value;
    if (lossOfOutput) original += lossOfOutput(y, q);
    if (++done % CHECK_EVERY === 0) {
      if (opts.signal?.aborted) throw new MechError('cancelled', 'remap cancelled');
      opts.onProgress?.(done, m);
    }
  };
  if (columns) {
    const col = new Float64Array(n);
    const q = new Float64Array(n);
    for (let y = 0; y < m; y++) {
      columns.column(y, col);
      for (let x = 0; x < n; x++) q[x] = p[x]! * col[x]!;
      visit(y, q);
    }
  } else {
    forEachWeightedColumn(p, channel, visit);
  }
  opts.onProgress?.(m, m);
  return finish(
    remap,
    value,
    columnValue,
    facesValue ? original : null,
    certified ? 'certified-grid' : 'loss-best',
    columns ? 'direct' : 'row-blocks',
    certified?.evaluations ?? 0,
    certified?.maxEvaluations ?? 0,
  );

  function finish(
    rm: Int32Array,
    v: number,
    cv: Float64Array,
    orig: number | null,
    method: RemapMethod,
    access: BayesRemapResult['stats']['columnAccess'],
    evaluations: number,
    maxEval: number,
  ): BayesRemapResult {
    return {
      remap: rm,
      channel: new RemappedChannel(channel, rm, G, (w) => loss.guessLabel(w)),
      remappedLoss: v,
      originalLoss: orig,
      originalDefinition,
      columnValue: cv,
      method,
      stats: { columns: m, evaluations, maxEvaluationsPerColumn: maxEval, columnAccess: access, timeMs: performance.now() - t0 },
    };
  }
}

/** Outputs are guesses when there are as many and they carry the same labels. */
function outputsAreGuesses(channel: RowSource, loss: LossFunction): boolean {
  if (channel.cols !== loss.guesses) return false;
  for (let y = 0; y < channel.cols; y++) if (channel.colLabel(y) !== loss.guessLabel(y)) return false;
  return true;
}

/** sum_x q(x) l(y, x) for output y taken as the guess: a grid offset table for distance losses, loss.value otherwise. */
function faceValueColumn(domain: Domain, loss: LossFunction, power: 1 | 2 | null): (y: number, q: Float64Array) => number {
  const g = domain.structure.grid;
  const n = domain.n;
  if (g && power !== null && g.rows * g.cols === n) {
    const C = g.cols;
    const R = g.rows;
    const table = new Float64Array(n);
    for (let a = 0; a < R; a++)
      for (let b = 0; b < C; b++) {
        const d = domain.distance(0, a * C + b);
        table[a * C + b] = power === 1 ? d : d * d;
      }
    return (y, q) => {
      const yr = Math.floor(y / C);
      const yc = y - yr * C;
      let s = 0;
      for (let xr = 0, x = 0; xr < R; xr++) {
        const o = Math.abs(yr - xr) * C;
        for (let xc = 0; xc < C; xc++, x++) {
          const qx = q[x]!;
          if (qx !== 0) s += qx * table[o + Math.abs(yc - xc)]!;
        }
      }
      return s;
    };
  }
  return (y, q) => {
    let s = 0;
    for (let x = 0; x < n; x++) {
      const qx = q[x]!;
      if (qx !== 0) s += qx * loss.value(y, x);
    }
    return s;
  };
}

/** sum_x pi_x sum_y C[x][y] l(y, x), streaming rows. */
function faceValueLoss(p: Float64Array, channel: RowSource, loss: LossFunction): number {
  const buf = new Float64Array(channel.cols);
  let s = 0;
  for (let x = 0; x < channel.rows; x++) {
    const px = p[x]!;
    if (px === 0) continue;
    channel.row(x, buf);
    let r = 0;
    for (let y = 0; y < channel.cols; y++) {
      const c = buf[y]!;
      if (c !== 0) r += c * loss.value(y, x);
    }
    s += px * r;
  }
  return s;
}
