import { type LpOptions, warmSimplexOptions } from '../solver/lp-options';
import { MechError } from '../../../src-shared/errors';
import { type LpSolution, PersistentLp, type RunStop, runStopReason } from '../solver/persistent-lp';
import { SparseLp, pairRowsCsr } from '../solver/sparse-model';
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
  /**
   * The multipliers that prove safeBound (see PricingCertificate); what a remote pricing sends for its master to
   * recompute the bound.
   */
  certificate?: PricingCertificate;
}

/**
 * Multipliers mu_k >= 0 on rows r[a_k] <= f r[b_k] of the pricing polytope: min v . r >= sum_x min(0, (v + A' mu)_x),
 * with (A' mu)_a += mu and (A' mu)_b -= f mu, whatever mu is (weak duality). A master that knows the rows' factors
 * recomputes the bound from them alone (certifiedBound).
 */
export interface PricingCertificate {
  a: Int32Array;
  b: Int32Array;
  mu: Float64Array;
}

/**
 * Outputs x (secrets + rows) above which per-output bases are not kept (memory); pricing then warm-starts from the
 * previous output's basis.
 */
const MAX_STORED_BASIS_ENTRIES = 60e6;

/**
 * How the pricing LP is handed to HiGHS. 'dual' (default): the LP dual
 *   min sum_x u_x  s.t.  u_x + sum_{rows k from x} mu_k - sum_{rows k to x} f_k mu_k >= -v_x,  u, mu >= 0,
 * n rows (one per secret) and n + R columns (u, then mu); an output's v only
 * moves the row bounds, so each solve is a warm dual simplex from that
 * output's basis, and the basis has n rows instead of R. The pricing point r
 * is read from the row duals (r_x in [0, 1], r_a <= f r_b by dual
 * feasibility), mu from the columns. 'primal': the pricing LP as written
 * above (R rows, objective changes, primal simplex).
 */
export type PricingForm = 'primal' | 'dual';
/**
 * Measured on the 20 x 20 city (spanner, eps 1, 1 thread, same path and 32 rounds either way): pricing 16.8 s dual,
 * 34.1 s primal.
 */
export const DEFAULT_PRICING_FORM: PricingForm = 'dual';

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
    private readonly form: PricingForm,
  ) {
    this.rowCount = rows.from.length;
    this.rowFrom = rows.from.slice();
    this.rowTo = rows.to.slice();
    this.rowF = rows.factor.slice();
    this.bases = new Array(m);
    this.d = new Float64Array(n);
  }

  static async open(
    n: number,
    m: number,
    rows: PricingRows,
    what: string,
    options?: LpOptions,
    form: PricingForm = DEFAULT_PRICING_FORM,
  ): Promise<PricingModel> {
    const R = rows.from.length;
    const store = m * (n + R) <= MAX_STORED_BASIS_ENTRIES;
    // Dual form: the bounds change between solves, dual simplex keeps dual feasibility. Primal form: the objective
    // changes, the feasible set never, primal simplex keeps feasibility.
    const p =
      form === 'dual'
        ? await PersistentLp.open(dualPricingLp(n, rows), `${what} (pricing)`, warmSimplexOptions(options, 1))
        : await PersistentLp.open(primalPricingLp(n, rows), `${what} (pricing)`, warmSimplexOptions(options, 4));
    p.setOption('simplex_iteration_limit', pricingIterationCap(n, R));
    return new PricingModel(p, n, m, rows, store, form);
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
   * reduced costs of -1e-3 left (seen on all pairs at eps 2.5). A solve
   * past pricingIterationCap iterations counts as failed (and is retried
   * cold).
   */
  solve(w: number, v: Float64Array, retryTolerance = 0): PricingOutcome {
    // Without a RunStop every solve has an outcome.
    return this.solveUntil(w, v, retryTolerance)!;
  }

  /**
   * solve(), ended at the solver's next checkpoint when `stop` (a deadline, a stop test) says so: null then (no
   * outcome).
   */
  solveUntil(w: number, v: Float64Array, retryTolerance: number, stop?: RunStop): PricingOutcome | null {
    const n = this.n;
    if (this.form === 'dual') {
      for (let x = 0; x < n; x++) this.d[x] = -v[x]!;
      this.lp.setRowLowerBounds(this.d);
    } else this.lp.setCosts(v);
    const b = this.storeBases ? this.bases[w] : undefined;
    if (b) this.lp.setBasis(b);
    let s = this.tryRun(v, stop);
    if (s === 'stopped') return this.interrupted(w);
    let iterations = s ? s.iterations : 0;
    if (!s || s.safe < s.objective - Math.max(retryTolerance, 1e-9 * (1 + Math.abs(s.objective)))) {
      this.lp.clearSolver();
      s = this.tryRun(v, stop);
      if (s === 'stopped') return this.interrupted(w);
      if (s) iterations += s.iterations;
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
      const none = { a: new Int32Array(0), b: new Int32Array(0), mu: new Float64Array(0) };
      return { objective: box, safeBound: box, r: new Float64Array(n), iterations, certificate: none };
    }
    if (this.storeBases) this.bases[w] = this.lp.getBasis();
    return {
      objective: s.objective,
      safeBound: Math.min(s.safe, s.objective),
      r: s.r,
      iterations,
      certificate: s.certificate,
    };
  }

  /**
   * A solve ended by its RunStop: the next solve of output w starts cold (its stored basis is that of an unfinished
   * run).
   */
  private interrupted(w: number): null {
    this.lp.clearSolver();
    if (this.storeBases) this.bases[w] = undefined;
    return null;
  }

  /** Pricing solves repeated cold because the warm one was not certified or failed, and solves that failed twice. */
  coldRetries = 0;
  failures = 0;

  /**
   * One run, read in the pricing LP's terms: its objective, the point r
   * (clamped to [0, 1]) and the safe bound; a numerical failure of HiGHS
   * (status unbounded/unknown on a bounded LP) or the iteration cap is null,
   * a stop by `stop` is 'stopped'; cancellation and memory errors pass.
   */
  private tryRun(
    v: Float64Array,
    stop?: RunStop,
  ):
    | { objective: number; safe: number; r: Float64Array; iterations: number; certificate: PricingCertificate }
    | null
    | 'stopped' {
    let s: LpSolution;
    try {
      s = this.lp.run(false, stop);
    } catch (e) {
      if (runStopReason(e)) return 'stopped';
      if (e instanceof MechError && (e.code === 'infeasible' || e.code === 'internal')) return null;
      if (e instanceof MechError && e.code === 'too-large' && e.detail?.['reason'] === 'limit') return null;
      throw e;
    }
    const n = this.n;
    const dual = this.form === 'dual';
    // Dual form: r is the row duals, mu the columns after the n u's; primal form: mu = max(0, -y), y its row duals.
    const point = dual ? this.lp.rowDuals() : s.colValue;
    const r = new Float64Array(n);
    for (let x = 0; x < n; x++) {
      const t = point[x]!;
      r[x] = t < 0 ? 0 : t > 1 ? 1 : t;
    }
    const mu = dual ? s.colValue.subarray(n) : this.lp.rowDuals();
    const { safe, certificate } = this.safeBound(v, mu, dual ? 1 : -1);
    return { objective: dual ? -s.objective : s.objective, safe, r, iterations: s.iterations, certificate };
  }

  /**
   * sum_x min(0, (v + A' mu)_x) with mu = max(0, sign * m) (weak duality: valid for any mu >= 0), and those mu as a
   * certificate.
   */
  private safeBound(v: Float64Array, m: Float64Array, sign: number): { safe: number; certificate: PricingCertificate } {
    const n = this.n;
    const d = this.d;
    d.set(v);
    let k0 = 0;
    for (let k = 0; k < this.rowCount; k++) if (sign * m[k]! > 0) k0++;
    const certificate = { a: new Int32Array(k0), b: new Int32Array(k0), mu: new Float64Array(k0) };
    let t = 0;
    for (let k = 0; k < this.rowCount; k++) {
      const mu = sign * m[k]!;
      if (!(mu > 0)) continue;
      d[this.rowFrom[k]!]! += mu;
      d[this.rowTo[k]!]! -= this.rowF[k]! * mu;
      certificate.a[t] = this.rowFrom[k]!;
      certificate.b[t] = this.rowTo[k]!;
      certificate.mu[t++] = mu;
    }
    let safe = 0;
    for (let x = 0; x < n; x++) if (d[x]! < 0) safe += d[x]!;
    return { safe, certificate };
  }

  /** Append rows r[from] <= f r[to]; stored bases get the new rows' slacks as basic. */
  addRows(rows: PricingRows): void {
    const k = rows.from.length;
    if (k === 0) return;
    const { lower, upper, starts, indices, values } = pairRowsCsr(rows.from, rows.to, rows.factor, k);
    // Dual form: a pricing row is a mu column (the same two entries, CSC); primal form: a row.
    if (this.form === 'dual') this.lp.addColumns(new Float64Array(k), starts, indices, values);
    else this.lp.addRows(lower, upper, starts, indices, values);
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
    this.lp.setOption('simplex_iteration_limit', pricingIterationCap(this.n, total));
    if (this.storeBases) {
      for (let w = 0; w < this.m; w++) {
        const b = this.bases[w];
        if (!b) continue;
        if (this.form === 'dual') {
          const cs = new Int32Array(this.n + total); // new mu columns nonbasic at 0 (status 0: lower)
          cs.set(b.colStatus.subarray(0, this.n + total - k));
          this.bases[w] = { colStatus: cs, rowStatus: b.rowStatus } as Basis;
        } else {
          const rs = new Int32Array(total).fill(1); // basic slacks for the new rows
          rs.set(b.rowStatus.subarray(0, total - k));
          this.bases[w] = { colStatus: b.colStatus, rowStatus: rs } as Basis;
        }
      }
    }
  }

  dispose(): void {
    this.lp.dispose();
  }
}

/**
 * Simplex iterations after which one pricing solve counts as failed (retried cold, then the box bound):
 * warm solves take a few times n + rows at most, but a warm dual simplex on the all-pairs model of the
 * 20 x 20 city once ran 133,670 iterations (14 s; 5-8k for its neighbours).
 */
function pricingIterationCap(n: number, rows: number): number {
  return 2 * (n + rows) + 1000;
}

/** The pricing LP as written: r in [0, 1]^n, one row r_a - f r_b <= 0 per pair row (objective set per solve). */
function primalPricingLp(n: number, rows: PricingRows): SparseLp {
  const R = rows.from.length;
  const lp = new SparseLp(n, Math.max(R, 1), 2 * R);
  lp.colUpper.fill(1);
  for (let k = 0; k < R; k++) lp.addRow2(-Infinity, 0, rows.from[k]!, 1, rows.to[k]!, -rows.factor[k]!);
  return lp;
}

/**
 * The dual pricing LP (see PricingForm): columns u (cost 1) then mu (one per row, cost 0), one >= row per secret
 * (bounds set per solve).
 */
function dualPricingLp(n: number, rows: PricingRows): SparseLp {
  const R = rows.from.length;
  const count = new Int32Array(n + 1);
  for (let k = 0; k < R; k++) {
    count[rows.from[k]! + 1]!++;
    count[rows.to[k]! + 1]!++;
  }
  for (let x = 0; x < n; x++) count[x + 1]! += count[x]!;
  const idx = new Int32Array(2 * R);
  const val = new Float64Array(2 * R);
  const at = count.slice(0, n);
  for (let k = 0; k < R; k++) {
    const a = rows.from[k]!;
    idx[at[a]!] = n + k;
    val[at[a]!++] = 1;
    const b = rows.to[k]!;
    idx[at[b]!] = n + k;
    val[at[b]!++] = -rows.factor[k]!;
  }
  const lp = new SparseLp(n + R, n, 2 * R + n);
  for (let x = 0; x < n; x++) lp.colCost[x] = 1;
  const ri: number[] = [];
  const rv: number[] = [];
  for (let x = 0; x < n; x++) {
    ri.length = 0;
    rv.length = 0;
    ri.push(x);
    rv.push(1);
    for (let t = count[x]!; t < count[x + 1]!; t++) {
      ri.push(idx[t]!);
      rv.push(val[t]!);
    }
    lp.addRow(0, Infinity, ri, rv);
  }
  return lp;
}

/**
 * The pricing models of one engine (this thread or one pricing worker): the
 * outputs in groups of `groupSize` consecutive outputs, one PricingModel per
 * group (with a warm-start basis per output), each holding its own rows. With
 * all pairs in the model (spanner, edges) there is one group of every output.
 * With lazy rows (the exact all-pairs model) each group holds the seed plus
 * the rows its own outputs' solutions violated: every group's LP is still a
 * relaxation of P, so each safe bound stays valid, and a pricing LP carries
 * a few thousand rows instead of every row any output needed (measured on the
 * 20 x 20 city, all pairs, eps 1, one thread: one shared model had 28k rows
 * after 5 rounds and a round took 16-40 s; groups of 4 outputs, 1.7k own rows
 * each at the end, 4 s a round: gap 8.6e-5 after 200 s and 53 rounds, where
 * the shared model had reached 1.9% after 600 s on two threads).
 * Only the groups `owns` accepts are opened (a worker opens its own).
 */
export class PricingGroups {
  private constructor(
    private readonly models: Map<number, PricingModel>,
    readonly groupSize: number,
  ) {}

  static async open(
    n: number,
    m: number,
    rows: PricingRows,
    groupSize: number,
    owns: (group: number) => boolean,
    what: string,
    options?: LpOptions,
    form: PricingForm = DEFAULT_PRICING_FORM,
  ): Promise<PricingGroups> {
    if (!(Number.isInteger(groupSize) && groupSize >= 1))
      throw new MechError('internal', `${what}: pricing group size ${groupSize}`);
    const models = new Map<number, PricingModel>();
    const groups = Math.ceil(m / groupSize);
    try {
      for (let g = 0; g < groups; g++) {
        if (!owns(g)) continue;
        const size = Math.min(groupSize, m - g * groupSize);
        const label = groups > 1 ? `${what} (outputs ${g * groupSize + 1}-${g * groupSize + size})` : what;
        models.set(g, await PricingModel.open(n, size, rows, label, options, form));
      }
    } catch (e) {
      for (const model of models.values()) model.dispose();
      throw e;
    }
    return new PricingGroups(models, groupSize);
  }

  /** The group of output w. */
  groupOf(w: number): number {
    return outputGroup(w, this.groupSize);
  }

  /** PricingModel.solveUntil for output w, on its group's model. */
  solveUntil(w: number, v: Float64Array, retryTolerance: number, stop?: RunStop): PricingOutcome | null {
    const g = this.groupOf(w);
    const model = this.models.get(g);
    if (!model) throw new MechError('internal', `pricing: output ${w} (group ${g}) is not priced here`);
    return model.solveUntil(w - g * this.groupSize, v, retryTolerance, stop);
  }

  /** Append rows to one group's model, or (group undefined) to every model held here. */
  addRows(rows: PricingRows, group?: number): void {
    if (group === undefined) for (const model of this.models.values()) model.addRows(rows);
    else this.models.get(group)?.addRows(rows);
  }

  /** Rows of the largest pricing model held. */
  get rows(): number {
    let r = 0;
    for (const model of this.models.values()) r = Math.max(r, model.rows);
    return r;
  }

  get coldRetries(): number {
    let k = 0;
    for (const model of this.models.values()) k += model.coldRetries;
    return k;
  }

  get failures(): number {
    let k = 0;
    for (const model of this.models.values()) k += model.failures;
    return k;
  }

  dispose(): void {
    for (const model of this.models.values()) model.dispose();
    this.models.clear();
  }
}

/** The group of output w: groups of groupSize consecutive outputs. */
export function outputGroup(w: number, groupSize: number): number {
  return Math.floor(w / groupSize);
}

/**
 * The pricing thread that holds group g's model: with at least as many groups as threads, groups are dealt
 * (g on thread g % threads); with fewer (one group of every output: all pairs in the model) every thread holds
 * every group: undefined.
 */
export function groupThread(g: number, m: number, groupSize: number, threads: number): number | undefined {
  return Math.ceil(m / groupSize) >= threads ? g % threads : undefined;
}
