import type { LpOptions } from './lp-options';
import { type LpSolution, PersistentLp, type RunStop } from './persistent-lp';
import { SparseLp } from './sparse-model';

/**
 * The master LP of the column decomposition (column-decomposition.ts): n
 * row-sum rows (each = 1) over the columns found so far, each a point r of
 * the column polytope P for one output w, of cost c_w . r, plus 2n penalty
 * columns +-e_x of cost B (du Merle box) that keep the duals in [-B, B].
 * Guarantee: a master solution that puts no weight on a penalty column is a
 * row-stochastic channel whose every column is a non-negative combination of
 * points of P, so it is private for the model whenever the columns are
 * (callers lift them into P first); `assemble` builds that channel.
 */
export interface MasterColumn {
  w: number;
  r: Float64Array;
}

export class DecompositionMaster {
  /** Output of each master column (-1: a penalty column) and its vector. */
  readonly colOutput: number[] = [];
  readonly colVectors: Float64Array[] = [];
  /** Index of the first penalty column (they stay contiguous). */
  private boxStart = 0;
  /** Cost of the penalty columns. */
  box = 0;

  private constructor(
    private readonly lp: PersistentLp,
    private readonly n: number,
    private readonly m: number,
    /** Column-major costs c[w*n + x], minimised. */
    private readonly c: Float64Array,
    /** The all-ones vector: the constant columns are appended with this very array (dropConstantColumns finds them by identity), and it stands in for the penalty columns. */
    readonly ones: Float64Array,
  ) {}

  static async open(n: number, m: number, c: Float64Array, ones: Float64Array, what: string, options: LpOptions): Promise<DecompositionMaster> {
    const masterLp = new SparseLp(0, n, 0);
    const none = new Int32Array(0);
    const noneV = new Float64Array(0);
    for (let x = 0; x < n; x++) masterLp.addRow(1, 1, none, noneV);
    // No presolve: it runs on the first (cold) solve only, is not interrupted by the time limit or the stop test,
    // and took more than half of that solve on 30 x 30 (14.4 s with it, 6.4 s without; on 50 x 50 the stop came 40 s late).
    // Primal simplex (strategy 4) with HiGHS' default pricing and devex weights: dual simplex, Dantzig or steepest-edge weights
    // were 1.6-2.4x slower on the 20 x 20 city (master 21 s; 51 s, 35 s, 44 s). No scaling: HiGHS scales the whole
    // matrix again at every solve after columns are appended, and the dense columns (entries in (0, 1], costs of the
    // loss's size) need none; master time on the city at eps 1 17.3 s -> 12.7 s, on 30 x 30 over 13 rounds 46.5 s -> 21.4 s.
    const masterOptions: LpOptions = { ...options, highsOptions: { presolve: 'off', simplex_scale_strategy: 0, ...options.highsOptions } };
    return new DecompositionMaster(await PersistentLp.open(masterLp, `${what} (master)`, masterOptions), n, m, c, ones);
  }

  get columns(): number {
    return this.colOutput.length;
  }

  /** Append columns (cost c_w . r, entries > 0 only). */
  append(batch: MasterColumn[]): void {
    const { n, c } = this;
    const k = batch.length;
    const cc = new Float64Array(k);
    const st = new Int32Array(k + 1);
    const ix = new Int32Array(k * n);
    const vv = new Float64Array(k * n);
    let p = 0;
    for (let j = 0; j < k; j++) {
      const { w, r } = batch[j]!;
      st[j] = p;
      let s = 0;
      for (let x = 0; x < n; x++) {
        const v = r[x]!;
        if (v > 0) {
          ix[p] = x;
          vv[p] = v;
          p++;
          s += c[w * n + x]! * v;
        }
      }
      cc[j] = s;
      this.colOutput.push(w);
      this.colVectors.push(r);
    }
    st[k] = p;
    this.lp.addColumns(cc, st, ix, vv);
  }

  /** Append the 2n penalty columns +-e_x of cost B. */
  addBox(B: number): void {
    const n = this.n;
    const k = 2 * n;
    const st = new Int32Array(k + 1);
    const ix = new Int32Array(k);
    const vv = new Float64Array(k);
    this.boxStart = this.colOutput.length;
    for (let j = 0; j < k; j++) {
      st[j] = j;
      ix[j] = j % n;
      vv[j] = j < n ? 1 : -1;
      this.colOutput.push(-1);
      this.colVectors.push(this.ones);
    }
    st[k] = k;
    this.box = B;
    this.lp.addColumns(new Float64Array(k).fill(B), st, ix, vv);
  }

  /** Multiply the penalty cost by `factor` (du Merle: widen the box). */
  widenBox(factor: number): void {
    this.box *= factor;
    this.lp.setCostRange(this.boxStart, new Float64Array(2 * this.n).fill(this.box));
  }

  /** Total weight of the penalty columns in a master solution (> 0: the solution is not a channel). */
  boxMass(theta: Float64Array): number {
    let mass = 0;
    for (let j = this.boxStart; j < this.colOutput.length; j++) if (this.colOutput[j] === -1) mass += Math.abs(theta[j]!);
    return mass;
  }

  /** Solve (warm from the last basis); `stop` ends a long solve early (MechError 'cancelled' with detail.reason). */
  run(stop?: RunStop): LpSolution {
    return this.lp.run(false, stop);
  }

  /** Row duals of the last solve. */
  duals(): Float64Array {
    return this.lp.rowDuals().slice(0, this.n);
  }

  /** The row-major n x m channel sum_j theta_j r_j over the non-penalty columns. */
  assemble(theta: Float64Array): Float64Array {
    const { n, m } = this;
    const C = new Float64Array(n * m);
    for (let j = 0; j < this.colOutput.length; j++) {
      const w = this.colOutput[j]!;
      const th = theta[j]!;
      if (w < 0 || !(th > 0)) continue;
      const r = this.colVectors[j]!;
      for (let x = 0; x < n; x++) C[x * m + w]! += th * r[x]!;
    }
    return C;
  }

  /** Delete the columns at `drop` (strictly increasing indices) from the LP and the bookkeeping. */
  deleteColumns(drop: number[]): void {
    if (drop.length === 0) return;
    this.lp.deleteColumns(Int32Array.from(drop));
    const { colOutput, colVectors } = this;
    let k = 0;
    let d = 0;
    for (let j = 0; j < colOutput.length; j++) {
      if (d < drop.length && drop[d] === j) {
        d++;
        continue;
      }
      colOutput[k] = colOutput[j]!;
      colVectors[k] = colVectors[j]!;
      k++;
    }
    colOutput.length = k;
    colVectors.length = k;
    this.boxStart = colOutput.indexOf(-1);
  }

  /** Delete the constant columns (vector `ones`, output >= 0); returns how many. */
  dropConstantColumns(): number {
    const drop: number[] = [];
    for (let j = 0; j < this.colOutput.length; j++) if (this.colOutput[j]! >= 0 && this.colVectors[j] === this.ones) drop.push(j);
    this.deleteColumns(drop);
    return drop.length;
  }

  /**
   * Keep the master bounded: past maxCols columns drop the non-basic ones
   * (theta 0) with the largest reduced costs at duals lam down to keepCols
   * (pricing brings back any needed; see MASTER_PRUNE_FACTOR in
   * column-decomposition.ts for the sizes chosen). Called before a batch is
   * appended, so theta covers every column. Returns the number dropped.
   */
  prune(theta: Float64Array, lam: Float64Array, scale: number, maxCols: number, keepCols: number): number {
    const { n, c, colOutput, colVectors } = this;
    if (colOutput.length <= maxCols) return 0;
    const cand: { j: number; rc: number }[] = [];
    for (let j = 0; j < colOutput.length; j++) {
      const w = colOutput[j]!;
      if (w < 0 || theta[j]! > 0) continue;
      const r = colVectors[j]!;
      let rc = 0;
      for (let x = 0; x < n; x++) rc += (c[w * n + x]! - lam[x]!) * r[x]!;
      if (rc > 1e-9 * scale) cand.push({ j, rc });
    }
    cand.sort((a, b) => b.rc - a.rc);
    const drop = cand
      .slice(0, Math.max(0, colOutput.length - keepCols))
      .map((e) => e.j)
      .sort((a, b) => a - b);
    this.deleteColumns(drop);
    return drop.length;
  }

  dispose(): void {
    this.lp.dispose();
  }
}
