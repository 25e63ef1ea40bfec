import { describe, expect, it } from 'vitest';
import { decideHeader, readCsvStream, releaseCsv, secretsReader } from '../../../../src-worker/data/apply';
import { ChannelSampler, RELEASE_WARNING, cryptoBits, seededBits } from '../../../../src-worker/data/channel-sampler';
import { cellBinning, parsePointsCsv, pointsToGrid } from '../../../../src-worker/data/points';
import { MechError } from '../../../../src-shared/errors';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { lineDomain } from '../../../../src-worker/metric/line';
import { seededRandom } from '../../../../src-shared/numeric/seeded-random';
import { readCsvRows } from '../../../../src-worker/metric/read-csv';
import type { CsvRow } from '../../../../src-shared/csv/csv-reader';

/**
 * Upper alpha quantile of chi-square with k degrees of freedom by the
 * Wilson-Hilferty approximation: k (1 - 2/(9k) + z sqrt(2/(9k)))^3, z the
 * upper alpha quantile of N(0,1) (accurate to ~1% for k >= 10).
 */
function chiSquareCritical(k: number, z: number): number {
  const a = 2 / (9 * k);
  return k * (1 - a + z * Math.sqrt(a)) ** 3;
}
const Z_001 = 3.090232306167813; // alpha = 0.001
const Z_1E6 = 4.753424308822899; // alpha = 1e-6

/** Pearson chi-square of observed counts against probabilities p (bins with expectation < 5 merged into one). */
function chiSquare(counts: number[], p: Float64Array, draws: number): { stat: number; df: number } {
  let stat = 0;
  let bins = 0;
  let restObs = 0;
  let restExp = 0;
  for (let y = 0; y < p.length; y++) {
    const e = p[y]! * draws;
    if (e < 5) {
      restObs += counts[y]!;
      restExp += e;
      continue;
    }
    stat += (counts[y]! - e) ** 2 / e;
    bins++;
  }
  if (restExp > 0) {
    stat += (restObs - restExp) ** 2 / restExp;
    bins++;
  }
  return { stat, df: bins - 1 };
}

describe('sampling released outputs from a channel row', () => {
  const domain = gridDomain(6, 6);
  const mech = planarLaplace(domain, 0.7);
  const secret = 14;
  const row = mech.channel.row(secret, new Float64Array(36));

  it('10^5 seeded draws match the channel row (chi-square, alpha = 0.001); a different row is rejected', () => {
    const draws = 100_000;
    const s = new ChannelSampler(mech.channel, { seed: 20261124 });
    const counts = new Array<number>(36).fill(0);
    for (let i = 0; i < draws; i++) counts[s.sample(secret)]!++;
    const { stat, df } = chiSquare(counts, row, draws);
    expect(df).toBeGreaterThanOrEqual(20);
    const crit = chiSquareCritical(df, Z_001);
    expect(stat).toBeLessThan(crit);
    // power: the same counts against the neighbouring secret's row fail clearly
    const other = mech.channel.row(secret + 1, new Float64Array(36));
    expect(chiSquare(counts, other, draws).stat).toBeGreaterThan(10 * crit);
    expect(s.forRelease).toBe(false);
    expect(s.stats()).toMatchObject({ draws, rowsBuilt: 1, cacheHits: draws - 1, forRelease: false });
  });

  it('the same seed gives the same stream; another seed a different one', () => {
    const a = new ChannelSampler(mech.channel, { seed: 7 });
    const b = new ChannelSampler(mech.channel, { seed: 7 });
    const c = new ChannelSampler(mech.channel, { seed: 8 });
    const xs = Array.from({ length: 200 }, (_, i) => (i * 7) % 36);
    const ra = Array.from(a.sampleAll(xs));
    expect(Array.from(b.sampleAll(xs))).toEqual(ra);
    expect(Array.from(c.sampleAll(xs))).not.toEqual(ra);
  });

  it('the crypto generator: 52-bit integers, valid outputs, never a zero-probability output, frequencies right (alpha = 1e-6)', () => {
    const u = cryptoBits(64);
    let sum = 0;
    let high = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = u.bits(52);
      expect(Number.isInteger(v) && v >= 0 && v < 2 ** 52).toBe(true);
      if (v >= 2 ** 51) high++;
      sum += v / 2 ** 52;
      expect([0, 1]).toContain(u.bits(1));
    }
    expect(Math.abs(sum / 20_000 - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(high / 20_000 - 0.5)).toBeLessThan(0.02);
    const m = new Matrix(2, 5);
    [0, 0.5, 0, 0.3, 0.2].forEach((v, j) => m.set(0, j, v));
    [1, 0, 0, 0, 0].forEach((v, j) => m.set(1, j, v));
    const s = new ChannelSampler(new DenseChannel(m));
    expect(s.forRelease).toBe(true);
    const counts = [0, 0, 0, 0, 0];
    for (let i = 0; i < 50_000; i++) counts[s.sample(0)]!++;
    expect(counts[0]).toBe(0);
    expect(counts[2]).toBe(0);
    const p = new Float64Array([0, 0.5, 0, 0.3, 0.2]);
    const { stat, df } = chiSquare(counts, p, 50_000);
    expect(df).toBe(2);
    expect(stat).toBeLessThan(27.63); // chi-square 2 df, alpha = 1e-6: -2 ln(1e-6)
    for (let i = 0; i < 100; i++) expect(s.sample(1)).toBe(0);
    void Z_1E6;
  });

  it('seeded bits are 52-bit integers and refuse a bad seed', () => {
    const u = seededBits(1);
    const v = Array.from({ length: 1000 }, () => u.bits(52));
    expect(v.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 52)).toBe(true);
    expect(v.some((x) => x % 2 ** 32 !== 0 && x >= 2 ** 32)).toBe(true); // more than 32 bits
    expect(() => seededBits(-1)).toThrow(/seed/);
    expect(() => seededBits(1.5)).toThrow(/seed/);
  });

  it('streams 10^6 secrets through a bounded row cache (3 rows) in order', () => {
    const d = lineDomain(50);
    const tg = truncatedGeometric(d, 0.5);
    const s = new ChannelSampler(tg.channel, { seed: 1, cacheEntries: 150 });
    function* secrets(): Generator<number> {
      for (let i = 0; i < 1_000_000; i++) yield (i * 13) % 50;
    }
    let k = 0;
    let lastOk = true;
    for (const y of s.sampleAll(secrets())) {
      if (!(y >= 0 && y < 50)) lastOk = false;
      k++;
    }
    expect(lastOk).toBe(true);
    expect(k).toBe(1_000_000);
    const st = s.stats();
    expect(st.cachedRows).toBeLessThanOrEqual(3);
    expect(st.rowsBuilt).toBeLessThanOrEqual(50 * Math.ceil(1_000_000 / 65536)); // once per distinct secret per block, not per input
  }, 60_000);

  it('blocks grouped by secret keep the input order, and each secret still gets its own row (chi-square, alpha = 0.001)', () => {
    // rows 0 and 1 are deterministic (output = secret); row 2 is the planar Laplace row above
    const m = new Matrix(3, 36);
    m.set(0, 0, 1);
    m.set(1, 1, 1);
    for (let y = 0; y < 36; y++) m.set(2, y, row[y]!);
    const s = new ChannelSampler(new DenseChannel(m), { seed: 99 });
    const rnd = seededRandom(5);
    const secrets = Array.from({ length: 150_000 }, () => Math.floor(rnd() * 3));
    const outs = Array.from(s.sampleAll(secrets, 4096));
    expect(outs.length).toBe(secrets.length);
    const counts = new Array<number>(36).fill(0);
    let draws = 0;
    for (let i = 0; i < secrets.length; i++) {
      if (secrets[i] === 2) {
        counts[outs[i]!]!++;
        draws++;
      } else expect(outs[i]).toBe(secrets[i]);
    }
    const { stat, df } = chiSquare(counts, row, draws);
    expect(stat).toBeLessThan(chiSquareCritical(df, Z_001));
    expect(s.stats().rowsBuilt).toBe(3);
  });

  it('rejects a row that is not a distribution, naming it', () => {
    const m = new Matrix(1, 2);
    m.set(0, 0, 0.5);
    m.set(0, 1, 0.6);
    expect(() => new ChannelSampler(new DenseChannel(m, ['a'], ['u', 'v']), { seed: 1 }).sample(0)).toThrow(
      /row a sums to 1.1/,
    );
  });
});

describe('secrets CSV rows to secrets', () => {
  it('labels, numeric values and points; a row outside the domain is an error naming its line, never quoting it', () => {
    const d = lineDomain(20);
    const rows = readCsvRows('value\n3\n17.0\n1.7e1\n', 's.csv');
    const r = secretsReader(rows[0]!, d, 's.csv');
    expect(r.mode).toBe('labels');
    expect(rows.slice(1).map((x) => r.secretOf(x))).toEqual([3, 17, 17]);
    const bad = readCsvRows('value\n3\nsecret-person-42\n', 's.csv');
    try {
      bad.slice(1).map((x) => r.secretOf(x));
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(MechError);
      expect((e as Error).message).toMatch(/s\.csv, line 3: the secret is not a point of line:20/);
      expect((e as Error).message).not.toMatch(/person/);
    }
    const g = gridDomain(2, 3);
    const gl = readCsvRows('cell\n"(1,2)"\n(0,0)\n', 'g.csv');
    const gr = secretsReader(gl[0]!, g, 'g.csv');
    expect(gl.slice(1).map((x) => gr.secretOf(x))).toEqual([5, 0]);
    // points in km on a 2 x 3 grid of 1 km cells, top-left at (0, 2)
    const bin = cellBinning(0, 2, 2, 3, 1);
    const pl = readCsvRows('x,y\n0.5,1.5\n2.5,0.2\n3.5,1\n', 'p.csv');
    const pr = secretsReader(pl[0]!, g, 'p.csv', { binning: bin });
    expect(pr.secretOf(pl[1]!)).toBe(0);
    expect(pr.secretOf(pl[2]!)).toBe(5);
    expect(() => pr.secretOf(pl[3]!)).toThrow(/p\.csv, line 4: the point is outside the grid/);
    expect(() => secretsReader(pl[0]!, g, 'p.csv')).toThrow(/no grid binning/);
  });

  it('line 1 is a header only when it is not a secret: labels, grid tuples and headerless points in the grid units', () => {
    const g = gridDomain(2, 3);
    const first = (text: string): CsvRow => readCsvRows(text, 's.csv')[0]!;
    expect(decideHeader(first('cell\n'), g, 's.csv', 'auto').header).toBe(true);
    const t = decideHeader(first('"(1,2)"\n'), g, 's.csv', 'auto');
    expect(t.header).toBe(false);
    expect(t.reader.secretOf(first('"(1,2)"\n'))).toBe(5);
    // a tuple outside the domain is a secret in error, not a header
    expect(() => decideHeader(first('"(7,7)"\n'), g, 's.csv', 'auto')).toThrow(
      /s\.csv, line 1: the secret is not a point of grid/,
    );
    const bin = cellBinning(0, 2, 2, 3, 1);
    const p = decideHeader(first('2.5,0.2\n'), g, 'p.csv', 'auto', { binning: bin });
    expect(p).toMatchObject({ header: false, reader: { mode: 'points' } });
    expect(p.reader.secretOf(first('0.5,1.5\n'))).toBe(0);
    expect(decideHeader(first('x,y\n'), g, 'p.csv', 'auto', { binning: bin }).header).toBe(true);
    expect(() => decideHeader(first('3.5,1\n'), g, 'p.csv', 'auto', { binning: bin })).toThrow(
      /p\.csv, line 1: the point is outside the grid/,
    );
    // explicit choices are followed
    expect(decideHeader(first('"(1,2)"\n'), g, 's.csv', 'yes').header).toBe(true);
    expect(decideHeader(first('2.5,0.2\n'), g, 'p.csv', 'no', { binning: bin }).reader.mode).toBe('points');
  });
});

async function* chunks(text: string, size = 7): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

describe('release: secrets CSV in, released CSV out (streaming)', () => {
  it('writes one released output per row, in order, marked NOT FOR RELEASE when seeded, with cell centres for points', async () => {
    const pts = parsePointsCsv('x,y\n0.2,0.2\n0.3,0.4\n2.6,1.8\n1.5,1.5\n');
    const grid = pointsToGrid(pts, { cellKm: 1, smoothing: 1 });
    const d = gridDomain(grid.rows, grid.cols, grid.cellKm);
    const mech = planarLaplace(d, 1);
    const input = 'x,y\n0.2,0.2\n2.6,1.8\n1.5,1.5\n0.3,0.4\n2.6,1.8\n';
    let out = '';
    const res = await releaseCsv(
      readCsvStream(chunks(input), 'in.csv'),
      mech.channel,
      d,
      (t) => {
        out += t;
      },
      'in.csv',
      { seed: 5, points: { binning: cellBinning(grid.xMin, grid.yMax, grid.rows, grid.cols, grid.cellKm) } },
    );
    expect(res.rows).toBe(5);
    expect(res.forRelease).toBe(false);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe(`# ${RELEASE_WARNING}`);
    expect(lines[1]).toBe('released,x,y');
    expect(lines.length).toBe(7);
    for (const l of lines.slice(2)) {
      const m = /^"\((\d+),(\d+)\)",([-\d.e]+),([-\d.e]+)$/.exec(l);
      expect(m).not.toBeNull();
      const [r, c, x, y] = [Number(m![1]), Number(m![2]), Number(m![3]), Number(m![4])];
      expect(x).toBeCloseTo(grid.xMin + c + 0.5, 12);
      expect(y).toBeCloseTo(grid.yMax - r - 0.5, 12);
    }
    // reproducible with the same seed
    let again = '';
    await releaseCsv(
      readCsvStream(chunks(input, 3), 'in.csv'),
      mech.channel,
      d,
      (t) => {
        again += t;
      },
      'in.csv',
      { seed: 5, points: { binning: cellBinning(grid.xMin, grid.yMax, grid.rows, grid.cols, grid.cellKm) } },
    );
    expect(again).toBe(out);
  });

  it('crypto release has no warning line; an input outside the domain stops with the line number', async () => {
    const d = lineDomain(10);
    const tg = truncatedGeometric(d, 1);
    let out = '';
    const ok = await releaseCsv(
      readCsvStream(chunks('secret\n1\n2\n9\n'), 's.csv'),
      tg.channel,
      d,
      (t) => {
        out += t;
      },
      's.csv',
    );
    expect(ok.forRelease).toBe(true);
    expect(out.split('\n')[0]).toBe('released');
    expect(
      out
        .trim()
        .split('\n')
        .slice(1)
        .every((l) => /^\d$/.test(l)),
    ).toBe(true);
    await expect(
      releaseCsv(readCsvStream(chunks('secret\n1\n# comment\n10\n'), 's.csv'), tg.channel, d, () => {}, 's.csv', {
        seed: 1,
      }),
    ).rejects.toThrow(/s\.csv, line 4: the secret is not a point/);
    await expect(releaseCsv(readCsvStream(chunks(''), 's.csv'), tg.channel, d, () => {}, 's.csv')).rejects.toThrow(
      /empty/,
    );
    await expect(
      releaseCsv(readCsvStream(chunks('secret\n"1\n'), 's.csv'), tg.channel, d, () => {}, 's.csv'),
    ).rejects.toThrow(/malformed CSV/);
  });

  it('10^5 rows stream through without being held (lazy input, chunked writes)', async () => {
    const d = gridDomain(10, 10);
    const mech = planarLaplace(d, 0.5);
    async function* lazy(): AsyncGenerator<string> {
      yield 'cell\n';
      for (let i = 0; i < 100_000; i += 1000) {
        let s = '';
        for (let j = i; j < i + 1000; j++) s += `"(${j % 10},${Math.floor(j / 10) % 10})"\n`;
        yield s;
      }
    }
    let lines = 0;
    let writes = 0;
    const res = await releaseCsv(
      readCsvStream(lazy(), 'big.csv'),
      mech.channel,
      d,
      (t) => {
        writes++;
        for (let i = 0; i < t.length; i++) if (t.charCodeAt(i) === 10) lines++;
      },
      'big.csv',
      { seed: 3 },
    );
    expect(res.rows).toBe(100_000);
    expect(lines).toBe(100_002); // warning + header + rows
    expect(writes).toBeGreaterThan(20);
    expect(res.stats.rowsBuilt).toBe(100);
  }, 60_000);
});

describe('readCsvStream when its consumer stops early', () => {
  it('returns (no hang) after a break on the first row of a large stream, and the source is not read to the end', async () => {
    let chunks = 0;
    async function* source(): AsyncGenerator<string> {
      yield 'x,y\n';
      for (let i = 0; i < 2000; i++) {
        chunks++;
        yield '1,2\n'.repeat(1000);
      }
    }
    let rows = 0;
    for await (const _row of readCsvStream(source(), 'big.csv')) {
      rows++;
      break;
    }
    expect(rows).toBe(1);
    expect(chunks).toBeLessThan(2000);
  }, 20_000);

  it('an error thrown by the consumer propagates (no hang)', async () => {
    async function* source(): AsyncGenerator<string> {
      yield 'cell\n';
      for (let i = 0; i < 2000; i++) yield '3\n'.repeat(1000);
    }
    const consume = async (): Promise<void> => {
      for await (const row of readCsvStream(source(), 'big.csv')) if (row.line > 1) throw new Error('stop at line 2');
    };
    await expect(consume()).rejects.toThrow('stop at line 2');
  }, 20_000);
});
