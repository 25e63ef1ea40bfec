import type { ExactBlock } from './exact-block';
import type { RatioTest } from './exact-ratio-test';

/**
 * A pivot's move with no stop (docs/lp.md, "Exact pricing"): the last tree down to 0 enters the zero state, which
 * keeps the relative potentials (the optimum is 0 when the solve ends there); in the zero state, S up without bound
 * leaves it (its dead end: S rises to 1 and the one node left becomes the root at 0). k is the leaving variable's
 * node, S the moving set's size (the block's marks), umax and argMax its largest N potential and node, npassed the
 * leaves the long step passed (ratio.passed). False on a structure the method does not expect.
 */
export function moveWithoutStop(
  s: ExactBlock,
  ratio: RatioTest,
  k: number,
  up: boolean,
  isRoot: boolean,
  S: number,
  umax: number,
  argMax: number,
  npassed: number,
): boolean {
  const { p, q, parent, pot, inS, sList, forest, zeroRoot } = s;
  const { passed, bpOther } = ratio;
  s.stale = true;
  const fail = (): boolean => {
    s.clearS();
    return false;
  };
  if (!up) {
    if (!isRoot) return fail();
    // The last tree at 0: the zero state (only trees at 0 besides it: lone N roots, hung below it).
    for (let i = 0; i < p; i++) if (!inS[i] && !(parent[i]! < 0 && zeroRoot[i])) return fail();
    s.zeroWorld = true;
    for (let t = 0; t < S; t++) pot[sList[t]!] = pot[sList[t]!]! / umax;
    for (let t = 0; t < npassed; t++) forest.setParent(passed[t]!, bpOther[passed[t]!]!);
    for (let i = 0; i < p; i++) {
      if (inS[i] || parent[i]! >= 0) continue;
      // u_i = min_b u_b / g_ib: the largest relative value below every Q node's envelope.
      let best = Infinity;
      let arg = -1;
      for (let b = p; b < p + q; b++) {
        const t = pot[b]! / s.g(i, b);
        if (t < best) {
          best = t;
          arg = b;
        }
      }
      if (arg < 0) return fail();
      forest.setParent(i, arg);
      zeroRoot[i] = 0;
    }
    s.clearS();
    return true;
  }
  if (!s.zeroWorld || isRoot) return fail();
  // Zero state, S took every Q node and is still short: S rises to 1, the rest must be the lone root at 0.
  for (let t = 0; t < npassed; t++) inS[passed[t]!] = 2;
  let rest = -1;
  for (let x = 0; x < p + q; x++) {
    if (inS[x]) continue;
    if (x >= p || rest >= 0) {
      for (let t = 0; t < npassed; t++) inS[passed[t]!] = 0;
      return fail();
    }
    rest = x;
  }
  for (let t = 0; t < npassed; t++) inS[passed[t]!] = 0;
  if (rest < 0) return fail();
  for (let t = 0; t < npassed; t++) forest.setParent(passed[t]!, bpOther[passed[t]!]!);
  for (let t = 0; t < S; t++) pot[sList[t]!] = pot[sList[t]!]! / umax;
  forest.setParent(k, -1);
  forest.reroot(argMax, -1);
  zeroRoot[argMax] = 0;
  forest.setParent(rest, -1);
  zeroRoot[rest] = 1;
  pot[rest] = 1;
  s.zeroWorld = false;
  s.clearS();
  return true;
}
