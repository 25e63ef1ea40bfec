/**
 * A points prior is binned while its CSV streams in (src-main/fs/inputs.ts
 * binPointsFile): the counts equal a brute-force count of the same points,
 * with and without a box, for x,y and lat,lon files; a file of millions of
 * points is binned to the counts it was generated with; progress is
 * reported as the bytes arrive; what cannot finish is refused before the
 * points are read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePointsPriorArg } from '../../../../src-main/fs/inputs';
import { parsePointsCsv, pointsToGrid } from '../../../../src-worker/data/points';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'points-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Points in [x0, x1] x [y0, y1] counted cell by cell, by the definition (row 0 at the top, far edges closed). */
function bruteCounts(
  pts: [number, number][],
  xMin: number,
  yMax: number,
  rows: number,
  cols: number,
  s: number,
): number[] {
  const counts = new Array<number>(rows * cols).fill(0);
  for (const [x, y] of pts) {
    if (x < xMin || x > xMin + cols * s || y > yMax || y < yMax - rows * s) continue;
    const c = Math.min(cols - 1, Math.floor((x - xMin) / s));
    const r = Math.min(rows - 1, Math.floor((yMax - y) / s));
    counts[r * cols + c]!++;
  }
  return counts;
}

describe('points CSV streamed onto its grid', () => {
  it('x,y without a box (extent pass, then binning) and with one: counts equal brute force and the in-memory binning', () => {
    const rnd = seededRandom(11);
    const pts: [number, number][] = [];
    const lines = ['# trips', 'id,X,Y,label'];
    for (let i = 0; i < 5000; i++) {
      const p: [number, number] = [Math.round(-3000 + 9000 * rnd()) / 1000, Math.round(1000 + 7000 * rnd()) / 1000];
      pts.push(p);
      lines.push(`${i},${p[0]},${p[1]},"a, b"`);
    }
    const text = lines.join('\n') + '\n';
    const file = join(dir, 'xy.csv');
    writeFileSync(file, text);
    const free = parsePointsPriorArg(`points:${file}:cell=0.5`);
    const g = free.grid;
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    expect(g.xMin).toBe(Math.min(...xs));
    expect(g.yMax).toBe(Math.max(...ys));
    expect([g.rows, g.cols]).toEqual([
      Math.ceil((Math.max(...ys) - Math.min(...ys)) / 0.5),
      Math.ceil((Math.max(...xs) - Math.min(...xs)) / 0.5),
    ]);
    expect(Array.from(g.counts)).toEqual(bruteCounts(pts, g.xMin, g.yMax, g.rows, g.cols, 0.5));
    expect(g.inside).toBe(5000);
    expect(g.cellOf).toHaveLength(0);
    const inMemory = pointsToGrid(parsePointsCsv(text, 'xy'), { cellKm: 0.5 });
    expect(Array.from(g.prior)).toEqual(Array.from(inMemory.prior));

    const boxed = parsePointsPriorArg(`points:${file}:cell=1:box=-1,2,4,6:smooth=0.25`).grid;
    expect([boxed.rows, boxed.cols, boxed.xMin, boxed.yMax]).toEqual([4, 5, -1, 6]);
    const brute = bruteCounts(pts, -1, 6, 4, 5, 1);
    expect(Array.from(boxed.counts)).toEqual(brute);
    const inside = brute.reduce((a, b) => a + b, 0);
    expect([boxed.inside, boxed.outside]).toEqual([inside, 5000 - inside]);
    // first outside lines: the CSV line of each point (a comment and the header come first)
    const firstOut = pts.flatMap((p, i) => (p[0] < -1 || p[0] > 4 || p[1] < 2 || p[1] > 6 ? [i + 3] : [])).slice(0, 10);
    expect(boxed.outsideLines).toEqual(firstOut);
    expect(boxed.prior[0]).toBe((brute[0]! + 0.25) / (inside + 0.25 * 20));
  });

  it('lat,lon: the same cells as the in-memory binning (projection around the data extent)', () => {
    const rnd = seededRandom(5);
    const lines = ['lon,lat'];
    for (let i = 0; i < 3000; i++)
      lines.push(`${(2.25 + 0.15 * rnd()).toFixed(6)},${(48.8 + 0.12 * rnd()).toFixed(6)}`);
    const text = lines.join('\n');
    const file = join(dir, 'll.csv');
    writeFileSync(file, text);
    const g = parsePointsPriorArg(`points:${file}:cell=0.7`).grid;
    const ref = pointsToGrid(parsePointsCsv(text, 'll'), { cellKm: 0.7 });
    expect([g.rows, g.cols]).toEqual([ref.rows, ref.cols]);
    expect(Array.from(g.counts)).toEqual(Array.from(ref.counts));
    expect(g.projection!.lat0).toBe(ref.projection!.lat0);
  });

  it('two million points: binned to the counts they were written with, progress reported by bytes', () => {
    // point i lies at the centre of cell i mod 400 of a 20 x 20 grid of 1 km cells over [0, 20]^2
    const n = 2_000_000;
    const file = join(dir, 'big.csv');
    const fd = openSync(file, 'w');
    writeSync(fd, 'x,y\n');
    const centres: string[] = [];
    for (let c = 0; c < 400; c++) centres.push(`${(c % 20) + 0.5},${19.5 - Math.floor(c / 20)}\n`);
    const block = centres.join('').repeat(250); // 100,000 points
    for (let k = 0; k < n / 100_000; k++) writeSync(fd, block);
    closeSync(fd);
    const seen: number[] = [];
    const g = parsePointsPriorArg(`points:${file}:box=0,0,20,20`, dir, (f) => seen.push(f)).grid;
    expect([g.rows, g.cols, g.inside, g.outside]).toEqual([20, 20, n, 0]);
    expect(Array.from(g.counts)).toEqual(new Array<number>(400).fill(n / 400));
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1]!))).toBe(true);
    expect(seen[seen.length - 1]).toBe(1);
  });

  it('what cannot finish is refused before the points are read: a grid over the cell limit (box), a line too long', () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, 'x,y\n0,0\nnot,a number\n');
    // the grid is sized from the header and the box: refused before line 3's bad number is reached
    expect(() => parsePointsPriorArg(`points:${file}:cell=0.001:box=0,0,100,100`)).toThrow(
      /100000 x 100000 grid .* more than 4000000 cells/,
    );
    expect(() => parsePointsPriorArg(`points:${file}`)).toThrow(
      /bad\.csv, line 3, column x: the value is not a decimal number/,
    );
    writeFileSync(file, `x,y\n${'1'.repeat(3_000_000)},2\n`);
    expect(() => parsePointsPriorArg(`points:${file}`)).toThrow(
      /line 2: a line longer than 65536 characters; is this a points CSV\?/,
    );
    writeFileSync(file, 'x,y\n');
    expect(() => parsePointsPriorArg(`points:${file}`)).toThrow(/no points after the header/);
  });
});
