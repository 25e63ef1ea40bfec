/**
 * Typed construction facts (src-worker/mechanism/facts.ts): every constructor
 * fills a discriminated `facts` record of the protocol's type
 * (`mechanismFactsSchema`), and job results carry that very record. The field
 * lists below are those of each construction and must not drift: the app and
 * the CLI list them in words and project files keep them.
 */
import { describe, expect, it } from 'vitest';
import { mechanismFactsSchema } from '../../../../src-shared/protocol/index';
import { factsOf } from '../../../../src-worker/mechanism/facts';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { symmetricGraph } from '../../../../src-worker/mechanism/symmetric-graph';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { lineDomain } from '../../../../src-worker/metric/line';
import { mechErrorOf } from '../../support/mechanism-helpers';
import { runJob } from '../../support/run-job';

const SOLVE_KEYS =
  'delta constraintMode constrainedPairs constraints variables nonzeros objective buildMs solverMs iterations symmetries reducedVariables reducedConstraints maxConstraintViolation lpObjective repairMass cappedPairs decomposition status';

const CASES: {
  kind: string;
  domain: string;
  epsilon: number;
  extra?: Record<string, unknown>;
  facts: string;
  keys: string;
}[] = [
  { kind: 'tg', domain: 'line:6', epsilon: 0.5, facts: 'truncated-geometric', keys: 'alpha k' },
  {
    kind: 'rr',
    domain: 'line:6',
    epsilon: 0.5,
    facts: 'randomised-response',
    keys: 'diagonal offDiagonal minDistance',
  },
  // its effective eps: result.effectiveEpsilon
  { kind: 'exponential', domain: 'line:6', epsilon: 0.5, facts: 'exponential', keys: 'kernelRate' },
  { kind: 'laplace', domain: 'line:6', epsilon: 0.5, facts: 'laplace', keys: 'kernelRate' },
  {
    kind: 'planar-laplace',
    domain: 'grid:5x5',
    epsilon: 0.7,
    facts: 'planar-laplace',
    keys: 'metric density epsPerCell integrations tableBuildMs method',
  },
  {
    kind: 'tight',
    domain: 'line:8',
    epsilon: 1,
    facts: 'tight-implicit',
    keys: 'solver iterations relResidual solveMs setupMs minZ argMinZ clampedZ maxRowSumError',
  },
  // does not exist at this eps: nothing known beyond the reason (result.minZ)
  { kind: 'tight', domain: 'grid:5x5', epsilon: 0.2, facts: 'none', keys: '' },
  { kind: 'symmetric', domain: 'ring:6', epsilon: 0.5, facts: 'symmetric', keys: 'a c diameter evenRing' },
  {
    kind: 'symmetric',
    domain: 'line:7',
    epsilon: 0.5,
    facts: 'symmetric',
    keys: 'a c diameter evenRing closedIntoRing',
  },
  // a lumpy prior (no symmetry): solved by decomposition, whose figures are listed too
  {
    kind: 'optimal',
    domain: 'line:6',
    epsilon: 0.5,
    extra: { prior: { kind: 'vector', values: [0.1, 0.3, 0.05, 0.25, 0.2, 0.1] } },
    facts: 'optimal',
    keys: 'solve',
  },
];

describe('mechanism facts: typed in the engine, the same typed record in the protocol', () => {
  for (const c of CASES) {
    it(`${c.kind} on ${c.domain}: '${c.facts}' facts with their fields in order, accepted by the protocol's schema`, async () => {
      const r = await runJob<'mechanism'>({
        type: 'mechanism',
        kind: c.kind,
        domain: c.domain,
        epsilon: c.epsilon,
        ...c.extra,
      });
      expect(r.facts.kind).toBe(c.facts);
      expect(Object.keys(r.facts).slice(1).join(' ')).toBe(c.keys);
      expect(mechanismFactsSchema.parse(r.facts)).toEqual(r.facts);
    });
  }

  it('an optimal mechanism: the solver facts, decomposition figures only when it decomposed', async () => {
    const lumpy = await runJob<'mechanism'>({
      type: 'mechanism',
      kind: 'optimal',
      domain: 'line:6',
      epsilon: 0.5,
      prior: { kind: 'vector', values: [0.1, 0.3, 0.05, 0.25, 0.2, 0.1] },
    });
    const s = lumpy.facts.kind === 'optimal' ? lumpy.facts.solve : null;
    expect(Object.keys(s!).join(' ')).toBe(SOLVE_KEYS);
    expect(s!.decomposition!.rounds).toBeGreaterThan(0);
    expect(s!.objective).toBe(lumpy.lp!.objective);
    // a uniform prior on a line is invariant under its reflection: one full model over orbits, no decomposition figures
    const uniform = await runJob<'mechanism'>({ type: 'mechanism', kind: 'optimal', domain: 'line:6', epsilon: 0.5 });
    expect(uniform.facts.kind === 'optimal' ? Object.keys(uniform.facts.solve).join(' ') : '').toBe(
      SOLVE_KEYS.replace(' decomposition', ''),
    );
  });

  it('the strict schema refuses a fact it does not know (a typo would not pass silently)', () => {
    expect(mechanismFactsSchema.safeParse({ kind: 'truncated-geometric', alpha: 0.5, k: 5 }).success).toBe(true);
    expect(mechanismFactsSchema.safeParse({ kind: 'truncated-geometric', alpha: 0.5, k: 5, extra: 1 }).success).toBe(
      false,
    );
    expect(mechanismFactsSchema.safeParse({ kind: 'truncated-geometric', alpha: 0.5 }).success).toBe(false);
    expect(
      mechanismFactsSchema.safeParse({ kind: 'combinator', combinator: 'merge', first: 'tg', second: 'rr' }).success,
    ).toBe(false);
  });

  it('facts are read by name: the truncated geometric alpha is e^-eps', () => {
    const f = factsOf(truncatedGeometric(lineDomain(6), 0.5), 'truncated-geometric');
    expect(f).toEqual({ kind: 'truncated-geometric', alpha: Math.exp(-0.5), k: 5 });
  });

  it('a line closed into a ring says so; the exponential mechanism records its kernel rate eps/2', () => {
    expect(factsOf(symmetricGraph(lineDomain(7), 0.5), 'symmetric').closedIntoRing).toBe(7);
    expect(factsOf(exponentialMechanism(lineDomain(6), 0.5), 'exponential')).toEqual({
      kind: 'exponential',
      kernelRate: 0.25,
    });
  });

  it('non-finite numbers: numbers in the engine, read back from their text or from the null JSON writes; factsOf refuses another construction', () => {
    const rr = { kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.25 };
    expect(mechanismFactsSchema.parse({ ...rr, minDistance: Infinity })).toEqual({ ...rr, minDistance: Infinity });
    expect(mechanismFactsSchema.parse({ ...rr, minDistance: 'Infinity' })).toEqual({ ...rr, minDistance: Infinity });
    expect(mechanismFactsSchema.parse(JSON.parse(JSON.stringify({ ...rr, minDistance: Infinity })))).toEqual({
      ...rr,
      minDistance: NaN,
    });
    expect(mechErrorOf(() => factsOf(truncatedGeometric(lineDomain(3), 1), 'optimal')).code).toBe('internal');
  });
});
