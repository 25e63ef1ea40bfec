/**
 * Typed construction facts (src-worker/mechanism/facts.ts): every constructor
 * fills a discriminated `facts` record, and the protocol's flat `info` is
 * rendered from it in one place (mechanismInfo) with the keys, order and
 * values results have always carried. The key lists below were recorded from
 * the results of the untyped version (info bags) and must not drift: the app
 * lists them and project files keep them.
 */
import { describe, expect, it } from 'vitest';
import { mechanismInfoSchema } from '../../../../src-shared/protocol/results';
import { factsOf, mechanismInfo } from '../../../../src-worker/mechanism/facts';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { symmetricGraph } from '../../../../src-worker/mechanism/symmetric-graph';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { lineDomain } from '../../../../src-worker/metric/line';
import { mechErrorOf } from '../../support/mechanism-helpers';
import { runJob } from '../../support/run-job';

const OPTIMAL_KEYS =
  'lpModel lpMethod gap exactLowerBound stoppedBy timeLimitReached lpRounds lpTimeMs delta constraintMode constrainedPairs constraints variables nonzeros objective buildMs solverMs iterations symmetries reducedVariables reducedConstraints maxConstraintViolation lpObjective repairMass cappedPairs decompositionRounds decompositionColumns decompositionPruned pricingColdRetries pricingFailures plateauColumns exactBoundMs relativeGap pricingRows masterMs pricingMs lowerBound status';

const CASES: { kind: string; domain: string; epsilon: number; extra?: Record<string, unknown>; keys: string }[] = [
  { kind: 'tg', domain: 'line:6', epsilon: 0.5, keys: 'alpha k construction' },
  { kind: 'rr', domain: 'line:6', epsilon: 0.5, keys: 'diagonal offDiagonal minDistance' },
  { kind: 'exponential', domain: 'line:6', epsilon: 0.5, keys: 'kernelRate' }, // its effective eps: the job's result.effectiveEpsilon (the check's measurement)
  { kind: 'laplace', domain: 'line:6', epsilon: 0.5, keys: 'kernelRate' },
  { kind: 'planar-laplace', domain: 'grid:5x5', epsilon: 0.7, keys: 'metric density epsPerCell integrations tableBuildMs method' },
  { kind: 'tight', domain: 'line:8', epsilon: 1, keys: 'solver iterations relResidual solveMs setupMs minZ argMinZ clampedZ maxRowSumError implicit' },
  { kind: 'tight', domain: 'grid:5x5', epsilon: 0.2, keys: '' },
  { kind: 'symmetric', domain: 'ring:6', epsilon: 0.5, keys: 'a c diameter evenRing' },
  { kind: 'symmetric', domain: 'line:7', epsilon: 0.5, keys: 'a c diameter evenRing closedIntoRing optimal' },
  // a lumpy prior (no symmetry): solved by decomposition, whose figures are listed too
  { kind: 'optimal', domain: 'line:6', epsilon: 0.5, extra: { prior: { kind: 'vector', values: [0.1, 0.3, 0.05, 0.25, 0.2, 0.1] } }, keys: OPTIMAL_KEYS },
  // a uniform prior on a line is invariant under its reflection: one full model over orbits, no decomposition figures
  { kind: 'optimal', domain: 'line:6', epsilon: 0.5, keys: OPTIMAL_KEYS.replace(/decompositionRounds.*pricingMs /, '') },
];

describe('mechanism facts: typed in the engine, flat and strict in the protocol', () => {
  for (const c of CASES) {
    it(`${c.kind} on ${c.domain}: info keys in the recorded order, accepted by the strict info schema`, async () => {
      const r = await runJob<'mechanism'>({ type: 'mechanism', kind: c.kind, domain: c.domain, epsilon: c.epsilon, ...c.extra });
      expect(Object.keys(r.info).join(' ')).toBe(c.keys);
      expect(mechanismInfoSchema.safeParse(r.info).success).toBe(true);
    });
  }

  it('the strict schema refuses a fact it does not know (a typo would not pass silently)', () => {
    expect(mechanismInfoSchema.safeParse({ alpha: 0.5, k: 5, construction: 'closed form, SPEC §2' }).success).toBe(true);
    expect(mechanismInfoSchema.safeParse({ alpha: 0.5, k: 5, construction: 'closed form, SPEC §2', extra: 1 }).success).toBe(false);
    expect(mechanismInfoSchema.safeParse({ alpha: 0.5, k: 5 }).success).toBe(false);
  });

  it('facts are read by name: the truncated geometric alpha is e^-eps, the flat info carries the same number', () => {
    const m = truncatedGeometric(lineDomain(6), 0.5);
    const f = factsOf(m, 'truncated-geometric');
    expect(f.alpha).toBe(Math.exp(-0.5));
    expect(f.k).toBe(5);
    expect(mechanismInfo(m.facts)).toEqual({ alpha: Math.exp(-0.5), k: 5, construction: 'closed form, SPEC §2' });
  });

  it('a line closed into a ring says so (and that it is not optimal); the exponential mechanism records its kernel rate eps/2', () => {
    const s = factsOf(symmetricGraph(lineDomain(7), 0.5), 'symmetric');
    expect(s.closedIntoRing).toBe(7);
    expect(mechanismInfo({ ...s })).toMatchObject({ closedIntoRing: 7, optimal: false });
    const e = factsOf(exponentialMechanism(lineDomain(6), 0.5), 'exponential');
    expect(e.kernelRate).toBe(0.25);
    expect(mechanismInfo(e)).toEqual({ kernelRate: 0.25 });
  });

  it('non-finite numbers become their text in the flat info; factsOf refuses another construction', () => {
    expect(mechanismInfo({ kind: 'randomised-response', diagonal: 0.5, offDiagonal: 0.25, minDistance: Infinity })).toEqual({
      diagonal: 0.5,
      offDiagonal: 0.25,
      minDistance: 'Infinity',
    });
    expect(mechErrorOf(() => factsOf(truncatedGeometric(lineDomain(3), 1), 'optimal')).code).toBe('internal');
  });

  it('an optimal mechanism: the flat info repeats the typed LP record and the solver facts, never different numbers', async () => {
    const r = await runJob<'mechanism'>({ type: 'mechanism', kind: 'optimal', domain: 'line:6', epsilon: 0.5 });
    const info = r.info as Record<string, unknown>;
    expect(info.lpModel).toBe(r.lp!.model);
    expect(info.lpMethod).toBe(r.lp!.method);
    expect(info.gap).toBe(r.lp!.gap);
    expect(info.lowerBound).toBe(r.lp!.lowerBound);
    expect(info.objective).toBe(r.lp!.objective);
  });
});
