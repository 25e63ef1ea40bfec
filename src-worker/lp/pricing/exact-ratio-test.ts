import type { ExactBlock } from './exact-block';

/**
 * A triangle bound skips a breakpoint only when beyond the stop by this much (relative): rounding never decides a tie.
 */
const SKIP_SLACK = 1e-9;

/**
 * The ratio test of an exact pricing pivot (docs/lp.md, "Exact pricing"): how far the moving set S (ExactBlock's
 * marks) scales before a tight row of a Q node changes. It runs over every pair between S and the rest: moving up,
 * a leaf is skipped when a triangle bound of ln f puts its breakpoint beyond the sure stop. It is long-step: the Q
 * leaves crossing a boundary (a heap holds their breakpoints) are reassigned while the objective still improves, and
 * the first non-leaf breakpoint, the bound r = 1 or the leaf that would not improve stops the step.
 */
export class RatioTest {
  /** The stop's scale, its Q node (-1: none, -2: the bound r = 1) and the N node it ties with. */
  sure = 0;
  sureNode = -1;
  sureOther = -1;
  /** The leaves the long step passed (longStep's count of them), each reassigned to bpOther. */
  readonly passed: Int32Array;
  /** Each breakpoint's N node. */
  readonly bpOther: Int32Array;
  private readonly bpRho: Float64Array;
  private readonly heap: Int32Array;
  private readonly mBest: Float64Array;
  private readonly mArg: Int32Array;
  private readonly envA: Float64Array;
  private readonly sN: Int32Array;
  /** Leaf breakpoints in the heap. */
  private nb = 0;

  constructor(private readonly s: ExactBlock) {
    const n = s.n;
    this.passed = new Int32Array(n);
    this.bpOther = new Int32Array(n);
    this.bpRho = new Float64Array(n);
    this.heap = new Int32Array(n);
    this.mBest = new Float64Array(n);
    this.mArg = new Int32Array(n);
    this.envA = new Float64Array(n);
    this.sN = new Int32Array(n);
  }

  /** A new test whose stop is `sure` at `sureNode` (-1: none yet, -2: the bound r = 1) until a breakpoint is nearer. */
  begin(sure: number, sureNode: number): void {
    this.nb = 0;
    this.sure = sure;
    this.sureNode = sureNode;
    this.sureOther = -1;
  }

  /** The nearest stop moving up, leaf or not (the crash's first tie): its scale, Q node and N node. */
  nearest(): { rho: number; node: number; other: number } {
    const { bpRho, bpOther, heap } = this;
    let rho = this.sure;
    let node = this.sureNode;
    let other = this.sureOther;
    for (let t = 0; t < this.nb; t++) {
      const b = heap[t]!;
      if (bpRho[b]! < rho) {
        rho = bpRho[b]!;
        node = b;
        other = bpOther[b]!;
      }
    }
    return { rho, node, other };
  }

  /**
   * Record a breakpoint of Q node b against N node a at scale r: a leaf into the heap, a non-leaf as the sure stop if
   * nearer.
   */
  private breakpoint(b: number, a: number, r: number, up: boolean): void {
    if (this.s.forest.firstChild[b]! >= 0) {
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
   * S (its S first entries of sList) scales down: its Q nodes against the best N node outside S (rows of the block,
   * outer loop over the N nodes outside).
   */
  down(S: number): void {
    const { p, q, parent, pot, inS, sList, GB, zeroRoot } = this.s;
    const { mBest, mArg, passed } = this;
    const zeroWorld = this.s.zeroWorld;
    let sq = 0;
    for (let s = 0; s < S; s++) {
      const b = sList[s]!;
      if (b < p) continue;
      passed[sq++] = b;
      mBest[b] = 0;
      mArg[b] = -1;
    }
    for (let i = 0; i < p; i++) {
      if (inS[i] || (!zeroWorld && zeroRoot[i] && parent[i]! < 0)) continue;
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
  up(S: number): void {
    const { p, q, parent, pot, inS, sList, GB, GNN } = this.s;
    const { firstChild, ga } = this.s.forest;
    const { envA, sN, mBest: ub, mArg: cand } = this;
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
    const { q, pot, GB } = this.s;
    const sN = this.sN;
    let m = 0;
    let a = -1;
    const o = b - this.s.p;
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
   * Long step: the leaves nearer than the sure stop, nearest first, passed (into `passed`) while the slope objS
   * still improves; the first that would not improve becomes the stop (sure, sureNode, sureOther). Returns how many
   * passed.
   */
  longStep(up: boolean, objS: number): number {
    const { bpRho, bpOther, heap } = this;
    const { wt, pot } = this.s;
    let len = 0;
    for (let t = 0; t < this.nb; t++) {
      const b = heap[t]!;
      if (up ? bpRho[b]! <= this.sure : bpRho[b]! >= this.sure) heap[len++] = b;
    }
    const key = (b: number): number => (up ? bpRho[b]! : -bpRho[b]!);
    for (let t = (len >> 1) - 1; t >= 0; t--) this.siftDown(t, len, key);
    const tolObj = this.s.tol;
    let npassed = 0;
    while (len > 0) {
      const b = heap[0]!;
      const after = up ? objS + wt[b]! * pot[bpOther[b]!]! * this.s.g(bpOther[b]!, b) : objS - wt[b]! * pot[b]!;
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
}
