/**
 * A mechanism's construction facts (the typed `facts` of a mechanism result, src-shared/protocol/facts.ts) as
 * display rows with words a reader can follow: the app shows them under "How it was computed" and the CLI under
 * "how it was computed", never as key=value strings. Every field of every construction has a label here (a test
 * goes through every kind); values of an earlier version's result with no place in the typed facts follow, "as
 * recorded".
 */
import type { MechanismFacts, RecordedFact } from '../protocol/index';

/** Labels by field (nested records by their path: `solve.generation.rounds`). */
export const FACT_LABELS: Record<string, string> = {
  construction: 'construction',
  alpha: 'geometric decay per unit of distance (e^-ε)',
  k: 'largest value on the line (values 0 to k)',
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
  'solve.delta': 'constraint stretch δ (1: exact distances)',
  'solve.constraintMode': 'which pairs are constrained',
  'solve.constrainedPairs': 'constrained pairs',
  'solve.constraints': 'constraints',
  'solve.variables': 'variables',
  'solve.nonzeros': 'nonzero coefficients',
  'solve.objective':
    'expected loss of the LP’s channel (private, after repair; a cheaper construction may be returned instead)',
  'solve.buildMs': 'time to build the model (ms)',
  'solve.solverMs': 'solver time (ms)',
  'solve.iterations': 'solver iterations',
  'solve.symmetries': 'symmetries of the domain used',
  'solve.reducedVariables': 'variables after symmetry reduction',
  'solve.reducedConstraints': 'constraints after symmetry reduction',
  'solve.maxConstraintViolation': 'largest privacy-constraint violation before repair',
  'solve.lpObjective': 'expected loss of the solver’s channel',
  'solve.repairMass': 'probability moved by the privacy repair',
  'solve.cappedPairs': 'pairs too far apart to constrain (factor above e^18)',
  'solve.generation.rounds': 'constraint-generation rounds',
  'solve.generation.privacyRows': 'privacy constraints generated',
  'solve.generation.fullPrivacyRows': 'privacy constraints in the full model',
  'solve.generation.checkMs': 'time checking for violated constraints (ms)',
  'solve.generation.coldRetries': 'solves restarted from scratch',
  'solve.decomposition.rounds': 'decomposition rounds',
  'solve.decomposition.columns': 'candidate columns in the master',
  'solve.decomposition.pruned': 'columns dropped from the master',
  'solve.decomposition.pricingColdRetries': 'pricing solves restarted from scratch',
  'solve.decomposition.pricingFailures': 'pricing solves that failed',
  'solve.decomposition.plateauColumns': 'columns found without an LP',
  'solve.decomposition.exactBoundMs': 'time for the bound on the best possible (ms)',
  'solve.decomposition.relativeGap': 'relative gap (the headline’s)',
  'solve.decomposition.pricingRows': 'rows of the pricing problems',
  'solve.decomposition.masterMs': 'time in the master problem (ms)',
  'solve.decomposition.pricingMs': 'time in pricing (ms)',
  'solve.status': 'solver status',
  capacity: 'capacity',
  value: 'value',
  trace: 'trace',
  constraintMode: 'which pairs are constrained',
  constraints: 'constraints',
  variables: 'variables',
  solverMs: 'solver time (ms)',
  maxConstraintViolation: 'largest privacy-constraint violation',
  vertices: 'corner of the private mechanisms, built on the values',
  combinator: 'combined by',
  outputs: 'outputs',
  first: 'first mechanism',
  second: 'second mechanism',
  kept: 'values kept',
  of: 'out of',
  p: 'probability of the first',
};

/**
 * Rows a construction implies without a field of its own: a closed form, a line closed into a ring (then not optimal).
 */
function impliedRows(f: MechanismFacts): [string, string | boolean][] {
  if (f.kind === 'truncated-geometric' || f.kind === 'ball-size')
    return [['construction', 'closed form (an exact formula, no solver)']];
  if (f.kind === 'tight-implicit') return [['implicit', true]];
  if (f.kind === 'symmetric' && f.closedIntoRing !== undefined) return [['optimal', false]];
  return [];
}

type Leaf = string | number | boolean | null | readonly number[];

/** The fields of a record as [path, value], nested records by their path, `kind` left out. */
function leaves(obj: object, prefix = ''): [string, Leaf][] {
  return Object.entries(obj).flatMap(([k, v]): [string, Leaf][] => {
    if ((prefix === '' && k === 'kind') || v === undefined) return [];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return leaves(v as object, `${prefix}${k}.`);
    return [[`${prefix}${k}`, v as Leaf]];
  });
}

/** "maxRowSumError" -> "max row sum error" (a key without a label). */
function words(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

interface FactRow {
  key: string;
  label: string;
  value: string;
}

function valueText(v: Leaf, num: (v: number) => string): string {
  if (v === null) return 'not known'; // a non-finite number that went through JSON
  if (typeof v === 'number') return Number.isNaN(v) ? 'not known' : num(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v;
  return v.map(num).join(', ');
}

/**
 * The facts as rows, in the order of their fields (what the construction implies first), values written by `num`
 * (numbers) or as they are (text, yes/no); then `recorded` (an earlier version's values without a typed place).
 */
export function factRows(
  facts: MechanismFacts,
  num: (v: number) => string,
  recorded: readonly RecordedFact[] = [],
): FactRow[] {
  const typed = [...impliedRows(facts), ...leaves(facts)].map(([key, v]) => ({
    key,
    label: FACT_LABELS[key] ?? words(key),
    value: valueText(v, num),
  }));
  const kept = recorded.map((r) => ({
    key: `recorded.${r.name}`,
    label: `${words(r.name)} (as recorded)`,
    value: valueText(r.value, num),
  }));
  return [...typed, ...kept];
}

/**
 * What a construction guarantees, in words (the engine's reasoning, with its symbols, goes under "How it was
 * computed"): private by construction at the ε asked for, only at a larger ε, or no guarantee of its own (the
 * privacy check then says what it delivers); `how` 'checked' for an optimal LP's own channel. `perUnit` names the
 * unit of distance ("per km") when there is one.
 */
export function guaranteeWords(
  asked: number,
  guaranteed: number | null,
  num: (v: number) => string,
  perUnit = '',
  how: 'construction' | 'checked' = 'construction',
): string {
  const at = (e: number): string => `ε = ${num(e)}${perUnit ? ` ${perUnit}` : ''}`;
  // an optimal LP's own channel: private because it meets its privacy constraints, checked after the solve
  if (how === 'checked' && guaranteed !== null)
    return `Private: checked at ${at(guaranteed)} (the LP's channel was checked against its privacy constraints; it is not private by construction).`;
  if (guaranteed === null) return 'No guarantee by construction: the privacy check measures what it delivers.';
  if (Math.abs(guaranteed - asked) <= 1e-12 * Math.max(1, asked)) return `Private by construction at ${at(asked)}.`;
  if (guaranteed > asked)
    return `Guaranteed by construction only at ${at(guaranteed)}, weaker than the ${at(asked)} asked for: the privacy check measures what it delivers.`;
  return `Private by construction at ${at(guaranteed)}, stronger than the ${at(asked)} asked for.`;
}
