import { MechError } from '../../src-shared/errors';
import type { LpOptions } from '../../src-shared/protocol/index';
import type { Deadline } from '../base/deadline';
import type { LpSolveFacts } from '../mechanism/facts';
import {
  chooseLpModel,
  type CandidateRecord,
  type CheapCandidate,
  type OptimalLpResult,
  type OptimalMechanism,
} from '../lp/optimal/optimal-mechanism';
import { faceValueCost } from '../measure/expected-distance-error';
import { buildLoss, type GuessSpec } from '../measure/loss-spec';
import type { Domain } from '../metric/domain';
import { checkCancelled } from '../numeric/cancel';
import { cheapCandidates } from './cheap-candidates';
import { type BoundWithoutMaster, boundWithoutMaster } from '../lp/optimal/bound-without-master';
import { lpThreads } from '../lp/pricing/lp-threads';
import { certifiedGap } from '../../src-shared/protocol/index';

/** Kept for the job's finish after the bound (measures, output): a share of the limit, at least some seconds. */
const BOUND_RESERVE_SHARE = 0.1;
const BOUND_RESERVE_SECONDS = 5;
/** Below this many seconds left, no bound is tried (its coarse solve alone takes seconds). */
const BOUND_MIN_SECONDS = 10;

/** What an answer by a candidate alone reads of a build's options (engine.ts BuildOptions is one). */
interface CandidateOptions {
  prior: Float64Array;
  loss?: GuessSpec;
  lp?: Pick<LpOptions, 'lpModel' | 'delta' | 'timeLimitSeconds' | 'lpThreads'>;
  signal: AbortSignal;
  progress(fraction: number | null, message: string): void;
}

/**
 * An optimal request whose LP is over the decomposition's limits (job-costs.ts optimalLpRefusal: the master's
 * starting columns over its memory budget, or too many privacy rows to build; a 100 x 100 grid is both) but
 * that has a time limit: the best of the cheap candidates (planar Laplace, tight constraints, exponential, each
 * with the optimal remap) is returned, as the LP path returns it when the LP does not beat it, and the record
 * says plainly that there is no bound on the best possible (no pricing round ran). Nothing n x n is held: each
 * candidate is a row generator with its remap, and its expected loss is one streamed pass over C . R at face
 * value (C . R is Bayes-remapped already, so that is also its loss under the optimal remap). The time limit
 * counts from the job's start; the first candidate is always built, the others only when they should end
 * within it (cheap-candidates.ts; `timeLimitReached` when one was left out).
 */
export async function bestCandidateOnly(
  domain: Domain,
  eps: number,
  opts: CandidateOptions,
  refusal: MechError,
  deadline: Deadline,
): Promise<{ mechanism: OptimalMechanism; expectedLoss: number }> {
  const candidates = cheapCandidates(domain, eps, opts.prior, opts.loss, {
    signal: opts.signal,
    progress: (_f, m) => opts.progress(0, m),
    deadline: deadline.at,
  });
  const loss = buildLoss(opts.loss ?? { kind: 'bin' }, domain);
  let best: { c: CheapCandidate; value: number } | null = null;
  const records: CandidateRecord[] = candidates.map((c) => {
    const base = { construction: c.construction, timeMs: c.timeMs };
    if (!c.remapped) return { ...base, expectedLoss: null, note: c.note ?? { kind: 'not-built' } };
    opts.progress(0, `expected loss of ${c.construction}`);
    const value = faceValueCost(opts.prior, c.remapped, (x, w) => loss.value(w, x));
    checkCancelled(opts.signal);
    if (Number.isFinite(value) && (best === null || value < best.value)) best = { c, value };
    return { ...base, expectedLoss: Number.isFinite(value) ? value : null };
  });
  const chosen = best as { c: CheapCandidate; value: number } | null;
  // The exponential mechanism applies on every finite metric: only a failure of all three gets here.
  if (chosen === null) throw refusal;
  const bound = await candidateBound(domain, eps, opts, deadline);
  const lp = candidateLpRecord(
    domain,
    opts,
    refusal,
    records,
    chosen.c.construction,
    chosen.value,
    deadline,
    candidates.some((c) => c.note?.kind === 'not-tried'),
    bound,
  );
  const mechanism: OptimalMechanism = {
    kind: 'optimal',
    channel: chosen.c.remapped!,
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private by construction (${chosen.c.construction}: a private construction and a post-processing); the optimal LP was not solved (${refusal.message}), ${bound ? 'its bound on the best possible is one exact pricing round at the duals of a coarse solve' : 'so there is no bound on the best possible'}`,
    lp,
    facts: { kind: 'optimal', solve: notSolved(lp) },
  };
  return { mechanism, expectedLoss: chosen.value };
}

/**
 * The LP record of a request answered by a candidate alone: no rounds, no bound (the trivial 0 for losses >= 0), gap
 * 100%.
 */
function candidateLpRecord(
  domain: Domain,
  opts: CandidateOptions,
  refusal: MechError,
  candidates: CandidateRecord[],
  chosen: string,
  objective: number,
  deadline: Deadline,
  late: boolean,
  bound: BoundWithoutMaster | null,
): OptimalLpResult {
  const asked = opts.lp?.lpModel;
  const auto = chooseLpModel(domain, domain.n);
  const model = asked !== undefined && asked !== 'auto' ? asked : auto.model;
  const nonNegative =
    opts.loss === undefined || opts.loss.kind !== 'matrix' || opts.loss.matrix.data.every((v) => v >= 0);
  const trivial = nonNegative ? 0 : -Infinity;
  const reason = `${asked !== undefined && asked !== 'auto' ? 'requested' : auto.reason}; not solved: ${refusal.message}`;
  return {
    model,
    modelChoice: asked !== undefined && asked !== 'auto' ? 'requested' : 'auto',
    modelReason: bound ? `${reason}; ${boundWords(bound)}` : reason,
    delta: opts.lp?.delta ?? 1,
    method: 'decomposition',
    objective,
    lowerBound: bound ? Math.max(trivial, bound.bound) : trivial,
    gap: bound ? certifiedGap(objective, bound.bound) : 1,
    exactLowerBound: bound ? bound.bound : null,
    gapBasis: bound ? 'exact' : 'model',
    // No decomposition round ran (lpNotSolved): the bound, when there is one, is the master-free pricing's.
    rounds: 0,
    timeMs: performance.now() - deadline.startedAt,
    stoppedBy: 'solver-memory',
    timeLimitReached: late,
    history: [],
    coarseStart: bound?.coarseStart ?? null,
    chosen,
    candidates,
    lpObjective: NaN,
  };
}

/**
 * The bound without a master (lp/optimal/bound-without-master.ts) for a grid and a distance loss, within the time
 * left after keeping BOUND_RESERVE_SHARE of the limit (at least BOUND_RESERVE_SECONDS) for the job's finish; null
 * when it does not apply, too little time is left, or it gave no bound above the trivial one.
 */
async function candidateBound(
  domain: Domain,
  eps: number,
  opts: CandidateOptions,
  deadline: Deadline,
): Promise<BoundWithoutMaster | null> {
  const kind = opts.loss?.kind;
  if (!domain.structure.grid || (kind !== 'dist' && kind !== 'dist2')) return null;
  const until = deadline.reserve(Math.max(BOUND_RESERVE_SECONDS, BOUND_RESERVE_SHARE * deadline.seconds));
  if (until.left() < BOUND_MIN_SECONDS) return null;
  let bound: BoundWithoutMaster | null;
  try {
    bound = await boundWithoutMaster(domain, eps, opts.prior, kind, {
      threads: lpThreads(opts.lp?.lpThreads, { variables: domain.n * domain.n }),
      deadline: until,
      signal: opts.signal,
      progress: (m) => opts.progress(0, m),
    });
  } catch (e) {
    // A bound that could not be made (its coarse solve over the memory limit, say) leaves the candidate unbounded.
    if (!(e instanceof MechError) || e.code === 'cancelled') throw e;
    bound = null;
  }
  checkCancelled(opts.signal);
  return bound && bound.bound > 0 ? bound : null;
}

/** The bound in the model's reason. */
function boundWords(b: BoundWithoutMaster): string {
  const c = b.coarseStart;
  const all =
    b.priced === b.outputs
      ? `all ${b.outputs} outputs`
      : `${b.priced} of ${b.outputs} outputs (the others at their box bound: the time limit)`;
  return `its bound is one exact pricing round (${all}, ${(b.timeMs / 1000).toFixed(1)} s on ${b.threads} thread${b.threads === 1 ? '' : 's'}) at the duals of the ${c.rows} x ${c.cols} coarse solve (cells of ${c.cellSize}), with no master`;
}

/** The solver's figures of an LP that was not built. */
function notSolved(lp: OptimalLpResult): LpSolveFacts {
  return {
    delta: lp.delta,
    constraintMode: lp.model,
    constrainedPairs: 0,
    constraints: 0,
    variables: 0,
    nonzeros: 0,
    objective: lp.objective,
    buildMs: 0,
    solverMs: 0,
    iterations: 0,
    symmetries: 0,
    reducedVariables: 0,
    reducedConstraints: 0,
    maxConstraintViolation: 0,
    lpObjective: NaN,
    repairMass: 0,
    cappedPairs: 0,
    status: 'solver-memory',
  };
}
