/**
 * What an optimal solve reports (docs/lp.md, "The certified lower bound and the gap"): the typed LP record
 * (OptimalLpResult), the solver's figures (`facts.solve`) and the returned mechanism's guarantee in words.
 */
import { certifiedGap, noRoundCompleted } from '../../../src-shared/protocol/index';
import type { MechanismFacts } from '../../mechanism/facts';
import type { CandidateRecord, LpPrivacyModel, LpProgress, LpStop, OptimalLpResult } from '../../mechanism/lp-result';
import type { PrivateChannelSolution } from '../channel/private-channel-lp';
import type { PrivacyConstraintGraph } from '../model/privacy-constraint-graph';
import type { BestCandidate } from './candidates';
import type { CoarseStart } from './coarse-start';
import type { OptimalMechanismOptions, TypedModel } from './optimal-options';

/** Which pairs carry constraints, in words (for the guarantee). */
function constraintsInWords(graph: PrivacyConstraintGraph): string {
  if (graph.mode === 'edges') return 'constraints on the graph edges of d';
  if (graph.mode === 'spanner')
    return `constraints with eps/${graph.delta} on a greedy spanner of dilation ${graph.delta}`;
  if (graph.mode === 'exact') return 'constraints on all pairs not implied by an equally long path';
  return 'constraints on all pairs';
}

/** What the returned mechanism is: the LP's channel or a candidate's, with the candidates tried. */
export interface Returned {
  objective: number;
  chosen: string;
  candidates: CandidateRecord[];
}

/**
 * The typed LP record of a solve (objective and bounds scaled back; see docs/lp.md, "The certified lower bound and the
 * gap").
 */
export function typedLpResult(
  s: PrivateChannelSolution,
  chosen: TypedModel | null,
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
export function solveFacts(
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

/** Whether the solve stopped before its optimum (time limit, stop, iteration limit or the solver's memory). */
export function stoppedEarly(stoppedBy: LpStop): boolean {
  return (
    stoppedBy === 'time-limit' ||
    stoppedBy === 'stopped' ||
    stoppedBy === 'iteration-limit' ||
    stoppedBy === 'solver-memory'
  );
}

/** The returned mechanism's guarantee in words: the candidate's (when it was returned) or the LP channel's. */
export function guaranteeWords(
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
