/** `points:FILE` priors: a CSV of location points streamed onto the domain's grid (memory: one double per cell). */
import { statSync } from 'node:fs';
import { invalid } from '../../src-shared/errors';
import { type PriorInput, type PointsBinning } from '../../src-shared/protocol/index';
import { type CsvRow } from '../../src-worker/index';
import {
  type BoundingBox,
  checkLatLon,
  coordinateColumns,
  emptyExtent,
  extendExtent,
  numberField,
  PointBinner,
  type PointGrid,
  type PointGridOptions,
  type PointUnits,
  planPointGrid,
} from '../../src-shared/data/points-grid';
import { absolute, parseDecimal, shortLabel, tokenizeFileSync } from './csv-cells';

/**
 * Largest points CSV (bytes). The file is streamed (memory: one double per
 * grid cell, whatever the number of points), read twice when no box is
 * given (the data's extent, then the binning): about 0.8 s per 10^6 points
 * and pass on one core, so the largest file (some 2.5e7 points of 20 bytes)
 * finishes in under a minute. A larger file is refused before anything is
 * read.
 */
const MAX_POINTS_CSV_BYTES = 512 * 1024 * 1024;
/** Longest line of a points CSV (characters): a few coordinates and labels, never a whole file on one line. */
const MAX_POINTS_LINE_CHARS = 64 * 1024;

/** Progress of reading a points file: the fraction done and what is being done. */
type ReadProgress = (fraction: number, message: string) => void;

/** A prior made from a points CSV, with the grid it lives on and what to tell the user. */
export interface PointsPrior {
  prior: PriorInput;
  /** Domain text of the grid (grid:RxC[:step=S]). */
  domain: string;
  /** The binning, so that point secrets (apply) map to the same cells. */
  binning: PointsBinning;
  grid: PointGrid;
  file: string;
  /** One line saying what was made (grid, cell, smoothing, projection). */
  summary: string;
  /** The warning line about points outside the box, or null when there are none. */
  outsideWarning: string | null;
}

/**
 * `points:FILE.csv[:opt=V]...` split into the file as written and its options (read from the end: FILE may hold ':').
 */
export function splitPointsPrior(text: string): { fileText: string; options: string[] } {
  const t = text.trim();
  if (!t.startsWith('points:')) invalid(`not a points prior: '${shortLabel(t)}'`);
  const parts = t.slice(7).split(':');
  const options: string[] = [];
  while (parts.length > 1 && /^(cell|box|smooth)=/.test(parts[parts.length - 1]!)) options.push(parts.pop()!);
  return { fileText: parts.join(':'), options };
}

/**
 * `points:FILE.csv[:cell=KM][:box=x0,y0,x1,y1][:smooth=A]`: the CSV's points
 * (header x,y in km, or lat,lon in degrees) binned onto a grid of cell KM
 * (default 1) over the box (default: the data's extent); the prior is
 * (count + A) / (inside + A * cells), A = 0 by default. The box is
 * west,south,east,north: x0,y0,x1,y1 in km for x,y data, lon0,lat0,lon1,lat1
 * in degrees for lat,lon data. Options are read from the end, so FILE may
 * itself contain ':'.
 */
export function parsePointsPriorArg(text: string, baseDir = process.cwd(), onProgress?: ReadProgress): PointsPrior {
  const { fileText, options } = splitPointsPrior(text);
  let cell = 1;
  let smooth = 0;
  let box: number[] | null = null;
  const seen = new Set<string>();
  for (const opt of options) {
    const eq = opt.indexOf('=');
    const name = opt.slice(0, eq);
    const value = opt.slice(eq + 1);
    if (seen.has(name)) invalid(`points prior: option ${name}= given twice`);
    seen.add(name);
    if (name === 'box') {
      const v = value.split(',').map((s) => parseDecimal(s));
      if (v.length !== 4 || v.some((x) => x === null))
        invalid(
          `points prior: box= needs four numbers x0,y0,x1,y1 (west,south,east,north), got '${shortLabel(value)}'`,
        );
      box = v as number[];
    } else {
      const v = parseDecimal(value);
      if (v === null) invalid(`points prior: ${name}= must be a decimal number, got '${shortLabel(value)}'`);
      if (name === 'cell') {
        if (!(v > 0)) invalid(`points prior: cell= (cell side in km) must be > 0, got ${v}`);
        cell = v;
      } else {
        if (!(v >= 0)) invalid(`points prior: smooth= (pseudo-points per cell) must be >= 0, got ${v}`);
        smooth = v;
      }
    }
  }
  if (fileText === '') invalid('points prior needs a file: points:FILE.csv[:cell=KM][:box=x0,y0,x1,y1][:smooth=A]');
  const file = absolute(fileText, baseDir);
  const gridOpts = (units: PointUnits): PointGridOptions => {
    if (!box) return { cellKm: cell, smoothing: smooth };
    const [x0, y0, x1, y1] = box as [number, number, number, number];
    const bbox: BoundingBox =
      units === 'km'
        ? { units: 'km', xMin: x0, yMin: y0, xMax: x1, yMax: y1 }
        : { units: 'degrees', west: x0, south: y0, east: x1, north: y1 };
    return { cellKm: cell, smoothing: smooth, box: bbox };
  };
  const grid = binPointsFile(file, gridOpts, box !== null, onProgress);
  const p = grid.projection;
  const binning: PointsBinning = {
    rows: grid.rows,
    cols: grid.cols,
    cellKm: grid.cellKm,
    xMin: grid.xMin,
    yMax: grid.yMax,
    projection: p ? { lat0: p.lat0, lon0: p.lon0, latMin: p.latMin, latMax: p.latMax } : null,
  };
  const total = grid.inside + grid.outside;
  const summary =
    `prior from ${total} points in ${file}: grid ${grid.rows} x ${grid.cols} of ${grid.cellKm} km cells (${grid.domainSpec}), ${grid.inside} points inside, ` +
    (smooth > 0
      ? `smoothing ${smooth} pseudo-point${smooth === 1 ? '' : 's'} per cell (no cell has probability 0)`
      : 'no smoothing (cells without points have probability 0; add :smooth=A)') +
    (p ? `; projection: ${p.description}` : '; coordinates x,y in km');
  const outsideWarning =
    grid.outside > 0
      ? `${grid.outside} of ${total} points lie outside the box and are not in the prior (first at line${grid.outsideLines.length > 1 ? 's' : ''} ${grid.outsideLines.join(', ')})`
      : null;
  return {
    prior: { kind: 'vector', values: Array.from(grid.prior) },
    domain: grid.domainSpec,
    binning,
    grid,
    file,
    summary,
    outsideWarning,
  };
}

/**
 * Stream a points CSV (header by content: x,y or lat,lon, see points-grid.ts)
 * point by point: `onHeader` gets the units before the first point, `onPoint`
 * every point (data units, checked) with its line. Returns the number of points.
 */
function streamPointsFile(
  file: string,
  onHeader: (units: PointUnits) => void,
  onPoint: (a: number, b: number, line: number) => void,
  onBytes: (n: number) => void,
): number {
  const source = `points CSV ${file}`;
  let columns: { units: PointUnits; ia: number; ib: number } | null = null;
  let names: [string, string] = ['x', 'y'];
  const row: CsvRow = { fields: [], line: 0 };
  let count = 0;
  const onRecord = (fields: string[], line: number): void => {
    row.fields = fields;
    row.line = line;
    if (!columns) {
      columns = coordinateColumns(row, source);
      if (columns.units === 'degrees') names = ['lon', 'lat'];
      onHeader(columns.units);
      return;
    }
    const a = numberField(row, columns.ia, names[0], source);
    const b = numberField(row, columns.ib, names[1], source);
    if (columns.units === 'degrees') checkLatLon(b, a, line, source);
    count++;
    onPoint(a, b, line);
  };
  tokenizeFileSync(file, 'points CSV', MAX_POINTS_CSV_BYTES, onRecord, {
    maxChars: MAX_POINTS_LINE_CHARS,
    kind: 'a points CSV',
    onBytes,
  });
  if (!columns) invalid(`${source}: the file is empty; it needs a header (x,y or lat,lon) and at least one point`);
  if (count === 0) invalid(`${source}: no points after the header`);
  return count;
}

/**
 * Bin a points CSV onto its grid while streaming it: with a box, in one pass
 * (the grid is sized, and refused when too large, as soon as the header is
 * read); without one, a first pass finds the data's extent and a second bins.
 * Memory is the grid's counts, independent of the number of points.
 */
function binPointsFile(
  file: string,
  gridOpts: (units: PointUnits) => PointGridOptions,
  boxed: boolean,
  onProgress?: ReadProgress,
): PointGrid {
  const source = `points CSV ${file}`;
  let size = 1;
  try {
    size = Math.max(1, statSync(file).size);
  } catch {
    // the reader names what is wrong with the file
  }
  const passes = boxed ? 1 : 2;
  let pass = 0;
  let read = 0;
  const onBytes = (n: number): void => {
    read += n;
    const what = boxed || pass === 1 ? 'binning points' : 'reading points (their extent)';
    onProgress?.(
      Math.min(1, (pass + read / size) / passes),
      `${what}: ${(read / 2 ** 20).toFixed(0)} of ${(size / 2 ** 20).toFixed(0)} MiB of ${file}`,
    );
  };
  let units: PointUnits = 'km';
  let binner: PointBinner | null = null;
  const startBinning = (u: PointUnits, extent?: ReturnType<typeof emptyExtent>): void => {
    units = u;
    binner = new PointBinner(planPointGrid(u, source, gridOpts(u), extent));
  };
  const add = (a: number, b: number, line: number): void => void binner!.add(a, b, line);
  if (boxed) {
    streamPointsFile(file, (u) => startBinning(u), add, onBytes);
  } else {
    const extent = emptyExtent();
    const count = streamPointsFile(
      file,
      (u) => (units = u),
      (a, b) => extendExtent(extent, a, b),
      onBytes,
    );
    pass = 1;
    read = 0;
    startBinning(units, extent);
    const again = streamPointsFile(file, () => undefined, add, onBytes);
    if (again !== count) invalid(`${source} changed while it was read (${count} points, then ${again}); try again`);
  }
  return binner!.finish(source);
}
