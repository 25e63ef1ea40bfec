import { MechError, invalid } from '../errors';
import { argmaxDomain, averageDomain, countDomain, kCountDomain, maxDomain, minDomain, percentileDomain, sumDomain } from './answer-domains';
import { cliqueDomain } from './clique';
import { parseCustomMetricCsv, type MetricProgress } from './custom-metric';
import { databaseDomain, type DatabaseMetric } from './database';
import type { Domain, GridMetric } from './domain';
import { graphDomainFromEdgeList } from './graph';
import { gridDomain } from './grid';
import { hammingCubeDomain } from './hamming-cube';
import { lineDomain } from './line';
import { ringDomain } from './ring';
import { readRegularTextFile } from './read-text-file';
import { parseDecimal, parseDigits } from '../../src-shared/numeric/decimal';

/**
 * Domain spec grammar (SPEC §8, plus the query-induced answer domains of §1).
 * N, R, C, B, U, V, K are positive integers written in decimal digits; S is a
 * number > 0; P a number in (0, 100]; options after the first ':'-separated
 * part may come in any order, each at most once:
 *
 *   line:N          ring:N          clique:N        hamming:B
 *   grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev]
 *   count:U         sum:U,V         kcount:K,U      avg:U,V
 *   percentile:U,V,P                max:U,V         min:U,V
 *   argmax:K,U
 *   db:U,V[:metric=hamming|manhattan|max|normalised][:absent]
 *   graph:FILE      csv:FILE        (FILE = the rest of the text, may contain ':')
 *
 * sum/avg/percentile/max/min take values 0..V (V + 1 values); db:U,V takes
 * V values 0..V-1 per individual (v = |V| of SPEC §5). 'normalized' is
 * accepted for 'normalised'. Each built domain's `spec` is canonical and
 * parses back to the same domain.
 */
export const DOMAIN_SPEC_FORMS =
  'line:N, ring:N, clique:N, grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev], hamming:B, ' +
  'count:U, sum:U,V, kcount:K,U, avg:U,V, percentile:U,V,P, max:U,V, min:U,V, argmax:K,U, ' +
  'db:U,V[:metric=hamming|manhattan|max|normalised][:absent], graph:FILE, csv:FILE';

export interface TextReader {
  readText(path: string): string;
}

/** Default reader: the engine's guarded reader (regular files only, byte cap, errors without content). */
const defaultReader = (what: string): TextReader => ({ readText: (p) => readRegularTextFile(p, what) });

/**
 * A domain spec parsed into its kind and numbers, WITHOUT building the
 * domain (no allocation proportional to its size): the admission estimate
 * (jobs/admission.ts) sizes a job from this, and parseDomainSpec builds from
 * it. Integers are decimal digits only; a value beyond 2^53 comes back as
 * the nearest float so that size limits, not typed-array constructors,
 * refuse it.
 */
export type ParsedDomainSpec =
  | { kind: 'line' | 'ring' | 'clique' | 'count'; n: number }
  | { kind: 'hamming'; bits: number }
  | { kind: 'sum' | 'avg' | 'max' | 'min'; u: number; v: number }
  | { kind: 'kcount' | 'argmax'; k: number; u: number }
  | { kind: 'percentile'; u: number; v: number; p: number }
  | { kind: 'grid'; rows: number; cols: number; step: number; metric: GridMetric }
  | { kind: 'db'; u: number; v: number; metric: DatabaseMetric; absent: boolean }
  | { kind: 'graph' | 'csv'; file: string };

export function parseDomainSpecText(spec: string): { text: string; parsed: ParsedDomainSpec } {
  if (typeof spec !== 'string' || spec.trim() === '') invalid(`empty domain; accepted forms: ${DOMAIN_SPEC_FORMS}`);
  const text = spec.trim();
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).toLowerCase();
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const bad = (expected: string): never => invalid(`malformed domain '${text}': expected ${expected}; accepted forms: ${DOMAIN_SPEC_FORMS}`);

  if (kind === 'graph' || kind === 'csv') {
    if (rest.trim() === '') bad(`${kind}:FILE`);
    return { text, parsed: { kind, file: rest.trim() } };
  }

  const parts = rest.split(':');
  const head = parts[0]!;
  const opts = parts.slice(1);
  const ints = (count: number, form: string): number[] => {
    const xs = head.split(',');
    if (xs.length !== count || opts.length > 0) bad(form);
    const out = xs.map((x) => parseDigits(x.trim()));
    if (out.some((x) => x === undefined)) bad(form);
    return out as number[];
  };
  const P = (parsed: ParsedDomainSpec) => ({ text, parsed });

  switch (kind) {
    case 'line':
    case 'ring':
    case 'clique':
      return P({ kind, n: ints(1, `${kind}:N`)[0]! });
    case 'count':
      return P({ kind, n: ints(1, 'count:U')[0]! });
    case 'hamming':
      return P({ kind, bits: ints(1, 'hamming:B')[0]! });
    case 'sum':
    case 'avg':
    case 'max':
    case 'min': {
      const [u, v] = ints(2, `${kind}:U,V`);
      return P({ kind, u: u!, v: v! });
    }
    case 'kcount':
    case 'argmax': {
      const [k, u] = ints(2, `${kind}:K,U`);
      return P({ kind, k: k!, u: u! });
    }
    case 'percentile': {
      const form = 'percentile:U,V,P with P in (0, 100]';
      const xs = head.split(',').map((x) => x.trim());
      if (xs.length !== 3 || opts.length > 0) bad(form);
      const u = parseDigits(xs[0]);
      const v = parseDigits(xs[1]);
      const p = /^(\d+\.?\d*|\.\d+)$/.test(xs[2]!) ? (parseDecimal(xs[2]!) ?? NaN) : NaN;
      if (u === undefined || v === undefined || !(p > 0 && p <= 100)) bad(form);
      return P({ kind, u: u!, v: v!, p });
    }
    case 'grid': {
      const form = 'grid:RxC[:step=S][:metric=euclidean|manhattan|chebyshev]';
      const m = /^(\d+)x(\d+)$/i.exec(head.trim());
      if (!m) bad(form);
      let step = 1;
      let metric: GridMetric = 'euclidean';
      const seen = new Set<string>();
      for (const o of opts) {
        const [key, value, extra] = o.split('=').map((s) => s.trim());
        if (extra !== undefined || value === undefined || seen.has(key!)) bad(form);
        seen.add(key!);
        if (key === 'step') {
          const s = /^[+-]/.test(value!) ? undefined : parseDecimal(value!);
          if (s === undefined || !(s > 0)) bad(`${form} with S a number > 0`);
          step = s!;
        } else if (key === 'metric') {
          if (value !== 'euclidean' && value !== 'manhattan' && value !== 'chebyshev') bad(form);
          metric = value as GridMetric;
        } else bad(form);
      }
      return P({ kind, rows: parseDigits(m![1])!, cols: parseDigits(m![2])!, step, metric });
    }
    case 'db': {
      const form = 'db:U,V[:metric=hamming|manhattan|max|normalised][:absent]';
      const xs = head.split(',').map((x) => parseDigits(x.trim()));
      if (xs.length !== 2 || xs.some((x) => x === undefined)) bad(form);
      let metric: DatabaseMetric = 'hamming';
      let absent = false;
      const seen = new Set<string>();
      for (const o of opts) {
        const t = o.trim();
        if (t === 'absent') {
          if (absent) bad(form);
          absent = true;
          continue;
        }
        const mm = /^metric=(hamming|manhattan|max|normalised|normalized)$/.exec(t);
        if (!mm || seen.has('metric')) bad(form);
        seen.add('metric');
        metric = mm![1] === 'normalized' ? 'normalised' : (mm![1] as DatabaseMetric);
      }
      return P({ kind, u: xs[0]!, v: xs[1]!, metric, absent });
    }
    default:
      return invalid(`unknown domain '${text}'; accepted forms: ${DOMAIN_SPEC_FORMS}`);
  }
}

export function parseDomainSpec(spec: string, io?: TextReader, onProgress?: MetricProgress): Domain {
  const { text, parsed: d } = parseDomainSpecText(spec);
  if (d.kind === 'graph' || d.kind === 'csv') {
    const what = d.kind === 'graph' ? 'edge-list file' : 'distance file';
    const reader = io ?? defaultReader(what);
    let content: string;
    try {
      content = reader.readText(d.file);
    } catch (e) {
      if (e instanceof MechError) throw e;
      invalid(`cannot read ${what} '${d.file}': ${(e as Error)?.message ?? String(e)}`);
    }
    return d.kind === 'graph' ? graphDomainFromEdgeList(content, d.file) : parseCustomMetricCsv(content, d.file, undefined, onProgress);
  }
  const build = (f: () => Domain): Domain => {
    try {
      return f();
    } catch (e) {
      if (e instanceof MechError) throw new MechError(e.code, `domain '${text}': ${e.message}`, e.detail);
      if (e instanceof RangeError) throw new MechError('too-large', `domain '${text}' is too large to build (${e.message})`);
      throw e;
    }
  };
  switch (d.kind) {
    case 'line':
      return build(() => lineDomain(d.n));
    case 'ring':
      return build(() => ringDomain(d.n));
    case 'clique':
      return build(() => cliqueDomain(d.n));
    case 'count':
      return build(() => countDomain(d.n));
    case 'hamming':
      return build(() => hammingCubeDomain(d.bits));
    case 'sum':
      return build(() => sumDomain(d.u, d.v));
    case 'avg':
      return build(() => averageDomain(d.u, d.v));
    case 'max':
      return build(() => maxDomain(d.u, d.v));
    case 'min':
      return build(() => minDomain(d.u, d.v));
    case 'kcount':
      return build(() => kCountDomain(d.k, d.u));
    case 'argmax':
      return build(() => argmaxDomain(d.k, d.u));
    case 'percentile':
      return build(() => percentileDomain(d.u, d.v, d.p));
    case 'grid':
      return build(() => gridDomain(d.rows, d.cols, d.step, d.metric));
    case 'db':
      return build(() => databaseDomain(d.u, d.v, { metric: d.metric, absent: d.absent }));
  }
}
