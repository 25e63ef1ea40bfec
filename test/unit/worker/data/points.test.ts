import { describe, expect, it } from 'vitest';
import {
  EARTH_RADIUS_KM,
  haversineKm,
  localProjection,
  parsePointsCsv,
  pointsToGrid,
} from '../../../../src-worker/data/points';
import { MechError } from '../../../../src-shared/errors';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';

function projectedDistance(
  lat1: number,
  lon1: number,
  lat2: number,
  lon2: number,
  latMin = Math.min(lat1, lat2),
  latMax = Math.max(lat1, lat2),
) {
  const p = localProjection((latMin + latMax) / 2, (lon1 + lon2) / 2, latMin, latMax);
  const [x1, y1] = p.project(lat1, lon1);
  const [x2, y2] = p.project(lat2, lon2);
  return { d: Math.hypot(x2 - x1, y2 - y1), e: p.maxRelativeError, p };
}

describe('local projection of lat/lon: stated error, tested on known distances', () => {
  it('one degree of latitude is 111.2 km, and haversine gives it too', () => {
    expect((EARTH_RADIUS_KM * Math.PI) / 180).toBeCloseTo(111.195, 3);
    const { d, e } = projectedDistance(45, 7, 46, 7);
    expect(d).toBeCloseTo(111.195, 3);
    expect(e).toBeGreaterThan(0); // the range 45..46 has a non-trivial bound
    expect(haversineKm(45, 7, 46, 7)).toBeCloseTo(111.195, 3);
  });

  // Great-circle distances on the mean-radius sphere, known to about 1 km.
  const pairs: [string, number, number, number, number, number][] = [
    ['London - Paris', 51.5074, -0.1278, 48.8566, 2.3522, 343.6],
    ['New York - Philadelphia', 40.7128, -74.006, 39.9526, -75.1652, 129.6],
    ['Sydney - Canberra', -33.8688, 151.2093, -35.2809, 149.13, 247.0],
    ['one degree of longitude on the equator', 0, 10, 0, 11, 111.195],
    ['Quito - Guayaquil (near the equator)', -0.1807, -78.4678, -2.1894, -79.8891, 273.6],
    ['Eiffel Tower - Notre-Dame', 48.8584, 2.2945, 48.853, 2.3499, 4.1],
    ['Oslo - Stockholm (60 N)', 59.9139, 10.7522, 59.3293, 18.0686, 416.0],
  ];
  for (const [name, la1, lo1, la2, lo2, known] of pairs) {
    it(`${name}: haversine ~${known} km, projected within the stated bound`, () => {
      const h = haversineKm(la1, lo1, la2, lo2);
      expect(Math.abs(h - known)).toBeLessThan(Math.max(1, 0.005 * known));
      const { d, e } = projectedDistance(la1, lo1, la2, lo2);
      expect(Math.abs(d / h - 1)).toBeLessThanOrEqual(e + 1e-12);
      expect(e).toBeLessThan(0.05); // regional pairs: a few percent at most
    });
  }

  it('the bound holds for every pair of 120 random points in a 3 x 4 degree box at 60 N (and is not vacuous)', () => {
    const rnd = seededRandom(4);
    const pts: [number, number][] = [];
    for (let i = 0; i < 120; i++) pts.push([58.5 + 3 * rnd(), 10 + 4 * rnd()]);
    const p = localProjection(60, 12, 58.5, 61.5);
    let worst = 0;
    for (let i = 0; i < pts.length; i++)
      for (let j = i + 1; j < pts.length; j++) {
        const [a1, b1] = pts[i]!;
        const [a2, b2] = pts[j]!;
        const h = haversineKm(a1, b1, a2, b2);
        const [x1, y1] = p.project(a1, b1);
        const [x2, y2] = p.project(a2, b2);
        const rel = Math.abs(Math.hypot(x2 - x1, y2 - y1) / h - 1);
        worst = Math.max(worst, rel);
        expect(rel).toBeLessThanOrEqual(p.maxRelativeError + 1e-12);
      }
    expect(worst).toBeGreaterThan(0.2 * p.maxRelativeError); // the bound is the right size
    const [lat, lon] = p.unproject(...p.project(59.1, 13.2));
    expect(lat).toBeCloseTo(59.1, 12);
    expect(lon).toBeCloseTo(13.2, 12);
  });

  it('refuses a range reaching a pole', () => {
    expect(() => localProjection(89.95, 0, 89.9, 90)).toThrow(/pole/);
  });
});

/** Brute-force binning: test every cell's rectangle (row 0 at the top, far edges closed). */
function bruteCounts(
  xs: number[],
  ys: number[],
  xMin: number,
  yMax: number,
  rows: number,
  cols: number,
  s: number,
): { counts: number[]; outside: number } {
  const counts = new Array<number>(rows * cols).fill(0);
  let outside = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    let found = -1;
    for (let r = 0; r < rows && found < 0; r++)
      for (let c = 0; c < cols && found < 0; c++) {
        const x0 = xMin + c * s;
        const x1 = xMin + (c + 1) * s;
        const yTop = yMax - r * s;
        const yBot = yMax - (r + 1) * s;
        const inX = x >= x0 && (x < x1 || (c === cols - 1 && x <= x1));
        const inY = y <= yTop && (y > yBot || (r === rows - 1 && y >= yBot));
        if (inX && inY) found = r * cols + c;
      }
    if (found < 0) outside++;
    else counts[found]!++;
  }
  return { counts, outside };
}

describe('points CSV onto a grid', () => {
  it('x,y in km: counts match a brute-force binning; outside points counted and listed by line', () => {
    const rnd = seededRandom(12);
    const xs: number[] = [];
    const ys: number[] = [];
    const lines = ['# city sample', 'id,x,y,note'];
    for (let i = 0; i < 2000; i++) {
      const x = -1 + 12 * rnd();
      const y = -1 + 9 * rnd();
      xs.push(x);
      ys.push(y);
      lines.push(`${i},${x},${y},p${i}`);
    }
    // exactly on the box's edges and corners (inside: the box is closed)
    for (const [x, y] of [
      [0, 0],
      [10, 7],
      [0, 7],
      [10, 0],
    ] as const) {
      xs.push(x);
      ys.push(y);
      lines.push(`e,${x},${y},edge`);
    }
    const pts = parsePointsCsv(lines.join('\n'), 'pts.csv');
    expect(pts.units).toBe('km');
    const g = pointsToGrid(pts, { cellKm: 0.5, box: { units: 'km', xMin: 0, xMax: 10, yMin: 0, yMax: 7 } });
    expect([g.rows, g.cols]).toEqual([14, 20]);
    expect(g.domainSpec).toBe('grid:14x20:step=0.5');
    const brute = bruteCounts(xs, ys, 0, 7, 14, 20, 0.5);
    expect(Array.from(g.counts)).toEqual(brute.counts);
    expect(g.outside).toBe(brute.outside);
    expect(g.inside + g.outside).toBe(2004);
    expect(g.outside).toBeGreaterThan(100);
    // first outside lines: recomputed from the data (line = index + 3: comment and header first)
    const firstOut: number[] = [];
    for (let i = 0; i < xs.length && firstOut.length < 10; i++) {
      if (!(xs[i]! >= 0 && xs[i]! <= 10 && ys[i]! >= 0 && ys[i]! <= 7)) firstOut.push(i + 3);
    }
    expect(g.outsideLines).toEqual(firstOut);
    expect(g.counts[0]).toBeGreaterThan(0);
    // prior from counts, no smoothing
    let s = 0;
    for (let c = 0; c < g.prior.length; c++) {
      expect(g.prior[c]).toBeCloseTo(g.counts[c]! / g.inside, 15);
      s += g.prior[c]!;
    }
    expect(s).toBeCloseTo(1, 12);
  });

  it('smoothing: no cell has probability 0, and the prior is (count + a) / (N + a cells)', () => {
    const text = 'x,y\n0.1,0.1\n0.2,0.3\n1.7,1.9\n';
    const g = pointsToGrid(parsePointsCsv(text), {
      cellKm: 1,
      box: { units: 'km', xMin: 0, xMax: 2, yMin: 0, yMax: 2 },
      smoothing: 0.5,
    });
    expect(g.rows * g.cols).toBe(4);
    // row 0 is the top (y in [1, 2]); (1.7, 1.9) -> row 0, column 1; the two near the origin -> row 1, column 0
    expect(Array.from(g.counts)).toEqual([0, 1, 2, 0]);
    expect(Array.from(g.prior)).toEqual([0.5 / 5, 1.5 / 5, 2.5 / 5, 0.5 / 5]);
    const noSmooth = pointsToGrid(parsePointsCsv(text), {
      cellKm: 1,
      box: { units: 'km', xMin: 0, xMax: 2, yMin: 0, yMax: 2 },
    });
    expect(noSmooth.prior[0]).toBe(0);
  });

  it('lat,lon: projected around the box centre, counts match brute force in projected coordinates', () => {
    const rnd = seededRandom(3);
    const lat: number[] = [];
    const lon: number[] = [];
    const lines = ['Latitude,Longitude'];
    for (let i = 0; i < 500; i++) {
      lat.push(48.8 + 0.12 * rnd());
      lon.push(2.25 + 0.15 * rnd());
      lines.push(`${lat[i]},${lon[i]}`);
    }
    const box = { units: 'degrees' as const, south: 48.81, north: 48.9, west: 2.26, east: 2.39 };
    const g = pointsToGrid(parsePointsCsv(lines.join('\n')), { cellKm: 1, box });
    expect(g.projection).not.toBeNull();
    const p = g.projection!;
    expect(p.lat0).toBeCloseTo(48.855, 12);
    expect(p.maxRelativeError).toBeLessThan(1e-3);
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < lat.length; i++) {
      const [x, y] = p.project(lat[i]!, lon[i]!);
      xs.push(x);
      ys.push(y);
    }
    const brute = bruteCounts(xs, ys, g.xMin, g.yMax, g.rows, g.cols, 1);
    // the grid is anchored at the box's west/north edges; the box is 0.09 deg (10 km) by 0.13 deg (9.5 km)
    expect([g.rows, g.cols]).toEqual([
      Math.ceil((0.09 * Math.PI * EARTH_RADIUS_KM) / 180),
      Math.ceil(((0.13 * Math.PI * EARTH_RADIUS_KM) / 180) * Math.cos((48.855 * Math.PI) / 180)),
    ]);
    expect(Array.from(g.counts)).toEqual(brute.counts);
    expect(g.outside).toBe(brute.outside);
  });

  it('strict numbers and clear errors naming the line and column', () => {
    const err = (text: string): MechError => {
      try {
        pointsToGrid(parsePointsCsv(text, 'p.csv'), { cellKm: 1 });
      } catch (e) {
        expect(e).toBeInstanceOf(MechError);
        return e as MechError;
      }
      throw new Error('no error');
    };
    expect(err('x,y\n1,2\n0x10,3\n').message).toMatch(/line 3, column x: the value is not a decimal number/);
    expect(err('x,y\n1,Infinity\n').message).toMatch(/line 2, column y/);
    expect(err('x,y\n1,\n').message).toMatch(/line 2, column y: the value is empty/);
    expect(err('x,y\n1\n').message).toMatch(/line 2: missing the y column/);
    expect(err('a,b\n1,2\n').message).toMatch(/header must name the coordinate columns/);
    expect(err('x,y,lat,lon\n1,2,3,4\n').message).toMatch(/both x,y and lat,lon/);
    expect(err('lat,lon\n91,2\n').message).toMatch(/line 2: latitude 91 is outside/);
    expect(err('lat,lon\n10,-170\n10,170\n').message).toMatch(/antimeridian/);
    expect(err('x,y\n').message).toMatch(/no points/);
    expect(err('').message).toMatch(/empty/);
    expect(err('x,y\n"1,2\n').message).toMatch(/malformed CSV/);
    expect(() => pointsToGrid(parsePointsCsv('x,y\n0,0\n1000,1000\n'), { cellKm: 0.1 })).toThrow(
      /more than 4000000 cells/,
    );
    expect(() =>
      pointsToGrid(parsePointsCsv('x,y\n5,5\n'), {
        cellKm: 1,
        box: { units: 'km', xMin: 0, xMax: 1, yMin: 0, yMax: 1 },
      }),
    ).toThrow(/none of the 1 points lies inside/);
    expect(() => pointsToGrid(parsePointsCsv('x,y\n5,5\n'), { cellKm: -1 })).toThrow(/cell size/);
    expect(() => pointsToGrid(parsePointsCsv('x,y\n5,5\n'), { cellKm: 1, smoothing: Number.NaN })).toThrow(/smoothing/);
    // 4 cells x 1e308 overflows: the smoothing is named, not a prior summing to 0
    const four = { cellKm: 1, box: { units: 'km' as const, xMin: 0, xMax: 2, yMin: 0, yMax: 2 } };
    expect(() => pointsToGrid(parsePointsCsv('x,y\n0.5,0.5\n'), { ...four, smoothing: 1e308 })).toThrow(
      'smoothing 1e+308 is too large: 4 cells x 1e+308 pseudo-points overflow a double (every cell would get probability 0); use a smoothing of at most 2.25e+307',
    );
    // the largest it advises gives the uniform prior
    const g = pointsToGrid(parsePointsCsv('x,y\n0.5,0.5\n'), { ...four, smoothing: 2.25e307 });
    expect(Array.from(g.prior)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(() =>
      pointsToGrid(parsePointsCsv('x,y\n5,5\n'), {
        cellKm: 1,
        box: { units: 'degrees', south: 0, north: 1, west: 0, east: 1 },
      }),
    ).toThrow(/in km/);
  });
});
