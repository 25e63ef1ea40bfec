import { MechError } from '../../src-shared/errors';
import type { Mechanism, RowSource } from '../mechanism/channel';
import { DenseChannel } from '../mechanism/channel';
import { ImplicitTightChannel } from '../mechanism/implicit/implicit-tight-channel';
import type { Domain } from '../metric/domain';
import type { LossFunction } from '../measure/guess-function';
import { buildLoss, type GuessSpec } from '../measure/loss-spec';
import { optimalRemap } from '../measure/optimal-remap';
import { faceValueCost } from '../measure/expected-distance-error';
import { priorForChannel } from '../measure/prior-for-channel';
import { forEachWeightedColumn } from '../measure/weighted-columns';
import {
  type ColumnAccess,
  denseColumns,
  planarLaplaceColumns,
  rowNormalisedColumns,
  tightColumns,
  verifyColumns,
} from './columns';
import { GridBestGuess } from './grid-best-guess';
import { RemappedChannel } from './remapped-channel';
import { planarLaplaceWindows, tightWindows, type WindowColumnAccess } from './window-columns';
import { checkCancelled } from '../numeric/cancel';

/**
 * How each output's guess was found:
 *  - 'certified-grid': distance loss on a grid without a closed-form best
 *    guess (Euclidean/Chebyshev dist, Manhattan/Chebyshev dist2): convexity
 *    cuts evaluate a few guesses and prove the rest worse (grid-best-guess.ts);
 *  - 'certified-window': the same on large grids, reading each posterior
 *    column only on a window around its output, with a proven bound on the
 *    weight outside; a choice the bound cannot certify is redone on a
 *    window twice as wide, up to the whole grid (exact);
 *  - 'loss-best': the loss's own best response per column (binary, nib,
 *    Manhattan dist and Euclidean dist2 by weighted medians/means, matrices);
 *  - 'measure': the existing row-streaming measure (measure/optimal-remap.ts)
 *    when the channel gives no column access and no grid shortcut applies.
 */
type RemapMethod = 'certified-grid' | 'certified-window' | 'loss-best' | 'measure';

interface BayesRemapOptions {
  /**
   * Column access for the channel (see columns.ts); found automatically for dense and implicit tight channels, and via
   * remapMechanism for planar Laplace.
   */
  columns?: ColumnAccess | null;
  /** Spot-check the column access against rows first (default true). */
  verifyColumns?: boolean;
  /** Aborted -> MechError 'cancelled' (checked every few hundred columns). */
  signal?: AbortSignal;
  /** Called with (columns done, total) every few hundred columns. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Windowed columns for certified grid guesses: 'auto' (default) on grids
   * of more than WINDOW_MIN_CELLS cells when the column access offers
   * windows; 'on' whenever windows are offered; 'off' always reads whole
   * columns (bit-for-bit the measure);
   * a number forces that starting radius (tests).
   */
  window?: 'auto' | 'on' | 'off' | number;
}

/** Grids above this many cells use windowed columns by default (a whole column costs O(n) per output). */
const WINDOW_MIN_CELLS = 40_000;

/** The starting window leaves out entries at most this fraction of the column's largest possible entry. */
const WINDOW_REL = 1e-13;

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
  /** Per-output contribution min_w sum_x pi_x C[x][y] l(w, x) (windowed: its lower end, see valueSlack). */
  columnValue: Float64Array;
  /**
   * 0 when the values are exact sums. With windowed columns the weight
   * outside the windows is bounded, not summed: the true remappedLoss (and
   * originalLoss) lie in [value, value + valueSlack]. The remap itself is
   * certified optimal either way.
   */
  valueSlack: number;
  method: RemapMethod;
  stats: {
    columns: number;
    /** Guess evaluations of the certified path (a full scan would do columns x guesses). */
    evaluations: number;
    maxEvaluationsPerColumn: number;
    columnAccess: 'direct' | 'row-blocks' | 'measure' | 'window';
    timeMs: number;
    /** Windowed path: starting radius, outputs redone on a wider window, largest radius used. */
    window?: { startRadius: number; widened: number; maxRadius: number; meanCells: number };
  };
}

const CHECK_EVERY = 256;

/** Column access matching a constructed mechanism, when its type allows it. */
export function columnAccessForMechanism(mech: Mechanism, domain: Domain): ColumnAccess | null {
  const ch = mech.channel;
  if (ch instanceof DenseChannel) return denseColumns(ch);
  if (ch instanceof ImplicitTightChannel) return tightWindows(ch) ?? tightColumns(ch);
  const g = domain.structure.grid;
  if (mech.kind === 'planar-laplace' && g && ch.rows === domain.n && ch.cols === domain.n) {
    return g.rows >= 2 && g.cols >= 2
      ? planarLaplaceWindows(domain, mech.guaranteedEpsilon)
      : planarLaplaceColumns(domain, mech.guaranteedEpsilon);
  }
  const f = mech.facts;
  if ((f.kind === 'exponential' || f.kind === 'laplace') && ch.rows === domain.n && ch.cols === domain.n)
    return rowNormalisedColumns(domain, f.kernelRate);
  return null;
}

/** Bayesian remap of a constructed mechanism (finds its column access). */
export function remapMechanism(
  mech: Mechanism,
  domain: Domain,
  prior: ArrayLike<number>,
  loss: GuessSpec,
  opts: BayesRemapOptions = {},
): BayesRemapResult {
  return bayesRemap(mech.channel, domain, prior, loss, {
    ...opts,
    columns: opts.columns ?? columnAccessForMechanism(mech, domain),
  });
}

/**
 * The Bayesian (optimal) remap of a channel's outputs for a prior and a loss
 * (SPEC §3): output y -> argmin_w sum_x pi_x C[x][y] l(w, x),
 * the remapped channel C . R, and its expected loss next to the original's.
 *
 * Agrees exactly with measure/optimal-remap.ts (the same remap, the same
 * value bit for bit) on whole columns: every posterior column is formed as
 * pi_x * C[x][y] like the measure forms it, and every guess value is summed
 * in the measure's order. On windowed large grids the remap is still a
 * certified optimum and the values are bracketed by valueSlack (on exact ties
 * of a closed-form loss another optimal guess may be chosen).
 * Memory: O(n + m) plus the column access's tables — never n x m.
 */
export function bayesRemap(
  channel: RowSource,
  domain: Domain,
  prior: ArrayLike<number>,
  lossSpec: GuessSpec,
  opts: BayesRemapOptions = {},
): BayesRemapResult {
  const t0 = performance.now();
  const p = priorForChannel(prior, channel);
  if (channel.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `the channel has ${channel.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  const loss = buildLoss(lossSpec, domain);
  const n = channel.rows;
  const m = channel.cols;
  const facesValue = outputsAreGuesses(channel, loss);
  const originalDefinition = facesValue
    ? 'the original channel at face value: its output is the guess (sum_x pi_x sum_y C[x][y] l(y, x))'
    : 'not defined: the outputs are not guesses of this loss, so the original has no face-value guess (its loss with the best use of its outputs is the remapped loss)';

  const grid = domain.structure.grid;
  const { power, columns, win, winMode, windowed, certified } = remapPlan(channel, domain, lossSpec, opts);
  const result: ResultContext = { channel, loss, originalDefinition, t0 };

  const remap = new Int32Array(m);
  const columnValue = new Float64Array(m);
  let value = 0;
  let original = 0;

  if (!certified && !columns) {
    // No shortcut: the existing measure (row streaming, column blocks) is the remap.
    const r = optimalRemap(p, channel, loss);
    const orig = facesValue ? faceValueCost(p, channel, (x, y) => loss.value(y, x)) : null;
    return remapResult(result, r.remap, r.value, r.columnValue, orig, 'measure', 'measure', 0, 0);
  }

  if (certified && win && windowed) {
    if (win.gridRows !== grid!.rows || win.gridCols !== grid!.cols || m !== n) {
      throw new MechError(
        'internal',
        `windowed columns are for a ${win.gridRows} x ${win.gridCols} grid with ${m} outputs, the domain is ${domain.spec}`,
      );
    }
    const w = windowedRemap(p, win, certified, typeof winMode === 'number' ? winMode : null, facesValue, opts, m);
    return {
      ...remapResult(
        result,
        w.remap,
        w.value,
        w.columnValue,
        facesValue ? w.original : null,
        'certified-window',
        'window',
        certified.evaluations,
        certified.maxEvaluations,
      ),
      valueSlack: w.slack,
      stats: {
        columns: m,
        evaluations: certified.evaluations,
        maxEvaluationsPerColumn: certified.maxEvaluations,
        columnAccess: 'window',
        timeMs: performance.now() - t0,
        window: w.info,
      },
    };
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
      checkCancelled(opts.signal, 'remap cancelled');
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
  return remapResult(
    result,
    remap,
    value,
    columnValue,
    facesValue ? original : null,
    certified ? 'certified-grid' : 'loss-best',
    columns ? 'direct' : 'row-blocks',
    certified?.evaluations ?? 0,
    certified?.maxEvaluations ?? 0,
  );
}

/**
 * How bayesRemap reads the channel: its column access (the windowed one when it has it) and the grid's certified
 * search.
 */
interface RemapPlan {
  power: 1 | 2 | null;
  columns: ColumnAccess | null;
  win: WindowColumnAccess | null;
  winMode: NonNullable<BayesRemapOptions['window']>;
  windowed: boolean;
  certified: GridBestGuess | null;
}

/** The column access of the channel (given, dense or tight), whether its windows are used, and the certified search. */
function remapPlan(channel: RowSource, domain: Domain, lossSpec: GuessSpec, opts: BayesRemapOptions): RemapPlan {
  const n = channel.rows;
  const grid = domain.structure.grid;
  const power: 1 | 2 | null = lossSpec.kind === 'dist' ? 1 : lossSpec.kind === 'dist2' ? 2 : null;
  const closedForm =
    grid &&
    power !== null &&
    ((grid.metric === 'manhattan' && power === 1) || (grid.metric === 'euclidean' && power === 2));
  let columns = opts.columns ?? null;
  if (columns === null && channel instanceof DenseChannel) columns = denseColumns(channel);
  if (columns === null && channel instanceof ImplicitTightChannel)
    columns = tightWindows(channel) ?? tightColumns(channel);
  const win = columns && 'columnWindow' in columns ? (columns as WindowColumnAccess) : null;
  const winMode = opts.window ?? 'auto';
  const windowed =
    win !== null && winMode !== 'off' && (typeof winMode === 'number' || winMode === 'on' || n > WINDOW_MIN_CELLS);
  // Closed-form best guesses (weighted medians / means) are O(n) per output; on windowed large grids
  // the certified search is used for them too (any exact optimum; on exact ties it may pick another
  // optimal guess than the median formula).
  const certified =
    grid && power !== null && (!closedForm || windowed) && grid.rows * grid.cols === n
      ? new GridBestGuess(domain, power)
      : null;
  if (columns && (opts.verifyColumns ?? true)) verifyColumns(channel, columns);
  return { power, columns, win, winMode, windowed, certified };
}

/** What every remap result carries: the channel, the loss, the original loss's definition and the start time. */
interface ResultContext {
  channel: RowSource;
  loss: LossFunction;
  originalDefinition: string;
  t0: number;
}

/** The remap result record (no value slack; the windowed path sets its own slack and stats). */
function remapResult(
  ctx: ResultContext,
  rm: Int32Array,
  v: number,
  cv: Float64Array,
  orig: number | null,
  method: RemapMethod,
  access: BayesRemapResult['stats']['columnAccess'],
  evaluations: number,
  maxEval: number,
): BayesRemapResult {
  const { channel, loss } = ctx;
  return {
    remap: rm,
    channel: new RemappedChannel(channel, rm, loss.guesses, (w) => loss.guessLabel(w)),
    remappedLoss: v,
    originalLoss: orig,
    originalDefinition: ctx.originalDefinition,
    columnValue: cv,
    valueSlack: 0,
    method,
    stats: {
      columns: channel.cols,
      evaluations,
      maxEvaluationsPerColumn: maxEval,
      columnAccess: access,
      timeMs: performance.now() - ctx.t0,
    },
  };
}

/** Outputs are guesses when there are as many and they carry the same labels. */
function outputsAreGuesses(channel: RowSource, loss: LossFunction): boolean {
  if (channel.cols !== loss.guesses) return false;
  for (let y = 0; y < channel.cols; y++) if (channel.colLabel(y) !== loss.guessLabel(y)) return false;
  return true;
}

/**
 * sum_x q(x) l(y, x) for output y taken as the guess: a grid offset table for distance losses, loss.value otherwise.
 */
function faceValueColumn(
  domain: Domain,
  loss: LossFunction,
  power: 1 | 2 | null,
): (y: number, q: Float64Array) => number {
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

/**
 * The remap on a large grid, one output at a time from a window of its
 * posterior column: q = pi .* C[., y] on the Chebyshev window of radius rho
 * around y; the weight outside is at most (pi outside the window) times
 * outsideMax(y, rho) (prefix sums of pi, plus 1e-9 of the total for their
 * rounding). bestIn certifies the guess against that slack; otherwise the
 * radius doubles, until the window is the grid (slack 0: exact).
 */
function windowedRemap(
  p: Float64Array,
  win: WindowColumnAccess,
  gb: GridBestGuess,
  forcedRadius: number | null,
  faceValue: boolean,
  opts: BayesRemapOptions,
  m: number,
): {
  remap: Int32Array;
  value: number;
  slack: number;
  original: number;
  columnValue: Float64Array;
  info: NonNullable<BayesRemapResult['stats']['window']>;
} {
  const R = win.gridRows;
  const C = win.gridCols;
  const K = Math.max(R, C);
  // 2-D prefix sums of the prior, (R + 1) x (C + 1)
  const P = new Float64Array((R + 1) * (C + 1));
  for (let r = 0; r < R; r++) {
    let rowSum = 0;
    for (let c = 0; c < C; c++) {
      rowSum += p[r * C + c]!;
      P[(r + 1) * (C + 1) + c + 1] = P[r * (C + 1) + c + 1]! + rowSum;
    }
  }
  const total = P[R * (C + 1) + C]!;
  const inBox = (r0: number, r1: number, c0: number, c1: number) =>
    P[(r1 + 1) * (C + 1) + c1 + 1]! - P[r0 * (C + 1) + c1 + 1]! - P[(r1 + 1) * (C + 1) + c0]! + P[r0 * (C + 1) + c0]!;
  let start = forcedRadius;
  if (start === null) {
    let y0 = 0;
    while (y0 < m - 1 && !(win.outsideMax(y0, -1) > 0)) y0++;
    const top = win.outsideMax(y0, -1);
    start = 1;
    while (start < K - 1 && win.outsideMax(y0, start) > WINDOW_REL * top) start++;
  }
  start = Math.max(0, Math.min(K - 1, Math.floor(start)));
  const maxCells = Math.min(R, 2 * (K - 1) + 1) * Math.min(C, 2 * (K - 1) + 1);
  const col = new Float64Array(maxCells);
  const remap = new Int32Array(m);
  const columnValue = new Float64Array(m);
  let value = 0;
  let slack = 0;
  let original = 0;
  let originalSlack = 0;
  let widened = 0;
  let maxRadius = start;
  let cells = 0;
  for (let y = 0; y < m; y++) {
    const yr = Math.floor(y / C);
    const yc = y - yr * C;
    // Outputs of low prior weight have little posterior weight near them: start wider, where
    // the outside bound is small against that weight (a speed choice only: certification decides).
    let rho0 = start;
    if (forcedRadius === null && p[y]! > 0) {
      const want = (1e-8 * p[y]! * win.outsideMax(y, -1)) / K;
      if (win.outsideMax(y, rho0) > want) {
        let lo = rho0;
        let hi = K - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (win.outsideMax(y, mid) <= want) hi = mid;
          else lo = mid + 1;
        }
        rho0 = lo;
      }
    }
    for (let rho = rho0; ; rho = Math.min(K - 1, 2 * rho + 1)) {
      const r0 = Math.max(0, yr - rho);
      const r1 = Math.min(R - 1, yr + rho);
      const c0 = Math.max(0, yc - rho);
      const c1 = Math.min(C - 1, yc + rho);
      const whole = r0 === 0 && c0 === 0 && r1 === R - 1 && c1 === C - 1;
      win.columnWindow(y, r0, r1, c0, c1, col);
      const W = c1 - c0 + 1;
      const size = (r1 - r0 + 1) * W;
      for (let i = 0, r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++, i++) col[i] = p[r * C + c]! * col[i]!;
      const outside = whole ? 0 : (Math.max(0, total - inBox(r0, r1, c0, c1)) + 1e-9 * total) * win.outsideMax(y, rho);
      const b = gb.bestIn(col, r0, r1, c0, c1, outside);
      cells += size;
      if (!b.certified && !whole) {
        widened++;
        continue;
      }
      if (rho > maxRadius) maxRadius = rho;
      remap[y] = b.w;
      columnValue[y] = b.value;
      value += b.value;
      slack += b.slack;
      if (faceValue) {
        // sum over the window of q(x) l(y, x), plus at most outside * maxLoss(y) beyond it
        let s = 0;
        for (let i = 0, r = r0; r <= r1; r++)
          for (let c = c0; c <= c1; c++, i++) if (col[i] !== 0) s += col[i]! * gb.lossAtOffset(yr - r, yc - c);
        original += s;
        if (outside > 0) originalSlack += outside * gb.maxLossFrom(y);
      }
      break;
    }
    if ((y + 1) % 256 === 0) {
      checkCancelled(opts.signal, 'remap cancelled');
      opts.onProgress?.(y + 1, m);
    }
  }
  opts.onProgress?.(m, m);
  return {
    remap,
    value,
    slack: Math.max(slack, originalSlack),
    original,
    columnValue,
    info: { startRadius: start, widened, maxRadius, meanCells: cells / m },
  };
}
