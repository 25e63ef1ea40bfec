import { describe, expect, it } from 'vitest';
import { PricingForest } from '../../../../../src-worker/lp/pricing/pricing-forest';
import { seededRandom } from '../../../../../src-shared/numeric/seeded-random';

/**
 * The forest of exact pricing updated incrementally (walk on what moved, propagate on the paths to the roots)
 * against the same forest refreshed whole, after every one of many random moves of the kinds a pivot makes:
 * a subtree cut and re-hung elsewhere (re-rooted at one of its nodes), a subtree cut into a tree of its own,
 * leaves moved to another N node.
 */

const p = 7;
const q = 23;
const m = p + q;

function subtree(f: PricingForest, top: number): number[] {
  const out = [top];
  for (let t = 0; t < out.length; t++) for (let c = f.firstChild[out[t]!]!; c >= 0; c = f.nextSib[c]!) out.push(c);
  return out;
}

describe('the pricing forest', () => {
  it('keeps the same potentials and flows incrementally as a whole refresh, over 400 random moves', () => {
    const rnd = seededRandom(23);
    const GB = Float64Array.from({ length: p * q }, () => Math.exp(-4 * rnd()));
    const wt = Float64Array.from({ length: m }, () => 0.1 + rnd());
    const f = new PricingForest(m);
    f.begin(p, q, GB, wt);
    // Every N node a root, each Q node below a random N node.
    for (let i = 0; i < p; i++) f.parent[i] = -1;
    for (let j = p; j < m; j++) f.parent[j] = Math.floor(rnd() * p);
    f.relink();
    expect(f.refresh()).toBe(true);
    let moves = 0;
    for (let it = 0; it < 400; it++) {
      f.startMove();
      const kind = it % 3;
      let tops: number[];
      if (kind === 2) {
        // Leaves to another N node (a long step's passed leaves).
        tops = [];
        for (let j = p; j < m; j++) {
          if (f.firstChild[j]! >= 0 || rnd() > 0.2) continue;
          f.setParent(j, Math.floor(rnd() * p));
          tops.push(j);
        }
      } else {
        const x = Math.floor(rnd() * m);
        if (f.parent[x]! < 0) continue;
        const inside = subtree(f, x);
        const inS = new Set(inside);
        f.setParent(x, -1);
        const u = inside[Math.floor(rnd() * inside.length)]!;
        const outside = Array.from({ length: m }, (_, k) => k).filter((k) => !inS.has(k) && k < p !== u < p);
        if (kind === 1 || outside.length === 0) {
          // Cut into a tree of its own, rooted at an N node of it (a move to the bound r = 1).
          const root = inside.find((k) => k < p);
          if (root === undefined) {
            // A Q subtree alone cannot be a tree: hang it back.
            f.setParent(x, f.parent[x]! >= 0 ? f.parent[x]! : Math.floor(rnd() * p));
            tops = [x];
          } else {
            f.reroot(root, -1);
            tops = [root];
          }
        } else {
          f.reroot(u, outside[Math.floor(rnd() * outside.length)]!);
          tops = [u];
        }
      }
      for (const t of tops) f.walk(t);
      f.propagate();
      moves++;
      const pot = Float64Array.from(f.pot);
      const fl = Float64Array.from(f.fl);
      expect(f.refresh()).toBe(true);
      for (let k = 0; k < m; k++) {
        expect(Math.abs(pot[k]! - f.pot[k]!), `move ${it}, potential of ${k}`).toBeLessThanOrEqual(
          1e-12 * Math.abs(f.pot[k]!),
        );
        expect(Math.abs(fl[k]! - f.fl[k]!), `move ${it}, flow of ${k}`).toBeLessThanOrEqual(
          1e-9 * (1 + Math.abs(f.fl[k]!)),
        );
      }
      // Roots are N nodes and arcs join an N node to a Q node.
      for (let k = 0; k < m; k++) {
        const pa = f.parent[k]!;
        if (pa < 0) expect(k).toBeLessThan(p);
        else expect(k < p).not.toBe(pa < p);
      }
    }
    expect(moves).toBeGreaterThan(300);
  });
});
