import { MechError, assertEpsilon } from '../../../src-shared/errors';
import { Matrix, assertDenseFits } from '../../linalg/matrix';
import { validatePrior } from '../../measure/prior';
import { availableParallelism } from 'node:os';
import { DenseChannel } from '../../mechanism/channel';
import type { Domain } from '../../metric/domain';
import { type LossInput, type OutputSet, resolveLoss, scaledCost, secretsAsOutputs } from './loss-input';
import type { RunStop } from '../solver/lp-options';
import { Deadline } from '../../base/deadline';
import { runStopReason } from '../solver/persistent-lp';
import {
  type PrivateChannelProblem,
  type PrivateChannelSolution,
  REPAIR_MAX_WORK,
  hasOrbitReduction,
  pricesExactly,
  solvePrivateChannelLp,
} from '../channel/private-channel-lp';
import { type BestCandidate, evaluateCandidates } from './candidates';
import type { MasterColumn } from '../decomposition/decomposition-master';
import type { DecompositionOptions } from '../decomposition/column-decomposition';
import { edgesIfAvailable } from '../../metric/shortest-paths';
import { type CoarseStart, coarseStart } from './coarse-start';
import type { CheapCandidate, OptimalMechanism, OptimalMechanismOptions, TypedModel } from './optimal-options';
import { type Returned, guaranteeWords, solveFacts, stoppedEarly, typedLpResult } from './optimal-records';
export type { CheapCandidate, OptimalMechanism, OptimalMechanismOptions };

export type { CandidateRecord, LpPrivacyModel, OptimalLpResult } from '../../mechanism/lp-result';
import type { CandidateRecord, LpPrivacyModel, LpProgress } from '../../mechanism/lp-result';
import { lpThreads } from '../pricing/lp-threads';

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
 * Seconds per pair row and output kept from a time limit for what runs after the rounds, or within a round outside
 * the solver's checkpoints, where pricing goes through HiGHS over pair rows (spanner and edge models): the last
 * round's column lifts and violated-row scans, the channel's repair and violation scan, and the job's privacy check
 * (30 x 30 exact before exact pricing, 3.6e8 pair rows x outputs: a 30 s limit ended at 41.9 s without the reserve,
 * 12 s over: 3.3e-8 s each).
 */
const FINISH_SECONDS_PER_PAIR_OUTPUT = 4e-8;
/** At most this share of the time limit is kept for the LP's own finish (FINISH_SECONDS_PER_PAIR_OUTPUT). */
const FINISH_MAX_SHARE = 0.3;
/**
 * An exactly priced model's finish: no lifts nor row scans in its rounds, only the channel's repair and violation
 * scan, skipped above REPAIR_MAX_WORK pair-outputs (private-channel-lp.ts). 30 x 30: 1.8 s after the last round for
 * 3.6e8 pair-outputs (5e-9 s each), kept twice over.
 */
const REPAIR_SECONDS_PER_PAIR_OUTPUT = 1e-8;

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
 * the larger. `exactlyPriced`: the model is priced exactly (exact model up to EXACT_PRICING_MAX_SECRETS secrets,
 * unless the caller turned exact pricing off), so the LP's finish is the repair alone.
 */
export function finishReserveSeconds(
  model: LpPrivacyModel,
  n: number,
  m: number,
  limit: number,
  threads = availableParallelism(),
  exactlyPriced = model === 'exact' && pricesExactly(n, true, undefined),
): number {
  const pairs = model === 'spanner' || model === 'edges' ? 8 * n : (n * (n - 1)) / 2;
  const work = pairs * m;
  const lp = exactlyPriced
    ? work > REPAIR_MAX_WORK
      ? 0
      : work * REPAIR_SECONDS_PER_PAIR_OUTPUT
    : Math.min(FINISH_MAX_SHARE * limit, work * FINISH_SECONDS_PER_PAIR_OUTPUT);
  // the check visits a graph metric's edges, every pair otherwise (a spanner's channel too)
  const checked = model === 'edges' ? 8 * n : (n * (n - 1)) / 2;
  const job = checked * m * (CHECK_SECONDS_PER_PAIR_OUTPUT / Math.max(1, threads)) + n * m * FINISH_SECONDS_PER_ENTRY;
  return Math.min(limit, Math.max(lp, job));
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
  seed: MasterColumn[] | null,
  model: LpPrivacyModel,
): DecompositionOptions {
  return {
    tolerance: options.targetGap ?? DEFAULT_TARGET_GAP,
    threads: options.threads ?? 1,
    // One thread asked is one core: the master's helper thread too (master-rows.ts).
    ...((options.threads ?? 1) > 1 ? {} : { masterThreads: 1 }),
    deadline,
    // A private candidate's columns satisfy every row of the exact and edge models. Not the spanner's eps/delta rows:
    // lifted into its P they sum to more than 1 per row and the master cannot use them (30 x 30: the same rounds,
    // master 7.4 s against 5.7 s), so the spanner gets no seed (the candidate is still compared at the end).
    ...(seed && model !== 'spanner' ? { seedColumns: seed } : {}),
    ...stopTest(options.stopFlag),
    // From good duals the self-adjusting smoothing closed the gap faster (20 x 20 city, eps 0.5: 2.9% against 11% after
    // 120 s).
    ...(startDuals ? { startDuals, smoothingMode: 'adaptive' as const } : {}),
    ...options.decompositionOptions,
    onRound: (r) => {
      options.decompositionOptions?.onRound?.(r);
      const objective = r.objective * scale;
      const bound = r.bound * scale;
      const target = options.targetGap ?? DEFAULT_TARGET_GAP;
      const gapFrac = Math.min(1, Math.log10(Math.max(r.gap, target)) / Math.log10(target));
      const timeFrac = deadline.limited && deadline.seconds > 0 ? r.elapsedMs / 1000 / deadline.seconds : 0;
      const last = history.length > 0 ? history[history.length - 1]!.fraction : 0;
      const p: LpProgress = {
        round: r.round,
        objective,
        bound,
        gap: r.gap,
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
 * legacy fixed-model path (fixedModelPlan).
 */
function typedModel(domain: Domain, m: number, model: OptimalMechanismOptions['model']): TypedModel | null {
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

function labelledChannel(domain: Domain, outputs: OutputSet, C: Float64Array): DenseChannel {
  const rowLabels: string[] = [];
  const colLabels: string[] = [];
  for (let x = 0; x < domain.n; x++) rowLabels.push(domain.label(x));
  for (let w = 0; w < outputs.n; w++) colLabels.push(outputs.label(w));
  return new DenseChannel(new Matrix(domain.n, outputs.n, C), rowLabels, colLabels);
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
  return solveOptimal(domain, eps, prior, loss, options);
}

/** What the LP solves and starts from: the typed path's plan (typedPlan) or the legacy fixed-model path's. */
interface LpPlan {
  /** The private-channel LP's model and methods for one solve (orbits: the whole orbit model). */
  methods: (
    orbits: boolean,
  ) => Pick<
    PrivateChannelProblem,
    'constraints' | 'symmetry' | 'generation' | 'decomposition' | 'decompositionOptions' | 'boundExact'
  >;
  /** Solve the whole orbit model first (see wantsOrbitModel). */
  orbitModel: boolean;
  candidates: { records: CandidateRecord[]; best: BestCandidate | null };
  warm: CoarseStart | null;
}

/** The request's prior, loss and cost in the LP's terms (cost[x*m + w] = pi_x l(w, x) / scale). */
interface OptimalInput {
  domain: Domain;
  eps: number;
  pi: Float64Array;
  loss: LossInput;
  m: number;
  cost: Float64Array;
  scale: number;
}

/**
 * The legacy fixed-model path (`model` unset; the case studies and the solver's own tests call it, jobs never do):
 * the caller's constraint mode (default 'auto') and methods handed to the private-channel LP as given, which then
 * chooses among the orbit reduction, the full model, constraint generation and the decomposition
 * (chooseLpStrategy); no candidates, coarse start or finish reserve.
 */
function fixedModelPlan(options: OptimalMechanismOptions): LpPlan {
  return {
    methods: () => ({
      constraints: options.constraints,
      symmetry: options.symmetry,
      generation: options.generation,
      decomposition: options.decomposition,
      decompositionOptions: options.decompositionOptions,
      boundExact: false,
    }),
    orbitModel: false,
    candidates: { records: [], best: null },
    warm: null,
  };
}

/**
 * The typed path: the privacy model solved by decomposition with a certified gap (or, small and symmetric, as one
 * orbit model), seeded by the cheapest candidate, started from a coarse grid's duals, with typed
 * progress into `history`.
 */
async function typedPlan(
  input: OptimalInput,
  chosen: TypedModel,
  options: OptimalMechanismOptions,
  solveOptions: OptimalMechanismOptions,
  deadline: Deadline,
  history: LpProgress[],
): Promise<LpPlan> {
  const { domain, eps, pi, loss, m, cost, scale } = input;
  const n = domain.n;
  const candidates = evaluateCandidates(options.candidates ?? [], n, m, cost, scale);
  const orbitModel = wantsOrbitModel(domain, m, cost, chosen, options);
  const warm = orbitModel ? null : await coarseStartFor(domain, eps, pi, loss, chosen.model, scale, solveOptions);
  const decompositionOptions = typedDecompositionOptions(
    solveOptions,
    scale,
    history,
    deadline,
    warm?.duals ?? null,
    candidates.best?.seed ?? null,
    chosen.model,
  );
  return {
    methods: (orbits) => ({
      constraints: chosen.model,
      symmetry: orbits ? 'auto' : 'off',
      generation: 'off',
      decomposition: orbits ? 'off' : 'on',
      decompositionOptions,
      // The exact bound of a spanner solve costs one more pricing round over all pairs: up to EXACT_BOUND_MAX_SECRETS
      // secrets.
      boundExact: n <= EXACT_BOUND_MAX_SECRETS,
    }),
    orbitModel,
    candidates,
    warm,
  };
}

/**
 * The optimal request: the typed path when `model` is set, else the legacy fixed-model path.
 */
async function solveOptimal(
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  loss: LossInput,
  options: OptimalMechanismOptions,
): Promise<OptimalMechanism> {
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
  const exactlyPriced = chosen?.model === 'exact' && pricesExactly(n, true, options.decompositionOptions?.exactPricing);
  const deadline =
    job.limited && chosen
      ? job.reserve(finishReserveSeconds(chosen.model, n, m, job.seconds, undefined, exactlyPriced))
      : job;
  const solveOptions: OptimalMechanismOptions = {
    ...options,
    threads: lpThreads(options.threads, { variables: n * m }),
    deadline,
    ...(deadline.limited ? { timeLimitSeconds: deadline.seconds } : {}),
  };
  const history: LpProgress[] = [];
  const plan = chosen
    ? await typedPlan({ domain, eps, pi, loss, m, cost, scale }, chosen, options, solveOptions, deadline, history)
    : fixedModelPlan(options);
  const solve = (orbits: boolean, stop?: RunStop): Promise<PrivateChannelSolution> =>
    solvePrivateChannelLp(
      {
        domain,
        eps,
        outputs: m,
        cost,
        sense: 'minimize',
        delta: options.delta,
        outputsAreSecrets: options.outputs === undefined,
        // Seed rows bound the entry farther (by the loss) from each output from below.
        generationOptions: { closeness: (x, w) => lossAt(w, x), ...options.generationOptions },
        ...plan.methods(orbits),
        what: `the optimal-mechanism LP on ${domain.spec}`,
      },
      stop ? { ...solveOptions, stop } : solveOptions,
    );
  // The whole orbit model can fail numerically where the decomposition does not (grid:3x3 at eps 30: factors up to
  // e^30, HiGHS called it unbounded): then it is solved by decomposition.
  // Stop or the time limit during that one solve: the decomposition, seeded with the best candidate, returns at its
  // first check with the best mechanism found (the whole model has nothing to return mid-solve).
  const s = plan.orbitModel
    ? await solve(true, orbitStop(options.stopFlag, deadline)).catch((e: unknown) => {
        if ((e instanceof MechError && e.code === 'infeasible') || runStopReason(e) !== null) return solve(false);
        throw e;
      })
    : await solve(false);
  const lpObjective = s.objective * scale;
  // Never worse than a cheap construction: the cheapest candidate is returned when the LP did not beat it.
  const best = plan.candidates.best;
  const useCandidate = best !== null && best.objective < lpObjective;
  const returned: Returned = {
    objective: useCandidate ? best.objective : lpObjective,
    chosen: useCandidate ? best.construction : 'lp',
    candidates: plan.candidates.records,
  };
  const channel = labelledChannel(domain, outputs, useCandidate ? best.channel : s.channel);
  const lp = typedLpResult(s, chosen, options, lpObjective, returned, scale, cost, tStart, history, plan.warm);
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
      solve: solveFacts(s, scale, early ? stoppedBy : 'optimal'),
    },
  };
  return mechanism;
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
  chosen: { model: LpPrivacyModel },
  options: OptimalMechanismOptions,
): boolean {
  return (
    chosen.model !== 'spanner' &&
    domain.n * m <= EXACT_AUTO_MAX_VARIABLES &&
    options.outputs === undefined &&
    options.decompositionOptions === undefined &&
    options.symmetry !== 'off' &&
    hasOrbitReduction(domain, m, cost)
  );
}
