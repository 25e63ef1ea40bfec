/**
 * Database-and-query editor logic (SPEC §1): u individuals, values V (with an
 * optional "absent" value), a query, and the size of the answer graph it
 * induces (closed forms of SPEC §1). Pure functions: unit-tested.
 */
import { checkCount, type FieldErrors } from './grid-validation';

export type QueryKind = 'none' | 'count' | 'sum' | 'average' | 'kcount' | 'max' | 'min' | 'percentile' | 'most';
type DbMetric = 'hamming' | 'manhattan' | 'max' | 'normalised';

export interface DatabaseFields {
  individuals: number;
  values: number;
  absent: boolean;
  metric: DbMetric;
  query: QueryKind;
  /** k for kcount. */
  k: number;
  /** p for the p-percentile, in (0, 100]. */
  p?: number;
}

export const QUERY_LABELS: Record<QueryKind, string> = {
  none: 'the whole database (no query)',
  count: 'count of records with a property',
  sum: 'sum of values',
  average: 'average of values',
  kcount: 'k simultaneous counts',
  max: 'maximum value',
  min: 'minimum value',
  percentile: 'p-percentile',
  most: 'which category has the most records',
};

export function validateDatabase(f: DatabaseFields): FieldErrors {
  const e: FieldErrors = {};
  checkCount(
    e,
    'individuals',
    f.individuals,
    1,
    100_000,
    'individuals must be a whole number ≥ 1',
    'at most 100000 individuals',
  );
  checkCount(e, 'values', f.values, 2, 100_000, 'the universe needs at least 2 values', 'at most 100000 values');
  const kRange = 'k must be a whole number between 1 and 8';
  if (f.query === 'kcount') checkCount(e, 'k', f.k, 1, 8, kRange, kRange);
  if (f.query === 'percentile' && !(typeof f.p === 'number' && f.p > 0 && f.p <= 100))
    e.p = 'p must be a number in (0, 100]';
  if (f.query === 'none' && !e.individuals && !e.values) {
    const n = (f.values + (f.absent ? 1 : 0)) ** f.individuals;
    if (n > 5_000_000) e.individuals = `|V|^u = ${n.toExponential(2)} databases is too many to list; pick a query`;
  }
  return e;
}

interface AnswerGraph {
  /** SPEC §8 domain text for the answers of the query. */
  domain: string;
  nodes: number;
  edges: number;
  /** How adjacency is defined, in words. */
  adjacency: string;
}

/**
 * The answer graph of the query (SPEC §1): y ~ y' iff adjacent databases map
 * to y, y'. `values` counts the universe V = {0..values-1} (the engine's
 * sum/avg/max/min/percentile:U,V take the largest value V = values-1; db:U,V
 * takes the count). The absent value adds one more value. Closed forms are
 * checked against enumeration of V^u in test/unit/renderer/editors/database-validation.test.ts.
 */
export function answerGraph(f: DatabaseFields): AnswerGraph {
  const u = f.individuals;
  const top = f.values - 1; // largest value
  switch (f.query) {
    case 'count':
      return {
        domain: `count:${u}`,
        nodes: u + 1,
        edges: u,
        adjacency: 'path 0..u: one record changes the count by 1',
      };
    case 'sum':
    case 'average': {
      const n = u * top + 1;
      const w = Math.min(top, n - 1);
      const edges = w * n - (w * (w + 1)) / 2;
      return {
        domain: f.query === 'sum' ? `sum:${u},${top}` : `avg:${u},${top}`,
        nodes: n,
        edges,
        adjacency: `${f.query === 'average' ? `sums (average × ${u}) ` : 'answers '}0..${u * top}, adjacent iff they differ by at most ${top}`,
      };
    }
    case 'kcount': {
      const m = u + 1;
      return {
        domain: `kcount:${f.k},${u}`,
        nodes: m ** f.k,
        edges: ((3 * m - 2) ** f.k - m ** f.k) / 2,
        adjacency: 'every coordinate differs by at most 1 (Chebyshev)',
      };
    }
    case 'max':
    case 'min':
    case 'percentile': {
      const domain = f.query === 'percentile' ? `percentile:${u},${top},${f.p ?? 50}` : `${f.query}:${u},${top}`;
      return {
        domain,
        nodes: f.values,
        edges: (f.values * (f.values - 1)) / 2,
        adjacency: 'clique: one record can move the answer to any value',
      };
    }
    case 'most':
      return {
        domain: `argmax:${f.values},${u}`,
        nodes: f.values,
        edges: (f.values * (f.values - 1)) / 2,
        adjacency: 'clique: any category can overtake any other',
      };
    case 'none': {
      const v = f.values + (f.absent ? 1 : 0);
      const nodes = v ** u;
      const domain = `db:${u},${f.values}${f.metric === 'hamming' ? '' : `:metric=${f.metric}`}${f.absent ? ':absent' : ''}`;
      if (f.metric === 'hamming')
        return { domain, nodes, edges: (nodes * u * (v - 1)) / 2, adjacency: 'databases differing in one individual' };
      if (f.metric === 'max')
        return {
          domain,
          nodes,
          edges: ((3 * v - 2) ** u - v ** u) / 2,
          adjacency: 'every individual moves by at most one value (d∞ graph)',
        };
      return {
        domain,
        nodes,
        edges: u * (v - 1) * v ** (u - 1),
        adjacency: `one individual moves by one value (${f.metric === 'normalised' ? 'Manhattan / diam V' : 'Manhattan d1'})`,
      };
    }
  }
}
