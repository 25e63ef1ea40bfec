import type { Domain } from '../metric/domain';
import { FunctionRowSource } from './function-row-source';

/**
 * C[x][y] = exp(-rate * d(x,y)) / sum_y' exp(-rate * d(x,y')) (SPEC §2, the
 * exponential mechanism and its Laplace variant). Row x costs O(n) distance
 * calls; no n x n array. The row's smallest distance is subtracted before
 * exponentiating (it is 0, d(x,x)), so nothing overflows; d = Infinity gives 0.
 */
export function rowNormalisedKernel(domain: Domain, rate: number): FunctionRowSource {
  const n = domain.n;
  const fill = (x: number, out: Float64Array): void => {
    const inv = kernelRow(domain, rate, x, out);
    for (let y = 0; y < n; y++) out[y] = out[y]! * inv;
  };
  return new FunctionRowSource(n, n, fill, (i) => domain.label(i));
}

/**
 * Row x of the kernel exp(-rate * d(x,y)) before normalisation, into `out`, and the normaliser 1 / (its sum): the
 * one computation the rows and the column access (remap/columns.ts) share, so that both give the same doubles.
 */
export function kernelRow(domain: Domain, rate: number, x: number, out: Float64Array): number {
  const n = domain.n;
  let s = 0;
  for (let y = 0; y < n; y++) {
    const v = Math.exp(-rate * domain.distance(x, y));
    out[y] = v;
    s += v;
  }
  return 1 / s;
}
