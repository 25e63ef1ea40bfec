import type { Domain } from '../../../../src-worker/metric/domain';
import { privatePosteriorConstraints } from '../../../../src-worker/explorer/private-posterior-constraints';

/**
 * Reference vertex enumeration for small n (SPEC §6), independent of the
 * double description code: every choice of n - 1 constraints taken as
 * equalities, plus sum = 1; solve the n x n system (partial pivoting), keep
 * the feasible solutions, dedupe within tol. Cost C(m, n-1) solves, m = n^2:
 * meant for tests on n <= 5.
 */
export function bruteForceVertices(domain: Domain, eps: number, tol = 1e-9): number[][] {
  const sys = privatePosteriorConstraints(domain, eps, { arithmetic: 'float' });
  const { n, m, rows } = sys;
  const out: number[][] = [];
  const pick: number[] = [];
  const a = new Float64Array(n * (n + 1));
  const trySystem = (): void => {
    // Rows: the picked constraints (= 0) and sum x = 1.
    for (let r = 0; r < n - 1; r++) {
      for (let j = 0; j < n; j++) a[r * (n + 1) + j] = rows[pick[r]! * n + j]!;
      a[r * (n + 1) + n] = 0;
    }
    for (let j = 0; j < n; j++) a[(n - 1) * (n + 1) + j] = 1;
    a[(n - 1) * (n + 1) + n] = 1;
    for (let col = 0; col < n; col++) {
      let p = col;
      for (let i = col + 1; i < n; i++) if (Math.abs(a[i * (n + 1) + col]!) > Math.abs(a[p * (n + 1) + col]!)) p = i;
      if (Math.abs(a[p * (n + 1) + col]!) < 1e-12) return; // singular: not a vertex system
      if (p !== col)
        for (let j = 0; j <= n; j++) {
          const t = a[col * (n + 1) + j]!;
          a[col * (n + 1) + j] = a[p * (n + 1) + j]!;
          a[p * (n + 1) + j] = t;
        }
      for (let i = 0; i < n; i++) {
        if (i === col) continue;
        const f = a[i * (n + 1) + col]! / a[col * (n + 1) + col]!;
        if (f !== 0) for (let j = col; j <= n; j++) a[i * (n + 1) + j]! -= f * a[col * (n + 1) + j]!;
      }
    }
    const x = new Array<number>(n);
    for (let i = 0; i < n; i++) x[i] = a[i * (n + 1) + n]! / a[i * (n + 1) + i]!;
    for (let c = 0; c < m; c++) {
      let v = 0;
      for (let j = 0; j < n; j++) v += rows[c * n + j]! * x[j]!;
      if (v < -tol) return;
    }
    if (out.some((y) => y.every((v, j) => Math.abs(v - x[j]!) <= tol))) return;
    out.push(x);
  };
  const rec = (start: number): void => {
    if (pick.length === n - 1) {
      trySystem();
      return;
    }
    for (let c = start; c < m; c++) {
      pick.push(c);
      rec(c + 1);
      pick.pop();
    }
  };
  if (n === 1) return [[1]];
  rec(0);
  out.sort((p, q) => {
    for (let j = 0; j < n; j++) if (p[j] !== q[j]) return p[j]! - q[j]!;
    return 0;
  });
  return out;
}
