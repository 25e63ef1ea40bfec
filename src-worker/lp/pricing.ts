import { adjacency } from '../metric/shortest-paths';
import { MinHeap } from '../numeric/min-heap';
import type { LpOptions } from './lp-options';
import { MechError } from '../../src-shared/errors';
import { type LpSolution, PersistentLp } from './persistent-lp';
import { SparseLp } from './sparse-model';
import type { Basis } from 'highs';

/**
 * Pricing problems of the column decomposition (column-decomposition.ts):
 * for output w and duals lambda, min (c_w - lambda) . r over r in a polytope
 *   P_R = { r in [0,1]^n : r_a <= f r_b for every row (a, b, f) of R },
 * R a set of directed privacy rows. One HiGHS model holds R; only the
 * objective changes between outputs, each re-solved by primal simplex from
 * the basis that output had last time.
 *
 * Safe bound. The bound the decomposition certifies must not trust the
 * solver's optimality (on all pairs, factors up to e^18 made HiGHS report
 * pricing "optima" that were not, and a bound above the true optimum). For
 * any multipliers mu >= 0 on the rows, since A r <= 0 on P_R,
 *   min_{P_R} v . r >= min_{r in [0,1]^n} (v + A' mu) . r = sum_x min(0, (v + A' mu)_x),
 * a weak-duality bound that holds whatever mu is. With mu = max(0, -y) from
 * HiGHS' row duals y (<= 0 on a <= row when minimising) it equals the LP
 * optimum when the solve is exact and degrades gracefully when it is not.
 * It is computed here in float64 from the rows themselves.
 */
export interface PricingRows {
  /** Directed rows r[from] <= factor r[to]. */
  from: Int32Array;
  to: Int32Array;
  factor: Float64Array;
}

export interface PricingOutcome {
  /** Solver objective (may be slightly off) and the safe lower bound on min over P_R (see above). */
  objective: number;
  safeBound: number;
  /** The pricing solution clamped to [0, 1] (a point of P_R up to the solver tolerance). */
  r: Float64Array;
  iterations: number;
}

/** Outputs x (secrets + rows) above which per-output bases are not kept (memory); pricing then warm-starts from the previous output's basis. */
export const MAX_STORED_BASIS_ENTRIES = 60e6;

export class PricingModel {
  private rowFrom: Int32Array;
  private rowTo: Int32Array;
  private rowF: Float64Array;
  private rowCount: number;
  private readonly bases: (Basis | undefined)[];
  private readonly d: Float64Array;

  private constructor(
    private readonly lp: PersistentLp,
    readonly n: number,
    private readonly m: number,
    rows: PricingRows,
    private readonly storeBases: boolean,
  ) {
    this.rowCount = rows.from.length;
    this.rowFrom = rows.from.slice();
    this.rowTo = rows.to.slice();
    this.rowF = rows.factor.slice();
    this.bases = new Array(m);
    this.d = new Float64Array(n);
  }

  static async open(n: number, m: number, rows: PricingRows, what: string, options?: LpOptions): Promise<PricingModel> {
    const R = rows.from.length;
    const lp = new SparseLp(n, Math.max(R, 1), 2 * R);
    lp.colUpper.fill(1);
    for (let k = 0; k < R; k++) lp.addRow2(-Infinity, 0, rows.from[k]!, 1, rows.to[k]!, -rows.factor[k]!);
    // Objectives change between solves, the feasible set never: primal simplex keeps feasibility.
    const opts: LpOptions = {
      signal: options?.signal,
      cancelFlag: options?.cancelFlag,
      solver: 'simplex',
      formulation: 'primal',
      highsOptions: { simplex_strategy: 4, ...options?.highsOptions },
    };
    const p = await PersistentLp.open(lp, `${what} (pricing)`, opts);
    return new PricingModel(p, n, m, rows, m * (n + R) <= MAX_STORED_BASIS_ENTRIES);
  }

  get rows(): number {
    return this.rowCount;
  }

  /**
   * Solve the pricing LP of output w with objective v (length n). When the
   * safe bound does not certify the solver's optimum (to 1e-9 relative, or
   * retryTolerance absolute when larger: the caller's share of its gap), the
   * solve is repeated cold: HiGHS occasionally reports a warm-started,
   * degenerate vertex (e.g. r = 0 after zero iterations) as optimal with
   * reduced costs of -1e-3 left (seen on all pairs at eps 2.5).
   */
  solve(w: number, v: Float64Array, retryTolerance = 0): PricingOutcome {
    const n = this.n;
    this.lp.setCosts(v);
    const b = this.storeBases ? this.bases[w] : undefined;
    if (b) this.lp.setBasis(b);
    let s: LpSolution | null = this.tryRun();
    let safe = s ? this.safeBound(v) : -Infinity;
    let iterations = s ? s.iterations : 0;
    if (!s || safe < s.objective - Math.max(retryTolerance, 1e-9 * (1 + Math.abs(s.objective)))) {
      this.lp.clearSolver();
      s = this.tryRun();
      if (s) {
        iterations += s.iterations;
        safe = this.safeBound(v);
      }
      this.coldRetries++;
    }
    if (!s) {
      // The solver failed twice (HiGHS once called this box-bounded LP
      // unbounded after rows were appended): no column, and the box bound
      // sum_x min(0, v_x) (mu = 0), still valid. The next solve starts cold.
      this.failures++;
      this.lp.clearSolver();
      if (this.storeBases) this.bases[w] = undefined;
      let box = 0;
      for (let x = 0; x < n; x++) if (v[x]! < 0) box += v[x]!;
      return { objective: box, safeBound: box, r: new Float64Array(n), iterations };
    }
    if (this.storeBases) this.bases[w] = this.lp.getBasis();
    const r = new Float64Array(n);
    for (let x = 0; x < n; x++) {
      const t = s.colValue[x]!;
      r[x] = t < 0 ? 0 : t > 1 ? 1 : t;
    }
    return { objective: s.objective, safeBound: Math.min(safe, s.objective), r, iterations };
  }

  /** Pricing solves repeated cold because the warm one was not certified or failed, and solves that failed twice. */
  coldRetries = 0;
  failures = 0;

  /** run(), with a numerical failure of HiGHS (status unbounded/unknown on a bounded LP) as null; cancellation and memory errors pass. */
  private tryRun(): LpSolution | null {
    try {
      return this.lp.run(false);
    } catch (e) {
      if (e instanceof MechError && (e.code === 'infeasible' || e.code === 'internal')) return null;
      throw e;
    }
  }

  /** sum_x min(0, (v + A' mu)_x) with mu = max(0, -y), y the row duals of the last solve. */
  private safeBound(v: Float64Array): number {
    const n = this.n;
    const d = this.d;
    d.set(v);
    if (this.rowCount > 0) {
      const y = this.lp.rowDuals();
      for (let k = 0; k < this.rowCount; k++) {
        const mu = -y[k]!;
        if (!(mu > 0)) continue;
        d[this.rowFrom[k]!]! += mu;
        d[this.rowTo[k]!]! -= this.rowF[k]! * mu;
      }
    }
    let safe = 0;
    for (let x = 0; x < n; x++) if (d[x]! < 0) safe += d[x]!;
    return safe;
  }

  /** Append rows r[from] <= f r[to]; stored bases get the new rows' slacks as basic. */
  addRows(rows: PricingRows): void {
    const k = rows.from.length;
    if (k === 0) return;
    const lo = new Float64Array(k).fill(-Infinity);
    const hi = new Float64Array(k);
    const st = new Int32Array(k + 1);
    const ix = new Int32Array(2 * k);
    const vv = new Float64Array(2 * k);
    for (let i = 0; i < k; i++) {
      st[i + 1] = 2 * i + 2;
      ix[2 * i] = rows.from[i]!;
      vv[2 * i] = 1;
      ix[2 * i + 1] = rows.to[i]!;
      vv[2 * i + 1] = -rows.factor[i]!;
    }
    this.lp.addRows(lo, hi, st, ix, vv);
    const total = this.rowCount + k;
    if (total > this.rowFrom.length) {
      const cap = Math.max(total, 2 * this.rowFrom.length);
      const f = new Int32Array(cap);
      f.set(this.rowFrom.subarray(0, this.rowCount));
      const t = new Int32Array(cap);
      t.set(this.rowTo.subarray(0, this.rowCount));
      const ff = new Float64Array(cap);
      ff.set(this.rowF.subarray(0, this.rowCount));
      this.rowFrom = f;
      this.rowTo = t;
      this.rowF = ff;
    }
    this.rowFrom.set(rows.from, this.rowCount);
    this.rowTo.set(rows.to, this.rowCount);
    this.rowF.set(rows.factor, this.rowCount);
    this.rowCount = total;
    if (this.storeBases) {
      for (let w = 0; w < this.m; w++) {
        const b = this.bases[w];
        if (!b) continue;
        const rs = new Int32Array(total).fill(1); // basic slacks for the new rows
        rs.set(b.rowStatus.subarray(0, total - k));
        this.bases[w] = { colStatus: b.colStatus, rowStatus: rs } as Basis;
      }
    }
  }

  dispose(): void {
    this.lp.dispose();
  }
}

/**
 * Lift a column into the polytope of a constraint graph: every entry is
 * raised to the least value the rows force from the others,
 * L[x] = max(r[x], max over edges L[y] / f(x, y)) (max-product Dijkstra,
 * as in privacy-repair.ts), so L satisfies every row exactly and L >= r.
 * Entries stay <= max r <= 1.
 */
export class ColumnLifter {
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
