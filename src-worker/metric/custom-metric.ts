import { MechError, invalid } from '../../src-shared/errors';
import { Matrix, assertDenseFits } from '../linalg/matrix';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import {
  describeMetricViolation,
  firstMetricViolation,
  parseDistance,
  type MetricProgress,
  type MetricViolation,
} from '../../src-shared/metric/metric-axioms';
import type { Domain } from './domain';
import { readCsvRows } from './read-csv';

/** The structured detail of a violation for the UI (indices, and for a triangle the labels). */
function violationDetail(v: MetricViolation, labels: readonly string[]): Record<string, unknown> {
  switch (v.kind) {
    case 'nan':
      return { row: v.row, col: v.col };
    case 'negative':
    case 'diagonal':
      return { row: v.row, col: v.col, value: v.value };
    case 'asymmetric':
      return { row: v.row, col: v.col, value: v.value, transposed: v.transposed };
    case 'triangle':
      return { triple: v.triple, labels: v.triple.map((i) => labels[i]), direct: v.direct, via: v.via };
  }
}

/**
 * Custom metric (SPEC §1): labels and a distance matrix, validated by the
 * shared metric axioms check (src-shared/metric/metric-axioms.ts: square,
 * no NaN, non-negative, zero diagonal, symmetric, triangle inequality, all
 * within REL_TOL; the first violation is reported), never silently fixed.
 * +Infinity is allowed ("fully distinguishable"). A violation is a
 * MechError 'not-a-metric' naming the row and column (detail carries the
 * indices and labels).
 */
export function validateMetric(m: Matrix, labels: readonly string[], onProgress?: MetricProgress): void {
  const n = labels.length;
  if (m.rows !== m.cols)
    throw new MechError('not-a-metric', `distance matrix is not square: ${m.rows} rows x ${m.cols} columns`);
  if (m.rows !== n) invalid(`distance matrix is ${m.rows} x ${m.cols} but ${n} labels were given`);
  const v = firstMetricViolation(m.data, n, onProgress);
  if (v) throw new MechError('not-a-metric', describeMetricViolation(v, labels), violationDetail(v, labels));
}

export type { MetricProgress };

/** Custom domain from a validated matrix and labels (distinct, non-empty). */
export function customMetricDomain(
  m: Matrix,
  labels: readonly string[],
  spec = `custom metric on ${labels.length} points`,
  onProgress?: MetricProgress,
): Domain {
  const n = labels.length;
  if (n === 0) invalid('a custom metric needs at least one point');
  assertCustomMetricFits(n, spec);
  const seen = new Map<string, number>();
  labels.forEach((l, i) => {
    if (l === '') invalid(`label ${i + 1} is empty`);
    if (seen.has(l)) invalid(`label '${l}' appears twice (points ${seen.get(l)! + 1} and ${i + 1})`);
    seen.set(l, i);
  });
  validateMetric(m, labels, onProgress);
  const data = m.data.slice();
  return {
    kind: 'custom',
    spec,
    description: `custom metric on ${n} points`,
    n,
    label: (i) => labels[i]!,
    distance: (i, j) => data[i * n + j]!,
    structure: {},
  };
}

/**
 * Parse one distance cell (the shared parseDistance: a decimal number, or inf/Infinity, SPEC §1); validation follows.
 * Never echoes the cell.
 */
function parseCell(text: string, where: string): number {
  const d = parseDistance(text);
  if (d.ok) return d.value;
  if (text === '') invalid(`${where}: empty cell (expected a distance: a decimal number >= 0 or inf)`);
  return invalid(`${where}: the cell ${d.problem} (expected a distance: a decimal number >= 0 or inf)`);
}

/** Points of a CSV metric from its header alone (first non-empty, non-comment line), without parsing the body. */
function csvMetricHeaderSize(text: string, file: string): number {
  let at = 0;
  for (;;) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end < 0 ? text.length : end);
    const t = line.trim();
    if (t !== '' && !t.startsWith('#') && t.replace(/,/g, '').trim() !== '') {
      const rows = readCsvRows(line, file);
      return rows.length > 0 ? rows[0]!.fields.length - 1 : 0;
    }
    if (end < 0) return 0;
    at = end + 1;
  }
}

/**
 * Refuse a custom metric on n points whose validation (n^3 triangle check)
 * or dense matrix would not fit the engine's limits (base/admission-limits.ts).
 */
function assertCustomMetricFits(n: number, what: string): void {
  const work = n * n * n;
  if (work > ADMISSION_LIMITS.maxMetricValidationWork) {
    const maxN = Math.floor(Math.cbrt(ADMISSION_LIMITS.maxMetricValidationWork));
    throw new MechError(
      'too-large',
      `${what} has ${n} points: checking the triangle inequality takes n^3 = ${work.toExponential(2)} steps, over the limit of ${ADMISSION_LIMITS.maxMetricValidationWork.toExponential(1)} (at most ${maxN} points); give a graph (graph:FILE, a shortest-path metric needs no triangle check) or fewer points`,
      { points: n, work, limit: ADMISSION_LIMITS.maxMetricValidationWork },
    );
  }
  assertDenseFits(n, n, `distance matrix of ${what}`);
}

/**
 * csv:FILE domain. Layout: header row with an empty first cell then the
 * column labels; then one row per point: label, distances. Rows must come in
 * the header's order (row k labelled as column k). Malformed CSV (ragged
 * rows, non-numbers, empty cells, mismatched or duplicate labels) is
 * 'invalid-input' naming the file, line and column; metric violations (NaN,
 * negative, asymmetric, non-zero diagonal, triangle) are 'not-a-metric'.
 * Messages about the file's layout never quote its content (a job may name
 * a system file: its lines must not come back to the client); only the
 * metric violations of a well-formed distance file name the points' labels.
 */
export function parseCustomMetricCsv(
  text: string,
  file = 'distance CSV',
  spec = `csv:${file}`,
  onProgress?: MetricProgress,
): Domain {
  // Size first, from the header line alone: no body parse, no n x n matrix, before the limits say yes.
  assertCustomMetricFits(csvMetricHeaderSize(text, file), `distance file '${file}'`);
  const rows = readCsvRows(text, file);
  if (rows.length === 0) invalid(`${file}: empty file (expected a header row of labels after an empty first cell)`);
  const header = rows[0]!;
  if (header.fields[0] !== '')
    invalid(
      `${file}, line ${header.line}: the header's first cell must be empty (layout: ',label1,label2,...' then one row 'label,d1,d2,...' per point)`,
      {
        line: header.line,
      },
    );
  const labels = header.fields.slice(1);
  const n = labels.length;
  if (n === 0) invalid(`${file}, line ${header.line}: header has no labels`);
  const firstColumn = new Map<string, number>();
  labels.forEach((l, j) => {
    if (l === '') invalid(`${file}, line ${header.line}: column ${j + 2} has an empty label`);
    const prev = firstColumn.get(l);
    if (prev !== undefined) {
      const lineOf = (k: number) => (rows[k + 1] ? `line ${rows[k + 1]!.line}` : `point ${k + 1}`);
      invalid(
        `${file}: duplicate label: columns ${prev + 2} and ${j + 2} of the header (line ${header.line}) carry the same label, so the rows of ${lineOf(prev)} and ${lineOf(j)} would be the same point twice`,
        {
          line: header.line,
          columns: [prev + 2, j + 2],
        },
      );
    }
    firstColumn.set(l, j);
  });
  const body = rows.slice(1);
  if (body.length !== n) {
    throw new MechError('not-a-metric', `${file}: distance matrix is not square: ${n} columns but ${body.length} rows`);
  }
  const m = new Matrix(n, n);
  body.forEach((row, i) => {
    if (row.fields.length !== n + 1)
      invalid(`${file}, line ${row.line}: expected a label and ${n} distances, got ${row.fields.length} cells`, {
        line: row.line,
      });
    if (row.fields[0] !== labels[i])
      invalid(
        `${file}, line ${row.line}: the row's label (column 1) differs from the header's label of column ${i + 2}; rows must come in the header's order`,
        { line: row.line },
      );
    for (let j = 0; j < n; j++)
      m.data[i * n + j] = parseCell(row.fields[j + 1]!, `${file}, line ${row.line}, column ${j + 2}`);
  });
  try {
    return customMetricDomain(m, labels, spec, onProgress);
  } catch (e) {
    if (e instanceof MechError) throw new MechError(e.code, `${file}: ${e.message}`, e.detail);
    throw e;
  }
}
