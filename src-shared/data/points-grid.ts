import { MechError, invalid } from '../errors';
// Type only: this module must not load the Node CSV parser (the app's page imports it).
import type { CsvRow } from '../csv/csv-reader';
import { decimalProblem } from '../numeric/decimal';

/**
 * Real location data in (docs/data.md, "Points onto a grid"): a CSV of points onto a grid, and a prior
 * from the point counts.
 *
 * CSV: a header row names the coordinate columns, either `x,y` (kilometres,
 * any origin) or `lat,lon` (degrees; also `latitude`, `longitude`, `lng`,
 * `long`; case-insensitive). Other columns are ignored. Each value is a
 * strict decimal number (numeric/decimal.ts: no hex, no Infinity, no empty
 * field); a bad value is a MechError naming the line and the column.
 *
 * Projection of lat/lon (degrees) to kilometres: local equirectangular on a
 * sphere of radius EARTH_RADIUS_KM (the IUGG mean radius) around a centre
 * (phi0, lambda0) — the centre of the bounding box when one is given in
 * degrees, else the middle of the data's latitude and longitude ranges:
 *
 *   x = R (lambda - lambda0) cos(phi0)   (km east),   y = R (phi - phi0)   (km north).
 *
 * Error, stated and bounded: meridians and parallels map to perpendicular
 * lines, with scale 1 along meridians and cos(phi0) / cos(phi) along the
 * parallel at latitude phi, so the scale in every direction at a point lies
 * between these two. Hence for any two points with latitudes in
 * [phiMin, phiMax] (the projected region is a rectangle, so the straight
 * segment between them maps back inside it), the projected distance is
 * within a factor [1 - e, 1 + e] of the great-circle distance on the sphere,
 *
 *   e = max over phi in [phiMin, phiMax] of |cos(phi0) / cos(phi) - 1|,
 *
 * which `projection.maxRelativeError` reports (about tan|phi0| dphi for a
 * half-height dphi in radians: 0.2% for a 20 km city at 50 deg latitude).
 * The sphere itself differs from the WGS84 ellipsoid's geodesic distances by
 * up to about 0.5%; distances here are on the sphere. Longitudes must not
 * straddle the antimeridian (a span over 180 degrees is refused).
 */

export const EARTH_RADIUS_KM = 6371.0088;

/** Grids from points hold at most this many cells (2000 x 2000). */
const MAX_POINT_GRID_CELLS = 4_000_000;

export type PointUnits = 'km' | 'degrees';

export interface PointSet {
  units: PointUnits;
  /** x (km) or longitude (deg), per point. */
  a: Float64Array;
  /** y (km) or latitude (deg), per point. */
  b: Float64Array;
  /** 1-based CSV line of each point (for messages). */
  line: Int32Array;
  source: string;
}

const LAT = new Set(['lat', 'latitude']);
const LON = new Set(['lon', 'lng', 'long', 'longitude']);

/** Which columns hold the coordinates, from a header row. */
export function coordinateColumns(header: CsvRow, source: string): { units: PointUnits; ia: number; ib: number } {
  const names = header.fields.map((f) => f.trim().toLowerCase());
  const find = (pred: (s: string) => boolean, what: string): number => {
    const idx = names.flatMap((s, i) => (pred(s) ? [i] : []));
    if (idx.length > 1)
      invalid(`${source}, line ${header.line}: the header names the ${what} column ${idx.length} times`);
    return idx.length === 1 ? idx[0]! : -1;
  };
  const ix = find((s) => s === 'x', 'x');
  const iy = find((s) => s === 'y', 'y');
  const ilat = find((s) => LAT.has(s), 'latitude');
  const ilon = find((s) => LON.has(s), 'longitude');
  const xy = ix >= 0 && iy >= 0;
  const ll = ilat >= 0 && ilon >= 0;
  if (xy && ll) invalid(`${source}, line ${header.line}: the header names both x,y and lat,lon columns; keep one pair`);
  if (xy) return { units: 'km', ia: ix, ib: iy };
  if (ll) return { units: 'degrees', ia: ilon, ib: ilat };
  invalid(`${source}, line ${header.line}: the header must name the coordinate columns: x,y (km) or lat,lon (degrees)`);
}

/** A strict decimal field, or a MechError naming the line and column. */
export function numberField(row: CsvRow, col: number, name: string, source: string): number {
  const text = row.fields[col];
  if (text === undefined)
    invalid(`${source}, line ${row.line}: missing the ${name} column (the row has ${row.fields.length} fields)`);
  const problem = decimalProblem(text);
  if (problem !== undefined)
    invalid(`${source}, line ${row.line}, column ${name}: the value ${problem}`, { line: row.line });
  return Number(text);
}

/** Check a latitude/longitude pair's range. */
export function checkLatLon(lat: number, lon: number, line: number, source: string): void {
  if (lat < -90 || lat > 90) invalid(`${source}, line ${line}: latitude ${lat} is outside [-90, 90]`, { line });
  if (lon < -180 || lon > 180) invalid(`${source}, line ${line}: longitude ${lon} is outside [-180, 180]`, { line });
}

/** Great-circle distance (km) on the sphere of radius EARTH_RADIUS_KM, by the haversine formula. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const dphi = (lat2 - lat1) * r;
  const dl = (lon2 - lon1) * r;
  const h = Math.sin(dphi / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(dl / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

export interface LocalProjection {
  kind: 'equirectangular';
  lat0: number;
  lon0: number;
  radiusKm: number;
  /** Latitude range the error bound covers. */
  latMin: number;
  latMax: number;
  /** Bound e on |projected / great-circle - 1| for any two points with latitudes in [latMin, latMax]. */
  maxRelativeError: number;
  /** Project (lat, lon) in degrees to (x east, y north) in km. */
  project(lat: number, lon: number): [number, number];
  /** The inverse: (x, y) in km to (lat, lon) in degrees. */
  unproject(x: number, y: number): [number, number];
  description: string;
}

/**
 * Local equirectangular projection centred at (lat0, lon0), with its error
 * bound for points whose latitudes lie in [latMin, latMax] (see the module
 * comment). The range must not reach a pole.
 */
export function localProjection(lat0: number, lon0: number, latMin: number, latMax: number): LocalProjection {
  if (!(latMin <= lat0 && lat0 <= latMax))
    throw new MechError('internal', `projection centre latitude ${lat0} outside [${latMin}, ${latMax}]`);
  if (Math.max(Math.abs(latMin), Math.abs(latMax)) >= 89.9)
    invalid(
      `latitudes reach ${Math.max(Math.abs(latMin), Math.abs(latMax))} degrees: a local projection cannot be used this close to a pole`,
    );
  const r = Math.PI / 180;
  const c0 = Math.cos(lat0 * r);
  // cos(phi) is monotone on each side of 0: its extremes over [latMin, latMax] are at the ends or at 0.
  const cands = [latMin, latMax];
  if (latMin < 0 && latMax > 0) cands.push(0);
  let e = 0;
  for (const phi of cands) e = Math.max(e, Math.abs(c0 / Math.cos(phi * r) - 1));
  return {
    kind: 'equirectangular',
    lat0,
    lon0,
    radiusKm: EARTH_RADIUS_KM,
    latMin,
    latMax,
    maxRelativeError: e,
    project: (lat, lon) => [EARTH_RADIUS_KM * (lon - lon0) * r * c0, EARTH_RADIUS_KM * (lat - lat0) * r],
    unproject: (x, y) => [lat0 + y / (EARTH_RADIUS_KM * r), lon0 + x / (EARTH_RADIUS_KM * r * c0)],
    description: `local equirectangular around (${lat0.toFixed(6)}, ${lon0.toFixed(6)}) on a sphere of radius ${EARTH_RADIUS_KM} km: distances within ${(100 * e).toPrecision(2)}% of great-circle distances for latitudes in [${latMin}, ${latMax}]`,
  };
}

/** A bounding box in km (x east, y north), or in degrees for lat/lon data. */
export type BoundingBox =
  | { units: 'km'; xMin: number; xMax: number; yMin: number; yMax: number }
  | { units: 'degrees'; south: number; north: number; west: number; east: number };

export interface PointGridOptions {
  /** Cell side in km (> 0). */
  cellKm: number;
  /** The grid's box; default: the data's extent. Must use the data's units. */
  box?: BoundingBox;
  /**
   * Additive smoothing: alpha pseudo-points per cell (>= 0, default 0), so no cell has probability 0 when alpha > 0.
   */
  smoothing?: number;
  /** How many outside points to list by line (default 10). */
  listOutside?: number;
}

export interface PointGrid {
  rows: number;
  cols: number;
  cellKm: number;
  /**
   * The grid's extent in km: cell (r, c) covers x in [xMin + c s, xMin + (c+1) s], y in [yMax - (r+1) s, yMax - r s]
   * (row 0 = north/top, column 0 = west/left).
   */
  xMin: number;
  yMax: number;
  /** Domain text for the grid (Euclidean, cell size in km). */
  domainSpec: string;
  /** Points per cell, index r * cols + c. */
  counts: Float64Array;
  /** (count + alpha) / (inside + alpha * cells). */
  prior: Float64Array;
  smoothing: number;
  inside: number;
  outside: number;
  /** CSV lines of the first few points outside the box. */
  outsideLines: number[];
  projection: LocalProjection | null;
  /**
   * Cell of each point (-1 outside), in input order; empty when the points were binned as they streamed in (not kept).
   */
  cellOf: Int32Array;
}

/** Maps a point in km to its cell (or -1 outside the grid's closed box). */
export interface CellBinning {
  rows: number;
  cols: number;
  cellKm: number;
  xMin: number;
  yMax: number;
  cellOfKm(x: number, y: number): number;
}

export function cellBinning(xMin: number, yMax: number, rows: number, cols: number, cellKm: number): CellBinning {
  const xMax = xMin + cols * cellKm;
  const yMin = yMax - rows * cellKm;
  return {
    rows,
    cols,
    cellKm,
    xMin,
    yMax,
    cellOfKm(x, y) {
      if (!(x >= xMin && x <= xMax && y >= yMin && y <= yMax)) return -1;
      // Half-open cells [k s, (k+1) s), the far edges closed into the last cell.
      const c = Math.min(cols - 1, Math.floor((x - xMin) / cellKm));
      const r = Math.min(rows - 1, Math.floor((yMax - y) / cellKm));
      return r * cols + c;
    },
  };
}

function finitePositive(v: number, what: string): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    invalid(`${what} must be a finite number > 0, got ${String(v)}`);
}

/** The coordinates' ranges: a (x or longitude) and b (y or latitude). */
interface PointExtent {
  aMin: number;
  aMax: number;
  bMin: number;
  bMax: number;
}

/** An empty extent, to be widened point by point (extendExtent). */
export function emptyExtent(): PointExtent {
  return { aMin: Infinity, aMax: -Infinity, bMin: Infinity, bMax: -Infinity };
}

export function extendExtent(e: PointExtent, a: number, b: number): void {
  if (a < e.aMin) e.aMin = a;
  if (a > e.aMax) e.aMax = a;
  if (b < e.bMin) e.bMin = b;
  if (b > e.bMax) e.bMax = b;
}

/**
 * Where the points go: the grid's size and box in km, the projection (lat,lon data), and the cell of a point in the
 * data's units.
 */
interface PointGridPlan {
  units: PointUnits;
  rows: number;
  cols: number;
  cellKm: number;
  smoothing: number;
  xMin: number;
  yMax: number;
  projection: LocalProjection | null;
  /** Cell of a point given in the data's units (x,y km or lon,lat degrees), -1 outside the box. */
  cellOf(a: number, b: number): number;
}

/**
 * The grid for points of `units`: over the box of `opts`, or over the data's
 * extent when no box is given (`extent` is then required: the points'
 * ranges). Checks the options and refuses a grid of more than
 * MAX_POINT_GRID_CELLS cells, before any point is binned.
 */
export function planPointGrid(
  units: PointUnits,
  source: string,
  opts: PointGridOptions,
  extent?: PointExtent,
): PointGridPlan {
  finitePositive(opts.cellKm, 'cell size (km)');
  const alpha = opts.smoothing ?? 0;
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha < 0)
    invalid(`smoothing must be a finite number >= 0, got ${String(alpha)}`);
  if (!opts.box && !extent) throw new MechError('internal', 'a points grid without a box needs the data extent');
  let projection: LocalProjection | null = null;
  let box: KmBox;
  if (units === 'degrees') ({ box, projection } = degreesBox(source, opts, extent));
  else box = kmBox(source, opts, extent);
  const s = opts.cellKm;
  const cols = Math.max(1, Math.ceil((box.xMax - box.xMin) / s));
  const rows = Math.max(1, Math.ceil((box.yMax - box.yMin) / s));
  if (!Number.isFinite(rows * cols) || rows * cols > MAX_POINT_GRID_CELLS) {
    throw new MechError(
      'too-large',
      `a ${rows} x ${cols} grid (cell ${s} km) has more than ${MAX_POINT_GRID_CELLS} cells; use a larger cell size or a smaller box`,
    );
  }
  const bin = cellBinning(box.xMin, box.yMax, rows, cols, s);
  const p = projection;
  return {
    units,
    rows,
    cols,
    cellKm: s,
    smoothing: alpha,
    xMin: box.xMin,
    yMax: box.yMax,
    projection,
    cellOf: p
      ? (a, b) => {
          const [x, y] = p.project(b, a);
          return bin.cellOfKm(x, y);
        }
      : (a, b) => bin.cellOfKm(a, b),
  };
}

/**
 * Counts points into a plan's cells as they arrive (memory: one double per
 * cell, whatever the number of points), then makes the prior.
 */
export class PointBinner {
  readonly counts: Float64Array;
  private inside = 0;
  private total = 0;
  private readonly outsideLines: number[] = [];
  constructor(
    readonly plan: PointGridPlan,
    private readonly listMax = 10,
  ) {
    this.counts = new Float64Array(plan.rows * plan.cols);
  }

  /** Count one point (data units; `line` its CSV line); its cell, or -1 outside. */
  add(a: number, b: number, line: number): number {
    const cell = this.plan.cellOf(a, b);
    this.total++;
    if (cell < 0) {
      if (this.outsideLines.length < this.listMax) this.outsideLines.push(line);
    } else {
      this.counts[cell]!++;
      this.inside++;
    }
    return cell;
  }

  /** The grid and its prior (see pointsToGrid); `cellOf` is the caller's (empty when points were not kept). */
  finish(source: string, cellOf = new Int32Array(0)): PointGrid {
    const { rows, cols, cellKm: s, smoothing: alpha } = this.plan;
    const n = rows * cols;
    const k = this.total;
    if (k === 0) invalid(`${source}: no points`);
    const outside = k - this.inside;
    const total = this.inside + alpha * n;
    // (count + a) / total with an infinite total would be 0 in every cell: say which number is too large
    if (total === Infinity) {
      invalid(
        `smoothing ${alpha} is too large: ${n} cells x ${alpha} pseudo-points overflow a double (every cell would get probability 0); use a smoothing of at most ${(Number.MAX_VALUE / (2 * n)).toExponential(2)}`,
      );
    }
    if (!(total > 0))
      invalid(
        `${source}: none of the ${k} points lies inside the box and there is no smoothing, so there is no prior (first outside: line ${this.outsideLines[0]})`,
      );
    const prior = new Float64Array(n);
    for (let c = 0; c < n; c++) prior[c] = (this.counts[c]! + alpha) / total;
    return {
      rows,
      cols,
      cellKm: s,
      xMin: this.plan.xMin,
      yMax: this.plan.yMax,
      domainSpec: `grid:${rows}x${cols}${s !== 1 ? `:step=${s}` : ''}`,
      counts: this.counts,
      prior,
      smoothing: alpha,
      inside: this.inside,
      outside,
      outsideLines: this.outsideLines,
      projection: this.plan.projection,
      cellOf,
    };
  }
}

/**
 * Bin points onto a grid (see PointGrid for the layout) and make the prior
 * from the counts. The grid covers the box with ceil(width / cell) columns
 * and ceil(height / cell) rows, anchored at the box's west and north edges
 * (so its east and south edges may extend past the box by less than a cell;
 * points there are inside). Points outside are counted, and the first few
 * listed by CSV line. No point inside and no smoothing is an error (the
 * prior would be 0/0).
 */
export function pointsToGrid(points: PointSet, opts: PointGridOptions): PointGrid {
  const k = points.a.length;
  if (k === 0) invalid(`${points.source}: no points`);
  let extent: PointExtent | undefined;
  if (!opts.box) {
    extent = emptyExtent();
    for (let i = 0; i < k; i++) extendExtent(extent, points.a[i]!, points.b[i]!);
  }
  const plan = planPointGrid(points.units, points.source, opts, extent);
  const binner = new PointBinner(plan, opts.listOutside ?? 10);
  const cellOf = new Int32Array(k);
  for (let i = 0; i < k; i++) cellOf[i] = binner.add(points.a[i]!, points.b[i]!, points.line[i]!);
  return binner.finish(points.source, cellOf);
}

type KmBox = { xMin: number; xMax: number; yMin: number; yMax: number };

/** lat,lon points: the box in km around the box's centre (the data's extent without a box) and the projection. */
function degreesBox(
  source: string,
  opts: PointGridOptions,
  extent: PointExtent | undefined,
): { box: KmBox; projection: LocalProjection } {
  if (opts.box && opts.box.units !== 'degrees')
    invalid(`${source} has lat,lon points: give the bounding box in degrees (south, north, west, east)`);
  let south: number, north: number, west: number, east: number;
  if (opts.box && opts.box.units === 'degrees') {
    ({ south, north, west, east } = opts.box);
    for (const [v, w] of [
      [south, 'south'],
      [north, 'north'],
      [west, 'west'],
      [east, 'east'],
    ] as const)
      if (!Number.isFinite(v)) invalid(`bounding box ${w} is ${String(v)}, not a finite number`);
    checkLatLon(south, west, 0, 'bounding box');
    checkLatLon(north, east, 0, 'bounding box');
    if (!(south < north)) invalid(`bounding box: south (${south}) must be below north (${north})`);
    if (!(west < east))
      invalid(
        `bounding box: west (${west}) must be left of east (${east}); boxes across the antimeridian are not supported`,
      );
  } else {
    ({ bMin: south, bMax: north, aMin: west, aMax: east } = extent!);
  }
  if (east - west > 180)
    invalid(
      `${source}: longitudes span ${east - west} degrees; a local projection needs less than 180 (data across the antimeridian is not supported)`,
    );
  const lat0 = (south + north) / 2;
  const lon0 = (west + east) / 2;
  // The error bound must cover every point used: the box, widened to the data when no box was given (it is the data's
  // extent then).
  const projection = localProjection(lat0, lon0, south, north);
  const [x0, y0] = projection.project(south, west);
  const [x1, y1] = projection.project(north, east);
  return { box: { xMin: x0, xMax: x1, yMin: y0, yMax: y1 }, projection };
}

/** x,y points in km: the box as given, or the data's extent. */
function kmBox(source: string, opts: PointGridOptions, extent: PointExtent | undefined): KmBox {
  if (opts.box && opts.box.units !== 'km')
    invalid(`${source} has x,y points in km: give the bounding box in km (xMin, xMax, yMin, yMax)`);
  if (opts.box && opts.box.units === 'km') {
    const { xMin, xMax, yMin, yMax } = opts.box;
    for (const [v, w] of [
      [xMin, 'xMin'],
      [xMax, 'xMax'],
      [yMin, 'yMin'],
      [yMax, 'yMax'],
    ] as const)
      if (!Number.isFinite(v)) invalid(`bounding box ${w} is ${String(v)}, not a finite number`);
    if (!(xMin < xMax) || !(yMin < yMax))
      invalid(`bounding box must have xMin < xMax and yMin < yMax, got x [${xMin}, ${xMax}], y [${yMin}, ${yMax}]`);
    return { xMin, xMax, yMin, yMax };
  }
  const e = extent!;
  return { xMin: e.aMin, xMax: e.aMax, yMin: e.bMin, yMax: e.bMax };
}
