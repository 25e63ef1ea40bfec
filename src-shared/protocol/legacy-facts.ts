/**
 * Construction facts from results kept by earlier versions (project files of
 * version 1; project-migration.ts reads them onto the current shape). Those results
 * carried a flat `info` record of display values (e.g. `{ alpha, k,
 * construction }`, an optimal LP's sizes and times under flat names) instead of
 * the typed `facts`; `factsFromInfo` recognises the construction by its keys,
 * maps the values onto the typed record and validates it with
 * `mechanismFactsSchema`. What has no place there (a key of an older version,
 * a record that does not validate) is kept as rows "as recorded", never dropped.
 */
import { z } from 'zod';
import { mechanismFactsSchema, type MechanismFacts, type RecordedFact } from './facts';

/**
 * The flat `info` of an earlier result: display values by name (non-finite numbers as numbers, their text, or null from
 * JSON).
 */
export const legacyInfoSchema = z.record(
  z.string(),
  z.union([z.number(), z.nan(), z.literal(Infinity), z.literal(-Infinity), z.string(), z.boolean(), z.null()]),
);
export type LegacyInfo = z.infer<typeof legacyInfoSchema>;
type Value = LegacyInfo[string];

/** The LP's headline figures in the flat info: the result's typed `lp` record carries them. */
const LP_HEADLINE_KEYS = [
  'lpModel',
  'lpMethod',
  'gap',
  'exactLowerBound',
  'stoppedBy',
  'timeLimitReached',
  'lpRounds',
  'lpTimeMs',
  'lowerBound',
];
const SOLVE_KEYS = [
  'delta',
  'constraintMode',
  'constrainedPairs',
  'constraints',
  'variables',
  'nonzeros',
  'objective',
  'buildMs',
  'solverMs',
  'iterations',
  'symmetries',
  'reducedVariables',
  'reducedConstraints',
  'maxConstraintViolation',
  'lpObjective',
  'repairMass',
  'cappedPairs',
  'status',
];
const GENERATION_NAMES = {
  rounds: 'generationRounds',
  privacyRows: 'generatedPrivacyRows',
  fullPrivacyRows: 'fullPrivacyRows',
  checkMs: 'generationCheckMs',
  coldRetries: 'generationColdRetries',
};
const DECOMPOSITION_NAMES = {
  rounds: 'decompositionRounds',
  columns: 'decompositionColumns',
  pruned: 'decompositionPruned',
  pricingColdRetries: 'pricingColdRetries',
  pricingFailures: 'pricingFailures',
  plateauColumns: 'plateauColumns',
  exactBoundMs: 'exactBoundMs',
  relativeGap: 'relativeGap',
  pricingRows: 'pricingRows',
  masterMs: 'masterMs',
  pricingMs: 'pricingMs',
};
const TIGHT_IMPLICIT_KEYS = [
  'solver',
  'iterations',
  'relResidual',
  'solveMs',
  'setupMs',
  'minZ',
  'argMinZ',
  'clampedZ',
  'maxRowSumError',
  'fellBack',
];
const CAPACITY_KEYS = [
  'capacity',
  'value',
  'trace',
  'constraintMode',
  'constraints',
  'variables',
  'solverMs',
  'maxConstraintViolation',
];

/** Reads an info record, remembering which keys were used (the rest is kept as recorded). */
class InfoReader {
  readonly used = new Set<string>();
  constructor(readonly info: LegacyInfo) {}
  has(key: string): boolean {
    return Object.hasOwn(this.info, key);
  }
  /** The values of `names` (new name -> old key), those present. */
  renamed(names: Record<string, string>): Record<string, Value> {
    const out: Record<string, Value> = {};
    for (const [to, from] of Object.entries(names)) {
      if (this.has(from)) {
        this.used.add(from);
        out[to] = this.info[from]!;
      }
    }
    return out;
  }
  fields(keys: readonly string[]): Record<string, Value> {
    return this.renamed(Object.fromEntries(keys.map((k) => [k, k])));
  }
  /** A key whose value the typed record implies (e.g. the words 'closed form'): used when it holds that value. */
  implied(key: string, value: Value): void {
    if (this.info[key] === value) this.used.add(key);
  }
}

function optimalDraft(r: InfoReader, lpCarried: boolean): Record<string, unknown> {
  const solve: Record<string, unknown> = r.fields(SOLVE_KEYS);
  if (r.has(GENERATION_NAMES.rounds)) solve.generation = r.renamed(GENERATION_NAMES);
  if (r.has(DECOMPOSITION_NAMES.rounds)) solve.decomposition = r.renamed(DECOMPOSITION_NAMES);
  if (lpCarried) for (const k of LP_HEADLINE_KEYS) if (r.has(k)) r.used.add(k);
  return { kind: 'optimal', solve };
}

/** The typed record the flat info describes (recognised by its keys), before validation; null when none fits. */
function draft(r: InfoReader, resultKind: string, lpCarried: boolean): Record<string, unknown> | null {
  const info = r.info;
  if (r.has('combinator'))
    return { kind: 'combinator', ...r.fields(['combinator', 'outputs', 'first', 'second', 'kept', 'of', 'p']) };
  if (r.has('alpha') && r.has('k')) {
    r.implied('construction', 'closed form, SPEC §2');
    return { kind: 'truncated-geometric', ...r.fields(['alpha', 'k']) };
  }
  if (r.has('diagonal'))
    return { kind: 'randomised-response', ...r.fields(['diagonal', 'offDiagonal', 'minDistance']) };
  if (r.has('kernelRate'))
    return { kind: resultKind === 'laplace' ? 'laplace' : 'exponential', ...r.fields(['kernelRate']) };
  if (r.has('epsPerCell')) {
    return {
      kind: 'planar-laplace',
      ...r.fields(['metric', 'density', 'epsPerCell', 'integrations', 'tableBuildMs', 'method']),
    };
  }
  if (info.implicit === true) {
    r.implied('implicit', true);
    return { kind: 'tight-implicit', ...r.fields(TIGHT_IMPLICIT_KEYS) };
  }
  if (r.has('minZ') && r.has('solver')) return { kind: 'tight', ...r.fields(['solver', 'solveMs', 'minZ']) };
  if (r.has('normaliser')) {
    r.implied('construction', 'ball-size closed form, SPEC §5');
    return { kind: 'ball-size', ...r.fields(['z', 'normaliser']) };
  }
  if (r.has('evenRing')) {
    r.implied('optimal', false);
    return { kind: 'symmetric', ...r.fields(['a', 'c', 'diameter', 'evenRing', 'closedIntoRing']) };
  }
  if (r.has('capacity')) {
    r.implied('status', 'optimal');
    return { kind: 'capacity', ...r.fields(CAPACITY_KEYS) };
  }
  if (info.construction === 'kernel' && typeof info.vertices === 'string') {
    const vertices = info.vertices.trim() === '' ? [] : info.vertices.trim().split(/\s+/).map(Number);
    r.implied('construction', 'kernel');
    r.implied('size', vertices.length);
    r.used.add('vertices');
    return { kind: 'kernel', vertices };
  }
  if (r.has('constrainedPairs')) return optimalDraft(r, lpCarried);
  return Object.keys(info).length === 0 ? { kind: 'none' } : null;
}

/** A value as kept: numbers (non-finite as numbers), text, yes/no; null (a non-finite number through JSON) as NaN. */
function recorded(info: LegacyInfo, skip: ReadonlySet<string>): RecordedFact[] {
  return Object.entries(info)
    .filter(([name]) => !skip.has(name))
    .map(([name, value]) => ({ name, value: value ?? NaN }));
}

/**
 * The typed facts of an earlier result's flat `info` (`resultKind` is the result's mechanism kind, which tells an
 * exponential mechanism from a row-normalised Laplace; `lpCarried` says the result carries the typed `lp` record,
 * which holds the LP's headline figures), and the values that have no place in them, as recorded.
 */
export function factsFromInfo(
  info: LegacyInfo,
  resultKind: string,
  lpCarried: boolean,
): { facts: MechanismFacts; recorded: RecordedFact[] } {
  const r = new InfoReader(info);
  const d = draft(r, resultKind, lpCarried);
  const parsed = d === null ? null : mechanismFactsSchema.safeParse(d);
  if (!parsed?.success) return { facts: { kind: 'none' }, recorded: recorded(info, new Set()) };
  return { facts: parsed.data, recorded: recorded(info, r.used) };
}
