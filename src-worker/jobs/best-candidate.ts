import type { MechError } from '../../src-shared/errors';
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

/** What an answer by a candidate alone reads of a build's options (engine.ts BuildOptions is one). */
interface CandidateOptions {
  prior: Float64Array;
  loss?: GuessSpec;
  lp?: Pick<LpOptions, 'lpModel' | 'delta' | 'timeLimitSeconds'>;
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
export function bestCandidateOnly(
  domain: Domain,
  eps: number,
  opts: CandidateOptions,
  refusal: MechError,
  deadline: Deadline,
): { mechanism: OptimalMechanism; expectedLoss: number } {
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
  const lp = candidateLpRecord(
    domain,
    opts,
    refusal,
    records,
    chosen.c.construction,
    chosen.value,
    deadline,
    candidates.some((c) => c.note?.kind === 'not-tried'),
  );
  const mechanism: OptimalMechanism = {
    kind: 'optimal',
    channel: chosen.c.remapped!,
    guaranteedEpsilon: eps,
    guarantee: `eps*d-private by construction (${chosen.c.construction}: a private construction and a post-processing); the optimal LP was not solved (${refusal.message}), so there is no bound on the best possible`,
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
): OptimalLpResult {
  const asked = opts.lp?.lpModel;
  const auto = chooseLpModel(domain, domain.n);
  const model = asked !== undefined && asked !== 'auto' ? asked : auto.model;
  const nonNegative =
    opts.loss === undefined || opts.loss.kind !== 'matrix' || opts.loss.matrix.data.every((v) => v >= 0);
  return {
    model,
    modelChoice: asked !== undefined && asked !== 'auto' ? 'requested' : 'auto',
    modelReason: `${asked !== undefined && asked !== 'auto' ? 'requested' : auto.reason}; not solved: ${refusal.message}`,
    delta: opts.lp?.delta ?? 1,
    method: 'decomposition',
    objective,
    lowerBound: nonNegative ? 0 : -Infinity,
    gap: 1,
    exactLowerBound: null,
    gapBasis: 'model',
    rounds: 0,
    timeMs: performance.now() - deadline.startedAt,
    stoppedBy: 'solver-memory',
    timeLimitReached: late,
    history: [],
    coarseStart: null,
    chosen,
    candidates,
    lpObjective: NaN,
  };
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
