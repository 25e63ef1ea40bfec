/**
 * Symmetry reduction of the private-channel LP. If a group of isometries g of
 * the domain leaves the objective invariant (cost[g x][g w] = cost[x][w],
 * outputs = secrets), the LP is invariant under C -> C o g, so averaging an
 * optimal C over the group gives an optimal C that is constant on each orbit
 * of the pairs (x, w). Restricting the LP to such C loses nothing: one
 * variable per orbit. Orbits come from union-find over the generators, so the
 * given permutations need not form a closed group.
 */
export interface PairOrbits {
  /** Orbit id of pair (x, w) at x*m + w. */
  orbitOf: Int32Array;
  count: number;
  /** Orbit id of each point x (for one row-sum constraint per point orbit). */
  pointOrbit: Int32Array;
}

export function pairOrbits(n: number, generators: readonly Int32Array[], cost: Float64Array): PairOrbits | null {
  const m = n;
  const gens = generators.filter((p) => !isIdentity(p));
  if (gens.length === 0) return null;
  // The objective must be invariant under every generator.
  for (const p of gens)
    for (let x = 0; x < n; x++)
      for (let w = 0; w < m; w++) {
        const a = cost[x * m + w]!;
        const b = cost[p[x]! * m + p[w]!]!;
        if (a !== b && Math.abs(a - b) > 1e-12 * Math.max(Math.abs(a), Math.abs(b))) return null;
      }
  const parent = new Int32Array(n * m);
  for (let i = 0; i < parent.length; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const pp = new Int32Array(n);
  for (let i = 0; i < n; i++) pp[i] = i;
  const pfind = (i: number): number => {
    while (pp[i] !== i) {
      pp[i] = pp[pp[i]!]!;
      i = pp[i]!;
    }
    return i;
  };
  for (const p of gens) {
    for (let x = 0; x < n; x++) {
      const a = pfind(x);
      const b = pfind(p[x]!);
      if (a !== b) pp[Math.max(a, b)] = Math.min(a, b);
      for (let w = 0; w < m; w++) {
        const u = find(x * m + w);
        const v = find(p[x]! * m + p[w]!);
        if (u !== v) parent[Math.max(u, v)] = Math.min(u, v);
      }
    }
  }
  const orbitOf = new Int32Array(n * m);
  const id = new Int32Array(n * m).fill(-1);
  let count = 0;
  for (let i = 0; i < n * m; i++) {
    const r = find(i);
    if (id[r] === -1) id[r] = count++;
    orbitOf[i] = id[r]!;
  }
  const pointOrbit = new Int32Array(n);
  const pid = new Int32Array(n).fill(-1);
  let pc = 0;
  for (let x = 0; x < n; x++) {
    const r = pfind(x);
    if (pid[r] === -1) pid[r] = pc++;
    pointOrbit[x] = pid[r]!;
  }
  return { orbitOf, count, pointOrbit };
}

function isIdentity(p: Int32Array): boolean {
  for (let i = 0; i < p.length; i++) if (p[i] !== i) return false;
  return true;
}
