import { assertPositiveInt } from '../../src-shared/errors';
import type { Domain } from './domain';

/** Ring 0..N-1 with d = min(|i-j|, N-|i-j|), SPEC §1. */
export function ringDomain(N: number): Domain {
  assertPositiveInt(N, 'ring size');
  const edgeCount = N <= 1 ? 0 : N === 2 ? 1 : N;
  const from = new Int32Array(edgeCount);
  const to = new Int32Array(edgeCount);
  for (let i = 0; i < edgeCount; i++) {
    const j = (i + 1) % N;
    from[i] = Math.min(i, j);
    to[i] = Math.max(i, j);
  }
  const m = Math.floor(N / 2);
  const even = N % 2 === 0 && N > 1;
  // Ball sizes: 1 at radius 0, 2 at 1..m (1 at m when N is even).
  const radius = new Float64Array(m + 1);
  const count = new Float64Array(m + 1);
  for (let r = 0; r <= m; r++) {
    radius[r] = r;
    count[r] = r === 0 ? 1 : even && r === m ? 1 : 2;
  }
  const dist = (i: number, j: number) => {
    const a = Math.abs(i - j);
    return Math.min(a, N - a);
  };
  return {
    kind: 'ring',
    spec: `ring:${N}`,
    description: `ring of ${N} points, d = min(|i - j|, ${N} - |i - j|)`,
    n: N,
    label: (i) => String(i),
    value: (i) => i,
    distance: dist,
    structure: {
      edges: { from, to, weight: new Float64Array(edgeCount).fill(1) },
      lattice: { shape: [N], periodic: true, offsetDistance: (d) => dist(0, ((d[0]! % N) + N) % N) },
      ballSizes: { radius, count },
      singleOrbit: { c: N <= 2 ? N - 1 : 2, diameter: m, evenRing: even && N > 2 },
    },
  };
}
