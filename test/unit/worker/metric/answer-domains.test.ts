import { describe, expect, it } from 'vitest';
import {
  argmaxDomain,
  averageDomain,
  countDomain,
  kCountDomain,
  maxDomain,
  minDomain,
  percentileDomain,
  percentileRank,
  ratioLabel,
  sumDomain,
} from '../../../../src-worker/metric/answer-domains';
import { countQuery } from '../../../../src-worker/metric/database-queries';
import { diameter, domainLabels } from '../../../../src-worker/metric/domain';
import { inducedAnswerDomain } from '../../../../src-worker/metric/induced-answer-domain';
import { databaseDomain } from '../../../../src-worker/metric/database';
import {
  expectEdgesReproduceMetric,
  expectLattice,
  expectProduct,
  expectSameAsEnumeration,
  mechError,
} from '../../support/metric-helpers';

describe('query-induced answer domains: closed form == enumeration of V^u', () => {
  it('count: path 0..u', () => {
    for (const u of [1, 2, 5]) expectSameAsEnumeration(countDomain(u));
    const c = countDomain(4);
    expect(c.kind).toBe('query');
    expect(c.spec).toBe('count:4');
    expect(diameter(c)).toBe(4);
  });

  it("sum of u values in 0..v: d = ceil(|y-y'|/v)", () => {
    for (const d of [sumDomain(1, 3), sumDomain(2, 2), sumDomain(3, 3), sumDomain(4, 2)]) expectSameAsEnumeration(d);
    const s = sumDomain(3, 3);
    expect(s.n).toBe(10);
    expect(s.distance(0, 9)).toBe(3);
    expect(s.distance(2, 6)).toBe(2);
    expect(s.distance(1, 4)).toBe(1);
    expectEdgesReproduceMetric(s);
    expectLattice(s);
    expect(s.structure.edges!.from.length).toBe(7 * 3 + 2 + 1); // pairs with 0 < |i-j| <= 3 on 0..9
    expect(sumDomain(2, 5).structure.edges!.from.length).toBe(5 * 11 - 15); // 0..10, gaps 1..5
    expect(sumDomain(1, 4).structure.edges!.from.length).toBe(10); // one individual: complete graph on 0..4
  });

  it('k simultaneous counts: Chebyshev on {0..u}^k', () => {
    for (const d of [kCountDomain(1, 3), kCountDomain(2, 2), kCountDomain(2, 3), kCountDomain(3, 2)])
      expectSameAsEnumeration(d);
    const d = kCountDomain(2, 3);
    expect(d.n).toBe(16);
    expect(d.label(7)).toBe('(1,3)');
    expect(d.distance(0, 15)).toBe(3);
    expect(d.distance(d.n - 1, 4)).toBe(3); // (3,3) vs (1,0)
    expectEdgesReproduceMetric(d);
    expectLattice(d);
    expectProduct(d);
    expect(d.structure.product!.combine).toBe('max');
  });

  it('average: same steps as the sum, labels s/u', () => {
    for (const d of [averageDomain(2, 2), averageDomain(3, 2), averageDomain(3, 1)]) expectSameAsEnumeration(d);
    expect(domainLabels(averageDomain(3, 1))).toEqual(['0', '1/3', '2/3', '1']);
    expect(domainLabels(averageDomain(4, 1))).toEqual(['0', '0.25', '0.5', '0.75', '1']);
    expect(averageDomain(3, 2).value!(4)).toBeCloseTo(4 / 3, 15);
    expect(ratioLabel(6, 4)).toBe('1.5');
  });

  it('percentile, max and min: cliques on 0..v', () => {
    const percentiles = [
      percentileDomain(1, 3, 50),
      percentileDomain(3, 2, 50),
      percentileDomain(4, 2, 25),
      percentileDomain(4, 3, 75),
    ];
    for (const d of [...percentiles, percentileDomain(3, 3, 100)]) expectSameAsEnumeration(d);
    for (const d of [
      maxDomain(1, 2),
      maxDomain(3, 2),
      maxDomain(2, 4),
      minDomain(1, 2),
      minDomain(3, 2),
      minDomain(2, 4),
    ])
      expectSameAsEnumeration(d);
    expect(percentileRank(4, 50)).toBe(2);
    expect(percentileRank(3, 50)).toBe(2);
    expect(percentileRank(5, 1)).toBe(1);
    expect(percentileRank(5, 100)).toBe(5);
    const p = percentileDomain(3, 4, 50);
    expect(p.structure.singleOrbit).toEqual({ c: 4, diameter: 1, evenRing: false });
    expect(p.value!(3)).toBe(3);
  });

  it('argmax category: clique on k', () => {
    for (const d of [
      argmaxDomain(2, 1),
      argmaxDomain(3, 2),
      argmaxDomain(3, 3),
      argmaxDomain(4, 3),
      argmaxDomain(2, 4),
    ])
      expectSameAsEnumeration(d);
    expect(argmaxDomain(6, 10).structure.singleOrbit).toEqual({ c: 5, diameter: 1, evenRing: false });
  });

  it('enumeration reports unreachable answers as Infinity and refuses large V^u', () => {
    // a query that only ever answers 0 or 2 out of 3 answers
    const db = databaseDomain(2, 2);
    const d = inducedAnswerDomain(db, { name: 'odd', answers: 3, answerLabel: String, evaluate: (x) => 2 * x[0]! });
    expect(d.distance(0, 2)).toBe(1);
    expect(d.distance(0, 1)).toBe(Infinity);
    expect(
      mechError(() => inducedAnswerDomain(databaseDomain(3, 4), countQuery(1).query, 'x', 63), 'too-large').message,
    ).toMatch(/64 databases; at most 63/);
    expect(
      mechError(
        () => inducedAnswerDomain(db, { name: 'bad', answers: 2, answerLabel: String, evaluate: () => 5 }),
        'invalid-input',
      ).message,
    ).toMatch(/answer index 5/);
  });

  it('rejects bad parameters', () => {
    mechError(() => sumDomain(0, 2), 'invalid-input');
    mechError(() => kCountDomain(2, 0), 'invalid-input');
    expect(mechError(() => percentileDomain(3, 2, 0), 'invalid-input').message).toMatch(
      /percentile P must be a number in \(0, 100\]/,
    );
    mechError(() => percentileDomain(3, 2, 101), 'invalid-input');
    expect(mechError(() => kCountDomain(20, 9), 'too-large').message).toMatch(
      /kcount:20,9 has 1.000e\+20 answers; at most 67108864/,
    );
  });
});
