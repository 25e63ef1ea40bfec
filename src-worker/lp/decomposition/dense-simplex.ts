import { MechError } from '../../../src-shared/errors';
import { Wasm, WASM_PAGE, type WasmMemory } from '../../numeric/wasm';
import { type Kernels, MasterRows, instantiateKernels } from './master-rows';
import { CANDIDATE_KEEP, CandidateList, FEAS_TOL, OPT_TOL, ratioTest } from './dense-pivot-choice';
import { type RunStop, runStopDue } from '../solver/persistent-lp';

/**
 * Primal simplex for the decomposition's master: min c . theta subject to
 * A theta = b, theta >= 0, with few rows (one per secret) and dense columns
 * (points of the column polytope, every entry positive), re-solved after
 * columns are appended or deleted from the basis it ended with.
 *
 * Why not HiGHS here: the master's columns are dense, so HiGHS' sparse LU
 * and full pricing cost ~1.7 ms an iteration at 400 rows and 2,500 columns,
 * and every append cost it 80-100 ms before the first iteration
 * (docs/lp-measurements.md, "The master"). This solver keeps the basis
 * inverse explicitly (n x n, row-major; a rank-one update per pivot, fused
 * with the next column's FTRAN in one pass; when a residual check every n
 * pivots fails, the values and duals are recomputed from the inverse, and
 * the inverse is rebuilt by Gauss-Jordan pivots in the kernels if that is not
 * enough), prices a candidate list and a block of columns (partial pricing
 * with Dantzig's rule on norm-scaled reduced costs; optimality is only
 * declared after a full pass finds nothing), uses Harris' two-pass ratio
 * test, and keeps a copy of each column next to the inverse in the memory of small
 * WebAssembly SIMD kernels (dense-kernels.wat: inner products and row
 * updates, 3-4x faster than the same JavaScript loops; on large masters
 * the row updates run on two threads, master-rows.ts). Phase 1 starts from
 * an artificial basis e_x (also after a basic column is deleted: an
 * artificial takes its place). Measured on the 20 x 20 city at eps 1: master
 * 14.9 s with HiGHS (8.7k iterations), 9.1 s in JavaScript, 2.6 s with the
 * kernels (14.3k iterations).
 *
 * Nothing downstream trusts it beyond what it can check: the decomposition's
 * bounds are Lagrangian bounds valid for any duals, and its channel is
 * assembled from theta, repaired and checked for privacy like HiGHS' was.
 */
interface DenseSimplexSolution {
  objective: number;
  colValue: Float64Array;
  iterations: number;
  /** Times the basis inverse was rebuilt from the basic columns during the solve (residual checks that failed). */
  rebuilds: number;
  solveMs: number;
}

/**
 * Share of the columns priced per iteration (partial pricing; measured on the 20 x 20 city: 0.1, 0.25, 0.5, 1 gave
 * 17.2k, 14.3k, 12.9k, 11.0k iterations, 0.25 the least time).
 */
const PRICING_BLOCK = 0.25;
/** Columns of a scan whose inner products go to the kernels (and the helper thread) in one job. */
const BATCH = 4096;
/**
 * Check the residuals after this many pivots at least (and every n pivots); rebuild the inverse when they are not
 * small.
 */
const MIN_REFACTOR = 100;
/** Largest residual |B xB - b| and |y B - c_B| (relative) accepted without rebuilding the inverse. */
const RESIDUAL_TOL = 1e-11;
/** The memory's maximum (a shared memory needs one): 4 GiB, where WebAssembly's 32-bit addresses end. */
const MAX_PAGES = 65536;

export class DenseSimplex {
  /** Column data: dense vector, or a unit column (row, sign) when vec is null. */
  private readonly vec: (Float64Array | null)[] = [];
  private readonly unitRow: number[] = [];
  private readonly unitSign: number[] = [];
  private readonly cost: number[] = [];
  /** Scale of the column for pricing: sqrt(1 + |a|^2). */
  private readonly scaleOf: number[] = [];
  /** Basis position of each column, or -1. */
  private readonly posOf: number[] = [];
  /** The basic column at each position; -1 - x is the artificial column e_x. */
  private readonly head: Int32Array;
  /**
   * Views on the kernels' memory (renewed when it grows): the inverse (n x n, row-major, at byte 0), FTRAN column,
   * duals.
   */
  private binv!: Float64Array;
  private alpha!: Float64Array;
  private y!: Float64Array;
  private readonly xB: Float64Array;
  private readonly work: Float64Array;
  /** The kernels and their memory (shared with master-rows.ts): inverse, alpha, y, then a slot per dense column. */
  private readonly kernels: Kernels;
  private readonly memory: WasmMemory;
  private readonly rows: MasterRows;
  private readonly alphaAt: number;
  private readonly yAt: number;
  private readonly slotsAt: number;
  private slotCapacity = 0;
  private readonly freeSlots: number[] = [];
  private slotsUsed = 0;
  /** Byte offset of each dense column's copy in the kernels' memory (-1: a unit column). */
  private readonly slotOf: number[] = [];
  private pivotsSinceRefactor = 0;
  /** Inverse rebuilds so far (reported per solve). */
  private rebuilds = 0;
  private cursor = 0;
  /** The candidate list of partial pricing. */
  private readonly cand = new CandidateList();
  /** A scan's batch: its columns, their slots (in the kernels' memory, at listAt) and inner products (at outAt). */
  private readonly batch = new Int32Array(BATCH);
  private readonly listAt: number;
  private readonly outAt: number;
  private list!: Int32Array;
  private out!: Float64Array;
  /** Position of the last pivot whose update of the other rows of the inverse is still due (-1: none). */
  private pending = -1;

  constructor(
    private readonly n: number,
    private readonly b: Float64Array,
    private readonly what: string,
    /** Threads for the row updates (default: two on large masters, see master-rows.ts). */
    threads?: number,
  ) {
    this.alphaAt = n * n * 8;
    this.yAt = this.alphaAt + n * 8;
    this.listAt = this.yAt + n * 8;
    this.outAt = this.listAt + BATCH * 4;
    this.slotsAt = this.outAt + BATCH * 8;
    this.slotCapacity = Math.max(16, 2 * n);
    const initial = Math.ceil((this.slotsAt + this.slotCapacity * n * 8) / WASM_PAGE);
    this.memory = new Wasm.Memory({ initial, maximum: MAX_PAGES, shared: true });
    this.kernels = instantiateKernels(this.memory);
    this.rows = new MasterRows(this.kernels, this.memory, { n, alphaAt: this.alphaAt, yAt: this.yAt }, threads);
    this.refreshViews();
    this.head = new Int32Array(n);
    this.xB = new Float64Array(n);
    this.work = new Float64Array(n);
    this.resetBasis();
  }

  private refreshViews(): void {
    const { n } = this;
    const buf = this.memory.buffer;
    this.binv = new Float64Array(buf, 0, n * n);
    this.alpha = new Float64Array(buf, this.alphaAt, n);
    this.y = new Float64Array(buf, this.yAt, n);
    this.list = new Int32Array(buf, this.listAt, BATCH);
    this.out = new Float64Array(buf, this.outAt, BATCH);
  }

  /** A slot for a dense column's copy (byte offset), growing the memory when all are taken. */
  private takeSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    const { n } = this;
    if (this.slotsUsed === this.slotCapacity) {
      const more = this.slotCapacity;
      try {
        this.memory.grow(Math.ceil((more * n * 8) / WASM_PAGE));
      } catch (e) {
        // WebAssembly memory ends at 4 GiB (the master's column budget keeps it far below).
        throw new MechError(
          'too-large',
          `${this.what}: no memory for more than ${this.slotCapacity} columns of ${n} entries (${String(e)})`,
        );
      }
      this.slotCapacity = Math.floor((this.memory.buffer.byteLength - this.slotsAt) / (n * 8));
      this.refreshViews();
    }
    return this.slotsAt + this.slotsUsed++ * n * 8;
  }

  /** The artificial basis (B = I, xB = b): where the first solve starts, and where a failed solve restarts. */
  private resetBasis(): void {
    const { n, b } = this;
    this.pending = -1;
    for (let j = 0; j < this.posOf.length; j++) this.posOf[j] = -1;
    this.binv.fill(0);
    for (let x = 0; x < n; x++) {
      this.head[x] = -1 - x;
      this.binv[x * n + x] = 1;
      this.xB[x] = b[x]!;
    }
    this.pivotsSinceRefactor = 0;
  }

  /** The row updates' helper thread (master-rows.ts): close it (the simplex goes on alone), chunks it ran, ready. */
  close = (): void => this.rows.close();
  get helped(): number {
    return this.rows.helped;
  }
  helperReady = (): Promise<boolean> => this.rows.helperReady();

  get columns(): number {
    return this.cost.length;
  }

  /** Append a dense column (kept by reference: the caller must not change it). */
  addDense(cost: number, a: Float64Array): void {
    let s = 1;
    for (let x = 0; x < this.n; x++) s += a[x]! * a[x]!;
    const at = this.takeSlot();
    new Float64Array(this.memory.buffer, at, this.n).set(a);
    this.slotOf.push(at);
    this.vec.push(a);
    this.unitRow.push(-1);
    this.unitSign.push(0);
    this.cost.push(cost);
    this.scaleOf.push(Math.sqrt(s));
    this.posOf.push(-1);
  }

  /** Append the column sign * e_row. */
  addUnit(cost: number, row: number, sign: 1 | -1): void {
    this.slotOf.push(-1);
    this.vec.push(null);
    this.unitRow.push(row);
    this.unitSign.push(sign);
    this.cost.push(cost);
    this.scaleOf.push(Math.SQRT2);
    this.posOf.push(-1);
  }

  setCost(j: number, cost: number): void {
    this.cost[j] = cost;
  }

  /** Row duals of the last solve: reduced cost of column j = cost[j] - a_j . y. */
  duals(): Float64Array {
    return this.y.slice();
  }

  /**
   * Delete columns (indices strictly increasing); later columns move down. A
   * basic column leaves the basis for the artificial e_x of the row where its
   * inverse row is largest (the basis stays regular; if its value was
   * positive, the next solve starts with a phase 1).
   */
  deleteColumns(drop: readonly number[]): void {
    if (drop.length === 0) return;
    this.completePivot();
    for (const j of drop) {
      const p = this.posOf[j]!;
      if (p >= 0) this.replaceByArtificial(p);
    }
    const K = this.cost.length;
    const newIndex = new Int32Array(K);
    let k = 0;
    let d = 0;
    for (let j = 0; j < K; j++) {
      if (d < drop.length && drop[d] === j) {
        d++;
        newIndex[j] = -1;
        if (this.slotOf[j]! >= 0) this.freeSlots.push(this.slotOf[j]!);
        continue;
      }
      newIndex[j] = k;
      this.slotOf[k] = this.slotOf[j]!;
      this.vec[k] = this.vec[j]!;
      this.unitRow[k] = this.unitRow[j]!;
      this.unitSign[k] = this.unitSign[j]!;
      this.cost[k] = this.cost[j]!;
      this.scaleOf[k] = this.scaleOf[j]!;
      this.posOf[k] = this.posOf[j]!;
      k++;
    }
    for (const arr of [this.vec, this.unitRow, this.unitSign, this.cost, this.scaleOf, this.posOf, this.slotOf])
      arr.length = k;
    for (let p = 0; p < this.n; p++) if (this.head[p]! >= 0) this.head[p] = newIndex[this.head[p]!]!;
    this.cursor = 0;
    this.cand.count = 0;
  }

  /**
   * Solve from the current basis. Throws MechError 'cancelled' (detail.reason)
   * when `stop` fires. A numerical failure (singular basis, iteration cap)
   * restarts once from the artificial basis before it is reported ('internal').
   */
  run(stop?: RunStop, cancelled?: () => boolean): DenseSimplexSolution {
    const t0 = performance.now();
    const rebuilt = this.rebuilds;
    let sol: { objective: number; colValue: Float64Array; iterations: number };
    try {
      sol = this.solve(stop, cancelled);
    } catch (e) {
      if (!(e instanceof MechError) || e.code !== 'internal') throw e;
      this.resetBasis();
      sol = this.solve(stop, cancelled);
    }
    return { ...sol, rebuilds: this.rebuilds - rebuilt, solveMs: performance.now() - t0 };
  }

  private solve(
    stop: RunStop | undefined,
    cancelled: (() => boolean) | undefined,
  ): { objective: number; colValue: Float64Array; iterations: number } {
    const { n } = this;
    let iterations = 0;
    // A guard against cycling, not a budget (time limits and stops are read every 32 iterations): the 20 x 20 spanner
    // at eps 0.5 needed more than 50 n + 20 columns + 10^4 (54,760) iterations in its second master, and solved within
    // 4 times that.
    const maxIterations = 4 * (50 * n + 20 * this.cost.length + 10000);
    this.completePivot();
    let phase1 = this.artificialMass() > FEAS_TOL;
    this.cand.count = 0;
    this.computeDuals(phase1);
    let verified = false;
    for (;;) {
      if ((iterations & 31) === 31) {
        if (cancelled?.()) throw new MechError('cancelled', `${this.what} was cancelled during the solve`);
        if (stop) {
          const reason = runStopDue(stop);
          if (reason)
            throw new MechError('cancelled', `${this.what} was stopped during the solve (${reason})`, { reason });
        }
      }
      if (iterations > maxIterations)
        throw new MechError(
          'internal',
          `${this.what}: the dense simplex did not finish within ${maxIterations} iterations`,
        );
      const q = this.price(phase1);
      // The last pivot's inverse update, fused with the next column's FTRAN (one pass over the inverse).
      if (this.pending >= 0) {
        this.updateRows(this.pending, q);
        this.pending = -1;
      } else if (q >= 0) this.ftran(q);
      if (q >= 0 && this.pivotsSinceRefactor >= Math.max(MIN_REFACTOR, n) && this.residual(phase1) > RESIDUAL_TOL) {
        this.restoreAccuracy(phase1);
        continue;
      }
      if (q < 0) {
        // A final check: the basis' residuals; from a fresh inverse when they are not small, then no entering column.
        if (!verified) {
          verified = true;
          if (this.residual(phase1) > RESIDUAL_TOL) {
            this.restoreAccuracy(phase1);
            continue;
          }
        }
        if (phase1) {
          if (this.artificialMass() > 1e-7) throw new MechError('infeasible', `${this.what} has no feasible solution`);
          phase1 = false;
          verified = false;
          this.cand.count = 0;
          this.computeDuals(false);
          continue;
        }
        break;
      }
      verified = false;
      const p = ratioTest(this.alpha, this.xB, this.head, phase1);
      if (p < 0) throw new MechError('internal', `${this.what}: the dense simplex found an unbounded direction`);
      this.pivot(p, q, phase1);
      // The other rows of the inverse are updated in the next iteration's FTRAN pass.
      this.pending = p;
      iterations++;
    }
    const colValue = new Float64Array(this.cost.length);
    let objective = 0;
    for (let p = 0; p < n; p++) {
      const j = this.head[p]!;
      if (j < 0) continue;
      const v = Math.max(0, this.xB[p]!);
      colValue[j] = v;
      objective += this.cost[j]! * v;
    }
    return { objective, colValue, iterations };
  }

  /**
   * Residuals too large: the values and duals recomputed from the inverse (2 n^2), which is enough when only their
   * updates drifted; the inverse rebuilt (refactor) when they are still not small.
   */
  private restoreAccuracy(phase1: boolean): void {
    this.recomputeValues();
    this.computeDuals(phase1);
    if (this.residual(phase1) <= RESIDUAL_TOL) return;
    this.refactor();
    this.computeDuals(phase1);
  }

  /** A run stopped (time limit, cancellation) between a pivot and its row updates: do them now. */
  private completePivot(): void {
    if (this.pending < 0) return;
    this.rows.update(this.pending, 0, 0);
    this.pending = -1;
  }

  /**
   * max |B xB - b| and max |B' y - c_B| / (1 + |c_B|) (the duals' residual, for the phase's costs); when small,
   * the inverse counts as fresh again.
   */
  private residual(phase1: boolean): number {
    const { n, head, xB, b, y } = this;
    const r = this.work;
    for (let x = 0; x < n; x++) r[x] = -b[x]!;
    let worst = 0;
    for (let p = 0; p < n; p++) {
      const j = head[p]!;
      const v = xB[p]!;
      if (j < 0) {
        r[-1 - j]! += v;
        worst = Math.max(worst, Math.abs((phase1 ? 1 : 0) - y[-1 - j]!));
        continue;
      }
      const a = this.vec[j];
      let d = phase1 ? 0 : this.cost[j]!;
      if (a) {
        for (let x = 0; x < n; x++) {
          r[x]! += v * a[x]!;
          d -= y[x]! * a[x]!;
        }
      } else {
        r[this.unitRow[j]!]! += v * this.unitSign[j]!;
        d -= this.unitSign[j]! * y[this.unitRow[j]!]!;
      }
      worst = Math.max(worst, Math.abs(d) / (1 + Math.abs(this.cost[j]!)));
    }
    for (let x = 0; x < n; x++) worst = Math.max(worst, Math.abs(r[x]!));
    if (worst <= RESIDUAL_TOL) this.pivotsSinceRefactor = 0;
    return worst;
  }

  /** Sum of the values of the basic artificial columns. */
  private artificialMass(): number {
    let s = 0;
    for (let p = 0; p < this.n; p++) if (this.head[p]! < 0) s += Math.abs(this.xB[p]!);
    return s;
  }

  private basicCost(p: number, phase1: boolean): number {
    const j = this.head[p]!;
    if (j < 0) return phase1 ? 1 : 0;
    return phase1 ? 0 : this.cost[j]!;
  }

  /** y = c_B' B^-1. */
  private computeDuals(phase1: boolean): void {
    const { n, binv, y } = this;
    y.fill(0);
    for (let p = 0; p < n; p++) {
      const cb = this.basicCost(p, phase1);
      if (cb === 0) continue;
      const o = p * n;
      for (let x = 0; x < n; x++) y[x]! += cb * binv[o + x]!;
    }
  }

  private reducedCost(j: number, phase1: boolean): number {
    const at = this.slotOf[j]!;
    return this.reducedCostWith(j, phase1, at >= 0 ? this.kernels.dot(this.yAt, at, this.n) : 0);
  }

  /** Column j's reduced cost, given y . a_j for a dense column (unit columns read y themselves). */
  private reducedCostWith(j: number, phase1: boolean, dot: number): number {
    const d = phase1 ? 0 : this.cost[j]!;
    return this.slotOf[j]! >= 0 ? d - dot : d - this.unitSign[j]! * this.y[this.unitRow[j]!]!;
  }

  /**
   * Partial pricing with a candidate list: the columns of most negative scaled reduced cost found by the last scan
   * are priced again first (a few inner products), and one of them enters while its score stays within
   * CANDIDATE_KEEP of that scan's best; otherwise the next block (from the cursor) is scanned, and the first block
   * that has a negative score refills the list. -1 after a full pass finds none.
   */
  private price(phase1: boolean): number {
    const K = this.cost.length;
    if (K === 0) return -1;
    const fromList = this.priceCandidates(phase1);
    if (fromList >= 0) return fromList;
    const block = Math.max(64, Math.ceil(K * PRICING_BLOCK));
    const { cand, batch } = this;
    cand.count = 0;
    let scanned = 0;
    let j = this.cursor % K;
    while (scanned < K) {
      const end = Math.min(scanned + block, K);
      let count = 0;
      let dense = 0;
      for (; scanned < end; scanned++) {
        if (this.posOf[j]! < 0) {
          batch[count++] = j;
          if (this.slotOf[j]! >= 0) this.list[dense++] = this.slotOf[j]!;
          if (count === BATCH) {
            this.scoreBatch(count, dense, phase1);
            count = dense = 0;
          }
        }
        j = j + 1 === K ? 0 : j + 1;
      }
      this.scoreBatch(count, dense, phase1);
      if (cand.count > 0) break;
    }
    this.cursor = j;
    if (cand.count === 0) return -1;
    cand.best = cand.scores[0]!;
    return cand.cols[0]!;
  }

  /**
   * The scan's batch offered to the candidate list in order, scored by their reduced costs, the dense columns' inner
   * products in one kernel job (shared with the helper thread).
   */
  private scoreBatch(count: number, dense: number, phase1: boolean): void {
    this.rows.dots(this.listAt, this.outAt, dense);
    const { batch, out } = this;
    for (let k = 0, d = 0; k < count; k++) {
      const j = batch[k]!;
      const dot = this.slotOf[j]! >= 0 ? out[d++]! : 0;
      this.cand.offer(j, this.reducedCostWith(j, phase1, dot) / this.scaleOf[j]!);
    }
  }

  /**
   * The best column of the candidate list at the current duals, if its score is still within CANDIDATE_KEEP of the last
   * scan's best; -1 otherwise.
   */
  private priceCandidates(phase1: boolean): number {
    let best = -1;
    const { cand } = this;
    let bestScore = CANDIDATE_KEEP * cand.best;
    let kept = 0;
    for (let i = 0; i < cand.count; i++) {
      const j = cand.cols[i]!;
      if (this.posOf[j]! >= 0) continue;
      const score = this.reducedCost(j, phase1) / this.scaleOf[j]!;
      if (score >= -OPT_TOL) continue;
      cand.cols[kept++] = j;
      if (score < bestScore) ((bestScore = score), (best = j));
    }
    cand.count = best >= 0 ? kept : 0;
    return best;
  }

  /** alpha = B^-1 a_q. */
  private ftran(q: number): void {
    const { n, binv, alpha } = this;
    const at = this.slotOf[q]!;
    if (at >= 0) this.kernels.ftran(0, at, this.alphaAt, n);
    else {
      const r = this.unitRow[q]!;
      const sg = this.unitSign[q]!;
      for (let p = 0; p < n; p++) alpha[p] = sg * binv[p * n + r]!;
    }
  }

  /** Column q enters at position p: values, inverse (rank-one update) and duals. */
  private pivot(p: number, q: number, phase1: boolean): void {
    const { n, alpha, xB, binv, y, head } = this;
    const ap = alpha[p]!;
    // In phase 2 a basic artificial leaves at 0 (it is fixed there).
    const t = head[p]! < 0 && !phase1 ? 0 : Math.max(0, xB[p]!) / ap;
    for (let i = 0; i < n; i++) xB[i]! -= t * alpha[i]!;
    xB[p] = t;
    for (let i = 0; i < n; i++) if (xB[i]! < 0) xB[i] = 0;
    // Reduced cost of q before the update, for the duals.
    const dq = this.reducedCost(q, phase1);
    const op = p * n;
    const inv = 1 / ap;
    for (let x = 0; x < n; x++) binv[op + x]! *= inv;
    for (let x = 0; x < n; x++) y[x]! += dq * binv[op + x]!;
    const out = head[p]!;
    if (out >= 0) this.posOf[out] = -1;
    head[p] = q;
    this.posOf[q] = p;
    this.pivotsSinceRefactor++;
  }

  /**
   * The rest of a pivot at position p (row p of the inverse is already
   * scaled, alpha holds the entering column's FTRAN): every other row i loses
   * alpha_i times row p; when q >= 0 the same pass computes the next FTRAN
   * alpha'_i = (row i) . a_q (one pass over the inverse instead of two).
   */
  private updateRows(p: number, q: number): void {
    const at = q >= 0 ? this.slotOf[q]! : -1;
    this.rows.update(p, Math.max(at, 0), at >= 0 ? 1 : 0);
    if (q >= 0 && at < 0) this.ftran(q);
  }

  /** Replace the basic column at position p by the artificial e_x with the largest |(B^-1)_px| (a regular basis). */
  private replaceByArtificial(p: number): void {
    const { n, binv, head } = this;
    let r = -1;
    let best = 0;
    for (let x = 0; x < n; x++) {
      const v = Math.abs(binv[p * n + x]!);
      if (v > best) {
        // e_x must not be basic already (then (B^-1)_px = 0 anyway).
        best = v;
        r = x;
      }
    }
    if (r < 0) throw new MechError('internal', `${this.what}: singular basis`);
    for (let i = 0; i < n; i++) this.alpha[i] = binv[i * n + r]!;
    const ap = this.alpha[p]!;
    const op = p * n;
    for (let x = 0; x < n; x++) binv[op + x]! /= ap;
    this.rows.update(p, 0, 0);
    this.posOf[head[p]!] = -1;
    head[p] = -1 - r;
    this.recomputeValues();
  }

  /** xB = B^-1 b. */
  private recomputeValues(): void {
    const { n, binv, b, xB } = this;
    for (let p = 0; p < n; p++) {
      const o = p * n;
      let s = 0;
      for (let x = 0; x < n; x++) s += binv[o + x]! * b[x]!;
      xB[p] = s < 0 && s > -FEAS_TOL ? 0 : s;
    }
  }

  /** Rebuild B^-1 from the basic columns, then the values (an artificial e_x basic keeps position x). */
  private refactor(): void {
    this.rebuilds++;
    const columns: number[] = [];
    const free = new Uint8Array(this.n).fill(1);
    for (const j of this.head)
      if (j >= 0) columns.push(j);
      else free[-1 - j] = 0;
    this.posOf.fill(-1);
    this.pivotIn(columns, free, true);
  }

  /**
   * Start from a basis of these columns (a private channel's: weights 1 meet every row sum), built as in refactor, a
   * dependent column left out, the other positions to their artificial e_x. False (artificial basis restored) when a
   * value is below 0. On 50 x 50 the first master took 45 s from the artificial basis.
   */
  crash(columns: readonly number[]): boolean {
    this.posOf.fill(-1);
    this.pivotIn(columns, new Uint8Array(this.n).fill(1), false);
    if (this.xB.every((v) => v >= -FEAS_TOL)) return true;
    this.resetBasis();
    return false;
  }

  /**
   * From the identity, each column pivoted in at the free position of its largest FTRAN entry (Gauss-Jordan with
   * partial pivoting; each pivot one fused pass over the inverse: update and next FTRAN); then the values. A column
   * with no free entry above 1e-13 is singular (strict) or left out.
   */
  private pivotIn(columns: readonly number[], free: Uint8Array, strict: boolean): void {
    const { n, head, binv, alpha } = this;
    binv.fill(0);
    for (let x = 0; x < n; x++) {
      binv[x * n + x] = 1;
      head[x] = -1 - x;
    }
    this.pending = -1;
    if (columns.length > 0) this.ftran(columns[0]!);
    for (let k = 0; k < columns.length; k++) {
      const j = columns[k]!;
      const next = k + 1 < columns.length ? columns[k + 1]! : -1;
      let p = -1;
      for (let i = 0, best = 1e-13; i < n; i++)
        if (free[i] && Math.abs(alpha[i]!) > best) ((best = Math.abs(alpha[i]!)), (p = i));
      if (p < 0) {
        if (strict) throw new MechError('internal', `${this.what}: the basis became singular`);
        if (next >= 0) this.ftran(next);
        continue;
      }
      free[p] = 0;
      const inv = 1 / alpha[p]!;
      const op = p * n;
      for (let x = 0; x < n; x++) binv[op + x]! *= inv;
      head[p] = j;
      this.posOf[j] = p;
      this.updateRows(p, next);
    }
    this.recomputeValues();
    this.pivotsSinceRefactor = 0;
  }
}
