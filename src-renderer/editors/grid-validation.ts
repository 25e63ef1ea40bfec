/**
 * Location-grid editor logic: rows, columns, cell size, eps per km and its
 * "privacy level l within radius r" phrasing (eps = l / r, so that two points
 * within r km are (l)-indistinguishable: e^(eps d) <= e^l for d <= r), and
 * prior painting / CSV loading. Pure functions: unit-tested.
 */
import { readCsv, TABLE_DELIMITERS } from '../../src-shared/csv/csv-reader';
interface GridFields {
  rows: number;
  cols: number;
  step: number;
  metric: string;
}

export type FieldErrors = Partial<Record<string, string>>;

/** Names the problem of a count field in `e[key]`: `small` when not a whole number ≥ min, `large` when above max. */
export function checkCount(
  e: FieldErrors,
  key: string,
  v: number,
  min: number,
  max: number,
  small: string,
  large: string,
): void {
  if (!Number.isInteger(v) || v < min) e[key] = small;
  else if (v > max) e[key] = large;
}

/** The largest grid the editor accepts (the engine streams bigger channels, but the UI draws every cell). */
const MAX_GRID_CELLS = 250_000;

export function validateGrid(g: GridFields): FieldErrors {
  const e: FieldErrors = {};
  checkCount(e, 'rows', g.rows, 1, 1000, 'rows must be a whole number ≥ 1', 'at most 1000 rows');
  checkCount(e, 'cols', g.cols, 1, 1000, 'columns must be a whole number ≥ 1', 'at most 1000 columns');
  if (!Number.isFinite(g.step) || g.step <= 0) e.step = 'cell size must be a number > 0';
  if (!e.rows && !e.cols && g.rows * g.cols > MAX_GRID_CELLS)
    e.rows = `the grid has ${g.rows * g.cols} cells; at most ${MAX_GRID_CELLS}`;
  if (!['euclidean', 'manhattan', 'chebyshev'].includes(g.metric))
    e.metric = 'metric must be euclidean, manhattan or chebyshev';
  return e;
}

/** eps per unit distance from "privacy level l within radius r". */
export function epsilonFromLevel(level: number, radius: number): number {
  if (!Number.isFinite(level) || level <= 0) throw new Error('privacy level l must be a number > 0');
  if (!Number.isFinite(radius) || radius <= 0) throw new Error('radius r must be a number > 0');
  return level / radius;
}

/** The "l within r" phrasing of eps for a given radius. */
export function levelFromEpsilon(eps: number, radius: number): number {
  return eps * radius;
}

export function validateEpsilon(eps: number): string | null {
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps <= 0) return 'ε must be a finite number > 0';
  return null;
}

/**
 * Paint a brush of radius `radius` cells (weight falling off linearly) at
 * (r, c) into unnormalised weights (row-major rows x cols). `erase` lowers.
 */
export function paintBrush(
  weights: Float64Array,
  rows: number,
  cols: number,
  r: number,
  c: number,
  radius: number,
  strength: number,
  erase = false,
): void {
  const R = Math.max(0, radius);
  for (let dr = -Math.ceil(R); dr <= Math.ceil(R); dr++)
    for (let dc = -Math.ceil(R); dc <= Math.ceil(R); dc++) {
      const rr = r + dr;
      const cc = c + dc;
      if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
      const d = Math.hypot(dr, dc);
      if (d > R + 1e-9) continue;
      const w = strength * (R === 0 ? 1 : 1 - d / (R + 1));
      const i = rr * cols + cc;
      weights[i] = erase ? Math.max(0, weights[i]! - w) : weights[i]! + w;
    }
}

/** Normalise weights into a prior; null when all are zero. */
export function normalise(weights: ArrayLike<number>): number[] | null {
  let s = 0;
  for (let i = 0; i < weights.length; i++) s += weights[i]!;
  if (!(s > 0)) return null;
  return Array.from(weights, (w) => w / s);
}

/**
 * Parse a grid prior from CSV: either `rows` lines of `cols` non-negative
 * numbers (a picture of the grid), or one number per line (row-major).
 * Returns normalised values or the first problem, naming line and column.
 */
export function parseGridPriorCsv(
  text: string,
  rows: number,
  cols: number,
): { ok: true; values: number[] } | { ok: false; error: string } {
  const read = readCsv(text, { delimiters: TABLE_DELIMITERS });
  if (!read.ok) return { ok: false, error: read.problem.message };
  const cells: number[] = [];
  for (const { fields: parts, line } of read.rows) {
    for (let ci = 0; ci < parts.length; ci++) {
      const p = parts[ci]!;
      const v = Number(p);
      if (p === '' || !Number.isFinite(v))
        return { ok: false, error: `line ${line}, column ${ci + 1}: '${p}' is not a number` };
      if (v < 0) return { ok: false, error: `line ${line}, column ${ci + 1}: ${v} is negative` };
      cells.push(v);
    }
  }
  if (cells.length !== rows * cols)
    return { ok: false, error: `expected ${rows * cols} values (${rows} × ${cols}), found ${cells.length}` };
  const values = normalise(cells);
  if (!values) return { ok: false, error: 'all values are zero' };
  return { ok: true, values };
}
