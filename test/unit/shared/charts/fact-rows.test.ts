/**
 * A mechanism's construction facts in words: rows from the typed facts, every field of every kind labelled (no
 * key=value on a card).
 */
import { describe, expect, it } from 'vitest';
import { mechanismFactsSchema, type MechanismFacts } from '../../../../src-shared/protocol/index';
import { FACT_LABELS, factRows, guaranteeWords } from '../../../../src-shared/charts/fact-rows';
import { optimalSolveFacts } from '../../support/optimal-solve-facts';
import { implicitTightFigures, PLANAR_LAPLACE_FIGURES } from '../../support/construction-facts';

const num = (v: number): string => String(Number(v.toPrecision(4)));
/** The rows as [label, value] pairs. */
const rows = (f: MechanismFacts, recorded: Parameters<typeof factRows>[2] = []): [string, string][] =>
  factRows(f, num, recorded).map((r) => [r.label, r.value]);

const SOLVE = optimalSolveFacts(
  { symmetries: 2, reducedVariables: 18, reducedConstraints: 90, status: 'optimal' },
  1e-7,
);

/** One record of every kind, with every optional field. */
const EVERY_KIND: MechanismFacts[] = [
  { kind: 'truncated-geometric', alpha: Math.exp(-0.5), k: 5 },
  { kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.1, minDistance: Infinity },
  { kind: 'exponential', kernelRate: 0.25 },
  { kind: 'laplace', kernelRate: 0.5 },
  { kind: 'planar-laplace', ...PLANAR_LAPLACE_FIGURES },
  { kind: 'tight', solver: 'LU', solveMs: 1.5, minZ: 0.02 },
  { kind: 'tight-implicit', ...implicitTightFigures(-0.0553) },
  { kind: 'ball-size', z: 0.125, normaliser: 8 },
  { kind: 'symmetric', a: 0.4, c: 0.6065, diameter: 3, evenRing: false, closedIntoRing: 7 },
  { kind: 'optimal', solve: SOLVE },
  {
    kind: 'capacity',
    capacity: 'multiplicative',
    value: 2.5,
    trace: 3,
    constraintMode: 'all pairs',
    constraints: 30,
    variables: 36,
    solverMs: 8,
    maxConstraintViolation: 0,
  },
  { kind: 'kernel', vertices: [0, 2, 5] },
  { kind: 'combinator', combinator: 'post-process', outputs: 4 },
  { kind: 'combinator', combinator: 'cascade', first: 'tg', second: 'rr' },
  { kind: 'combinator', combinator: 'restrict', kept: 3, of: 6 },
  { kind: 'combinator', combinator: 'choice', p: 0.25, first: 'tg', second: 'rr' },
  { kind: 'none' },
];

describe('construction facts in words', () => {
  it('the samples cover every kind of the protocol, and every field of every kind has a label', () => {
    const kinds = new Set(
      mechanismFactsSchema.options.flatMap((o) => ('shape' in o ? [o.shape.kind.value] : ['combinator'])),
    );
    expect(new Set(EVERY_KIND.map((f) => f.kind))).toEqual(kinds);
    for (const f of EVERY_KIND) {
      expect(mechanismFactsSchema.parse(f)).toEqual(f);
      const unlabelled = factRows(f, num).filter((r) => !(r.key in FACT_LABELS));
      expect(unlabelled, f.kind).toEqual([]);
    }
  });

  it('closed forms: the construction in words, then the constants', () => {
    expect(rows({ kind: 'truncated-geometric', alpha: Math.exp(-0.5), k: 5 })).toEqual([
      ['construction', 'closed form (an exact formula, no solver)'],
      ['geometric decay per unit of distance (e^-ε)', '0.6065'],
      ['largest value on the line (values 0 to k)', '5'],
    ]);
    expect(rows({ kind: 'ball-size', z: 0.125, normaliser: 8 })).toEqual([
      ['construction', 'closed form (an exact formula, no solver)'],
      ['output weight z', '0.125'],
      ['normalising constant', '8'],
    ]);
  });

  it('randomised response, exponential, Laplace, planar Laplace, tight constraints', () => {
    expect(rows(EVERY_KIND[1]!)).toEqual([
      ['probability of reporting the true value', '0.5'],
      ['probability of each other value', '0.1'],
      ['smallest distance between two values', 'Infinity'],
    ]);
    expect(rows(EVERY_KIND[2]!)).toEqual([['decay rate of the kernel (per unit of distance)', '0.25']]);
    expect(rows(EVERY_KIND[3]!)).toEqual([['decay rate of the kernel (per unit of distance)', '0.5']]);
    expect(rows(EVERY_KIND[4]!)).toEqual([
      ['distance', 'euclidean'],
      ['noise density', 'planar Laplace'],
      ['ε per cell', '0.7'],
      ['numerical integrations', '25'],
      ['time to tabulate the noise (ms)', '3'],
      ['method', 'cell integrals'],
    ]);
    expect(rows(EVERY_KIND[5]!)).toEqual([
      ['linear solver', 'LU'],
      ['solve time (ms)', '1.5'],
      ['smallest output weight z (negative: the mechanism does not exist)', '0.02'],
    ]);
    expect(rows(EVERY_KIND[6]!)).toEqual([
      ['held implicitly (no full matrix)', 'yes'],
      ['linear solver', 'CG'],
      ['solver iterations', '12'],
      ['relative residual of the solve', '1e-10'],
      ['solve time (ms)', '2'],
      ['set-up time (ms)', '1'],
      ['smallest output weight z (negative: the mechanism does not exist)', '-0.0553'],
      ['where z is smallest', '(0, 0)'],
      ['weights clamped at 0', '0'],
      ['largest deviation of a row sum from 1', '1e-9'],
      ['fell back to', 'a dense solve'],
    ]);
  });

  it('symmetric: a line closed into a ring is not proven optimal; a ring needs no such row', () => {
    expect(rows(EVERY_KIND[8]!)).toEqual([
      ['proven optimal', 'no'],
      ['probability of the true value (a)', '0.4'],
      ['decay per step (c)', '0.6065'],
      ['largest distance', '3'],
      ['ring of even length', 'no'],
      ['line closed into a ring of', '7'],
    ]);
    expect(rows({ kind: 'symmetric', a: 0.4, c: 0.6065, diameter: 3, evenRing: true }).map(([l]) => l)).not.toContain(
      'proven optimal',
    );
  });

  it('optimal: the solver figures in order, constraint generation and decomposition by their own labels', () => {
    const r = rows(EVERY_KIND[9]!);
    expect(r.length).toBe(34);
    expect(r.slice(0, 3)).toEqual([
      ['constraint stretch δ (1: exact distances)', '1'],
      ['which pairs are constrained', 'all pairs'],
      ['constrained pairs', '15'],
    ]);
    expect(r).toContainEqual(['privacy constraints generated', '60']);
    expect(r).toContainEqual(['decomposition rounds', '7']);
    expect(r).toContainEqual(['time in pricing (ms)', '20']);
    // the solve's objective is its own channel's, which is not what is returned when a cheap construction beats it
    const objective = r.find(([label]) => label.startsWith('expected loss of the LP’s channel'));
    expect(objective?.[0]).toBe(
      'expected loss of the LP’s channel (private, after repair; a cheaper construction may be returned instead)',
    );
    expect(r.some(([label]) => /channel returned/.test(label))).toBe(false);
    expect(r[r.length - 1]).toEqual(['solver status', 'optimal']);
  });

  it('capacity, kernel, combinators; nothing known: no rows', () => {
    expect(rows(EVERY_KIND[10]!).slice(0, 3)).toEqual([
      ['capacity', 'multiplicative'],
      ['value', '2.5'],
      ['trace', '3'],
    ]);
    expect(rows(EVERY_KIND[11]!)).toEqual([['corner of the private mechanisms, built on the values', '0, 2, 5']]);
    expect(rows(EVERY_KIND[12]!)).toEqual([
      ['combined by', 'post-process'],
      ['outputs', '4'],
    ]);
    expect(rows(EVERY_KIND[15]!)).toEqual([
      ['combined by', 'choice'],
      ['probability of the first', '0.25'],
      ['first mechanism', 'tg'],
      ['second mechanism', 'rr'],
    ]);
    expect(rows({ kind: 'none' })).toEqual([]);
  });

  it('values of an earlier result without a typed place follow, as recorded; a value not known says so (never NaN)', () => {
    expect(
      rows({ kind: 'exponential', kernelRate: NaN }, [
        { name: 'effectiveEpsilonNote', value: 'too large to measure' },
        { name: 'effectiveEpsilonChecked', value: true },
        { name: 'effectiveEpsilon', value: 0.5 },
      ]),
    ).toEqual([
      ['decay rate of the kernel (per unit of distance)', 'not known'],
      ['effective epsilon note (as recorded)', 'too large to measure'],
      ['effective epsilon checked (as recorded)', 'yes'],
      ['effective epsilon (as recorded)', '0.5'],
    ]);
  });

  it('no row reads like notation: no key=value, no SPEC reference, no undefined', () => {
    const text = EVERY_KIND.flatMap((f) => factRows(f, num).map((r) => `${r.label} ${r.value}`)).join('\n');
    expect(text).not.toMatch(/\b[a-zA-Z_]\w*=[\w.-]|SPEC\s*§|\bundefined\b|\bNaN\b/);
  });
});

describe('the guarantee of an optimal LP', () => {
  it("the LP's own channel: private because it was checked, not by construction", () => {
    expect(guaranteeWords(0.5, 0.5, (v) => String(v), 'per km', 'checked')).toBe(
      "Private: checked at ε = 0.5 per km (the LP's channel was checked against its privacy constraints; it is not private by construction).",
    );
  });
  it('a construction returned instead keeps its words', () => {
    expect(guaranteeWords(0.5, 0.5, (v) => String(v), 'per km')).toBe('Private by construction at ε = 0.5 per km.');
  });
});
