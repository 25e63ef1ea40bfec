import { assertPositiveInt, invalid } from '../../src-shared/errors';
import { ratioLabel, percentileRank } from './answer-domains';
import { databaseDomain, type DatabaseDomain, type DatabaseMetric } from './database';

/**
 * Queries on databases V^u, evaluated on one database at a time (per-
 * individual value indices). Used to enumerate query-induced answer graphs
 * (SPEC §1) and query sensitivities (SPEC §4).
 */
export interface DatabaseQuery {
  readonly name: string;
  /** Number of possible answers; answers are indices 0..answers-1. */
  readonly answers: number;
  answerLabel(y: number): string;
  answerValue?(y: number): number;
  /** Answer index of the database with these per-individual value indices. */
  evaluate(values: Int32Array): number;
}

export interface QueryInstance {
  database: DatabaseDomain;
  query: DatabaseQuery;
}

const sumOf = (x: Int32Array) => {
  let s = 0;
  for (let k = 0; k < x.length; k++) s += x[k]!;
  return s;
};

/** Databases over values 0..V (V + 1 values) with the given metric. */
function valueDatabase(u: number, V: number, metric: DatabaseMetric): DatabaseDomain {
  assertPositiveInt(u, 'number of individuals U');
  assertPositiveInt(V, 'largest value V');
  return databaseDomain(u, V + 1, { metric });
}

/** count: U individuals with a 0/1 property, f = number of 1s (answers 0..U). */
export function countQuery(u: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  const database = valueDatabase(u, 1, metric);
  return {
    database,
    query: { name: `count:${u}`, answers: u + 1, answerLabel: String, answerValue: (y) => y, evaluate: sumOf },
  };
}

/** sum of U values in 0..V (answers 0..UV). */
export function sumQuery(u: number, V: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  const database = valueDatabase(u, V, metric);
  return {
    database,
    query: { name: `sum:${u},${V}`, answers: u * V + 1, answerLabel: String, answerValue: (y) => y, evaluate: sumOf },
  };
}

/** average of U values in 0..V: answer index s = the sum, value s/U. */
export function averageQuery(u: number, V: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  const database = valueDatabase(u, V, metric);
  return {
    database,
    query: {
      name: `avg:${u},${V}`,
      answers: u * V + 1,
      answerLabel: (s) => ratioLabel(s, u),
      answerValue: (s) => s / u,
      evaluate: sumOf,
    },
  };
}

/** The r-th smallest entry (1-based) of x. */
function orderStatistic(x: Int32Array, r: number): number {
  return Int32Array.from(x).sort()[r - 1]!;
}

/** A query on U values in 0..V whose answer is one of those values (labelled and valued as itself). */
function valueQuery(
  u: number,
  V: number,
  metric: DatabaseMetric,
  name: string,
  evaluate: (x: Int32Array) => number,
): QueryInstance {
  const database = valueDatabase(u, V, metric);
  return { database, query: { name, answers: V + 1, answerLabel: String, answerValue: (y) => y, evaluate } };
}

/** p-percentile (nearest rank) of U values in 0..V. */
export function percentileQuery(u: number, V: number, p: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0 || p > 100)
    invalid(`percentile P must be a number in (0, 100], got ${String(p)}`);
  const r = percentileRank(u, p);
  return valueQuery(u, V, metric, `percentile:${u},${V},${p}`, (x) => orderStatistic(x, r));
}

export function maxQuery(u: number, V: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  return valueQuery(u, V, metric, `max:${u},${V}`, (x) => Math.max(...x));
}

export function minQuery(u: number, V: number, metric: DatabaseMetric = 'hamming'): QueryInstance {
  return valueQuery(u, V, metric, `min:${u},${V}`, (x) => Math.min(...x));
}

/**
 * K simultaneous counts: each individual holds a K-bit vector (value index); answer = per-bit counts, coordinate c =
 * bit K-1-c.
 */
export function kCountQuery(k: number, u: number): QueryInstance {
  assertPositiveInt(k, 'number of counts K');
  assertPositiveInt(u, 'number of individuals U');
  const database = databaseDomain(u, 2 ** k);
  const s = u + 1;
  const counts = new Int32Array(k);
  return {
    database,
    query: {
      name: `kcount:${k},${u}`,
      answers: s ** k,
      answerLabel: (y) => {
        const c: number[] = [];
        for (let a = 0; a < k; a++) (c.unshift(y % s), (y = Math.floor(y / s)));
        return `(${c.join(',')})`;
      },
      evaluate: (x) => {
        counts.fill(0);
        for (let i = 0; i < x.length; i++) for (let c = 0; c < k; c++) counts[c]! += (x[i]! >> (k - 1 - c)) & 1;
        let y = 0;
        for (let c = 0; c < k; c++) y = y * s + counts[c]!;
        return y;
      },
    },
  };
}

/** Which of K categories holds the most of U records (ties to the lowest index). */
export function argmaxQuery(k: number, u: number): QueryInstance {
  assertPositiveInt(k, 'number of categories K');
  assertPositiveInt(u, 'number of records U');
  const database = databaseDomain(u, k);
  const counts = new Int32Array(k);
  return {
    database,
    query: {
      name: `argmax:${k},${u}`,
      answers: k,
      answerLabel: String,
      evaluate: (x) => {
        counts.fill(0);
        for (let i = 0; i < x.length; i++) counts[x[i]!]!++;
        let best = 0;
        for (let c = 1; c < k; c++) if (counts[c]! > counts[best]!) best = c;
        return best;
      },
    },
  };
}
