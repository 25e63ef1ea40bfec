import { describe, expect, it } from 'vitest';
import { querySensitivity, databaseQueryMap } from '../../../../src-worker/metric/query-sensitivity';
import { averageQuery, percentileQuery, sumQuery } from '../../../../src-worker/metric/database-queries';
import { customMetricDomain } from '../../../../src-worker/metric/custom-metric';
import { sumDomain } from '../../../../src-worker/metric/answer-domains';
import { lineDomain } from '../../../../src-worker/metric/line';
import { cliqueDomain } from '../../../../src-worker/metric/clique';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import type { Domain } from '../../../../src-worker/metric/domain';
import type { DatabaseMetric } from '../../../../src-worker/metric/database';
import { mechError } from '../../support/metric-helpers';

/** Answers 0..n-1 with d = scale * |i - j| (labels = the index). */
function scaledLine(n: number, scale: number): Domain {
  const m = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.data[i * n + j] = scale * Math.abs(i - j);
  return customMetricDomain(
    m,
    Array.from({ length: n }, (_, i) => String(i)),
  );
}

// Queries take V = largest value: the databases hold values 0..V (V + 1 of them).
const U = 3;
const V = 2;

function sens(kind: 'sum' | 'avg' | 'pct', metric: DatabaseMetric, answerScale: number) {
  const inst =
    kind === 'sum'
      ? sumQuery(U, V, metric)
      : kind === 'avg'
        ? averageQuery(U, V, metric)
        : percentileQuery(U, V, 50, metric);
  return querySensitivity(
    inst.database,
    scaledLine(inst.query.answers, answerScale),
    databaseQueryMap(inst.database, inst.query),
  );
}

describe('query sensitivity and uniform sensitivity (SPEC §4)', () => {
  it("Manhattan d1: sum, average (answer grid, d = u|a-a'|) and percentile are uniformly 1-sensitive", () => {
    for (const kind of ['sum', 'avg', 'pct'] as const) {
      const r = sens(kind, 'manhattan', 1);
      expect(r.delta).toBe(1);
      expect(r.uniform).toBe(true);
    }
    // sum answers 0..6: every pair is one expansive step ((a,a,a)-like shifts realise any |s-s'|)
    expect(sens('sum', 'manhattan', 1).expansiveSteps).toBe(21);
  });

  it("average with the plain distance |a - a'| under d1 is uniformly (1/u)-sensitive", () => {
    const r = sens('avg', 'manhattan', 1 / U);
    expect(r.delta).toBeCloseTo(1 / U, 15);
    expect(r.uniform).toBe(true);
  });

  it("max metric: percentile is uniformly 1-sensitive; average (|a-a'|) is 1-sensitive but not uniformly on the discrete grid", () => {
    const p = sens('pct', 'max', 1);
    expect(p.delta).toBe(1);
    expect(p.uniform).toBe(true);
    const a = sens('avg', 'max', 1 / U);
    expect(a.delta).toBeCloseTo(1, 14);
    expect(a.uniform).toBe(false);
    // answers 0 and 1/3 differ by one individual's unit change: ratio 1/3 < Delta
    expect(a.counterexample).toMatchObject({ y: 0, yPrime: 1, labels: ['0', '1'] });
    expect(a.counterexample!.reason).toBe('no chain of 1-expansive steps joins them');
    // on the index line (d = u|a-a'|) Delta = u, still not uniform
    const b = sens('avg', 'max', 1);
    expect(b.delta).toBe(U);
    expect(b.uniform).toBe(false);
  });

  it("normalised Manhattan with values q*{0..k}: sum, average (d = q|s-s'|) and percentile are uniformly (q k)-sensitive", () => {
    for (const [q, k, u] of [
      [0.5, 2, 3],
      [2, 3, 2],
    ] as const) {
      // normalised d1 = sum |i - i'| / k on value indices; the answers carry q
      const cases: [string, ReturnType<typeof sumQuery>, number][] = [
        ['sum', sumQuery(u, k, 'normalised'), q],
        ['avg', averageQuery(u, k, 'normalised'), q],
        ['pct', percentileQuery(u, k, 50, 'normalised'), q],
      ];
      for (const [name, inst, scale] of cases) {
        const r = querySensitivity(
          inst.database,
          scaledLine(inst.query.answers, scale),
          databaseQueryMap(inst.database, inst.query),
        );
        expect(r.delta, name).toBeCloseTo(q * k, 12);
        expect(r.uniform, name).toBe(true);
      }
    }
  });

  it('Hamming metric: the sum of values 0..2 is 2-sensitive on the line, and uniformly so on the answer graph', () => {
    const inst = sumQuery(2, 2);
    const f = databaseQueryMap(inst.database, inst.query);
    const line = querySensitivity(inst.database, lineDomain(5), f);
    expect(line.delta).toBe(2);
    expect(line.worst).toMatchObject({ dX: 1, dY: 2 });
    expect(line.uniform).toBe(false); // 0 -> 1 is a 1-step, not 2-expansive
    expect(line.counterexample).toMatchObject({ y: 0, yPrime: 1 });
    const graph = querySensitivity(inst.database, sumDomain(2, 2), f);
    expect(graph.delta).toBe(1);
    expect(graph.uniform).toBe(true);
    expect(graph.expansiveSteps).toBe(10); // every pair: d = ceil(|s-s'|/2) individuals must change, and that many suffice
  });

  it('answers never produced break uniformity; a constant query has Delta 0', () => {
    const inst = sumQuery(2, 1);
    const f = databaseQueryMap(inst.database, inst.query);
    const r = querySensitivity(inst.database, lineDomain(4), f, 100);
    expect(r.delta).toBe(1);
    expect(r.uniform).toBe(false);
    expect(r.counterexample).toMatchObject({ y: 0, yPrime: 3 });
    const c = querySensitivity(inst.database, cliqueDomain(1), () => 0);
    expect(c.delta).toBe(0);
    expect(c.uniform).toBe(true);
  });

  it('infinite Delta, bad answer indices and too many points are errors or reported', () => {
    const X = customMetricDomain(
      Matrix.fromRows([
        [0, 0],
        [0, 0],
      ]),
      ['a', 'b'],
    );
    const r = querySensitivity(X, lineDomain(2), (x) => x);
    expect(r.delta).toBe(Infinity);
    expect(r.uniform).toBe(false);
    expect(mechError(() => querySensitivity(lineDomain(3), lineDomain(2), (x) => x), 'invalid-input').message).toMatch(
      /maps 2 to answer index 2, expected 0..1 of line:2/,
    );
    expect(mechError(() => querySensitivity(lineDomain(10), lineDomain(2), () => 0, 9), 'too-large').message).toMatch(
      /10 points, at most 9/,
    );
  });
});
