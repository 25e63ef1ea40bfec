import { MechError, invalid } from '../errors';
import { argmaxDomain, averageDomain, countDomain, kCountDomain, maxDomain, minDomain, percentileDomain, sumDomain } from './answer-domains';
import { cliqueDomain } from './clique';
import { parseCustomMetricCsv } from './custom-metric';
import { databaseDomain, type DatabaseMetric } from './database';
import type { Domain, GridMetric } from './domain';
import { graphDomainFromEdgeList } from './graph';
import { gridDomain } from './grid';
import { hammingCubeDomain } from './hamming-cube';
import { lineDomain } from './line';
import { ringDomain } from './ring';

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

/** Default reader: Node's fs when running under Node (looked up at run time, no static import). */
function defaultReader(): TextReader | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = proc?.getBuiltinModule?.('node:fs') as { readFileSync(p: string, enc: 'utf8'): string } | undefined;
  return fs ? { readText: (p) => fs.readFileSync(p, 'utf8') } : undefined;
}

export function parseDomainSpec(spec: string, io?: TextReader): Domain {
  if (typeof spec !== 'string' || spec.trim() === '') invalid(`empty domain; accepted forms: ${DOMAIN_SPEC_FORMS}`);
  const text = spec.trim();
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).toLowerCase();
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const bad = (expected: string): never => invalid(`malformed domain '${text}': expected ${expected}; accepted forms: ${DOMAIN_SPEC_FORMS}`);

  if (kind === 'graph' || kind === 'csv') {
    if (rest.trim() === '') bad(`${kind}:FILE`);
    const file = rest.trim();
    const reader = io ?? defaultReader();
    if (!reader) invalid(`domain '${text}' needs a file reader to load '${file}'`);
    let content: string;
    try {
      content = reader.readText(file);
    } catch (e) {
      if (e instanceof MechError) throw e;
      invalid(`cannot read ${kind === 'graph' ? 'edge-list' : 'distance'} file '${file}': ${(e as Error)?.message ?? String(e)}`);
    }
    return kind === 'graph' ? graphDomainFromEdgeList(content, file) : parseCustomMetricCsv(content, file);
  }

  const parts = rest.split(':');
  const head = parts[0]!;
  const opts = parts.slice(1);
  const int = (s: string | undefined): number | undefined => (s !== undefined && /^\d+$/.test(s) ? Number(s) : undefined);
  const ints = (count: number, form: string): number[] => {
    const xs = head.split(',');
    if (xs.length !== count || opts.length > 0) bad(form);
    const out = xs.map((x) => int(x.trim()));
    if (out.some((x) => x === undefined)) bad(form);
    return out as number[];
  };
  const build = (f: () => Domain): Domain => {
    try {
      return f();
    } catch (e) {
      if (e instanceof MechError) throw new MechError(e.code, `domain '${text}': ${e.message}`, e.detail);
      throw e;
    }
  };

  switch (kind) {
    case 'line': {
      const [n] = ints(1, 'line:N');
      return build(() => lineDomain(n!));
    }
    case 'ring': {
      const [n] = ints(1, 'ring:N');
      return build(() => ringDomain(n!));
    }
    case 'clique': {
      const [n] = ints(1, 'clique:N');
      return build(() => cliqueDomain(n!));
    }
    case 'hamming': {
      const [b] = ints(1, 'hamming:B');
      return build(() => hammingCubeDomain(b!));
    }
    case 'count': {
      const [u] = ints(1, 'count:U');
      return build(() => countDomain(u!));
    }
    case 'sum': {
      const [u, v] = ints(2, 'sum:U,V');
      return build(() => sumDomain(u!, v!));
    }
    case 'avg': {
      const [u, v] = ints(2, 'avg:U,V');
      return build(() => averageDomain(u!, v!));
    }
    case 'max': {
      const [u, v] = ints(2, 'max:U,V');
      return build(() => maxDomain(u!, v!));
    }
    case 'min': {
      const [u, v] = ints(2, 'min:U,V');
      return build(() => minDomain(u!, v!));
    }
    case 'kcount': {
      const [k, u] = ints(2, 'kcount:K,U');
      return build(() => kCountDomain(k!, u!));
    }
    case 'argmax': {
      const [k, u] = ints(2, 'argmax:K,U');
      return build(() => argmaxDomain(k!, u!));
    }
    case 'percentile': {
      const form = 'percentile:U,V,P with P in (0, 100]';
      const xs = head.split(',').map((x) => x.trim());
      if (xs.length !== 3 || opts.length > 0) bad(form);
      const u = int(xs[0]);
      const v = int(xs[1]);
      const p = /^(\d+\.?\d*|\.\d+)$/.test(xs[2]!) ? Number(xs[2]) : NaN;
      if (u === undefined || v === undefined || !(p > 0 && p <= 100)) bad(form);
      return build(() => percentileDomain(u!, v!, p));
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
          if (!/^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value!) || !(Number(value) > 0)) bad(`${form} with S a number > 0`);
          step = Number(value);
        } else if (key === 'metric') {
          if (value !== 'euclidean' && value !== 'manhattan' && value !== 'chebyshev') bad(form);
          metric = value as GridMetric;
        } else bad(form);
      }
      return build(() => gridDomain(Number(m![1]), Number(m![2]), step, metric));
    }
    case 'db': {
      const form = 'db:U,V[:metric=hamming|manhattan|max|normalised][:absent]';
      const xs = head.split(',').map((x) => int(x.trim()));
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
      return build(() => databaseDomain(xs[0]!, xs[1]!, { metric, absent }));
    }
    default:
      return invalid(`unknown domain '${text}'; accepted forms: ${DOMAIN_SPEC_FORMS}`);
  }
}
