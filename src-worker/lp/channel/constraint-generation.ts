import { MechError } from '../../../src-shared/errors';
import { type LpOptions, checkCancelled, progress } from '../solver/lp-options';
import { assertLpFits } from '../solver/memory-estimate';
import { PersistentLp } from '../solver/persistent-lp';
import { type SparseLp, pairRowsCsr } from '../solver/sparse-model';

/**
 * Constraint generation (cutting planes) for the LP over d-private channels
 * (docs/lp.md, "Solution methods"): the full model has, for every constrained pair {a, b} of the
 * privacy graph and every output w, the two rows
 *   C[a][w] - f C[b][w] <= 0  and  C[b][w] - f C[a][w] <= 0   (f = e^(exponent)),
 * but at the optimum only about one row per variable is tight (each column
 * decays outwards from where its mass is, along a tree of tight rows). So:
 *
 *  1. solve with the row sums and a small seed: for each output w, the rows
 *     of the short pairs (exponent <= seedReach x the shortest at either end)
 *     in the direction that bounds the entry farther from w (by `closeness`)
 *     from below, i.e. C[near][w] <= f C[far][w];
 *  2. check every row of the full model against the solution (cheap: two
 *     multiply-compares per pair and output) and append the most violated
 *     ones, at most `batch` per round, to the same HiGHS model;
 *  3. re-solve from the previous basis (dual simplex warm start: the old
 *     basis stays dual feasible when rows are added) until no row of the
 *     full model is violated by more than `tolerance`.
 *
 * The last solution is optimal for a relaxation of the full model and
 * feasible for the full model up to `tolerance` (absolute, on probabilities),
 * so its objective is the full model's optimum up to that tolerance; the
 * caller's privacy repair (privacy-repair.ts, on the full graph) then makes it
 * satisfy every full-model row exactly.
 */
interface CandidatePairs {
  from: Int32Array;
  to: Int32Array;
  /** Exponent of each pair (for the seed's "short pair" test). */
  exponent: Float64Array;
  /** e^(exponent), possibly capped (the coefficient put in the rows). */
  factor: Float64Array;
}

export interface GenerationOptions {
  /** Largest absolute violation C[a][w] - f C[b][w] left unrepaired by the LP (default 1e-9). */
  tolerance?: number;
  /** Most rows appended per round (default max(5000, n m / 4)). */
  batch?: number;
  /** Give up (MechError 'too-large') after this many rounds (default 200). */
  maxRounds?: number;
  /**
   * Seed pairs: exponent <= seedReach x the shortest exponent at either end (default 1.5: the 8-neighbours on a grid).
   * 0: no seed.
   */
  seedReach?: number;
  /**
   * Algorithm of the first solve (default: options.solver, else simplex). 'ipm'
   * (interior point with crossover, which leaves the basis the warm re-solves
   * start from) can be faster on a large seed; the re-solves always use dual simplex.
   */
  firstSolver?: 'simplex' | 'ipm';
  /**
   * Hand HiGHS the LP or its dual (default: options.formulation, else 'dual':
   * rows are appended as the dual's columns, primal simplex resumes, and its
   * basis has one row per variable instead of one per constraint, see
   * SparseLp.toDualModelData; measured 1.6-2x faster than 'primal' on 8x8 and
   * 10x10 grids).
   */
  formulation?: 'primal' | 'dual';
  /**
   * How far output w is from secret x (e.g. the loss); orients the seed rows. Without it both directions are seeded.
   */
  closeness?: (x: number, w: number) => number;
}

export interface GenerationRound {
  /** Privacy rows in the model during this round's solve. */
  rows: number;
  /** Objective of this round's solve. */
  objective: number;
  /** Rows of the full model violated by more than the tolerance after it, and the largest violation. */
  violated: number;
  maxViolation: number;
  /** Rows appended after it (0 in the last round). */
  added: number;
  solveMs: number;
  checkMs: number;
  iterations: number;
}

interface GenerationResult {
  colValue: Float64Array;
  objective: number;
  rounds: GenerationRound[];
  /** Privacy rows in the final model, and in the full model. */
  privacyRows: number;
  fullPrivacyRows: number;
  /** Rows (with the row sums) and nonzeros of the final model. */
  rows: number;
  nonzeros: number;
  loadMs: number;
  solveMs: number;
  checkMs: number;
  iterations: number;
  /** Warm re-solves that failed numerically and were repeated from scratch. */
  coldRetries: number;
}

/**
 * One flag per full-model row, key (e*m + w)*2 + dir (dir 0: C[a][w] <= f
 * C[b][w], dir 1: C[b][w] <= f C[a][w]): whether the row is in the model. A
 * bitset: 64M rows for all pairs of a 20x20 grid take 8 MB.
 */
class RowFlags {
  private readonly bits: Uint32Array;
  constructor(total: number) {
    this.bits = new Uint32Array(Math.ceil(total / 32));
  }
  has(key: number): boolean {
    return (this.bits[key >>> 5]! & (1 << (key & 31))) !== 0;
  }
  mark(key: number): void {
    this.bits[key >>> 5] = this.bits[key >>> 5]! | (1 << (key & 31));
  }
}

/**
 * The seed rows (see the header, step 1) into `rows`, marked in `flags`;
 * refuses early (MechError too-large) when even the seed would not fit
 * (at most two rows per short pair and output).
 */
function seedRows(
  base: SparseLp,
  n: number,
  m: number,
  pairs: CandidatePairs,
  reach: number,
  close: GenerationOptions['closeness'],
  flags: RowFlags,
  rows: RowBuffer,
  what: string,
): void {
  const { from, to, factor: fE, exponent } = pairs;
  const E = from.length;
  const minExp = new Float64Array(n).fill(Infinity);
  for (let e = 0; e < E; e++) {
    const x = exponent[e]!;
    if (x < minExp[from[e]!]!) minExp[from[e]!] = x;
    if (x < minExp[to[e]!]!) minExp[to[e]!] = x;
  }
  const isShort = (e: number): boolean => exponent[e]! <= reach * Math.min(minExp[from[e]!]!, minExp[to[e]!]!);
  let short = 0;
  for (let e = 0; e < E; e++) if (isShort(e)) short++;
  assertLpFits(base.numCols, base.numRows + short * m, base.nonzeros + 2 * short * m, what);
  for (let e = 0; e < E; e++) {
    if (!isShort(e)) continue;
    const a = from[e]!;
    const b = to[e]!;
    for (let w = 0; w < m; w++) {
      const da = close ? close(a, w) : 0;
      const db = close ? close(b, w) : 0;
      const key = (e * m + w) * 2;
      if (da <= db) {
        flags.mark(key);
        rows.push(a * m + w, b * m + w, fE[e]!);
      }
      if (db <= da) {
        flags.mark(key + 1);
        rows.push(b * m + w, a * m + w, fE[e]!);
      }
    }
  }
}

/**
 * Rows of the full model violated by a solution, by more than the tolerance and not yet in the model (key, violation),
 * grown as needed.
 */
class Violations {
  keys = new Int32Array(1 << 16);
  viol = new Float64Array(1 << 16);
  count = 0;
  /** Largest violation, rows in the model included (solver tolerance). */
  max = 0;

  /** Check every row of the full model against C (two multiply-compares per pair and output). */
  collect(C: Float64Array, m: number, pairs: CandidatePairs, tol: number, flags: RowFlags): void {
    const { from, to, factor: fE } = pairs;
    this.count = 0;
    this.max = 0;
    for (let e = 0; e < from.length; e++) {
      const f = fE[e]!;
      const ra = from[e]! * m;
      const rb = to[e]! * m;
      const base0 = e * m * 2;
      for (let w = 0; w < m; w++) {
        const ca = C[ra + w]!;
        const cb = C[rb + w]!;
        const v1 = ca - f * cb;
        const v2 = cb - f * ca;
        const v = v1 > v2 ? v1 : v2;
        if (v <= tol) continue;
        if (v > this.max) this.max = v;
        const key = base0 + 2 * w + (v1 > v2 ? 0 : 1);
        if (flags.has(key)) continue; // in the model: solver tolerance, not a missing row
        this.push(key, v);
      }
    }
  }

  private push(key: number, v: number): void {
    if (this.count === this.keys.length) {
      const k2 = new Int32Array(2 * this.count);
      k2.set(this.keys);
      this.keys = k2;
      const v2 = new Float64Array(2 * this.count);
      v2.set(this.viol);
      this.viol = v2;
    }
    this.keys[this.count] = key;
    this.viol[this.count] = v;
    this.count++;
  }

  /** Move the `batch` most violated rows into `rows` (marked in `flags`); returns how many. */
  takeMostViolated(batch: number, m: number, pairs: CandidatePairs, flags: RowFlags, rows: RowBuffer): number {
    const { count, keys, viol } = this;
    let threshold = 0;
    if (count > batch) threshold = viol.slice(0, count).sort()[count - batch]!;
    let added = 0;
    for (let k = 0; k < count && added < batch; k++) {
      if (viol[k]! < threshold) continue;
      const key = keys[k]!;
      const dir = key & 1;
      const ew = key >>> 1;
      const e = Math.floor(ew / m);
      const w = ew - e * m;
      const a = dir === 0 ? pairs.from[e]! : pairs.to[e]!;
      const b = dir === 0 ? pairs.to[e]! : pairs.from[e]!;
      flags.mark(key);
      rows.push(a * m + w, b * m + w, pairs.factor[e]!);
      added++;
    }
    return added;
  }
}

/**
 * A solver model of `base` set up for warm re-solves after rows are appended (Devex pricing; primal simplex on the dual
 * form).
 */
async function openGenerationLp(
  base: SparseLp,
  what: string,
  options: LpOptions | undefined,
  solver: 'simplex' | 'ipm',
  formulation: 'primal' | 'dual',
): Promise<PersistentLp> {
  const lp = await PersistentLp.open(base, what, { ...options, solver, crossover: true, formulation });
  // Devex pricing: steepest-edge weights would be recomputed for every row
  // after each addRows (measured: ~1 s per re-solve at 50k rows even when
  // the warm start needs a dozen iterations; Devex re-solves take ~30 ms).
  if (options?.highsOptions?.simplex_dual_edge_weight_strategy === undefined)
    lp.setOption('simplex_dual_edge_weight_strategy', 1);
  // Dual formulation: appended rows are columns of the transposed model, the
  // old basis stays primal feasible there, so primal simplex resumes.
  if (formulation === 'dual' && options?.highsOptions?.simplex_strategy === undefined)
    lp.setOption('simplex_strategy', 4);
  return lp;
}

/**
 * Solve `base` (the channel LP holding only its non-privacy rows, variables
 * x*m + w) with the privacy rows of `pairs` generated lazily; see above.
 */
export async function solveByConstraintGeneration(
  base: SparseLp,
  n: number,
  m: number,
  pairs: CandidatePairs,
  what: string,
  options?: LpOptions,
  gen: GenerationOptions = {},
): Promise<GenerationResult> {
  const E = pairs.from.length;
  const total = 2 * E * m;
  if (total > 2 ** 31 - 1)
    throw new MechError(
      'too-large',
      `${what}: ${E} constrained pairs x ${m} outputs is too many privacy rows to track (${total})`,
      { pairs: E, outputs: m },
    );
  const tol = gen.tolerance ?? 1e-9;
  const batch = Math.max(1, Math.floor(gen.batch ?? Math.max(5000, (n * m) / 4)));
  const maxRounds = gen.maxRounds ?? 200;
  const reach = gen.seedReach ?? 1.5;
  const flags = new RowFlags(total);
  const rows = new RowBuffer();
  if (reach > 0) seedRows(base, n, m, pairs, reach, gen.closeness, flags, rows, what);
  checkCancelled(options, `seeding ${what}`);
  const seedCount = rows.count;
  rows.appendTo(base);
  rows.clear();

  const first = gen.firstSolver ?? options?.solver ?? 'simplex';
  const formulation = gen.formulation ?? options?.formulation ?? 'dual';
  let lp = await openGenerationLp(base, what, options, first === 'ipm' ? 'ipm' : 'simplex', formulation);
  const rounds: GenerationRound[] = [];
  let privacyRows = seedCount;
  let loadMs = lp.loadMs;
  let solveMs = 0;
  let checkMs = 0;
  let iterations = 0;
  let coldRetries = 0;
  const violations = new Violations();
  try {
    for (let round = 1; ; round++) {
      let sol: ReturnType<PersistentLp['run']>;
      try {
        sol = lp.run();
      } catch (e) {
        // A warm re-solve can end in numerical trouble (HiGHS status 'unknown' or a run
        // error), e.g. with all pairs, whose far rows carry factors up to e^30: solve the
        // same rows once more in a fresh model, cold, with steepest-edge pricing.
        if (!(round > 1 && e instanceof MechError && e.code === 'internal')) throw e;
        coldRetries++;
        lp.dispose();
        lp = await PersistentLp.open(base, what, { ...options, solver: 'simplex', formulation });
        sol = lp.run();
        lp.setOption('simplex_dual_edge_weight_strategy', 1);
        if (formulation === 'dual') lp.setOption('simplex_strategy', 4);
      }
      if (round === 1 && first === 'ipm') lp.setOption('solver', 'simplex');
      solveMs += sol.solveMs;
      iterations += sol.iterations;
      const t0 = performance.now();
      checkCancelled(options, `checking the privacy rows of ${what}`);
      violations.collect(sol.colValue, m, pairs, tol, flags);
      const added = violations.takeMostViolated(batch, m, pairs, flags, rows);
      const ms = performance.now() - t0;
      checkMs += ms;
      const { count, max: maxV } = violations;
      rounds.push({
        rows: privacyRows,
        objective: sol.objective,
        violated: count,
        maxViolation: maxV,
        added,
        solveMs: sol.solveMs,
        checkMs: ms,
        iterations: sol.iterations,
      });
      if (added === 0) {
        return {
          colValue: sol.colValue,
          objective: sol.objective,
          rounds,
          privacyRows,
          fullPrivacyRows: total,
          rows: lp.numRows,
          nonzeros: lp.nonzeros,
          loadMs,
          solveMs,
          checkMs,
          iterations,
          coldRetries,
        };
      }
      if (round >= maxRounds) {
        throw new MechError(
          'too-large',
          `${what}: constraint generation did not converge in ${maxRounds} rounds (${count} rows still violated, largest violation ${maxV.toExponential(2)})`,
          { rounds: maxRounds, violated: count },
        );
      }
      progress(
        options,
        0.5,
        `solving ${what}: round ${round}, ${privacyRows} of ${total} privacy rows, ${count} violated, adding ${added}`,
      );
      const t1 = performance.now();
      lp.addRows(...rows.csr());
      // The same rows in `base`, for a cold rebuild after a numerical failure.
      rows.appendTo(base);
      loadMs += performance.now() - t1;
      privacyRows += added;
      rows.clear();
    }
  } finally {
    lp.dispose();
  }
}

/** Growable list of two-entry rows x[i] - f x[j] <= 0, handed over as CSR. */
class RowBuffer {
  i = new Int32Array(1024);
  j = new Int32Array(1024);
  f = new Float64Array(1024);
  count = 0;
  push(i: number, j: number, f: number): void {
    if (this.count === this.i.length) {
      const c = 2 * this.count;
      const i2 = new Int32Array(c);
      i2.set(this.i);
      this.i = i2;
      const j2 = new Int32Array(c);
      j2.set(this.j);
      this.j = j2;
      const f2 = new Float64Array(c);
      f2.set(this.f);
      this.f = f2;
    }
    this.i[this.count] = i;
    this.j[this.count] = j;
    this.f[this.count] = f;
    this.count++;
  }
  clear(): void {
    this.count = 0;
  }
  /** Append the rows to a model being built. */
  appendTo(lp: SparseLp): void {
    for (let k = 0; k < this.count; k++) lp.addRow2(-Infinity, 0, this.i[k]!, 1, this.j[k]!, -this.f[k]!);
  }
  csr(): [Float64Array, Float64Array, Int32Array, Int32Array, Float64Array] {
    const { lower, upper, starts, indices, values } = pairRowsCsr(this.i, this.j, this.f, this.count);
    return [lower, upper, starts, indices, values];
  }
}
