import { assertPositiveInt } from '../../src-shared/errors';
import type { Domain } from './domain';

/** Line 0..N-1 with d = |i-j| (counting-query answers), SPEC §1. */
export function lineDomain(N: number, kind: 'line' | 'query' = 'line', spec = `line:${N}`): Domain {
  assertPositiveInt(N, 'line size');
  const from = new Int32Array(Math.max(0, N - 1));
  const to = new Int32Array(Math.max(0, N - 1));
  for (let i = 0; i + 1 < N; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  return {
    kind,
    spec,
    description: `line of ${N} points 0..${N - 1}, d = |i - j|`,
    n: N,
    label: (i) => String(i),
    value: (i) => i,
    distance: (i, j) => Math.abs(i - j),
    structure: {
      edges: { from, to, weight: new Float64Array(N - 1 > 0 ? N - 1 : 0).fill(1) },
      lattice: { shape: [N], periodic: false, offsetDistance: (d) => Math.abs(d[0]!) },
    },
  };
}
