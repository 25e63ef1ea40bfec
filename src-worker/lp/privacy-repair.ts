import { adjacency } from '../metric/shortest-paths';
import type { Domain } from '../metric/domain';
import { minPlusTransform } from '../measure/structured/min-plus-transform';
import { MinHeap } from '../numeric/min-heap';
import type { PrivacyConstraintGraph } from './privacy-constraint-graph';

/**
 * Make an LP solution satisfy its privacy constraints exactly (docs/lp.md, "Privacy repair"; docs/privacy-check.md
 * checks them to a 1e-9 relative tolerance, tighter than what an LP solver
 * guarantees for entries near 0: with a 1e-10 feasibility tolerance a vertex
 * may hold C[x][w] = 0 next to C[x'][w] = 1e-11, an infinite ratio).
 *
 * Per column w, every entry is raised to the least value the constraints
 * force from the others, L[x] = max(C[x][w], max over edges L[y] / f(x, y)),
 * a max-product shortest-path problem solved Dijkstra-style from the largest
 * entries down (f >= 1, so values only decrease along the propagation). The
 * raised channel satisfies every edge constraint exactly; renormalising the
 * rows then changes each ratio by at most the mass added to a row (about the
 * solver tolerance), well inside the check's tolerance. Returns the largest
 * mass added to a row.
 *
 * Guarantee: after the raise every constrained pair holds exactly; after
 * renormalisation each ratio moves by at most (1 + returned mass).
 * Precondition: f >= 1 on every edge (factors e^(eps d)), C >= 0 with
 * positive row sums. Tolerance: the result passes the 1e-9 check when the
 * returned mass is <= 1e-9 (up to rounding); callers report it (repairMass).
 * docs/lp.md "Privacy repair".
 */
export function repairPrivacy(C: Float64Array, n: number, m: number, graph: PrivacyConstraintGraph, f: Float64Array, lifter?: Lifter): number {
  const E = graph.from.length;
  const before = new Float64Array(n);
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let w = 0; w < m; w++) s += C[x * m + w]!;
    before[x] = s;
  }
  lifter ??= new ColumnLifter(n, graph.from, graph.to, f.subarray(0, E));
  const L = new Float64Array(n);
  for (let w = 0; w < m; w++) {
    for (let x = 0; x < n; x++) L[x] = C[x * m + w]!;
    lifter.lift(L);
    for (let x = 0; x < n; x++) C[x * m + w] = L[x]!;
  }
  let added = 0;
  for (let x = 0; x < n; x++) {
    let s = 0;
    for (let w = 0; w < m; w++) s += C[x * m + w]!;
    added = Math.max(added, s - before[x]!);
    for (let w = 0; w < m; w++) C[x * m + w] = C[x * m + w]! / s;
  }
  return added;
}

/**
 * Lift a column into the polytope of a constraint graph: every entry is
 * raised to the least value the rows force from the others,
 * L[x] = max(r[x], max over edges L[y] / f(x, y)) (max-product Dijkstra,
 * the raise of repairPrivacy above), so L satisfies every row exactly and L >= r.
 * Entries stay <= max r <= 1.
 */
export class ColumnLifter implements Lifter {
  private readonly start: Int32Array;
  private readonly next: Int32Array;
  private readonly f: Float64Array;
  private readonly heap: MinHeap;

  constructor(
    readonly n: number,
    from: Int32Array,
    to: Int32Array,
    factor: Float64Array,
  ) {
    const a = adjacency(n, from, to, factor);
    this.start = a.start;
    this.next = a.next;
    this.f = a.weight!;
    this.heap = new MinHeap(Math.min(2 * from.length + n + 1, 1 << 22));
  }

  /** Lift r in place; returns r. */
  lift(r: Float64Array): Float64Array {
    const { start, next, f, heap } = this;
    heap.clear();
    for (let x = 0; x < this.n; x++) if (r[x]! > 0) heap.push(-r[x]!, x);
    while (heap.size > 0) {
      const k = -heap.topKey();
      const u = heap.pop();
      if (k < r[u]!) continue;
      for (let t = start[u]!; t < start[u + 1]!; t++) {
        const v = next[t]!;
        const need = k / f[t]!;
        if (need > r[v]!) {
          r[v] = need;
          heap.push(-need, v);
        }
      }
    }
    return r;
  }
}

/** What lifts a column into a model's polytope (ColumnLifter on any pair graph, MetricLifter on all pairs of a grid). */
export interface Lifter {
  lift(r: Float64Array): Float64Array;
}

/**
 * The lift of ColumnLifter for the all-pairs model of a grid, without its n^2 pair rows: on all pairs with factors
 * e^min(eps d, cap) the least raise is L[x] = max(max_y r[y] e^(-eps d(x, y)), max r e^(-cap)) (a path of pair rows
 * is never shorter than the direct pair: d is a metric, and capped lengths add up to at least the cap), one
 * min-plus transform of -ln r with the metric (measure/structured/min-plus-transform.ts, quadtree on grids: about
 * n log n instead of the n^2 row scans of the max-product Dijkstra). Values agree with ColumnLifter to rounding (exp of a difference of logs: 1e-15
 * relative, far inside the privacy check's 1e-9).
 */
export class MetricLifter implements Lifter {
  private readonly f: Float64Array;

  constructor(
    private readonly domain: Domain,
    private readonly eps: number,
    private readonly cap: number,
  ) {
    this.f = new Float64Array(domain.n);
  }

  lift(r: Float64Array): Float64Array {
    const { f } = this;
    let max = 0;
    const support: number[] = [];
    for (let x = 0; x < f.length; x++) {
      const v = r[x]!;
      if (v > max) max = v;
      f[x] = v > 0 ? -Math.log(v) : Infinity;
      if (v > 0 && support.length <= FEW_ENTRIES) support.push(x);
    }
    if (!(max > 0)) return r;
    // A few positive entries (an output's indicator: the decomposition's start columns) are raised directly.
    if (support.length <= FEW_ENTRIES) return this.liftFew(r, support);
    const D = minPlusTransform(this.domain, this.eps, f).value;
    const floor = max * Math.exp(-this.cap);
    for (let x = 0; x < f.length; x++) {
      const need = Math.max(Math.exp(-D[x]!), floor);
      if (need > r[x]!) r[x] = need;
    }
    return r;
  }

  /** The lift from a few positive entries y: max over them of r_y e^(-min(eps d(x, y), cap)), O(n) each. */
  private liftFew(r: Float64Array, support: readonly number[]): Float64Array {
    const { domain, eps, cap } = this;
    const from = support.map((y) => r[y]!);
    for (let x = 0; x < r.length; x++) {
      let need = r[x]!;
      for (let k = 0; k < support.length; k++) need = Math.max(need, from[k]! * Math.exp(-Math.min(eps * domain.distance(x, support[k]!), cap)));
      r[x] = need;
    }
    return r;
  }
}

/** Positive entries up to which MetricLifter raises a column directly (O(n) per entry) rather than by the transform. */
const FEW_ENTRIES = 4;

/**
 * Each column lifted by whichever is cheaper for it: the min-plus transform (MetricLifter) costs about n log n on a
 * column with few positive entries but more than the n^2 row scans on a dense one, where the branch and bound
 * cannot prune (measured on a 50 x 50 grid: an indicator 2.8 ms against 28 ms, a dense private column 67 ms
 * against 26 ms). Both give the same lift (to rounding).
 */
export class SupportLifter implements Lifter {
  constructor(
    private readonly sparse: Lifter,
    private readonly dense: Lifter,
    /** Largest share of positive entries lifted by `sparse`. */
    private readonly share = 1 / 8,
  ) {}

  lift(r: Float64Array): Float64Array {
    let k = 0;
    for (let x = 0; x < r.length; x++) if (r[x]! > 0) k++;
    return k <= this.share * r.length ? this.sparse.lift(r) : this.dense.lift(r);
  }
}
