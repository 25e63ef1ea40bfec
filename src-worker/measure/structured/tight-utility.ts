import type { ImplicitTightChannel } from '../../mechanism/implicit/implicit-tight-channel';
import type { RowSource } from '../../mechanism/channel';
import { priorForChannel } from '../prior-for-channel';
import { minPlusTransform, type MinPlusMethod, type MinPlusOptions } from './min-plus-transform';

/**
 * Binary-gain utility with an optimal remap (= posterior Bayes
 * vulnerability V[pi > C] = sum_y max_x pi_x C[x][y], SPEC §3) of the
 * tight-constraints mechanism C[x][y] = Phi[x][y] z[y], without C:
 *   V = sum_y z[y] max_x pi_x exp(-eps d(x,y)) = sum_y z[y] exp(-D(y)),
 *   D(y) = min_x (-ln pi_x + eps d(x,y))   (a weighted distance transform).
 * Uniform prior: Phi[x][y] <= 1 = Phi[y][y], so V = sum(z) / n in O(n).
 * Other priors: minPlusTransform (Dijkstra on graph metrics, a quadtree of
 * block minima on grids, brute force otherwise). The remap w(y) = argmax_x is returned.
 */
interface StructuredUtility {
  value: number;
  remap: Int32Array;
  method: MinPlusMethod | 'streamed';
  work: number;
}

export function tightUtility(
  pi: ArrayLike<number>,
  channel: ImplicitTightChannel,
  opts: MinPlusOptions = {},
): StructuredUtility {
  const p = priorForChannel(pi, channel);
  const n = channel.rows;
  const f = new Float64Array(n);
  for (let i = 0; i < n; i++) f[i] = p[i]! > 0 ? -Math.log(p[i]!) : Infinity;
  const t = minPlusTransform(channel.domain, channel.eps, f, opts);
  const z = channel.z;
  let value = 0;
  if (t.method === 'uniform') {
    // sum z / n, summed in one pass (exactly the closed form)
    let s = 0;
    for (let y = 0; y < n; y++) s += z[y]!;
    value = s * p[0]!;
  } else {
    for (let y = 0; y < n; y++) value += z[y]! * Math.exp(-t.value[y]!);
  }
  return { value, remap: t.source, method: t.method, work: t.work };
}

/**
 * The exact streamed fallback for any row source (planar Laplace, combined
 * mechanisms, ...): one pass over the rows, O(cols) memory, O(rows * cols)
 * time, progress reported every 64 rows.
 */
export function streamedUtility(
  pi: ArrayLike<number>,
  channel: RowSource,
  onProgress?: (fraction: number) => void,
): StructuredUtility {
  const p = priorForChannel(pi, channel);
  const m = channel.cols;
  const buf = new Float64Array(m);
  const colMax = new Float64Array(m).fill(-1);
  const remap = new Int32Array(m);
  for (let x = 0; x < channel.rows; x++) {
    if (onProgress && (x & 63) === 0) onProgress(x / channel.rows);
    const px = p[x]!;
    if (px === 0) continue;
    channel.row(x, buf);
    for (let y = 0; y < m; y++) {
      const v = px * buf[y]!;
      if (v > colMax[y]!) {
        colMax[y] = v;
        remap[y] = x;
      }
    }
  }
  let value = 0;
  for (let y = 0; y < m; y++) if (colMax[y]! > 0) value += colMax[y]!;
  return { value, remap, method: 'streamed', work: channel.rows * m };
}
