import { MechError, assertPositiveInt, invalid } from '../../src-shared/errors';
import { cliqueDomain } from './clique';
import { assertEdgeListFits } from './shortest-paths';
import type { Domain, WeightedEdges } from './domain';
import { lineDomain } from './line';
import type { DomainSpec } from '../../src-shared/grammar/domain-spec';

/**
 * Closed forms of query-induced answer domains (SPEC §1): the answers Y of
 * a query on databases V^u with d = shortest path in the graph where
 * y ~ y' iff some databases differing in one individual map to y and y'.
 * Values are 0..V (V + 1 values) for sum, average, percentile, max and min;
 * count is sum with V = 1; argmax has K categories. Each form is checked
 * against brute-force enumeration (induced-answer-domain.ts) in the tests.
 */

/** Largest answer set a closed-form answer domain may have. */
const MAX_ANSWERS = 2 ** 26;

function assertAnswers(n: number, spec: string): void {
  if (!(n <= MAX_ANSWERS))
    throw new MechError(
      'too-large',
      `${spec} has ${n < 1e15 ? String(n) : n.toExponential(3)} answers; at most ${MAX_ANSWERS} are supported`,
      {
        size: n,
        limit: MAX_ANSWERS,
      },
    );
}

/** count:U — number of records with a property: path 0..U, d = |y - y'|. */
export function countDomain(u: number): Domain {
  assertPositiveInt(u, 'count: number of individuals U');
  assertAnswers(u + 1, `count:${u}`);
  return {
    ...lineDomain(u + 1, 'query', `count:${u}`),
    description: `answers 0..${u} of a counting query on ${u} individuals, d = |y - y'|`,
  };
}

/** Answers 0..uV spaced `unit` apart, d = ceil(|i - j| / V) (sum and average). */
function stepDomain(
  u: number,
  V: number,
  spec: string,
  description: string,
  value: (i: number) => number,
  label: (i: number) => string,
): Domain {
  const n = u * V + 1;
  assertAnswers(n, spec);
  let edges: WeightedEdges | undefined;
  const buildEdges = (): WeightedEdges => {
    const count = V >= n - 1 ? (n * (n - 1)) / 2 : V * n - (V * (V + 1)) / 2;
    assertEdgeListFits(count, `edge list of ${spec}`);
    const f: number[] = [];
    const t: number[] = [];
    for (let i = 0; i < n; i++) for (let j = i + 1; j <= Math.min(n - 1, i + V); j++) (f.push(i), t.push(j));
    return { from: Int32Array.from(f), to: Int32Array.from(t), weight: new Float64Array(f.length).fill(1) };
  };
  const structure: Domain['structure'] = {
    lattice: { shape: [n], periodic: false, offsetDistance: (d) => Math.ceil(Math.abs(d[0]!) / V) },
  };
  Object.defineProperty(structure, 'edges', { enumerable: true, get: () => (edges ??= buildEdges()) });
  return {
    kind: 'query',
    spec,
    description,
    n,
    label,
    value,
    distance: (i, j) => Math.ceil(Math.abs(i - j) / V),
    structure,
  };
}

/** sum:U,V — sum of U values in 0..V: answers 0..UV, adjacent iff 0 < |y-y'| <= V, d = ceil(|y-y'|/V). */
export function sumDomain(u: number, V: number): Domain {
  assertPositiveInt(u, 'sum: number of individuals U');
  assertPositiveInt(V, 'sum: largest value V');
  return stepDomain(
    u,
    V,
    `sum:${u},${V}`,
    `answers 0..${u * V} of a sum of ${u} values in 0..${V}, d = ceil(|y - y'| / ${V})`,
    (i) => i,
    (i) => String(i),
  );
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Label of s/u: a short decimal when exact to 4 places, else a reduced fraction. */
export function ratioLabel(s: number, u: number): string {
  if ((s * 10000) % u === 0) return String(Number((s / u).toFixed(4)));
  const g = gcd(s, u);
  return `${s / g}/${u / g}`;
}

/** avg:U,V — average of U values in 0..V: answers s/U (s = 0..UV), d = ceil(|s - s'|/V) as for the sum. */
export function averageDomain(u: number, V: number): Domain {
  assertPositiveInt(u, 'avg: number of individuals U');
  assertPositiveInt(V, 'avg: largest value V');
  return stepDomain(
    u,
    V,
    `avg:${u},${V}`,
    `answers 0..${V} in steps of 1/${u} of an average of ${u} values in 0..${V}, d = ceil(${u}|y - y'| / ${V})`,
    (i) => i / u,
    (i) => ratioLabel(i, u),
  );
}

/** kcount:K,U — K simultaneous counts on U individuals: {0..U}^K, Chebyshev distance. */
export function kCountDomain(k: number, u: number): Domain {
  assertPositiveInt(k, 'kcount: number of counts K');
  assertPositiveInt(u, 'kcount: number of individuals U');
  const s = u + 1;
  const n = s ** k;
  const spec = `kcount:${k},${u}`;
  assertAnswers(n, spec);
  const place = new Float64Array(k);
  for (let c = k - 1, p = 1; c >= 0; c--, p *= s) place[c] = p;
  const coords = (i: number): number[] => {
    const out = new Array<number>(k);
    for (let c = k - 1; c >= 0; c--) {
      out[c] = i % s;
      i = Math.floor(i / s);
    }
    return out;
  };
  let edges: WeightedEdges | undefined;
  const buildEdges = (): WeightedEdges => {
    const offsets: number[][] = [];
    for (let code = 0; code < 3 ** k; code++) {
      const o = new Array<number>(k);
      let c = code;
      for (let a = k - 1; a >= 0; a--) ((o[a] = (c % 3) - 1), (c = Math.floor(c / 3)));
      if (o.find((x) => x !== 0) === 1) offsets.push(o);
    }
    assertEdgeListFits(n * offsets.length, `edge list of ${spec}`);
    const f: number[] = [];
    const t: number[] = [];
    for (let i = 0; i < n; i++) {
      const x = coords(i);
      for (const o of offsets) {
        let j = i;
        let ok = true;
        for (let a = 0; a < k && ok; a++) {
          const y = x[a]! + o[a]!;
          if (y < 0 || y >= s) ok = false;
          j += o[a]! * place[a]!;
        }
        if (ok) (f.push(i), t.push(j));
      }
    }
    return { from: Int32Array.from(f), to: Int32Array.from(t), weight: new Float64Array(f.length).fill(1) };
  };
  const structure: Domain['structure'] = {
    lattice: {
      shape: new Array<number>(k).fill(s),
      periodic: false,
      offsetDistance: (d) => d.reduce((m, x) => Math.max(m, Math.abs(x)), 0),
    },
    product: { factor: lineDomain(s), power: k, combine: 'max' },
  };
  Object.defineProperty(structure, 'edges', { enumerable: true, get: () => (edges ??= buildEdges()) });
  return {
    kind: 'query',
    spec,
    description: `${k} simultaneous counts on ${u} individuals ({0..${u}}^${k}), Chebyshev distance`,
    n,
    label: (i) => `(${coords(i).join(',')})`,
    distance: (i, j) => {
      let m = 0;
      for (let c = 0; c < k; c++) {
        const d = Math.abs((i % s) - (j % s));
        if (d > m) m = d;
        i = Math.floor(i / s);
        j = Math.floor(j / s);
      }
      return m;
    },
    structure,
  };
}

/** A clique answer domain on numeric answers 0..V (percentile, max, min). */
function valueClique(V: number, spec: string, description: string): Domain {
  assertAnswers(V + 1, spec);
  return { ...cliqueDomain(V + 1), kind: 'query', spec, description, value: (i) => i };
}

/** p-percentile rank (nearest-rank method): the r-th smallest value, r = max(1, ceil(p u / 100)). */
export function percentileRank(u: number, p: number): number {
  return Math.max(1, Math.ceil((p * u) / 100 - 1e-12));
}

function assertPercent(p: number): void {
  if (typeof p !== 'number' || !Number.isFinite(p) || p <= 0 || p > 100)
    invalid(`percentile P must be a number in (0, 100], got ${String(p)}`);
}

/**
 * percentile:U,V,P — changing one individual can move the r-th smallest
 * value anywhere (put the other values at the extremes), so every pair of
 * answers is adjacent: the clique on 0..V.
 */
export function percentileDomain(u: number, V: number, p: number): Domain {
  assertPositiveInt(u, 'percentile: number of individuals U');
  assertPositiveInt(V, 'percentile: largest value V');
  assertPercent(p);
  return valueClique(
    V,
    `percentile:${u},${V},${p}`,
    `${p}-percentile (rank ${percentileRank(u, p)} of ${u}) of values in 0..${V}: every change is one step (clique)`,
  );
}

/** max:U,V — clique on 0..V (one individual can raise or lower the maximum to any value). */
export function maxDomain(u: number, V: number): Domain {
  assertPositiveInt(u, 'max: number of individuals U');
  assertPositiveInt(V, 'max: largest value V');
  return valueClique(V, `max:${u},${V}`, `maximum of ${u} values in 0..${V}: clique`);
}

/** min:U,V — clique on 0..V. */
export function minDomain(u: number, V: number): Domain {
  assertPositiveInt(u, 'min: number of individuals U');
  assertPositiveInt(V, 'min: largest value V');
  return valueClique(V, `min:${u},${V}`, `minimum of ${u} values in 0..${V}: clique`);
}

/** argmax:K,U — which of K categories has the most of U records (ties to the lowest): clique on K. */
export function argmaxDomain(k: number, u: number): Domain {
  assertPositiveInt(k, 'argmax: number of categories K');
  assertPositiveInt(u, 'argmax: number of records U');
  const spec = `argmax:${k},${u}`;
  assertAnswers(k, spec);
  return {
    ...cliqueDomain(k),
    kind: 'query',
    spec,
    description: `category (of ${k}) with the most of ${u} records: clique`,
  };
}

type AnswerKind = 'count' | 'sum' | 'avg' | 'max' | 'min' | 'kcount' | 'argmax' | 'percentile';

/** The builder of each query-induced kind of the domain grammar, from its parsed numbers. */
export const ANSWER_DOMAIN_BUILDERS: { [K in AnswerKind]: (d: DomainSpec & { kind: K }) => Domain } = {
  count: (d) => countDomain(d.n),
  sum: (d) => sumDomain(d.u, d.v),
  avg: (d) => averageDomain(d.u, d.v),
  max: (d) => maxDomain(d.u, d.v),
  min: (d) => minDomain(d.u, d.v),
  kcount: (d) => kCountDomain(d.k, d.u),
  argmax: (d) => argmaxDomain(d.k, d.u),
  percentile: (d) => percentileDomain(d.u, d.v, d.p),
};
