import { MechError } from '../../../src-shared/errors';
import { adjacency } from '../../metric/shortest-paths';
import type { Domain } from '../../metric/domain';
import { MinHeap } from '../../numeric/min-heap';
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
export function repairPrivacy(
  C: Float64Array,
  n: number,
  m: number,
  graph: PrivacyConstraintGraph,
  f: Float64Array,
  lifter?: Lifter,
): number {
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

/**
 * What lifts a column into a model's polytope (ColumnLifter on any pair graph, GridTableLifter on all pairs of a grid).
 */
export interface Lifter {
  lift(r: Float64Array): Float64Array;
}

/**
 * The all-pairs lift of a grid (L[x] = max(r[x], max_y r[y] e^(-min(eps d(x, y), cap))): a path of pair rows is never
 * shorter than the direct pair, d being a metric, and capped lengths add up to at least the cap) by direct
 * products: each positive entry y raises every x by a table of e^(-min(eps d, cap)) indexed by the offset (|dr|, |dc|),
 * which stays in the cache. k positive entries cost k n multiply-max; ColumnLifter's max-product Dijkstra streams its
 * n^2 pair rows (10 MB on 30 x 30) for every column, and the min-plus transform cannot prune a dense column
 * (30 x 30, dense pricing columns: about 1 ms against 5-7 ms a column).
 */
export class GridTableLifter implements Lifter {
  private readonly table: Float64Array;
  private readonly rows: number;
  private readonly cols: number;
  private readonly out: Float64Array;

  constructor(domain: Domain, eps: number, cap: number) {
    const grid = domain.structure.grid;
    if (!grid) throw new MechError('internal', `GridTableLifter needs a grid, got ${domain.spec}`);
    this.rows = grid.rows;
    this.cols = grid.cols;
    this.table = new Float64Array(grid.rows * grid.cols);
    // distance(0, dr * cols + dc) is the offset (dr, dc): the same distance the pair rows' factors are built from
    for (let dr = 0; dr < grid.rows; dr++)
      for (let dc = 0; dc < grid.cols; dc++)
        this.table[dr * grid.cols + dc] = Math.exp(-Math.min(eps * domain.distance(0, dr * grid.cols + dc), cap));
    this.out = new Float64Array(domain.n);
  }

  lift(r: Float64Array): Float64Array {
    const { out } = this;
    out.fill(0);
    let top = 0;
    for (let y = 1; y < r.length; y++) if (r[y]! > r[top]!) top = y;
    if (!(r[top]! > 0)) return r;
    this.raiseFrom(top, r[top]!);
    // An entry y that the entries processed before it already raise to its own value or above is skipped: for the
    // z that does, what y would give x, r[y] e^(-eps d(x, y)) <= r[z] e^(-eps (d(y, z) + d(x, y))) <= r[z] e^(-eps d(x,
    // z)), is there already (the triangle inequality). From the largest entry first, a pricing column (a vertex of P:
    // most entries tight against a larger one) raises from a few entries only.
    for (let y = 0; y < r.length; y++) if (r[y]! > out[y]!) this.raiseFrom(y, r[y]!);
    r.set(out);
    return r;
  }

  private raiseFrom(y: number, v: number): void {
    const { table, rows, cols, out } = this;
    const yr = Math.floor(y / cols);
    const yc = y - yr * cols;
    for (let xr = 0; xr < rows; xr++) {
      const t = (xr > yr ? xr - yr : yr - xr) * cols;
      const base = xr * cols;
      for (let xc = 0; xc < yc; xc++) out[base + xc] = Math.max(out[base + xc]!, v * table[t + yc - xc]!);
      for (let xc = yc; xc < cols; xc++) out[base + xc] = Math.max(out[base + xc]!, v * table[t + xc - yc]!);
    }
  }
}
