/**
 * The rounds of one column decomposition (column-decomposition.ts): master, smoothed duals, pricing, bound, stopping
 * rule.
 */
import { MechError } from '../../../src-shared/errors';
import { type LpOptions, checkCancelled, progress } from '../solver/lp-options';
import { type LpSolution, type RunStop, runStopReason } from '../solver/persistent-lp';
import { DecompositionMaster, type MasterColumn } from './decomposition-master';
import { PlateauSearch, PLATEAU_MAX_SKIP } from './plateau-search';
import {
  LAZY_ROWS_PER_GROUPED_OUTPUT,
  LAZY_ROWS_PER_OUTPUT,
  LAZY_START_FACTOR,
  MAX_PRICING_FACTOR,
  toRows,
  violatedRows,
} from '../pricing/pricing-rows';
import { outputGroup } from '../pricing/pricing';
import { type PricingEngine } from '../pricing/pricing-pool';
import {
  type DecompositionSetup,
  REMAP_MAX_WAIT,
  REMAP_TIME_SHARE,
  START_STUCK_ROUNDS,
  STALL_GAP,
  STALL_ROUNDS,
  STALL_ROUNDS_FAR,
  gapOf,
  maxPending,
  privateStartChannel,
  relaxedModelBound,
} from './decomposition-setup';
import type {
  DecompositionIteration,
  DecompositionOptions,
  DecompositionResult,
  DecompositionStop,
} from './decomposition-options';

/** What one round's pricing produced. */
interface PricedRound {
  /** Columns with negative reduced cost at the master's duals, lifted into P. */
  batch: MasterColumn[];
  /** Lazy rows the pricing solutions violate, by group of outputs (pricing.ts PricingGroups), and how many in all. */
  newRows: Map<number, { from: number[]; to: number[]; factor: number[] }>;
  newRowCount: number;
  /** Whether every output was priced exactly (only then is `lower` a bound). */
  complete: boolean;
  /** Only plateau columns, or the pricing LPs of a block of outputs, were offered (no bound). */
  heuristic: boolean;
  lower: number;
}

/** The rounds of one decomposition: master solve, smoothed duals, pricing, bound, stopping rule. */
export class DecompositionRun {
  private readonly iterations: DecompositionIteration[] = [];
  private masterMs = 0;
  private pricingMs = 0;
  private simplexIterations = 0;
  private firstUpper = Infinity;
  private upper = Infinity;
  private lam: Float64Array;
  private readonly lamS: Float64Array;
  private lamBest: Float64Array;
  /** lambda = 0 is a valid starting centre: its bound L(0) = sum_w min_P c_w . r (0 for costs >= 0). */
  private lowerBest: number;
  private best: { channel: Float64Array; upper: number };
  private boxUsed = false;
  private stalled = 0;
  private lastUpper = Infinity;
  private pruned = 0;
  private boundStalled = 0;
  private lastExact = -1;
  /** Partial pricing: the last full round, the partial rounds so far, and whether the last one found nothing. */
  private lastFull = -Infinity;
  private partialRounds = 0;
  private partialEmpty = false;
  private plateauColumns = 0;
  private restarted = false;
  private stuckAtStart = 0;
  /**
   * Directed pair rows held by each group's pricing model (lazy rows; a copy of the seed's flags per group, made when
   * first needed).
   */
  private readonly held: Uint8Array[] = [];
  private alphaA: number;
  private readonly rsum: Float64Array;
  private lastFraction = 0.1;
  /** Whether lowerBest is still the start value (no pricing round has raised it). */
  private trivialBound = true;
  /** Largest factor of the rows a lazy pricing model admits (raised to MAX_PRICING_FACTOR when the loop stalls). */
  private lazyMaxFactor = LAZY_START_FACTOR;
  private readonly plateau: PlateauSearch | null;
  private readonly adaptive: boolean;
  /** startDuals given and not priced yet: the first round prices exactly there. */
  private startPending = false;
  /**
   * Whether pricing is exact over the whole column polytope: its columns lie in P (no lift) and there are no lazy rows.
   */
  private readonly exactPricing: boolean;
  /** Time in remapIncumbent, and the master objective it last remapped. */
  private remapMs = 0;
  private lastRemapped = NaN;
  /** Rounds to skip before the next remap, and the current back-off (after remaps that gained nothing). */
  private remapWait = 0;
  private remapIdle = 0;
  /** Milliseconds per (output in use x output x secret) of the last remap (a first guess before any). */
  private remapRate = 1e-6;

  constructor(
    private readonly s: DecompositionSetup,
    private readonly master: DecompositionMaster,
    private readonly pricing: PricingEngine,
    private readonly options: LpOptions | undefined,
    private readonly subOptions: LpOptions,
    private readonly opts: DecompositionOptions,
  ) {
    const { n, m } = s;
    this.lam = new Float64Array(n);
    this.lamS = new Float64Array(n);
    this.lamBest = new Float64Array(n);
    this.rsum = new Float64Array(n);
    this.lowerBest = s.cNonNeg ? 0 : -Infinity;
    this.best = s.fallback;
    this.plateau =
      opts.plateau !== true || m > n || n > 2500
        ? null
        : new PlateauSearch(n, m, s.lifter, opts.plateauCandidates ?? 48);
    // Self-adjusting smoothing (Pessoa, Sadykov, Uchoa, Vanderbeck 2018): the weight alphaA on the centre moves by the
    // supergradient at the priced point: towards the master's duals while L still rises that way, towards the centre
    // otherwise.
    this.adaptive = opts.smoothingMode === 'adaptive';
    this.exactPricing = pricing.exact === true;
    this.alphaA = s.alpha0;
    if (opts.startDuals) {
      if (opts.startDuals.length !== n || !opts.startDuals.every(Number.isFinite))
        throw new MechError('invalid-input', `${s.what}: the start duals must be ${n} finite numbers`);
      this.lamBest = Float64Array.from(opts.startDuals);
      this.startPending = true;
    }
  }

  /** The time limit and the stop test, for the solver's checkpoints during a master solve. */
  private get runStop(): RunStop {
    return { deadline: this.s.deadline, shouldStop: this.opts.shouldStop };
  }

  /** Why the loop must stop now (time limit, stop test), or null. */
  private stopNow(): DecompositionStop | null {
    if (performance.now() > this.s.deadline) return 'time-limit';
    if (this.opts.shouldStop?.()) return 'stopped';
    return null;
  }

  /**
   * The start columns, the first master solve (its channel is the best so far
   * unless the fallback is cheaper), then the du Merle box. The time limit and
   * the stop test are honoured before and during that solve (on a 50 x 50
   * grid it took minutes): the reason is returned, and the best channel is
   * then the fallback.
   */
  start(): DecompositionStop | null {
    const { master } = this;
    const before = this.stopNow();
    if (before) return before;
    master.append(this.s.start);
    const { seedFrom, start } = this.s;
    if (seedFrom < start.length) master.crash(Array.from({ length: start.length - seedFrom }, (_, i) => seedFrom + i));
    let first: LpSolution;
    try {
      first = master.run(this.runStop);
    } catch (e) {
      const reason = runStopReason(e);
      if (reason) return reason;
      throw e;
    }
    this.firstUpper = this.upper = first.objective;
    if (first.objective <= this.best.upper)
      this.best = { channel: master.assemble(first.colValue), upper: first.objective };
    master.addBox(Math.max(Math.abs(first.objective), 1e-12));
    return null;
  }

  async solve(): Promise<DecompositionResult> {
    for (let it = 0; ; it++) {
      const done = await this.round(it);
      if (done) return done;
    }
  }

  private async round(it: number): Promise<DecompositionResult | null> {
    const { s } = this;
    if (it >= s.maxIterations) return this.finish('iteration-limit');
    const stop = this.stopNow();
    if (stop) return this.finish(stop);
    checkCancelled(this.options, `solving ${s.what}`);
    const ms = this.solveMaster();
    if ('stop' in ms) return this.finish(ms.stop, ms.message);
    if (this.restartIfStuck()) return null;
    const scale = Math.max(Math.abs(this.upper), 1e-12);
    const alpha = this.smoothDuals(it, scale);
    let priced: PricedRound;
    try {
      priced = await this.priceRound(it, scale);
    } catch (e) {
      if (e instanceof MechError && e.code === 'too-large') return this.finish('solver-memory', e.message);
      throw e;
    }
    if (this.adaptive && priced.complete && alpha > 0) this.adaptSmoothing();
    this.updateBound(priced, scale);
    this.report(it, priced);
    return this.decide(priced, alpha, ms.colValue, scale);
  }

  /**
   * Solve the master (stopped by the time limit or the stop test like the
   * first one); the solution, or why the loop ends (a limit, or a solver
   * memory failure with its message). Updates the duals and the best private channel.
   */
  private solveMaster(): LpSolution | { stop: DecompositionStop; message?: string } {
    const t = performance.now();
    let ms: LpSolution;
    try {
      ms = this.master.run(this.runStop);
    } catch (e) {
      if (e instanceof MechError && e.code === 'too-large') return { stop: 'solver-memory', message: e.message };
      const reason = runStopReason(e);
      if (reason) return { stop: reason };
      // A master that fails numerically (its iteration guard, a singular basis twice) after the first: the rounds so
      // far stand (their bound is certified, the best channel is private), so the loop ends there, not the job.
      if (e instanceof MechError && e.code === 'internal') return { stop: 'stalled', message: e.message };
      throw e;
    }
    this.masterMs += performance.now() - t;
    this.simplexIterations += ms.iterations;
    this.upper = ms.objective;
    this.lam = this.master.duals();
    // Penalty columns in use: the box is too tight for this master, widen it (the duals it clips are not the
    // optimum's). (Basic at a rounding level on a degenerate vertex does not count.)
    this.boxUsed = this.master.boxMass(ms.colValue) > 1e-9;
    if (!this.boxUsed && this.upper <= this.best.upper)
      this.best = { channel: this.master.assemble(ms.colValue), upper: this.upper };
    if (!this.boxUsed && this.opts.remap !== false) this.remapIncumbent(ms.colValue);
    return ms;
  }

  /**
   * Degenerate start: when the master has sat at its first objective for
   * START_STUCK_ROUNDS rounds, drop the constant columns (the constant
   * channel is the first master's optimum and its duals price columns the
   * master cannot use) and offer the private start channel instead.
   */
  private restartIfStuck(): boolean {
    if (!this.s.canRestart || this.restarted) return false;
    const f = this.firstUpper;
    this.stuckAtStart = this.upper >= f - 1e-12 * Math.max(Math.abs(f), 1e-12) ? this.stuckAtStart + 1 : -Infinity;
    if (this.stuckAtStart < START_STUCK_ROUNDS) return false;
    this.restarted = true;
    this.master.dropConstantColumns();
    this.master.append(privateStartChannel(this.s.indicators).map((r, w) => ({ w, r })));
    this.stalled = 0;
    return true;
  }

  /**
   * Wentges smoothing: lamS = alpha lamBest + (1 - alpha) lam. The weight
   * fades as the gap closes, and halves with every round the master does not
   * improve (degenerate masters: new columns enter at 0 and only the bound
   * can move, which smoothing would slow down). Returns alpha.
   */
  private smoothDuals(it: number, scale: number): number {
    const { alpha0 } = this.s;
    const gapNow = gapOf(this.upper, this.lowerBest);
    if (this.upper < this.lastUpper - 1e-9 * scale) this.stalled = 0;
    else if (it > 0) this.stalled++;
    this.lastUpper = this.upper;
    const base = this.adaptive
      ? gapNow > 1e-5
        ? this.alphaA
        : 0
      : gapNow > 1e-2
        ? alpha0
        : gapNow > 1e-3
          ? 0.6 * alpha0
          : gapNow > 1e-5
            ? 0.3 * alpha0
            : 0;
    const alpha = this.startPending
      ? 1
      : this.trivialBound && this.opts.trivialCentre === 'master'
        ? 0
        : base * 0.5 ** this.stalled;
    this.startPending = false;
    const { lam, lamS, lamBest } = this;
    for (let x = 0; x < lamS.length; x++) lamS[x] = alpha * lamBest[x]! + (1 - alpha) * lam[x]!;
    return alpha;
  }

  /**
   * Plateau columns first (cheap, no LP: while they improve the master, exact
   * pricing runs only every PLATEAU_MAX_SKIP + 1 rounds), else the pricing LPs
   * at the smoothed duals, their columns lifted into P and kept when their
   * reduced cost at the master's own duals is negative.
   */
  private async priceRound(it: number, scale: number): Promise<PricedRound> {
    const { s, lam, lamS } = this;
    const { n, m, c } = s;
    let lower = 0;
    for (let x = 0; x < n; x++) lower += lamS[x]!;
    const out: PricedRound = {
      batch: [],
      newRows: new Map(),
      newRowCount: 0,
      complete: false,
      heuristic: false,
      lower,
    };
    const t = performance.now();
    if (this.plateau && !this.boxUsed && it - this.lastExact <= PLATEAU_MAX_SKIP) {
      const cols = this.plateau.columns(c, lam, -1e-9 * scale);
      if (cols.length >= Math.max(1, Math.ceil(m / 50))) {
        out.heuristic = true;
        out.batch.push(...cols);
        this.plateauColumns += cols.length;
        this.pricingMs += performance.now() - t;
        return out;
      }
    }
    this.lastExact = it;
    const only = this.partialBlock(it);
    out.heuristic = only !== undefined;
    // A pricing bound within 1% of the gap's share per output is good enough: a cold re-solve
    // (to certify the warm one) only where it matters (measured: 200 cold solves per round on all pairs otherwise).
    const retryTolerance = this.lowerBest === -Infinity ? 0 : (0.01 * Math.max(0, this.upper - this.lowerBest)) / m;
    const priced = await this.pricing.price({
      c,
      lam: lamS,
      deadline: s.deadline,
      shouldStop: this.opts.shouldStop,
      retryTolerance,
      only,
    });
    // A partial round (deadline, stop, or partial pricing) gives no bound.
    out.complete = priced.complete && !only;
    if (this.adaptive) this.rsum.fill(0);
    for (let w = 0; w < m; w++) {
      const ps = priced.outcomes[w];
      if (!ps) continue;
      if (this.adaptive) for (let x = 0; x < n; x++) this.rsum[x]! += ps.r[x]!;
      this.simplexIterations += ps.iterations;
      out.lower += Math.min(0, ps.safeBound);
      const r = ps.r;
      if (s.inPricing && !this.exactPricing) {
        const g = outputGroup(w, s.groupSize);
        let rows = out.newRows.get(g);
        if (!rows) out.newRows.set(g, (rows = { from: [], to: [], factor: [] }));
        const before = rows.from.length;
        violatedRows(
          r,
          s.pairs,
          (this.held[g] ??= s.inPricing.slice()),
          rows,
          s.groupSize < m ? LAZY_ROWS_PER_GROUPED_OUTPUT : LAZY_ROWS_PER_OUTPUT,
          this.lazyMaxFactor,
        );
        out.newRowCount += rows.from.length - before;
      }
      // Reduced cost against the master's own duals, of the column in P (an LP pricing's column lifted into P first).
      if (!this.exactPricing) s.lifter.lift(r);
      let rc = 0;
      for (let x = 0; x < n; x++) rc += (c[w * n + x]! - lam[x]!) * r[x]!;
      if (rc < -1e-12 * scale) out.batch.push({ w, r });
    }
    this.pricingMs += performance.now() - t;
    if (only) this.partialEmpty = out.batch.length === 0;
    return out;
  }

  /**
   * The outputs a partial pricing round prices (see DecompositionOptions.partialPricing), or undefined for a
   * full round: the first, k rounds after the last full one, after an empty partial round, and while the
   * penalty columns are in use (their box is only widened after a full round).
   */
  private partialBlock(it: number): Uint8Array | undefined {
    const k = Math.floor(this.opts.partialPricing ?? 1);
    if (k <= 1 || this.boxUsed || this.partialEmpty || it - this.lastFull >= k) {
      this.lastFull = it;
      this.partialEmpty = false;
      return undefined;
    }
    const block = this.partialRounds++ % k;
    const only = new Uint8Array(this.s.m);
    for (let w = block; w < this.s.m; w += k) only[w] = 1;
    return only;
  }

  /**
   * Supergradient of L at lamS: g_x = 1 - sum_w r_w[x] (the pricing minimisers); g . (lam - lamBest) > 0: L rises
   * towards the master's duals.
   */
  private adaptSmoothing(): void {
    const { lam, lamBest, rsum } = this;
    let dot = 0;
    for (let x = 0; x < lam.length; x++) dot += (1 - rsum[x]!) * (lam[x]! - lamBest[x]!);
    this.alphaA = dot > 0 ? Math.max(0, this.alphaA - 0.1) : Math.min(0.99, this.alphaA + 0.1 * (1 - this.alphaA));
  }

  private updateBound(p: PricedRound, scale: number): void {
    if (p.complete && p.lower > this.lowerBest + 1e-12 * scale) this.boundStalled = 0;
    else if (!p.heuristic) this.boundStalled++;
    if (p.complete && p.lower > this.lowerBest) {
      this.trivialBound = false;
      this.lowerBest = p.lower;
      this.lamBest = this.lamS.slice();
    } else if (this.trivialBound) {
      // start duals no better than the trivial bound: back to lambda = 0
      this.lamBest.fill(0);
    }
  }

  /**
   * Record the round (what a stop or a time limit would return now: the best
   * private channel so far, not the master's objective while its penalty
   * columns are in use, and its certified gap) and report progress: the
   * larger of the gap's way (log scale) from 100% to the target and the time
   * used of the limit, never decreasing.
   */
  private report(it: number, p: PricedRound): void {
    const { s, best, lowerBest, pricing } = this;
    const now = performance.now();
    const bestGap = gapOf(best.upper, lowerBest);
    const round: DecompositionIteration = {
      round: it + 1,
      objective: s.sign * best.upper,
      bound: s.sign * lowerBest,
      gap: bestGap,
      added: p.batch.length,
      masterMs: this.masterMs,
      pricingMs: this.pricingMs,
      elapsedMs: now - s.t0,
      pricingRows: pricing.rows + maxPending(p.newRows),
      pricingColdRetries: pricing.coldRetries,
      exactPricing: !p.heuristic,
    };
    this.iterations.push(round);
    this.opts.onRound?.(round);
    const gapFrac = Math.min(1, Math.log10(Math.max(bestGap, s.tolerance)) / Math.log10(s.tolerance));
    const timeFrac = s.deadline < Infinity ? (now - s.t0) / (s.deadline - s.t0) : 0;
    this.lastFraction = Math.max(this.lastFraction, Math.min(0.88, 0.1 + 0.78 * Math.max(gapFrac, timeFrac, 0)));
    progress(
      this.options,
      this.lastFraction,
      `solving ${s.what} by column decomposition: round ${it + 1}, objective ${(s.sign * best.upper).toPrecision(8)}, bound ${(s.sign * lowerBest).toPrecision(8)}, gap ${(bestGap * 100).toPrecision(2)}%, ${this.master.columns} columns, ${((now - s.t0) / 1000).toFixed(0)} s`,
    );
  }

  /**
   * Make room, then append: the master is pruned before the batch enters (so it never exceeds maxCols, the
   * budget's column count), and when even the master's basic columns leave no room for the whole batch only its
   * columns of most negative reduced cost at the master's duals enter (on 50 x 50 the first round's 2,500
   * columns of 2,500 entries went over the solver heap and ended the solve).
   */
  private appendAndPrune(batch: MasterColumn[], theta: Float64Array, scale: number): void {
    const { maxCols, keepCols, n, c } = this.s;
    const room = Math.max(0, maxCols - batch.length);
    this.pruned += this.master.prune(theta, this.lam, scale, room, Math.min(keepCols, room));
    const free = Math.max(1, maxCols - this.master.columns);
    if (batch.length > free) {
      const rc = (col: MasterColumn): number => {
        let t = 0;
        for (let x = 0; x < n; x++) t += (c[col.w * n + x]! - this.lam[x]!) * col.r[x]!;
        return t;
      };
      batch = batch
        .map((col) => ({ col, rc: rc(col) }))
        .sort((a, b) => a.rc - b.rc)
        .slice(0, free)
        .map((e) => e.col);
    }
    this.master.append(batch);
  }

  /** After a round: add what pricing found, widen the box, or stop (target gap, stall, nothing left to add). */
  private async decide(
    p: PricedRound,
    alpha: number,
    theta: Float64Array,
    scale: number,
  ): Promise<DecompositionResult | null> {
    const { s } = this;
    if (p.heuristic || p.complete) {
      // Lazy rows found by any pricing solve (those of a partial round too: they are marked held).
      try {
        for (const [g, rows] of p.newRows) if (rows.from.length > 0) await this.pricing.addRows(toRows(rows), g);
      } catch (e) {
        if (e instanceof MechError && e.code === 'too-large') return this.finish('solver-memory', e.message);
        throw e;
      }
    }
    if (p.heuristic) {
      this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    if (!p.complete) return null; // the loop head returns the best so far
    const rowsAdded = p.newRowCount;
    if (this.boxUsed) {
      // du Merle: the penalty columns stand in for columns not generated yet;
      // widen the box only once pricing finds nothing better to offer.
      if (p.batch.length === 0 && rowsAdded === 0) this.master.widenBox(10);
      else this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    const gap = gapOf(this.upper, this.lowerBest);
    if (gap <= s.tolerance) return this.finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
    // Far from the target a stall is more likely degeneracy than solver accuracy: more patience there.
    const stallLimit = gap <= STALL_GAP ? STALL_ROUNDS : STALL_ROUNDS_FAR;
    const stuck = this.stalled >= stallLimit && this.boundStalled >= stallLimit;
    const quiet = rowsAdded === 0 && alpha < 1e-6;
    if (
      quiet &&
      (stuck || p.batch.length === 0) &&
      s.inPricing &&
      !this.exactPricing &&
      this.lazyMaxFactor < MAX_PRICING_FACTOR
    ) {
      // Second stage of lazy pricing: admit the far rows (up to e^18) and go on.
      this.lazyMaxFactor = MAX_PRICING_FACTOR;
      this.stalled = 0;
      this.boundStalled = 0;
      this.appendAndPrune(p.batch, theta, scale);
      return null;
    }
    // Neither the master nor the bound has moved for stallLimit rounds at the master's own duals: the columns
    // priced out have reduced costs below the solver's tolerance. The certified gap is what it is.
    if (quiet && stuck) return this.finish(gap <= 1e-9 ? 'optimal' : 'stalled');
    // Nothing to add at the master's own duals: the master is optimal; the bound there equals it up to the solver's
    // accuracy.
    if (quiet && p.batch.length === 0) return this.finish(gap <= 1e-9 ? 'optimal' : 'target-gap');
    this.appendAndPrune(p.batch, theta, scale);
    return null;
  }

  /**
   * The Bayes remap of the master's channel as the incumbent: each output z is replaced by the output w of least
   * cost sum_x C[x][z] c_w[x]. Post-processing keeps privacy (the outputs mapped to one w sum to a column of the
   * cone of P) and the row sums, so the remapped channel is private and costs no more than the master; it becomes
   * the best channel when it is cheaper. Only the incumbent: offered to the master as columns, the remapped channel's
   * few wide columns made it degenerate (on the 20 x 20 city at eps 0.5 master and bound stood still for 40 rounds).
   * Measured there (eps 0.5, 2 threads): gap 7.6% after 20 s instead of 28%; near the optimum the master's channel
   * is remap-optimal and nothing changes. It costs (outputs in use) x m x n operations: run only while the time
   * spent on it stays under REMAP_TIME_SHARE of the solve.
   */
  private remapIncumbent(theta: Float64Array): void {
    const { n, m } = this.s;
    const t = performance.now();
    if (this.upper === this.lastRemapped) return;
    if (this.remapWait > 0) {
      this.remapWait--;
      return;
    }
    const { colOutput } = this.master;
    // Each output in use and its slot in the remap's table.
    const used = new Map<number, number>();
    for (let j = 0; j < colOutput.length; j++)
      if (colOutput[j]! >= 0 && theta[j]! > 0 && !used.has(colOutput[j]!)) used.set(colOutput[j]!, used.size);
    // The share is checked with this remap's own time, estimated from the last one's rate (50 x 50: one remap of 2,500
    // outputs in use took 48 s, a third of the time before the first pricing round).
    const estimate = used.size * m * n * this.remapRate;
    if (this.remapMs + estimate > REMAP_TIME_SHARE * (t - this.s.t0 + estimate)) return;
    this.lastRemapped = this.upper;
    const cost = this.remapInto(theta, used);
    const ms = performance.now() - t;
    this.remapRate = ms / Math.max(1, used.size * m * n);
    // No gain over the master's own channel (near the optimum it is remap-optimal): wait 1, 3, 7 rounds before the next
    // try.
    this.remapIdle = cost < this.upper * (1 - 1e-9) ? 0 : Math.min(2 * this.remapIdle + 1, REMAP_MAX_WAIT);
    this.remapWait = this.remapIdle;
    this.remapMs += ms;
  }

  /**
   * The remap itself: the master's channel summed per output in use, each such column k moved to the output of least
   * cost k . c_w, kept as the best channel when cheaper. Returns its cost.
   */
  private remapInto(theta: Float64Array, used: Map<number, number>): number {
    const { n, m, c } = this.s;
    const { colOutput, colVectors } = this.master;
    const K = new Float64Array(4 * Math.ceil(used.size / 4) * n);
    for (let j = 0; j < colOutput.length; j++) {
      const th = theta[j]!;
      if (!(th > 0) || colOutput[j]! < 0) continue;
      const o = used.get(colOutput[j]!)! * n;
      const r = colVectors[j]!;
      for (let x = 0; x < n; x++) K[o + x]! += th * r[x]!;
    }
    const k = used.size;
    const best = new Float64Array(K.length / n).fill(Infinity);
    const bestW = new Int32Array(best.length);
    // Four columns against each c_w at once: four independent sums (measured 1.4 ns against 3.1 ns per term).
    for (let i = 0; i < k; i += 4) {
      const k0 = i * n;
      const k1 = k0 + n;
      const k2 = k1 + n;
      const k3 = k2 + n;
      for (let w = 0; w < m; w++) {
        const o = w * n;
        let v0 = 0;
        let v1 = 0;
        let v2 = 0;
        let v3 = 0;
        for (let x = 0; x < n; x++) {
          const cx = c[o + x]!;
          v0 += K[k0 + x]! * cx;
          v1 += K[k1 + x]! * cx;
          v2 += K[k2 + x]! * cx;
          v3 += K[k3 + x]! * cx;
        }
        if (v0 < best[i]!) {
          best[i] = v0;
          bestW[i] = w;
        }
        if (v1 < best[i + 1]!) {
          best[i + 1] = v1;
          bestW[i + 1] = w;
        }
        if (v2 < best[i + 2]!) {
          best[i + 2] = v2;
          bestW[i + 2] = w;
        }
        if (v3 < best[i + 3]!) {
          best[i + 3] = v3;
          bestW[i + 3] = w;
        }
      }
    }
    const channel = new Float64Array(n * m);
    let cost = 0;
    for (let i = 0; i < k; i++) {
      cost += best[i]!;
      const w = bestW[i]!;
      for (let x = 0; x < n; x++) channel[x * m + w]! += K[i * n + x]!;
    }
    if (cost < this.best.upper) this.best = { channel, upper: cost };
    return cost;
  }

  async finish(stoppedBy: DecompositionStop, message?: string): Promise<DecompositionResult> {
    const { s, opts, best, lowerBest, pricing } = this;
    let relaxedBound: number | undefined;
    let relaxedBoundMs = 0;
    if (opts.relaxedPairs && stoppedBy !== 'solver-memory' && lowerBest > -Infinity) {
      const r = await relaxedModelBound(
        s,
        opts.relaxedPairs,
        this.lamBest,
        lowerBest,
        this.options,
        this.subOptions,
        opts.pricingForm,
      );
      relaxedBound = s.sign * r.bound;
      relaxedBoundMs = r.ms;
    }
    return {
      channel: best.channel,
      objective: s.sign * best.upper,
      bound: s.sign * lowerBest,
      gap: gapOf(best.upper, lowerBest),
      stoppedBy,
      message,
      relaxedBound,
      relaxedBoundMs,
      duals: this.lamBest.slice(),
      iterations: this.iterations,
      columns: this.master.columns,
      pruned: this.pruned,
      masterMs: this.masterMs,
      pricingMs: this.pricingMs,
      remapMs: this.remapMs,
      pricingRows: pricing.rows,
      pricingColdRetries: pricing.coldRetries,
      pricingFailures: pricing.failures,
      plateauColumns: this.plateauColumns,
      simplexIterations: this.simplexIterations,
    };
  }
}
