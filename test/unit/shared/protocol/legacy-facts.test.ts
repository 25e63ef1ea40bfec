/**
 * Results kept by earlier versions carry a flat `info` record instead of the
 * typed `facts`: read onto the typed record (every construction those
 * versions wrote), values without a place there kept "as recorded", and a
 * project file holding such a result opens with typed facts.
 */
import { describe, expect, it } from 'vitest';
import {
  factsFromInfo,
  type LegacyInfo,
  type MechanismFacts,
  type RecordedFact,
} from '../../../../src-shared/protocol/index';
import { parseProject } from '../../../../src-main/project/project-file';
import { optimalSolveFacts, SOLVE_FIGURES } from '../../support/optimal-solve-facts';
import { implicitTightFigures, mechanismOnLine, PLANAR_LAPLACE_FIGURES } from '../../support/construction-facts';

const ALPHA = Math.exp(-0.5);

/** An optimal mechanism's flat info as the earlier versions wrote it (LP headline, then the solver's figures). */
const OLD_OPTIMAL: LegacyInfo = {
  lpModel: 'exact',
  lpMethod: 'decomposition',
  gap: 2e-7,
  stoppedBy: 'target-gap',
  timeLimitReached: false,
  lpRounds: 7,
  lpTimeMs: 120,
  ...SOLVE_FIGURES,
  generationRounds: 3,
  generatedPrivacyRows: 60,
  fullPrivacyRows: 180,
  generationCheckMs: 1,
  generationColdRetries: 0,
  decompositionRounds: 7,
  decompositionColumns: 40,
  decompositionPruned: 5,
  pricingColdRetries: 0,
  pricingFailures: 0,
  plateauColumns: 2,
  exactBoundMs: 4,
  relativeGap: 'NaN',
  pricingRows: 12,
  masterMs: 10,
  pricingMs: 20,
  lowerBound: 0.81249,
  status: 'target-gap',
};
const OPTIMAL_SOLVE = optimalSolveFacts();
/** An additive capacity's facts, the same in the old info (beside its LP status) and the typed record. */
const CAPACITY = {
  capacity: 'additive',
  value: 0.5,
  trace: 2,
  constraintMode: 'all pairs',
  constraints: 30,
  variables: 36,
  solverMs: 8,
  maxConstraintViolation: 0,
} as const;

/** [what, the old info, the result's kind, the typed facts it reads as, values kept as recorded]. */
const CASES: [string, LegacyInfo, string, MechanismFacts, RecordedFact[]][] = [
  [
    'truncated geometric',
    { alpha: ALPHA, k: 5, construction: 'closed form, SPEC §2' },
    'tg',
    { kind: 'truncated-geometric', alpha: ALPHA, k: 5 },
    [],
  ],
  [
    'randomised response (a non-finite number as its text)',
    { diagonal: 0.5, offDiagonal: 0.1, minDistance: 'Infinity' },
    'rr',
    { kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.1, minDistance: Infinity },
    [],
  ],
  [
    'exponential with the effective eps an older version measured',
    { kernelRate: 0.25, effectiveEpsilon: 0.5, effectiveEpsilonChecked: true },
    'exponential',
    { kind: 'exponential', kernelRate: 0.25 },
    [
      { name: 'effectiveEpsilon', value: 0.5 },
      { name: 'effectiveEpsilonChecked', value: true },
    ],
  ],
  [
    'row-normalised Laplace (told apart by the result kind)',
    { kernelRate: 1, effectiveEpsilonNote: 'too large to measure' },
    'laplace',
    { kind: 'laplace', kernelRate: 1 },
    [{ name: 'effectiveEpsilonNote', value: 'too large to measure' }],
  ],
  [
    'planar Laplace',
    PLANAR_LAPLACE_FIGURES,
    'planar-laplace',
    { kind: 'planar-laplace', ...PLANAR_LAPLACE_FIGURES },
    [],
  ],
  [
    'tight constraints (dense)',
    { solver: 'LU', solveMs: 1.5, minZ: 0.02 },
    'tight',
    { kind: 'tight', solver: 'LU', solveMs: 1.5, minZ: 0.02 },
    [],
  ],
  [
    'tight constraints held implicitly',
    { ...implicitTightFigures(0.01), implicit: true },
    'tight',
    { kind: 'tight-implicit', ...implicitTightFigures(0.01) },
    [],
  ],
  [
    'ball size',
    { z: 0.125, normaliser: 8, construction: 'ball-size closed form, SPEC §5' },
    'tight',
    { kind: 'ball-size', z: 0.125, normaliser: 8 },
    [],
  ],
  [
    'symmetric, a line closed into a ring',
    { a: 0.4, c: 0.6, diameter: 3, evenRing: false, closedIntoRing: 7, optimal: false },
    'symmetric',
    { kind: 'symmetric', a: 0.4, c: 0.6, diameter: 3, evenRing: false, closedIntoRing: 7 },
    [],
  ],
  [
    'optimal (the LP headline is the result’s lp record)',
    OLD_OPTIMAL,
    'optimal',
    { kind: 'optimal', solve: OPTIMAL_SOLVE } as MechanismFacts,
    [],
  ],
  ['capacity', { ...CAPACITY, status: 'optimal' }, 'capacity', { kind: 'capacity', ...CAPACITY }, []],
  [
    'kernel',
    { construction: 'kernel', vertices: '0 2 5', size: 3 },
    'kernel',
    { kind: 'kernel', vertices: [0, 2, 5] },
    [],
  ],
  [
    'post-process',
    { combinator: 'post-process', outputs: 4 },
    'tg',
    { kind: 'combinator', combinator: 'post-process', outputs: 4 },
    [],
  ],
  [
    'cascade',
    { combinator: 'cascade', first: 'tg', second: 'rr' },
    'tg',
    { kind: 'combinator', combinator: 'cascade', first: 'tg', second: 'rr' },
    [],
  ],
  [
    'restrict',
    { combinator: 'restrict', kept: 3, of: 6 },
    'tg',
    { kind: 'combinator', combinator: 'restrict', kept: 3, of: 6 },
    [],
  ],
  [
    'choice',
    { combinator: 'choice', p: 0.25, first: 'tg', second: 'rr' },
    'tg',
    { kind: 'combinator', combinator: 'choice', p: 0.25, first: 'tg', second: 'rr' },
    [],
  ],
  ['nothing known', {}, 'tight', { kind: 'none' }, []],
];

describe('facts of earlier results: the flat info read onto the typed facts', () => {
  for (const [what, info, kind, facts, recorded] of CASES) {
    it(what, () => {
      expect(factsFromInfo(info, kind, true)).toEqual({ facts, recorded });
    });
  }

  it('an optimal result without its lp record keeps the LP headline as recorded', () => {
    const { facts, recorded } = factsFromInfo(OLD_OPTIMAL, 'optimal', false);
    expect(facts.kind).toBe('optimal');
    expect(recorded.map((r) => r.name)).toEqual([
      'lpModel',
      'lpMethod',
      'gap',
      'stoppedBy',
      'timeLimitReached',
      'lpRounds',
      'lpTimeMs',
      'lowerBound',
    ]);
    expect(recorded[2]).toEqual({ name: 'gap', value: 2e-7 });
  });

  it('a record of no known construction, or one that does not validate, is kept whole as recorded (never dropped)', () => {
    expect(factsFromInfo({ weight: 2, note: 'from a plug-in', exact: true }, 'tg', false)).toEqual({
      facts: { kind: 'none' },
      recorded: [
        { name: 'weight', value: 2 },
        { name: 'note', value: 'from a plug-in' },
        { name: 'exact', value: true },
      ],
    });
    // k must be a whole number; and a closed form's words that are not the ones it wrote stay visible
    expect(factsFromInfo({ alpha: 0.5, k: 'five' }, 'tg', false)).toEqual({
      facts: { kind: 'none' },
      recorded: [
        { name: 'alpha', value: 0.5 },
        { name: 'k', value: 'five' },
      ],
    });
    expect(factsFromInfo({ alpha: 0.5, k: 2, construction: 'by hand' }, 'tg', false).recorded).toEqual([
      { name: 'construction', value: 'by hand' },
    ]);
    // a non-finite number JSON wrote as null: not known
    expect(factsFromInfo({ odd: null }, 'tg', false).recorded).toEqual([{ name: 'odd', value: NaN }]);
  });

  it('a project file keeping an earlier mechanism result opens with typed facts (and as-recorded values), not the flat info', () => {
    const old = {
      ...mechanismOnLine('exponential', 6, 0.5, 0.3),
      info: { kernelRate: 0.25, effectiveEpsilonNote: 'not measured' },
    };
    const file = {
      version: 1,
      name: 'old',
      domains: [{ id: 'line', domain: 'line:6' }],
      mechanisms: [{ id: 'exp', domain: 'line', kind: 'exponential', epsilon: 0.5 }],
      results: { exp: { hash: '0123456789abcdef', result: old } },
    };
    const r = parseProject(JSON.stringify(file), 'old.json').results!.exp!.result;
    expect(r.type).toBe('mechanism');
    if (r.type !== 'mechanism') return;
    expect(r.facts).toEqual({ kind: 'exponential', kernelRate: 0.25 });
    expect(r.factsAsRecorded).toEqual([{ name: 'effectiveEpsilonNote', value: 'not measured' }]);
    expect('info' in r).toBe(false);
    // a current result (typed facts, a non-finite value JSON wrote as null) opens as it is
    const current = {
      ...old,
      info: undefined,
      facts: { kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.1, minDistance: null },
    };
    const again = parseProject(
      JSON.stringify({ ...file, results: { exp: { hash: '0123456789abcdef', result: current } } }),
      'new.json',
    );
    expect(again.results!.exp!.result).toMatchObject({ facts: { kind: 'randomised-response', minDistance: NaN } });
    // an info that is no record of names and values: one message naming it; a wrong field of the rest: named too
    const withInfo = (result: object) =>
      JSON.stringify({ ...file, results: { exp: { hash: '0123456789abcdef', result } } });
    expect(() => parseProject(withInfo({ ...old, info: { alpha: [1] } }), 'bad.json')).toThrow(
      "bad.json field 'results.exp.result.info': the facts of an earlier version must be names with numbers, text or yes/no",
    );
    expect(() => parseProject(withInfo({ ...old, utility: 'high' }), 'bad.json')).toThrow(
      "bad.json field 'results.exp.result.utility'",
    );
  });
});
