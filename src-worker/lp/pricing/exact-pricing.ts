/**
 * Exact pricing over the column polytope of an exact model (docs/lp.md, "Exact pricing"):
 *   min v . r  over  P = { r in [0,1]^n : r_a <= f_ab r_b for every ordered pair },  ln f a metric,
 * solved combinatorially, with a certificate valid whatever the pivots did.
 *
 * Reduction. Let N = { x : v_x < 0 } and Q = { x : v_x > 0 }. At an optimum every entry outside N sits at the
 * lower envelope r_x = max_{a in N} r_a g_ax (g = 1/f), which satisfies every pair row by the triangle inequality
 * of ln f, and rows among N never bind. What is left is a transport with losses between N and Q:
 *   min sum_a z_a  s.t.  sum_a y_ba <= v_b (b in Q),  sum_b g_ab y_ba + z_a >= -v_a (a in N),  y, z >= 0,
 * whose optimum is minus the pricing optimum. Any flows y >= 0 are multipliers mu_ab = g_ab y_ba on the rows
 * r_a - f_ab r_b <= 0, so by weak duality
 *   min_P v . r >= sum_x min(0, (v + A' mu)_x) = sum_a min(0, v_a + inflow_a) + sum_b min(0, v_b - outflow_b),
 * the certificate (certificateBound): the flows are clipped at 0 and it is computed from them alone.
 *
 * Method: a dual simplex on that transport, i.e. a primal method on r. The basis is a forest over N and Q whose
 * arcs are tight rows (t_b = g_ab r_a); each tree is rooted at an a with r_a = 1 (its z basic). Potentials run
 * top-down, flows bottom-up, kept between pivots on what a pivot moved (pricing-forest.ts). The leaving variable is the
 * most negative basic one (roots first); the move scales the subtree it cuts off (or the whole tree) by a common
 * factor, so no cycle appears; the ratio test runs over every pair between the moving set and the rest (moving up,
 * a leaf is skipped when a triangle bound of ln f puts its breakpoint beyond the sure stop) and is long-step: Q
 * leaves crossing a boundary are reassigned while the objective still improves (a heap holds those breakpoints),
 * the first non-leaf breakpoint or the bound r = 1 stops the step. When the last tree scales to 0 the solve
 * continues in a zero state that keeps relative potentials (optimum 0 when it ends there). Warm start: any stored r
 * is crashed into a basis (ties link entries; a tree without an entry at 1 is raised until it ties or reaches 1). A
 * pivot cap ends a solve; it is then repeated cold with the other leaving rule, and past that the point reached and
 * its certificate are returned.
 */

import { MechError } from '../../../src-shared/errors';
import type { PricingOutcome } from './pricing';
import { PricingForest } from './pricing-forest';
import { certificateBound } from './exact-pricing-factors';

export {
  EXACT_PRICING_MAX_SECRETS,
  certificateBound,
  closurePricingFactors,
  exactPricingFactors,
} from './exact-pricing-factors';

/** Relative tolerance of the flows and the objective slopes (times max |v|). */
const TOLERANCE = 1e-12;
/** Ties of the warm-start crash (relative). */
const TIE = 1e-10;
/** Pivots between two refreshes of the whole forest (the pivots in between update it incrementally). */
const REFRESH = 32;
/**
 * A triangle bound skips a breakpoint only when beyond the stop by this much (relative): rounding never decides a tie.
 */
const SKIP_SLACK = 1e-9;

type ExactPricingStatus = 'optimal' | 'capped';

interface ExactPricingResult {
  /** v . r of the returned column r (every pair row holds by construction: the lower envelope of its negative set). */
  objective: number;
  /**
   * Certified lower bound on min over P of v . r (weak duality from the flows clipped at 0; never above the optimum).
   */
  bound: number;
  r: Float64Array;
  /**
   * A warm start for the next solve of the same output: r, or where r = 0 the envelope of the zero state's relative
   * potentials.
   */
  shape: Float64Array;
  pivots: number;
  /**
   * 'optimal': no negative basic variable left (bound = objective to rounding); 'capped': the pivot cap twice, the
   * point reached and its certificate.
   */
  status: ExactPricingStatus;
  /**
   * The certificate's flows y_ba >= 0 from b (v_b > 0) to a (v_a < 0): certificateBound(v, a, b, y) recomputes the
   * bound.
   */
  certificate: { a: Int32Array; b: Int32Array; y: Float64Array };
}

type Rule = 'roots' | 'overall';

/**
 * One exact pricer per engine (thread): n secrets and G[a*n + b] = 1/f_ab (G[a*n + a] = 1), symmetric, ln(1/G) a
 * metric (the model's factors, or the shortest-path closure of a spanner's). Buffers are reused between solves.
 */
export class ExactPricer {
  private readonly glob: Int32Array;
  private readonly rowOf: Int32Array;
  private readonly wt: Float64Array;
  private readonly forest: PricingForest;
  private readonly parent: Int32Array;
  private readonly pot: Float64Array;
  private readonly fl: Float64Array;
  private readonly inS: Uint8Array;
  private readonly zeroRoot: Uint8Array;
  private readonly sList: Int32Array;
  private readonly bpRho: Float64Array;
  private readonly bpOther: Int32Array;
  private readonly heap: Int32Array;
  private readonly passed: Int32Array;
  private readonly uf: Int32Array;
  private readonly mBest: Float64Array;
  private readonly mArg: Int32Array;
  private GB = new Float64Array(0);
  /** GNN[i*p + j] = 1/f between N nodes i and j: the triangle bounds that let the ratio tests skip most Q nodes. */
  private GNN = new Float64Array(0);
  private readonly envA: Float64Array;
  private readonly sN: Int32Array;
  /** The crash's ties, (j - p) * p + i. */
  private ties = new Int32Array(64);
  private p = 0;
  private q = 0;
  /** A pivot's structure changed beyond what the incremental update covers (the zero state entered or left). */
  private stale = false;
  private tol = 0;
  private sCount = 0;
  /** Solves that reached the pivot cap (then re-solved cold), and solves that reached it twice. */
  capped = 0;
  failed = 0;

  constructor(
    readonly n: number,
    private readonly G: Float64Array,
  ) {
    if (G.length !== n * n)
      throw new MechError('internal', `exact pricing: ${n} secrets need ${n * n} factors, got ${G.length}`);
    this.glob = new Int32Array(n);
    this.rowOf = new Int32Array(n);
    this.wt = new Float64Array(n);
    this.forest = new PricingForest(n);
    this.parent = this.forest.parent;
    this.pot = this.forest.pot;
    this.fl = this.forest.fl;
    this.inS = new Uint8Array(n);
    this.zeroRoot = this.forest.zeroRoot;
    this.sList = new Int32Array(n);
    this.bpRho = new Float64Array(n);
    this.bpOther = new Int32Array(n);
    this.heap = new Int32Array(n);
    this.passed = new Int32Array(n);
    this.uf = new Int32Array(n);
    this.mBest = new Float64Array(n);
    this.mArg = new Int32Array(n);
    this.envA = new Float64Array(n);
    this.sN = new Int32Array(n);
  }

  private get zeroWorld(): boolean {
    return this.forest.zeroWorld;
  }
  private set zeroWorld(z: boolean) {
    this.forest.zeroWorld = z;
  }

  /** 1/f between node i (an N node) and node k (any node), both indices into this solve's nodes. */
  private g(i: number, k: number): number {
    return this.GB[i * this.q + k - this.p]!;
  }

  /** GB[i*q + j] = 1/f between N node i and Q node p + j: this solve's block of G, contiguous for the ratio tests. */
  private fillBlock(): void {
    const { p, q, n, G, glob } = this;
    if (this.GB.length < p * q) this.GB = new Float64Array(Math.max(p * q, Math.min(n * n, 2 * this.GB.length)));
    const GB = this.GB;
    for (let i = 0; i < p; i++) {
      const row = glob[i]! * n;
      const o = i * q;
      for (let j = 0; j < q; j++) GB[o + j] = G[row + glob[p + j]!]!;
    }
    if (this.GNN.length < p * p) this.GNN = new Float64Array(Math.max(p * p, Math.min(n * n, 2 * this.GNN.length)));
    const GNN = this.GNN;
    for (let i = 0; i < p; i++) {
      const row = glob[i]! * n;
      for (let j = 0; j < p; j++) GNN[i * p + j] = G[row + glob[j]!]!;
    }
  }

  /**
   * The exact pricing of v (length n), warm-started from `warm` (a previous column of the same output, length n)
   * when given. The returned r is a fresh array.
   */
  solve(v: Float64Array, warm?: Float64Array | null): ExactPricingResult {
    const n = this.n;
    let p = 0;
    let vmax = 0;
    for (let x = 0; x < n; x++) if (v[x]! < 0) this.glob[p++] = x;
    let q = p;
    for (let x = 0; x < n; x++) {
      const t = v[x]!;
      if (!Number.isFinite(t))
        throw new MechError('internal', `exact pricing: objective entry ${x} is ${t}, not a finite number`);
      if (t > 0) this.glob[q++] = x;
      vmax = Math.max(vmax, Math.abs(t));
    }
    this.p = p;
    this.q = q - p;
    for (let k = 0; k < q; k++) this.wt[k] = Math.abs(v[this.glob[k]!]!);
    for (let i = 0; i < p; i++) this.rowOf[i] = this.glob[i]! * n;
    this.tol = TOLERANCE * vmax;
    if (p === 0) {
      // Nothing wants r > 0: r = 0, certified by y = 0.
      const none = { a: new Int32Array(0), b: new Int32Array(0), y: new Float64Array(0) };
      return {
        objective: 0,
        bound: 0,
        r: new Float64Array(n),
        shape: new Float64Array(n),
        pivots: 0,
        status: 'optimal',
        certificate: none,
      };
    }
    if (this.q === 0) {
      // Every entry wants r = 1: the box optimum sum v, certified by y = 0.
      this.zeroWorld = false;
      for (let i = 0; i < p; i++) {
        this.parent[i] = -1;
        this.pot[i] = 1;
        this.zeroRoot[i] = 0;
      }
      return this.result(v, 0, 'optimal', false);
    }
    this.fillBlock();
    this.forest.begin(p, this.q, this.GB, this.wt);
    const cap = 50 * q + 1000;
    let pivots = 0;
    if (!(warm && this.crash(warm))) this.cold();
    let out = this.iterate(cap, 'roots');
    pivots += out.pivots;
    if (!out.done) {
      this.capped++;
      this.cold();
      out = this.iterate(cap, 'overall');
      pivots += out.pivots;
      if (!out.done) this.failed++;
    }
    this.forest.refresh();
    return this.result(v, pivots, out.done ? 'optimal' : 'capped', this.zeroWorld);
  }

  /** Every N node a root at 1, every Q node attached to its nearest N node. */
  private cold(): 'cold' {
    const { p, q } = this;
    this.zeroWorld = false;
    for (let i = 0; i < p; i++) {
      this.parent[i] = -1;
      this.pot[i] = 1;
      this.zeroRoot[i] = 0;
    }
    const { GB, pot, parent } = this;
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
    this.forest.relink();
    return 'cold';
  }

  private find(i: number): number {
    const uf = this.uf;
    while (uf[i] !== i) {
      uf[i] = uf[uf[i]!]!;
      i = uf[i]!;
    }
    return i;
  }

  /** Re-root the tree containing x at x and hang it below `to` (-1: x becomes a root). */
  private reroot(x: number, to: number): void {
    this.forest.reroot(x, to);
  }

  private setParent(x: number, to: number): void {
    this.forest.setParent(x, to);
  }

  /**
   * Crash a stored column into a basis: its N entries scaled to max 1, each Q node on its envelope's owner, ties
   * linking trees, then every tree without an entry at 1 raised until it ties with another or reaches 1. False
   * when the column gives nothing (no positive N entry, or a structure this crash cannot build).
   */
  private crash(warm: Float64Array): boolean {
    const { p, q, pot, parent } = this;
    let mx = 0;
    for (let i = 0; i < p; i++) {
      const t = warm[this.glob[i]!]!;
      pot[i] = t > 0 && t <= 1 ? t : t > 1 ? 1 : 0;
      mx = Math.max(mx, pot[i]!);
    }
    if (!(mx > 1e-200)) return false;
    this.zeroWorld = false;
    for (let i = 0; i < p; i++) {
      pot[i] = pot[i]! / mx;
      if (pot[i]! < 1e-200) pot[i] = 1e-200;
      parent[i] = -1;
      this.zeroRoot[i] = 0;
      this.uf[i] = i;
    }
    // Each Q node on its envelope's owner (the first of equals), row by row of the block.
    const GB = this.GB;
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
    this.forest.relink();
    const ties = this.ties.subarray(0, nt).sort();
    for (let t = 0; t < nt; t++) {
      const j = p + Math.floor(ties[t]! / p);
      const i = ties[t]! - (j - p) * p;
      const ri = this.find(i);
      const ra = this.find(parent[j]!);
      if (ri === ra) continue;
      this.reroot(i, j);
      this.uf[ri] = ra;
    }
    // Roots: each tree re-rooted at its largest N entry; trees below 1 raised.
    for (let guard = 0; guard <= 3 * p + 3; guard++) {
      let low = -1;
      for (let k = p + q - 1; k >= 0; k--) {
        if (parent[k]! >= 0) continue;
        const top = this.treeMax(k);
        if (top !== k) {
          this.reroot(top, -1);
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

  /** The N node of largest potential in the tree rooted at `root` (children lists built). */
  private treeMax(root: number): number {
    const S = this.markSubtree(root);
    let best = root;
    for (let s = 0; s < S; s++) {
      const k = this.sList[s]!;
      if (k < this.p && this.pot[k]! > this.pot[best]!) best = k;
    }
    for (let s = 0; s < S; s++) this.inS[this.sList[s]!] = 0;
    return best;
  }

  /** Crash step: raise the tree rooted at `root` (below 1) to its first tie with another tree, or to 1. */
  private raise(root: number): boolean {
    const { p, pot, bpRho, bpOther, heap } = this;
    const S = this.markSubtree(root);
    let umax = 0;
    let arg = root;
    for (let s = 0; s < S; s++) {
      const k = this.sList[s]!;
      if (k < p && pot[k]! > umax) {
        umax = pot[k]!;
        arg = k;
      }
    }
    if (!(umax > 0)) {
      this.clearS();
      return false;
    }
    // The first tie: the nearest breakpoint of the up ratio test, leaf or not.
    this.nb = 0;
    this.sure = 1 / umax;
    this.sureNode = -2;
    this.sureOther = -1;
    this.ratioUp(S);
    let rho = this.sure;
    let hit = this.sureNode;
    let hitOther = this.sureOther;
    for (let t = 0; t < this.nb; t++) {
      const b = heap[t]!;
      if (bpRho[b]! < rho) {
        rho = bpRho[b]!;
        hit = b;
        hitOther = bpOther[b]!;
      }
    }
    if (!Number.isFinite(rho)) {
      this.clearS();
      return false;
    }
    for (let s = 0; s < S; s++) pot[this.sList[s]!] = pot[this.sList[s]!]! * rho;
    this.clearS();
    if (hit < 0) this.reroot(arg, -1);
    else this.reroot(hitOther, hit);
    return true;
  }

  /** Mark the subtree under `top` in inS and sList; returns its size. */
  private markSubtree(top: number): number {
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

  /**
   * Pivots until no basic variable is negative (true) or the cap (false). The forest is updated incrementally
   * after each pivot and refreshed whole every REFRESH pivots, after a change of state, and before an optimum is
   * accepted (a leaving variable the drift hid is then found, and pivoting goes on).
   */
  private iterate(cap: number, rule: Rule): { done: boolean; pivots: number } {
    const forest = this.forest;
    if (!forest.refresh()) return { done: false, pivots: 0 };
    let since = 0;
    for (let it = 0; it < cap; it++) {
      let k = this.leaving(rule);
      if (k < 0 && since > 0) {
        if (!forest.refresh()) return { done: false, pivots: it };
        since = 0;
        k = this.leaving(rule);
      }
      if (k < 0) return { done: true, pivots: it };
      this.stale = false;
      if (!this.pivot(k)) return { done: false, pivots: it };
      if (this.stale || ++since >= REFRESH) {
        if (!forest.refresh()) return { done: false, pivots: it + 1 };
        since = 0;
      }
    }
    return { done: false, pivots: cap };
  }

  /** The leaving variable's node (its arc to its parent, or its root value), or -1 at an optimum. */
  private leaving(rule: Rule): number {
    const { p, q, parent, fl, pot, tol } = this;
    const m = p + q;
    let bestRoot = -1;
    let rootVal = -tol;
    let bestArc = -1;
    let arcRate = 0;
    for (let k = 0; k < m; k++) {
      const f = fl[k]!;
      if (!(f < -tol)) continue;
      const pa = parent[k]!;
      if (pa < 0) {
        if (f < rootVal) {
          rootVal = f;
          bestRoot = k;
        }
      } else {
        const rate = f * pot[k >= p ? k : pa]!;
        if (bestArc < 0 || rate < arcRate) {
          arcRate = rate;
          bestArc = k;
        }
      }
    }
    if (bestRoot < 0) return bestArc;
    if (bestArc < 0 || rule === 'roots') return bestRoot;
    return rootVal <= arcRate ? bestRoot : bestArc;
  }

  /**
   * One pivot on the leaving variable at node k. Moves: a z root (r = 1 tree too costly) scales its tree down; an
   * e root (a tree at 0 that should rise) scales up; a negative arc cuts off the subtree below k, which scales
   * down when k is an N node and up when k is a Q node. False on a structure the method does not expect.
   */
  private pivot(k: number): boolean {
    const { p, parent, pot, wt, sList } = this;
    const isRoot = parent[k]! < 0;
    const up = isRoot ? this.zeroWorld || this.zeroRoot[k] === 1 : k >= p;
    const S = this.markSubtree(k);
    // Slope: the moving set's objective per unit of scale; its largest N potential.
    let objS = 0;
    let umax = 0;
    let argMax = k;
    for (let s = 0; s < S; s++) {
      const x = sList[s]!;
      objS += x < p ? -wt[x]! * pot[x]! : wt[x]! * pot[x]!;
      if (x < p && pot[x]! > umax) {
        umax = pot[x]!;
        argMax = x;
      }
    }
    // Whole world rising from 0 (the zero state's root): to max 1, no other tree.
    const wholeUp = isRoot && this.zeroWorld;
    this.nb = 0;
    this.sure = up ? Infinity : -Infinity;
    this.sureNode = -1;
    this.sureOther = -1;
    if (up && (!this.zeroWorld || wholeUp) && umax > 0) {
      this.sure = 1 / umax;
      this.sureNode = -2;
    }
    if (!wholeUp) {
      if (up) this.ratioUp(S);
      else this.ratioDown(S);
    }
    const npassed = this.longStep(up, objS);
    if (this.sureNode === -1) return this.noStop(k, up, isRoot, S, umax, argMax, npassed);
    // Scale S to the stop (from 0: rho times the relative potentials).
    const rho = Math.max(0, this.sure);
    for (let s = 0; s < S; s++) pot[sList[s]!] = pot[sList[s]!]! * rho;
    const { forest, passed, bpOther } = this;
    forest.startMove();
    for (let t = 0; t < npassed; t++) this.setParent(passed[t]!, bpOther[passed[t]!]!);
    this.setParent(k, -1); // the leaving arc (a root's variable: no arc)
    let top: number;
    if (this.sureNode === -2) {
      this.reroot(argMax, -1);
      this.zeroRoot[argMax] = 0;
      forest.touch(argMax);
      if (wholeUp) {
        this.zeroWorld = false;
        this.stale = true;
      }
      top = argMax;
    } else if (up) {
      this.reroot(this.sureOther, this.sureNode);
      top = this.sureOther;
    } else {
      this.reroot(this.sureNode, this.sureOther);
      top = this.sureNode;
    }
    if (isRoot) {
      this.zeroRoot[k] = 0;
      forest.touch(k);
    }
    this.clearS();
    if (this.stale) return true;
    // What moved: S (with the leaves it took), the leaves it left; then the flows on their paths.
    forest.walk(top);
    if (!up) for (let t = 0; t < npassed; t++) forest.walk(passed[t]!);
    forest.propagate();
    return true;
  }

  private nb = 0;
  private sure = 0;
  private sureNode = -1;
  private sureOther = -1;

  private clearS(): void {
    for (let s = 0; s < this.sCount; s++) this.inS[this.sList[s]!] = 0;
  }

  /**
   * Record a breakpoint of Q node b against N node a at scale r: a leaf into the heap, a non-leaf as the sure stop if
   * nearer.
   */
  private breakpoint(b: number, a: number, r: number, up: boolean): void {
    if (this.forest.firstChild[b]! >= 0) {
      if (up ? r < this.sure : r > this.sure) {
        this.sure = r;
        this.sureNode = b;
        this.sureOther = a;
      }
    } else {
      this.bpRho[b] = r;
      this.bpOther[b] = a;
      this.heap[this.nb++] = b;
    }
  }

  /**
   * S scales down: its Q nodes against the best N node outside S (rows of the block, outer loop over the N nodes
   * outside).
   */
  private ratioDown(S: number): void {
    const { p, q, parent, pot, inS, sList, mBest, mArg, GB, passed } = this;
    let sq = 0;
    for (let s = 0; s < S; s++) {
      const b = sList[s]!;
      if (b < p) continue;
      passed[sq++] = b;
      mBest[b] = 0;
      mArg[b] = -1;
    }
    for (let i = 0; i < p; i++) {
      if (inS[i] || (!this.zeroWorld && this.zeroRoot[i] && parent[i]! < 0)) continue;
      const pi = pot[i]!;
      const o = i * q - p;
      for (let t = 0; t < sq; t++) {
        const b = passed[t]!;
        const x = pi * GB[o + b]!;
        if (x > mBest[b]!) {
          mBest[b] = x;
          mArg[b] = i;
        }
      }
    }
    for (let t = 0; t < sq; t++) {
      const b = passed[t]!;
      const a = mArg[b]!;
      if (a >= 0 && pot[b]! > 0) this.breakpoint(b, a, mBest[b]! / pot[b]!, false);
    }
  }

  /**
   * S scales up: the Q nodes b outside S against the best N node of S. The non-leaves exactly (the sure stop); a
   * leaf only when a triangle bound (ln 1/g a metric) leaves its breakpoint possibly before the stop: through the
   * largest node c of S, max_{i in S} r_i g_ib <= g_cb max_i r_i / g_ci, and through b's parent a,
   * <= max_i r_i g_ia / g_ab.
   */
  private ratioUp(S: number): void {
    const { p, q, parent, pot, inS, sList, GB, GNN, envA, sN, mBest: ub, mArg: cand } = this;
    const { firstChild, ga } = this.forest;
    let ns = 0;
    let c = -1;
    for (let s = 0; s < S; s++) {
      const i = sList[s]!;
      if (i >= p) continue;
      sN[ns++] = i;
      if (c < 0 || pot[i]! > pot[c]!) c = i;
    }
    if (c < 0) return;
    let K = 0;
    for (let t = 0; t < ns; t++) K = Math.max(K, pot[sN[t]!]! / GNN[c * p + sN[t]!]!);
    for (let a = 0; a < p; a++) {
      if (inS[a]) continue;
      let e = 0;
      const o = a * p;
      for (let t = 0; t < ns; t++) e = Math.max(e, pot[sN[t]!]! * GNN[o + sN[t]!]!);
      envA[a] = e;
    }
    let nc = 0;
    const oc = c * q - p;
    for (let b = p; b < p + q; b++) {
      if (inS[b]) continue;
      if (firstChild[b]! < 0) {
        const u = Math.min(GB[oc + b]! * K, envA[parent[b]!]! / ga[b]!);
        if (pot[b]! > u * this.sure * (1 + SKIP_SLACK)) continue;
        ub[b] = u;
        cand[nc++] = b;
      } else this.upExact(b, ns);
    }
    for (let t = 0; t < nc; t++) {
      const b = cand[t]!;
      if (!(pot[b]! > ub[b]! * this.sure * (1 + SKIP_SLACK))) this.upExact(b, ns);
    }
  }

  /** The breakpoint of Q node b against S's N nodes (the first ns of sN). */
  private upExact(b: number, ns: number): void {
    const { q, pot, GB, sN } = this;
    let m = 0;
    let a = -1;
    const o = b - this.p;
    for (let t = 0; t < ns; t++) {
      const i = sN[t]!;
      const x = pot[i]! * GB[i * q + o]!;
      if (x > m) {
        m = x;
        a = i;
      }
    }
    if (a >= 0) this.breakpoint(b, a, pot[b]! / m, true);
  }

  /**
   * Long step: the leaves nearer than the sure stop, nearest first, passed (into `passed`) while the slope still
   * improves; the first that would not improve becomes the stop (sure, sureNode, sureOther). Returns how many passed.
   */
  private longStep(up: boolean, objS: number): number {
    const { bpRho, bpOther, heap, wt, pot } = this;
    let len = 0;
    for (let t = 0; t < this.nb; t++) {
      const b = heap[t]!;
      if (up ? bpRho[b]! <= this.sure : bpRho[b]! >= this.sure) heap[len++] = b;
    }
    const key = (b: number): number => (up ? bpRho[b]! : -bpRho[b]!);
    for (let t = (len >> 1) - 1; t >= 0; t--) this.siftDown(t, len, key);
    const tolObj = this.tol;
    let npassed = 0;
    while (len > 0) {
      const b = heap[0]!;
      const after = up ? objS + wt[b]! * pot[bpOther[b]!]! * this.g(bpOther[b]!, b) : objS - wt[b]! * pot[b]!;
      if (up ? !(after < -tolObj) : !(after > tolObj)) {
        this.sureNode = b;
        this.sureOther = bpOther[b]!;
        this.sure = bpRho[b]!;
        break;
      }
      objS = after;
      this.passed[npassed++] = b;
      heap[0] = heap[--len]!;
      this.siftDown(0, len, key);
    }
    return npassed;
  }

  /**
   * A move with no stop: the last tree down to 0 (the zero state), or in the zero state S up without bound (its dead
   * end).
   */
  private noStop(
    k: number,
    up: boolean,
    isRoot: boolean,
    S: number,
    umax: number,
    argMax: number,
    npassed: number,
  ): boolean {
    const { p, q, parent, pot, inS, sList, passed, bpOther } = this;
    this.stale = true;
    const fail = (): boolean => {
      this.clearS();
      return false;
    };
    if (!up) {
      if (!isRoot) return fail();
      // The last tree at 0: the zero state (only trees at 0 besides it: lone N roots, hung below it).
      for (let i = 0; i < p; i++) if (!inS[i] && !(parent[i]! < 0 && this.zeroRoot[i])) return fail();
      this.zeroWorld = true;
      for (let s = 0; s < S; s++) pot[sList[s]!] = pot[sList[s]!]! / umax;
      for (let t = 0; t < npassed; t++) this.setParent(passed[t]!, bpOther[passed[t]!]!);
      for (let i = 0; i < p; i++) {
        if (inS[i] || parent[i]! >= 0) continue;
        // u_i = min_b u_b / g_ib: the largest relative value below every Q node's envelope.
        let best = Infinity;
        let arg = -1;
        for (let b = p; b < p + q; b++) {
          const t = pot[b]! / this.g(i, b);
          if (t < best) {
            best = t;
            arg = b;
          }
        }
        if (arg < 0) return fail();
        this.setParent(i, arg);
        this.zeroRoot[i] = 0;
      }
      this.clearS();
      return true;
    }
    if (!this.zeroWorld || isRoot) return fail();
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
    for (let t = 0; t < npassed; t++) this.setParent(passed[t]!, bpOther[passed[t]!]!);
    for (let s = 0; s < S; s++) pot[sList[s]!] = pot[sList[s]!]! / umax;
    this.setParent(k, -1);
    this.reroot(argMax, -1);
    this.zeroRoot[argMax] = 0;
    this.setParent(rest, -1);
    this.zeroRoot[rest] = 1;
    pot[rest] = 1;
    this.zeroWorld = false;
    this.clearS();
    return true;
  }

  private siftDown(t: number, len: number, key: (b: number) => number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * t + 1;
      if (l >= len) return;
      const r = l + 1;
      const c = r < len && key(heap[r]!) < key(heap[l]!) ? r : l;
      if (!(key(heap[c]!) < key(heap[t]!))) return;
      const tmp = heap[c]!;
      heap[c] = heap[t]!;
      heap[t] = tmp;
      t = c;
    }
  }

  /**
   * The column (lower envelope of the N potentials over every secret), its objective and the certificate of the
   * current flows. In the zero state the column is 0 and `shape` the envelope of the relative potentials (max 1):
   * the next solve's warm start.
   */
  private result(v: Float64Array, pivots: number, status: ExactPricingStatus, zero: boolean): ExactPricingResult {
    const { n, p, q, parent, pot, fl, G } = this;
    const shape = new Float64Array(n);
    let top = 0;
    for (let i = 0; i < p; i++) if (!(parent[i]! < 0 && this.zeroRoot[i]) && pot[i]! > top) top = pot[i]!;
    const scale = zero ? (top > 0 ? 1 / top : 0) : 1;
    for (let i = 0; i < p; i++) {
      if (parent[i]! < 0 && this.zeroRoot[i]) continue;
      const ri = Math.min(1, Math.max(0, pot[i]! * scale));
      if (!(ri > 0)) continue;
      const row = this.rowOf[i]!;
      for (let x = 0; x < n; x++) {
        const t = ri * G[row + x]!;
        if (t > shape[x]!) shape[x] = t;
      }
    }
    const r = zero ? new Float64Array(n) : shape;
    let objective = 0;
    for (let x = 0; x < n; x++) objective += v[x]! * r[x]!;
    // The certificate: flows on the tree arcs, clipped at 0.
    let arcs = 0;
    for (let k = 0; k < p + q; k++) if (parent[k]! >= 0 && fl[k]! > 0) arcs++;
    const ca = new Int32Array(arcs);
    const cb = new Int32Array(arcs);
    const cy = new Float64Array(arcs);
    let t = 0;
    {
      for (let k = 0; k < p + q; k++) {
        const pa = parent[k]!;
        if (pa < 0 || !(fl[k]! > 0)) continue;
        const [i, j] = k < p ? [k, pa] : [pa, k];
        ca[t] = this.glob[i]!;
        cb[t] = this.glob[j]!;
        cy[t++] = fl[k]!;
      }
    }
    const bound = certificateBound(v, (a, b) => G[a * n + b]!, ca, cb, cy);
    return {
      objective,
      bound: Math.min(bound, objective),
      r,
      shape,
      pivots,
      status,
      certificate: { a: ca, b: cb, y: cy },
    };
  }
}

/** Outputs x secrets above which the previous columns are not kept for warm starts (memory: 8 bytes each). */
const MAX_WARM_ENTRIES = 40e6;

/**
 * The exact pricings of a decomposition's outputs on one thread: one ExactPricer and each output's last column
 * (its warm start; measured 5-7x fewer pivots than cold in the design, a neighbouring output's only 25-30%).
 * Outcomes in the shape of the LP pricing's: objective, certified bound, column, pivots.
 */
export class ExactOutputs {
  private readonly pricer: ExactPricer;
  private readonly last: (Float64Array | undefined)[];
  private readonly keep: boolean;
  pivots = 0;

  constructor(
    private readonly n: number,
    m: number,
    private readonly factors: Float64Array,
  ) {
    this.pricer = new ExactPricer(n, factors);
    this.last = new Array(m);
    this.keep = n * m <= MAX_WARM_ENTRIES;
  }

  solve(w: number, v: Float64Array): PricingOutcome {
    const res = this.pricer.solve(v, this.last[w]);
    if (this.keep) this.last[w] = res.shape;
    this.pivots += res.pivots;
    // The flows y_ba as multipliers mu_ab = g_ab y_ba on the rows r_a <= f_ab r_b (PricingCertificate).
    const { a, b, y } = res.certificate;
    const mu = new Float64Array(y.length);
    for (let k = 0; k < y.length; k++) mu[k] = this.factors[a[k]! * this.n + b[k]!]! * y[k]!;
    return {
      objective: res.objective,
      safeBound: res.bound,
      r: res.r,
      iterations: res.pivots,
      certificate: { a, b, mu },
    };
  }

  /**
   * Solves that reached the pivot cap once (re-solved cold) and twice (the point reached and its certificate returned).
   */
  get coldRetries(): number {
    return this.pricer.capped;
  }
  get failures(): number {
    return this.pricer.failed;
  }
}
