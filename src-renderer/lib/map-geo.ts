/** Geometry of a map view (MapView.svelte): margins for km axes and the legend, nice tick steps, legend values. */

export interface MapGeometry {
  /** Canvas size in px. */
  width: number;
  height: number;
  /** Top-left corner of the cells. */
  left: number;
  top: number;
  /** Side of a cell in px (fractional on large grids). */
  cellPx: number;
}

export const MAP_MARGIN = { left: 46, top: 22, right: 78, bottom: 36 };
/** Right margin of a map drawn without its own legend (maps sharing one legend). */
export const MAP_MARGIN_RIGHT_NO_LEGEND = 12;

/** Cells fit in `size` px on their longer side; at least 1 px a cell. Without `legend`, no room is left for one. */
export function mapGeometry(rows: number, cols: number, size: number, legend = true): MapGeometry {
  const cellPx = Math.max(1, size / Math.max(rows, cols, 1));
  return {
    cellPx,
    left: MAP_MARGIN.left,
    top: MAP_MARGIN.top,
    width: Math.ceil(MAP_MARGIN.left + cols * cellPx + (legend ? MAP_MARGIN.right : MAP_MARGIN_RIGHT_NO_LEGEND)),
    height: Math.ceil(MAP_MARGIN.top + rows * cellPx + MAP_MARGIN.bottom),
  };
}

/** The top of one colour scale shared by several maps: the largest value over all of them (0 when there is none). */
export function sharedScaleMax(maps: readonly ArrayLike<number>[]): number {
  let m = 0;
  for (const v of maps) for (let i = 0; i < v.length; i++) if (v[i]! > m) m = v[i]!;
  return m;
}

/**
 * A 1, 2 or 5 x 10^k step so that `span` has at most `ticks` steps (span / ticks for ticks = 1: the nice length <=
 * span).
 */
export function niceStep(span: number, ticks: number): number {
  if (!(span > 0) || !Number.isFinite(span)) return 1;
  const raw = span / Math.max(1, ticks);
  const e = Math.floor(Math.log10(raw));
  const base = 10 ** e;
  const cands = ticks === 1 ? [5, 2, 1] : [1, 2, 5, 10];
  if (ticks === 1) {
    for (const m of cands) if (m * base <= raw * (1 + 1e-9)) return m * base;
    return base;
  }
  for (const m of cands) if (m * base >= raw * (1 - 1e-9)) return m * base;
  return 10 * base;
}

/**
 * Legend values from 0 to vmax: 0, vmax/16, vmax/4, 9 vmax/16, vmax (evenly spaced on the square-root colour scale).
 */
export function legendTicks(vmax: number): number[] {
  if (!(vmax > 0)) return [0];
  return [0, 0.25, 0.5, 0.75, 1].map((t) => vmax * t * t);
}

/** Levels of the prior's contour lines, as fractions of its peak. */
export const PRIOR_CONTOUR_LEVELS = [0.2, 0.5, 0.8];

/**
 * Marching squares: the cell edges (0 top, 1 right, 2 bottom, 3 left) joined by each case's segments, for the cases
 * 0..7 (corners above the level: 8 top-left, 4 top-right, 2 bottom-right, 1 bottom-left). A case and its complement
 * (15 - case) cut the same edges; only the saddle 10 joins them otherwise than its complement 5.
 */
const LOWER_CASES: number[][][] = [
  [],
  [[3, 2]],
  [[2, 1]],
  [[3, 1]],
  [[0, 1]],
  [
    [3, 0],
    [2, 1],
  ],
  [[0, 2]],
  [[3, 0]],
];
const SADDLE_10: number[][] = [
  [0, 1],
  [3, 2],
];
const CONTOUR_CASES: number[][][] = Array.from({ length: 16 }, (_, k) =>
  k === 10 ? SADDLE_10 : LOWER_CASES[Math.min(k, 15 - k)]!,
);

/**
 * Contour segments of a rows x cols field at `level` by marching squares
 * over cell centres: each segment as [x1, y1, x2, y2] in cell coordinates
 * (x = column, y = row, centres at integers). Saddles draw both segments.
 */
export function contourSegments(rows: number, cols: number, values: ArrayLike<number>, level: number): number[][] {
  const out: number[][] = [];
  const v = (r: number, c: number): number => values[r * cols + c] ?? 0;
  const t = (a: number, b: number): number => (b === a ? 0.5 : Math.min(1, Math.max(0, (level - a) / (b - a))));
  for (let r = 0; r + 1 < rows; r++)
    for (let c = 0; c + 1 < cols; c++) {
      const a = v(r, c);
      const b = v(r, c + 1);
      const cc = v(r + 1, c + 1);
      const d = v(r + 1, c);
      const idx = (a > level ? 8 : 0) | (b > level ? 4 : 0) | (cc > level ? 2 : 0) | (d > level ? 1 : 0);
      const point = (e: number): [number, number] => {
        switch (e) {
          case 0:
            return [c + t(a, b), r];
          case 1:
            return [c + 1, r + t(b, cc)];
          case 2:
            return [c + t(d, cc), r + 1];
          default:
            return [c, r + t(a, d)];
        }
      };
      for (const [e1, e2] of CONTOUR_CASES[idx]!) out.push([...point(e1!), ...point(e2!)]);
    }
  return out;
}
