/**
 * The basis of exact pricing (exact-pricing.ts): a forest over the solve's nodes, N nodes 0..p-1 (v < 0) and Q
 * nodes p..p+q-1 (v > 0), each arc a tight row between an N node and a Q node, each tree rooted at an N node.
 * It keeps, besides the parents: child lists (doubly linked, so that a node re-hangs in O(1)), depths, each arc's
 * gain, the potentials (r on N, the envelope t_b = g_ab r_a on Q), the flows (fl[k]: on k's arc to its parent, or
 * its root's value) and each node's contribution to its parent's balance.
 *
 * A pivot moves one subtree and re-hangs a few nodes. Instead of two O(n) passes per pivot, the potentials are
 * recomputed on the moved subtree only (walk) and the flows on the paths from the re-hung nodes and their old
 * parents up to the roots (propagate: each dirty node's balance corrected by the change of its children's
 * contributions, deepest first). Rounding in those corrections accumulates, so the caller refreshes the whole
 * forest (refresh) every few pivots and always before it trusts an optimum or computes a certificate: the
 * certificate is computed from refreshed flows, and is valid for any flows anyway.
 */

export class PricingForest {
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSib: Int32Array;
  private readonly prevSib: Int32Array;
  private readonly depth: Int32Array;
  /** Gain of k's arc to its parent: g between its N end and its Q end. */
  readonly ga: Float64Array;
  readonly pot: Float64Array;
  readonly fl: Float64Array;
  /** Sum of the children's contributions (flow into an N node, or out of a Q node, through its children). */
  private readonly acc: Float64Array;
  /** k's contribution to its parent's acc, as counted there. */
  private readonly cto: Float64Array;
  private readonly order: Int32Array;
  private readonly mark: Uint8Array;
  private readonly starts: Int32Array;
  private readonly dirty: Int32Array;
  private readonly sorted: Int32Array;
  private readonly count: Int32Array;
  /** Trees at 0 (lone N roots or the zero state's tree) keep relative potentials; see exact-pricing.ts. */
  readonly zeroRoot: Uint8Array;
  zeroWorld = false;
  private p = 0;
  private q = 0;
  private GB: Float64Array = new Float64Array(0);
  private wt: Float64Array = new Float64Array(0);
  private tracking = false;
  private nStarts = 0;

  constructor(n: number) {
    this.parent = new Int32Array(n);
    this.firstChild = new Int32Array(n);
    this.nextSib = new Int32Array(n);
    this.prevSib = new Int32Array(n);
    this.depth = new Int32Array(n);
    this.ga = new Float64Array(n);
    this.pot = new Float64Array(n);
    this.fl = new Float64Array(n);
    this.acc = new Float64Array(n);
    this.cto = new Float64Array(n);
    this.order = new Int32Array(n);
    this.mark = new Uint8Array(n);
    this.starts = new Int32Array(4 * n + 8);
    this.dirty = new Int32Array(n);
    this.sorted = new Int32Array(n);
    this.count = new Int32Array(n + 1);
    this.zeroRoot = new Uint8Array(n);
  }

  /** This solve's sizes, its block GB[i*q + j] = g between N node i and Q node p + j, and the node weights |v|. */
  begin(p: number, q: number, GB: Float64Array, wt: Float64Array): void {
    this.p = p;
    this.q = q;
    this.GB = GB;
    this.wt = wt;
    this.tracking = false;
  }

  /** g between N node i and node k >= p. */
  private gain(x: number, pa: number): number {
    return x >= this.p ? this.GB[pa * this.q + x - this.p]! : this.GB[x * this.q + pa - this.p]!;
  }

  /** Child lists and arc gains rebuilt from the parents alone (after a crash or cold start wrote them directly). */
  relink(): void {
    const { parent, firstChild, nextSib, prevSib, ga } = this;
    const m = this.p + this.q;
    firstChild.fill(-1, 0, m);
    for (let k = m - 1; k >= 0; k--) {
      const pa = parent[k]!;
      if (pa < 0) continue;
      const h = firstChild[pa]!;
      nextSib[k] = h;
      prevSib[k] = -1;
      if (h >= 0) prevSib[h] = k;
      firstChild[pa] = k;
      ga[k] = this.gain(k, pa);
    }
  }

  /** Hang x below np (-1: x becomes a root); during a move the balances of both ends are kept for propagate. */
  setParent(x: number, np: number): void {
    const { parent, firstChild, nextSib, prevSib } = this;
    const old = parent[x]!;
    if (old >= 0) {
      const a = prevSib[x]!;
      const b = nextSib[x]!;
      if (a >= 0) nextSib[a] = b;
      else firstChild[old] = b;
      if (b >= 0) prevSib[b] = a;
      if (this.tracking) {
        this.acc[old]! -= this.cto[x]!;
        this.starts[this.nStarts++] = old;
      }
    }
    parent[x] = np;
    if (np >= 0) {
      const h = firstChild[np]!;
      nextSib[x] = h;
      prevSib[x] = -1;
      if (h >= 0) prevSib[h] = x;
      firstChild[np] = x;
      this.ga[x] = this.gain(x, np);
    }
    if (this.tracking) {
      this.cto[x] = 0;
      this.starts[this.nStarts++] = x;
    }
  }

  /** Re-root the tree containing x at x and hang it below `to` (-1: x becomes a root). */
  reroot(x: number, to: number): void {
    let prev = to;
    let cur = x;
    for (;;) {
      const nxt = this.parent[cur]!;
      this.setParent(cur, prev);
      if (nxt < 0) break;
      prev = cur;
      cur = nxt;
    }
  }

  /** The flow of k's arc (or its root's value) from its balance, and its contribution to its parent's. */
  private flowOf(k: number): number {
    const pa = this.parent[k]!;
    const d = this.wt[k]! - this.acc[k]!;
    if (pa < 0) {
      // N root: z = demand - inflow (at 1), or e = inflow - demand (at 0).
      this.fl[k] = this.zeroWorld || this.zeroRoot[k] ? -d : d;
      return 0;
    }
    if (k >= this.p) {
      this.fl[k] = d;
      return this.ga[k]! * d;
    }
    const f = d / this.ga[k]!;
    this.fl[k] = f;
    return f;
  }

  /**
   * Potentials top-down (exact ties along tree arcs), flows bottom-up, depths; false when some node is not reached (a
   * cycle).
   */
  refresh(): boolean {
    const { parent, order, acc, cto, p } = this;
    const m = p + this.q;
    let len = 0;
    for (let k = m - 1; k >= 0; k--) if (parent[k]! < 0) order[len++] = k;
    len = this.descend(len);
    if (len !== m) return false;
    acc.fill(0, 0, m);
    for (let t = m - 1; t >= 0; t--) {
      const k = order[t]!;
      const c = this.flowOf(k);
      cto[k] = c;
      const pa = parent[k]!;
      if (pa >= 0) acc[pa]! += c;
    }
    this.tracking = false;
    return true;
  }

  /** Start a move: from here every setParent keeps the balances for propagate. */
  startMove(): void {
    this.tracking = true;
    this.nStarts = 0;
  }

  /** Mark k's flow formula as changed (a root leaving or entering the state at 0). */
  touch(k: number): void {
    if (this.tracking) this.starts[this.nStarts++] = k;
  }

  /** Potentials and depths of the subtree under `top` recomputed from its parent, top-down (a moved subtree). */
  walk(top: number): void {
    this.order[0] = top;
    this.descend(1);
  }

  /**
   * End a move (after walk on what moved): the flows of every node whose balance or arc changed and of their
   * ancestors, deepest first, each passing the change of its contribution to its parent.
   */
  propagate(): void {
    const { parent, mark, dirty, sorted, count, depth, acc, cto, starts } = this;
    let nd = 0;
    let maxDepth = 0;
    for (let s = 0; s < this.nStarts; s++) {
      for (let x = starts[s]!; x >= 0 && !mark[x]; x = parent[x]!) {
        mark[x] = 1;
        dirty[nd++] = x;
        if (depth[x]! > maxDepth) maxDepth = depth[x]!;
      }
    }
    count.fill(0, 0, maxDepth + 2);
    for (let t = 0; t < nd; t++) count[maxDepth - depth[dirty[t]!]! + 1]!++;
    for (let d = 1; d <= maxDepth + 1; d++) count[d]! += count[d - 1]!;
    for (let t = 0; t < nd; t++) sorted[count[maxDepth - depth[dirty[t]!]!]!++] = dirty[t]!;
    for (let t = 0; t < nd; t++) {
      const k = sorted[t]!;
      mark[k] = 0;
      const c = this.flowOf(k);
      const pa = parent[k]!;
      if (pa >= 0) acc[pa]! += c - cto[k]!;
      cto[k] = c;
    }
    this.tracking = false;
    this.nStarts = 0;
  }
  /**
   * Potentials and depths top-down from the `len` nodes queued in `order` (roots or a moved subtree's top), their
   * subtrees queued behind them; returns how many were reached.
   */
  private descend(len: number): number {
    const { parent, firstChild, nextSib, order, pot, depth, ga, p } = this;
    for (let t = 0; t < len; t++) {
      const k = order[t]!;
      const pa = parent[k]!;
      if (pa < 0) {
        depth[k] = 0;
        if (!this.zeroWorld && !this.zeroRoot[k]) pot[k] = 1;
      } else {
        depth[k] = depth[pa]! + 1;
        pot[k] = k >= p ? pot[pa]! * ga[k]! : pot[pa]! / ga[k]!;
      }
      for (let c = firstChild[k]!; c >= 0; c = nextSib[c]!) order[len++] = c;
    }
    return len;
  }
}
