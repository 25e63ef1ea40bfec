import type { ExactBlock } from './exact-block';
import type { RatioTest } from './exact-ratio-test';

/** Ties of the warm-start crash (relative). */
const TIE = 1e-10;

/**
 * The start of an exact pricing solve (docs/lp.md, "Exact pricing"): the cold basis, or a stored column crashed into
 * a basis (ties link entries; a tree without an entry at 1 is raised until it ties or reaches 1).
 */
export class BasisCrash {
  /** Union-find over the trees the ties link. */
  private readonly uf: Int32Array;
  /** The crash's ties, (j - p) * p + i. */
  private ties = new Int32Array(64);

  constructor(
    private readonly s: ExactBlock,
    private readonly ratio: RatioTest,
  ) {
    this.uf = new Int32Array(s.n);
  }

  /** Every N node a root at 1, every Q node attached to its nearest N node. */
  cold(): void {
    const { p, q, GB, pot, parent, zeroRoot } = this.s;
    this.s.zeroWorld = false;
    for (let i = 0; i < p; i++) {
      parent[i] = -1;
      pot[i] = 1;
      zeroRoot[i] = 0;
    }
    pot.fill(-1, p, p + q);
    for (let i = 0; i < p; i++) {
      const o = i * q - p;
      for (let j = p; j < p + q; j++) {
        if (GB[o + j]! > pot[j]!) {
          pot[j] = GB[o + j]!;
          parent[j] = i;
        }
      }
    }
    this.s.forest.relink();
  }

  /**
   * Crash a stored column into a basis: its N entries scaled to max 1, each Q node on its envelope's owner, ties
   * linking trees, then every tree without an entry at 1 raised until it ties with another or reaches 1. False
   * when the column gives nothing (no positive N entry, or a structure this crash cannot build).
   */
  crash(warm: Float64Array): boolean {
    const { p, q, pot, parent, glob, zeroRoot, forest } = this.s;
    let mx = 0;
    for (let i = 0; i < p; i++) {
      const t = warm[glob[i]!]!;
      pot[i] = t > 0 && t <= 1 ? t : t > 1 ? 1 : 0;
      mx = Math.max(mx, pot[i]!);
    }
    if (!(mx > 1e-200)) return false;
    this.s.zeroWorld = false;
    for (let i = 0; i < p; i++) {
      pot[i] = pot[i]! / mx;
      if (pot[i]! < 1e-200) pot[i] = 1e-200;
      parent[i] = -1;
      zeroRoot[i] = 0;
      this.uf[i] = i;
    }
    // Each Q node on its envelope's owner (the first of equals), row by row of the block.
    const GB = this.s.GB;
    pot.fill(-1, p, p + q);
    for (let i = 0; i < p; i++) {
      const pi = pot[i]!;
      const o = i * q - p;
      for (let j = p; j < p + q; j++) {
        const t = pi * GB[o + j]!;
        if (t > pot[j]!) {
          pot[j] = t;
          parent[j] = i;
        }
      }
    }
    // Ties link trees: i's tree hangs below j, in the order of j then i (Q nodes are leaves until their own ties).
    let nt = 0;
    for (let i = 0; i < p; i++) {
      const pi = pot[i]!;
      const o = i * q - p;
      for (let j = p; j < p + q; j++) {
        if (i === parent[j] || pi * GB[o + j]! < pot[j]! * (1 - TIE)) continue;
        if (nt === this.ties.length) this.ties = Int32Array.from({ length: 2 * nt + 64 }, (_, t) => this.ties[t] ?? 0);
        this.ties[nt++] = (j - p) * p + i;
      }
    }
    forest.relink();
    const ties = this.ties.subarray(0, nt).sort();
    for (let t = 0; t < nt; t++) {
      const j = p + Math.floor(ties[t]! / p);
      const i = ties[t]! - (j - p) * p;
      const ri = this.find(i);
      const ra = this.find(parent[j]!);
      if (ri === ra) continue;
      forest.reroot(i, j);
      this.uf[ri] = ra;
    }
    // Roots: each tree re-rooted at its largest N entry; trees below 1 raised.
    for (let guard = 0; guard <= 3 * p + 3; guard++) {
      let low = -1;
      for (let k = p + q - 1; k >= 0; k--) {
        if (parent[k]! >= 0) continue;
        const top = this.treeMax(k);
        if (top !== k) {
          forest.reroot(top, -1);
          low = -2;
          break;
        }
        if (pot[k]! < 1 - 1e-12) {
          low = k;
          break;
        }
      }
      if (low === -2) continue;
      if (low === -1) {
        for (let i = 0; i < p; i++) if (parent[i]! < 0) pot[i] = 1;
        return true;
      }
      if (!this.raise(low)) return false;
    }
    return false;
  }

  private find(i: number): number {
    const uf = this.uf;
    while (uf[i] !== i) {
      uf[i] = uf[uf[i]!]!;
      i = uf[i]!;
    }
    return i;
  }

  /** The N node of largest potential in the tree rooted at `root` (children lists built). */
  private treeMax(root: number): number {
    const { p, pot, sList, inS } = this.s;
    const S = this.s.markSubtree(root);
    let best = root;
    for (let s = 0; s < S; s++) {
      const k = sList[s]!;
      if (k < p && pot[k]! > pot[best]!) best = k;
    }
    for (let s = 0; s < S; s++) inS[sList[s]!] = 0;
    return best;
  }

  /** Raise the tree rooted at `root` (below 1) to its first tie with another tree, or to 1. */
  private raise(root: number): boolean {
    const { p, pot, sList, forest } = this.s;
    const S = this.s.markSubtree(root);
    let umax = 0;
    let arg = root;
    for (let s = 0; s < S; s++) {
      const k = sList[s]!;
      if (k < p && pot[k]! > umax) {
        umax = pot[k]!;
        arg = k;
      }
    }
    if (!(umax > 0)) {
      this.s.clearS();
      return false;
    }
    // The first tie: the nearest breakpoint of the up ratio test, leaf or not.
    this.ratio.begin(1 / umax, -2);
    this.ratio.up(S);
    const { rho, node: hit, other: hitOther } = this.ratio.nearest();
    if (!Number.isFinite(rho)) {
      this.s.clearS();
      return false;
    }
    for (let s = 0; s < S; s++) pot[sList[s]!] = pot[sList[s]!]! * rho;
    this.s.clearS();
    if (hit < 0) forest.reroot(arg, -1);
    else forest.reroot(hitOther, hit);
    return true;
  }
}
