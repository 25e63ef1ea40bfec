import { describe, expect, it } from 'vitest';
import {
  ChannelSampler,
  type RandomBits,
  decideExact,
  exactRow,
  seededBits,
} from '../../../../src-worker/data/channel-sampler';
import { planarLaplace } from '../../../../src-worker/mechanism/planar-laplace';
import { gridDomain } from '../../../../src-worker/metric/grid';
import { Matrix } from '../../../../src-worker/linalg/matrix';
import { DenseChannel } from '../../../../src-worker/mechanism/channel';
import { truncatedGeometric } from '../../../../src-worker/mechanism/truncated-geometric';
import { lineDomain } from '../../../../src-worker/metric/line';

/** A double as an exact integer over 2^1074 (doubling is exact). */
function over1074(v: number): bigint {
  let k = 0;
  while (!Number.isInteger(v)) {
    v *= 2;
    k++;
  }
  return BigInt(v) << BigInt(1074 - k);
}

class OutOfBits extends Error {}

/** Bits replayed from a path; asking past its end throws, so the walk extends the path. */
class PathBits implements RandomBits {
  readonly cryptographic = false;
  path: number[] = [];
  pos = 0;
  bits(k: number): number {
    if (this.pos + k > this.path.length) throw new OutOfBits();
    let v = 0;
    for (let i = 0; i < k; i++) v = v * 2 + this.path[this.pos++]!;
    return v;
  }
}

/**
 * Walks the whole decision tree of one attempt of the sampler for secret x:
 * every bit string it reads, depth first. Returns, per output (index m = the
 * rejected range), the probability of reaching it as a numerator over 2^depth.
 */
function walk(channel: DenseChannel, x: number, fastBits: number): { mass: bigint[]; depth: number; leaves: number } {
  const src = new PathBits();
  const sampler = new ChannelSampler(channel, { random: src, fastBits });
  const m = channel.cols;
  const leaves: { out: number; len: number }[] = [];
  const stack: number[][] = [[]];
  let depth = 0;
  while (stack.length > 0) {
    const path = stack.pop()!;
    src.path = path;
    src.pos = 0;
    try {
      const out = sampler.attempt(x);
      expect(src.pos).toBe(path.length); // a leaf reads its whole path
      leaves.push({ out, len: path.length });
      depth = Math.max(depth, path.length);
    } catch (e) {
      if (!(e instanceof OutOfBits)) throw e;
      stack.push([...path, 1], [...path, 0]);
    }
  }
  const mass = new Array<bigint>(m + 1).fill(0n);
  for (const { out, len } of leaves) mass[out] = mass[out]! + (1n << BigInt(depth - len));
  return { mass, depth, leaves: leaves.length };
}

/** Asserts that the walked distribution, given acceptance, is row / sum(row) exactly. */
function expectExact(row: number[], fastBits: number): { depth: number; leaves: number } {
  const m = row.length;
  const mat = new Matrix(1, m);
  row.forEach((v, j) => mat.set(0, j, v));
  const { mass, depth, leaves } = walk(new DenseChannel(mat), 0, fastBits);
  const total = 1n << BigInt(depth);
  expect(mass.reduce((a, b) => a + b, 0n)).toBe(total); // the tree is finite: every path ends in a leaf
  const accepted = total - mass[m]!;
  expect(mass[m]! * 2n ** 51n).toBeLessThan(total); // rejection below 2^-51
  const exact = row.map(over1074);
  const s = exact.reduce((a, b) => a + b, 0n);
  for (let y = 0; y < m; y++) expect(mass[y]! * s).toBe(exact[y]! * accepted); // p_y = C[y] / S exactly
  return { depth, leaves };
}

describe('the exact sampler: each output is drawn with exactly its stored probability', () => {
  it('rows with 2^-60 and 2^-1074 next to large entries: the walked distribution equals the row exactly', () => {
    // 0.3 + 0.7 is not exactly 1 in binary: the sum is not a power of two
    for (const row of [
      [0.5, 2 ** -60, 2 ** -1074, 0.5],
      [0.3, 2 ** -60, 0.7, 2 ** -1074, 0],
      [2 ** -1074, 1 - 2 ** -53, 2 ** -1074, 2 ** -60],
    ])
      for (const k of [1, 8]) {
        const { depth } = expectExact(row, k);
        // the tiny entries are decided only after about 1074 bits
        expect(depth).toBeGreaterThanOrEqual(1074);
      }
  }, 120_000);

  it('tg on line:60 at eps 1: secret 0 reaches every output, 59 included, with its exact probability', () => {
    const tg = truncatedGeometric(lineDomain(60), 1);
    const row = Array.from(tg.channel.row(0, new Float64Array(60)));
    // double prefix sums stop changing before the end: the old sampler never released those outputs
    let s = 0;
    let last = 0;
    for (let y = 0; y < 60; y++) {
      if (s + row[y]! !== s) last = y;
      s += row[y]!;
    }
    expect(last).toBeLessThan(59);
    expect(row[59]).toBeGreaterThan(0);
    expectExact(row, 8);
  }, 120_000);

  it('with the 52-bit fast path: the bits of the start of output 59 release 59 for secret 0', () => {
    const tg = truncatedGeometric(lineDomain(60), 1);
    const { bounds, L } = exactRow(tg.channel.row(0, new Float64Array(60)));
    const n = bounds[58]!; // the first integer of output 59's range
    const bits = n.toString(2).padStart(L, '0');
    let pos = 0;
    const src: RandomBits = {
      cryptographic: false,
      bits(k) {
        const v = parseInt(bits.slice(pos, pos + k), 2);
        pos += k;
        return v;
      },
    };
    const sampler = new ChannelSampler(tg.channel, { random: src });
    expect(sampler.sample(0)).toBe(59);
    expect(sampler.stats().exactDraws).toBe(1);
    expect(pos).toBeGreaterThan(52);
  });

  it('the 52-bit fast path agrees with the exact path on every prefix within 40 units of a boundary', () => {
    const pl = planarLaplace(gridDomain(5, 5), 0.9);
    const tg = truncatedGeometric(lineDomain(60), 1);
    let fast = 0;
    for (const [ch, xs] of [
      [tg.channel, [0, 30, 58]],
      [pl.channel, [0, 12]],
    ] as const)
      for (const x of xs) {
        const row = ch.row(x, new Float64Array(ch.cols));
        const exact = exactRow(row);
        const shift = BigInt(exact.L - 52);
        for (const b of exact.bounds)
          for (let d = -40; d <= 40; d++) {
            const a = Number(b >> shift) + d;
            if (a < 0 || a >= 2 ** 52) continue;
            const seed = (x * 1000 + d + 40) >>> 0;
            const rest = seededBits(seed);
            let first = true;
            const src: RandomBits = {
              cryptographic: false,
              bits: (k) => (first ? ((first = false), a) : rest.bits(k)),
            };
            const sampler = new ChannelSampler(ch, { random: src });
            const got = sampler.attempt(x);
            if (sampler.stats().exactDraws === 0) fast++;
            expect(got).toBe(decideExact(exact, a, 52, seededBits(seed)));
          }
      }
    expect(fast).toBeGreaterThan(2000); // the fast path decides most prefixes a few units from a boundary
  });

  it('a typical draw is decided by its first 52 bits', () => {
    const tg = truncatedGeometric(lineDomain(60), 1);
    const sampler = new ChannelSampler(tg.channel, { seed: 3 });
    for (let i = 0; i < 100_000; i++) sampler.sample(i % 60);
    expect(sampler.stats()).toMatchObject({ draws: 100_000, exactDraws: 0 });
  });
});
