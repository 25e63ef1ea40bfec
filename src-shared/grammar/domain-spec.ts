/**
 * The domain grammar, once for the engine, the CLI and the app
 * (docs/cli-and-formats.md, "Domain texts"; meanings in
 * docs/domains-and-metrics.md). Pure: text in, a typed DomainSpec or one
 * message out; it builds nothing (no allocation proportional to the
 * domain's size), so the admission estimate, the queue codec and the
 * renderer's editors can all parse without the engine.
 *
 * N, R, C, B, U, V, K are non-negative integers in decimal digits (a value
 * beyond 2^53 comes back as the nearest float, so size limits, not
 * typed-array constructors, refuse it); S is a decimal number > 0; P a
 * decimal number in (0, 100]. The kind is case-insensitive; options after
 * the first ':'-separated part may come in any order, each at most once;
 * 'normalized' is accepted for 'normalised'. graph:FILE and csv:FILE take
 * the rest of the text as the file name (it may contain ':').
 *
 * sum/avg/percentile/max/min take values 0..V (V + 1 values); db:U,V takes
 * V values 0..V-1 per individual. domainSpecText writes the canonical text,
 * which parses back to the same DomainSpec.
 */
import { parseDecimal, parseDigits } from '../numeric/decimal';

const GRID_METRICS = ['euclidean', 'manhattan', 'chebyshev'] as const;
const DATABASE_METRICS = ['hamming', 'manhattan', 'max', 'normalised'] as const;
type GridMetricName = (typeof GRID_METRICS)[number];
type DatabaseMetricName = (typeof DATABASE_METRICS)[number];

/** A parsed domain text. */
export type DomainSpec =
  | { kind: 'line' | 'ring' | 'clique' | 'count'; n: number }
  | { kind: 'hamming'; bits: number }
  | { kind: 'sum' | 'avg' | 'max' | 'min'; u: number; v: number }
  | { kind: 'kcount' | 'argmax'; k: number; u: number }
  | { kind: 'percentile'; u: number; v: number; p: number }
  | { kind: 'grid'; rows: number; cols: number; step: number; metric: GridMetricName }
  | { kind: 'db'; u: number; v: number; metric: DatabaseMetricName; absent: boolean }
  | { kind: 'graph' | 'csv'; file: string };

type DomainKind = DomainSpec['kind'];

/** One form of the grammar: what to write, what it means, and an example that parses. */
interface DomainGrammarForm {
  kind: DomainKind;
  form: string;
  meaning: string;
  example: string;
}

/** Every form, in the order help texts list them (the CLI help and the error messages are made from this). */
export const DOMAIN_FORMS: readonly DomainGrammarForm[] = [
  { kind: 'line', form: 'line:N', meaning: 'points 0..N-1, distance |i-j|', example: 'line:6' },
  { kind: 'ring', form: 'ring:N', meaning: 'N points on a cycle', example: 'ring:8' },
  { kind: 'clique', form: 'clique:N', meaning: 'N labels, the discrete metric', example: 'clique:5' },
  {
    kind: 'grid',
    form: `grid:RxC[:step=S][:metric=${GRID_METRICS.join('|')}]`,
    meaning: 'R x C cell centres, cell size S',
    example: 'grid:4x5:step=0.5:metric=manhattan',
  },
  { kind: 'hamming', form: 'hamming:B', meaning: 'bit strings of length B', example: 'hamming:3' },
  { kind: 'count', form: 'count:U', meaning: 'a count over U records', example: 'count:5' },
  { kind: 'sum', form: 'sum:U,V', meaning: 'the sum of U values in 0..V', example: 'sum:3,2' },
  { kind: 'kcount', form: 'kcount:K,U', meaning: 'K simultaneous counts over U records', example: 'kcount:2,3' },
  { kind: 'avg', form: 'avg:U,V', meaning: 'the average of U values in 0..V', example: 'avg:3,2' },
  {
    kind: 'percentile',
    form: 'percentile:U,V,P',
    meaning: 'the nearest-rank P-percentile of U values in 0..V',
    example: 'percentile:5,4,50',
  },
  { kind: 'max', form: 'max:U,V', meaning: 'the largest of U values in 0..V', example: 'max:3,4' },
  { kind: 'min', form: 'min:U,V', meaning: 'the smallest of U values in 0..V', example: 'min:3,4' },
  { kind: 'argmax', form: 'argmax:K,U', meaning: 'which of K categories has most of U records', example: 'argmax:3,4' },
  {
    kind: 'db',
    form: `db:U,V[:metric=${DATABASE_METRICS.join('|')}][:absent]`,
    meaning: 'databases of U individuals, V values each',
    example: 'db:2,3:metric=manhattan:absent',
  },
  { kind: 'graph', form: 'graph:FILE', meaning: 'an edge list, shortest-path distance', example: 'graph:edges.csv' },
  { kind: 'csv', form: 'csv:FILE', meaning: 'a labelled distance matrix, validated', example: 'csv:distances.csv' },
];

/** The forms as one line, for messages. */
export const DOMAIN_SPEC_FORMS = DOMAIN_FORMS.map((f) => f.form).join(', ');

type DomainSpecParse = { ok: true; text: string; spec: DomainSpec } | { ok: false; text: string; error: string };

/** A parse failure, raised inside the per-kind parsers and turned into the result by parseDomainSpecText. */
class GrammarError extends Error {}

const formOf = (kind: DomainKind): string => DOMAIN_FORMS.find((f) => f.kind === kind)!.form;

/** `value` when it is one of `names`, else undefined. */
function oneOf<T extends string>(names: readonly T[], value: string): T | undefined {
  return names.find((n) => n === value);
}

/** The text's parts: kind (lower-cased), the first part after the kind, and the options. */
interface SpecParts {
  text: string;
  kind: string;
  rest: string;
  head: string;
  opts: string[];
}

function malformed(p: SpecParts, expected: string): never {
  throw new GrammarError(`malformed domain '${p.text}': expected ${expected}; accepted forms: ${DOMAIN_SPEC_FORMS}`);
}

/** Exactly `count` comma-separated integers and no options. */
function integers(p: SpecParts, count: number, form: string): number[] {
  const xs = p.head.split(',');
  if (xs.length !== count || p.opts.length > 0) malformed(p, form);
  const out = xs.map((x) => parseDigits(x.trim()));
  if (out.some((x) => x === undefined)) malformed(p, form);
  return out as number[];
}

function parsePercentile(p: SpecParts): DomainSpec {
  const form = 'percentile:U,V,P with P in (0, 100]';
  const xs = p.head.split(',').map((x) => x.trim());
  if (xs.length !== 3 || p.opts.length > 0) malformed(p, form);
  const u = parseDigits(xs[0]);
  const v = parseDigits(xs[1]);
  const pct = /^(\d+\.?\d*|\.\d+)$/.test(xs[2]!) ? (parseDecimal(xs[2]!) ?? NaN) : NaN;
  if (u === undefined || v === undefined || !(pct > 0 && pct <= 100)) malformed(p, form);
  return { kind: 'percentile', u, v, p: pct };
}

function parseGrid(p: SpecParts): DomainSpec {
  const form = formOf('grid');
  const m = /^(\d+)x(\d+)$/i.exec(p.head.trim());
  if (!m) malformed(p, form);
  let step = 1;
  let metric: GridMetricName = 'euclidean';
  const seen = new Set<string>();
  for (const o of p.opts) {
    const [key, value, extra] = o.split('=').map((s) => s.trim());
    if (extra !== undefined || value === undefined || seen.has(key!)) malformed(p, form);
    seen.add(key!);
    if (key === 'step') {
      const s = /^[+-]/.test(value) ? undefined : parseDecimal(value);
      if (s === undefined || !(s > 0)) malformed(p, `${form} with S a number > 0`);
      step = s;
    } else if (key === 'metric') {
      metric = oneOf(GRID_METRICS, value) ?? malformed(p, form);
    } else malformed(p, form);
  }
  return { kind: 'grid', rows: parseDigits(m[1])!, cols: parseDigits(m[2])!, step, metric };
}

function parseDb(p: SpecParts): DomainSpec {
  const form = formOf('db');
  const xs = p.head.split(',').map((x) => parseDigits(x.trim()));
  if (xs.length !== 2 || xs.some((x) => x === undefined)) malformed(p, form);
  let metric: DatabaseMetricName = 'hamming';
  let absent = false;
  let metricSeen = false;
  for (const o of p.opts) {
    const t = o.trim();
    if (t === 'absent') {
      if (absent) malformed(p, form);
      absent = true;
      continue;
    }
    const named = t.startsWith('metric=')
      ? oneOf(DATABASE_METRICS, t === 'metric=normalized' ? 'normalised' : t.slice('metric='.length))
      : undefined;
    if (named === undefined || metricSeen) malformed(p, form);
    metricSeen = true;
    metric = named;
  }
  return { kind: 'db', u: xs[0]!, v: xs[1]!, metric, absent };
}

function splitSpec(text: string): SpecParts {
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)).toLowerCase();
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  const [head, ...opts] = rest.split(':');
  return { text, kind, rest, head: head!, opts };
}

/** A form of `count` comma-separated integers and no options; `make` turns them into the DomainSpec. */
const integerForm =
  (count: number, make: (xs: number[]) => DomainSpec) =>
  (p: SpecParts): DomainSpec =>
    make(integers(p, count, formOf(p.kind as DomainKind)));

function parseFileForm(p: SpecParts): DomainSpec {
  if (p.rest.trim() === '') malformed(p, formOf(p.kind as DomainKind));
  return { kind: p.kind as 'graph' | 'csv', file: p.rest.trim() };
}

/** The parser of each kind. */
const PARSERS: Record<DomainKind, (p: SpecParts) => DomainSpec> = {
  line: integerForm(1, ([n]) => ({ kind: 'line', n: n! })),
  ring: integerForm(1, ([n]) => ({ kind: 'ring', n: n! })),
  clique: integerForm(1, ([n]) => ({ kind: 'clique', n: n! })),
  count: integerForm(1, ([n]) => ({ kind: 'count', n: n! })),
  hamming: integerForm(1, ([bits]) => ({ kind: 'hamming', bits: bits! })),
  sum: integerForm(2, ([u, v]) => ({ kind: 'sum', u: u!, v: v! })),
  avg: integerForm(2, ([u, v]) => ({ kind: 'avg', u: u!, v: v! })),
  max: integerForm(2, ([u, v]) => ({ kind: 'max', u: u!, v: v! })),
  min: integerForm(2, ([u, v]) => ({ kind: 'min', u: u!, v: v! })),
  kcount: integerForm(2, ([k, u]) => ({ kind: 'kcount', k: k!, u: u! })),
  argmax: integerForm(2, ([k, u]) => ({ kind: 'argmax', k: k!, u: u! })),
  percentile: parsePercentile,
  grid: parseGrid,
  db: parseDb,
  graph: parseFileForm,
  csv: parseFileForm,
};

function parseParts(p: SpecParts): DomainSpec {
  if (!Object.hasOwn(PARSERS, p.kind))
    throw new GrammarError(`unknown domain '${p.text}'; accepted forms: ${DOMAIN_SPEC_FORMS}`);
  return PARSERS[p.kind as DomainKind](p);
}

/** Parse a domain text (trimmed first); a failure names what was expected and lists the accepted forms. */
export function parseDomainSpecText(input: unknown): DomainSpecParse {
  if (typeof input !== 'string' || input.trim() === '')
    return {
      ok: false,
      text: typeof input === 'string' ? input : '',
      error: `empty domain; accepted forms: ${DOMAIN_SPEC_FORMS}`,
    };
  const text = input.trim();
  try {
    return { ok: true, text, spec: parseParts(splitSpec(text)) };
  } catch (e) {
    if (e instanceof GrammarError) return { ok: false, text, error: e.message };
    throw e;
  }
}

/** The canonical text of a DomainSpec (defaults left out); it parses back to the same DomainSpec. */
export function domainSpecText(s: DomainSpec): string {
  switch (s.kind) {
    case 'line':
    case 'ring':
    case 'clique':
    case 'count':
      return `${s.kind}:${s.n}`;
    case 'hamming':
      return `hamming:${s.bits}`;
    case 'sum':
    case 'avg':
    case 'max':
    case 'min':
      return `${s.kind}:${s.u},${s.v}`;
    case 'kcount':
    case 'argmax':
      return `${s.kind}:${s.k},${s.u}`;
    case 'percentile':
      return `percentile:${s.u},${s.v},${s.p}`;
    case 'grid':
      return `grid:${s.rows}x${s.cols}${s.step !== 1 ? `:step=${s.step}` : ''}${s.metric !== 'euclidean' ? `:metric=${s.metric}` : ''}`;
    case 'db':
      return `db:${s.u},${s.v}${s.metric !== 'hamming' ? `:metric=${s.metric}` : ''}${s.absent ? ':absent' : ''}`;
    case 'graph':
    case 'csv':
      return `${s.kind}:${s.file}`;
  }
}

/**
 * Number of points of the domain a DomainSpec describes (a float; NaN for graph:FILE and csv:FILE, known only from the
 * file).
 */
export function domainSpecSize(s: DomainSpec): number {
  switch (s.kind) {
    case 'line':
    case 'ring':
    case 'clique':
      return s.n;
    case 'count':
      return s.n + 1;
    case 'hamming':
      return 2 ** s.bits;
    case 'grid':
      return s.rows * s.cols;
    case 'sum':
    case 'avg':
      return s.u * s.v + 1;
    case 'kcount':
      return (s.u + 1) ** s.k;
    case 'db':
      return (s.v + (s.absent ? 1 : 0)) ** s.u;
    case 'max':
    case 'min':
    case 'percentile':
      return s.v + 1;
    case 'argmax':
      return s.k;
    case 'graph':
    case 'csv':
      return NaN;
  }
}
