/** The `solve` record of an optimal mechanism's construction facts, every field set: the fixture of the facts tests. */
import type { MechanismFacts } from '../../../src-shared/protocol/index';

type Solve = Extract<MechanismFacts, { kind: 'optimal' }>['solve'];

/** The solve's own figures: those an earlier version's flat info held under the same names. */
export const SOLVE_FIGURES = {
  delta: 1,
  constraintMode: 'all pairs',
  constrainedPairs: 15,
  constraints: 180,
  variables: 36,
  nonzeros: 400,
  objective: 0.8125,
  buildMs: 2,
  solverMs: 31,
  iterations: 57,
  symmetries: 1,
  reducedVariables: 36,
  reducedConstraints: 180,
  maxConstraintViolation: 1e-12,
  lpObjective: 0.8125,
  repairMass: 0,
  cappedPairs: 0,
};

/** A decomposition solve of line-like size 6 (36 variables, 180 rows), with what a test changes. */
export function optimalSolveFacts(over: Partial<Solve> = {}, relativeGap = NaN): Solve {
  return {
    ...SOLVE_FIGURES,
    generation: { rounds: 3, privacyRows: 60, fullPrivacyRows: 180, checkMs: 1, coldRetries: 0 },
    decomposition: {
      rounds: 7,
      columns: 40,
      pruned: 5,
      pricingColdRetries: 0,
      pricingFailures: 0,
      plateauColumns: 2,
      exactBoundMs: 4,
      relativeGap,
      pricingRows: 12,
      masterMs: 10,
      pricingMs: 20,
    },
    status: 'target-gap',
    ...over,
  } as Solve;
}
