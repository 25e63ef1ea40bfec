import { noRoundCompleted } from '../../src-shared/protocol/index';
import { MechError, assertEpsilon } from '../../src-shared/errors';
import { Matrix, assertDenseFits } from '../linalg/matrix';
import { validatePrior } from '../measure/prior';
import { availableParallelism } from 'node:os';
import { DenseChannel } from '../mechanism/channel';
import type { MechanismFacts } from '../mechanism/facts';
import type { Domain } from '../metric/domain';
import { type LossInput, type OutputSet, resolveLoss, scaledCost, secretsAsOutputs } from './loss-input';
import type { RunStop } from './lp-options';
import { Deadline } from '../base/deadline';
import { runStopReason } from './persistent-lp';
import { type PrivacyConstraintGraph } from './privacy-constraint-graph';
import { type PrivateChannelSolution, hasOrbitReduction, solvePrivateChannelLp } from './private-channel-lp';
import type { MasterColumn } from './decomposition-master';
import type { DecompositionOptions } from './column-decomposition';
import { edgesIfAvailable } from '../metric/shortest-paths';
import { type CoarseStart, coarseStart } from './coarse-start';
import {
  type SolvedOptimal,
  factsWithRelaxation,
  relaxationBound,
  wantsRelaxation,
  withRelaxation,
} from './relaxation-bound';
import { certifiedGap } from '../../src-shared/protocol/index';
import type { CheapCandidate, OptimalMechanism, OptimalMechanismOptions } from './optimal-options';
export type { CheapCandidate, OptimalMechanism, OptimalMechanismOptions };

export { RELAXATION_MIN_SECRETS } from './relaxation-bound';

export type { CandidateRecord, LpPrivacyModel, OptimalLpResult } from '../mechanism/lp-result';
import type { CandidateRecord, LpPrivacyModel, LpProgress, LpStop, OptimalLpResult } from '../mechanism/lp-result';

/**
 * Secrets up to which a spanner solve also bounds the exact optimum (one more pricing round over all pairs). Above,
 * exactLowerBound is null: on the 20 x 20 city the round took 33 s and, cut by its time budget, gave a useless
 * (negative) bound; the same round over the spanner's own pairs at the full eps (a relaxation, cheap) gave 0.83 km
 * under an exact optimum of 1.68 km at the spanner's duals: no use either. The exact model (the default) bounds itself.
 */
const EXACT_BOUND_MAX_SECRETS = 256;

/** Certified relative gap at which the typed path stops by default (the bench reports time to 1e-2 and 1e-6). */
const DEFAULT_TARGET_GAP = 1e-6;

/**
 * Variables n*m up to which an all-pairs (or edge) model invariant under the domain's isometries is solved whole,
 * one variable per orbit, instead of by decomposition (a default job should answer in seconds; measured through the
 * built CLI, dist loss, eps 1, whole job: uniform prior 8x8 2.5 s, 9x9 3.7 s, 10x10 7.2 s).
 */
const EXACT_AUTO_MAX_VARIABLES = 81 * 81;

/**
 * The default privacy model: 'edges' where the domain has graph edges
 * (equivalent to all pairs), else 'exact' (all pairs, rows added lazily by the
 * decomposition), whose bound is a certified bound on the best possible
 * mechanism. The spanner (eps/delta on a spanner's edges) is a restriction:
 * its bound says nothing about the true optimum, so it is solved only when asked.
 */
export function chooseLpModel(domain: Domain, outputs: number): { model: LpPrivacyModel; reason: string } {
  if (edgesIfAvailable(domain))
    return { model: 'edges', reason: 'the domain has graph edges: edge constraints are equivalent to all pairs' };
  return {
    model: 'exact',
    reason: `${domain.n * outputs} variables, all pairs: its bound certifies the distance to the best possible mechanism`,
  };
}

/**
 * Pricing threads when none are asked: every core on problems of at least this many variables (n*m), one below
 * (a pricing thread's start, about 0.1 s with its own solver, costs more than it saves on small problems).
 */
const THREADED_MIN_VARIABLES = 100 * 100;

/**
 * Seconds per pair row and output kept from a time limit for what runs after the rounds, or within a round outside
 * the solver's checkpoints: the last round's column lifts and violated-row scans, the channel's repair and violation
 * scan, and the job's privacy check (30 x 30 exact, 3.6e8 pair rows x outputs: a 30 s limit ended at 41.9 s
 * without the reserve, 12 s over: 3.3e-8 s each).
 */
const FINISH_SECONDS_PER_PAIR_OUTPUT = 4e-8;
/** At most this share of the time limit is kept for the LP's own finish (FINISH_SECONDS_PER_PAIR_OUTPUT). */
const FINISH_MAX_SHARE = 0.3;

/**
 * The job's privacy check of the returned channel, all pairs by the threaded ln scan: seconds per pair and output on
 * one thread (50 x 50: 7.8e9 pair-outputs in 5.9 s on two threads), and its measures and the channel's extraction:
 * seconds per entry (50 x 50: 1.7 s for 6.25e6 entries). These are kept in full, whatever the share: on 50 x 50 they
 * are 7.8 s, and with only the 30% share a 20 s limit ended at 22.3 s.
 */
const CHECK_SECONDS_PER_PAIR_OUTPUT = 1.5e-9;
const FINISH_SECONDS_PER_ENTRY = 3e-7;

/**
 * The part of a time limit kept for the finish: the LP's (at most FINISH_MAX_SHARE) or the job's check and measures,
 * the larger.
 */
export function finishReserveSeconds(
  model: LpPrivacyModel,
  n: number,
  m: number,
  limit: number,
  threads = availableParallelism(),
): number {
  const pairs = model === 'spanner' || model === 'edges' ? 8 * n : (n * (n - 1)) / 2;
  const lp = Math.min(FINISH_MAX_SHARE * limit, pairs * m * FINISH_SECONDS_PER_PAIR_OUTPUT);
  // the check visits a graph metric's edges, every pair otherwise (a spanner's channel too)
  const checked = model === 'edges' ? 8 * n : (n * (n - 1)) / 2;
  const job = checked * m * (CHECK_SECONDS_PER_PAIR_OUTPUT / Math.max(1, threads)) + n * m * FINISH_SECONDS_PER_ENTRY;
  return Math.min(limit, Math.max(lp, job));
}

/** Pricing threads of a solve: as asked, else the machine's cores on large problems (THREADED_MIN_VARIABLES). */
function defaultLpThreads(variables: number, asked?: number): number {
  if (asked !== undefined) return asked;
  return variables >= THREADED_MIN_VARIABLES ? Math.max(1, availableParallelism()) : 1;
}

/**
 * Decomposition options of the typed path: target gap, threads, stop flag, and typed progress (monotonic fraction) into
 * `history`.
 */
function typedDecompositionOptions(
  options: OptimalMechanismOptions,
  scale: number,
  history: LpProgress[],
  deadline: Deadline,
  startDuals: Float64Array | null,
  seed: { columns: MasterColumn[]; inP: boolean } | null,
  model: LpPrivacyModel,
  boundFloor = 0,
): DecompositionOptions {
  return {
    tolerance: options.targetGap ?? DEFAULT_TARGET_GAP,
    threads: options.threads ?? 1,
    deadline,
    // A private candidate's columns satisfy every row of the exact and edge models. Not the spanner's eps/delta rows:
    // lifted into its P they sum to more than 1 per row and the master cannot use them (30 x 30: the same rounds,
    // master 7.4 s against 5.7 s), so the spanner gets no seed (the candidate is still compared at the end).
    ...(seed && model !== 'spanner' ? { seedColumns: seed.columns, seedInP: seed.inP } : {}),
    ...stopTest(options.stopFlag),
    // From good duals the self-adjusting smoothing closed the gap faster (20 x 20 city, eps 0.5: 2.9% against 11% after
    // 120 s).
    ...(startDuals ? { startDuals, smoothingMode: 'adaptive' as const } : {}),
    ...options.decompositionOptions,
    onRound: (r) => {
      options.decompositionOptions?.onRound?.(r);
      const objective = r.objective * scale;
      // A relaxation solved first bounds this model too (withRelaxation): its bound until this one passes it.
      const bound = Math.max(r.bound * scale, Math.min(boundFloor, objective));
      const target = options.targetGap ?? DEFAULT_TARGET_GAP;
      const gapFrac = Math.min(1, Math.log10(Math.max(r.gap, target)) / Math.log10(target));
      const timeFrac = deadline.limited && deadline.seconds > 0 ? r.elapsedMs / 1000 / deadline.seconds : 0;
      const last = history.length > 0 ? history[history.length - 1]!.fraction : 0;
      const p: LpProgress = {
        round: r.round,
        objective,
        bound,
        gap: bound > r.bound * scale ? certifiedGap(objective, bound) : r.gap,
        elapsedMs: r.elapsedMs,
        fraction: Math.max(last, Math.min(1, Math.max(0, gapFrac, timeFrac))),
      };
      history.push(p);
      options.onLpProgress?.(p);
    },
  };
}

function stopTest(stopFlag: Int32Array | undefined): { shouldStop?: () => boolean } {
  return stopFlag ? { shouldStop: () => Atomics.load(stopFlag, 0) !== 0 } : {};
}

/** Stop and the job's deadline (its time limit less the finish's share, from the job's start) for a one-model solve. */
function orbitStop(stopFlag: Int32Array | undefined, deadline: Deadline): RunStop {
  return { ...stopTest(stopFlag), ...(deadline.limited ? { deadline: deadline.at } : {}) };
}

/**
 * The coarse start of a grid with a distance loss and the secrets as outputs (coarse-start.ts), or null where none
 * applies.
 */
async function coarseStartFor(
  domain: Domain,
  eps: number,
  pi: Float64Array,
  loss: LossInput,
  model: LpPrivacyModel,
  costScale: number,
  options: OptimalMechanismOptions,
): Promise<CoarseStart | null> {
  if (options.coarseStart === false || options.outputs !== undefined || (loss !== 'dist' && loss !== 'dist2'))
    return null;
  if (options.decompositionOptions?.startDuals) return null;
  return coarseStart(
    { domain, eps, pi, loss, model, delta: options.delta, costScale },
    {
      signal: options.signal,
      cancelFlag: options.cancelFlag,
      deadline: options.deadline,
      onProgress: options.onProgress,
      threads: options.threads,
      ...stopTest(options.stopFlag),
    },
  );
}

/**
 * The typed path's privacy model (solved by decomposition: certified gap, time limit, best so far), or null for the
 * legacy path.
 */
function typedModel(
  domain: Domain,
  m: number,
  model: OptimalMechanismOptions['model'],
): { model: LpPrivacyModel; reason: string; choice: 'auto' | 'requested' } | null {
  if (model === undefined) return null;
  const chosen =
    model === 'auto'
      ? { ...chooseLpModel(domain, m), choice: 'auto' as const }
      : { model, reason: 'requested', choice: 'requested' as const };
  if (chosen.model === 'edges' && !edgesIfAvailable(domain))
    throw new MechError(
      'not-applicable',
      `the 'edges' privacy model needs a domain with graph edges; ${domain.spec} has none (use 'exact' or 'spanner')`,
    );
  return chosen;
}

/**
 * The decomposition's start: the best duals of a relaxation solved first (see relaxationBound), else the coarse
 * start's.
 */
async function startDualsFor(
  domain: Domain,
  eps: number,
  pi: Float64Array,
  loss: LossInput,
  model: LpPrivacyModel,
  scale: number,
  options: OptimalMechanismOptions,
  relaxation: { duals: Float64Array | null } | null,
): Promise<{ warm: CoarseStart | null; duals: Float64Array | null }> {
  if (relaxation?.duals) return { warm: null, duals: relaxation.duals };
  const warm = await coarseStartFor(domain, eps, pi, loss, model, scale, options);
  return { warm, duals: warm?.duals ?? null };
}

/**
 * The exact model's first master columns: the cheapest candidate's (private: in P as they are) and the relaxation's
 * channel columns (private only up to their dilation: lifted into P by the decomposition's set-up), so that its master
 * combines them from the start (docs/lp.md, "A relaxation's bound on large exact models").
 */
function masterSeed(
  best: BestCandidate | null,
  relaxation: { columns: MasterColumn[] } | null,
): { columns: MasterColumn[]; inP: boolean } | null {
  const lifted = relaxation?.columns ?? [];
  if (!best && lifted.length === 0) return null;
  return { columns: [...(best?.seed ?? []), ...lifted], inP: lifted.length === 0 };
}

function labelledChannel(domain: Domain, outputs: OutputSet, C: Float64Array): DenseChannel {
  const rowLabels: string[] = [];
  const colLabels: string[] = [];
  for (let x = 0; x < domain.n; x++) rowLabels.push(domain.label(x));
  for (let w = 0; w < outputs.n; w++) colLabels.push(outputs.label(w));
  return new DenseChannel(new Matrix(domain.n, outputs.n, C), rowLabels, colLabels);
}

/** Which pairs carry constraints, in words (for the guarantee). */
function constraintsInWords(graph: PrivacyConstraintGraph): string {
  if (graph.mode === 'edges') return 'constraints on the graph edges of d';
  if (graph.mode === 'spanner')
    return `constraints with eps/${graph.delta} on a greedy spanner of dilation ${graph.delta}`;
  if (graph.mode === 'exact') return 'constraints on all pairs not implied by an equally long path';
  return 'constraints on all pairs';
}

/**
 * The cheapest candidate on the LP's own objective: its remapped channel C . R (row-major n x m), its cost, and C's
 * columns as master seeds.
 */
interface BestCandidate {
  construction: string;
  /** Expected loss in the caller's units. */
  objective: number;
  channel: Float64Array;
  seed: MasterColumn[];
}

/**
 * The candidates' expected losses computed with the LP's cost (cost[x*m + w] = pi_x l(w, x) / scale), so that
 * they compare exactly with the LP's objective, and the cheapest one's remapped channel and seed columns.
 */
function evaluateCandidates(
  list: readonly CheapCandidate[],
  n: number,
  m: number,
  cost: Float64Array,
  scale: number,
): { records: CandidateRecord[]; best: BestCandidate | null } {
  const records: CandidateRecord[] = [];
  let bestAt = -1;
  let bestCost = Infinity;
  list.forEach((c, i) => {
    const base = { construction: c.construction, timeMs: c.timeMs };
    const ch = c.channel;
    const remap = c.remap;
    if (!ch || !remap) {
      records.push({ ...base, expectedLoss: null, note: c.note ?? { kind: 'not-built' } });
      return;
    }
    if (ch.rows !== n || remap.length !== ch.cols || !remap.every((w) => w >= 0 && w < m))
      throw new MechError(
        'internal',
        `candidate ${c.construction}: a ${ch.rows} x ${ch.cols} channel with a remap onto ${m} outputs does not fit ${n} secrets`,
      );
    const row = new Float64Array(ch.cols);
    let v = 0;
    for (let x = 0; x < n; x++) {
      ch.row(x, row);
      const o = x * m;
      for (let y = 0; y < row.length; y++) v += cost[o + remap[y]!]! * row[y]!;
    }
    const expectedLoss = v * scale;
    records.push({
      ...base,
      expectedLoss: Number.isFinite(expectedLoss) ? expectedLoss : null,
      ...(c.note ? { note: c.note } : {}),
    });
    if (Number.isFinite(v) && v < bestCost) {
      bestCost = v;
      bestAt = i;
    }
  });
  if (bestAt < 0) return { records, best: null };
  const c = list[bestAt]!;
  const ch = c.channel!;
  const remap = c.remap!;
  const k = ch.cols;
  const channel = new Float64Array(n * m);
  const cols = Array.from({ length: k }, () => new Float64Array(n));
  const row = new Float64Array(k);
  for (let x = 0; x < n; x++) {
    ch.row(x, row);
    for (let y = 0; y < k; y++) {
      channel[x * m + remap[y]!]! += row[y]!;
      cols[y]![x] = row[y]!;
    }
  }
  // C's own columns, each offered for the output it reports after the remap (the master rebuilds C . R from them).
  const seed: MasterColumn[] = [];
  for (let y = 0; y < k; y++) if (cols[y]!.some((p) => p > 0)) seed.push({ w: remap[y]!, r: cols[y]! });
  return { records, best: { construction: c.construction, objective: bestCost * scale, channel, seed } };
}

/** What the returned mechanism is: the LP's channel or a candidate's, with the candidates tried. */
interface Returned {
  objective: number;
  chosen: string;
  candidates: CandidateRecord[];
}

/**
 * The typed LP record of a solve (objective and bounds scaled back; see docs/lp.md, "The certified lower bound and the
 * gap").
 */
function typedLpResult(
  s: PrivateChannelSolution,
  chosen: { model: LpPrivacyModel; reason: string; choice: 'auto' | 'requested' } | null,
  options: OptimalMechanismOptions,
  lpObjective: number,
  returned: Returned,
  scale: number,
  cost: Float64Array,
  tStart: number,
  history: LpProgress[],
  warm: CoarseStart | null,
): OptimalLpResult {
  const model: LpPrivacyModel = s.graph.mode === 'spanner' ? 'spanner' : s.graph.mode === 'edges' ? 'edges' : 'exact';
  const dec = s.decomposition;
  const objective = returned.objective;
  // Certified lower bound on the model's optimum: the Lagrangian bound of the
  // decomposition; for a full model or constraint generation, the solver's
  // optimum (a vertex optimal to HiGHS' tolerances).
  const lowerBound = dec ? Math.min(dec.bound * scale, lpObjective) : Math.min(s.lpObjective * scale, lpObjective);
  // Costs are >= 0 when every loss is: 0 is then a valid bound too.
  let costsNonNegative = true;
  for (let i = 0; i < cost.length; i++) if (cost[i]! < 0) costsNonNegative = false;
  // Every candidate is eps*d-private, so the exact optimum is at most the returned loss: a bound on it above that is
  // rounding.
  const exactLowerBound =
    model !== 'spanner'
      ? Math.min(lowerBound, objective)
      : dec?.exactBound !== undefined
        ? Math.min(
            costsNonNegative ? Math.max(0, dec.exactBound * scale) : dec.exactBound * scale,
            lowerBound,
            objective,
          )
        : null;
  const basis = exactLowerBound ?? lowerBound;
  const gap = certifiedGap(objective, basis);
  const stoppedBy: LpStop = dec ? dec.stoppedBy : 'optimal';
  return {
    model,
    modelChoice: chosen?.choice ?? 'requested',
    modelReason: chosen?.reason ?? `legacy constraint mode '${options.constraints ?? 'auto'}'`,
    delta: s.graph.delta,
    method: dec ? 'decomposition' : s.generation ? 'constraint-generation' : 'full-model',
    objective,
    lowerBound,
    gap,
    exactLowerBound,
    rounds: dec ? dec.rounds.length : s.generation ? s.generation.rounds.length : 1,
    timeMs: performance.now() - tStart,
    stoppedBy,
    timeLimitReached: stoppedBy === 'time-limit',
    history,
    coarseStart: warm?.info ?? null,
    chosen: returned.chosen,
    candidates: returned.candidates,
    gapBasis: exactLowerBound !== null ? 'exact' : 'model',
    lpObjective,
  };
}

/** The solver's figures of a solve (`facts.solve`), objectives scaled back. */
function solveFacts(
  s: PrivateChannelSolution,
  scale: number,
  status: LpStop,
): Extract<MechanismFacts, { kind: 'optimal' }>['solve'] {
  return {
    delta: s.graph.delta,
    constraintMode: s.graph.mode,
    constrainedPairs: s.graph.from.length,
    constraints: s.constraints,
    variables: s.variables,
    nonzeros: s.nonzeros,
    objective: s.objective * scale,
    buildMs: s.buildMs,
    solverMs: s.solveMs,
    iterations: s.iterations,
    symmetries: s.symmetries,
    reducedVariables: s.reducedVariables,
    reducedConstraints: s.reducedConstraints,
    maxConstraintViolation: s.maxConstraintViolation,
    lpObjective: s.lpObjective * scale,
    repairMass: s.repairMass,
    cappedPairs: s.cappedPairs,
    ...(s.generation
      ? {
          generation: {
            rounds: s.generation.rounds.length,
            privacyRows: s.generation.privacyRows,
            fullPrivacyRows: s.generation.fullPrivacyRows,
            checkMs: s.generation.checkMs,
            coldRetries: s.generation.coldRetries,
          },
        }
      : {}),
    ...(s.decomposition
      ? {
          decomposition: {
            rounds: s.decomposition.rounds.length,
            columns: s.decomposition.columns,
            pruned: s.decomposition.pruned,
            pricingColdRetries: s.decomposition.pricingColdRetries,
            pricingFailures: s.decomposition.pricingFailures,
            plateauColumns: s.decomposition.plateauColumns,
            exactBoundMs: s.decomposition.exactBoundMs,
            // Certified: no eps*d-private channel (under these constraints) does better than this bound.
            relativeGap: s.decomposition.gap,
            pricingRows: s.decomposition.pricingRows,
            masterMs: s.decomposition.masterMs,
            pricingMs: s.decomposition.pricingMs,
          },
        }
      : {}),
    status,
  };
}

/**
 * Optimal eps*d-private mechanism for a prior and a loss (docs/mechanisms.md, "Optimal mechanism"):
 * minimise sum_x pi_x sum_w C[x][w] loss(w, x) over row-stochastic C >= 0
 * with the d-privacy constraints (on graph edges, on a spanner's edges with
 * eps/delta, or on all pairs). `lp` is the typed LP record (model, method,
 * certified bound, gap); `facts.solve` the solver's figures (delta,
 * constraints, variables, expected loss, times, status).
 */
export async function optimalMechanism(
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  loss: LossInput,
  options: OptimalMechanismOptions = {},
): Promise<OptimalMechanism> {
  return (await solveOptimal(domain, eps, prior, loss, options)).mechanism;
}

/**
 * The optimal request, with what a solve that follows it can start from: the decomposition's best duals (scaled
 * units; null without a decomposition) and the LP's own channel (row-major n x m, before any candidate replaces it).
 */
async function solveOptimal(
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  loss: LossInput,
  options: OptimalMechanismOptions,
): Promise<SolvedOptimal> {
  const job = options.deadline ?? Deadline.after(options.timeLimitSeconds);
  const tStart = job.startedAt;
  assertEpsilon(eps);
  const n = domain.n;
  const pi = validatePrior(prior, n);
  const outputs = checkedOutputs(domain, options.outputs);
  const m = outputs.n;
  const lossAt = resolveLoss(loss, outputs, n);
  const { cost, scale } = scaledCost(domain, outputs, pi, lossAt);
  const chosen = typedModel(domain, m, options.model);
  assertTargetGap(options.targetGap);
  const cands = chosen ? evaluateCandidates(options.candidates ?? [], n, m, cost, scale) : { records: [], best: null };
  const deadline = job.limited && chosen ? job.reserve(finishReserveSeconds(chosen.model, n, m, job.seconds)) : job;
  const solveOptions: OptimalMechanismOptions = {
    ...options,
    threads: defaultLpThreads(n * m, options.threads),
    deadline,
    ...(deadline.limited ? { timeLimitSeconds: deadline.seconds } : {}),
  };
  const orbitModel = wantsOrbitModel(domain, m, cost, chosen, options);
  const history: LpProgress[] = [];
  const relaxation =
    chosen && wantsRelaxation(options, chosen.model, n, orbitModel)
      ? await relaxationBound(
          solveOptimal,
          { domain, eps, pi, loss },
          solveOptions,
          deadline,
          history,
          cands.best?.objective,
        )
      : null;
  const start =
    chosen && !orbitModel
      ? await startDualsFor(domain, eps, pi, loss, chosen.model, scale, solveOptions, relaxation)
      : null;
  const decompositionOptions = chosen
    ? typedDecompositionOptions(
        solveOptions,
        scale,
        history,
        deadline,
        start?.duals ?? null,
        masterSeed(cands.best, relaxation),
        chosen.model,
        relaxation?.info.bound ?? 0,
      )
    : options.decompositionOptions;
  const solve = (orbits: boolean, stop?: RunStop): Promise<PrivateChannelSolution> =>
    solvePrivateChannelLp(
      {
        domain,
        eps,
        outputs: m,
        cost,
        sense: 'minimize',
        constraints: chosen ? chosen.model : options.constraints,
        delta: options.delta,
        outputsAreSecrets: options.outputs === undefined,
        symmetry: chosen ? (orbits ? 'auto' : 'off') : options.symmetry,
        generation: chosen ? 'off' : options.generation,
        // Seed rows bound the entry farther (by the loss) from each output from below.
        generationOptions: { closeness: (x, w) => lossAt(w, x), ...options.generationOptions },
        decomposition: chosen ? (orbits ? 'off' : 'on') : options.decomposition,
        decompositionOptions,
        // The exact bound of a spanner solve costs one more pricing round over all pairs: up to EXACT_BOUND_MAX_SECRETS
        // secrets.
        boundExact: chosen !== null && n <= EXACT_BOUND_MAX_SECRETS,
        what: `the optimal-mechanism LP on ${domain.spec}`,
      },
      stop ? { ...solveOptions, stop } : solveOptions,
    );
  // The whole orbit model can fail numerically where the decomposition does not (grid:3x3 at eps 30: factors up to
  // e^30, HiGHS called it unbounded): then it is solved by decomposition.
  // Stop or the time limit during that one solve: the decomposition, seeded with the best candidate, returns at its
  // first check with the best mechanism found (the whole model has nothing to return mid-solve).
  const s = orbitModel
    ? await solve(true, orbitStop(options.stopFlag, deadline)).catch((e: unknown) => {
        if ((e instanceof MechError && e.code === 'infeasible') || runStopReason(e) !== null) return solve(false);
        throw e;
      })
    : await solve(false);
  const lpObjective = s.objective * scale;
  // Never worse than a cheap construction: the cheapest candidate is returned when the LP did not beat it.
  const best = cands.best;
  const useCandidate = best !== null && best.objective < lpObjective;
  const returned: Returned = {
    objective: useCandidate ? best.objective : lpObjective,
    chosen: useCandidate ? best.construction : 'lp',
    candidates: cands.records,
  };
  const channel = labelledChannel(domain, outputs, useCandidate ? best.channel : s.channel);
  const lp = withRelaxation(
    typedLpResult(s, chosen, options, lpObjective, returned, scale, cost, tStart, history, start?.warm ?? null),
    relaxation?.info ?? null,
  );
  const { stoppedBy } = lp;
  const early = stoppedEarly(stoppedBy);
  const guarantee = guaranteeWords(lp, s, useCandidate ? best : null, early);
  const mechanism: OptimalMechanism = {
    kind: 'optimal',
    channel,
    guaranteedEpsilon: eps,
    lp,
    guarantee,
    facts: {
      kind: 'optimal',
      solve: factsWithRelaxation(solveFacts(s, scale, early ? stoppedBy : 'optimal'), relaxation?.info ?? null, lp.gap),
    },
  };
  return { mechanism, duals: s.decomposition?.duals ?? null, lpChannel: s.channel };
}

/**
 * The output set (the secrets when none is given), checked: at least one output, and an n x m dense channel that fits.
 */
function checkedOutputs(domain: Domain, given: OutputSet | undefined): OutputSet {
  const outputs = given ?? secretsAsOutputs(domain);
  const m = outputs.n;
  if (!Number.isInteger(m) || m < 1)
    throw new MechError('invalid-input', `the output set must have at least one element, got ${m}`);
  assertDenseFits(domain.n, m, `optimal mechanism on ${domain.spec}`);
  return outputs;
}

/** A target gap, when given, is in (0, 1). */
function assertTargetGap(targetGap: number | undefined): void {
  if (targetGap !== undefined && !(targetGap > 0 && targetGap < 1))
    throw new MechError('invalid-input', `the target gap must be in (0, 1), got ${targetGap}`);
}

/**
 * Small all-pairs (or edge) models invariant under the domain's isometries (a uniform prior and a distance loss on
 * a grid): one variable per orbit in one full model beats the decomposition (8 x 8 at eps 0.5: 1.0 s against 3.0 s;
 * without the symmetry the decomposition is faster: a lumpy prior on 9 x 9 at eps 1, 2.5 s against 14 s by generation).
 * (Not when the caller tunes the decomposition or turns the symmetry off.)
 */
function wantsOrbitModel(
  domain: Domain,
  m: number,
  cost: Float64Array,
  chosen: { model: LpPrivacyModel } | null,
  options: OptimalMechanismOptions,
): boolean {
  return (
    chosen !== null &&
    chosen.model !== 'spanner' &&
    domain.n * m <= EXACT_AUTO_MAX_VARIABLES &&
    options.outputs === undefined &&
    options.decompositionOptions === undefined &&
    options.symmetry !== 'off' &&
    hasOrbitReduction(domain, m, cost)
  );
}

/** Whether the solve stopped before its optimum (time limit, stop, iteration limit or the solver's memory). */
function stoppedEarly(stoppedBy: LpStop): boolean {
  return (
    stoppedBy === 'time-limit' ||
    stoppedBy === 'stopped' ||
    stoppedBy === 'iteration-limit' ||
    stoppedBy === 'solver-memory'
  );
}

/** The returned mechanism's guarantee in words: the candidate's (when it was returned) or the LP channel's. */
function guaranteeWords(
  lp: OptimalLpResult,
  s: PrivateChannelSolution,
  candidate: BestCandidate | null,
  early: boolean,
): string {
  const { gap, stoppedBy } = lp;
  const how = constraintsInWords(s.graph);
  const basis = lp.gapBasis === 'exact' ? 'the best possible (certified)' : "the model's optimum (certified)";
  // No pricing round gave a bound above the trivial one: said in plain words instead of a 100% gap.
  const within = noRoundCompleted(lp)
    ? 'no bound on the best possible (the pricing gave none above 0)'
    : `within ${(gap * 100).toPrecision(3)}% of ${basis}`;
  return candidate
    ? `eps*d-private by construction (${candidate.construction}: a private construction and a post-processing); the LP (${how}) did not beat it${early ? ` before it stopped (${stoppedBy})` : ''}; ${within}`
    : `eps*d-private: checked, not by construction (the LP's channel meets its ${how}, checked after the solve)${s.graph.mode === 'spanner' ? "; the spanner model's optimum, a restriction: not certified against the best possible" : ''}${early ? `; the solve stopped early (${stoppedBy}): ${within}` : ''}`;
}
