import { MechError, assertEpsilon, assertPositiveInt } from '../errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { REL_TOL } from '../numeric/tolerance';
import { RowCache } from './row-cache';

/**
 * Privacy check of a channel against eps*d (SPEC §4).
 *
 * effective eps = max over pairs (x, x') with 0 < d(x,x') < inf and outputs y
 * of ln(C[x][y] / C[x'][y]) / d(x,x'), both orders of each pair.
 * Zero entries: 0/0 is no constraint; positive/0 is an infinite ratio.
 * A pair at distance 0 (pseudo-metric) allows ratio 1 only; d = inf allows all.
 * A pair passes when ratio <= e^(eps d) * (1 + REL_TOL), i.e.
 * ln ratio <= eps d + ln(1 + REL_TOL).
 *
 * Underflow (the issue's "log-space wherever exp underflows"): an entry
 * below the smallest normal double UNDERFLOW_FLOOR = 2^-1022 is not resolved
 * relative to its neighbours (exp(-eps d) of a far output rounds to a
 * subnormal or to 0 while the next row's entry is still positive), so the
 * ratio is taken against max(C[x'][y], UNDERFLOW_FLOOR), and positive/0 counts
 * as the infinite violation only when the positive entry exceeds
 * e^(eps d) (1 + REL_TOL) UNDERFLOW_FLOOR, i.e. when it could not be a
 * rounding zero's neighbour. Effect: effective eps is never inflated by
 * underflow (TG at eps = 10 on line:100 passes at 10 instead of reporting an
 * infinite ratio between e^-740 and a 0 that stands for e^-750); a genuine
 * violation whose smaller entry is below 2^-1022 (about 2.2e-308) can be
 * under-reported.
 *
 * For graph metrics (domain.structure.edges) only the edges are examined:
 * the constraint on edges implies it on all pairs along shortest paths, and
 * the largest ln-ratio per unit distance is reached on an edge, so the
 * effective eps is the same. Otherwise all pairs are examined (guarded by
 * maxWork). Rows are read one at a time from the RowSource (with a bounded
 * cache); no dense matrix is required.
 */

/** Smallest normal double: entries below it are compared as if they were this large (see above). */
export const UNDERFLOW_FLOOR = 2 ** -1022;

export interface PrivacyPair {
  /** Labels: the secret whose entry is larger, the other secret, the output. */
  x: string;
  xp: string;
  y: string;
  xIndex: number;
  xpIndex: number;
  yIndex: number;
  /** C[x][y] / C[xp][y] (Infinity when C[xp][y] = 0 < C[x][y]). */
  ratio: number;
  /** e^(eps d(x, xp)): the largest ratio eps*d allows. */
  allowedRatio: number;
  distance: number;
  /** ln(ratio) / d(x, xp) for this pair. */
  effectiveEpsilon: number;
  violates: boolean;
}

export interface PrivacyCheckResult {
  epsilon: number;
  effectiveEpsilon: number;
  passes: boolean;
  mode: 'edges' | 'all-pairs';
  /** Unordered pairs of secrets examined. */
  pairsChecked: number;
  /** Number of ordered pairs that violate eps*d. */
  violatingPairs: number;
  /** The topK ordered pairs with the largest effective eps, worst first. */
  worst: PrivacyPair[];
  relTol: number;
}

export interface PrivacyCheckOptions {
  /** How many worst pairs to report (default 10). */
  topK?: number;
  /** 'auto' (edges when the domain has them), or force one mode. */
  pairs?: 'auto' | 'edges' | 'all';
  /** Refuse all-pairs checks above pairs * cols entry comparisons (default 2e9). */
  maxWork?: number;
  /** Row cache budget in Float64 entries (default 2^23 = 64 MiB). */
  cacheEntries?: number;
}

interface Candidate {
  x: number;
  xp: number;
  y: number;
  ratio: number;
  distance: number;
  eff: number;
  violates: boolean;
}

export function checkPrivacy(src: RowSource, domain: Domain, eps: number, opts: PrivacyCheckOptions = {}): PrivacyCheckResult {
  assertEpsilon(eps);
  const topK = opts.topK ?? 10;
  assertPositiveInt(topK, 'number of worst pairs', 0);
  if (src.rows !== domain.n) {
    throw new MechError('invalid-input', `the channel has ${src.rows} rows but the domain ${domain.spec} has ${domain.n} points`);
  }
  const wanted = opts.pairs ?? 'auto';
  // Explicitly asked for edges: a too-large edge list is an error; otherwise fall back to all pairs.
  const edges = wanted === 'edges' ? domain.structure.edges : edgesIfAvailable(domain);
  if (wanted === 'edges' && !edges) throw new MechError('invalid-input', `domain ${domain.spec} has no graph edges to check`);
  const mode: 'edges' | 'all-pairs' = wanted === 'all' || !edges ? 'all-pairs' : 'edges';
  const m = src.cols;
  const n = src.rows;
  const logTol = Math.log1p(REL_TOL);
  const cache = new RowCache(src, opts.cacheEntries ?? 2 ** 23);

  let effective = 0;
  let violating = 0;
  let pairsChecked = 0;
  const worst: Candidate[] = [];

  const offer = (c: Candidate): void => {
    if (topK === 0) return;
    if (worst.length === topK && !(c.eff > worst[worst.length - 1]!.eff)) return;
    let k = worst.length;
    while (k > 0 && c.eff > worst[k - 1]!.eff) k--;
    worst.splice(k, 0, c);
    if (worst.length > topK) worst.pop();
  };

  // One ordered direction: largest C[x][y] / C[xp][y] over y. `limit` is
  // the allowed ratio e^(eps d) (1 + REL_TOL); positive/0 is infinite only
  // beyond limit * UNDERFLOW_FLOOR (a larger entry cannot sit next to a
  // rounding zero).
  const examine = (x: number, xp: number, a: Float64Array, b: Float64Array, d: number, limit: number): void => {
    let best = 0;
    let arg = -1;
    for (let y = 0; y < m; y++) {
      const ay = a[y]!;
      if (!(ay > 0)) continue;
      const by = b[y]!;
      let r: number;
      if (by >= UNDERFLOW_FLOOR) r = ay / by;
      else {
        r = ay / UNDERFLOW_FLOOR;
        if (!(by > 0) && r > limit) r = Infinity;
      }
      if (r > best) {
        best = r;
        arg = y;
        if (r === Infinity) break;
      }
    }
    if (arg < 0) return; // row x all zero: nothing to bound
    const lr = Math.log(best);
    let eff: number;
    let violates: boolean;
    if (d === 0) {
      violates = lr > logTol;
      eff = violates ? Infinity : 0;
    } else {
      eff = Math.max(0, lr / d);
      violates = lr > eps * d + logTol;
    }
    if (eff > effective) effective = eff;
    if (violates) violating++;
    offer({ x, xp, y: arg, ratio: best, distance: d, eff, violates });
  };

  const pair = (i: number, j: number, d: number): void => {
    if (d === Infinity) return;
    if (!(d >= 0)) throw new MechError('invalid-input', `distance between ${domain.label(i)} and ${domain.label(j)} is ${d}, not a distance`);
    const a = cache.get(i);
    const b = cache.get(j);
    pairsChecked++;
    const limit = Math.exp(eps * d) * (1 + REL_TOL);
    examine(i, j, a, b, d, limit);
    examine(j, i, b, a, d, limit);
  };

  if (mode === 'edges') {
    const { from, to, weight } = edges!;
    for (let k = 0; k < from.length; k++) pair(from[k]!, to[k]!, weight[k]!);
  } else {
    const work = ((n * (n - 1)) / 2) * m;
    const maxWork = opts.maxWork ?? 2e9;
    if (work > maxWork) {
      throw new MechError(
        'too-large',
        `checking all ${(n * (n - 1)) / 2} pairs of ${domain.spec} over ${m} outputs is ${work.toExponential(2)} comparisons (limit ${maxWork.toExponential(2)}); the domain has no graph edges to restrict the check to`,
        { work, maxWork },
      );
    }
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pair(i, j, domain.distance(i, j));
  }

  return {
    epsilon: eps,
    effectiveEpsilon: effective,
    passes: violating === 0,
    mode,
    pairsChecked,
    violatingPairs: violating,
    worst: worst.map((c) => ({
      x: src.rowLabel(c.x),
      xp: src.rowLabel(c.xp),
      y: src.colLabel(c.y),
      xIndex: c.x,
      xpIndex: c.xp,
      yIndex: c.y,
      ratio: c.ratio,
      allowedRatio: Math.exp(eps * c.distance),
      distance: c.distance,
      effectiveEpsilon: c.eff,
      violates: c.violates,
    })),
    relTol: REL_TOL,
  };
}
