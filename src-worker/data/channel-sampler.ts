import { randomFillSync } from 'node:crypto';
import { MechError, invalid } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { NEG_TOL, SUM_TOL } from '../../src-shared/numeric/tolerance';
import { seededRandom } from '../../src-shared/numeric/seeded-random';

/**
 * Noisy data out: release one output per secret by sampling the channel's
 * row, in input order, streaming.
 *
 * Exactness. The released distribution of secret x is p_y = C[x][y] / S
 * with S = sum_y C[x][y], all computed exactly on the stored doubles (every
 * double is a dyadic rational M * 2^e): the sampled channel is the checked
 * channel. A sampler over double prefix sums is not: an entry smaller than
 * about 2^-53 of its running sum is never drawn while the check sees it (the
 * floating-point flaw Mironov found in Laplace samplers). Exactly: scale the
 * row to integers C'[y] = M_y * 2^(e_y - emin) with sum S, let L = bits(S)
 * + 52 and f = floor(2^L / S); output y owns the integers [f cum[y-1],
 * f cum[y]) of [0, 2^L) and [f S, 2^L) (less than 2^-52 of it) is rejected
 * and redrawn. A uniform N in [0, 2^L) is drawn lazily, most significant
 * bits first, and only until its interval lies inside one output's range:
 * every output then has probability f C'[y] / (f S) = C[y] / S exactly.
 *
 * Speed. The first 52 bits come in one draw and are decided from per-row
 * integer prefix sums cLo[y] of floor(2^52 C[y']), exact in doubles (below
 * 2^53 as rows sum to 1 within SUM_TOL), which bound the boundaries' top 52
 * bits from both sides with a margin for the roundings (see attempt). Only
 * a prefix within a few units of a boundary (probability about m^2 2^-53)
 * builds the row's exact BigInt boundaries and draws bits one at a time
 * until decided. Binary search: O(log m) per draw. Rows are cached per
 * distinct secret as cLo, least recently used first out, within a budget of
 * entries (default 2^24 = 128 MiB), and streams are sampled in blocks of
 * 2^16 inputs grouped by secret, so a row is built at most once per block
 * even when the distinct secrets outnumber the cache.
 *
 * Randomness. Releases take their bits from node:crypto (randomFillSync, 64
 * KiB at a time). A seeded generator (mulberry32, the same construction)
 * exists for reproducible tests only: every result of a seeded sampler says
 * forRelease = false, and RELEASE_WARNING is what a written file must carry.
 * A seeded stream is as exact as a random one; only its bits are predictable.
 */

export const RELEASE_WARNING =
  'NOT FOR RELEASE: sampled with a seeded generator (--seed) for reproducible tests; not cryptographically random';

/** A source of uniform random bits. */
export interface RandomBits {
  /** k uniform random bits (1 <= k <= 52): an integer in [0, 2^k). */
  bits(k: number): number;
  readonly cryptographic: boolean;
}

const TWO_POW_32 = 4294967296;
const TWO_POW_52 = 4503599627370496;
/** Bits taken per fast draw. */
const FAST_BITS = 52;

function bitsFromWords(word: () => number, cryptographic: boolean): RandomBits {
  return {
    cryptographic,
    bits(k) {
      // 20 + 32 = 52 bits from two 32-bit words, then the top k of them
      const v = (word() >>> 12) * TWO_POW_32 + word();
      return k === 52 ? v : Math.floor(v / 2 ** (52 - k));
    },
  };
}

/** Uniform bits from node:crypto (randomFillSync, bufferWords 32-bit words at a time). */
export function cryptoBits(bufferWords = 16384): RandomBits {
  const buf = new Uint32Array(bufferWords);
  let pos = bufferWords;
  return bitsFromWords(() => {
    if (pos === bufferWords) {
      randomFillSync(buf);
      pos = 0;
    }
    return buf[pos++]!;
  }, true);
}

/** Seeded uniform bits (tests only; not for release). */
export function seededBits(seed: number): RandomBits {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    invalid(`seed must be an integer in 0..4294967295, got ${String(seed)}`);
  const r = seededRandom(seed);
  return bitsFromWords(() => r() * TWO_POW_32, false);
}

export interface SamplerOptions {
  /** Seed for a reproducible, NOT-for-release stream; omitted = node:crypto. */
  seed?: number;
  /** Row cache budget in entries (default 2^24). */
  cacheEntries?: number;
  /** A ready-made bit source (tests); overrides seed. */
  random?: RandomBits;
  /** Bits of the first draw (tests walk the decision tree with fewer; default 52). */
  fastBits?: number;
}

export interface SamplerStats {
  draws: number;
  rowsBuilt: number;
  cacheHits: number;
  cachedRows: number;
  /** Draws the 52-bit prefix did not decide (exact BigInt path). */
  exactDraws: number;
  /** False for a seeded stream: its output must say RELEASE_WARNING. */
  forRelease: boolean;
}

/**
 * A row's fast form: cLo[y] = sum over y' <= y of floor(2^52 C[y']) (exact
 * integers below 2^53), so cLo[y] <= 2^52 cum[y] <= cLo[y] + y + 1, and the
 * factors invHi = 2^k / sHi, invLo = 2^k / sLo from bounds sLo <= 2^52 S <= sHi.
 */
interface FastRow {
  cLo: Float64Array;
  invHi: number;
  invLo: number;
}

/** The row's exact integer boundaries: output y owns [B[y-1], B[y]); [B[m-1], B[m] = 2^L) is rejected. */
interface ExactRow {
  bounds: bigint[];
  L: number;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A positive finite double as M * 2^e (M an integer below 2^53). */
function dyadic(v: number): [bigint, number] {
  f64[0] = v;
  const hi = u32[LITTLE ? 1 : 0]!;
  const lo = u32[LITTLE ? 0 : 1]!;
  const exp = (hi >>> 20) & 0x7ff;
  const frac = BigInt(hi & 0xfffff) * 4294967296n + BigInt(lo);
  return exp === 0 ? [frac, -1074] : [frac + 4503599627370496n, exp - 1075];
}

/** Exact boundaries of a row of non-negative finite doubles with a positive sum (see the module comment). */
export function exactRow(row: ArrayLike<number>): ExactRow {
  const m = row.length;
  const parts: [bigint, number][] = [];
  let emin = Infinity;
  for (let y = 0; y < m; y++) {
    const v = row[y]!;
    const d: [bigint, number] = v > 0 ? dyadic(v) : [0n, 0];
    if (v > 0 && d[1] < emin) emin = d[1];
    parts.push(d);
  }
  const cum: bigint[] = [];
  let s = 0n;
  for (const [mant, e] of parts) {
    if (mant > 0n) s += mant << BigInt(e - emin);
    cum.push(s);
  }
  if (s === 0n) throw new MechError('internal', 'cannot sample a row of zeros');
  const L = s.toString(2).length + 52;
  const f = (1n << BigInt(L)) / s;
  const bounds = cum.map((c) => c * f);
  bounds.push(1n << BigInt(L));
  return { bounds, L };
}

/** The first index with bounds[i] > v (bounds non-decreasing, v < bounds[last]). */
function firstAboveBig(bounds: bigint[], v: bigint): number {
  let lo = 0;
  let hi = bounds.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid]! > v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Continue a draw whose first k bits are a: bits one at a time until the
 * interval of N lies inside one output's range. Returns the output, or m
 * (the row's length) for the rejected range.
 */
export function decideExact(row: ExactRow, a: number, k: number, random: RandomBits): number {
  const { bounds, L } = row;
  let width = 1n << BigInt(L - k);
  let lo = BigInt(a) * width;
  for (;;) {
    const y = firstAboveBig(bounds, lo);
    if (lo + width <= bounds[y]!) return y;
    width >>= 1n;
    if (random.bits(1) === 1) lo += width;
  }
}

/**
 * Samples outputs of a channel for secrets, one at a time (see the module
 * comment). Validates each row it builds (finite, >= -NEG_TOL, sum within
 * SUM_TOL of 1): a row that is not a distribution is an error naming it.
 */
export class ChannelSampler {
  readonly channel: RowSource;
  readonly forRelease: boolean;
  private readonly random: RandomBits;
  private readonly k: number;
  private readonly maxRows: number;
  private readonly cache = new Map<number, FastRow>();
  private readonly rowBuf: Float64Array;
  private rowsBuilt = 0;
  private hits = 0;
  private draws = 0;
  private exactDraws = 0;
  private groupHead: Int32Array | null = null;
  private groupNext: Int32Array | null = null;

  constructor(channel: RowSource, opts: SamplerOptions = {}) {
    if (!(channel.rows > 0) || !(channel.cols > 0))
      invalid(`cannot sample a channel with ${channel.rows} rows and ${channel.cols} columns`);
    this.channel = channel;
    this.random = opts.random ?? (opts.seed !== undefined ? seededBits(opts.seed) : cryptoBits());
    this.forRelease = this.random.cryptographic;
    this.k = opts.fastBits ?? FAST_BITS;
    if (!Number.isInteger(this.k) || this.k < 1 || this.k > FAST_BITS)
      throw new MechError('internal', `fastBits must be an integer in 1..${FAST_BITS}`);
    const budget = opts.cacheEntries ?? 1 << 24;
    this.maxRows = Math.max(1, Math.floor(budget / channel.cols));
    this.rowBuf = new Float64Array(channel.cols);
  }

  /**
   * The channel's row x, validated, negative rounding noise (>= -NEG_TOL)
   * set to 0; with cum set, also the fast row's prefix sums cLo into it.
   */
  private validRow(x: number, cum?: Float64Array): Float64Array {
    const m = this.channel.cols;
    const row = this.channel.row(x, this.rowBuf);
    let s = 0;
    let sLo = 0;
    let inexact = 0;
    for (let y = 0; y < m; y++) {
      const v = row[y]!;
      if (!(v >= 0 && v < Infinity)) {
        if (!Number.isFinite(v) || v < -NEG_TOL)
          throw new MechError(
            'invalid-input',
            `channel row ${this.channel.rowLabel(x)}: entry ${this.channel.colLabel(y)} is ${v}, not a probability`,
          );
        row[y] = 0;
      } else {
        s += v;
        const w = v * TWO_POW_52;
        const fl = Math.floor(w);
        sLo += fl;
        if (w !== fl) inexact++;
      }
      if (cum) cum[y] = sLo;
    }
    if (Math.abs(s - 1) > SUM_TOL)
      throw new MechError(
        'invalid-input',
        `channel row ${this.channel.rowLabel(x)} sums to ${s}, not 1 (tolerance ${SUM_TOL})`,
      );
    this.sLo = sLo;
    this.sHi = sLo + inexact;
    return row;
  }

  /** Bounds sLo <= 2^52 S <= sHi of the last row validated. */
  private sLo = 0;
  private sHi = 0;

  private fastRow(x: number): FastRow {
    const hit = this.cache.get(x);
    if (hit) {
      this.hits++;
      // refresh recency: Map iteration order is insertion order
      this.cache.delete(x);
      this.cache.set(x, hit);
      return hit;
    }
    const cLo = this.cache.size >= this.maxRows ? this.evict() : new Float64Array(this.channel.cols);
    this.validRow(x, cLo);
    const top = 2 ** this.k;
    const fr = { cLo, invHi: top / this.sHi, invLo: top / this.sLo };
    this.cache.set(x, fr);
    this.rowsBuilt++;
    return fr;
  }

  private evict(): Float64Array {
    const oldest = this.cache.keys().next().value as number;
    const fr = this.cache.get(oldest)!;
    this.cache.delete(oldest);
    return fr.cLo;
  }

  /**
   * One attempt for secret x: an output, or m (the row's length) for the
   * rejected range (probability below 2^-52; the caller draws again). A
   * k-bit prefix a decides output y when the boundary b[y] = f cum[y] /
   * 2^(L-k) has floor(b[y]) >= a + 1 and b[y-1] <= a. With b[y] in (2^k
   * cum[y]/S - 1, 2^k cum[y]/S] and the roundings of the products below
   * within 2.1, cLo[y] invHi >= a + 5 and (cLo[y-1] + y) invLo <= a - 4
   * suffice. Otherwise the exact path continues the draw.
   */
  attempt(x: number): number {
    return this.attemptRow(x, this.fastRow(x));
  }

  private attemptRow(x: number, fr: FastRow): number {
    const m = this.channel.cols;
    const { cLo, invHi, invLo } = fr;
    const a = this.random.bits(this.k);
    const need = a + 5;
    let lo = 0;
    let hi = m;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cLo[mid]! * invHi >= need) hi = mid;
      else lo = mid + 1;
    }
    if (lo < m && (lo === 0 || (cLo[lo - 1]! + lo) * invLo <= a - 4)) return lo;
    this.exactDraws++;
    return decideExact(exactRow(this.validRow(x)), a, this.k, this.random);
  }

  private draw(x: number, fr: FastRow): number {
    this.draws++;
    for (;;) {
      const y = this.attemptRow(x, fr);
      if (y < this.channel.cols) return y;
    }
  }

  /** One output index for secret x. */
  sample(x: number): number {
    if (!Number.isInteger(x) || x < 0 || x >= this.channel.rows)
      throw new MechError('internal', `secret index ${x} is outside 0..${this.channel.rows - 1}`);
    return this.draw(x, this.fastRow(x));
  }

  /**
   * Outputs for secrets[0..count) into out[0..count), in input order. The
   * block is grouped by secret so each distinct secret's row is looked up
   * (or built) once per block, not once per input: with more distinct
   * secrets than the cache holds, row building dominates otherwise. Draws
   * are consumed group by group (iid, so the released distribution is the
   * same; a seeded stream stays reproducible for a given block size).
   */
  sampleBlock(secrets: Int32Array, count: number, out: Int32Array): Int32Array {
    const n = this.channel.rows;
    if (this.groupHead === null || this.groupHead.length < n) {
      this.groupHead = new Int32Array(n).fill(-1);
    }
    if (this.groupNext === null || this.groupNext.length < count)
      this.groupNext = new Int32Array(Math.max(count, 1024));
    const head = this.groupHead;
    const next = this.groupNext;
    const distinct: number[] = [];
    // Linked lists per secret, built backwards so each list is in input order.
    for (let i = count - 1; i >= 0; i--) {
      const x = secrets[i]!;
      if (!Number.isInteger(x) || x < 0 || x >= n)
        throw new MechError('internal', `secret index ${x} is outside 0..${n - 1}`);
      if (head[x] === -1) distinct.push(x);
      next[i] = head[x]!;
      head[x] = i;
    }
    for (let d = distinct.length - 1; d >= 0; d--) {
      const x = distinct[d]!;
      const fr = this.fastRow(x);
      for (let i = head[x]!; i !== -1; i = next[i]!) out[i] = this.draw(x, fr);
      head[x] = -1;
    }
    return out;
  }
  /**
   * Outputs for a stream of secrets, one per input, in order, in blocks of `block` inputs (only a block and the row
   * cache are held).
   */
  *sampleAll(secrets: Iterable<number>, block = 1 << 16): Generator<number, void, undefined> {
    const buf = new Int32Array(block);
    const out = new Int32Array(block);
    let k = 0;
    for (const x of secrets) {
      if (!Number.isInteger(x) || x < 0 || x >= this.channel.rows)
        throw new MechError('internal', `secret index ${x} is outside 0..${this.channel.rows - 1}`);
      buf[k++] = x;
      if (k === block) {
        this.sampleBlock(buf, k, out);
        for (let i = 0; i < k; i++) yield out[i]!;
        k = 0;
      }
    }
    if (k > 0) {
      this.sampleBlock(buf, k, out);
      for (let i = 0; i < k; i++) yield out[i]!;
    }
  }

  stats(): SamplerStats {
    return {
      draws: this.draws,
      rowsBuilt: this.rowsBuilt,
      cacheHits: this.hits,
      cachedRows: this.cache.size,
      exactDraws: this.exactDraws,
      forRelease: this.forRelease,
    };
  }
}
