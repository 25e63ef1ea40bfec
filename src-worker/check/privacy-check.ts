import { MechError, assertEpsilon, assertPositiveInt } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { NEG_TOL, REL_TOL } from '../../src-shared/numeric/tolerance';
import { RowCache } from './row-cache';
import { checkCancelled } from '../numeric/cancel';
import { lnRow, pairStart, type ScanPart, type ScanShared, scanRows } from './log-ratio-scan';
import { scanInThreads, scanThreads, sharedFloat64 } from './scan-threads';

/**
 * Privacy check of a channel against eps*d (SPEC §4).
 *
 * effective eps = max over pairs (x, x') with 0 < d(x,x') < inf and outputs y
 * of ln(C[x][y] / C[x'][y]) / d(x,x'), both orders of each pair.
 * Zero entries: 0/0 is no constraint; positive/0 is an infinite ratio.
 * A pair at distance 0 (pseudo-metric) allows ratio 1 only; d = inf allows all.
 * A pair passes when ratio <= e^(eps d) * (1 + REL_TOL), i.e.
 * ln ratio <= eps d + ln(1 + REL_TOL).
 *
 * Exact arithmetic on the stored numbers, no floor. The verdict is about the
 * channel as it is stored and sampled, so:
 *  - a positive entry facing an exact 0 (at finite, positive distance) is an
 *    infinite ratio: never private, whatever eps (an adversary who sees y
 *    rules x' out). This includes entries that underflowed to 0 while being
 *    computed: the released channel really has that zero.
 *  - ratios of tiny numbers are ratios: 1e-310 against 1e-320 is 1e10. A
 *    quotient of two doubles (normal or subnormal) is correctly rounded, so
 *    C[x][y] / C[x'][y] is exact to one rounding whenever it is finite; when
 *    it overflows (> 1.8e308) the ln-ratio is taken as ln a - ln b instead.
 *  - a NaN, infinite or negative entry is an error (MechError), not a
 *    verdict; an entry in [-NEG_TOL, 0) is a rounding zero and counts as 0
 *    (so a positive entry facing it is, again, an infinite ratio).
 * Every decision is made on ln-ratios, so eps d up to the largest double is
 * compared without overflow.
 *
 * For graph metrics (domain.structure.edges) only the edges are examined:
 * the constraint on edges implies it on all pairs along shortest paths, and
 * the largest ln-ratio per unit distance is reached on an edge, so the
 * effective eps is the same. Otherwise all pairs are examined (guarded by
 * maxWork / maxScanWork) by the ln scan (log-ratio-scan.ts: ln of every
 * entry once, a subtract and two compares per pair and output, on worker
 * threads over blocks of secret rows); directions within SCAN_MARGIN of
 * their bound, and the worst ones, are re-examined exactly on their rows,
 * so the verdict is the exact scan's. Edges are read one row at a time from
 * the RowSource (with a bounded cache); no dense matrix is required.
 *
 * Guarantee: `passes` is true only if every examined ratio is at most
 * e^(eps d)(1 + REL_TOL); the tolerance only ever admits rounding of a
 * channel that is private in exact arithmetic, and an underflowed zero
 * facing a positive entry always fails (never wrong in the unsafe direction
 * beyond REL_TOL). Preconditions: d is a metric or pseudo-metric (edges are
 * examined alone only when the domain declares graph edges whose shortest
 * paths are d); every entry finite and >= -NEG_TOL (else a MechError, no
 * verdict). Tolerance: REL_TOL = 1e-9 relative (numeric/tolerance.ts).
 * docs/privacy-check.md: "The tolerance", "The verdict is about the stored
 * channel", "Which pairs are examined".
 */

export interface PrivacyPair {
  /** Labels: the secret whose entry is larger, the other secret, the output. */
  x: string;
  xp: string;
  y: string;
  xIndex: number;
  xpIndex: number;
  yIndex: number;
  /**
   * C[x][y] / C[xp][y] (Infinity when C[xp][y] = 0 < C[x][y], or when the quotient exceeds the largest double: see
   * lnRatio).
   */
  ratio: number;
  /** ln(C[x][y] / C[xp][y]), finite whenever both entries are positive. */
  lnRatio: number;
  /** e^(eps d(x, xp)): the largest ratio eps*d allows. */
  allowedRatio: number;
  distance: number;
  /** ln(ratio) / d(x, xp) for this pair. */
  effectiveEpsilon: number;
  violates: boolean;
}

export interface PrivacyCheckResult {
  epsilon: number;
  effectiveEpsilon: number;
  passes: boolean;
  /** 'grid-offsets': the structured check of grid-offset-check.ts (planar Laplace). */
  mode: 'edges' | 'all-pairs' | 'grid-offsets';
  /** Unordered pairs of secrets examined. */
  pairsChecked: number;
  /** Number of ordered pairs that violate eps*d. */
  violatingPairs: number;
  /** The topK ordered pairs with the largest effective eps, worst first. */
  worst: PrivacyPair[];
  relTol: number;
}

export interface PrivacyCheckOptions {
  /** How many worst pairs to report (default 10). */
  topK?: number;
  /** 'auto' (edges when the domain has them), or force one mode. */
  pairs?: 'auto' | 'edges' | 'all';
  /** Refuse checks above (pairs examined) * cols entry comparisons, all pairs or graph edges alike (default 2e9). */
  maxWork?: number;
  /** The same limit for all-pairs checks that take the ln scan (default maxWork). */
  maxScanWork?: number;
  /** false: all pairs visited one by one on their rows, as before the ln scan (the bench's baseline); default true. */
  scan?: boolean;
  /** Row cache budget in Float64 entries (default 2^23 = 64 MiB). */
  cacheEntries?: number;
}

interface Candidate {
  x: number;
  xp: number;
  y: number;
  ratio: number;
  lnRatio: number;
  distance: number;
  eff: number;
  violates: boolean;
}

/**
 * The offer step of a worst-pairs list, shared by both checks: keeps `worst`
 * sorted by eff, largest first, at most topK long; a candidate goes after the
 * kept ones with an equal eff (so a full list does not take a tie of its last).
 */
export function worstListOffer<T extends { eff: number }>(worst: T[], topK: number): (c: T) => void {
  return (c) => {
    if (topK === 0) return;
    if (worst.length === topK && !(c.eff > worst[worst.length - 1]!.eff)) return;
    let k = worst.length;
    while (k > 0 && c.eff > worst[k - 1]!.eff) k--;
    worst.splice(k, 0, c);
    if (worst.length > topK) worst.pop();
  };
}

/**
 * All-pairs checks take the ln scan (log-ratio-scan.ts) while its ln matrix and packed distances fit this many entries
 * each (256 MiB).
 */
const SCAN_MAX_ENTRIES = 2 ** 25;

/** Options of the threaded check: threads (default: the cores, one for small checks), cancellation and progress. */
export interface ThreadedCheckOptions extends PrivacyCheckOptions {
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

/**
 * The state of one check: validation, the row cache, the worst list and the counts; the pairs are visited
 * either one by one on rows (walk: graph edges, or channels too big for the scan) or by the ln scan, whose
 * undecided and worst directions are then examined exactly here (absorb).
 */
class CheckRun {
  readonly mode: 'edges' | 'all-pairs';
  readonly m: number;
  readonly n: number;
  private readonly logTol = Math.log1p(REL_TOL);
  private readonly seen: Uint8Array;
  private readonly cache: RowCache;
  private readonly edges: ReturnType<typeof edgesIfAvailable>;
  private readonly topK: number;
  effective = 0;
  violating = 0;
  pairsChecked = 0;
  readonly worst: Candidate[] = [];
  private readonly offer: (c: Candidate) => void;
  /** Comparisons: (pairs examined) x outputs. */
  readonly work: number;
  /** Whether the pairs go through the ln scan: all pairs, and the ln matrix and packed distances fit. */
  readonly scans: boolean;

  constructor(
    private readonly src: RowSource,
    private readonly domain: Domain,
    private readonly eps: number,
    opts: PrivacyCheckOptions,
  ) {
    assertEpsilon(eps);
    this.topK = opts.topK ?? 10;
    assertPositiveInt(this.topK, 'number of worst pairs', 0);
    if (src.rows !== domain.n) {
      throw new MechError(
        'invalid-input',
        `the channel has ${src.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
      );
    }
    const wanted = opts.pairs ?? 'auto';
    // Explicitly asked for edges: a too-large edge list is an error; otherwise fall back to all pairs.
    const edges = wanted === 'edges' ? domain.structure.edges : edgesIfAvailable(domain);
    if (wanted === 'edges' && !edges)
      throw new MechError('invalid-input', `domain ${domain.spec} has no graph edges to check`);
    this.mode = wanted === 'all' || !edges ? 'all-pairs' : 'edges';
    this.edges = edges;
    this.m = src.cols;
    this.n = src.rows;
    // Every entry is validated as its row is generated (and rows no pair
    // visits are validated at the end): no verdict is given on a channel with
    // a NaN, infinite or negative entry.
    this.seen = new Uint8Array(this.n);
    this.cache = new RowCache(src, opts.cacheEntries ?? 2 ** 23, (i, row) => this.validateRow(i, row));
    this.offer = worstListOffer(this.worst, this.topK);
    const { n, m } = this;
    this.scans =
      opts.scan !== false &&
      this.mode === 'all-pairs' &&
      n >= 2 &&
      n * m <= SCAN_MAX_ENTRIES &&
      (n * (n - 1)) / 2 <= SCAN_MAX_ENTRIES;
    const maxWork = (this.scans ? opts.maxScanWork : undefined) ?? opts.maxWork ?? 2e9;
    if (this.mode === 'edges') {
      const count = edges!.from.length;
      this.work = count * m;
      if (this.work > maxWork) {
        throw new MechError(
          'too-large',
          `checking the ${count} graph edges of ${domain.spec} over ${m} outputs is ${this.work.toExponential(2)} comparisons (limit ${maxWork.toExponential(2)})`,
          { work: this.work, maxWork },
        );
      }
    } else {
      this.work = ((n * (n - 1)) / 2) * m;
      if (this.work > maxWork) {
        throw new MechError(
          'too-large',
          `checking all ${(n * (n - 1)) / 2} pairs of ${domain.spec} over ${m} outputs is ${this.work.toExponential(2)} comparisons (limit ${maxWork.toExponential(2)}); the domain has no graph edges to restrict the check to`,
          { work: this.work, maxWork },
        );
      }
    }
  }

  private validateRow(i: number, row: Float64Array): void {
    this.seen[i] = 1;
    for (let y = 0; y < this.m; y++) {
      const v = row[y]!;
      if (!(v >= -NEG_TOL && v <= 1 + REL_TOL)) this.badEntry(i, y, v);
    }
  }

  private badEntry(i: number, y: number, v: number): never {
    throw new MechError(
      'invalid-input',
      `channel entry C[${this.src.rowLabel(i)}][${this.src.colLabel(y)}] is ${v}, not a probability`,
    );
  }

  private distance(i: number, j: number): number {
    const d = this.domain.distance(i, j);
    if (!(d >= 0))
      throw new MechError(
        'invalid-input',
        `distance between ${this.domain.label(i)} and ${this.domain.label(j)} is ${d}, not a distance`,
      );
    return d;
  }

  /**
   * One ordered direction examined exactly: the largest ln(C[x][y] / C[xp][y]) over y (entries already
   * validated: finite, in [-NEG_TOL, 1 + REL_TOL]). A quotient is computed directly (exact to one rounding
   * while finite); only an overflowing quotient takes the slower ln a - ln b. Null when row x is all zero.
   */
  private exact(x: number, xp: number, a: Float64Array, b: Float64Array, d: number): Candidate | null {
    const m = this.m;
    let bestRatio = 0; // largest finite quotient
    let argRatio = -1;
    let bestBigLn = -Infinity; // largest ln-ratio among quotients that overflowed
    let argBig = -1;
    for (let y = 0; y < m; y++) {
      const ay = a[y]!;
      if (!(ay > 0)) continue; // 0, or a rounding zero in [-NEG_TOL, 0)
      const by = b[y]!;
      if (!(by > 0)) {
        // positive facing an exact (or rounding) zero: infinite privacy loss
        bestBigLn = Infinity;
        argBig = y;
        break;
      }
      const r = ay / by;
      if (r === Infinity) {
        const lr = Math.log(ay) - Math.log(by);
        if (lr > bestBigLn) {
          bestBigLn = lr;
          argBig = y;
        }
      } else if (r > bestRatio) {
        bestRatio = r;
        argRatio = y;
      }
    }
    const arg = argBig >= 0 ? argBig : argRatio;
    if (arg < 0) return null; // row x all zero: nothing to bound
    const lr = argBig >= 0 ? bestBigLn : Math.log(bestRatio);
    let eff: number;
    let violates: boolean;
    if (lr === Infinity) {
      violates = true;
      eff = Infinity;
    } else if (d === 0) {
      violates = lr > this.logTol;
      eff = violates ? Infinity : 0;
    } else {
      eff = Math.max(0, lr / d);
      violates = lr > this.eps * d + this.logTol;
    }
    return { x, xp, y: arg, ratio: argBig >= 0 ? Infinity : bestRatio, lnRatio: lr, distance: d, eff, violates };
  }

  private take(c: Candidate | null, count: boolean): void {
    if (!c) return;
    if (c.eff > this.effective) this.effective = c.eff;
    if (count && c.violates) this.violating++;
    this.offer(c);
  }

  /** Visit the pairs one by one on their rows (graph edges, or all pairs without the scan). */
  walk(): void {
    const pair = (i: number, j: number, d: number): void => {
      if (d === Infinity) return;
      if (!(d >= 0)) this.distance(i, j);
      const a = this.cache.get(i);
      const b = this.cache.get(j);
      this.pairsChecked++;
      this.take(this.exact(i, j, a, b, d), true);
      this.take(this.exact(j, i, b, a, d), true);
    };
    if (this.mode === 'edges') {
      const { from, to, weight } = this.edges!;
      for (let k = 0; k < from.length; k++) pair(from[k]!, to[k]!, weight[k]!);
    } else {
      const n = this.n;
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) pair(i, j, this.domain.distance(i, j));
    }
  }

  /**
   * The scan's inputs: every row validated and its ln taken once, the distances packed (on shared memory for threads).
   */
  scanInput(shared: boolean): ScanShared {
    const { n, m } = this;
    const alloc = (k: number): Float64Array => (shared ? sharedFloat64(k) : new Float64Array(k));
    const logs = alloc(n * m);
    const row = new Float64Array(m);
    for (let i = 0; i < n; i++) {
      this.src.row(i, row);
      this.validateRow(i, row);
      lnRow(row, logs.subarray(i * m, (i + 1) * m), m);
    }
    const dist = alloc((n * (n - 1)) / 2);
    for (let i = 0; i < n; i++) {
      const o = pairStart(n, i) - i - 1;
      for (let j = i + 1; j < n; j++) dist[o + j] = this.distance(i, j);
    }
    const control = new Int32Array(shared ? new SharedArrayBuffer(16) : new ArrayBuffer(16));
    return { n, m, logs, dist, eps: this.eps, logTol: this.logTol, control, keep: Math.max(1, this.topK) + 16 };
  }

  /**
   * The scan's parts: its counts, then every direction it left undecided examined exactly (and counted when it
   * violates), and its worst directions examined exactly for the worst list and the effective eps.
   */
  absorb(parts: ScanPart[]): void {
    const n = this.n;
    const done = new Set<number>();
    const examine = (from: number, to: number, count: boolean): void => {
      const key = from * n + to;
      if (done.has(key)) return;
      done.add(key);
      const d = this.domain.distance(from, to);
      this.take(this.exact(from, to, this.cache.get(from), this.cache.get(to), d), count);
    };
    for (const p of parts) {
      this.pairsChecked += p.pairs;
      this.violating += p.violating;
      for (let k = 0; k < p.uncertain.length; k += 2) examine(p.uncertain[k]!, p.uncertain[k + 1]!, true);
    }
    for (const p of parts) for (let k = 0; k < p.top.length; k += 2) examine(p.top[k]!, p.top[k + 1]!, false);
  }

  result(): PrivacyCheckResult {
    const { n, m, src, eps } = this;
    if (this.seen.indexOf(0) >= 0) {
      const buf = new Float64Array(m);
      for (let i = 0; i < n; i++) if (!this.seen[i]) this.validateRow(i, src.row(i, buf));
    }
    return {
      epsilon: eps,
      effectiveEpsilon: this.effective,
      passes: this.violating === 0,
      mode: this.mode,
      pairsChecked: this.pairsChecked,
      violatingPairs: this.violating,
      worst: this.worst.map((c) => ({
        x: src.rowLabel(c.x),
        xp: src.rowLabel(c.xp),
        y: src.colLabel(c.y),
        xIndex: c.x,
        xpIndex: c.xp,
        yIndex: c.y,
        ratio: c.ratio,
        lnRatio: c.lnRatio,
        allowedRatio: Math.exp(eps * c.distance),
        distance: c.distance,
        effectiveEpsilon: c.eff,
        violates: c.violates,
      })),
      relTol: REL_TOL,
    };
  }
}

/** The privacy check on this thread (see the top of this file). */
export function checkPrivacy(
  src: RowSource,
  domain: Domain,
  eps: number,
  opts: PrivacyCheckOptions = {},
): PrivacyCheckResult {
  const run = new CheckRun(src, domain, eps, opts);
  if (run.scans) run.absorb([scanRows(run.scanInput(false))]);
  else run.walk();
  return run.result();
}

/**
 * The same check with the all-pairs ln scan spread over worker threads (scan-threads.ts: blocks of secret
 * rows from a shared counter, the ln matrix and distances on shared memory): the same verdict, counts and
 * worst pairs as checkPrivacy, in a fraction of the time on several cores. Graph-edge checks and small
 * checks run on this thread.
 */
export async function checkPrivacyThreaded(
  src: RowSource,
  domain: Domain,
  eps: number,
  opts: ThreadedCheckOptions = {},
): Promise<PrivacyCheckResult> {
  const run = new CheckRun(src, domain, eps, opts);
  if (!run.scans) {
    run.walk();
    return run.result();
  }
  const threads = scanThreads(run.work, opts.threads);
  opts.onProgress?.(0, `privacy check: ln of ${run.n} x ${run.m} entries`);
  const input = run.scanInput(threads > 1);
  checkCancelled(opts.signal);
  run.absorb(await scanInThreads(input, threads, opts.signal, opts.onProgress));
  return run.result();
}
