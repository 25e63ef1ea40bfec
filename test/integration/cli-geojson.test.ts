/**
 * GeoJSON out of the CLI (RFC 7946, validated by a zod schema of its rules): `apply --geojson FILE` writes the released
 * points of a lat,lon grid, `mechanism --geojson FILE --focus CELL` the map of where a user at CELL is reported.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { featureCollectionSchema } from '../unit/support/geojson-schema';
import { argv } from '../unit/support/argv';

let dir = '';
let secrets = '';
let pts = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ms-geojson-'));
  secrets = join(dir, 'secrets.csv');
  writeFileSync(secrets, '0\n1\n2\n');
  pts = join(dir, 'pts.csv');
  const rows = ['lat,lon'];
  for (let i = 0; i < 40; i++) rows.push(`${48.85 + (i % 5) * 0.004},${2.35 + Math.floor(i / 5) * 0.004}`);
  writeFileSync(pts, rows.join('\n') + '\n');
});

describe('apply --geojson', () => {
  it('writes the released lat,lon points as a valid FeatureCollection, one Point [lon, lat] per released row', async () => {
    const out = join(dir, 'pts-out.csv');
    const gj = join(dir, 'pts-out.geojson');
    const r = await runCli(argv`apply --prior points:${pts}:cell=0.5 --epsilon 1 --kind planar-laplace
      --input ${pts} --out ${out} --geojson ${gj}`);
    expect(r.code, r.stderr).toBe(0);
    const fc = featureCollectionSchema.parse(JSON.parse(readFileSync(gj, 'utf8')));
    expect(fc.features).toHaveLength(40);
    const csv = readFileSync(out, 'utf8').trim().split('\n').slice(1);
    csv.forEach((line, i) => {
      const [, lat, lon] = line.split(/,(?=[^,]*,[^,]*$)|,(?=[^,]*$)/);
      const g = fc.features[i]!.geometry as { type: 'Point'; coordinates: number[] };
      expect(g.coordinates[0]).toBeCloseTo(Number(lon), 6);
      expect(g.coordinates[1]).toBeCloseTo(Number(lat), 6);
    });
  }, 60_000);

  it('refuses --geojson for secrets that are not points on a lat,lon grid', async () => {
    const r = await runCli(argv`apply --domain line:5 --epsilon 1 --kind tg --input ${secrets}
      --out ${join(dir, 'g.csv')} --geojson ${join(dir, 'g.geojson')}`);
    expect(r.stderr.trim()).toBe(
      'mechstudio: --geojson needs point secrets on a lat,lon grid: give --prior points:FILE.csv of lat,lon points (the released cells are then lat,lon)',
    );
    expect(r.code).toBe(2);
  }, 60_000);
});

describe('mechanism --geojson', () => {
  it("writes one counter-clockwise cell polygon per cell with the focus cell's row of the channel (summing to 1)", async () => {
    const gj = join(dir, 'map.geojson');
    const r = await runCli(argv`mechanism --prior points:${pts}:cell=0.5 --epsilon 1 --kind planar-laplace
      --geojson ${gj} --focus 4 --json`);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { rows: number; geojson: string };
    expect(j.geojson).toBe(gj);
    const text = readFileSync(gj, 'utf8');
    const fc = featureCollectionSchema.parse(JSON.parse(text));
    expect(fc.features).toHaveLength(j.rows);
    expect((JSON.parse(text) as { name: string }).name).toMatch(
      /^planar-laplace: P\(reported in this cell \| true cell /,
    );
    const values = fc.features.map((f) => f.properties!.value as number);
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(values.indexOf(Math.max(...values))).toBe(4); // the focus cell is its own likeliest report
  }, 60_000);

  it('on a grid too large to come back inline, reads the focus row from the --out channel CSV (and needs --out)', async () => {
    const gj = join(dir, 'big.geojson');
    const base = argv`mechanism --prior points:${pts}:cell=0.1 --epsilon 1 --kind planar-laplace
      --geojson ${gj} --focus 7`;
    const no = await runCli(base);
    expect(no.stderr.trim()).toMatch(
      /^mechstudio: --geojson on \d+ cells needs --out FILE.csv \(the channel is read back from it\)$/,
    );
    const r = await runCli(argv`${base} --out ${join(dir, 'big.csv')} --json`);
    expect(r.code, r.stderr).toBe(0);
    const rows = (JSON.parse(r.stdout) as { rows: number }).rows;
    expect(rows * rows).toBeGreaterThan(200 * 200);
    const fc = featureCollectionSchema.parse(JSON.parse(readFileSync(gj, 'utf8')));
    expect(fc.features).toHaveLength(rows);
    const values = fc.features.map((f) => f.properties!.value as number);
    expect(values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // the channel CSV's row of cell 7, "(0,7)": line 9 (after the header)
    const line = readFileSync(join(dir, 'big.csv'), 'utf8').split('\n')[8]!;
    expect(line.startsWith('"(0,7)",')).toBe(true);
    expect(values).toEqual(line.split(',').slice(2).map(Number));
  }, 120_000);

  it('refuses --geojson without a lat,lon points grid, and a focus outside it', async () => {
    const a = await runCli(argv`mechanism --domain grid:3x3 --epsilon 1 --kind planar-laplace
      --geojson ${join(dir, 'x.geojson')}`);
    expect(a.stderr.trim()).toBe(
      'mechstudio: --geojson needs a lat,lon points grid: give --prior points:FILE.csv of lat,lon points (the map is drawn on its cells)',
    );
    const b = await runCli(argv`mechanism --prior points:${pts}:cell=0.5 --epsilon 1 --kind planar-laplace
      --geojson ${join(dir, 'x.geojson')} --focus 9999`);
    expect(b.stderr.trim()).toMatch(/^mechstudio: --focus must be a cell index from 0 to \d+, got '9999'$/);
    expect([a.code, b.code]).toEqual([2, 2]);
  }, 60_000);
});
