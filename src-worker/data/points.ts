/**
 * Real location data in: see points-grid.ts for the CSV layout,
 * the projection and its error bound, and the binning. This module adds the
 * CSV text parser (the one CSV reader); points-grid.ts holds
 * everything else without loading the parser, so the app's page can bin
 * points too (src-renderer/lib/points-import.ts).
 */
import { invalid } from '../../src-shared/errors';
import { readCsvRows } from '../metric/read-csv';
import { checkLatLon, coordinateColumns, numberField, type PointSet } from '../../src-shared/data/points-grid';

export * from '../../src-shared/data/points-grid';

/** Parse a points CSV (see the module comment). At least one point. */
export function parsePointsCsv(text: string, source = 'points CSV'): PointSet {
  const rows = readCsvRows(text, source);
  if (rows.length === 0)
    invalid(`${source}: the file is empty; it needs a header (x,y or lat,lon) and at least one point`);
  const { units, ia, ib } = coordinateColumns(rows[0]!, source);
  const k = rows.length - 1;
  if (k === 0) invalid(`${source}: no points after the header`);
  const a = new Float64Array(k);
  const b = new Float64Array(k);
  const line = new Int32Array(k);
  const [na, nb] = units === 'km' ? ['x', 'y'] : ['lon', 'lat'];
  for (let i = 0; i < k; i++) {
    const r = rows[i + 1]!;
    a[i] = numberField(r, ia, na, source);
    b[i] = numberField(r, ib, nb, source);
    line[i] = r.line;
    if (units === 'degrees') checkLatLon(b[i]!, a[i]!, r.line, source);
  }
  return { units, a, b, line, source };
}
