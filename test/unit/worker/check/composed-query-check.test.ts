import { describe, expect, it } from 'vitest';
import { checkComposedWithQuery } from '../../../../src-worker/check/composed-query-check';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { FunctionRowSource } from '../../../../src-worker/mechanism/function-row-source';
import { randomisedResponse } from '../../../../src-worker/mechanism/randomised-response';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { customMetricDomain } from '../../../../src-worker/metric/custom-metric';
import { averageQuery, sumQuery } from '../../../../src-worker/metric/database-queries';
import type { Domain } from '../../../../src-worker/metric/domain';
import { lineDomain } from '../../../../src-worker/metric/line';
import { databaseQueryMap } from '../../../../src-worker/metric/query-sensitivity';
import { mechError as err } from '../../support/mech-error';

/** Answers 0..n-1 with d = scale * |i - j|. */
function scaledLine(n: number, scale: number): Domain {
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.data[i * n + j] = scale * Math.abs(i - j);
  return customMetricDomain(
    m,
    Array.from({ length: n }, (_, i) => String(i)),
  );
}

describe('mechanism on query answers composed with the query (SPEC §4)', () => {
  const inst = sumQuery(3, 2, 'manhattan'); // sum of 3 values in 0..2 under d1: uniformly 1-sensitive
  const f = databaseQueryMap(inst.database, inst.query);
  const Y = lineDomain(7);

  it('uniform sensitivity: TG on the sums is certified from H alone, and the direct check of H(f(.)) agrees', () => {
    const h = truncatedGeometric(Y, 0.5).channel;
    const r = checkComposedWithQuery(h, Y, inst.database, f, 0.5);
    expect(r.sensitivity.delta).toBe(1);
    expect(r.certifiedFromAnswers).toBe(true);
    expect(r.composedEpsilon).toBe(0.5);
    expect(r.composedPasses).toBe(true);
    expect(r.directCheck).toBeUndefined();
    expect(r.statement).toMatch(/^certified from H alone: H is 0.5\*dY-private and the query is uniformly 1-sensitive/);
    // independent: the composition x -> row f(x), checked on the databases, is exactly 0.5-private (tight)
    const composed = new FunctionRowSource(inst.database.n, 7, (x, out) => void h.row(f(x), out), String);
    const direct = checkPrivacy(composed, inst.database, 0.5);
    expect(direct.passes).toBe(true);
    expect(direct.effectiveEpsilon).toBeCloseTo(0.5, 12);
    // at a smaller eps both H and (by uniformity) the composition fail
    const low = checkComposedWithQuery(h, Y, inst.database, f, 0.45);
    expect(low.composedPasses).toBe(false);
    expect(low.statement).toMatch(/^refuted from H alone/);
    expect(checkPrivacy(composed, inst.database, 0.45).passes).toBe(false);
  });

  it('not uniform: RR on averages (max metric) is not eps*dY-private, yet H(f(.)) is eps*dX-private — found by the direct check', () => {
    const avg = averageQuery(3, 2, 'max'); // Delta = 1 for dY = |s - s'| / 3, not uniformly
    const Ya = scaledLine(avg.query.answers, 1 / 3);
    const h = randomisedResponse(Ya, 0.5).channel; // ratio e^0.5 between any two answers
    const r = checkComposedWithQuery(h, Ya, avg.database, databaseQueryMap(avg.database, avg.query), 0.5);
    expect(r.sensitivity.delta).toBeCloseTo(1, 14);
    expect(r.certifiedFromAnswers).toBe(false);
    expect(r.answerCheck.passes).toBe(false); // neighbouring averages are 1/3 apart: needs e^(0.5/3)
    expect(r.answerCheck.effectiveEpsilon).toBeCloseTo(1.5, 12);
    expect(r.composedPasses).toBe(true); // different averages need databases at d_inf >= 1
    expect(r.directCheck!.effectiveEpsilon).toBeCloseTo(0.5, 12);
    expect(r.statement).toMatch(/not uniformly.*does not imply.*passes.*although H itself is not 0.5\*dY-private/);
  });

  it('bad input: eps <= 0, row count mismatch, infinite sensitivity', () => {
    const h = truncatedGeometric(Y, 0.5).channel;
    expect(err(() => checkComposedWithQuery(h, Y, inst.database, f, 0)).code).toBe('invalid-input');
    expect(err(() => checkComposedWithQuery(h, lineDomain(6), inst.database, f, 1)).message).toMatch(
      /7 rows but the answer domain line:6 has 6 points/,
    );
    const X = customMetricDomain(
      Matrix.fromRows([
        [0, 0],
        [0, 0],
      ]),
      ['a', 'b'],
    );
    const inf = err(() =>
      checkComposedWithQuery(truncatedGeometric(lineDomain(2), 1).channel, lineDomain(2), X, (x) => x, 1),
    );
    expect(inf.code).toBe('not-applicable');
    expect(inf.message).toMatch(/infinite sensitivity/);
  });
});
