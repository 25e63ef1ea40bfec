import { MechError } from '../../../src-shared/errors';
import { DenseFactors, type PricingFactors } from './exact-pricing-factors';
import { PricingForest } from './pricing-forest';

/**
 * What one exact pricing solve works on (exact-pricing.ts): its nodes, the N entries (v < 0) first and the Q
 * entries (v > 0) after them, their weights |v|, the block of factors between them, the basis forest
 * (pricing-forest.ts) and the marks of the set a pivot moves. The pivots (exact-pricing.ts), the ratio tests
 * (exact-ratio-test.ts), the warm-start crash (exact-crash.ts) and the zero state (exact-zero-state.ts) share it;
 * its buffers are reused between solves.
 */
export class ExactBlock {
  /** The secret of each node. */
  readonly glob: Int32Array;
  /** |v| of each node. */
  readonly wt: Float64Array;
  readonly forest: PricingForest;
  readonly parent: Int32Array;
  readonly pot: Float64Array;
  readonly fl: Float64Array;
  readonly zeroRoot: Uint8Array;
  /** The moving set: inS marks its nodes, sList lists them (sCount of them). */
  readonly inS: Uint8Array;
  readonly sList: Int32Array;
  sCount = 0;
  /** GB[i*q + j] = 1/f between N node i and Q node p + j: this solve's block of G, contiguous for the ratio tests. */
  GB = new Float64Array(0);
  /** GNN[i*p + j] = 1/f between N nodes i and j: the triangle bounds that let the ratio tests skip most Q nodes. */
  GNN = new Float64Array(0);
  /** N nodes and Q nodes of this solve. */
  p = 0;
  q = 0;
  /** The flows' and slopes' tolerance of this solve (absolute). */
  tol = 0;
  /** A pivot's structure changed beyond what the incremental update covers (the zero state entered or left). */
  stale = false;

  /** The factors 1/f (a dense table or a grid's by offset). */
  readonly G: PricingFactors;

  constructor(
    readonly n: number,
    G: Float64Array | PricingFactors,
  ) {
    if (G instanceof Float64Array) {
      if (G.length !== n * n)
        throw new MechError('internal', `exact pricing: ${n} secrets need ${n * n} factors, got ${G.length}`);
      this.G = new DenseFactors(n, G);
    } else if (G.n !== n) throw new MechError('internal', `exact pricing: ${n} secrets, factors for ${G.n}`);
    else this.G = G;
    this.glob = new Int32Array(n);
    this.wt = new Float64Array(n);
    this.forest = new PricingForest(n);
    this.parent = this.forest.parent;
    this.pot = this.forest.pot;
    this.fl = this.forest.fl;
    this.zeroRoot = this.forest.zeroRoot;
    this.inS = new Uint8Array(n);
    this.sList = new Int32Array(n);
  }

  get zeroWorld(): boolean {
    return this.forest.zeroWorld;
  }
  set zeroWorld(z: boolean) {
    this.forest.zeroWorld = z;
  }

  /** 1/f between node i (an N node) and node k (any node), both indices into this solve's nodes. */
  g(i: number, k: number): number {
    return this.GB[i * this.q + k - this.p]!;
  }

  /** Fill GB and GNN from G for this solve's nodes (glob, p, q). */
  fillBlock(): void {
    const { p, q, n, G, glob } = this;
    if (this.GB.length < p * q) this.GB = new Float64Array(Math.max(p * q, Math.min(n * n, 2 * this.GB.length)));
    for (let i = 0; i < p; i++) G.gather(glob[i]!, glob, p, q, this.GB, i * q);
    if (this.GNN.length < p * p) this.GNN = new Float64Array(Math.max(p * p, Math.min(n * n, 2 * this.GNN.length)));
    for (let i = 0; i < p; i++) G.gather(glob[i]!, glob, 0, p, this.GNN, i * p);
  }

  /** Mark the subtree under `top` in inS and sList; returns its size. */
  markSubtree(top: number): number {
    const { firstChild, nextSib } = this.forest;
    const { sList, inS } = this;
    let len = 0;
    sList[len++] = top;
    inS[top] = 1;
    for (let t = 0; t < len; t++) {
      for (let c = firstChild[sList[t]!]!; c >= 0; c = nextSib[c]!) {
        sList[len++] = c;
        inS[c] = 1;
      }
    }
    this.sCount = len;
    return len;
  }

  /** Unmark the moving set. */
  clearS(): void {
    for (let s = 0; s < this.sCount; s++) this.inS[this.sList[s]!] = 0;
  }
}
