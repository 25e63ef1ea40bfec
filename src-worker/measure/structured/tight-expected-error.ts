import { MechError } from '../../../src-shared/errors';
import { kroneckerMatVec } from '../../linalg/kronecker-solve';
import { Matrix } from '../../linalg/matrix';
import { latticeKernel } from '../../phi/lattice-phi';
import { ToeplitzOperator } from '../../linalg/toeplitz-operator';
import type { ImplicitTightChannel } from '../../mechanism/implicit/implicit-tight-channel';
import { priorForChannel } from '../prior-for-channel';

/**
 * Expected distance error sum_x pi_x sum_y C[x][y] d(x,y) (SPEC §3) of the
 * tight-constraints mechanism C[x][y] = Phi[x][y] z[y], as one structured
 * product instead of n^2 terms:
 *   E = sum_y z[y] (K^T pi)[y],  K[x][y] = exp(-eps d(x,y)) d(x,y).
 *  - lattice: K is (block) Toeplitz with kernel exp(-eps d(delta)) d(delta):
 *    one FFT convolution, O(n log n);
 *  - product V^u with d = sum_k d_k: K = sum_k (F (x) .. (x) F∘D_k (x) .. (x) F)
 *    with F = exp(-eps d_factor), F∘D = F times d_factor entrywise: u Kronecker
 *    products, O(n u v);
 *  - dense or unstructured ('metric'): the double sum streamed over rows,
 *    O(n^2) time, O(n) memory.
 */
export function tightExpectedError(
  pi: ArrayLike<number>,
  channel: ImplicitTightChannel,
): { value: number; method: 'fft' | 'kronecker' | 'dense' } {
  const p = priorForChannel(pi, channel);
  const { op, z, domain } = channel;
  const eps = op.eps;
  const n = domain.n;
  let w: Float64Array;
  let method: 'fft' | 'kronecker' | 'dense';
  if (op.method === 'lattice') {
    const { shape, offset } = latticeKernel(domain, eps);
    const kd = new ToeplitzOperator(shape, (a, b) => {
      const d = offset(a, b);
      return d === Infinity ? 0 : d * Math.exp(-eps * d);
    });
    w = kd.apply(p, new Float64Array(n)); // K symmetric: K^T pi = K pi
    method = 'fft';
  } else if (op.method === 'kronecker') {
    const factors = op.factors!;
    const prod = domain.structure.product!;
    const F = factors[0]!;
    const v = F.rows;
    const FD = new Matrix(v, v);
    for (let i = 0; i < v; i++)
      for (let j = 0; j < v; j++) {
        const d = prod.factor.distance(i, j);
        FD.set(i, j, F.get(i, j) === 0 ? 0 : F.get(i, j) * d);
      }
    w = new Float64Array(n);
    const tmp = new Float64Array(n);
    for (let k = 0; k < factors.length; k++) {
      const fs = factors.map((m, j) => (j === k ? FD : m));
      kroneckerMatVec(fs, p, tmp);
      for (let i = 0; i < n; i++) w[i]! += tmp[i]!;
    }
    method = 'kronecker';
  } else if (op.method === 'dense' || op.method === 'metric') {
    w = new Float64Array(n);
    const row = new Float64Array(n);
    for (let x = 0; x < n; x++) {
      const px = p[x]!;
      if (px === 0) continue;
      op.row(x, row);
      for (let y = 0; y < n; y++) if (row[y] !== 0) w[y]! += px * row[y]! * domain.distance(x, y);
    }
    method = 'dense';
  } else throw new MechError('internal', `unknown Phi form ${String(op.method)}`);
  let value = 0;
  for (let y = 0; y < n; y++) value += z[y]! * w[y]!;
  return { value, method };
}
