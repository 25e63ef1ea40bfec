/**
 * What a constructor knows about the mechanism it built (its "facts"), as a
 * discriminated, typed record: one variant per construction, produced by the
 * constructor and read by name (`m.facts.kind === 'optimal' ? m.facts.lp.gap
 * : ...`), never parsed back from text.
 *
 * The protocol carries the same facts as a flat `info` record of display
 * values (src-shared/protocol/results.ts `MechanismInfo`); `mechanismInfo`
 * below is the one place that flattens them, with the keys, order and values
 * the results have always had (non-finite numbers become their text).
 */
import type { MechanismInfo } from '../../src-shared/protocol/index';
import { MechError } from '../../src-shared/errors';
import type { OptimalLpResult, LpStop } from './lp-result';

/** What the solver of a private-channel LP did (sizes, times, repair), next to the typed `OptimalLpResult`. */
export interface LpSolveFacts {
  delta: number;
  constraintMode: string;
  constrainedPairs: number;
  constraints: number;
  variables: number;
  nonzeros: number;
  /** Expected loss of the returned (repaired) mechanism, in the loss's units. */
  objective: number;
  buildMs: number;
  solverMs: number;
  iterations: number;
  symmetries: number;
  reducedVariables: number;
  reducedConstraints: number;
  maxConstraintViolation: number;
  /** The solver's own objective (before the repair), in the loss's units. */
  lpObjective: number;
  repairMass: number;
  cappedPairs: number;
  generation?: { rounds: number; privacyRows: number; fullPrivacyRows: number; checkMs: number; coldRetries: number };
  decomposition?: {
    rounds: number;
    columns: number;
    pruned: number;
    pricingColdRetries: number;
    pricingFailures: number;
    plateauColumns: number;
    exactBoundMs: number;
    relativeGap: number;
    pricingRows: number;
    masterMs: number;
    pricingMs: number;
  };
  /** 'optimal' unless a limit (time, stop, iterations, solver memory) ended the solve early. */
  status: 'optimal' | LpStop;
}

export type CombinatorFacts =
  | { kind: 'combinator'; combinator: 'post-process'; outputs: number }
  | { kind: 'combinator'; combinator: 'cascade'; first: string; second: string }
  | { kind: 'combinator'; combinator: 'restrict'; kept: number; of: number }
  | { kind: 'combinator'; combinator: 'choice'; p: number; first: string; second: string };

export type MechanismFacts =
  | { kind: 'truncated-geometric'; alpha: number; k: number }
  | { kind: 'randomised-response'; diagonal: number; offDiagonal: number; minDistance: number }
  /** Exponential mechanism (kernel rate eps/2) and row-normalised Laplace (kernel rate eps, guaranteed only 2 eps). */
  | { kind: 'exponential'; kernelRate: number }
  | { kind: 'laplace'; kernelRate: number }
  | { kind: 'planar-laplace'; metric: string; density: string; epsPerCell: number; integrations: number; tableBuildMs: number; method: string }
  /** Tight constraints with dense weights (tight-constraints.ts). */
  | { kind: 'tight'; solver: string; solveMs: number; minZ: number }
  /** Tight constraints on a structured domain, rows generated from z (implicit/tight-structured.ts). */
  | {
      kind: 'tight-implicit';
      solver: string;
      iterations: number;
      relResidual: number;
      solveMs: number;
      setupMs: number;
      minZ: number;
      argMinZ: string;
      clampedZ: number;
      maxRowSumError: number;
      fellBack?: string;
    }
  | { kind: 'ball-size'; z: number; normaliser: number }
  /** Single-orbit symmetric mechanism; on a line, closed into a ring of `closedIntoRing` points (then not optimal). */
  | { kind: 'symmetric'; a: number; c: number; diameter: number; evenRing: boolean; closedIntoRing?: number }
  | { kind: 'optimal'; lp: OptimalLpResult; solve: LpSolveFacts }
  | {
      kind: 'capacity';
      capacity: 'multiplicative' | 'additive';
      value: number;
      trace: number;
      constraintMode: string;
      constraints: number;
      variables: number;
      solverMs: number;
      maxConstraintViolation: number;
    }
  | { kind: 'kernel'; vertices: readonly number[] }
  | CombinatorFacts
  /** Nothing known beyond the channel (e.g. a mechanism that does not exist). */
  | { kind: 'none' };

/** A number as JSON carries it: non-finite values as their text ('Infinity', '-Infinity', 'NaN'). */
function portable(x: number): number | 'Infinity' | '-Infinity' | 'NaN' {
  return Number.isFinite(x) ? x : (String(x) as 'Infinity' | '-Infinity' | 'NaN');
}

/** The flat `info` of an optimal mechanism: the LP record's headline figures first, then the solver's. */
function optimalInfo(lp: OptimalLpResult, s: LpSolveFacts): MechanismInfo {
  const p = portable;
  return {
    lpModel: lp.model,
    lpMethod: lp.method,
    gap: p(lp.gap),
    ...(lp.exactLowerBound !== null ? { exactLowerBound: p(lp.exactLowerBound) } : {}),
    stoppedBy: lp.stoppedBy,
    timeLimitReached: lp.timeLimitReached,
    lpRounds: lp.rounds,
    lpTimeMs: p(lp.timeMs),
    delta: p(s.delta),
    constraintMode: s.constraintMode,
    constrainedPairs: s.constrainedPairs,
    constraints: s.constraints,
    variables: s.variables,
    nonzeros: s.nonzeros,
    objective: p(s.objective),
    buildMs: p(s.buildMs),
    solverMs: p(s.solverMs),
    iterations: s.iterations,
    symmetries: s.symmetries,
    reducedVariables: s.reducedVariables,
    reducedConstraints: s.reducedConstraints,
    maxConstraintViolation: p(s.maxConstraintViolation),
    lpObjective: p(s.lpObjective),
    repairMass: p(s.repairMass),
    cappedPairs: s.cappedPairs,
    ...(s.generation
      ? {
          generationRounds: s.generation.rounds,
          generatedPrivacyRows: s.generation.privacyRows,
          fullPrivacyRows: s.generation.fullPrivacyRows,
          generationCheckMs: p(s.generation.checkMs),
          generationColdRetries: s.generation.coldRetries,
        }
      : {}),
    ...(s.decomposition
      ? {
          decompositionRounds: s.decomposition.rounds,
          decompositionColumns: s.decomposition.columns,
          decompositionPruned: s.decomposition.pruned,
          pricingColdRetries: s.decomposition.pricingColdRetries,
          pricingFailures: s.decomposition.pricingFailures,
          plateauColumns: s.decomposition.plateauColumns,
          exactBoundMs: p(s.decomposition.exactBoundMs),
          relativeGap: p(s.decomposition.relativeGap),
          pricingRows: s.decomposition.pricingRows,
          masterMs: p(s.decomposition.masterMs),
          pricingMs: p(s.decomposition.pricingMs),
        }
      : {}),
    lowerBound: p(lp.lowerBound),
    status: s.status,
  } as MechanismInfo;
}

/**
 * The protocol's flat `info` record of a mechanism's facts (display values:
 * the renderer lists them, `--json` of a project run carries them). Keys and
 * order are the contract of earlier results; programs read `facts` (engine)
 * or the typed `lp` record (protocol) instead.
 */
export function mechanismInfo(f: MechanismFacts): MechanismInfo {
  const p = portable;
  switch (f.kind) {
    case 'truncated-geometric':
      return { alpha: p(f.alpha), k: f.k, construction: 'closed form, SPEC §2' };
    case 'randomised-response':
      return { diagonal: p(f.diagonal), offDiagonal: p(f.offDiagonal), minDistance: p(f.minDistance) };
    case 'exponential':
    case 'laplace':
      return { kernelRate: p(f.kernelRate) };
    case 'planar-laplace':
      return {
        metric: f.metric,
        density: f.density,
        epsPerCell: p(f.epsPerCell),
        integrations: f.integrations,
        tableBuildMs: p(f.tableBuildMs),
        method: f.method,
      };
    case 'tight':
      return { solver: f.solver, solveMs: p(f.solveMs), minZ: p(f.minZ) };
    case 'tight-implicit':
      return {
        solver: f.solver,
        iterations: f.iterations,
        relResidual: p(f.relResidual),
        solveMs: p(f.solveMs),
        setupMs: p(f.setupMs),
        minZ: p(f.minZ),
        argMinZ: f.argMinZ,
        clampedZ: f.clampedZ,
        maxRowSumError: p(f.maxRowSumError),
        implicit: true,
        ...(f.fellBack !== undefined ? { fellBack: f.fellBack } : {}),
      };
    case 'ball-size':
      return { z: p(f.z), normaliser: p(f.normaliser), construction: 'ball-size closed form, SPEC §5' };
    case 'symmetric': {
      const base = { a: p(f.a), c: p(f.c), diameter: f.diameter, evenRing: f.evenRing };
      return f.closedIntoRing === undefined ? base : { ...base, closedIntoRing: f.closedIntoRing, optimal: false };
    }
    case 'optimal':
      return optimalInfo(f.lp, f.solve);
    case 'capacity':
      return {
        capacity: f.capacity,
        value: p(f.value),
        trace: p(f.trace),
        constraintMode: f.constraintMode,
        constraints: f.constraints,
        variables: f.variables,
        solverMs: p(f.solverMs),
        maxConstraintViolation: p(f.maxConstraintViolation),
        status: 'optimal',
      };
    case 'kernel':
      return { construction: 'kernel', vertices: f.vertices.join(' '), size: f.vertices.length };
    case 'combinator': {
      const { kind: _kind, ...rest } = f;
      return rest as MechanismInfo;
    }
    case 'none':
      return {};
  }
}

/** The facts of a mechanism built by a known construction, narrowed by kind (an internal error if it is another). */
export function factsOf<K extends MechanismFacts['kind']>(m: { facts: MechanismFacts }, kind: K): Extract<MechanismFacts, { kind: K }> {
  if (m.facts.kind !== kind) throw new MechError('internal', `expected the facts of a '${kind}' construction, got '${m.facts.kind}'`);
  return m.facts as Extract<MechanismFacts, { kind: K }>;
}
