import { describe, expect, it } from 'vitest';
import { tightConstraintsStructured } from '../../../../src-worker/mechanism/implicit/tight-structured';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { buildLoss } from '../../../../src-worker/measure/loss-spec';
import { optimalRemap } from '../../../../src-worker/measure/optimal-remap';
import type { GridMetric } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';
import { remapMechanism } from '../../../../src-worker/remap/bayes-remap';
import {
  planarLaplaceWindows,
  tightWindows,
  type WindowColumnAccess,
} from '../../../../src-worker/remap/window-columns';

function lumpyPrior(n: number, seed: number, floor = 1e-3): Float64Array {
  const r = seededRandom(seed);
  const p = new Float64Array(n);
  let s = 0;
  for (let i = 0; i < n; i++) {
    p[i] = r() ** 4 + floor;
    s += p[i]!;
  }
  for (let i = 0; i < n; i++) p[i] = p[i]! / s;
  return p;
}

/** Every window entry equals the row generator's; every entry outside the window is <= outsideMax. */
function checkWindows(
  win: WindowColumnAccess,
  rowOf: (x: number, out: Float64Array) => Float64Array,
  seed: number,
): void {
  const R = win.gridRows;
  const C = win.gridCols;
  const n = R * C;
  const rnd = seededRandom(seed);
  // columns from rows (dense, small grids only)
  const rows: Float64Array[] = [];
  for (let x = 0; x < n; x++) rows.push(rowOf(x, new Float64Array(n)).slice());
  for (let t = 0; t < 25; t++) {
    const y = Math.floor(rnd() * n);
    const yr = Math.floor(y / C);
    const yc = y - yr * C;
    const rho = Math.floor(rnd() * Math.max(R, C));
    const r0 = Math.max(0, yr - rho);
    const r1 = Math.min(R - 1, yr + rho);
    const c0 = Math.max(0, yc - rho);
    const c1 = Math.min(C - 1, yc + rho);
    const out = win.columnWindow(y, r0, r1, c0, c1, new Float64Array((r1 - r0 + 1) * (c1 - c0 + 1)));
    const bound = win.outsideMax(y, rho);
    for (let r = 0, i = 0; r < R; r++)
      for (let c = 0; c < C; c++) {
        const v = rows[r * C + c]![y]!;
        if (r >= r0 && r <= r1 && c >= c0 && c <= c1) {
          expect(out[(r - r0) * (c1 - c0 + 1) + (c - c0)]).toBe(v);
          i++;
        } else expect(v).toBeLessThanOrEqual(bound);
      }
  }
}

describe('windowed columns: entries bit for bit, outside bound proven', () => {
  for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as GridMetric[]) {
    it(`planar Laplace ${metric} 7x9`, () => {
      const d = gridDomain(7, 9, 0.8, metric);
      const mech = planarLaplace(d, 0.9);
      checkWindows(planarLaplaceWindows(d, 0.9), (x, out) => mech.channel.row(x, out), 3);
    });
  }
  it('tight constraints on a 21 x 22 lattice (FFT operator)', () => {
    const d = gridDomain(21, 22);
    const t = tightConstraintsStructured(d, 1.5);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    const win = tightWindows(t.mechanism.channel);
    expect(win).not.toBeNull();
    checkWindows(win!, (x, out) => t.mechanism.channel.row(x, out), 4);
  });
});

describe('windowed remap (large grids): certified, the same remap as whole columns', () => {
  for (const [R, C, eps, radius] of [
    [12, 12, 0.8, 2],
    [15, 11, 1.5, 3],
    [20, 20, 0.6, 'on'],
  ] as const) {
    it(`planar Laplace ${R}x${C} eps ${eps}, start radius ${radius}`, () => {
      const d = gridDomain(R, C);
      const pi = lumpyPrior(d.n, R + C, 1e-6);
      const mech = planarLaplace(d, eps);
      const exact = remapMechanism(mech, d, pi, { kind: 'dist' }, { window: 'off' });
      const win = remapMechanism(mech, d, pi, { kind: 'dist' }, { window: radius });
      expect(win.method).toBe('certified-window');
      expect(exact.method).toBe('certified-grid');
      const ref = optimalRemap(pi, mech.channel, buildLoss({ kind: 'dist' }, d));
      expect(Array.from(win.remap)).toEqual(Array.from(ref.remap));
      expect(Array.from(exact.remap)).toEqual(Array.from(ref.remap));
      // values: windowed sums are lower ends, within the stated slack
      expect(win.remappedLoss).toBeLessThanOrEqual(exact.remappedLoss * (1 + 1e-12));
      expect(exact.remappedLoss).toBeLessThanOrEqual(win.remappedLoss + win.valueSlack + 1e-12 * exact.remappedLoss);
      expect(Math.abs(win.originalLoss! - exact.originalLoss!)).toBeLessThanOrEqual(
        win.valueSlack + 1e-12 * exact.originalLoss!,
      );
      // small windows do get widened
      if (typeof radius === 'number') expect(win.stats.window!.widened).toBeGreaterThan(0);
      const buf = new Float64Array(d.n);
      const buf2 = new Float64Array(d.n);
      for (let x = 0; x < d.n; x += 7)
        expect(Array.from(win.channel.row(x, buf))).toEqual(Array.from(exact.channel.row(x, buf2)));
    });
  }

  it('tight constraints 21 x 22 with a window of radius 2: the measure`s remap', () => {
    const d = gridDomain(21, 22);
    const t = tightConstraintsStructured(d, 1.5);
    if (!t.exists) throw new Error('tight should exist');
    const pi = lumpyPrior(d.n, 8);
    const win = remapMechanism(t.mechanism, d, pi, { kind: 'dist' }, { window: 2 });
    expect(win.method).toBe('certified-window');
    const ref = optimalRemap(pi, t.mechanism.channel, buildLoss({ kind: 'dist' }, d));
    expect(Array.from(win.remap)).toEqual(Array.from(ref.remap));
    expect(Math.abs(win.remappedLoss - ref.value)).toBeLessThanOrEqual(win.valueSlack + 1e-12 * ref.value);
  });

  for (const [metric, kind] of [
    ['manhattan', 'dist'],
    ['euclidean', 'dist2'],
  ] as const) {
    it(`${metric} ${kind} (closed form in the measure) windowed: every chosen guess is optimal`, () => {
      const d = gridDomain(13, 12, 1, metric);
      const pi = lumpyPrior(d.n, 6);
      const mech = planarLaplace(d, 0.8);
      const win = remapMechanism(mech, d, pi, { kind }, { window: 3 });
      expect(win.method).toBe('certified-window');
      const loss = buildLoss({ kind }, d);
      const ref = optimalRemap(pi, mech.channel, loss);
      // f_y(w) = sum_x pi_x C[x][y] l(w, x) at the chosen w equals the optimum of column y
      const rows: Float64Array[] = [];
      for (let x = 0; x < d.n; x++) rows.push(mech.channel.row(x, new Float64Array(d.n)).slice());
      for (let y = 0; y < d.n; y++) {
        let f = 0;
        for (let x = 0; x < d.n; x++) f += pi[x]! * rows[x]![y]! * loss.value(win.remap[y]!, x);
        expect(Math.abs(f - ref.columnValue[y]!)).toBeLessThanOrEqual(1e-12 * Math.max(1e-300, ref.columnValue[y]!));
      }
      expect(Math.abs(win.remappedLoss - ref.value)).toBeLessThanOrEqual(win.valueSlack + 1e-12 * ref.value);
    });
  }

  it('Chebyshev dist2 windowed equals the measure', () => {
    const d = gridDomain(14, 13, 1, 'chebyshev');
    const pi = lumpyPrior(d.n, 2);
    const mech = planarLaplace(d, 0.7);
    const win = remapMechanism(mech, d, pi, { kind: 'dist2' }, { window: 3 });
    const ref = optimalRemap(pi, mech.channel, buildLoss({ kind: 'dist2' }, d));
    expect(win.method).toBe('certified-window');
    expect(Array.from(win.remap)).toEqual(Array.from(ref.remap));
  });
});
