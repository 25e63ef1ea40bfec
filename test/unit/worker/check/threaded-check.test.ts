/**
 * The all-pairs privacy check by the ln scan (check/log-ratio-scan.ts), on this thread and on worker threads
 * (check/scan-threads.ts), against a brute-force reference written here: every ordered pair, every output,
 * ratios by division. Grids (Euclidean: no graph edges, so all pairs are scanned) with zeros, a pair exactly
 * at the tolerance, one just over it, and a violating pair; counts, verdicts and the effective eps must agree.
 */
import { describe, expect, it } from 'vitest';
import { checkPrivacy, checkPrivacyThreaded } from '../../../../src-worker/check/privacy-check';
import { SCAN_MARGIN, useWasmKernel, wasmKernelRuns } from '../../../../src-worker/check/log-ratio-scan';
import { LN_SCAN_WASM } from '../../../../src-worker/check/ln-scan.wasm';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import type { Domain } from '../../../../src-worker/metric/domain';
import { REL_TOL } from '../../../../src-shared/numeric/tolerance';

interface Reference {
  passes: boolean;
  violating: number;
  effective: number;
  pairs: number;
}

/**
 * The definition: ordered pairs at finite distance, largest C[x][y] / C[x'][y] over y, a positive entry facing 0
 * infinite.
 */
function reference(c: Matrix, domain: Domain, eps: number): Reference {
  const n = c.rows;
  let violating = 0;
  let effective = 0;
  let pairs = 0;
  for (let x = 0; x < n; x++)
    for (let xp = 0; xp < n; xp++) {
      if (x === xp) continue;
      const d = domain.distance(x, xp);
      if (d === Infinity) continue;
      if (x < xp) pairs++;
      let worst = 0;
      for (let y = 0; y < c.cols; y++) {
        const a = c.get(x, y);
        const b = c.get(xp, y);
        if (a > 0) worst = Math.max(worst, b > 0 ? a / b : Infinity);
      }
      if (worst === 0) continue;
      if (worst > Math.exp(eps * d) * (1 + REL_TOL) * (1 + 1e-15)) violating++;
      effective = Math.max(effective, Math.log(worst) / d);
    }
  return { passes: violating === 0, violating, effective, pairs };
}

/** Random rows in [0.5, 1.5] / sum on a grid's n points, with `zeros` entries set to 0 (rows renormalised). */
function randomChannel(n: number, seed: number, zeros = 0): Matrix {
  let s = seed;
  const rnd = (): number => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const c = new Matrix(n, n);
  for (let i = 0; i < n; i++) for (let y = 0; y < n; y++) c.set(i, y, 0.5 + rnd());
  for (let k = 0; k < zeros; k++) c.set(Math.floor(rnd() * n), Math.floor(rnd() * n), 0);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let y = 0; y < n; y++) sum += c.get(i, y);
    for (let y = 0; y < n; y++) c.set(i, y, c.get(i, y) / sum);
  }
  return c;
}

async function bothAgree(c: Matrix, domain: Domain, eps: number): Promise<Reference> {
  const ref = reference(c, domain, eps);
  const ch = new DenseChannel(c);
  for (const r of [
    checkPrivacy(ch, domain, eps, { pairs: 'all' }),
    await checkPrivacyThreaded(ch, domain, eps, { pairs: 'all', threads: 2 }),
  ]) {
    expect(r.mode).toBe('all-pairs');
    expect(r.pairsChecked).toBe(ref.pairs);
    expect(r.violatingPairs).toBe(ref.violating);
    expect(r.passes).toBe(ref.passes);
    if (Number.isFinite(ref.effective))
      expect(Math.abs(r.effectiveEpsilon - ref.effective)).toBeLessThanOrEqual(1e-12 * Math.max(1, ref.effective));
    else expect(r.effectiveEpsilon).toBe(Infinity);
    // the worst pair reported is examined exactly: its eff is the effective eps
    expect(r.worst[0]!.effectiveEpsilon).toBe(r.effectiveEpsilon);
  }
  return ref;
}

describe('all-pairs check by the ln scan, one thread and two', () => {
  const grid = parseDomainSpec('grid:6x7');
  const n = grid.n;

  it('random channels on grid:6x7: the same effective eps, verdict and count of violating directions as the reference', async () => {
    const c = randomChannel(n, 7);
    const ref = reference(c, grid, 1);
    // rows within a factor 3 of each other: effective eps ln 9 / 1 at most, so eps = 0.3 fails somewhere and 3 passes
    expect(ref.effective).toBeGreaterThan(0.3);
    expect(ref.effective).toBeLessThan(3);
    expect((await bothAgree(c, grid, 0.3)).violating).toBeGreaterThan(0);
    expect((await bothAgree(c, grid, 3)).passes).toBe(true);
  });

  it('zeros: a positive entry facing a 0 is an infinite loss; a 0 facing a 0 is no constraint', async () => {
    const c = randomChannel(n, 11);
    // one column zero in every row: 0 facing 0 everywhere, no constraint
    for (let i = 0; i < n; i++) c.set(i, 3, 0);
    const noLoss = await bothAgree(c, grid, 5);
    expect(noLoss.passes).toBe(true);
    // one more zero in row 0 only: row 0 faces it with nothing, every other row faces it with a positive entry
    c.set(0, 5, 0);
    const ref = await bothAgree(c, grid, 5);
    expect(ref.effective).toBe(Infinity);
    expect(ref.violating).toBe(n - 1);
  });

  it('a ratio exactly at e^(eps d)(1 + REL_TOL) passes, one just over it fails (decided by the exact scan)', async () => {
    const line = parseDomainSpec('grid:1x3:metric=euclidean');
    const eps = 0.5;
    // rows 0 and 1 are at distance 1: C[0][0] / C[1][0] at the bound, everything else far inside it
    const at = Math.exp(eps) * (1 + REL_TOL);
    const build = (f: number): Matrix => {
      const a = 0.3;
      return Matrix.fromRows([
        [a, 0.4, 1 - a - 0.4],
        [a / f, 0.4, 1 - a / f - 0.4],
        [0.25, 0.4, 0.35],
      ]);
    };
    const c = build(at * (1 - 1e-13));
    const r = checkPrivacy(new DenseChannel(c), line, eps, { pairs: 'all' });
    expect(r.passes).toBe(true);
    expect(r.worst[0]!.lnRatio).toBeGreaterThan(eps + Math.log1p(REL_TOL) - SCAN_MARGIN);
    const over = build(at * (1 + 1e-12));
    const v = await checkPrivacyThreaded(new DenseChannel(over), line, eps, { pairs: 'all', threads: 2 });
    expect(v.passes).toBe(false);
    expect(v.violatingPairs).toBe(1);
    expect(v.worst[0]!.violates).toBe(true);
    expect([v.worst[0]!.xIndex, v.worst[0]!.xpIndex, v.worst[0]!.yIndex]).toEqual([0, 1, 0]);
  });

  it('one row that differs: its violations found with their outputs, each direction counted once', async () => {
    // rows equal (effective eps 0), then one pair differs on one output
    const c = new Matrix(n, n);
    for (let i = 0; i < n; i++) for (let y = 0; y < n; y++) c.set(i, y, 1 / n);
    c.set(9, 4, 2 / n);
    c.set(9, 5, 0);
    const ref = await bothAgree(c, grid, 0.2);
    // every other row faces row 9's 0 on output 5 with 1/n (infinite), and row 9 faces each on output 4 with
    // ratio 2, over e^(0.2 d) below d = 5 ln 2 = 3.47
    let near = 0;
    for (let j = 0; j < n; j++) if (j !== 9 && grid.distance(9, j) < 5 * Math.LN2) near++;
    expect(near).toBeLessThan(n - 1);
    expect(ref.violating).toBe(n - 1 + near);
    const r = await checkPrivacyThreaded(new DenseChannel(c), grid, 0.2, { pairs: 'all', threads: 2 });
    expect(r.worst[0]!.xpIndex).toBe(9);
    expect(r.worst[0]!.y).toBe('5');
  });
});

describe('the two kernels of the ln scan', () => {
  it('the embedded WebAssembly module is compiled from ln-scan.wat', async () => {
    const { compileKernels } = (await import('../../../../scripts/build-kernels.mjs' as string)) as {
      compileKernels: (name: string) => Promise<string>;
    };
    expect(await compileKernels('check/ln-scan')).toBe(LN_SCAN_WASM);
  });

  it('WebAssembly SIMD and JavaScript give the same result, odd and even output counts, with zeros', () => {
    expect(wasmKernelRuns()).toBe(true);
    for (const spec of ['grid:5x7', 'grid:6x6']) {
      const g = parseDomainSpec(spec);
      const c = randomChannel(g.n, 3, 9);
      const ch = new DenseChannel(c);
      const simd = checkPrivacy(ch, g, 0.8, { pairs: 'all', topK: 5 });
      useWasmKernel(false);
      try {
        expect(wasmKernelRuns()).toBe(false);
        const js = checkPrivacy(ch, g, 0.8, { pairs: 'all', topK: 5 });
        expect(js).toEqual(simd);
      } finally {
        useWasmKernel(true);
      }
      expect(simd.violatingPairs).toBe(reference(c, g, 0.8).violating);
    }
  });
});
