import { Matrix, assertDenseFits } from '../linalg/matrix';
import type { RowSource } from '../mechanism/channel';
import { MERGE_TOL } from '../../src-shared/numeric/tolerance';
import { priorForChannel } from './prior-for-channel';
import { forEachWeightedColumn } from './weighted-columns';

export interface HyperDistribution {
  /** Outer distribution: probability of each inner (sums to 1). */
  outer: Float64Array;
  /** Inner posteriors, one row per inner (k x n). */
  inners: Matrix;
  /** The channel outputs y merged into each inner. */
  members: Int32Array[];
  /** For each output y its inner index, -1 when p(y) = 0 (never observed). */
  innerOf: Int32Array;
}

/**
 * Hyper-distribution [pi > C] (SPEC §3): outer p(y) = sum_x pi_x C[x][y],
 * inner posterior pi_x C[x][y] / p(y); outputs whose posteriors agree within
 * MERGE_TOL (max-abs) are merged into one inner, whose outer probability is
 * the sum and whose posterior is the pooled joint column divided by it.
 * Outputs with p(y) = 0 are dropped. Streams over rows (column blocks); the
 * result has one row per distinct posterior and is refused when too large.
 */
export function hyperDistribution(pi: ArrayLike<number>, channel: RowSource, tol = MERGE_TOL): HyperDistribution {
  const p = priorForChannel(pi, channel);
  const n = channel.rows;
  const m = channel.cols;
  // Fingerprint weights: |f(a) - f(b)| <= max|a - b| * sum(h), a cheap reject test.
  const h = new Float64Array(n);
  let hs = 0;
  for (let x = 0; x < n; x++) {
    h[x] = ((x * 2654435761) % 4294967296) / 4294967296;
    hs += h[x]!;
  }
  const reps: Float64Array[] = [];
  const pooled: Float64Array[] = [];
  const prints: number[] = [];
  const outer: number[] = [];
  const members: number[][] = [];
  const innerOf = new Int32Array(m).fill(-1);
  const post = new Float64Array(n);
  forEachWeightedColumn(p, channel, (y, q) => {
    let py = 0;
    for (let x = 0; x < n; x++) py += q[x]!;
    if (!(py > 0)) return;
    let fp = 0;
    for (let x = 0; x < n; x++) {
      post[x] = q[x]! / py;
      fp += h[x]! * post[x]!;
    }
    let found = -1;
    for (let k = 0; k < reps.length && found < 0; k++) {
      if (Math.abs(prints[k]! - fp) > tol * hs) continue;
      const r = reps[k]!;
      let same = true;
      for (let x = 0; x < n && same; x++) if (Math.abs(r[x]! - post[x]!) > tol) same = false;
      if (same) found = k;
    }
    if (found < 0) {
      assertDenseFits(reps.length + 1, n, 'hyper-distribution inners');
      found = reps.length;
      reps.push(post.slice());
      pooled.push(new Float64Array(n));
      prints.push(fp);
      outer.push(0);
      members.push([]);
    }
    const acc = pooled[found]!;
    for (let x = 0; x < n; x++) acc[x]! += q[x]!;
    outer[found]! += py;
    members[found]!.push(y);
    innerOf[y] = found;
  });
  const k = reps.length;
  const inners = new Matrix(k, n);
  let total = 0;
  for (let i = 0; i < k; i++) total += outer[i]!;
  for (let i = 0; i < k; i++) {
    const acc = pooled[i]!;
    const o = outer[i]!;
    for (let x = 0; x < n; x++) inners.data[i * n + x] = acc[x]! / o;
  }
  return {
    outer: Float64Array.from(outer, (v) => v / total),
    inners,
    members: members.map((l) => Int32Array.from(l)),
    innerOf,
  };
}
