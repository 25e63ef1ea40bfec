/**
 * Points CSV -> prior on the domain's grid, in the page: the
 * engine's binning (src-worker/data/points.ts pointsToGrid: cells, box,
 * smoothing, lat/lon projection with its error bound), fed by the shared
 * CSV reader (src-shared/csv: the one reader of the page, the engine and
 * the CLI).
 */
import { readCsv } from '../../src-shared/csv/csv-reader';
import {
  type BoundingBox,
  checkLatLon,
  coordinateColumns,
  numberField,
  type PointGrid,
  type PointSet,
  pointsToGrid,
} from '../../src-shared/data/points-grid';

/**
 * Largest points CSV the page imports (bytes): it reads the file whole and
 * holds every row (a few hundred bytes each) while binning, about 1.5M
 * points here; the command line's `--prior points:FILE` streams any size
 * up to its own limit (src-main/fs/inputs.ts MAX_POINTS_CSV_BYTES).
 */
export const MAX_PAGE_POINTS_BYTES = 32 * 2 ** 20;

/** Why a points file is too large for the page, said before it is read; null when it is not. */
export function pointsFileTooLarge(name: string, bytes: number): string | null {
  if (bytes <= MAX_PAGE_POINTS_BYTES) return null;
  return `${name} is ${(bytes / 2 ** 20).toFixed(0)} MiB; the app imports points files of up to ${MAX_PAGE_POINTS_BYTES / 2 ** 20} MiB (mechstudio --prior points:FILE streams larger ones)`;
}

interface PointsImportOptions {
  cellKm: number;
  /**
   * west,south,east,north: x0,y0,x1,y1 in km for x,y data, lon,lat in degrees for lat,lon data; null = the data's
   * extent.
   */
  box: [number, number, number, number] | null;
  smoothing: number;
}

interface PointsImport {
  grid: PointGrid;
  /** What was made, in words (cells, inside/outside, smoothing, projection). */
  report: string;
}

export function importPoints(text: string, name: string, opts: PointsImportOptions): PointsImport {
  const read = readCsv(text);
  if (!read.ok) throw new Error(`${name}: ${read.problem.message}`);
  const rows = read.rows;
  if (rows.length === 0)
    throw new Error(`${name}: the file is empty; it needs a header (x,y or lat,lon) and at least one point`);
  const { units, ia, ib } = coordinateColumns(rows[0]!, name);
  const k = rows.length - 1;
  if (k === 0) throw new Error(`${name}: no points after the header`);
  const pts: PointSet = {
    units,
    a: new Float64Array(k),
    b: new Float64Array(k),
    line: new Int32Array(k),
    source: name,
  };
  for (let i = 0; i < k; i++) {
    const r = rows[i + 1]!;
    pts.a[i] = numberField(r, ia, units === 'km' ? 'x' : 'lon', name);
    pts.b[i] = numberField(r, ib, units === 'km' ? 'y' : 'lat', name);
    pts.line[i] = r.line;
    if (units === 'degrees') checkLatLon(pts.b[i]!, pts.a[i]!, r.line, name);
  }
  let box: BoundingBox | undefined;
  if (opts.box) {
    const [x0, y0, x1, y1] = opts.box;
    box =
      units === 'km'
        ? { units: 'km', xMin: x0, yMin: y0, xMax: x1, yMax: y1 }
        : { units: 'degrees', west: x0, south: y0, east: x1, north: y1 };
  }
  const grid = pointsToGrid(pts, { cellKm: opts.cellKm, smoothing: opts.smoothing, ...(box ? { box } : {}) });
  const outside =
    grid.outside > 0
      ? `; ${grid.outside} outside the box, not counted (first at line${grid.outsideLines.length > 1 ? 's' : ''} ${grid.outsideLines.join(', ')})`
      : '; none outside the box';
  const smooth =
    grid.smoothing > 0
      ? `smoothing ${grid.smoothing} pseudo-points per cell: no cell has probability 0`
      : 'no smoothing: cells without points have probability 0';
  const proj = grid.projection ? `; ${grid.projection.description}` : '; coordinates x,y in km';
  return {
    grid,
    report: `${k} points onto ${grid.rows} × ${grid.cols} cells of ${grid.cellKm} km: ${grid.inside} inside${outside}; ${smooth}${proj}.`,
  };
}
