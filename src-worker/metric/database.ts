import { MechError, assertPositiveInt, invalid } from '../../src-shared/errors';
import { cliqueDomain } from './clique';
import { assertEdgeListFits } from './shortest-paths';
import type { Domain, DomainStructure, WeightedEdges } from './domain';
import { binomialRow } from './hamming-cube';
import { lineDomain } from './line';

/**
 * Databases V^u (SPEC §1): u individuals, each holding one of v values
 * 0..v-1 (value index = value), optionally or the "absent" value ⊥ (the
 * individual is not in the database; index v). Point index: the tuple read
 * in base w = v (+1 with ⊥), coordinate 0 (individual 1) most significant.
 * Labels like "(0,1,3)" and "(0,⊥,3)".
 *
 * Metrics, with D = diam(V) = max(1, v-1) (1 when v = 1, so that ⊥ stays at a
 * positive distance):
 *  - hamming (standard DP): number of individuals whose value differs. ⊥ is
 *    just one more value: a ⊥ <-> value change counts 1 like any change.
 *  - manhattan d1: sum over individuals of |a - b|. ⊥ sits at distance D from
 *    every value (adding or removing someone costs as much as the largest
 *    change of a value); per-individual this is a metric (|a-b| <= D <= 2D).
 *  - normalised: d1 / D, i.e. per-individual |a - b| / D in [0,1], ⊥ at
 *    distance 1 from every value.
 *  - max d_inf: max over individuals of |a - b| (smart meters), ⊥ at distance
 *    D from every value as in d1.
 * Structure: product of the per-individual factor domain (sum for hamming,
 * manhattan, normalised; max for max); graph edges (the factor's edges
 * lifted to each coordinate for sum-combined metrics; for max without ⊥,
 * the king-move graph where every coordinate changes by at most 1); lattice
 * (hamming: periodic Z_w^u; manhattan/normalised/max without ⊥: the box
 * [v]^u); ball sizes C(u,r) (w-1)^r for hamming. max with ⊥ has no sparse
 * edge set whose shortest paths equal d_inf, so none is exposed.
 */
export type DatabaseMetric = 'hamming' | 'manhattan' | 'normalised' | 'max';

export const DATABASE_METRICS: readonly DatabaseMetric[] = ['hamming', 'manhattan', 'normalised', 'max'];

/** Label of the absent value. */
const ABSENT_LABEL = '⊥';

/** Default largest number of databases |V|^u a domain may have (2^24). */
const MAX_DATABASE_POINTS = 2 ** 24;

interface DatabaseOptions {
  metric?: DatabaseMetric;
  absent?: boolean;
  /** Refuse w^u above this (MechError 'too-large'); default MAX_DATABASE_POINTS. */
  maxPoints?: number;
}

export interface DatabaseDomain extends Domain {
  readonly database: {
    u: number;
    v: number;
    absent: boolean;
    metric: DatabaseMetric;
    /** Values per individual: v, or v + 1 with ⊥ (index v). */
    w: number;
    /** diam(V) used for ⊥ and normalisation: max(1, v - 1). */
    D: number;
  };
  /** Per-individual value indices of database i (coordinate 0 first). */
  decode(i: number, out?: Int32Array): Int32Array;
  /** Index of the database holding these per-individual value indices. */
  encode(values: ArrayLike<number>): number;
}

/** The per-individual factor domain of db:u,v (a database of one individual). */
export function databaseValueDomain(v: number, metric: DatabaseMetric, absent: boolean): Domain {
  assertPositiveInt(v, 'number of database values v');
  const w = absent ? v + 1 : v;
  const D = Math.max(1, v - 1);
  const labels = Array.from({ length: w }, (_, a) => (a === v ? ABSENT_LABEL : String(a)));
  if (metric === 'hamming') return cliqueDomain(w, labels);
  if ((metric === 'manhattan' || metric === 'max') && !absent) return lineDomain(v);
  const scale = metric === 'normalised' ? 1 / D : 1;
  const table = factorTable(v, metric, absent);
  const f: number[] = [];
  const t: number[] = [];
  const wt: number[] = [];
  for (let a = 0; a + 1 < v; a++) (f.push(a), t.push(a + 1), wt.push(scale));
  if (absent) for (let a = 0; a < v; a++) (f.push(a), t.push(v), wt.push(D * scale));
  return {
    kind: 'custom',
    spec: databaseSpec(1, v, metric, absent),
    description: `values of one individual (${v} values${absent ? ' and ⊥' : ''}), ${metric} distance`,
    n: w,
    label: (a) => labels[a]!,
    distance: (a, b) => table[a * w + b]!,
    structure: { edges: { from: Int32Array.from(f), to: Int32Array.from(t), weight: Float64Array.from(wt) } },
  };
}

/** Per-individual distance table (w x w) of the metric, as documented above. */
function factorTable(v: number, metric: DatabaseMetric, absent: boolean): Float64Array {
  const w = absent ? v + 1 : v;
  const D = Math.max(1, v - 1);
  const table = new Float64Array(w * w);
  for (let a = 0; a < w; a++)
    for (let b = 0; b < w; b++) {
      let d: number;
      if (a === b) d = 0;
      else if (metric === 'hamming') d = 1;
      else if (a === v || b === v) d = D;
      else d = Math.abs(a - b);
      if (metric === 'normalised') d /= D;
      table[a * w + b] = d;
    }
  return table;
}

function databaseSpec(u: number, v: number, metric: DatabaseMetric, absent: boolean): string {
  return `db:${u},${v}${metric !== 'hamming' ? `:metric=${metric}` : ''}${absent ? ':absent' : ''}`;
}

export function databaseDomain(u: number, v: number, options: DatabaseOptions = {}): DatabaseDomain {
  const metric = options.metric ?? 'hamming';
  const absent = options.absent ?? false;
  const maxPoints = options.maxPoints ?? MAX_DATABASE_POINTS;
  assertPositiveInt(u, 'number of individuals u');
  assertPositiveInt(v, 'number of database values v');
  if (!DATABASE_METRICS.includes(metric))
    invalid(`unknown database metric '${String(metric)}' (hamming, manhattan, normalised or max)`);
  const w = absent ? v + 1 : v;
  const size = w ** u;
  if (!(size <= maxPoints)) {
    throw new MechError(
      'too-large',
      `database domain ${databaseSpec(u, v, metric, absent)} has ${w}^${u} = ${size < 1e15 ? String(size) : size.toExponential(3)} databases; at most ${maxPoints} are supported`,
      { size, limit: maxPoints },
    );
  }
  const n = size;
  const D = Math.max(1, v - 1);
  const table = factorTable(v, metric, absent);
  const place = new Float64Array(u); // place[k] = w^(u-1-k)
  for (let k = u - 1, p = 1; k >= 0; k--, p *= w) place[k] = p;

  const decode = (i: number, out = new Int32Array(u)): Int32Array => {
    if (!Number.isInteger(i) || i < 0 || i >= n) invalid(`database index ${i} is not in 0..${n - 1}`);
    for (let k = u - 1; k >= 0; k--) {
      out[k] = i % w;
      i = Math.floor(i / w);
    }
    return out;
  };
  const encode = (values: ArrayLike<number>): number => {
    if (values.length !== u) invalid(`a database of db:${u},${v} has ${u} entries, got ${values.length}`);
    let i = 0;
    for (let k = 0; k < u; k++) {
      const a = values[k]!;
      if (!Number.isInteger(a) || a < 0 || a >= w)
        invalid(`database entry ${k} = ${a} is not a value index in 0..${w - 1}`);
      i = i * w + a;
    }
    return i;
  };
  const distance = (i: number, j: number): number => {
    let s = 0;
    for (let k = 0; k < u; k++) {
      const d = table[(i % w) * w + (j % w)]!;
      if (metric === 'max') {
        if (d > s) s = d;
      } else s += d;
      i = Math.floor(i / w);
      j = Math.floor(j / w);
    }
    return s;
  };

  const factor = databaseValueDomain(v, metric, absent);
  let edges: WeightedEdges | undefined;
  const buildEdges = (): WeightedEdges =>
    metric === 'max' ? kingEdges(u, v, n, place) : liftedEdges(u, w, n, place, factor.structure.edges!);

  const structure: DomainStructure = {
    product: { factor, power: u, combine: metric === 'max' ? 'max' : 'sum' },
  };
  if (!(metric === 'max' && absent)) {
    Object.defineProperty(structure, 'edges', { enumerable: true, get: () => (edges ??= buildEdges()) });
  }
  if (metric === 'hamming') {
    structure.lattice = {
      shape: new Array<number>(u).fill(w),
      periodic: true,
      offsetDistance: (d) => d.reduce((s, x) => s + (((x % w) + w) % w !== 0 ? 1 : 0), 0),
    };
    const binom = binomialRow(u);
    structure.ballSizes = {
      radius: Float64Array.from({ length: w > 1 ? u + 1 : 1 }, (_, r) => r),
      count: Float64Array.from({ length: w > 1 ? u + 1 : 1 }, (_, r) => binom[r]! * (w - 1) ** r),
    };
  } else if (!absent) {
    const scale = metric === 'normalised' ? 1 / D : 1;
    structure.lattice = {
      shape: new Array<number>(u).fill(v),
      periodic: false,
      offsetDistance: (d) =>
        metric === 'max'
          ? d.reduce((s, x) => Math.max(s, Math.abs(x)), 0)
          : d.reduce((s, x) => s + Math.abs(x), 0) * scale,
    };
  }

  const spec = databaseSpec(u, v, metric, absent);
  const label = (i: number): string => {
    const t = decode(i);
    return `(${Array.from(t, (a) => (a === v ? ABSENT_LABEL : String(a))).join(',')})`;
  };
  return {
    kind: 'database',
    spec,
    description: `databases of ${u} individuals over ${v} values${absent ? ' (or absent ⊥)' : ''} (${n} points), ${metric === 'normalised' ? 'normalised Manhattan' : metric} distance`,
    n,
    label,
    distance,
    structure,
    database: { u, v, absent, metric, w, D },
    decode,
    encode,
  };
}

/** Factor edges applied to each coordinate (Cartesian product graph: shortest paths add up). */
function liftedEdges(u: number, w: number, n: number, place: Float64Array, fe: WeightedEdges): WeightedEdges {
  const m = u * fe.from.length * (n / w);
  assertEdgeListFits(m, `edge list of the ${n}-point database domain`);
  const from = new Int32Array(m);
  const to = new Int32Array(m);
  const weight = new Float64Array(m);
  let k = 0;
  for (let c = 0; c < u; c++) {
    const p = place[c]!;
    for (let e = 0; e < fe.from.length; e++) {
      const a = fe.from[e]!;
      const b = fe.to[e]!;
      const wt = fe.weight[e]!;
      for (let i = 0; i < n; i++) {
        if (Math.floor(i / p) % w !== a) continue;
        const j = i + (b - a) * p;
        from[k] = Math.min(i, j);
        to[k] = Math.max(i, j);
        weight[k] = wt;
        k++;
      }
    }
  }
  return { from, to, weight };
}

/** King-move graph of the box [v]^u: every coordinate changes by at most 1; its shortest paths are d_inf. */
function kingEdges(u: number, v: number, n: number, place: Float64Array): WeightedEdges {
  const f: number[] = [];
  const t: number[] = [];
  const offsets: Int32Array[] = [];
  const total = 3 ** u;
  for (let code = 0; code < total; code++) {
    const o = new Int32Array(u);
    let c = code;
    for (let k = u - 1; k >= 0; k--) {
      o[k] = (c % 3) - 1;
      c = Math.floor(c / 3);
    }
    const first = o.find((x) => x !== 0);
    if (first === 1) offsets.push(o); // each unordered pair once
  }
  assertEdgeListFits(n * offsets.length, `edge list of the ${n}-point database domain`);
  const digits = new Int32Array(u);
  for (let i = 0; i < n; i++) {
    let x = i;
    for (let k = u - 1; k >= 0; k--) {
      digits[k] = x % v;
      x = Math.floor(x / v);
    }
    for (const o of offsets) {
      let j = i;
      let ok = true;
      for (let k = 0; k < u; k++) {
        const a = digits[k]! + o[k]!;
        if (a < 0 || a >= v) {
          ok = false;
          break;
        }
        j += o[k]! * place[k]!;
      }
      if (ok) (f.push(Math.min(i, j)), t.push(Math.max(i, j)));
    }
  }
  return { from: Int32Array.from(f), to: Int32Array.from(t), weight: new Float64Array(f.length).fill(1) };
}
