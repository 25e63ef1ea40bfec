import { invalid } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { bestByScan, type BestGuess, type LossFunction } from './guess-function';

/** Dense distance tables are cached only up to this many entries (32 MiB). */
const DENSE_CACHE_ENTRIES = 1 << 22;

/**
 * Distance loss l(w, x) = d(w, x) (power 1, "dist") or d(w, x)^2 (power 2,
 * "dist2") on a domain, guesses = the domain's points (SPEC §3).
 *
 * The best guess against a posterior column never needs an n x n matrix when
 * the domain's structure allows a closed form:
 *  - 1-D non-periodic lattice with d = step |i - j| (line, count, ...): the
 *    weighted median (dist) or the lattice point nearest the weighted mean
 *    (dist2), O(n) per column;
 *  - ring (periodic 1-D lattice) with dist: all n values f(w) by a sliding
 *    window over prefix sums, O(n) per column;
 *  - Manhattan grid with dist: separable, the weighted median of each axis
 *    marginal; Euclidean grid with dist2: separable, nearest mean per axis.
 * Otherwise O(n^2) per column through domain.distance, with the distance
 * table cached densely only when it is small (<= 4M entries).
 */
export function distanceLoss(domain: Domain, power: 1 | 2 = 1): LossFunction {
  if (power !== 1 && power !== 2) invalid(`distance loss power must be 1 or 2, got ${String(power)}`);
  const n = domain.n;
  const dist = (w: number, x: number): number => {
    const d = domain.distance(w, x);
    return power === 1 ? d : d * d;
  };
  const fast = structuredBest(domain, power);
  let table: Float64Array | null = null;
  const generic = (q: Float64Array): BestGuess => {
    if (table === null && n * n <= DENSE_CACHE_ENTRIES) {
      table = new Float64Array(n * n);
      for (let w = 0; w < n; w++) for (let x = 0; x < n; x++) table[w * n + x] = dist(w, x);
    }
    if (table !== null) {
      const t = table;
      let bestW = 0;
      let bestV = Infinity;
      for (let w = 0; w < n; w++) {
        let s = 0;
        const o = w * n;
        for (let x = 0; x < n; x++) {
          const qx = q[x]!;
          if (qx !== 0) s += qx * t[o + x]!;
        }
        if (s < bestV) {
          bestV = s;
          bestW = w;
        }
      }
      return { w: bestW, value: bestV };
    }
    return bestByScan({ sense: 'loss', secrets: n, guesses: n, value: dist }, q);
  };
  return {
    sense: 'loss',
    name: power === 1 ? 'dist' : 'dist2',
    secrets: n,
    guesses: n,
    guessLabel: (w) => domain.label(w),
    value: dist,
    best: fast ?? generic,
  };
}

/** Weighted median index (leftmost minimiser of sum q |w - x|) of a 1-D weight vector. */
function weightedMedian(q: Float64Array, len: number, total: number): number {
  let cum = 0;
  for (let w = 0; w < len; w++) {
    cum += q[w]!;
    if (2 * cum >= total) return w;
  }
  return len - 1;
}

/** Lattice point in 0..len-1 minimising sum q (w - x)^2 (leftmost on ties). */
function nearestMean(q: Float64Array, len: number): number {
  let s = 0;
  let m1 = 0;
  for (let x = 0; x < len; x++) {
    s += q[x]!;
    m1 += q[x]! * x;
  }
  if (s <= 0) return 0;
  const mean = m1 / s;
  const lo = Math.max(0, Math.min(len - 1, Math.floor(mean)));
  const hi = Math.min(len - 1, lo + 1);
  // sum q (w - x)^2 = s w^2 - 2 w m1 + const
  const f = (w: number) => s * w * w - 2 * w * m1;
  return f(hi) < f(lo) ? hi : lo;
}

function sumAbs(q: Float64Array, len: number, w: number, power: 1 | 2): number {
  let v = 0;
  for (let x = 0; x < len; x++) {
    const qx = q[x]!;
    if (qx === 0) continue;
    const a = Math.abs(w - x);
    v += qx * (power === 1 ? a : a * a);
  }
  return v;
}

function structuredBest(domain: Domain, power: 1 | 2): ((q: Float64Array) => BestGuess) | null {
  const n = domain.n;
  const lat = domain.structure.lattice;
  if (lat && lat.shape.length === 1 && !lat.periodic && lat.shape[0] === n && n >= 1) {
    const step = n > 1 ? lat.offsetDistance([1]) : 1;
    let linear = Number.isFinite(step) && step > 0;
    for (let k = 0; linear && k < n; k++) {
      const dk = lat.offsetDistance([k]);
      if (
        Math.abs(dk - k * step) > 1e-12 * Math.max(1, k * step) ||
        Math.abs(lat.offsetDistance([-k]) - dk) > 1e-12 * Math.max(1, dk)
      )
        linear = false;
    }
    if (linear) {
      const scale = power === 1 ? step : step * step;
      return (q) => {
        let total = 0;
        for (let x = 0; x < n; x++) total += q[x]!;
        const w = power === 1 ? weightedMedian(q, n, total) : nearestMean(q, n);
        return { w, value: scale * sumAbs(q, n, w, power) };
      };
    }
  }
  if (lat && lat.shape.length === 1 && lat.periodic && lat.shape[0] === n && n >= 3 && power === 1) {
    const h = Math.floor(n / 2);
    const step = lat.offsetDistance([1]);
    let ring = Number.isFinite(step) && step > 0;
    for (let k = 0; ring && k < n; k++) {
      const dk = lat.offsetDistance([k]);
      const want = step * Math.min(k, n - k);
      if (Math.abs(dk - want) > 1e-12 * Math.max(1, want)) ring = false;
    }
    if (ring) {
      const prefix = new Float64Array(2 * n + 1);
      const ringDist = (w: number, x: number) => {
        const a = Math.abs(w - x);
        return Math.min(a, n - a);
      };
      return (q) => {
        // f(w) = sum_x q_x d(w, x); f(w+1) - f(w) = S - 2 sum_{t=1..h} q_{w+t} (- q_{w+h+1} when n is odd)
        for (let i = 0; i < 2 * n; i++) prefix[i + 1] = prefix[i]! + q[i % n]!;
        const S = prefix[n]!;
        let f = 0;
        for (let x = 0; x < n; x++) f += q[x]! * Math.min(x, n - x);
        let bestW = 0;
        let bestF = f;
        for (let w = 0; w + 1 < n; w++) {
          const near = prefix[w + h + 1]! - prefix[w + 1]!;
          f += S - 2 * near - (n % 2 === 1 ? q[(w + h + 1) % n]! : 0);
          if (f < bestF - 1e-12 * S) {
            bestF = f;
            bestW = w + 1;
          }
        }
        let exact = 0;
        for (let x = 0; x < n; x++) exact += q[x]! * ringDist(bestW, x);
        return { w: bestW, value: step * exact };
      };
    }
  }
  const g = domain.structure.grid;
  if (
    g &&
    g.rows * g.cols === n &&
    ((g.metric === 'manhattan' && power === 1) || (g.metric === 'euclidean' && power === 2))
  ) {
    const { rows, cols, step } = g;
    const rowMarg = new Float64Array(rows);
    const colMarg = new Float64Array(cols);
    const scale = power === 1 ? step : step * step;
    return (q) => {
      rowMarg.fill(0);
      colMarg.fill(0);
      let total = 0;
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) {
          const v = q[r * cols + c]!;
          rowMarg[r]! += v;
          colMarg[c]! += v;
          total += v;
        }
      const wr = power === 1 ? weightedMedian(rowMarg, rows, total) : nearestMean(rowMarg, rows);
      const wc = power === 1 ? weightedMedian(colMarg, cols, total) : nearestMean(colMarg, cols);
      return {
        w: wr * cols + wc,
        value: scale * (sumAbs(rowMarg, rows, wr, power) + sumAbs(colMarg, cols, wc, power)),
      };
    };
  }
  return null;
}
