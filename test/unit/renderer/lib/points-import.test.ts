/**
 * The page's points import (src-renderer/lib/points-import.ts) bins exactly like the engine's CSV path, and reports
 * outside points and smoothing.
 */
import { describe, expect, it } from 'vitest';
import { parsePointsCsv, pointsToGrid } from '../../../../src-worker/data/points';
import { importPoints, MAX_PAGE_POINTS_BYTES, pointsFileTooLarge } from '../../../../src-renderer/lib/points-import';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

describe('points import in the page', () => {
  it('x,y km: the same counts and prior as the engine, outside points reported by count and line', () => {
    const r = seededRandom(5);
    const lines = ['name,x,y'];
    for (let i = 0; i < 500; i++) lines.push(`p${i},${(-0.5 + r() * 5).toFixed(3)},${(-0.5 + r() * 4).toFixed(3)}`);
    const text = lines.join('\n') + '\n';
    const page = importPoints(text, 'pts.csv', { cellKm: 1, box: [0, 0, 4, 3], smoothing: 0.5 });
    const engine = pointsToGrid(parsePointsCsv(text, 'pts.csv'), {
      cellKm: 1,
      box: { units: 'km', xMin: 0, yMin: 0, xMax: 4, yMax: 3 },
      smoothing: 0.5,
    });
    expect(page.grid.rows).toBe(3);
    expect(page.grid.cols).toBe(4);
    expect(Array.from(page.grid.counts)).toEqual(Array.from(engine.counts));
    expect(Array.from(page.grid.prior)).toEqual(Array.from(engine.prior));
    expect(page.grid.outside).toBe(engine.outside);
    expect(page.grid.outside).toBeGreaterThan(0);
    expect(page.report).toContain(`${engine.outside} outside the box`);
    expect(page.report).toContain('no cell has probability 0');
  });

  it('lat,lon: projected with the stated error bound; a bad value names its line', () => {
    const text = 'lat,lon\n48.85,2.35\n48.86,2.36\n48.84,2.30\n';
    const page = importPoints(text, 'paris.csv', { cellKm: 1, box: null, smoothing: 0 });
    expect(page.grid.projection).not.toBeNull();
    expect(page.report).toMatch(/equirectangular/);
    expect(page.report).toMatch(/cells without points have probability 0/);
    expect(() =>
      importPoints('lat,lon\n48.85,2.35\n48.86,abc\n', 'bad.csv', { cellKm: 1, box: null, smoothing: 0 }),
    ).toThrow(/line 3/);
  });
});

describe('the page can load the binning', () => {
  it('points-grid.ts (imported by the page) does not load the Node CSV parser, whose module code needs Buffer', async () => {
    const { readFileSync } = await import('node:fs');
    const src = readFileSync(new URL('../../../../src-shared/data/points-grid.ts', import.meta.url), 'utf8');
    const imports = src.split('\n').filter((l) => /^import /.test(l));
    expect(imports.some((l) => l.includes('read-csv') && !l.startsWith('import type'))).toBe(false);
    expect(imports.some((l) => l.includes('csv-parse'))).toBe(false);
  });

  it('a points file over the page limit is refused from its size, before it is read, pointing to the streaming command line', () => {
    expect(pointsFileTooLarge('city.csv', MAX_PAGE_POINTS_BYTES)).toBeNull();
    expect(pointsFileTooLarge('city.csv', MAX_PAGE_POINTS_BYTES + 1)).toBe(
      'city.csv is 32 MiB; the app imports points files of up to 32 MiB (mechstudio --prior points:FILE streams larger ones)',
    );
    expect(pointsFileTooLarge('huge.csv', 500 * 2 ** 20)).toMatch(/^huge\.csv is 500 MiB;/);
  });
});
