/**
 * Black-box audit of a metric-privacy claim from samples (secret, released):
 * a lower confidence bound on the effective eps per unit of distance, and a
 * verdict on a claimed eps (docs/audit.md has the method and its proof).
 *
 * A mechanism K is eps d-private when K(E | a) <= e^(eps d(a,b)) K(E | b) for
 * all secrets a, b and every event E (a set of outputs). So for any fixed
 * (a, b, E), ln(K(E|a) / K(E|b)) / d(a,b) <= eps, and exact binomial bounds
 * on K(E|a) from below and K(E|b) from above bound that ratio from below.
 *
 * Two stages on disjoint samples. Each sample goes to selection with
 * probability SELECT_FRACTION, by a generator with a fixed seed (the same
 * split for the same file, and one that a periodic or sorted log cannot
 * line up with), the others to estimation. Selection looks only at its samples: for each
 * ordered pair (a, b) it sorts the outputs seen under a by the smoothed
 * likelihood ratio and scores every prefix (a threshold event) by a
 * predicted bound (normal-score intervals whose variance adds the
 * selection's to the estimation's); the best `tests` pairs with their
 * events are kept. Estimation then counts each kept event under a and b in
 * the other samples and takes Clopper-Pearson bounds at alpha / (2 H), H the
 * number of kept pairs. Given the selection, the 2 H intervals hold together
 * with probability >= 1 - alpha (union bound), and then every tested ratio
 * is <= the true one <= eps: a true claim is refuted with probability at
 * most alpha = 1 - confidence, whatever the samples.
 */
import { MechError, invalid } from '../../src-shared/errors';
import type { AuditNote } from '../../src-shared/protocol/index';
import { binomialLower, binomialUpper } from './binomial';
import { seededRandom } from '../../src-shared/numeric/seeded-random';

/** The share of the samples that goes to selection. */
const SELECT_FRACTION = 0.25;
/** Seed of the split (fixed: a file is always split the same way). */
const SPLIT_SEED = 0x5eed_a0d1;
/** Pairs tested at the estimation stage (fixed before the data is seen; few, for power). */
const DEFAULT_TESTS = 4;
/**
 * Normal quantiles scoring candidate events at selection (heuristics: soundness does not depend on them). An
 * order of outputs fitted to the selection samples (by likelihood ratio) looks better on them than it is, so
 * its prefixes are scored more strictly than those of an order fixed by the metric.
 */
const SELECT_Z_METRIC = 3;
const SELECT_Z_RATIO = 4.5;
/** Secrets compared with each secret at selection, nearest first, when there are more. */
const MAX_PARTNERS = 160;
/** Largest (secrets seen) x (outputs seen) count table. */
const MAX_TABLE = 1 << 25;
/** Largest table of secret-to-output distances (the metric order of events is skipped above it). */
const MAX_DISTANCE_TABLE = 1 << 22;

export interface AuditInput {
  /** Secret index of each sample. */
  secrets: Int32Array;
  /** Released output index of each sample. */
  outputs: Int32Array;
  /** Number of secrets (the domain's points) and of outputs. */
  n: number;
  m: number;
  distance: (a: number, b: number) => number;
}

export interface AuditOptions {
  /** The claimed eps per unit of distance. */
  epsilon: number;
  /** Default 0.99. */
  confidence?: number;
  /** Pairs tested (default DEFAULT_TESTS). */
  tests?: number;
  /** Violation sizes (true eps) for which the samples needed are reported (default 1.25, 1.5, 2, 3, 4 x the claim). */
  detect?: number[];
}

export interface AuditTest {
  a: number;
  b: number;
  distance: number;
  /** Output indices of the event, increasing. */
  event: Int32Array;
  /** Estimation counts: the event under a (ka of na) and under b (kb of nb). */
  ka: number;
  na: number;
  kb: number;
  nb: number;
  /** Clopper-Pearson lower bound on K(E|a), upper bound on K(E|b), at alpha / (2 tests). */
  lowerA: number;
  upperB: number;
  /** ln(lowerA / upperB) / distance (-Infinity when lowerA = 0). */
  bound: number;
}

interface DetectionRow {
  /** The true eps per unit of distance of the violation. */
  epsilon: number;
  /**
   * Samples per secret (both secrets of the pair) at which the expected counts give a bound above the claim; null
   * beyond 10^9.
   */
  samplesPerSecret: number | null;
}

export interface AuditOutcome {
  /** 'not-tested' when no pair could be tested: no verdict either way (never a pass). */
  verdict: 'refuted' | 'not-refuted' | 'not-tested';
  epsilon: number;
  confidence: number;
  /** max(0, best tested bound): a lower confidence bound on the effective eps. */
  epsilonLowerBound: number;
  /** The test behind the bound (null when nothing could be tested). */
  witness: AuditTest | null;
  /** Every test made, best first. */
  tested: AuditTest[];
  samples: number;
  selectionSamples: number;
  estimationSamples: number;
  /** Secrets with samples. */
  secretsSeen: number;
  /** Why no pair could be tested (audit-words.ts words it), or null when some were. */
  untested: AuditNote | null;
  detection: { distance: number; baseProbability: number; tests: number; rows: DetectionRow[] };
}

/** Wilson score bounds at z (selection only). */
function wilson(p: number, n: number, z: number, upper: boolean): number {
  const z2 = z * z;
  const den = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / den;
  const half = (z / den) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return upper ? Math.min(1, centre + half) : Math.max(0, centre - half);
}

interface Candidate {
  a: number;
  b: number;
  d: number;
  score: number;
  event: number[];
}

/** The estimation stage's bound of one test. */
function estimate(
  c: Candidate,
  count: (s: number, e: readonly number[]) => number,
  sizes: Int32Array,
  alphaEach: number,
): AuditTest {
  const na = sizes[c.a]!;
  const nb = sizes[c.b]!;
  const ka = count(c.a, c.event);
  const kb = count(c.b, c.event);
  const lowerA = binomialLower(ka, na, alphaEach);
  const upperB = binomialUpper(kb, nb, alphaEach);
  const bound = lowerA > 0 ? Math.log(lowerA / upperB) / c.d : -Infinity;
  return {
    a: c.a,
    b: c.b,
    distance: c.d,
    event: Int32Array.from([...c.event].sort((x, y) => x - y)),
    ka,
    na,
    kb,
    nb,
    lowerA,
    upperB,
    bound,
  };
}

/**
 * Samples per secret at which a violation of true eps `trueEps` on a pair at
 * distance d, seen through an event of probability q under b (q e^(trueEps
 * d) under a), is detected: the smallest N whose estimation sizes and
 * expected counts give a bound above the claim (the median case). null when
 * above 10^9 or when q e^(trueEps d) > 1.
 */
export function samplesToDetect(
  claim: number,
  trueEps: number,
  d: number,
  q: number,
  tests: number,
  confidence: number,
): number | null {
  const p = q * Math.exp(trueEps * d);
  if (!(p <= 1) || !(q > 0)) return null;
  const alphaEach = (1 - confidence) / (2 * tests);
  const detects = (N: number): boolean => {
    const n2 = Math.floor(N * (1 - SELECT_FRACTION));
    if (n2 < 1) return false;
    const lo = binomialLower(Math.round(p * n2), n2, alphaEach);
    if (!(lo > 0)) return false;
    return Math.log(lo / binomialUpper(Math.round(q * n2), n2, alphaEach)) / d > claim;
  };
  let hi = 2;
  while (!detects(hi)) {
    hi *= 2;
    if (hi > 1e9) return null;
  }
  let lo = hi / 2;
  while (hi - lo > Math.max(1, hi * 1e-3)) {
    const mid = Math.floor((lo + hi) / 2);
    if (detects(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The samples split and counted: compact secret and output slots, selection counts per (secret, output), sizes per
 * secret.
 */
interface SplitCounts {
  isSelect: Uint8Array;
  secretIds: number[];
  secretSlot: Int32Array;
  outIds: number[];
  outSlot: Int32Array;
  /** Selection counts, secret slot x output slot (M columns). */
  sel: Int32Array;
  M: number;
  selN: Int32Array;
  estN: Int32Array;
  selCount: number;
  /** Secrets with at least one sample. */
  withSamples: number;
}

/**
 * Split (a fixed pseudo-random SELECT_FRACTION selects, independent of the outputs) and count. Secrets with at
 * least two samples get a slot; outputs get one when seen at selection (events are built from these only).
 */
function splitAndCount(input: AuditInput): SplitCounts {
  const { secrets, outputs, n, m } = input;
  const N = secrets.length;
  const seen = new Int32Array(n);
  const isSelect = new Uint8Array(N);
  const split = seededRandom(SPLIT_SEED);
  const outSlot = new Int32Array(m).fill(-1);
  const outIds: number[] = [];
  let selCount = 0;
  for (let i = 0; i < N; i++) {
    const s = secrets[i]!;
    const o = outputs[i]!;
    if (!(s >= 0 && s < n) || !(o >= 0 && o < m))
      throw new MechError('internal', `audit: sample ${i} is outside the domain`);
    seen[s]!++;
    if (split() >= SELECT_FRACTION) continue;
    isSelect[i] = 1;
    selCount++;
    if (outSlot[o] === -1) {
      outSlot[o] = outIds.length;
      outIds.push(o);
    }
  }
  const secretIds: number[] = [];
  const secretSlot = new Int32Array(n).fill(-1);
  let withSamples = 0;
  for (let s = 0; s < n; s++) {
    if (seen[s]! > 0) withSamples++;
    if (seen[s]! >= 2) {
      secretSlot[s] = secretIds.length;
      secretIds.push(s);
    }
  }
  const S = secretIds.length;
  const M = outIds.length;
  if (S * M > MAX_TABLE)
    throw new MechError(
      'too-large',
      `the audit's count table would have ${S} secrets x ${M} outputs (more than ${MAX_TABLE} cells)`,
    );
  const sel = new Int32Array(S * M);
  const selN = new Int32Array(S);
  const estN = new Int32Array(S);
  for (let i = 0; i < N; i++) {
    const a = secretSlot[secrets[i]!]!;
    if (a < 0) continue;
    if (isSelect[i]) {
      sel[a * M + outSlot[outputs[i]!]!]!++;
      selN[a]!++;
    } else estN[a]!++;
  }
  return { isSelect, secretIds, secretSlot, outIds, outSlot, sel, M, selN, estN, selCount, withSamples };
}

/**
 * The secrets compared with slot a at selection: a finite positive distance, both with samples in both parts; the
 * nearest MAX_PARTNERS.
 */
function partnersOf(t: SplitCounts, a: number, distance: AuditInput['distance']): { b: number; d: number }[] {
  const out: { b: number; d: number }[] = [];
  for (let b = 0; b < t.secretIds.length; b++) {
    if (b === a || t.selN[b]! === 0 || t.estN[b]! === 0) continue;
    const d = distance(t.secretIds[a]!, t.secretIds[b]!);
    if (d > 0 && Number.isFinite(d)) out.push({ b, d });
  }
  if (out.length > MAX_PARTNERS) {
    out.sort((x, y) => x.d - y.d || x.b - y.b);
    out.length = MAX_PARTNERS;
  }
  return out;
}

/** The best prefix of `order` as an event of (a, b) on the selection counts, or null when none scores. */
function bestPrefix(
  t: SplitCounts,
  a: number,
  b: number,
  d: number,
  order: readonly number[],
  z: number,
): Candidate | null {
  const { sel, M, selN, estN } = t;
  const na1 = selN[a]!;
  const nb1 = selN[b]!;
  // Wilson intervals at the size whose variance is the selection's plus the estimation's: a prefix that only looks
  // good by the selection's noise scores low.
  const effA = 1 / (1 / na1 + 1 / estN[a]!);
  const effB = 1 / (1 / nb1 + 1 / estN[b]!);
  let ka = 0;
  let kb = 0;
  let best = -Infinity;
  let bestLen = 0;
  for (let j = 0; j < order.length; j++) {
    ka += sel[a * M + order[j]!]!;
    kb += sel[b * M + order[j]!]!;
    const lo = wilson(ka / na1, effA, z, false);
    const score = lo > 0 ? Math.log(lo / wilson(kb / nb1, effB, z, true)) / d : -Infinity;
    if (score > best) {
      best = score;
      bestLen = j + 1;
    }
  }
  return bestLen > 0 ? { a, b, d, score: best, event: order.slice(0, bestLen) } : null;
}

/**
 * The best threshold event of the ordered pair (a, b), from two orders of the outputs: the outputs seen under a
 * by their smoothed likelihood ratio on the selection counts, and (when the outputs are the secrets' points)
 * every output by how much nearer to a than to b it is, d(y, b) - d(y, a), an order that no sampling noise
 * disturbs (half-planes on a grid, half-lines on a line). Either way a prefix is a set of outputs.
 */
function bestEvent(
  t: SplitCounts,
  a: number,
  b: number,
  d: number,
  ratio: Float64Array,
  dist: Float64Array | null,
): Candidate | null {
  const { sel, M, selN } = t;
  const order: number[] = [];
  for (let y = 0; y < M; y++) {
    const ca = sel[a * M + y]!;
    if (ca === 0) continue;
    ratio[y] = ((ca + 0.5) / (selN[a]! + 0.5 * M)) * ((selN[b]! + 0.5 * M) / (sel[b * M + y]! + 0.5));
    order.push(y);
  }
  order.sort((x, y) => ratio[y]! - ratio[x]! || x - y);
  const byRatio = bestPrefix(t, a, b, d, order, SELECT_Z_RATIO);
  if (!dist) return byRatio;
  const nearer = Array.from({ length: M }, (_, y) => y);
  const key = (y: number): number => dist[b * M + y]! - dist[a * M + y]!;
  nearer.sort((x, y) => key(y) - key(x) || x - y);
  const byMetric = bestPrefix(t, a, b, d, nearer, SELECT_Z_METRIC);
  return byMetric && (!byRatio || byMetric.score > byRatio.score) ? byMetric : byRatio;
}

/**
 * d(secret, output) per secret slot and output slot when the outputs are the secrets' points and the table is small,
 * else null.
 */
function distanceTable(t: SplitCounts, input: AuditInput): Float64Array | null {
  const S = t.secretIds.length;
  if (input.m !== input.n || S * t.M > MAX_DISTANCE_TABLE) return null;
  const dist = new Float64Array(S * t.M);
  for (let a = 0; a < S; a++)
    for (let y = 0; y < t.M; y++) dist[a * t.M + y] = input.distance(t.secretIds[a]!, t.outIds[y]!);
  return dist;
}

/** Selection: each ordered pair's best event, the maxTests best pairs. */
function selectTests(t: SplitCounts, input: AuditInput, maxTests: number): Candidate[] {
  const cands: Candidate[] = [];
  const ratio = new Float64Array(t.M);
  const dist = distanceTable(t, input);
  for (let a = 0; a < t.secretIds.length; a++) {
    if (t.selN[a]! === 0 || t.estN[a]! === 0) continue;
    for (const { b, d } of partnersOf(t, a, input.distance)) {
      const c = bestEvent(t, a, b, d, ratio, dist);
      if (c) cands.push(c);
    }
  }
  cands.sort((x, y) => y.score - x.score || x.a - y.a || x.b - y.b);
  return cands.slice(0, maxTests);
}

/**
 * Estimation: each chosen event counted in the estimation samples, exact bounds at alpha / (2H); best first, in domain
 * indices.
 */
function estimateTests(input: AuditInput, t: SplitCounts, chosen: Candidate[], alpha: number): AuditTest[] {
  const inEvent = new Uint8Array(t.M);
  const estCount = (slot: number, event: readonly number[]): number => {
    for (const y of event) inEvent[y] = 1;
    let k = 0;
    for (let i = 0; i < input.secrets.length; i++) {
      if (t.isSelect[i] || t.secretSlot[input.secrets[i]!] !== slot) continue;
      const y = t.outSlot[input.outputs[i]!]!;
      if (y >= 0 && inEvent[y]) k++;
    }
    for (const y of event) inEvent[y] = 0;
    return k;
  };
  return chosen
    .map((c) => estimate(c, estCount, t.estN, alpha / (2 * chosen.length)))
    .sort((x, y) => y.bound - x.bound)
    .map((x) => ({
      ...x,
      a: t.secretIds[x.a]!,
      b: t.secretIds[x.b]!,
      event: Int32Array.from(x.event, (y) => t.outIds[y]!).sort(),
    }));
}

/**
 * Samples needed for each violation size: a pair at the witness's distance whose event has the witness's
 * probability under b (capped so that the one under a stays below 1); binary randomized response at distance 1
 * without a witness.
 */
function detection(
  witness: AuditTest | null,
  eps: number,
  detect: number[] | undefined,
  tests: number,
  confidence: number,
): AuditOutcome['detection'] {
  const dist = witness ? witness.distance : 1;
  const sizes = detect ?? [1.25, 1.5, 2, 3, 4].map((f) => f * (eps > 0 ? eps : 1));
  const base = (te: number): number =>
    witness && witness.kb > 0 ? witness.kb / witness.nb : 1 / (1 + Math.exp(te * dist));
  const rows = sizes.map((te) => ({
    epsilon: te,
    samplesPerSecret:
      te > eps
        ? samplesToDetect(eps, te, dist, Math.min(base(te), Math.exp(-te * dist) * 0.999), tests, confidence)
        : null,
  }));
  return { distance: dist, baseProbability: base(sizes[0] ?? 1), tests, rows };
}

/** Why no pair was tested: too few secrets in the log, too few with two samples, or no pair usable. */
function untestedReason(t: SplitCounts): AuditNote {
  const k = t.withSamples;
  const S = t.secretIds.length;
  if (k < 2) return { kind: 'too-few-secrets', secrets: k };
  if (S < 2) return { kind: 'too-few-sampled', sampled: S, secrets: k };
  return { kind: 'no-usable-pair', sampled: S };
}

/** Audit a claim (see the module comment). Pure: the samples in, the outcome out. */
export function auditSamples(input: AuditInput, opts: AuditOptions): AuditOutcome {
  const N = input.secrets.length;
  if (input.outputs.length !== N) throw new MechError('internal', 'audit: secrets and outputs differ in length');
  const eps = opts.epsilon;
  if (!(eps >= 0) || !Number.isFinite(eps)) invalid(`the claimed eps must be a finite number >= 0, got ${eps}`);
  const confidence = opts.confidence ?? 0.99;
  if (!(confidence > 0 && confidence < 1))
    invalid(`the confidence must be strictly between 0 and 1, got ${confidence}`);
  const maxTests = opts.tests ?? DEFAULT_TESTS;
  if (!Number.isInteger(maxTests) || maxTests < 1 || maxTests > 1000)
    invalid(`the number of tests must be an integer in 1..1000, got ${maxTests}`);
  const counts = splitAndCount(input);
  const chosen = selectTests(counts, input, maxTests);
  const tested = estimateTests(input, counts, chosen, 1 - confidence);
  const witness = tested[0] ?? null;
  const lowerBound = witness && witness.bound > 0 ? witness.bound : 0;
  return {
    verdict: tested.length === 0 ? 'not-tested' : lowerBound > eps ? 'refuted' : 'not-refuted',
    epsilon: eps,
    confidence,
    epsilonLowerBound: lowerBound,
    witness,
    tested,
    samples: N,
    selectionSamples: counts.selCount,
    estimationSamples: N - counts.selCount,
    secretsSeen: counts.secretIds.length,
    untested: tested.length === 0 ? untestedReason(counts) : null,
    detection: detection(witness, eps, opts.detect, Math.max(chosen.length, 1), confidence),
  };
}
