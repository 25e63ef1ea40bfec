import { describe, expect, it } from 'vitest';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { optimalMechanism } from '../../../../src-worker/lp/optimal/optimal-mechanism';
import { DenseChannel, type Mechanism, type RowSource, toDense } from '../../../../src-worker/mechanism/channel';
import { tightConstraintsStructured } from '../../../../src-worker/mechanism/implicit/tight-structured';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { exponentialMechanism } from '../../../../src-worker/mechanism/exponential';
import { laplaceRowNormalised } from '../../../../src-worker/mechanism/laplace-row-normalised';
import { randomisedResponse } from '../../../../src-worker/mechanism/randomised-response';
import { tightConstraints } from '../../../../src-worker/mechanism/tight-constraints';
import { bestByScan } from '../../../../src-worker/measure/guess-function';
import { buildLoss, type GuessSpec } from '../../../../src-worker/measure/loss-spec';
import { optimalRemap } from '../../../../src-worker/measure/optimal-remap';
import type { GridMetric } from '../../../../src-worker/metric/domain';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';
import { bayesRemap, remapMechanism } from '../../../../src-worker/remap/bayes-remap';
import { planarLaplaceColumns, verifyColumns } from '../../../../src-worker/remap/columns';
import { GridBestGuess } from '../../../../src-worker/remap/grid-best-guess';

/** A non-uniform prior: random weights to the 4th power (a few heavy cells) plus a floor. */
function lumpyPrior(n: number, seed: number): Float64Array {
  const r = seededRandom(seed);
  const p = new Float64Array(n);
  let s = 0;
  for (let i = 0; i < n; i++) {
    p[i] = r() ** 4 + 1e-3;
    s += p[i]!;
  }
  for (let i = 0; i < n; i++) p[i] = p[i]! / s;
  return p;
}

/** C . R computed densely from the definition: sum_y C[x][y] [remap[y] = w]. */
function denseProduct(c: RowSource, remap: Int32Array, guesses: number): Float64Array[] {
  const d = toDense(c);
  const out: Float64Array[] = [];
  for (let x = 0; x < c.rows; x++) {
    const row = new Float64Array(guesses);
    for (let w = 0; w < guesses; w++) {
      let s = 0;
      for (let y = 0; y < c.cols; y++) s += d.matrix.get(x, y) * (remap[y] === w ? 1 : 0);
      row[w] = s;
    }
    out.push(row);
  }
  return out;
}

/** Expected loss of a channel taken at face value (output = guess), from the definition. */
function faceValue(c: RowSource, pi: Float64Array, spec: GuessSpec, domain: ReturnType<typeof gridDomain>): number {
  const l = buildLoss(spec, domain);
  const buf = new Float64Array(c.cols);
  let s = 0;
  for (let x = 0; x < c.rows; x++) {
    c.row(x, buf);
    for (let y = 0; y < c.cols; y++) s += pi[x]! * buf[y]! * l.value(y, x);
  }
  return s;
}

function mechanisms(domain: ReturnType<typeof gridDomain>, eps: number): Mechanism[] {
  const out: Mechanism[] = [planarLaplace(domain, eps)];
  const t = tightConstraints(domain, eps);
  if (t.exists) out.push(t.mechanism);
  return out;
}

describe('Bayesian remap of grid mechanisms', () => {
  const cases: [number, number, number][] = [
    [4, 4, 0.8],
    [5, 5, 0.5],
    [5, 5, 1.2],
    [4, 6, 0.7],
  ];
  for (const [R, C, eps] of cases) {
    it(`${R}x${C} eps ${eps}: remap = the existing remap measure, channel = C.R exactly, private, loss between LP optimum and original`, async () => {
      const domain = gridDomain(R, C);
      const pi = lumpyPrior(domain.n, R * 31 + C);
      const spec: GuessSpec = { kind: 'dist' };
      const lp = await optimalMechanism(domain, eps, pi, 'dist', { constraints: 'exact' });
      const lpLoss = lp.facts.solve.objective;
      const mechs = mechanisms(domain, eps);
      expect(mechs.length).toBeGreaterThanOrEqual(1);
      for (const mech of mechs) {
        const res = remapMechanism(mech, domain, pi, spec);
        expect(res.method).toBe('certified-grid');
        // 1. the existing measure: the same remap and the same value, bit for bit
        const ref = optimalRemap(pi, mech.channel, buildLoss(spec, domain));
        expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
        expect(res.remappedLoss).toBe(ref.value);
        // 2. C . R exactly
        const cr = denseProduct(mech.channel, res.remap, domain.n);
        const buf = new Float64Array(domain.n);
        for (let x = 0; x < domain.n; x++) expect(Array.from(res.channel.row(x, buf))).toEqual(Array.from(cr[x]!));
        // 3. still eps*d-private (post-processing), by the engine's privacy check
        const check = checkPrivacy(res.channel, domain, eps, { pairs: 'all' });
        expect(check.passes).toBe(true);
        // 4. the remapped channel's face-value loss is the remapped loss; the original's is the definition
        expect(faceValue(res.channel, pi, spec, domain)).toBeCloseTo(res.remappedLoss, 12);
        expect(res.originalLoss).not.toBeNull();
        expect(res.originalLoss!).toBeCloseTo(faceValue(mech.channel, pi, spec, domain), 12);
        // 5. LP optimum <= remapped <= original
        expect(lpLoss).toBeLessThanOrEqual(res.remappedLoss + 1e-7);
        expect(res.remappedLoss).toBeLessThanOrEqual(res.originalLoss! + 1e-12);
      }
    });
  }

  it('tight constraints held implicitly (FFT operator) get direct column access and agree with the measure', () => {
    const domain = gridDomain(22, 21);
    const t = tightConstraintsStructured(domain, 1.5);
    expect(t.exists).toBe(true);
    if (!t.exists) return;
    const pi = lumpyPrior(domain.n, 5);
    const res = remapMechanism(t.mechanism, domain, pi, { kind: 'dist' });
    expect(res.stats.columnAccess).toBe('direct');
    const ref = optimalRemap(pi, t.mechanism.channel, buildLoss({ kind: 'dist' }, domain));
    expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
    expect(res.remappedLoss).toBe(ref.value);
    expect(res.remappedLoss).toBeLessThan(res.originalLoss!);
  });

  it('the exponential and row-normalised Laplace mechanisms get direct column access and agree with the measure', () => {
    const domain = gridDomain(9, 8);
    const pi = lumpyPrior(domain.n, 7);
    for (const mech of [exponentialMechanism(domain, 0.8), laplaceRowNormalised(domain, 0.8)]) {
      const res = remapMechanism(mech, domain, pi, { kind: 'dist' });
      expect(res.stats.columnAccess).toBe('direct');
      const ref = optimalRemap(pi, mech.channel, buildLoss({ kind: 'dist' }, domain));
      expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
      expect(res.remappedLoss).toBe(ref.value);
    }
  });

  for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as GridMetric[]) {
    for (const kind of ['dist', 'dist2'] as const) {
      it(`${metric} ${kind} on 7x6 (step 0.5): planar Laplace remap equals the measure`, () => {
        const domain = gridDomain(7, 6, 0.5, metric);
        const pi = lumpyPrior(domain.n, 11);
        const mech = planarLaplace(domain, 0.9);
        const res = remapMechanism(mech, domain, pi, { kind });
        const ref = optimalRemap(pi, mech.channel, buildLoss({ kind }, domain));
        expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
        expect(res.remappedLoss).toBe(ref.value);
        const closed = (metric === 'manhattan' && kind === 'dist') || (metric === 'euclidean' && kind === 'dist2');
        expect(res.method).toBe(closed ? 'loss-best' : 'certified-grid');
      });
    }
  }

  it('binary loss and randomised response go through the loss best response; the original is the face value', () => {
    const domain = gridDomain(3, 3);
    const mech = randomisedResponse(domain, 1);
    const pi = lumpyPrior(9, 2);
    const res = remapMechanism(mech, domain, pi, { kind: 'bin' });
    const ref = optimalRemap(pi, mech.channel, buildLoss({ kind: 'bin' }, domain));
    expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
    expect(res.remappedLoss).toBe(ref.value);
    expect(res.originalLoss!).toBeCloseTo(faceValue(mech.channel, pi, { kind: 'bin' }, domain), 14);
  });

  it('outputs that are not guesses: original loss is null and says why; columns are the guesses', () => {
    const domain = gridDomain(2, 2);
    const m = new Matrix(4, 2);
    for (let x = 0; x < 4; x++) {
      m.set(x, 0, x < 2 ? 0.7 : 0.3);
      m.set(x, 1, x < 2 ? 0.3 : 0.7);
    }
    const ch = new DenseChannel(m, ['(0,0)', '(0,1)', '(1,0)', '(1,1)'], ['top', 'bottom']);
    const res = bayesRemap(ch, domain, [0.1, 0.2, 0.3, 0.4], { kind: 'dist' });
    expect(res.originalLoss).toBeNull();
    expect(res.originalDefinition).toMatch(/not defined/);
    expect(res.channel.cols).toBe(4);
    expect(res.channel.colLabel(3)).toBe('(1,1)');
    const ref = optimalRemap([0.1, 0.2, 0.3, 0.4], ch, buildLoss({ kind: 'dist' }, domain));
    expect(Array.from(res.remap)).toEqual(Array.from(ref.remap));
  });

  it('refuses column access that does not describe the channel (another eps)', () => {
    const domain = gridDomain(5, 5);
    const mech = planarLaplace(domain, 0.5);
    expect(() => verifyColumns(mech.channel, planarLaplaceColumns(domain, 0.6))).toThrow(/column access disagrees/);
    expect(() =>
      bayesRemap(
        mech.channel,
        domain,
        lumpyPrior(25, 1),
        { kind: 'dist' },
        { columns: planarLaplaceColumns(domain, 0.6) },
      ),
    ).toThrow(/disagrees/);
  });

  it('rejects a prior of the wrong length or not summing to 1', () => {
    const domain = gridDomain(3, 3);
    const mech = planarLaplace(domain, 0.5);
    expect(() => remapMechanism(mech, domain, [0.5, 0.5], { kind: 'dist' })).toThrow(/prior has 2 entries/);
    expect(() => remapMechanism(mech, domain, new Float64Array(9).fill(0.2), { kind: 'dist' })).toThrow(/sums to/);
  });

  it('honours an aborted signal', () => {
    const domain = gridDomain(20, 20);
    const mech = planarLaplace(domain, 0.5);
    const ac = new AbortController();
    ac.abort();
    expect(() => remapMechanism(mech, domain, lumpyPrior(400, 3), { kind: 'dist' }, { signal: ac.signal })).toThrow(
      /cancelled/,
    );
  });

  it('100 x 100 planar Laplace with a non-uniform prior: remapped with under 20 evaluations an output, never worse than the original', () => {
    const domain = gridDomain(100, 100);
    const pi = lumpyPrior(domain.n, 9);
    const mech = planarLaplace(domain, 0.5);
    const res = remapMechanism(mech, domain, pi, { kind: 'dist' });
    expect(res.stats.columnAccess).toBe('direct');
    expect(res.stats.evaluations / domain.n).toBeLessThan(20); // a full scan evaluates 10^4 guesses per output
    expect(res.remappedLoss).toBeLessThan(res.originalLoss!);
  }, 120_000);
});

describe('certified best guess on grids (convexity cuts) vs the full scan', () => {
  const shapes: [number, number][] = [
    [1, 7],
    [6, 1],
    [5, 5],
    [6, 9],
  ];
  for (const metric of ['euclidean', 'manhattan', 'chebyshev'] as GridMetric[]) {
    for (const power of [1, 2] as const) {
      it(`${metric} power ${power}: same guess (smallest index on ties) and the same value bit for bit`, () => {
        const rnd = seededRandom(power * 7 + metric.length);
        for (const [R, C] of shapes) {
          const domain = gridDomain(R, C, 1.5, metric);
          const n = domain.n;
          const loss = buildLoss({ kind: power === 1 ? 'dist' : 'dist2' }, domain);
          const gb = new GridBestGuess(domain, power);
          const vectors: Float64Array[] = [new Float64Array(n), new Float64Array(n).fill(0.25)];
          const oneHot = new Float64Array(n);
          oneHot[n - 1] = 1;
          vectors.push(oneHot);
          for (let t = 0; t < 60; t++) {
            const q = new Float64Array(n);
            const mode = t % 4;
            for (let x = 0; x < n; x++) {
              const u = rnd();
              q[x] =
                mode === 0 ? u : mode === 1 ? (u < 0.6 ? 0 : u) : mode === 2 ? Math.exp(-8 * u) : Math.round(u * 3); // ties in mode 3
            }
            vectors.push(q);
          }
          // symmetric posteriors: exact ties between mirror guesses
          const sym = new Float64Array(n);
          for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) sym[r * C + c] = c === 0 || c === C - 1 ? 1 : 0;
          vectors.push(sym);
          for (const q of vectors) {
            const want = bestByScan(loss, q);
            const got = gb.best(q);
            expect(got.w).toBe(want.w);
            expect(got.value).toBe(want.value);
          }
        }
      });
    }
  }
});
