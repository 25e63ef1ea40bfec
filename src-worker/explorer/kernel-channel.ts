import { MechError } from '../../src-shared/errors';
import { Matrix } from '../linalg/matrix';
import { DenseChannel, type Mechanism } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import type { KernelMechanism } from './kernel-mechanisms';
import type { PosteriorVertices } from './posterior-vertices';

/**
 * The channel of a kernel mechanism (SPEC §6): from vertices v_1..v_s with
 * positive weights w (u = sum_k w_k v_k, u uniform), C[x][k] = w_k v_k[x] / u_x
 * = n w_k v_k[x]. Rows sum to sum_k w_k v_k[x] / u_x = 1; every column is
 * proportional to a private posterior, so C is eps*d-private; its posterior
 * for output k under the uniform prior is v_k.
 */
export function kernelChannel(pv: PosteriorVertices, kernel: KernelMechanism, domain?: Domain): DenseChannel {
  const n = pv.n;
  const s = kernel.vertices.length;
  if (s === 0 || s > n || kernel.weights.length !== s) {
    throw new MechError(
      'invalid-input',
      `kernel mechanism must list between 1 and ${n} vertices with one weight each, got ${s} vertices and ${kernel.weights.length} weights`,
    );
  }
  const m = new Matrix(n, s);
  for (let k = 0; k < s; k++) {
    const idx = kernel.vertices[k]!;
    if (!Number.isInteger(idx) || idx < 0 || idx >= pv.count)
      throw new MechError('invalid-input', `kernel mechanism: vertex index ${idx} is not in 0..${pv.count - 1}`);
    const w = kernel.weights[k]!;
    if (!(w > 0)) throw new MechError('invalid-input', `kernel mechanism: weight ${k} is ${w}, not positive`);
    for (let x = 0; x < n; x++) m.data[x * s + k] = n * w * pv.vertices[idx * n + x]!;
  }
  const rowLabels = domain ? Array.from({ length: n }, (_, i) => domain.label(i)) : undefined;
  const colLabels = Array.from(kernel.vertices, (idx) => `v${idx}`);
  return new DenseChannel(m, rowLabels, colLabels);
}

/** The kernel mechanism as a Mechanism record (kind 'custom'; facts.kind 'kernel'). */
export function kernelMechanism(pv: PosteriorVertices, kernel: KernelMechanism, domain?: Domain): Mechanism {
  return {
    kind: 'custom',
    channel: kernelChannel(pv, kernel, domain),
    guaranteedEpsilon: pv.eps,
    guarantee: 'eps d-private: every column is proportional to a private posterior (kernel mechanism, SPEC §6)',
    facts: { kind: 'kernel', vertices: Array.from(kernel.vertices) },
  };
}
