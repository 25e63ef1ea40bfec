/**
 * Custom metric import (SPEC §1): labels + distance matrix from CSV,
 * validated (square, no NaN, zero diagonal, non-negative, symmetric, triangle
 * inequality with the first violating triple). A violation is reported in
 * place, naming row and column, never silently fixed. Pure: unit-tested.
 */
export interface CustomMetric {
  labels: string[];
  /** Row-major n x n; Infinity = fully distinguishable. */
  distances: number[];
}

export type MetricParse = { ok: true; metric: CustomMetric } | { ok: false; error: string; row?: number; col?: number };

const INF = /^(inf|infinity|\+inf|∞)$/i;

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (q) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"', i++);
      else if (ch === '"') q = false;
      else cur += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') (out.push(cur.trim()), (cur = ''));
    else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

export function parseMetricCsv(text: string): MetricParse {
  const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
  if (lines.length === 0) return { ok: false, error: 'the file is empty' };
  let rows = lines.map(splitCsvLine);
  let labels: string[] | null = null;
  // Header row: empty first cell then labels (same layout as the channel CSV).
  if (rows[0]![0] === '' || rows[0]!.some((c) => c !== '' && !INF.test(c) && !Number.isFinite(Number(c)))) {
    labels = rows[0]!.slice(1);
    rows = rows.slice(1);
  }
  const n = rows.length;
  if (n === 0) return { ok: false, error: 'no rows of distances found: paste a header of labels (after an empty first cell) and one row per point, e.g. “,a,b” then “a,0,1” and “b,1,0”' };
  const hasRowLabels = labels !== null || rows.some((r) => r.length === n + 1);
  if (labels === null) labels = hasRowLabels ? rows.map((r) => r[0]!) : rows.map((_, i) => String(i));
  if (labels.length !== n) return { ok: false, error: `the header has ${labels.length} labels but there are ${n} rows: the matrix must be square` };
  const d: number[] = new Array(n * n);
  for (let i = 0; i < n; i++) {
    const cells = hasRowLabels ? rows[i]!.slice(1) : rows[i]!;
    if (cells.length !== n) return { ok: false, error: `row ${i + 1} (${labels[i]}) has ${cells.length} distances, expected ${n}: the matrix must be square`, row: i };
    for (let j = 0; j < n; j++) {
      const c = cells[j]!;
      const v = INF.test(c) ? Infinity : c === '' ? NaN : Number(c);
      if (Number.isNaN(v)) return { ok: false, error: `row ${labels[i]}, column ${labels[j]}: '${c}' is not a number`, row: i, col: j };
      d[i * n + j] = v;
    }
  }
  const bad = validateMetric(labels, d);
  if (bad) return bad;
  return { ok: true, metric: { labels, distances: d } };
}

/** First violation of the metric axioms, or null. Tolerance 1e-9 relative on the triangle inequality. */
export function validateMetric(labels: string[], d: number[]): { ok: false; error: string; row?: number; col?: number } | null {
  const n = labels.length;
  if (d.length !== n * n) return { ok: false, error: `expected ${n * n} distances, found ${d.length}: the matrix must be square` };
  for (let i = 0; i < n; i++) {
    if (d[i * n + i] !== 0) return { ok: false, error: `diagonal entry (${labels[i]}, ${labels[i]}) is ${d[i * n + i]}, must be 0`, row: i, col: i };
  }
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const v = d[i * n + j]!;
      if (Number.isNaN(v)) return { ok: false, error: `entry (${labels[i]}, ${labels[j]}) is NaN`, row: i, col: j };
      if (v < 0) return { ok: false, error: `entry (${labels[i]}, ${labels[j]}) is negative (${v})`, row: i, col: j };
      if (v !== d[j * n + i]) return { ok: false, error: `not symmetric: d(${labels[i]}, ${labels[j]}) = ${v} but d(${labels[j]}, ${labels[i]}) = ${d[j * n + i]}`, row: i, col: j };
    }
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let k = 0; k < n; k++) {
        const dij = d[i * n + j]!;
        const via = d[i * n + k]! + d[k * n + j]!;
        if (dij > via * (1 + 1e-9) + 1e-12)
          return {
            ok: false,
            error: `triangle inequality fails: d(${labels[i]}, ${labels[j]}) = ${dij} > d(${labels[i]}, ${labels[k]}) + d(${labels[k]}, ${labels[j]}) = ${via}`,
            row: i,
            col: j,
          };
      }
  return null;
}

/** The protocol's inline custom domain (Infinity sent as null). */
export function toDomainInput(m: CustomMetric): { kind: 'custom'; labels: string[]; distances: (number | null)[] } {
  return { kind: 'custom', labels: m.labels, distances: m.distances.map((v) => (Number.isFinite(v) ? v : null)) };
}
