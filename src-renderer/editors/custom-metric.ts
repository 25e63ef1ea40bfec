/**
 * Custom metric import in the page: labels + distance matrix from pasted or
 * loaded CSV (the shared CSV reader, src-shared/csv), in any of three
 * layouts (a header of labels after an empty first cell; row labels only;
 * a bare square matrix), validated by the engine's own metric axioms check
 * (src-shared/metric/metric-axioms.ts: same tolerance, same first
 * violation, same words), so what the editor accepts the engine accepts. A
 * violation is reported in place, naming row and column, never silently
 * fixed. Pure: unit-tested.
 */
import { readCsv } from '../../src-shared/csv/csv-reader';
import { describeMetricViolation, firstMetricViolation, parseDistance } from '../../src-shared/metric/metric-axioms';

export interface CustomMetric {
  labels: string[];
  /** Row-major n x n; Infinity = fully distinguishable. */
  distances: number[];
}

type MetricProblem = { ok: false; error: string; row?: number; col?: number };
type MetricParse = { ok: true; metric: CustomMetric } | MetricProblem;

/**
 * Rows of distances with their labels: a header row (empty first cell, or any cell that is not a distance) gives the
 * labels.
 */
function layout(rows: string[][]): { labels: string[]; cells: string[][] } | MetricProblem {
  let labels: string[] | null = null;
  if (rows[0]![0] === '' || rows[0]!.some((c) => c !== '' && !parseDistance(c).ok)) {
    labels = rows[0]!.slice(1);
    rows = rows.slice(1);
  }
  const n = rows.length;
  if (n === 0)
    return {
      ok: false,
      error:
        'no rows of distances found: paste a header of labels (after an empty first cell) and one row per point, e.g. “,a,b” then “a,0,1” and “b,1,0”',
    };
  const hasRowLabels = labels !== null || rows.some((r) => r.length === n + 1);
  if (labels === null) labels = hasRowLabels ? rows.map((r) => r[0]!) : rows.map((_, i) => String(i));
  if (labels.length !== n)
    return {
      ok: false,
      error: `the header has ${labels.length} labels but there are ${n} rows: the matrix must be square`,
    };
  return { labels, cells: hasRowLabels ? rows.map((r) => r.slice(1)) : rows };
}

export function parseMetricCsv(text: string): MetricParse {
  const read = readCsv(text);
  if (!read.ok) return { ok: false, error: read.problem.message };
  if (read.rows.length === 0) return { ok: false, error: 'the file is empty' };
  const l = layout(read.rows.map((r) => r.fields));
  if ('ok' in l) return l;
  const { labels, cells } = l;
  const n = labels.length;
  const d: number[] = new Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = cells[i]!;
    if (row.length !== n)
      return {
        ok: false,
        error: `row ${i + 1} (${labels[i]}) has ${row.length} distances, expected ${n}: the matrix must be square`,
        row: i,
      };
    for (let j = 0; j < n; j++) {
      const v = parseDistance(row[j]!);
      if (!v.ok)
        return {
          ok: false,
          error: `row ${labels[i]}, column ${labels[j]}: '${row[j]}' is not a number`,
          row: i,
          col: j,
        };
      d[i * n + j] = v.value;
    }
  }
  const bad = validateMetric(labels, d);
  if (bad) return bad;
  return { ok: true, metric: { labels, distances: d } };
}

/** First violation of the metric axioms (the engine's check and words), or null. */
export function validateMetric(labels: string[], d: number[]): MetricProblem | null {
  const n = labels.length;
  if (d.length !== n * n)
    return { ok: false, error: `expected ${n * n} distances, found ${d.length}: the matrix must be square` };
  const v = firstMetricViolation(d, n);
  return v ? { ok: false, error: describeMetricViolation(v, labels), row: v.row, col: v.col } : null;
}

/** The protocol's inline custom domain (Infinity sent as null). */
export function toDomainInput(m: CustomMetric): { kind: 'custom'; labels: string[]; distances: (number | null)[] } {
  return { kind: 'custom', labels: m.labels, distances: m.distances.map((v) => (Number.isFinite(v) ? v : null)) };
}
