/**
 * The structured privacy check of offset channels (planar Laplace) against
 * the all-pairs check on the same stored channel: equal on planar Laplace
 * (every grid shape class, every metric, passing and failing eps), never
 * less strict on channels without the structure.
 */
import { describe, expect, it } from 'vitest';
import { checkGridOffsetPrivacy, gridOffsetCheckWork } from '../../../../src-worker/check/grid-offset-check';
import { checkPrivacy } from '../../../../src-worker/check/privacy-check';
import { admitRequest } from '../../../../src-worker/jobs/admission';
import { checkChannel } from '../../../../src-worker/jobs/engine';
import { parseJobRequest } from '../../../../src-shared/protocol/validate';
import type { RowSource } from '../../../../src-worker/mechanism/channel';
import { FunctionRowSource } from '../../../../src-worker/mechanism/function-row-source';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { parseDomainSpec } from '../../../../src-worker/metric/parse-domain-spec';
import type { Domain } from '../../../../src-worker/metric/domain';
import { runJob } from '../../support/run-job';

/** A copy of a channel's rows with some entries changed (no offset structure any more). */
function edited(src: RowSource, edit: (x: number, row: Float64Array) => void): RowSource {
  const rows: Float64Array[] = [];
  for (let x = 0; x < src.rows; x++) {
    const r = Float64Array.from(src.row(x, new Float64Array(src.cols)));
    edit(x, r);
    rows.push(r);
  }
  return new FunctionRowSource(
    src.rows,
    src.cols,
    (i, out) => out.set(rows[i]!),
    (i) => src.rowLabel(i),
  );
}

/** The channel with entry(x, y) in row x, column y, on domain d. */
function entryChannel(d: Domain, entry: (x: number, y: number) => number): FunctionRowSource {
  return new FunctionRowSource(
    d.n,
    d.n,
    (i, out) => {
      for (let j = 0; j < d.n; j++) out[j] = entry(i, j);
    },
    (i) => d.label(i),
  );
}

function rel(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(1e-300, Math.abs(b));
}

describe('grid offset check: equals all pairs on planar Laplace', () => {
  const shapes = ['1x1', '1x6', '5x1', '2x2', '2x7', '3x3', '4x5', '6x6', '3x8'];
  const metrics = ['euclidean', 'manhattan', 'chebyshev'];
  for (const shape of shapes) {
    for (const metric of metrics) {
      it(`${shape} ${metric}`, () => {
        const domain = parseDomainSpec(`grid:${shape}:step=0.7:metric=${metric}`);
        for (const eps of [0.3, 1.4, 4]) {
          const m = planarLaplace(domain, eps);
          // At its own eps (passes), and at a smaller eps (fails wherever the channel is not constant).
          for (const checkEps of [eps, eps / 3]) {
            const s = checkGridOffsetPrivacy(m.channel, domain, checkEps, { topK: 5 });
            const a = checkPrivacy(m.channel, domain, checkEps, { topK: 5, pairs: 'all' });
            expect(s.exact).toBe(true);
            expect(s.mode).toBe('grid-offsets');
            expect(s.passes).toBe(a.passes);
            expect(rel(s.effectiveEpsilon, a.effectiveEpsilon)).toBeLessThan(1e-12);
            expect(s.violatingPairs > 0).toBe(a.violatingPairs > 0);
            if (a.worst.length > 0) {
              // The worst reported triple is a real one with the all-pairs worst effective eps.
              const w = s.worst[0]!;
              expect(rel(w.effectiveEpsilon, a.worst[0]!.effectiveEpsilon)).toBeLessThan(1e-12);
              const rx = m.channel.row(w.xIndex, new Float64Array(domain.n))[w.yIndex]!;
              const rxp = m.channel.row(w.xpIndex, new Float64Array(domain.n))[w.yIndex]!;
              expect(rel(Math.log(rx / rxp), w.lnRatio)).toBeLessThan(1e-12);
              expect(rel(domain.distance(w.xIndex, w.xpIndex), w.distance)).toBeLessThan(1e-12);
            }
          }
        }
      });
    }
  }
});

describe('grid offset check: never less strict than all pairs', () => {
  const domain = parseDomainSpec('grid:4x4:step=1');
  const base = planarLaplace(domain, 1);

  it('one entry raised: at least the all-pairs effective eps, equal when still exact', () => {
    let seed = 7;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    let exactSeen = 0;
    let inexactSeen = 0;
    for (let trial = 0; trial < 40; trial++) {
      const tx = Math.floor(rand() * 16);
      const ty = Math.floor(rand() * 16);
      const f = 1 + rand() * 3;
      const ch = edited(base.channel, (x, r) => {
        if (x === tx) r[ty] = Math.min(1, r[ty]! * f);
      });
      for (const eps of [1, 1.5, 3]) {
        const s = checkGridOffsetPrivacy(ch, domain, eps);
        const a = checkPrivacy(ch, domain, eps, { pairs: 'all' });
        if (s.passes) expect(a.passes).toBe(true);
        expect(s.effectiveEpsilon).toBeGreaterThanOrEqual(a.effectiveEpsilon * (1 - 1e-12));
        // A corner output's points each hold one entry, so raising one there keeps the structure exact.
        if (s.exact) {
          exactSeen++;
          expect(rel(s.effectiveEpsilon, a.effectiveEpsilon)).toBeLessThan(1e-12);
          expect(s.passes).toBe(a.passes);
        } else inexactSeen++;
      }
    }
    expect(inexactSeen).toBeGreaterThan(0);
    expect(exactSeen).toBeGreaterThan(0);
  });

  it('a zero entry facing a positive one is never private', () => {
    const ch = edited(base.channel, (x, r) => {
      if (x === 5) r[10] = 0;
    });
    const s = checkGridOffsetPrivacy(ch, domain, 1e6);
    expect(s.passes).toBe(false);
    expect(s.effectiveEpsilon).toBe(Infinity);
    expect(checkPrivacy(ch, domain, 1e6, { pairs: 'all' }).passes).toBe(false);
  });

  it('a NaN or negative entry is an error, not a verdict', () => {
    for (const bad of [Number.NaN, -0.1, Infinity]) {
      const ch = edited(base.channel, (x, r) => {
        if (x === 3) r[2] = bad;
      });
      expect(() => checkGridOffsetPrivacy(ch, domain, 1)).toThrow(/not a probability/);
    }
  });

  it('random channels: the verdict is never safer than all pairs', () => {
    let seed = 99;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const d = parseDomainSpec('grid:3x4:step=2:metric=manhattan');
    for (let trial = 0; trial < 60; trial++) {
      // Rows near-uniform (often private at moderate eps), some with zeros.
      const rows = Array.from({ length: d.n }, () => {
        const r = Float64Array.from({ length: d.n }, () => (rand() < 0.03 ? 0 : 0.5 + rand()));
        const s = r.reduce((p, v) => p + v, 0);
        return r.map((v) => v / s);
      });
      const ch = new FunctionRowSource(
        d.n,
        d.n,
        (i, out) => out.set(rows[i]!),
        (i) => d.label(i),
      );
      for (const eps of [0.2, 0.5, 2]) {
        const s = checkGridOffsetPrivacy(ch, d, eps);
        const a = checkPrivacy(ch, d, eps, { pairs: 'all' });
        if (s.passes) expect(a.passes).toBe(true);
        expect(s.effectiveEpsilon).toBeGreaterThanOrEqual(a.effectiveEpsilon * (1 - 1e-12));
      }
    }
  });
});

describe('grid offset check: exact on any offset-structured table', () => {
  // Entries that depend only on (class of y, offset or border coordinate), drawn at random, so the worst pair
  // can be anywhere, including inner offsets R - 1 apart. Rows need not sum to 1 for the check.
  it('random offset tables on small grids: equal to all pairs', () => {
    let seed = 4242;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (const shape of ['3x3', '3x4', '4x3', '2x5', '5x5']) {
      for (const metric of ['euclidean', 'chebyshev']) {
        const d = parseDomainSpec(`grid:${shape}:metric=${metric}`);
        const g = d.structure.grid!;
        for (let trial = 0; trial < 8; trial++) {
          const table = new Map<string, number>();
          const key = (q: number, p: number, L: number): string =>
            q === 0 ? `f${p}` : q === L - 1 ? `l${p}` : `i${q - p}`;
          const entry = (x: number, y: number): number => {
            const k = `${key(Math.floor(y / g.cols), Math.floor(x / g.cols), g.rows)}|${key(y % g.cols, x % g.cols, g.cols)}`;
            let v = table.get(k);
            if (v === undefined) {
              v = 0.05 + 0.95 * rand();
              table.set(k, v);
            }
            return v;
          };
          const ch = entryChannel(d, entry);
          const s = checkGridOffsetPrivacy(ch, d, 1);
          const a = checkPrivacy(ch, d, 1, { pairs: 'all' });
          expect(s.exact).toBe(true);
          expect(rel(s.effectiveEpsilon, a.effectiveEpsilon)).toBeLessThan(1e-12);
          expect(s.passes).toBe(a.passes);
        }
      }
    }
  });
});

describe('grid offset check: pairs R - 1 rows apart', () => {
  it('a table increasing along (2, 1) on a 3-row Euclidean grid: the only worst pairs are offset (2, 1)', () => {
    const d = parseDomainSpec('grid:3x5');
    const C = 5;
    const c = 0.8;
    const v = [2 / Math.sqrt(5), 1 / Math.sqrt(5)];
    // Inner outputs (row 1, columns 1..3): e^(c <y - x, v>) scaled into (0, 1]; every other output constant.
    const entry = (x: number, y: number): number => {
      const qr = Math.floor(y / C);
      const qc = y % C;
      if (qr !== 1 || qc === 0 || qc === C - 1) return 0.5;
      const a = qr - Math.floor(x / C);
      const b = qc - (x % C);
      return Math.exp(c * (a * v[0]! + b * v[1]!) - 10);
    };
    const ch = entryChannel(d, entry);
    const a = checkPrivacy(ch, d, 1, { pairs: 'all' });
    const s = checkGridOffsetPrivacy(ch, d, 1);
    expect(rel(a.effectiveEpsilon, c)).toBeLessThan(1e-12);
    expect(rel(s.effectiveEpsilon, c)).toBeLessThan(1e-12);
    const w = s.worst[0]!;
    expect([
      Math.abs(Math.floor(w.xIndex / C) - Math.floor(w.xpIndex / C)),
      Math.abs((w.xIndex % C) - (w.xpIndex % C)),
    ]).toEqual([2, 1]);
  });
});

describe('jobs use the structured check for planar Laplace', () => {
  it('30 x 30 (the all-pairs work is 3.6e8): same verdict as all pairs would give, exact', async () => {
    const domain = parseDomainSpec('grid:30x30:step=0.5');
    const m = planarLaplace(domain, Math.log(4));
    const r = await checkChannel(m.channel, domain, Math.log(4), 3);
    expect(r.passes).toBe(true);
    // Planar Laplace's effective eps is below its guarantee (snapping is post-processing) and close to it.
    expect(r.effectiveEpsilon).toBeLessThanOrEqual(Math.log(4) * (1 + 1e-9));
    expect(r.effectiveEpsilon).toBeGreaterThan(Math.log(4) * 0.5);
    const strict = await checkChannel(m.channel, domain, Math.log(4) / 2, 3);
    expect(strict.passes).toBe(false);
    expect(strict.worst[0]!.violates).toBe(true);
  });
});

describe('grid offset check: work estimate', () => {
  it("equals the scan's pair count plus the n^2 entries read", () => {
    for (const shape of [
      [1, 1],
      [1, 6],
      [2, 2],
      [3, 5],
      [7, 4],
      [30, 30],
    ] as const) {
      const d = parseDomainSpec(`grid:${shape[0]}x${shape[1]}`);
      const r = checkGridOffsetPrivacy(planarLaplace(d, 1).channel, d, 1);
      expect(gridOffsetCheckWork(shape[0], shape[1])).toBe(r.pairsChecked + d.n * d.n);
    }
  });
});

describe('check jobs of planar Laplace', () => {
  const run = async (raw: unknown): Promise<Record<string, unknown>> =>
    (await runJob(raw)) as unknown as Record<string, unknown>;
  const mech = (domain: string, epsilon: number) => ({ kind: 'planar-laplace', domain, epsilon });

  it('30 x 30 (3.6e8 all-pairs comparisons, once refused): private at ln 4, not at ln 4 / 2', async () => {
    const eps = Math.log(4);
    const ok = await run({
      type: 'check',
      mechanism: mech('grid:30x30:step=0.5', eps),
      domain: 'grid:30x30:step=0.5',
      epsilon: eps,
    });
    expect(ok.private).toBe(true);
    expect(ok.effectiveEpsilon as number).toBeLessThanOrEqual(eps * (1 + 1e-9));
    expect(ok.pairsChecked).toBe(gridOffsetCheckWork(30, 30) - 900 * 900);
    const bad = await run({
      type: 'check',
      mechanism: mech('grid:30x30:step=0.5', eps),
      domain: 'grid:30x30:step=0.5',
      epsilon: eps / 2,
    });
    expect(bad.private).toBe(false);
    expect((bad.violations as unknown[]).length).toBeGreaterThan(0);
  });

  it('admission prices the offset check: 100 x 100 admitted, 200 x 200 refused at once', () => {
    const req = (s: number) =>
      parseJobRequest({ type: 'check', mechanism: mech(`grid:${s}x${s}`, 1), domain: `grid:${s}x${s}`, epsilon: 1 });
    const r100 = req(100);
    const r200 = req(200);
    if (!r100.ok || !r200.ok) throw new Error('requests should parse');
    expect(() => admitRequest(r100.value)).not.toThrow();
    expect(() => admitRequest(r200.value)).toThrow(
      /privacy check of planar Laplace on grid:200x200 by its grid offsets/,
    );
    // Without the structure the 100 x 100 check (5e11 comparisons) is refused.
    const dense = parseJobRequest({
      type: 'check',
      mechanism: { kind: 'exponential', domain: 'grid:100x100', epsilon: 1 },
      domain: 'grid:100x100',
      epsilon: 1,
    });
    if (!dense.ok) throw new Error('request should parse');
    expect(() => admitRequest(dense.value)).toThrow(/too-large|limit/);
  });
});
