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
 *
 * Here the solve, its pivots and its result; the solve's nodes, block of factors and forest in exact-block.ts, the
 * ratio test in exact-ratio-test.ts, the cold start and the crash in exact-crash.ts, the zero state in
 * exact-zero-state.ts, one output's warm starts in exact-outputs.ts.
 */
import { MechError } from '../../../src-shared/errors';
import { ExactBlock } from './exact-block';
import { BasisCrash } from './exact-crash';
import { certificateBound, type PricingFactors } from './exact-pricing-factors';
import { RatioTest } from './exact-ratio-test';
import { moveWithoutStop } from './exact-zero-state';

export {
  EXACT_PRICING_MAX_SECRETS,
  certificateBound,
  closurePricingFactors,
  exactPricingFactors,
} from './exact-pricing-factors';

/** Relative tolerance of the flows and the objective slopes (times max |v|). */
const TOLERANCE = 1e-12;
/** Pivots between two refreshes of the whole forest (the pivots in between update it incrementally). */
const REFRESH = 32;

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
 * metric (the model's factors, or the shortest-path closure of a spanner's), or the same as PricingFactors (a grid's
 * by offset). Buffers are reused between solves.
 */
export class ExactPricer {
  private readonly s: ExactBlock;
  private readonly ratio: RatioTest;
  private readonly start: BasisCrash;
  /** Solves that reached the pivot cap (then re-solved cold), and solves that reached it twice. */
  capped = 0;
  failed = 0;

  /** One row of factors (the envelope's), and the identity list of secrets (made on first use). */
  private readonly rowBuf: Float64Array;
  private identity: Int32Array | null = null;

  constructor(
    readonly n: number,
    G: Float64Array | PricingFactors,
  ) {
    this.s = new ExactBlock(n, G);
    this.rowBuf = new Float64Array(n);
    this.ratio = new RatioTest(this.s);
    this.start = new BasisCrash(this.s, this.ratio);
  }

  /**
   * The exact pricing of v (length n), warm-started from `warm` (a previous column of the same output, length n)
   * when given. The returned r is a fresh array.
   */
  solve(v: Float64Array, warm?: Float64Array | null): ExactPricingResult {
    return this.solveOn(v, warm, true);
  }

  /**
   * The same solve for its bound and objective only: r and shape are the envelope over the solve's own nodes (v != 0),
   * 0 elsewhere, so r is no column of P (cost: p (p + q) instead of p n, for a bound over a window of a large grid).
   */
  solveBound(v: Float64Array, warm?: Float64Array | null): ExactPricingResult {
    return this.solveOn(v, warm, false);
  }

  private solveOn(v: Float64Array, warm: Float64Array | null | undefined, whole: boolean): ExactPricingResult {
    const n = this.n;
    const blk = this.s;
    const { glob } = blk;
    let p = 0;
    let vmax = 0;
    for (let x = 0; x < n; x++) if (v[x]! < 0) glob[p++] = x;
    let q = p;
    for (let x = 0; x < n; x++) {
      const t = v[x]!;
      if (!Number.isFinite(t))
        throw new MechError('internal', `exact pricing: objective entry ${x} is ${t}, not a finite number`);
      if (t > 0) glob[q++] = x;
      vmax = Math.max(vmax, Math.abs(t));
    }
    blk.p = p;
    blk.q = q - p;
    for (let k = 0; k < q; k++) blk.wt[k] = Math.abs(v[glob[k]!]!);
    blk.tol = TOLERANCE * vmax;
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
    if (blk.q === 0) {
      // Every entry wants r = 1: the box optimum sum v, certified by y = 0.
      blk.zeroWorld = false;
      for (let i = 0; i < p; i++) {
        blk.parent[i] = -1;
        blk.pot[i] = 1;
        blk.zeroRoot[i] = 0;
      }
      return this.result(v, 0, 'optimal', false, whole);
    }
    blk.fillBlock();
    blk.forest.begin(p, blk.q, blk.GB, blk.wt);
    const cap = 50 * q + 1000;
    let pivots = 0;
    if (!(warm && this.start.crash(warm))) this.start.cold();
    let out = this.iterate(cap, 'roots');
    pivots += out.pivots;
    if (!out.done) {
      this.capped++;
      this.start.cold();
      out = this.iterate(cap, 'overall');
      pivots += out.pivots;
      if (!out.done) this.failed++;
    }
    blk.forest.refresh();
    return this.result(v, pivots, out.done ? 'optimal' : 'capped', blk.zeroWorld, whole);
  }

  /** 1/f_ab. */
  factor(a: number, b: number): number {
    return this.s.G.at(a, b);
  }

  private everySecret(): Int32Array {
    if (!this.identity) {
      this.identity = new Int32Array(this.n);
      for (let x = 0; x < this.n; x++) this.identity[x] = x;
    }
    return this.identity;
  }

  /**
   * Pivots until no basic variable is negative (true) or the cap (false). The forest is updated incrementally
   * after each pivot and refreshed whole every REFRESH pivots, after a change of state, and before an optimum is
   * accepted (a leaving variable the drift hid is then found, and pivoting goes on).
   */
  private iterate(cap: number, rule: Rule): { done: boolean; pivots: number } {
    const { forest } = this.s;
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
      this.s.stale = false;
      if (!this.pivot(k)) return { done: false, pivots: it };
      if (this.s.stale || ++since >= REFRESH) {
        if (!forest.refresh()) return { done: false, pivots: it + 1 };
        since = 0;
      }
    }
    return { done: false, pivots: cap };
  }

  /** The leaving variable's node (its arc to its parent, or its root value), or -1 at an optimum. */
  private leaving(rule: Rule): number {
    const { p, q, parent, fl, pot, tol } = this.s;
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
    const blk = this.s;
    const ratio = this.ratio;
    const { p, parent, pot, wt, sList, zeroRoot, forest } = blk;
    const isRoot = parent[k]! < 0;
    const up = isRoot ? blk.zeroWorld || zeroRoot[k] === 1 : k >= p;
    const S = blk.markSubtree(k);
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
    const wholeUp = isRoot && blk.zeroWorld;
    if (up && (!blk.zeroWorld || wholeUp) && umax > 0) ratio.begin(1 / umax, -2);
    else ratio.begin(up ? Infinity : -Infinity, -1);
    if (!wholeUp) {
      if (up) ratio.up(S);
      else ratio.down(S);
    }
    const npassed = ratio.longStep(up, objS);
    if (ratio.sureNode === -1) return moveWithoutStop(blk, ratio, k, up, isRoot, S, umax, argMax, npassed);
    // Scale S to the stop (from 0: rho times the relative potentials).
    const rho = Math.max(0, ratio.sure);
    for (let s = 0; s < S; s++) pot[sList[s]!] = pot[sList[s]!]! * rho;
    const { passed, bpOther } = ratio;
    forest.startMove();
    for (let t = 0; t < npassed; t++) forest.setParent(passed[t]!, bpOther[passed[t]!]!);
    forest.setParent(k, -1); // the leaving arc (a root's variable: no arc)
    let top: number;
    if (ratio.sureNode === -2) {
      forest.reroot(argMax, -1);
      zeroRoot[argMax] = 0;
      forest.touch(argMax);
      if (wholeUp) {
        blk.zeroWorld = false;
        blk.stale = true;
      }
      top = argMax;
    } else if (up) {
      forest.reroot(ratio.sureOther, ratio.sureNode);
      top = ratio.sureOther;
    } else {
      forest.reroot(ratio.sureNode, ratio.sureOther);
      top = ratio.sureNode;
    }
    if (isRoot) {
      zeroRoot[k] = 0;
      forest.touch(k);
    }
    blk.clearS();
    if (blk.stale) return true;
    // What moved: S (with the leaves it took), the leaves it left; then the flows on their paths.
    forest.walk(top);
    if (!up) for (let t = 0; t < npassed; t++) forest.walk(passed[t]!);
    forest.propagate();
    return true;
  }

  /**
   * The column (lower envelope of the N potentials over every secret), its objective and the certificate of the
   * current flows. In the zero state the column is 0 and `shape` the envelope of the relative potentials (max 1):
   * the next solve's warm start.
   */
  private result(
    v: Float64Array,
    pivots: number,
    status: ExactPricingStatus,
    zero: boolean,
    whole: boolean,
  ): ExactPricingResult {
    const { n, p, q, parent, pot, fl, G, zeroRoot, glob } = this.s;
    const over = whole ? this.everySecret() : glob;
    const span = whole ? n : p + q;
    const gi = this.rowBuf;
    const shape = new Float64Array(n);
    let top = 0;
    for (let i = 0; i < p; i++) if (!(parent[i]! < 0 && zeroRoot[i]) && pot[i]! > top) top = pot[i]!;
    const scale = zero ? (top > 0 ? 1 / top : 0) : 1;
    for (let i = 0; i < p; i++) {
      if (parent[i]! < 0 && zeroRoot[i]) continue;
      const ri = Math.min(1, Math.max(0, pot[i]! * scale));
      if (!(ri > 0)) continue;
      G.gather(glob[i]!, over, 0, span, gi, 0);
      for (let k = 0; k < span; k++) {
        const x = over[k]!;
        const t = ri * gi[k]!;
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
        ca[t] = glob[i]!;
        cb[t] = glob[j]!;
        cy[t++] = fl[k]!;
      }
    }
    const bound = certificateBound(v, (a, b) => G.at(a, b), ca, cb, cy);
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
