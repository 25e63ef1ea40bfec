/**
 * What the Apply view needs besides the engine's release: which points
 * binning a mechanism's secrets may use (a prior of its grid imported from
 * points in this project), and the secrets and released outputs as grid
 * cells for the map of true vs released locations. The cells of points are
 * found with the engine's own binning (src-shared/data/points-grid.ts), so
 * the map shows the cells the release used. Pure: unit-tested.
 */
import { readCsv } from '../../src-shared/csv/csv-reader';
import { cellBinning, coordinateColumns, localProjection } from '../../src-shared/data/points-grid';
import { type PointsBinning, type PriorPointsImport, type ProjectInput } from '../../src-shared/protocol/index';
import type { ProjectMechanismIn } from '../../src-shared/project/item-requests';

/**
 * The points import a mechanism's secrets are binned with: its own prior's
 * when that prior was imported from points, else another prior of its
 * domain imported from points; only one whose grid is the domain's grid.
 */
export function pointsImportFor(
  project: ProjectInput,
  m: ProjectMechanismIn,
  grid: { rows: number; cols: number } | null,
): { prior: string; points: PriorPointsImport } | null {
  if (!grid) return null;
  const fits = (p: { points?: PriorPointsImport | undefined }): boolean =>
    p.points !== undefined && p.points.binning.rows === grid.rows && p.points.binning.cols === grid.cols;
  const priors = (project.priors ?? []).filter((p) => p.domain === m.domain && fits(p));
  const found = priors.find((p) => p.id === m.prior) ?? priors[0];
  return found ? { prior: found.id, points: found.points! } : null;
}

/** The grid cell of a label '(r,c)', or -1. */
export function cellOfLabel(label: string, rows: number, cols: number): number {
  const mm = /^\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(label.trim());
  if (!mm) return -1;
  const r = Number(mm[1]);
  const c = Number(mm[2]);
  return r < rows && c < cols ? r * cols + c : -1;
}

/**
 * The first `max` secrets of a secrets CSV as grid cells (-1 where a row
 * names none): cell labels from the first column, or x,y / lat,lon points
 * binned as the release bins them (the points binning of the prior).
 * `header`: whether line 1 was read as a header (the release says: ApplyResult.header); without one, line 1 is
 * the first secret, and points are two columns in the grid's units (km), as the engine reads a headerless file.
 */
export function secretCells(
  text: string,
  max: number,
  rows: number,
  cols: number,
  points: PointsBinning | null,
  header = true,
): { cells: number[]; mode: 'labels' | 'points' } {
  const read = readCsv(text, { maxRows: max + 1 });
  if (!read.ok || read.rows.length === 0) return { cells: [], mode: 'labels' };
  const first = read.rows[0]!;
  const body = header ? read.rows.slice(1) : read.rows;
  const names = first.fields.map((f) => f.trim().toLowerCase());
  const isPoints = header
    ? (names.includes('x') && names.includes('y')) ||
      (names.some((n) => n === 'lat' || n === 'latitude') &&
        names.some((n) => ['lon', 'lng', 'long', 'longitude'].includes(n)))
    : first.fields.length === 2 && first.fields.every((f) => f.trim() !== '' && Number.isFinite(Number(f)));
  if (!isPoints || !points) {
    const one = oneColumn(first.fields, header);
    return {
      cells: body.slice(0, max).map((r) => cellOfLabel(one ? r.fields.join(',') : (r.fields[0] ?? ''), rows, cols)),
      mode: 'labels',
    };
  }
  const { ia, ib } = header ? coordinateColumns(first, 'secrets') : { ia: 0, ib: 1 };
  const bin = cellBinning(points.xMin, points.yMax, points.rows, points.cols, points.cellKm);
  const p = header ? points.projection : undefined;
  const proj = p ? localProjection(p.lat0, p.lon0, p.latMin, p.latMax) : null;
  const cells = body.slice(0, max).map((r) => {
    const a = Number(r.fields[ia]);
    const b = Number(r.fields[ib]);
    if (!Number.isFinite(a) || !Number.isFinite(b)) return -1;
    const [x, y] = proj ? proj.project(b, a) : [a, b];
    return bin.cellOfKm(x, y);
  });
  return { cells, mode: 'points' };
}

/**
 * One-column files may hold unquoted grid labels, (2,3) read as two fields: a one-field header says so, or, without a
 * header, a first secret that opens with '('.
 */
function oneColumn(first: string[], header: boolean): boolean {
  return first.length === 1 || (!header && /^\s*\(/.test(first[0] ?? ''));
}

/**
 * The first `max` secrets as written (first column; one-column files may hold unquoted grid labels), after line 1 when
 * it is a header.
 */
export function secretLabels(text: string, max: number, header = true): string[] {
  const read = readCsv(text, { maxRows: max + 1 });
  const rows = read.ok ? read.rows : []; // a malformed file: no preview (the engine names the problem when it runs)
  const one = oneColumn(rows[0]?.fields ?? [], header);
  const skip = header ? 1 : 0;
  return rows.slice(skip, max + skip).map((r) => (one ? r.fields.join(',') : (r.fields[0] ?? '')));
}

/** The Apply view's header choice, as the CLI's --header: 'auto' (by content) sends none. */
export type HeaderChoice = 'auto' | 'yes' | 'no';
export const HEADER_CHOICES: { value: HeaderChoice; label: string }[] = [
  { value: 'auto', label: 'by content' },
  { value: 'yes', label: 'yes' },
  { value: 'no', label: 'no' },
];

/** How many of `cells` fall in each of n cells (-1 skipped). */
export function cellCounts(cells: readonly number[], n: number): number[] {
  const c = new Array<number>(n).fill(0);
  for (const k of cells) if (k >= 0 && k < n) c[k]!++;
  return c;
}
