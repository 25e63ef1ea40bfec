/**
 * GeoJSON (RFC 7946) out of a lat/lon points grid: released points as Point features, and a mechanism's map as
 * one Polygon per cell. Positions are [longitude, latitude] (RFC 7946 section 3.1.1); a cell's ring is closed and
 * counter-clockwise (section 3.1.6): south-west, south-east, north-east, north-west, south-west. The grid's projection
 * is equirectangular (points-grid.ts localProjection), so a cell is an exact lon/lat rectangle.
 */
import { invalid } from '../errors';
import type { PointsBinning } from '../protocol/index';
import { localProjection, type LocalProjection } from './points-grid';

/** The grid's projection, or one clear message when the grid is not lat/lon. */
export function gridProjection(b: PointsBinning, what: string): LocalProjection {
  if (!b.projection) invalid(`${what}: GeoJSON needs a points grid built from lat,lon (this grid is in x,y km)`);
  const p = b.projection;
  return localProjection(p.lat0, p.lon0, p.latMin, p.latMax);
}

/** A GeoJSON position [lon, lat] with at most 7 decimals (about 1 cm; RFC 7946 section 11.2). */
export function position(lat: number, lon: number): [number, number] {
  return [Math.round(lon * 1e7) / 1e7, Math.round(lat * 1e7) / 1e7];
}

/** The closed counter-clockwise ring of cell `cell` (row-major from the north-west corner) in [lon, lat]. */
export function cellRing(b: PointsBinning, proj: LocalProjection, cell: number): [number, number][] {
  const r = Math.floor(cell / b.cols);
  const c = cell - r * b.cols;
  const x0 = b.xMin + c * b.cellKm;
  const x1 = x0 + b.cellKm;
  const yTop = b.yMax - r * b.cellKm;
  const yBottom = yTop - b.cellKm;
  const at = (x: number, y: number): [number, number] => {
    const [lat, lon] = proj.unproject(x, y);
    return position(lat, lon);
  };
  const sw = at(x0, yBottom);
  return [sw, at(x1, yBottom), at(x1, yTop), at(x0, yTop), sw];
}

/** One Point feature of a released row (its output label and the released cell's centre). */
export function releasedPointFeature(label: string, lat: number, lon: number, row: number): string {
  return JSON.stringify({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: position(lat, lon) },
    properties: { row, released: label },
  });
}

export const FEATURE_COLLECTION_OPEN = '{"type":"FeatureCollection","features":[\n';
export const FEATURE_COLLECTION_CLOSE = '\n]}\n';

/**
 * A map of a grid as a FeatureCollection: one Polygon per cell with its row, column, label (r,c as the domain
 * names it) and `value` (named by `valueName` in the collection's properties), null values kept as null.
 */
export function cellsGeoJson(
  b: PointsBinning,
  values: readonly (number | null)[],
  valueName: string,
  what: string,
): string {
  const proj = gridProjection(b, what);
  const n = b.rows * b.cols;
  if (values.length !== n) invalid(`${what}: ${values.length} values for a grid of ${n} cells`);
  const features: string[] = [];
  for (let cell = 0; cell < n; cell++) {
    const row = Math.floor(cell / b.cols);
    const col = cell - row * b.cols;
    const v = values[cell]!;
    features.push(
      JSON.stringify({
        type: 'Feature',
        geometry: { type: 'Polygon', coordinates: [cellRing(b, proj, cell)] },
        properties: { cell, row, col, value: v !== null && Number.isFinite(v) ? v : null },
      }),
    );
  }
  return `{"type":"FeatureCollection","name":${JSON.stringify(valueName)},"features":[\n${features.join(',\n')}\n]}\n`;
}

/** The name of a mechanism map's values: where a user at `cell` is reported (its row of the channel). */
export function rowMapName(mechanism: string, cellLabel: string): string {
  return `${mechanism}: P(reported in this cell | true cell ${cellLabel})`;
}
