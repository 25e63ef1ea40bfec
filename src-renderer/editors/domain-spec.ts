/**
 * Parse and build the SPEC §8 domain text the project stores, so each domain
 * gets the right editor (grid, database/query, smart meter, custom metric,
 * simple line/ring/clique/hamming). Pure functions: unit-tested.
 */
export type GridMetricName = 'euclidean' | 'manhattan' | 'chebyshev';

export type DomainForm =
  | { kind: 'line' | 'ring' | 'clique'; n: number }
  | { kind: 'hamming'; bits: number }
  | { kind: 'grid'; rows: number; cols: number; step: number; metric: GridMetricName }
  | { kind: 'count'; u: number }
  | { kind: 'sum'; u: number; v: number }
  | { kind: 'kcount'; k: number; u: number }
  | { kind: 'db'; u: number; v: number; metric: 'hamming' | 'manhattan' | 'max' | 'normalised'; absent: boolean }
  | { kind: 'avg' | 'max' | 'min'; u: number; v: number }
  | { kind: 'percentile'; u: number; v: number; p: number }
  | { kind: 'argmax'; k: number; u: number }
  | { kind: 'other'; text: string };

const int = (s: string | undefined): number => (s !== undefined && /^\d+$/.test(s) ? Number(s) : NaN);

export function parseDomainText(text: string): DomainForm {
  const t = text.trim();
  const [head, ...opts] = t.split(':');
  const rest = opts[0] ?? '';
  const opt = (name: string): string | undefined => opts.slice(1).concat(opts).find((o) => o.startsWith(`${name}=`))?.slice(name.length + 1);
  switch (head) {
    case 'line':
    case 'ring':
    case 'clique':
      if (Number.isInteger(int(rest))) return { kind: head, n: int(rest) };
      break;
    case 'hamming':
      if (Number.isInteger(int(rest))) return { kind: 'hamming', bits: int(rest) };
      break;
    case 'grid': {
      const m = /^(\d+)x(\d+)$/.exec(rest);
      if (m) {
        const step = opt('step') !== undefined ? Number(opt('step')) : 1;
        const metric = (opt('metric') ?? 'euclidean') as GridMetricName;
        return { kind: 'grid', rows: Number(m[1]), cols: Number(m[2]), step, metric };
      }
      break;
    }
    case 'count':
      if (Number.isInteger(int(rest))) return { kind: 'count', u: int(rest) };
      break;
    case 'sum': {
      const [u, v] = rest.split(',');
      if (Number.isInteger(int(u)) && Number.isInteger(int(v))) return { kind: 'sum', u: int(u), v: int(v) };
      break;
    }
    case 'kcount': {
      const [k, u] = rest.split(',');
      if (Number.isInteger(int(k)) && Number.isInteger(int(u))) return { kind: 'kcount', k: int(k), u: int(u) };
      break;
    }
    case 'db': {
      const [u, v] = rest.split(',');
      const metric = (opt('metric') ?? 'hamming') as 'hamming' | 'manhattan' | 'max' | 'normalised';
      const absent = opts.slice(1).includes('absent');
      if (Number.isInteger(int(u)) && Number.isInteger(int(v))) return { kind: 'db', u: int(u), v: int(v), metric, absent };
      break;
    }
    case 'avg':
    case 'max':
    case 'min': {
      const [u, v] = rest.split(',');
      if (Number.isInteger(int(u)) && Number.isInteger(int(v))) return { kind: head, u: int(u), v: int(v) };
      break;
    }
    case 'percentile': {
      const [u, v, p] = rest.split(',');
      if (Number.isInteger(int(u)) && Number.isInteger(int(v)) && Number.isFinite(Number(p))) return { kind: 'percentile', u: int(u), v: int(v), p: Number(p) };
      break;
    }
    case 'argmax': {
      const [k, u] = rest.split(',');
      if (Number.isInteger(int(k)) && Number.isInteger(int(u))) return { kind: 'argmax', k: int(k), u: int(u) };
      break;
    }
  }
  return { kind: 'other', text: t };
}

export function domainText(f: DomainForm): string {
  switch (f.kind) {
    case 'line':
    case 'ring':
    case 'clique':
      return `${f.kind}:${f.n}`;
    case 'hamming':
      return `hamming:${f.bits}`;
    case 'grid':
      return `grid:${f.rows}x${f.cols}${f.step !== 1 ? `:step=${f.step}` : ''}${f.metric !== 'euclidean' ? `:metric=${f.metric}` : ''}`;
    case 'count':
      return `count:${f.u}`;
    case 'sum':
      return `sum:${f.u},${f.v}`;
    case 'kcount':
      return `kcount:${f.k},${f.u}`;
    case 'db':
      return `db:${f.u},${f.v}${f.metric !== 'hamming' ? `:metric=${f.metric}` : ''}${f.absent ? ':absent' : ''}`;
    case 'avg':
    case 'max':
    case 'min':
      return `${f.kind}:${f.u},${f.v}`;
    case 'percentile':
      return `percentile:${f.u},${f.v},${f.p}`;
    case 'argmax':
      return `argmax:${f.k},${f.u}`;
    case 'other':
      return f.text;
  }
}

/** Number of secrets of a domain form (NaN when unknown, e.g. a CSV file). */
export function domainSize(f: DomainForm): number {
  switch (f.kind) {
    case 'line':
    case 'ring':
    case 'clique':
      return f.n;
    case 'hamming':
      return 2 ** f.bits;
    case 'grid':
      return f.rows * f.cols;
    case 'count':
      return f.u + 1;
    case 'sum':
      return f.u * f.v + 1;
    case 'kcount':
      return (f.u + 1) ** f.k;
    case 'db':
      return (f.v + (f.absent ? 1 : 0)) ** f.u;
    case 'avg':
      return f.u * f.v + 1;
    case 'max':
    case 'min':
    case 'percentile':
      return f.v + 1;
    case 'argmax':
      return f.k;
    case 'other':
      return NaN;
  }
}
