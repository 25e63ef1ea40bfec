import type { MechanismFacts } from '../../../src-shared/protocol/index';
import type { Domain } from '../../metric/domain';
import type { LossInput } from './loss-input';
import type { LpPrivacyModel, LpProgress, OptimalLpResult, RelaxationInfo } from '../../mechanism/lp-result';
import type { OptimalMechanism, OptimalMechanismOptions } from './optimal-options';
import type { MasterColumn } from '../decomposition/decomposition-master';
import { DEFAULT_SPANNER_DELTA } from '../model/privacy-constraint-graph';
import type { Deadline } from '../../base/deadline';
import { certifiedGap } from '../../../src-shared/protocol/index';

/**
 * A certified lower bound on a large exact (all-pairs) optimum from a relaxation solved first (docs/lp.md, "A
 * relaxation's bound on large exact models"): the spanner model at eps * delta. Its rows are the delta-spanner's pairs
 * with factor e^(eps delta d / delta) = e^(eps d), rows of the exact model itself, so its polytope of columns contains
 * the exact model's and its optimum (and Lagrangian bound) is below the exact optimum. Its mechanism is not
 * eps*d-private and is never returned; its columns, lifted into the exact polytope, seed the exact model's master.
 *
 * One dilation (1.1: the 8-neighbours on a grid). Smaller ones come closer to the exact optimum (10 x 10, lumpy
 * prior, ln 2 per cell: 1.72% below at 1.1, 0.32% at 1.05, 0.21% at 1.02) but hold more pairs (30 x 30: 3,422 at 1.1,
 * 6,670 at 1.05, 9,802 at 1.02) and their bound rises later: 1.1, then 1.05 from its duals (a bound at least as high
 * from its first round) certified 1.211634 km in a 300 s job on 30 x 30, against 1.211487 for 1.1 alone, and left the
 * exact model less time (its mechanism 1.283973 against 1.275156 km): no gain within limits of a few minutes.
 */

/**
 * Secrets from which an exact model is bounded by a relaxation first (900 secrets: an exact pricing round ~45 s on two
 * threads).
 */
export const RELAXATION_MIN_SECRETS = 625;
/** The relaxation is solved to this relative gap at most (its own optimum is a few percent below the exact one). */
const RELAXATION_TARGET_GAP = 1e-3;
/**
 * Share of the time left after the candidates that the relaxation may use; the exact model has the rest, and all it
 * leaves when it reaches its target (on 900 secrets a first exact round needs about 70 s).
 */
const RELAXATION_TIME_SHARE = 0.9;
/**
 * Seconds the exact model keeps after the relaxation (its set-up is not cut finer: on 50 x 50 with 2 s left it overran
 * a 30 s job limit by 3.5 s), and the least the relaxation is given (on 900 secrets its first round, coarse start
 * included, came after 19 s; on 2,500 none came in 16 s). With less time left none is solved.
 */
const RELAXATION_EXACT_KEEPS_SECONDS = 10;
const RELAXATION_MIN_SECONDS = 20;

/** An optimal request's result with the decomposition's best duals and the LP's own channel (row-major n x m). */
export interface SolvedOptimal {
  mechanism: OptimalMechanism;
  duals: Float64Array | null;
  lpChannel: Float64Array;
}

/** The optimal request's solver (optimal-mechanism.ts). */
type OptimalSolve = (
  domain: Domain,
  eps: number,
  prior: ArrayLike<number>,
  loss: LossInput,
  options: OptimalMechanismOptions,
) => Promise<SolvedOptimal>;

/** Whether an exact model is bounded by a relaxation first (see RELAXATION_MIN_SECRETS). */
export function wantsRelaxation(
  options: OptimalMechanismOptions,
  model: LpPrivacyModel | undefined,
  n: number,
  orbitModel: boolean,
): boolean {
  if (model !== 'exact' || orbitModel || options.outputs !== undefined) return false;
  const mode = options.relaxation ?? 'auto';
  return (
    mode === 'on' || (mode === 'auto' && n >= RELAXATION_MIN_SECRETS && options.decompositionOptions === undefined)
  );
}

/**
 * The relaxation's bound, its best duals and its channel's columns: a start for the exact model (its first round
 * prices at those duals, over rows that include the relaxation's, so its bound starts as high; its master starts
 * from the lifted columns). It gets RELAXATION_TIME_SHARE of the time left, less what the exact model keeps; null
 * when that is under RELAXATION_MIN_SECONDS. `best` is the best private mechanism so far (the cheapest candidate):
 * progress is reported as that against the bound.
 */
export async function relaxationBound(
  solve: OptimalSolve,
  { domain, eps, pi, loss }: { domain: Domain; eps: number; pi: Float64Array; loss: LossInput },
  options: OptimalMechanismOptions,
  deadline: Deadline,
  history: LpProgress[],
  best: number | undefined,
): Promise<{ info: RelaxationInfo; duals: Float64Array | null; columns: MasterColumn[] } | null> {
  const t0 = performance.now();
  const tStart = deadline.startedAt;
  const left = deadline.left(t0);
  const budget = Math.min(left * RELAXATION_TIME_SHARE, left - RELAXATION_EXACT_KEEPS_SECONDS);
  if (deadline.limited && budget < RELAXATION_MIN_SECONDS) return null;
  const share = deadline.limited ? budget / left : 0.5;
  const delta = options.delta ?? DEFAULT_SPANNER_DELTA;
  const r = await solve(domain, eps * delta, pi, loss, {
    model: 'spanner',
    delta,
    threads: options.threads,
    targetGap: Math.max(options.targetGap ?? 0, RELAXATION_TARGET_GAP),
    deadline: deadline.from(t0, budget),
    stopFlag: options.stopFlag,
    signal: options.signal,
    cancelFlag: options.cancelFlag,
    highsOptions: options.highsOptions,
    coarseStart: options.coarseStart,
    relaxation: 'off',
    onProgress: options.onProgress
      ? (f, message) => options.onProgress!(f * share, `bounding the best possible: ${message}`)
      : undefined,
    // Progress in the job's terms: the best private mechanism so far (the cheapest candidate) against the bound.
    onLpProgress:
      best === undefined
        ? undefined
        : (p) => {
            const q: LpProgress = {
              ...p,
              objective: best,
              gap: certifiedGap(best, p.bound),
              elapsedMs: p.elapsedMs + (t0 - tStart),
              fraction: p.fraction * share,
              stage: 'relaxation',
            };
            history.push(q);
            options.onLpProgress?.(q);
          },
  });
  const lp = r.mechanism.lp;
  // Not clamped at 0: with a loss that can be negative the relaxation's optimum (and its bound) can be too.
  const info: RelaxationInfo = {
    delta,
    bound: lp.lowerBound,
    rounds: lp.rounds,
    timeMs: performance.now() - t0,
    stoppedBy: lp.stoppedBy,
  };
  return { info, duals: r.duals, columns: lp.rounds > 0 ? channelColumns(r.lpChannel, domain.n) : [] };
}

/** The non-zero columns of a row-major n x m channel, each for its output. */
function channelColumns(channel: Float64Array, n: number): MasterColumn[] {
  const m = channel.length / n;
  const out: MasterColumn[] = [];
  for (let w = 0; w < m; w++) {
    const r = new Float64Array(n);
    let any = false;
    for (let x = 0; x < n; x++) any = (r[x] = channel[x * m + w]!) > 0 || any;
    if (any) out.push({ w, r });
  }
  return out;
}

/**
 * The record with the relaxation's bound: it bounds the exact model's optimum (lowerBound) and the best possible
 * (exactLowerBound) whenever it is above the run's own bound; the gap follows.
 */
export function withRelaxation(lp: OptimalLpResult, relaxation: RelaxationInfo | null): OptimalLpResult {
  if (!relaxation) return lp;
  const out: OptimalLpResult = { ...lp, relaxation };
  const bound = Math.min(relaxation.bound, lp.objective);
  if (bound > (lp.exactLowerBound ?? -Infinity)) {
    out.lowerBound = Math.max(lp.lowerBound, Math.min(relaxation.bound, lp.lpObjective));
    out.exactLowerBound = bound;
    out.gapBasis = 'exact';
    out.gap = certifiedGap(lp.objective, bound);
  }
  return out;
}

type SolveFacts = Extract<MechanismFacts, { kind: 'optimal' }>['solve'];

/**
 * "How it was computed" in step with the headline (withRelaxation): a relaxation solved first counts in the rounds
 * and the solver time, and the relative gap is the record's, from the same bound the headline states (without it
 * a large exact model cut by its time limit showed 0 rounds, 0 ms and a gap of 1 beside "within 12.4%").
 */
export function factsWithRelaxation(facts: SolveFacts, relaxation: RelaxationInfo | null, gap: number): SolveFacts {
  if (!relaxation) return facts;
  const out: SolveFacts = { ...facts, solverMs: facts.solverMs + relaxation.timeMs };
  if (facts.decomposition)
    out.decomposition = {
      ...facts.decomposition,
      rounds: facts.decomposition.rounds + relaxation.rounds,
      relativeGap: gap,
    };
  return out;
}
