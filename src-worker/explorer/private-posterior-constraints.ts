import { MechError, assertEpsilon, invalid } from '../../src-shared/errors';
import type { CapacityNote } from '../../src-shared/protocol/index';
import { capacityNoteWords } from '../../src-shared/charts/note-words';
import type { Domain } from '../metric/domain';
import { doubleToRational, recogniseRational } from './exact-arithmetic';

/**
 * The cone whose slice by sum = 1 is the polytope of eps*d-private
 * posteriors (SPEC §6):
 *   { delta in simplex : delta_i <= e^(eps d(i,k)) delta_k  for all i != k }.
 * Homogeneous form: x_i >= 0 (constraints 0..n-1, listed first; implied by the
 * ratio constraints when all distances are finite, kept anyway), then one
 * constraint e^(eps d(i,k)) x_k - x_i >= 0 per ordered pair with finite
 * distance, sorted by distance so that graph edges come first (the double
 * description method then meets the facets early).
 */

/** Largest domain the explorer accepts (vertex counts grow like 2^n). */
export const EXPLORER_MAX_N = 10;

export type ExplorerArithmetic = 'exact' | 'float';

export interface PrivatePosteriorConstraints {
  n: number;
  m: number;
  eps: number;
  /** For ratio constraint c: x_lo[c] <= ratio[c] * x_hi[c]; for c < n: x_c >= 0 (lo = hi = c, ratio = NaN). */
  lo: Int32Array;
  hi: Int32Array;
  ratio: Float64Array;
  /** Dense m x n float rows, each scaled to max |entry| = 1; constraint value row . x >= 0. */
  rows: Float64Array;
  /**
   * 'exact' when every ratio e^(eps d) was recognised as a rational (or the
   * caller forced dyadic-exact arithmetic): then intRows holds the constraint
   * rows as integers (q_c * ratio = p_c; row p_c x_hi - q_c x_lo >= 0).
   */
  arithmetic: ExplorerArithmetic;
  intRows: bigint[][] | null;
  /**
   * How exact rows were obtained: 'rational' (every e^(eps d) recognised as a
   * rational: the true polytope), 'rounded' (powers of the rounded base
   * t = e^(eps unit), see powerRatios), null in float mode.
   */
  exactBase: 'rational' | 'rounded' | null;
  /** Readable form of constraint c, for the UI and error messages. */
  describe(c: number): string;
}

export interface ConstraintOptions {
  /**
   * 'auto' (default): exact rational arithmetic when every e^(eps d) is a
   * recognisable rational (eps = ln 2 with integral d, ...); else, when all
   * distances are integer multiples of a common unit, exact arithmetic on
   * powers of the rounded base (powerRatios); else float.
   * 'float': always float. 'exact-rounded': skip the rational recognition and
   * use powers of the rounded base (error if the metric has no common unit).
   */
  arithmetic?: 'auto' | 'float' | 'exact-rounded';
}

function checkExplorerDomain(domain: Domain): void {
  if (!domain || !Number.isInteger(domain.n) || domain.n < 1)
    invalid('privacy-type explorer: the domain must have at least 1 point');
  if (domain.n > EXPLORER_MAX_N) {
    throw new MechError(
      'too-large',
      `privacy-type explorer: ${domain.spec} has ${domain.n} points; vertex and kernel enumeration is limited to n <= ${EXPLORER_MAX_N}`,
      { n: domain.n, limit: EXPLORER_MAX_N },
    );
  }
}

export function privatePosteriorConstraints(
  domain: Domain,
  eps: number,
  options: ConstraintOptions = {},
): PrivatePosteriorConstraints {
  assertEpsilon(eps);
  checkExplorerDomain(domain);
  const n = domain.n;
  const pairs: { i: number; k: number; d: number }[] = [];
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      if (i === k) continue;
      const d = domain.distance(i, k);
      if (Number.isNaN(d) || d < 0)
        invalid(`privacy-type explorer: distance d(${domain.label(i)}, ${domain.label(k)}) is ${d}, not a distance`);
      if (d === Infinity) continue; // fully distinguishable: no constraint
      pairs.push({ i, k, d });
    }
  pairs.sort((a, b) => a.d - b.d || a.i - b.i || a.k - b.k);
  const m = n + pairs.length;
  const lo = new Int32Array(m);
  const hi = new Int32Array(m);
  const ratio = new Float64Array(m).fill(NaN);
  const rows = new Float64Array(m * n);
  for (let c = 0; c < n; c++) {
    lo[c] = c;
    hi[c] = c;
    rows[c * n + c] = 1;
  }
  pairs.forEach((p, idx) => {
    const c = n + idx;
    const r = Math.exp(eps * p.d);
    if (!Number.isFinite(r)) {
      const note: CapacityNote = {
        kind: 'ratio-overflow',
        a: domain.label(p.i),
        b: domain.label(p.k),
        distance: p.d,
        epsilon: eps,
      };
      throw new MechError('too-large', capacityNoteWords(note), note);
    }
    lo[c] = p.i;
    hi[c] = p.k;
    ratio[c] = r;
    // x_i <= r x_k  <=>  x_k - x_i / r >= 0 (scaled so max |entry| = 1).
    rows[c * n + p.k] = 1;
    rows[c * n + p.i] = -1 / r;
  });
  const mode = options.arithmetic ?? 'auto';
  let intRows: bigint[][] | null = null;
  let exactBase: 'rational' | 'rounded' | null = null;
  if (mode !== 'float') {
    let fracs: [bigint, bigint][] | null = null;
    if (mode === 'auto') {
      fracs = [];
      for (let c = n; c < m && fracs; c++) {
        const f = recogniseRational(ratio[c]!);
        if (f) fracs.push(f);
        else fracs = null;
      }
      if (fracs) exactBase = 'rational';
    }
    if (!fracs) {
      fracs = powerRatios(
        pairs.map((p) => p.d),
        eps,
      );
      if (fracs) exactBase = 'rounded';
      else if (mode === 'exact-rounded')
        invalid('exact-rounded arithmetic needs distances that are integer multiples of a common unit');
    }
    if (fracs) {
      intRows = [];
      for (let c = 0; c < n; c++) {
        const r = new Array<bigint>(n).fill(0n);
        r[c] = 1n;
        intRows.push(r);
      }
      for (let c = n; c < m; c++) {
        const [p, q] = fracs[c - n]!;
        const r = new Array<bigint>(n).fill(0n);
        r[hi[c]!] = p;
        r[lo[c]!] = -q;
        intRows.push(r);
      }
    }
  }
  const describe = (c: number): string =>
    c < n
      ? `delta_${domain.label(c)} >= 0`
      : `delta_${domain.label(lo[c]!)} <= e^(eps*${domain.distance(lo[c]!, hi[c]!)}) delta_${domain.label(hi[c]!)}`;
  return { n, m, eps, lo, hi, ratio, rows, arithmetic: intRows ? 'exact' : 'float', exactBase, intRows, describe };
}

/** Common unit of positive distances (all d / unit within 1e-9 of integers <= 10^4), or null. */
function commonUnit(ds: readonly number[]): number | null {
  if (ds.length === 0) return null;
  const min = Math.min(...ds);
  for (let k = 1; k <= 64; k++) {
    const unit = min / k;
    if (
      ds.every((d) => {
        const q = d / unit;
        return q <= 1e4 && Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, q);
      })
    )
      return unit;
  }
  return null;
}

/**
 * Ratios e^(eps d) as exact powers t^k (d = k * unit) of one base
 * t = e^(eps unit), taken as a recognised rational or at its exact binary
 * value. Powers of one base keep every identity
 * e^(eps d(i,k)) = e^(eps d(i,j)) e^(eps d(j,k)) of the metric, so the rounded
 * polytope keeps the true one's degeneracies (rounding each ratio on its own
 * would split degenerate vertices into clusters); for a transcendental t
 * (generic eps) a dyadic approximation with 53-bit numerator cannot satisfy a
 * further small-integer polynomial identity, so the combinatorics (vertex and
 * kernel counts) are those of the true polytope. Caveat: a special eps whose
 * base is irrational but algebraic (e.g. e^(eps unit) = sqrt 2) may have extra
 * degeneracies that this representation does not see. Null when the
 * distances have no common unit.
 */
function powerRatios(ds: readonly number[], eps: number): [bigint, bigint][] | null {
  if (ds.length === 0) return [];
  const unit = commonUnit(ds);
  if (unit === null) return null;
  const t = Math.exp(eps * unit);
  const [tp, tq] = recogniseRational(t) ?? doubleToRational(t);
  return ds.map((d) => {
    const k = BigInt(Math.round(d / unit));
    return [tp ** k, tq ** k];
  });
}
