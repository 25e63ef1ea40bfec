/**
 * A mechanism's construction facts (protocol `mechanismInfoSchema`: flat name/value pairs, one shape per
 * construction) as display rows with words a reader can follow: the app shows them under "How it was computed",
 * never as key=value strings. Every key of every shape has a label here (a test enumerates the schema); a key
 * from an older project file without one is shown with its name split into words.
 */
export const FACT_LABELS: Record<string, string> = {
  alpha: 'geometric decay per unit of distance (e^-ε)',
  k: 'number of values',
  construction: 'construction',
  diagonal: 'probability of reporting the true value',
  offDiagonal: 'probability of each other value',
  minDistance: 'smallest distance between two values',
  kernelRate: 'decay rate of the kernel (per unit of distance)',
  metric: 'distance',
  density: 'noise density',
  epsPerCell: 'ε per cell',
  integrations: 'numerical integrations',
  tableBuildMs: 'time to tabulate the noise (ms)',
  method: 'method',
  solver: 'linear solver',
  solveMs: 'solve time (ms)',
  minZ: 'smallest output weight z (negative: the mechanism does not exist)',
  iterations: 'solver iterations',
  relResidual: 'relative residual of the solve',
  setupMs: 'set-up time (ms)',
  argMinZ: 'where z is smallest',
  clampedZ: 'weights clamped at 0',
  maxRowSumError: 'largest deviation of a row sum from 1',
  implicit: 'held implicitly (no full matrix)',
  fellBack: 'fell back to',
  z: 'output weight z',
  normaliser: 'normalising constant',
  a: 'probability of the true value (a)',
  c: 'decay per step (c)',
  diameter: 'largest distance',
  evenRing: 'ring of even length',
  closedIntoRing: 'line closed into a ring of',
  optimal: 'proven optimal',
  lpModel: 'privacy constraints used',
  lpMethod: 'solution method',
  gap: 'gap to the bound (relative)',
  exactLowerBound: 'bound on the best possible (certified)',
  stoppedBy: 'stopped because',
  timeLimitReached: 'time limit reached',
  lpRounds: 'rounds',
  lpTimeMs: 'time (ms)',
  delta: 'constraint stretch δ (1: exact distances)',
  constraintMode: 'which pairs are constrained',
  constrainedPairs: 'constrained pairs',
  constraints: 'constraints',
  variables: 'variables',
  nonzeros: 'nonzero coefficients',
  objective: 'expected loss of the channel returned',
  buildMs: 'time to build the model (ms)',
  solverMs: 'solver time (ms)',
  symmetries: 'symmetries of the domain used',
  reducedVariables: 'variables after symmetry reduction',
  reducedConstraints: 'constraints after symmetry reduction',
  maxConstraintViolation: 'largest privacy-constraint violation before repair',
  lpObjective: 'expected loss of the solver’s channel',
  repairMass: 'probability moved by the privacy repair',
  cappedPairs: 'pairs too far apart to constrain (factor above e^18)',
  generationRounds: 'constraint-generation rounds',
  generatedPrivacyRows: 'privacy constraints generated',
  fullPrivacyRows: 'privacy constraints in the full model',
  generationCheckMs: 'time checking for violated constraints (ms)',
  generationColdRetries: 'solves restarted from scratch',
  decompositionRounds: 'decomposition rounds',
  decompositionColumns: 'candidate columns in the master',
  decompositionPruned: 'columns dropped from the master',
  pricingColdRetries: 'pricing solves restarted from scratch',
  pricingFailures: 'pricing solves that failed',
  plateauColumns: 'columns found without an LP',
  exactBoundMs: 'time for the bound on the best possible (ms)',
  relativeGap: 'relative gap',
  pricingRows: 'rows of the pricing problems',
  masterMs: 'time in the master problem (ms)',
  pricingMs: 'time in pricing (ms)',
  lowerBound: 'lower bound of the model',
  status: 'solver status',
  capacity: 'capacity',
  value: 'value',
  trace: 'trace',
  vertices: 'corner of',
  size: 'size',
  combinator: 'combined by',
  outputs: 'outputs',
  first: 'first mechanism',
  second: 'second mechanism',
  kept: 'values kept',
  of: 'out of',
  p: 'probability of the first',
};

/** "maxRowSumError" -> "max row sum error" (a key without a label). */
function words(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

export interface FactRow {
  key: string;
  label: string;
  value: string;
}

/** The facts as rows, in their order, values written by `num` (numbers) or as they are (text, yes/no). */
export function factRows(info: Record<string, unknown>, num: (v: number) => string): FactRow[] {
  return Object.entries(info).map(([key, v]) => ({
    key,
    label: FACT_LABELS[key] ?? words(key),
    value: typeof v === 'number' ? num(v) : typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v),
  }));
}

/**
 * What a construction guarantees, in words (the engine's reasoning, with its symbols, goes under "How it was
 * computed"): private by construction at the ε asked for, only at a larger ε, or no guarantee of its own (the
 * privacy check then says what it delivers). `perUnit` names the unit of distance ("per km") when there is one.
 */
export function guaranteeWords(asked: number, guaranteed: number | null, num: (v: number) => string, perUnit = ''): string {
  const at = (e: number): string => `ε = ${num(e)}${perUnit ? ` ${perUnit}` : ''}`;
  if (guaranteed === null) return 'No guarantee by construction: the privacy check measures what it delivers.';
  if (Math.abs(guaranteed - asked) <= 1e-12 * Math.max(1, asked)) return `Private by construction at ${at(asked)}.`;
  if (guaranteed > asked)
    return `Guaranteed by construction only at ${at(guaranteed)}, weaker than the ${at(asked)} asked for: the privacy check measures what it delivers.`;
  return `Private by construction at ${at(guaranteed)}, stronger than the ${at(asked)} asked for.`;
}
