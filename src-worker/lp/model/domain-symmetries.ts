import type { Domain } from '../../metric/domain';

/**
 * Isometries of a domain that the LP layer can exploit, as permutations of
 * the points that generate a symmetry group (identity first): the reflection
 * of a line; the symmetries of a grid's rectangle (all 4 for R x C, all 8 of
 * the dihedral group D4 for a square); a rotation and a reflection of a ring
 * (generating its 2N symmetries); a transposition and an n-cycle of a clique
 * (generating all n! permutations). Each candidate is verified to preserve d
 * on every pair before it is returned; other domains get the identity only.
 */
export function domainSymmetries(domain: Domain): Int32Array[] {
  const n = domain.n;
  const id = new Int32Array(n);
  for (let i = 0; i < n; i++) id[i] = i;
  const cands: Int32Array[] = [];
  const g = domain.structure.grid;
  const lat = domain.structure.lattice;
  if (g && g.rows * g.cols === n) {
    const R = g.rows;
    const C = g.cols;
    const map = (f: (r: number, c: number) => [number, number]): Int32Array => {
      const p = new Int32Array(n);
      for (let r = 0; r < R; r++)
        for (let c = 0; c < C; c++) {
          const [r2, c2] = f(r, c);
          p[r * C + c] = r2 * C + c2;
        }
      return p;
    };
    cands.push(
      map((r, c) => [R - 1 - r, c]),
      map((r, c) => [r, C - 1 - c]),
      map((r, c) => [R - 1 - r, C - 1 - c]),
    );
    if (R === C)
      cands.push(
        map((r, c) => [c, r]),
        map((r, c) => [C - 1 - c, r]),
        map((r, c) => [c, R - 1 - r]),
        map((r, c) => [R - 1 - c, C - 1 - r]),
      );
  } else if (domain.kind === 'line' || (lat && lat.shape.length === 1 && !lat.periodic && lat.shape[0] === n)) {
    cands.push(reflection(n));
  } else if (
    n >= 3 &&
    (domain.kind === 'ring' || (lat && lat.shape.length === 1 && lat.periodic && lat.shape[0] === n))
  ) {
    const rot = new Int32Array(n);
    for (let i = 0; i < n; i++) rot[i] = (i + 1) % n;
    cands.push(rot, reflection(n));
  } else if (domain.kind === 'clique' && n >= 2) {
    const swap = new Int32Array(n);
    for (let i = 0; i < n; i++) swap[i] = i;
    swap[0] = 1;
    swap[1] = 0;
    const cyc = new Int32Array(n);
    for (let i = 0; i < n; i++) cyc[i] = (i + 1) % n;
    cands.push(swap, cyc);
  }
  const out: Int32Array[] = [id];
  for (const p of cands) if (isIsometry(domain, p)) out.push(p);
  return out;
}

function reflection(n: number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = n - 1 - i;
  return p;
}

function isIsometry(domain: Domain, p: Int32Array): boolean {
  const n = domain.n;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const a = domain.distance(i, j);
      const b = domain.distance(p[i]!, p[j]!);
      if (a !== b && Math.abs(a - b) > 1e-12 * Math.max(1, Math.abs(a))) return false;
    }
  return true;
}
