import { type LpOptions, cancelRequested } from '../solver/lp-options';
import { DenseSimplex } from './dense-simplex';
import type { LpSolution, RunStop } from '../solver/persistent-lp';

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
    private readonly lp: DenseSimplex,
    private readonly n: number,
    private readonly m: number,
    /** Column-major costs c[w*n + x], minimised. */
    private readonly c: Float64Array,
    /**
     * The all-ones vector: the constant columns are appended with this very array (dropConstantColumns finds them by
     * identity), and it stands in for the penalty columns.
     */
    readonly ones: Float64Array,
    private readonly options: LpOptions | undefined,
  ) {}

  /**
   * The master is solved by DenseSimplex (dense-simplex.ts), not HiGHS: its columns are dense, and HiGHS' sparse
   * machinery cost ~1.7 ms an iteration and 80-100 ms per append on the 20 x 20 city (master 14.9 s of a 30 s
   * solve at eps 1, 8.7k iterations; the dense simplex with its WebAssembly kernels: 14.3k iterations, 2.6 s).
   */
  static open(
    n: number,
    m: number,
    c: Float64Array,
    ones: Float64Array,
    what: string,
    options: LpOptions | undefined,
    threads?: number,
  ): DecompositionMaster {
    return new DecompositionMaster(new DenseSimplex(n, ones, `${what} (master)`, threads), n, m, c, ones, options);
  }

  get columns(): number {
    return this.colOutput.length;
  }

  /** Stop the dense simplex's helper thread (master-rows.ts). */
  close(): void {
    this.lp.close();
  }

  /** Append columns (cost c_w . r; the vectors are kept by reference). */
  append(batch: MasterColumn[]): void {
    const { n, c } = this;
    for (const { w, r } of batch) {
      let s = 0;
      for (let x = 0; x < n; x++) s += c[w * n + x]! * r[x]!;
      this.colOutput.push(w);
      this.colVectors.push(r);
      this.lp.addDense(s, r);
    }
  }

  /**
   * Start the next solve from a basis of these columns (see DenseSimplex.crash); false when they give no feasible
   * basis (the solve then starts from the artificial basis).
   */
  crash(columns: readonly number[]): boolean {
    return this.lp.crash(columns);
  }

  /** Append the 2n penalty columns +-e_x of cost B. */
  addBox(B: number): void {
    const n = this.n;
    this.boxStart = this.colOutput.length;
    this.box = B;
    for (let j = 0; j < 2 * n; j++) {
      this.colOutput.push(-1);
      this.colVectors.push(this.ones);
      this.lp.addUnit(B, j % n, j < n ? 1 : -1);
    }
  }

  /** Multiply the penalty cost by `factor` (du Merle: widen the box). */
  widenBox(factor: number): void {
    this.box *= factor;
    for (let j = 0; j < 2 * this.n; j++) this.lp.setCost(this.boxStart + j, this.box);
  }

  /** Total weight of the penalty columns in a master solution (> 0: the solution is not a channel). */
  boxMass(theta: Float64Array): number {
    let mass = 0;
    for (let j = this.boxStart; j < this.colOutput.length; j++)
      if (this.colOutput[j] === -1) mass += Math.abs(theta[j]!);
    return mass;
  }

  /**
   * Solve (warm from the last basis); `stop` ends a long solve early (MechError 'cancelled' with detail.reason), and
   * so does a cancellation (the shared cancel flag or the signal, read every 32 iterations).
   */
  run(stop?: RunStop): LpSolution {
    const r = this.lp.run(stop, () => cancelRequested(this.options));
    return {
      objective: r.objective,
      colValue: r.colValue,
      solveMs: r.solveMs,
      loadMs: 0,
      status: 'optimal',
      iterations: r.iterations,
    };
  }

  /** Row duals of the last solve. */
  duals(): Float64Array {
    return this.lp.duals();
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
    this.lp.deleteColumns(drop);
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
    for (let j = 0; j < this.colOutput.length; j++)
      if (this.colOutput[j]! >= 0 && this.colVectors[j] === this.ones) drop.push(j);
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
}
