/**
 * A mechanism's map exported as GeoJSON from the app, in Chromium (web mode): a 6 x 6 grid of 0.5 km cells whose
 * prior is imported from lat,lon points; Export GeoJSON downloads the map On the grid (where a user at the clicked
 * cell is reported), valid against RFC 7946 (zod schema of its rules), one counter-clockwise polygon per cell, its
 * values (the clicked cell's row of the channel) summing to 1. Screenshot: test-output/screenshots/geojson-map.png.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  useHarness,
  screenshot,
  openApp,
  writeProject,
  openProjectFile,
  importPoints,
  computeMechanism,
  downloadTo,
  squareAround,
} from './helpers';
import { featureCollectionSchema } from '../unit/support/geojson-schema';
import { projectFileV1 } from '../unit/support/project-fixture';

const N = 6;
// a 2.9 km square around (48.85, 2.35): 6 x 6 cells of 0.5 km (the last row and column reach past it)
const SQUARE = squareAround(48.85, 2.35, 1.45);

let file: string;
let pointsCsv: string;
const h = useHarness({
  setup: async (started) => {
    file = writeProject(
      started,
      'map.mechstudio.json',
      projectFileV1('geo-map', {
        domains: [{ id: 'town', domain: `grid:${N}x${N}:step=0.5` }],
        priors: [{ id: 'homes', domain: 'town', prior: 'uniform' }],
        mechanisms: [{ id: 'pl', domain: 'town', kind: 'planar-laplace', epsilon: 2, prior: 'homes' }],
      }),
    );
    const rows: string[] = [];
    for (let i = 0; i < 100; i++) rows.push(SQUARE.at(((i % 10) + 0.5) * 0.1, (Math.floor(i / 10) + 0.5) * 0.1));
    pointsCsv = join(started.tmp, 'homes.csv');
    writeFileSync(pointsCsv, `lat,lon\n${rows.join('\n')}\n`);
    await openApp(started);
  },
  timeout: 120_000,
});

describe("a mechanism's map as GeoJSON", () => {
  it('downloads the map On the grid as valid RFC 7946 GeoJSON with the clicked cell its row of the channel', async () => {
    const page = h.page;
    await openProjectFile(page, file, 'geo-map');
    await importPoints(page, 'homes', SQUARE.box, pointsCsv, 'Imported from homes.csv (100 points inside)');
    await computeMechanism(page, 'pl');
    await page.getByTestId('tab-grid').click({ timeout: 60_000 });
    await page.getByTestId('grid-distribution').waitFor();
    const path = join(h.tmp, 'pl-map.geojson');
    expect(await downloadTo(page, 'export-geojson', path, 30_000)).toBe('pl-map.geojson');
    await screenshot(page, 'geojson-map');
    const raw = JSON.parse(readFileSync(path, 'utf8')) as { name: string };
    const fc = featureCollectionSchema.parse(raw);
    expect(fc.features).toHaveLength(N * N);
    expect(raw.name).toBe('pl: P(reported in this cell | true cell (0,0))');
    const values = fc.features.map((f) => f.properties!.value as number);
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // the north-west cell (0,0) spans the box's west edge and north edge
    const ring = (fc.features[0]!.geometry as { coordinates: number[][][] }).coordinates[0]!;
    expect(ring[3]![0]).toBeCloseTo(SQUARE.lon0 - SQUARE.dlon, 6);
    expect(ring[3]![1]).toBeCloseTo(SQUARE.lat0 + SQUARE.dlat, 6);
  }, 120_000);
});
