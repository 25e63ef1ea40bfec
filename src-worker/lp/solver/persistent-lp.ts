import type { Basis, Highs, HighsCallbackMap, InterruptCallbackEvent, SparseMatrix } from 'highs';
import { MechError, messageOf } from '../../../src-shared/errors';
import { highsRuntime, resetHighsRuntime } from './highs-runtime';
import { assertLpFits } from './memory-estimate';
import { type LpOptions, type RunStop, cancelRequested, checkCancelled, progress } from './lp-options';
import { type SparseLp, dualColumnOfRow } from './sparse-model';

/**
 * Solving a SparseLp with HiGHS: `solveSparseLp` (one solve) and
 * `PersistentLp` (one model kept loaded, grown by rows or columns and
 * re-solved from its last basis). Guarantees: the model is refused before
 * any allocation when its heap estimate exceeds the limit (MechError
 * 'too-large'); every solver outcome other than optimal becomes one MechError
 * ('infeasible', 'too-large' on a limit or a memory abort, 'cancelled',
 * 'internal'); a solve stops at the next simplex/IPM checkpoint when the
 * cancel flag, the signal or the run's own stop test says so.
 */
export interface LpSolution {
  objective: number;
  colValue: Float64Array;
  /** Wall-clock time of the HiGHS solve (ms), model hand-over excluded. */
  solveMs: number;
  /** Wall-clock time to hand the model to HiGHS (ms). */
  loadMs: number;
  status: 'optimal';
  iterations: number;
}

/**
 * Default algorithm, picked by measurement (test/bench/lp.bench.ts): dual
 * simplex on small models (exact vertex, lowest overhead), interior point
 * with crossover (still a vertex) once the privacy rows number in the tens of
 * thousands, where it was 1.5-4x faster and used far less memory.
 */
const IPM_ROW_THRESHOLD = 20000;
function defaultSolver(lp: SparseLp): 'simplex' | 'ipm' {
  return lp.numRows > IPM_ROW_THRESHOLD ? 'ipm' : 'simplex';
}

/** Names of HiGHS model statuses, for messages. */
const STATUS_NAMES: Record<number, string> = {
  0: 'not set',
  1: 'load error',
  2: 'model error',
  3: 'presolve error',
  4: 'solve error',
  5: 'postsolve error',
  6: 'empty',
  7: 'optimal',
  8: 'infeasible',
  9: 'unbounded or infeasible',
  10: 'unbounded',
  11: 'objective bound',
  12: 'objective target',
  13: 'time limit',
  14: 'iteration limit',
  15: 'unknown',
  16: 'solution limit',
  17: 'interrupted',
};

/**
 * Solve a SparseLp with HiGHS. Refuses early (MechError 'too-large') when
 * the model would not fit the WebAssembly heap; maps solver outcomes to
 * MechErrors: 'infeasible' (infeasible / unbounded), 'too-large' (time or
 * iteration limit), 'internal' (solver failure). The model is always disposed.
 */
export async function solveSparseLp(lp: SparseLp, what: string, options?: LpOptions): Promise<LpSolution> {
  const model = await PersistentLp.open(lp, what, options);
  try {
    return model.run(true, options?.stop);
  } finally {
    model.dispose();
  }
}

type HighsModel = ReturnType<Highs['createModel']>;

export type { RunStop };

/** Which of a RunStop's conditions holds now (the deadline first), or undefined. */
export function runStopDue(stop: RunStop): 'time-limit' | 'stopped' | undefined {
  if (stop.deadline !== undefined && performance.now() > stop.deadline) return 'time-limit';
  return stop.shouldStop?.() ? 'stopped' : undefined;
}

/** The reason a run ended by its RunStop, or null for any other error. */
export function runStopReason(e: unknown): 'time-limit' | 'stopped' | null {
  if (!(e instanceof MechError) || e.code !== 'cancelled') return null;
  const r = e.detail?.['reason'];
  return r === 'time-limit' || r === 'stopped' ? r : null;
}

/**
 * A SparseLp loaded into one persistent HiGHS model that can be re-solved
 * after rows are appended (constraint generation): HiGHS keeps the previous
 * basis, the appended rows' slacks enter it, and dual simplex resumes from
 * there (a warm start) instead of solving from scratch. Same checks, options,
 * cancellation and error mapping as solveSparseLp. Call dispose() when done.
 */
export class PersistentLp {
  private rows: number;
  private cols: number;
  private nz: number;
  private firstRun = true;

  private constructor(
    private readonly highs: Highs,
    private model: HighsModel | undefined,
    private readonly lp: SparseLp,
    private readonly dual: boolean,
    private readonly what: string,
    private readonly options: LpOptions | undefined,
    /** Wall-clock time to hand the model to HiGHS (ms). */
    readonly loadMs: number,
  ) {
    this.rows = lp.numRows;
    this.cols = lp.numCols;
    this.nz = lp.nonzeros;
  }

  static async open(lp: SparseLp, what: string, options?: LpOptions): Promise<PersistentLp> {
    const dual = (options?.formulation ?? 'primal') === 'dual';
    // The dual is handed over transposed: its rows are the primal's columns.
    if (dual) assertLpFits(lp.numRows, lp.numCols, lp.nonzeros, what);
    else assertLpFits(lp.numCols, lp.numRows, lp.nonzeros, what);
    checkCancelled(options, `loading the solver for ${what}`);
    const highs = await highsRuntime();
    checkCancelled(options, `handing ${what} to the solver`);
    const t0 = performance.now();
    let model: HighsModel | undefined;
    try {
      model = highs.createModel(
        dual
          ? lp.toDualModelData(highs.infinity, highs.constants.objectiveSense)
          : lp.toModelData(highs.infinity, highs.constants.objectiveSense),
      );
      model.options.set({
        output_flag: false,
        solver: options?.solver ?? defaultSolver(lp),
        // Tighter than HiGHS' 1e-7 default: the privacy check (docs/privacy-check.md, "The tolerance") uses a
        // 1e-9 relative tolerance, and a simplex vertex is then exact to ~1e-12.
        primal_feasibility_tolerance: 1e-10,
        dual_feasibility_tolerance: 1e-10,
      });
      if (options?.crossover === false) model.options.set('run_crossover', 'off');
      if (options?.highsOptions) model.options.set(options.highsOptions);
      if (options?.timeLimitSeconds !== undefined) {
        if (!(options.timeLimitSeconds > 0))
          throw new MechError('invalid-input', `LP time limit must be > 0 seconds, got ${options.timeLimitSeconds}`);
        model.options.set('time_limit', options.timeLimitSeconds);
      }
    } catch (e) {
      disposeQuietly(model);
      throw mapHighsError(e, what);
    }
    return new PersistentLp(highs, model, lp, dual, what, options, performance.now() - t0);
  }

  get numRows(): number {
    return this.rows;
  }
  get numCols(): number {
    return this.cols;
  }
  get nonzeros(): number {
    return this.nz;
  }

  /** Set a HiGHS option on the loaded model (e.g. switch the solver after the first run). */
  setOption(name: string, value: string | number | boolean): void {
    this.live().options.set(name, value);
  }

  /**
   * Append rows lower[i] <= sum_k values[k] x[indices[k]] <= upper[i] (CSR,
   * starts of length count + 1), after checking that the grown model still
   * fits the solver heap. Primal formulation only.
   */
  addRows(
    lower: Float64Array,
    upper: Float64Array,
    starts: Int32Array,
    indices: Int32Array,
    values: Float64Array,
  ): void {
    const count = lower.length;
    if (count === 0) return;
    const nz = starts[count]!;
    const inf = this.highs.infinity;
    if (this.dual) {
      // A primal row is a dual column (dualColumnOfRow, as in toDualModelData); the CSR row is the CSC column.
      assertLpFits(this.rows + count, this.lp.numCols, this.nz + nz, this.what);
      const cost = new Float64Array(count);
      const lo = new Float64Array(count);
      const hi = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        if (!dualColumnOfRow(lower[i]!, upper[i]!, inf, i, cost, lo, hi))
          throw new MechError(
            'internal',
            `${this.what}: only one-sided rows (or equalities) can be appended to the dual formulation`,
          );
      }
      const matrix = packed('csc', this.lp.numCols, count, starts, indices, values);
      this.guarded((m) => m.addCols({ cost, lower: lo, upper: hi, matrix }));
      this.rows += count;
      this.nz += nz;
      return;
    }
    assertLpFits(this.cols, this.rows + count, this.nz + nz, this.what);
    const lo = lower.slice();
    const hi = upper.slice();
    for (let i = 0; i < count; i++) {
      if (lo[i] === -Infinity) lo[i] = -inf;
      if (hi[i] === Infinity) hi[i] = inf;
    }
    const matrix = packed('csr', count, this.cols, starts, indices, values);
    this.guarded((m) => m.addRows({ lower: lo, upper: hi, matrix }));
    this.rows += count;
    this.nz += nz;
  }

  /**
   * Append columns (primal formulation only): cost[j] sum_k values[k] at rows
   * indices[k] for k in starts[j]..starts[j+1) (CSC), bounds [0, inf), after
   * checking that the grown model still fits the solver heap.
   */
  addColumns(cost: Float64Array, starts: Int32Array, indices: Int32Array, values: Float64Array): void {
    if (this.dual)
      throw new MechError('internal', `${this.what}: columns can only be appended to the primal formulation`);
    const count = cost.length;
    if (count === 0) return;
    const nz = starts[count]!;
    assertLpFits(this.cols + count, this.rows, this.nz + nz, this.what);
    const matrix = packed('csc', this.rows, count, starts, indices, values);
    const upper = new Float64Array(count).fill(this.highs.infinity);
    this.guarded((m) => m.addCols({ cost, lower: new Float64Array(count), upper, matrix }));
    this.cols += count;
    this.nz += nz;
  }

  /** Replace every column's objective coefficient (the basis is kept: a warm start for primal simplex). */
  setCosts(cost: Float64Array): void {
    if (cost.length !== this.cols)
      throw new MechError('internal', `${this.what}: ${cost.length} costs for ${this.cols} columns`);
    this.guarded((m) => m.changeColsCost({ kind: 'range', from: 0, to: this.cols - 1 }, cost));
  }

  /** Replace every row's lower bound (upper bounds become +inf): a warm start for dual simplex (the basis is kept). */
  setRowLowerBounds(lower: Float64Array): void {
    if (this.dual || lower.length !== this.rows)
      throw new MechError('internal', `${this.what}: ${lower.length} row bounds for ${this.rows} rows`);
    const inf = this.highs.infinity;
    if (!this.rowUpperInf || this.rowUpperInf.length !== this.rows)
      this.rowUpperInf = new Float64Array(this.rows).fill(inf);
    const upper = this.rowUpperInf;
    this.guarded((m) => m.changeRowsBounds({ kind: 'range', from: 0, to: this.rows - 1 }, lower, upper));
  }
  private rowUpperInf: Float64Array | undefined;

  /** Delete columns (indices strictly increasing); later columns move down. The basis of the others is kept. */
  deleteColumns(indices: Int32Array): void {
    if (indices.length === 0) return;
    this.guarded((m) => m.deleteCols({ kind: 'set', indices }));
    this.cols -= indices.length;
  }

  /** Change the objective coefficients of columns from..from+cost.length-1. */
  setCostRange(from: number, cost: Float64Array): void {
    if (from < 0 || from + cost.length > this.cols || cost.length === 0)
      throw new MechError('internal', `${this.what}: bad column range ${from}+${cost.length} of ${this.cols}`);
    this.guarded((m) => m.changeColsCost({ kind: 'range', from, to: from + cost.length - 1 }, cost));
  }

  /** The current basis (to restore later with setBasis: one warm start per objective in a decomposition). */
  getBasis(): Basis {
    return this.live().getBasis();
  }

  setBasis(basis: Basis): void {
    this.guarded((m) => m.setBasis(basis));
  }

  /** Row duals of the last optimal solve (primal formulation): reduced cost of column j = cost[j] - sum_i a_ij y_i. */
  rowDuals(): Float64Array {
    if (this.dual) throw new MechError('internal', `${this.what}: row duals are only read from the primal formulation`);
    return this.live().getSolution().rowDual;
  }

  /**
   * Solve (or re-solve from the current basis) and map the outcome as
   * solveSparseLp does. `stop` (a deadline on performance.now(), a stop test)
   * is read at the solver's checkpoints as the cancel flag is: when it fires
   * the solve ends with MechError 'cancelled' whose detail.reason is
   * 'time-limit' or 'stopped' (the model stays usable).
   */
  run(announce = true, stop?: RunStop): LpSolution {
    const model = this.live();
    const { highs, options, what, lp } = this;
    const t1 = performance.now();
    checkCancelled(options, `solving ${what}`);
    if (announce) progress(options, 0.5, `solving ${what} (${this.cols} variables, ${this.rows} constraints)`);
    // One synchronous WebAssembly call: an AbortSignal cannot fire during it
    // (see LpOptions); the interrupt checkpoints read the shared cancelFlag and
    // report iteration progress at most once per second.
    // The worker's AbortSignal reads the dispatcher's shared flag with Atomics
    // in its `aborted` getter, so polling it here stops a running solve too.
    const flag = options?.cancelFlag;
    const signal = options?.signal;
    const onProgress = options?.onProgress;
    let lastReport = performance.now();
    let stoppedBy: 'time-limit' | 'stopped' | undefined;
    const checkpoint = (e: InterruptCallbackEvent, kind: string): void => {
      if (cancelRequested(options)) {
        e.interrupt();
        return;
      }
      if (stop) {
        stoppedBy = runStopDue(stop);
        if (stoppedBy) {
          e.interrupt();
          return;
        }
      }
      if (onProgress) {
        const now = performance.now();
        if (now - lastReport >= 1000) {
          lastReport = now;
          const it = kind === 'ipm' ? e.data.ipm_iteration_count : e.data.simplex_iteration_count;
          const iter = it !== undefined && it >= 0 ? ` iteration ${it}` : '';
          onProgress(0.5, `solving ${what}: ${kind}${iter}, ${((now - t1) / 1000).toFixed(0)} s`);
        }
      }
    };
    const callbacks: HighsCallbackMap | undefined =
      flag || signal || onProgress || stop
        ? {
            [highs.constants.callbackType.simplexInterrupt]: (e: InterruptCallbackEvent): undefined => {
              checkpoint(e, 'simplex');
            },
            [highs.constants.callbackType.ipmInterrupt]: (e: InterruptCallbackEvent): undefined => {
              checkpoint(e, 'ipm');
            },
          }
        : undefined;
    try {
      const run = model.run(callbacks);
      const t2 = performance.now();
      const status = run.modelStatus;
      if (status === highs.constants.modelStatus.optimal) {
        const sol = model.getSolution();
        const iters = Number(model.info.get('simplex_iteration_count')) + Number(model.info.get('ipm_iteration_count'));
        let objective = model.getObjectiveValue();
        let x = sol.colValue;
        if (this.dual) {
          // Primal values are the duals of the dual's rows (A'y <= c); HiGHS
          // reports them with the sign of a maximisation's <= rows (>= 0).
          x = sol.rowDual;
          if (lp.sense === 'maximize') objective = -objective;
        }
        const loadMs = this.firstRun ? this.loadMs : 0;
        this.firstRun = false;
        return { objective, colValue: x, solveMs: t2 - t1, loadMs, status: 'optimal', iterations: iters };
      }
      const name = STATUS_NAMES[status] ?? `status ${status}`;
      if (status === highs.constants.modelStatus.interrupted) {
        if (stoppedBy && !cancelRequested(options))
          throw new MechError('cancelled', `${what} was stopped during the solve (${stoppedBy})`, {
            reason: stoppedBy,
          });
        throw new MechError('cancelled', `${what} was cancelled during the solve`);
      }
      if (status === highs.constants.modelStatus.infeasible) {
        throw new MechError('infeasible', `${what} has no feasible solution (HiGHS: ${name})`, { status: name });
      }
      if (
        status === highs.constants.modelStatus.unbounded ||
        status === highs.constants.modelStatus.unboundedOrInfeasible
      ) {
        throw new MechError('infeasible', `${what} has no optimal solution (HiGHS: ${name})`, { status: name });
      }
      if (status === highs.constants.modelStatus.timeLimit || status === highs.constants.modelStatus.iterationLimit) {
        throw new MechError(
          'too-large',
          `${what} was not solved within the ${options?.timeLimitSeconds ?? ''} s limit (HiGHS: ${name}); use a smaller domain, a coarser spanner or a longer limit`,
          { status: name, reason: 'limit' },
        );
      }
      throw new MechError('internal', `HiGHS could not solve ${what} (status: ${name})`, { status: name });
    } catch (e) {
      throw mapHighsError(e, what, () => this.abandon());
    }
  }

  /** Forget the basis and solution (the next run starts cold), keeping the model and options. */
  clearSolver(): void {
    this.live().clearSolver();
  }

  /** Free the native model (idempotent). */
  dispose(): void {
    disposeQuietly(this.model);
    this.model = undefined;
  }

  private live(): HighsModel {
    if (!this.model) throw new MechError('internal', `${this.what}: the solver model was already disposed`);
    return this.model;
  }

  /** Run one call on the live model, its failure mapped by mapHighsError. */
  private guarded(call: (model: HighsModel) => void): void {
    try {
      call(this.live());
    } catch (e) {
      throw mapHighsError(e, this.what, () => this.abandon());
    }
  }

  /** After a WebAssembly abort the runtime is unusable: drop the model without touching it. */
  private abandon(): void {
    this.model = undefined;
  }
}

/** The first nz = starts[major] entries of a CSC or CSR matrix, as HiGHS takes it. */
function packed(
  format: 'csc' | 'csr',
  numRows: number,
  numCols: number,
  starts: Int32Array,
  indices: Int32Array,
  values: Float64Array,
): SparseMatrix {
  const nz = starts[format === 'csc' ? numCols : numRows]!;
  return { format, numRows, numCols, starts, indices: indices.subarray(0, nz), values: values.subarray(0, nz) };
}

function disposeQuietly(model: HighsModel | undefined): void {
  try {
    model?.dispose();
  } catch {
    /* already disposed or runtime aborted */
  }
}

/**
 * MechErrors pass through; a WebAssembly memory abort becomes 'too-large' (and resets the runtime); anything else
 * 'internal'.
 */
function mapHighsError(e: unknown, what: string, onAbort?: () => void): MechError {
  if (e instanceof MechError) return e;
  const msg = messageOf(e);
  if (/memory|OOM|Aborted/i.test(msg)) {
    // A WebAssembly abort leaves the runtime unusable: load a fresh one next time.
    onAbort?.();
    resetHighsRuntime();
    return new MechError(
      'too-large',
      `${what} ran out of solver memory (${msg}); use a smaller domain or a coarser spanner`,
    );
  }
  return new MechError('internal', `HiGHS failed on ${what}: ${msg}`);
}
