import { MechError, assertEpsilon, assertPositiveInt } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { NEG_TOL, REL_TOL } from '../../src-shared/numeric/tolerance';
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
 * Exact arithmetic on the stored numbers, no floor. The verdict is about the
 * channel as it is stored and sampled, so:
 *  - a positive entry facing an exact 0 (at finite, positive distance) is an
 *    infinite ratio: never private, whatever eps (an adversary who sees y
 *    rules x' out). This includes entries that underflowed to 0 while being
 *    computed: the released channel really has that zero.
 *  - ratios of tiny numbers are ratios: 1e-310 against 1e-320 is 1e10. A
 *    quotient of two doubles (normal or subnormal) is correctly rounded, so
 *    C[x][y] / C[x'][y] is exact to one rounding whenever it is finite; when
 *    it overflows (> 1.8e308) the ln-ratio is taken as ln a - ln b instead.
 *  - a NaN, infinite or negative entry is an error (MechError), not a
 *    verdict; an entry in [-NEG_TOL, 0) is a rounding zero and counts as 0
 *    (so a positive entry facing it is, again, an infinite ratio).
 * Every decision is made on ln-ratios, so eps d up to the largest double is
 * compared without overflow.
 *
 * For graph metrics (domain.structure.edges) only the edges are examined:
 * the constraint on edges implies it on all pairs along shortest paths, and
 * the largest ln-ratio per unit distance is reached on an edge, so the
 * effective eps is the same. Otherwise all pairs are examined (guarded by
 * maxWork). Rows are read one at a time from the RowSource (with a bounded
 * cache); no dense matrix is required.
 *
 * Guarantee: `passes` is true only if every examined ratio is at most
 * e^(eps d)(1 + REL_TOL); the tolerance only ever admits rounding of a
 * channel that is private in exact arithmetic, and an underflowed zero
 * facing a positive entry always fails (never wrong in the unsafe direction
 * beyond REL_TOL). Preconditions: d is a metric or pseudo-metric (edges are
 * examined alone only when the domain declares graph edges whose shortest
 * paths are d); every entry finite and >= -NEG_TOL (else a MechError, no
 * verdict). Tolerance: REL_TOL = 1e-9 relative (numeric/tolerance.ts).
 * docs/privacy-check.md: "The tolerance", "The verdict is about the stored
 * channel", "Which pairs are examined".
 */

export interface PrivacyPair {
  /** Labels: the secret whose entry is larger, the other secret, the output. */
  x: string;
  xp: string;
  y: string;
  xIndex: number;
  xpIndex: number;
  yIndex: number;
  /** C[x][y] / C[xp][y] (Infinity when C[xp][y] = 0 < C[x][y], or when the quotient exceeds the largest double: see lnRatio). */
  ratio: number;
  /** ln(C[x][y] / C[xp][y]), finite whenever both entries are positive. */
  lnRatio: number;
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
  /** 'grid-offsets': the structured check of grid-offset-check.ts (planar Laplace). */
  mode: 'edges' | 'all-pairs' | 'grid-offsets';
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
  /** Refuse checks above (pairs examined) * cols entry comparisons, all pairs or graph edges alike (default 2e9). */
  maxWork?: number;
  /** Row cache budget in Float64 entries (default 2^23 = 64 MiB). */
  cacheEntries?: number;
}

interface Candidate {
  x: number;
  xp: number;
  y: number;
  ratio: number;
  lnRatio: number;
  distance: number;
  eff: number;
  violates: boolean;
}

/**
 * The offer step of a worst-pairs list, shared by both checks: keeps `worst`
 * sorted by eff, largest first, at most topK long; a candidate goes after the
 * kept ones with an equal eff (so a full list does not take a tie of its last).
 */
export function worstListOffer<T extends { eff: number }>(worst: T[], topK: number): (c: T) => void {
  return (c) => {
    if (topK === 0) return;
    if (worst.length === topK && !(c.eff > worst[worst.length - 1]!.eff)) return;
    let k = worst.length;
    while (k > 0 && c.eff > worst[k - 1]!.eff) k--;
    worst.splice(k, 0, c);
    if (worst.length > topK) worst.pop();
  };
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
  // Every entry is validated as its row is generated (and rows no pair
  // visits are validated at the end): no verdict is given on a channel with
  // a NaN, infinite or negative entry.
  const seen = new Uint8Array(n);
  const validateRow = (i: number, row: Float64Array): void => {
    seen[i] = 1;
    for (let y = 0; y < m; y++) {
      const v = row[y]!;
      if (!(v >= -NEG_TOL && v <= 1 + REL_TOL)) badEntry(i, y, v);
    }
  };
  const cache = new RowCache(src, opts.cacheEntries ?? 2 ** 23, validateRow);

  const badEntry = (i: number, y: number, v: number): never => {
    throw new MechError('invalid-input', `channel entry C[${src.rowLabel(i)}][${src.colLabel(y)}] is ${v}, not a probability`);
  };

  let effective = 0;
  let violating = 0;
  let pairsChecked = 0;
  const worst: Candidate[] = [];
  const offer = worstListOffer(worst, topK);

  // One ordered direction: the largest ln(C[x][y] / C[xp][y]) over y
  // (entries already validated: finite, in [-NEG_TOL, 1 + REL_TOL]).
  // A quotient is computed directly (exact to one rounding while finite);
  // only an overflowing quotient takes the slower ln a - ln b.
  const examine = (x: number, xp: number, a: Float64Array, b: Float64Array, d: number): void => {
    let bestRatio = 0; // largest finite quotient
    let argRatio = -1;
    let bestBigLn = -Infinity; // largest ln-ratio among quotients that overflowed
    let argBig = -1;
    for (let y = 0; y < m; y++) {
      const ay = a[y]!;
      if (!(ay > 0)) continue; // 0, or a rounding zero in [-NEG_TOL, 0)
      const by = b[y]!;
      if (!(by > 0)) {
        // positive facing an exact (or rounding) zero: infinite privacy loss
        bestBigLn = Infinity;
        argBig = y;
        break;
      }
      const r = ay / by;
      if (r === Infinity) {
        const lr = Math.log(ay) - Math.log(by);
        if (lr > bestBigLn) {
          bestBigLn = lr;
          argBig = y;
        }
      } else if (r > bestRatio) {
        bestRatio = r;
        argRatio = y;
      }
    }
    const arg = argBig >= 0 ? argBig : argRatio;
    if (arg < 0) return; // row x all zero: nothing to bound
    const lr = argBig >= 0 ? bestBigLn : Math.log(bestRatio);
    let eff: number;
    let violates: boolean;
    if (lr === Infinity) {
      violates = true;
      eff = Infinity;
    } else if (d === 0) {
      violates = lr > logTol;
      eff = violates ? Infinity : 0;
    } else {
      eff = Math.max(0, lr / d);
      violates = lr > eps * d + logTol;
    }
    if (eff > effective) effective = eff;
    if (violates) violating++;
    offer({ x, xp, y: arg, ratio: argBig >= 0 ? Infinity : bestRatio, lnRatio: lr, distance: d, eff, violates });
  };

  const pair = (i: number, j: number, d: number): void => {
    if (d === Infinity) return;
    if (!(d >= 0)) throw new MechError('invalid-input', `distance between ${domain.label(i)} and ${domain.label(j)} is ${d}, not a distance`);
    const a = cache.get(i);
    const b = cache.get(j);
    pairsChecked++;
    examine(i, j, a, b, d);
    examine(j, i, b, a, d);
  };

  const maxWork = opts.maxWork ?? 2e9;
  if (mode === 'edges') {
    const { from, to, weight } = edges!;
    const work = from.length * m;
    if (work > maxWork) {
      throw new MechError(
        'too-large',
        `checking the ${from.length} graph edges of ${domain.spec} over ${m} outputs is ${work.toExponential(2)} comparisons (limit ${maxWork.toExponential(2)})`,
        { work, maxWork },
      );
    }
    for (let k = 0; k < from.length; k++) pair(from[k]!, to[k]!, weight[k]!);
  } else {
    const work = ((n * (n - 1)) / 2) * m;
    if (work > maxWork) {
      throw new MechError(
        'too-large',
        `checking all ${(n * (n - 1)) / 2} pairs of ${domain.spec} over ${m} outputs is ${work.toExponential(2)} comparisons (limit ${maxWork.toExponential(2)}); the domain has no graph edges to restrict the check to`,
        { work, maxWork },
      );
    }
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pair(i, j, domain.distance(i, j));
  }

  if (seen.indexOf(0) >= 0) {
    const buf = new Float64Array(m);
    for (let i = 0; i < n; i++) if (!seen[i]) validateRow(i, src.row(i, buf));
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
      lnRatio: c.lnRatio,
      allowedRatio: Math.exp(eps * c.distance),
      distance: c.distance,
      effectiveEpsilon: c.eff,
      violates: c.violates,
    })),
    relTol: REL_TOL,
  };
}
