import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { assertChannelShape } from './prior-for-channel';
import { numericValues } from './numeric-values';

/** |reported - true| <= a is tested as <= a + A_TOL * max(1, a) (float noise on non-integer values). */
const A_TOL = 1e-12;

interface UsefulnessCurve {
  /** The accuracies a, increasing. */
  a: Float64Array;
  /** b(a) = max over true answers x of P(|reported - x| > a): the smallest b for which C is (a, b)-useful. */
  b: Float64Array;
  /** The true answer (row) attaining the max, per a. */
  worstRow: Int32Array;
}

function checkA(a: number): void {
  if (typeof a !== 'number' || !Number.isFinite(a) || a < 0)
    throw new MechError('invalid-input', `accuracy a must be a finite number >= 0, got ${String(a)}`);
}

/**
 * (a, b)-usefulness for numeric answers (SPEC §3): C is (a, b)-useful iff
 * P(|reported - true| <= a) >= 1 - b for every true answer. For each a in
 * `aValues` this returns the smallest such b. Each row is sorted by deviation
 * once (O(m log m)), then every a is a binary search, so a whole curve costs
 * about one pass. Default a grid: 0, 1, ..., max deviation when all values
 * are integers, else 101 evenly spaced points on [0, max deviation].
 */
export function usefulnessCurve(channel: RowSource, domain: Domain, aValues?: ArrayLike<number>): UsefulnessCurve {
  assertChannelShape(channel);
  const { rowValue, colValue } = numericValues(channel, domain);
  const n = channel.rows;
  const m = channel.cols;
  let a: Float64Array;
  if (aValues) {
    a = Float64Array.from(aValues);
    a.forEach(checkA);
    a.sort();
  } else {
    let lo = Infinity;
    let hi = -Infinity;
    let integral = true;
    for (const v of [rowValue, colValue])
      for (let i = 0; i < v.length; i++) {
        lo = Math.min(lo, v[i]!);
        hi = Math.max(hi, v[i]!);
        if (!Number.isInteger(v[i]!)) integral = false;
      }
    const maxDev = hi - lo;
    if (integral && maxDev <= 1e6) a = Float64Array.from({ length: maxDev + 1 }, (_, k) => k);
    else a = Float64Array.from({ length: 101 }, (_, k) => (k * maxDev) / 100);
  }
  const A = a.length;
  const b = new Float64Array(A).fill(-Infinity);
  const worstRow = new Int32Array(A);
  const buf = new Float64Array(m);
  const dev = new Float64Array(m);
  const order = new Int32Array(m);
  const cum = new Float64Array(m);
  const idx = Array.from({ length: m }, (_, j) => j);
  for (let x = 0; x < n; x++) {
    channel.row(x, buf);
    const tx = rowValue[x]!;
    for (let j = 0; j < m; j++) dev[j] = Math.abs(colValue[j]! - tx);
    idx.sort((i, j) => dev[i]! - dev[j]!);
    let s = 0;
    for (let k = 0; k < m; k++) {
      order[k] = idx[k]!;
      s += buf[idx[k]!]!;
      cum[k] = s;
    }
    for (let t = 0; t < A; t++) {
      const lim = a[t]! + A_TOL * Math.max(1, a[t]!);
      // last k with dev[order[k]] <= lim
      let lo = 0;
      let hi = m; // answer in [0, m]: number of entries within lim
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (dev[order[mid]!]! <= lim) lo = mid + 1;
        else hi = mid;
      }
      const within = lo === 0 ? 0 : cum[lo - 1]!;
      const miss = Math.max(0, 1 - within);
      if (miss > b[t]!) {
        b[t] = miss;
        worstRow[t] = x;
      }
    }
  }
  return { a, b, worstRow };
}

/** The smallest b for which C is (a, b)-useful (SPEC §3), with the worst true answer. */
export function smallestUsefulB(channel: RowSource, domain: Domain, a: number): { b: number; worstRow: number } {
  checkA(a);
  const c = usefulnessCurve(channel, domain, [a]);
  return { b: c.b[0]!, worstRow: c.worstRow[0]! };
}

/** Is C (a, b)-useful: P(|reported - true| <= a) >= 1 - b for every true answer (within 1e-9)? */
export function isUseful(channel: RowSource, domain: Domain, a: number, b: number): boolean {
  if (typeof b !== 'number' || !Number.isFinite(b) || b < 0 || b > 1)
    throw new MechError('invalid-input', `b must be a number in [0, 1], got ${String(b)}`);
  return smallestUsefulB(channel, domain, a).b <= b + 1e-9;
}
