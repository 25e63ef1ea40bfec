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

/** Cells fit in `size` px on their longer side; at least 1 px a cell. */
export function mapGeometry(rows: number, cols: number, size: number): MapGeometry {
  const cellPx = Math.max(1, size / Math.max(rows, cols, 1));
  return {
    cellPx,
    left: MAP_MARGIN.left,
    top: MAP_MARGIN.top,
    width: Math.ceil(MAP_MARGIN.left + cols * cellPx + MAP_MARGIN.right),
    height: Math.ceil(MAP_MARGIN.top + rows * cellPx + MAP_MARGIN.bottom),
  };
}

/** A 1, 2 or 5 x 10^k step so that `span` has at most `ticks` steps (span / ticks for ticks = 1: the nice length <= span). */
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

/** Legend values from 0 to vmax: 0, vmax/16, vmax/4, 9 vmax/16, vmax (evenly spaced on the square-root colour scale). */
export function legendTicks(vmax: number): number[] {
  if (!(vmax > 0)) return [0];
  return [0, 0.25, 0.5, 0.75, 1].map((t) => vmax * t * t);
}
