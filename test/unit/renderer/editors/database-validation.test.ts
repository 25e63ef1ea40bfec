import { describe, expect, it } from 'vitest';
import {
  answerGraph,
  validateDatabase,
  type DatabaseFields,
} from '../../../../src-renderer/editors/database-validation';

const base: DatabaseFields = { individuals: 5, values: 4, absent: false, metric: 'hamming', query: 'none', k: 2 };

/** Brute force: enumerate V^u, apply the query, and count answers and answer-graph edges (SPEC §1 definition). */
function bruteForce(u: number, v: number, f: (x: number[]) => string): { nodes: number; edges: number } {
  const dbs: number[][] = [];
  const rec = (pre: number[]): void => {
    if (pre.length === u) return void dbs.push(pre);
    for (let a = 0; a < v; a++) rec([...pre, a]);
  };
  rec([]);
  const answers = new Set(dbs.map(f));
  const edges = new Set<string>();
  for (const x of dbs)
    for (let i = 0; i < u; i++)
      for (let a = 0; a < v; a++) {
        if (a === x[i]) continue;
        const y = [...x];
        y[i] = a;
        const fx = f(x);
        const fy = f(y);
        if (fx !== fy) edges.add(fx < fy ? `${fx}|${fy}` : `${fy}|${fx}`);
      }
  return { nodes: answers.size, edges: edges.size };
}

describe('database and query editor', () => {
  it('validates individuals, values and k with messages per field', () => {
    expect(validateDatabase(base)).toEqual({});
    const e = validateDatabase({ ...base, individuals: 0, values: 1 });
    expect(e.individuals).toMatch(/≥ 1/);
    expect(e.values).toMatch(/at least 2 values/);
    expect(validateDatabase({ ...base, query: 'kcount', k: 9 }).k).toMatch(/between 1 and 8/);
    expect(validateDatabase({ ...base, individuals: 30, values: 10 }).individuals).toMatch(
      /too many to list; pick a query/,
    );
    expect(validateDatabase({ ...base, individuals: 30, values: 10, query: 'count' })).toEqual({});
  });

  it('answer-graph sizes match brute-force enumeration of V^u', () => {
    const u = 3;
    const v = 3; // values 0..2
    const sum = (x: number[]): string => String(x.reduce((a, b) => a + b, 0));
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'sum' })).toMatchObject(bruteForce(u, v, sum));
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'sum' }).domain).toBe('sum:3,2');
    const count = (x: number[]): string => String(x.filter((a) => a === 1).length);
    expect(answerGraph({ ...base, individuals: u, values: 2, query: 'count' })).toMatchObject(bruteForce(u, 2, count));
    const mx = (x: number[]): string => String(Math.max(...x));
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'max' })).toMatchObject(bruteForce(u, v, mx));
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'max' }).domain).toBe('max:3,2');
    const median = (x: number[]): string => String([...x].sort((a, b) => a - b)[1]);
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'percentile', p: 50 })).toMatchObject(
      bruteForce(u, v, median),
    );
    const avg = (x: number[]): string => (x.reduce((a, b) => a + b, 0) / u).toFixed(6);
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'average' })).toMatchObject(bruteForce(u, v, avg));
    // k = 2 simultaneous counts: each record is in category 0 (neither), 1, 2 or both (3)
    const two = (x: number[]): string => `${x.filter((a) => a & 1).length},${x.filter((a) => a & 2).length}`;
    expect(answerGraph({ ...base, individuals: u, values: 4, query: 'kcount', k: 2 })).toMatchObject(
      bruteForce(u, 4, two),
    );
    const whole = (x: number[]): string => x.join('');
    expect(answerGraph({ ...base, individuals: u, values: v, query: 'none' })).toMatchObject(bruteForce(u, v, whole));
    // which category has the most records (ties to the smallest index): K = 3 categories, u = 3
    const most = (x: number[]): string => {
      const c = [0, 1, 2].map((k) => x.filter((a) => a === k).length);
      return String(c.indexOf(Math.max(...c)));
    };
    expect(answerGraph({ ...base, individuals: u, values: 3, query: 'most' })).toMatchObject(bruteForce(u, 3, most));
  });

  it('the absent value adds one value to the universe', () => {
    expect(answerGraph({ ...base, individuals: 2, values: 3, absent: true, query: 'none' })).toMatchObject({
      domain: 'db:2,3:absent',
      nodes: 16,
      edges: 48,
    });
    expect(answerGraph({ ...base, individuals: 2, values: 3, metric: 'max', query: 'none' })).toMatchObject({
      domain: 'db:2,3:metric=max',
      nodes: 9,
      edges: 20,
    });
    expect(answerGraph({ ...base, individuals: 2, values: 3, metric: 'manhattan', query: 'none' })).toMatchObject({
      nodes: 9,
      edges: 12,
    });
    expect(answerGraph({ ...base, individuals: 2, values: 3, absent: false, query: 'most' })).toMatchObject({
      domain: 'argmax:3,2',
      nodes: 3,
      edges: 3,
    });
  });
});
