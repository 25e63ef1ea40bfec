/**
 * The metric axioms check, once for the engine (custom metrics, csv:FILE
 * domains: src-worker/metric/custom-metric.ts) and the app's custom-metric
 * editor (docs/domains-and-metrics.md, "Custom metrics").
 *
 * Guarantee: a matrix passes only if it is a metric up to the relative
 * tolerance REL_TOL (src-shared/numeric/tolerance.ts): no NaN, non-negative,
 * zero diagonal, symmetric (|a-b| <= REL_TOL max(1,|a|,|b|)), triangle
 * inequality d(i,k) <= d(i,j) + d(j,k) (excess <= REL_TOL max(1, via)).
 * +Infinity ("fully distinguishable") is allowed. The checks run in that
 * order and the FIRST violation is reported ((i, j, k) lexicographic for the
 * triangle), as a typed record; nothing is ever fixed silently.
 */
import { decimalProblem } from '../numeric/decimal';
import { REL_TOL } from '../numeric/tolerance';

export type MetricViolation =
  | { kind: 'nan'; row: number; col: number }
  | { kind: 'negative'; row: number; col: number; value: number }
  | { kind: 'diagonal'; row: number; col: number; value: number }
  | { kind: 'asymmetric'; row: number; col: number; value: number; transposed: number }
  /** d(i,k) = direct > d(i,j) + d(j,k) = via, for triple [i, j, k]. */
  | { kind: 'triangle'; row: number; col: number; triple: [number, number, number]; direct: number; via: number };

/** Progress of a long check: fraction of the triangle check done, and what it is. */
export type MetricProgress = (fraction: number, message: string) => void;

function firstCellViolation(d: ArrayLike<number>, n: number): MetricViolation | null {
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const x = d[i * n + j]!;
      if (Number.isNaN(x)) return { kind: 'nan', row: i, col: j };
      if (x < 0) return { kind: 'negative', row: i, col: j, value: x };
    }
  for (let i = 0; i < n; i++) {
    const x = d[i * n + i]!;
    if (x !== 0) return { kind: 'diagonal', row: i, col: i, value: x };
  }
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const a = d[i * n + j]!;
      const b = d[j * n + i]!;
      if (a !== b && !(Math.abs(a - b) <= REL_TOL * Math.max(1, Math.abs(a), Math.abs(b))))
        return { kind: 'asymmetric', row: i, col: j, value: a, transposed: b };
    }
  return null;
}

/** n^3: up to 8e9 steps (~15 s) within the engine's admission limit, so it says how far it is (every ~250 ms). */
function firstTriangleViolation(d: ArrayLike<number>, n: number, onProgress?: MetricProgress): MetricViolation | null {
  let last = performance.now();
  for (let i = 0; i < n; i++) {
    if (onProgress && performance.now() - last >= 250) {
      last = performance.now();
      onProgress(i / n, `checking the triangle inequality of ${n} points: row ${i + 1} of ${n}`);
    }
    for (let j = 0; j < n; j++) {
      const dij = d[i * n + j]!;
      if (dij === Infinity) continue;
      for (let k = 0; k < n; k++) {
        const dik = d[i * n + k]!;
        const via = dij + d[j * n + k]!;
        if (dik > via && dik - via > REL_TOL * Math.max(1, via))
          return { kind: 'triangle', row: i, col: k, triple: [i, j, k], direct: dik, via };
      }
    }
  }
  return null;
}

/** The first violation of the metric axioms by the row-major n x n matrix d, or null when it is a metric. */
export function firstMetricViolation(
  d: ArrayLike<number>,
  n: number,
  onProgress?: MetricProgress,
): MetricViolation | null {
  return firstCellViolation(d, n) ?? firstTriangleViolation(d, n, onProgress);
}

/** The violation in words, naming the points by label. */
export function describeMetricViolation(v: MetricViolation, labels: readonly string[]): string {
  const cell = (i: number, j: number) => `row '${labels[i]}', column '${labels[j]}'`;
  switch (v.kind) {
    case 'nan':
      return `distance at ${cell(v.row, v.col)} is NaN`;
    case 'negative':
      return `distance at ${cell(v.row, v.col)} is negative (${v.value})`;
    case 'diagonal':
      return `diagonal distance at ${cell(v.row, v.col)} is ${v.value}, must be 0`;
    case 'asymmetric':
      return `not symmetric: ${cell(v.row, v.col)} is ${v.value} but ${cell(v.col, v.row)} is ${v.transposed}`;
    case 'triangle': {
      const [a, b, c] = v.triple.map((i) => labels[i]);
      return `triangle inequality fails for ('${a}', '${b}', '${c}'): d('${a}','${c}') = ${v.direct} > d('${a}','${b}') + d('${b}','${c}') = ${v.via} (row '${a}', column '${c}')`;
    }
  }
}

const INFINITY_WORDS = /^(\+?inf|\+?infinity|∞)$/i;

/**
 * One distance as written in a custom metric: a strict decimal number
 * (src-shared/numeric/decimal.ts), or inf / infinity / +inf / ∞ for "fully
 * distinguishable"; -inf and nan are read as what they say, so the axioms
 * check names them. Otherwise why it is not a distance (never echoing it).
 */
export function parseDistance(text: string): { ok: true; value: number } | { ok: false; problem: string } {
  if (text === '') return { ok: false, problem: 'is empty' };
  if (INFINITY_WORDS.test(text)) return { ok: true, value: Infinity };
  if (/^-inf(inity)?$/i.test(text)) return { ok: true, value: -Infinity };
  if (/^nan$/i.test(text)) return { ok: true, value: NaN };
  const problem = decimalProblem(text);
  return problem === undefined ? { ok: true, value: Number(text) } : { ok: false, problem };
}
