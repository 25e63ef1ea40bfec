/**
 * One size-and-work estimate at the boundary of every job. From the request
 * alone (the domain spec's numbers, parsed but NOT built) it sizes the
 * domain (points n, constrained pairs) and prices each step the job will
 * take: domain memory, channel entries streamed, privacy-check work, LP rows
 * and solver memory, tight-constraints solves, planar-Laplace integrations,
 * vertex enumeration. A job over a limit (./admission-limits.ts) is refused
 * with MechError 'too-large' naming the size, the limit and what to do
 * instead, in well under a second and before any allocation; a mismatch the
 * request already shows (a 6-row channel on a 10^9-point domain) is
 * 'invalid-input' at once.
 *
 * Domains whose size is only known from a file or an inline matrix
 * (graph:FILE, csv:FILE, inline custom/graph) are sized again once built
 * (admitBuiltDomain, called by the handlers right after resolveDomain):
 * their builders are bounded on their own (file byte cap, n^3 validation
 * limit from the CSV header, dense limit).
 */
import { MechError, invalid } from '../../src-shared/errors';
import { MAX_DENSE_ENTRIES } from '../linalg/matrix';
import {
  estimateLpBytes,
  LP_MEMORY_LIMIT_BYTES,
  MASTER_BUDGET_FRACTION,
  masterStartBytes,
} from '../lp/solver/memory-estimate';
import type { Domain } from '../metric/domain';
import { parseDomainSpecText, type ParsedDomainSpec } from '../metric/parse-domain-spec';
import { domainSpecSize } from '../../src-shared/grammar/domain-spec';
import { EXPLORER_MAX_N } from '../explorer/private-posterior-constraints';
import {
  type DomainInput,
  type LpOptions,
  type MechanismKindName,
  type JobRequest,
  type MechanismSpec,
} from '../../src-shared/protocol/index';
import { gridOffsetCheckWork } from '../check/grid-offset-check';
import { LEVINSON_MAX_POINTS } from '../bound/tight-exists';
import { ADMISSION_LIMITS as L } from '../base/admission-limits';

/** What the estimate knows about a domain without building it. */
interface DomainSize {
  /** How the domain is named in messages. */
  name: string;
  /** Points (a float: may exceed 2^53 for absurd specs, so that limits, not constructors, refuse it). */
  n: number;
  /**
   * Constrained pairs of an LP / privacy check: graph edges on graph metrics, else the pairs an all-pairs check visits.
   */
  pairs: number;
  /** Pairs the privacy check visits (edges on graph metrics, all n(n-1)/2 otherwise). */
  checkPairs: number;
  /** The check visits all pairs by the ln scan (no graph edges): priced against maxScanCheckWork. */
  checkScan: boolean;
  /**
   * Constrained pairs the optimal-mechanism LP needs at least: the graph edges, or on a Euclidean grid
   * (no graph metric) a greedy spanner, which has at least the 4n neighbour pairs; a lower bound, so
   * that only what no LP model can do is refused here.
   */
  optimalPairs: number;
  /** Upper bound on the isometry group size (the LP orbit reduction divides by at most this); Infinity when unknown. */
  symmetry: number;
  /** Cost class of a tight-constraints solve (Phi z = 1). */
  tight: 'closed-form' | 'structured' | 'dense' | 'unknown';
  /** Grid shape (planar Laplace). */
  grid?: { rows: number; cols: number };
  /** Phi is a 1-D Toeplitz matrix that tightExists solves by Levinson, O(n^2) per solve (bound/tight-exists.ts). */
  levinson?: true;
  /**
   * Cost class of the regularity solve mu Phi = pi (bound/mu.ts): closed form or Kronecker ('cheap'), else a dense n^3
   * LU.
   */
  mu?: 'cheap';
}

const fmt = (x: number): string => (x < 1e7 ? String(Math.round(x)) : x.toExponential(2));
const pairsOf = (n: number): number => (n * (n - 1)) / 2;

function tooLarge(what: string, size: number, limit: number, advice: string, detail?: Record<string, unknown>): never {
  throw new MechError('too-large', `${what}: ${fmt(size)}, over the limit of ${fmt(limit)}; ${advice}`, {
    size,
    limit,
    ...detail,
  });
}

/**
 * Size of a parsed spec, from its numbers alone (no allocation): the point count from the grammar's own
 * domainSpecSize (the one size model, which the editors use too), the pairs and solve costs by kind.
 */
export function sizeOfParsedSpec(text: string, d: ParsedDomainSpec): DomainSize | null {
  const n = domainSpecSize(d);
  const base = (
    n: number,
    pairs: number,
    graphMetric: boolean,
    symmetry: number,
    tight: DomainSize['tight'],
  ): DomainSize => ({
    name: text,
    n,
    pairs,
    checkPairs: graphMetric ? pairs : pairsOf(n),
    checkScan: !graphMetric,
    optimalPairs: graphMetric ? pairs : Math.min(pairs, 4 * n),
    symmetry,
    tight,
  });
  switch (d.kind) {
    case 'line':
      return base(n, Math.max(0, n - 1), true, 2, 'structured');
    case 'count':
      return base(n, n - 1, true, 2, 'structured');
    case 'ring':
      return base(n, n, true, 2 * n, 'closed-form');
    case 'clique':
      return { ...base(n, pairsOf(n), true, Infinity, 'closed-form'), mu: 'cheap' };
    case 'argmax':
    case 'max':
    case 'min':
    case 'percentile':
      return base(n, pairsOf(n), true, Infinity, 'closed-form');
    case 'hamming':
      return { ...base(n, (d.bits * n) / 2, true, Infinity, 'closed-form'), mu: 'cheap' };
    case 'sum':
    case 'avg': {
      // answers 0..UV, adjacent within V steps; Phi = exp(-eps ceil(|i-j|/V)) is not positive definite for V > 1,
      // so the lattice solver falls back to MINRES and a dense LU (measured: avg:50,50 17 s).
      const size = base(n, Math.min(pairsOf(n), d.v * n), true, 2, d.v === 1 ? 'structured' : 'dense');
      return d.v > 1 && n <= LEVINSON_MAX_POINTS ? { ...size, levinson: true } : size;
    }
    case 'kcount': {
      const king = (n * (3 ** Math.min(d.k, 40) - 1)) / 2;
      return base(n, Math.min(pairsOf(n), king), true, 2 ** d.k * factorial(d.k), d.k <= 2 ? 'structured' : 'dense');
    }
    case 'grid': {
      const sym = d.rows === d.cols ? 8 : 4;
      const g = { rows: d.rows, cols: d.cols };
      // Manhattan / Chebyshev: 4- / 8-neighbour graph metrics. Euclidean is no graph metric: the LP keeps the
      // pairs with no lattice point strictly between them (gcd(dr, dc) = 1: a fraction 6/pi^2 of all pairs).
      if (d.metric === 'manhattan') return { ...base(n, 2 * n, true, sym, 'structured'), grid: g, mu: 'cheap' };
      if (d.metric === 'chebyshev') return { ...base(n, 4 * n, true, sym, 'structured'), grid: g };
      return { ...base(n, (6 / Math.PI ** 2) * pairsOf(n), false, sym, 'structured'), grid: g };
    }
    case 'db': {
      const w = d.v + (d.absent ? 1 : 0);
      const perPoint =
        d.metric === 'max' ? (3 ** Math.min(d.u, 40) - 1) / 2 : d.metric === 'manhattan' ? d.u : (d.u * (w - 1)) / 2;
      const db = base(
        n,
        Math.min(pairsOf(n), n * perPoint),
        true,
        Infinity,
        d.metric === 'max' ? 'unknown' : 'closed-form',
      );
      return d.metric === 'max' ? db : { ...db, mu: 'cheap' };
    }
    case 'graph':
    case 'csv':
      return null; // known once the (byte-capped) file is read: admitBuiltDomain
  }
}

function factorial(k: number): number {
  let f = 1;
  for (let i = 2; i <= k; i++) f *= i;
  return f;
}

/** Size of a built domain (files and inline inputs, whose size the request does not show). */
function sizeOfBuiltDomain(domain: Domain): DomainSize {
  const n = domain.n;
  const edges = domain.kind === 'graph' ? domain.structure.edges?.from.length : undefined;
  const pairs = edges ?? pairsOf(n);
  return {
    name: domain.spec,
    n,
    pairs,
    checkPairs: pairs,
    checkScan: edges === undefined,
    optimalPairs: pairs,
    symmetry: Infinity,
    tight: 'unknown',
  };
}

/** Size of a domain input from the request alone; null when only the built domain can tell. */
export function sizeOfDomainInput(input: DomainInput): DomainSize | null {
  if (typeof input === 'string') {
    const { text, parsed } = parseDomainSpecText(input);
    return sizeOfParsedSpec(text, parsed);
  }
  return null; // inline: bounded by the protocol schema; sized when built
}

/* ---------- job costs ---------- */

/** Mechanisms whose channel is streamed row by row (n x n entries) when measured, checked or written. */
const STREAMED_KINDS = new Set<MechanismKindName>([
  'tg',
  'rr',
  'exponential',
  'laplace',
  'planar-laplace',
  'symmetric',
]);

interface Work {
  streamEntries: number;
  tightPoints: number;
  tightDense: number;
  /** Dense LU work of regularity solves mu Phi = pi. */
  muDense?: number;
}

function assertPoints(d: DomainSize): void {
  if (!(d.n <= L.maxPoints)) {
    tooLarge(
      `domain ${d.name} has too many points`,
      d.n,
      L.maxPoints,
      'every job holds at least one number per point (the prior), so use a smaller domain (a coarser grid, fewer individuals or values)',
      { points: d.n },
    );
  }
}

/** The price of building (and, where the job does, measuring) one mechanism of `kind` on d. */
function mechanismWork(kind: MechanismKindName, d: DomainSize, w: Work, lp?: LpOptions): void {
  const n = d.n;
  if (STREAMED_KINDS.has(kind)) w.streamEntries += n * n;
  if (kind === 'planar-laplace' && d.grid && n * n <= L.maxStreamEntries) {
    const integrations = (2 * d.grid.rows - 1) * (2 * d.grid.cols - 1);
    if (integrations > L.maxPlanarIntegrations) {
      tooLarge(
        `planar Laplace on ${d.name} needs one integration per cell offset, (2R-1)(2C-1)`,
        integrations,
        L.maxPlanarIntegrations,
        `use a coarser grid (at most about ${Math.floor(Math.sqrt(L.maxPlanarIntegrations) / 2)} x ${Math.floor(Math.sqrt(L.maxPlanarIntegrations) / 2)}), or the tight-constraints mechanism (structured, no integrations)`,
      );
    }
  }
  if (kind === 'tight') {
    if (d.tight === 'structured') w.tightPoints += n;
    else if (d.tight === 'dense' || d.tight === 'unknown') w.tightDense += n * n * n;
  }
  // Jobs solve the optimal LP by decomposition (engine.ts), lpModel 'auto' unless asked.
  if (kind === 'optimal') optimalWork(d, w, lp ?? {});
}

/**
 * An optimal request: the decomposition within its limits, or, over them and with a time limit, the best of the
 * cheap candidates (./best-candidate.ts), priced as what they are: planar Laplace and the exponential mechanism
 * streamed, the tight-constraints solve. Without a time limit it is refused with the way to get that answer.
 */
function optimalWork(d: DomainSize, w: Work, lp: LpOptions): void {
  const refusal = optimalLpRefusal(d, lp);
  if (!refusal) return;
  if (lp.timeLimitSeconds === undefined) {
    throw new MechError(
      'too-large',
      `${refusal.message}; or give a time limit (--time-limit S, timeLimitSeconds) to get the best of the cheap constructions (planar Laplace, tight constraints, exponential, each with the optimal remap) without the LP, and without a bound on the best possible`,
      refusal.detail,
    );
  }
  mechanismWork('exponential', d, w);
  if (d.grid) mechanismWork('planar-laplace', d, w);
  // A dense or unknown tight solve is not priced: that candidate fails alone (a note) without stopping the others.
  if (d.tight === 'structured') mechanismWork('tight', d, w);
}

/**
 * Why the optimal LP on d is over the decomposition's limits (MechError 'too-large'), or null when it is within
 * them. Admission and the engine decide with this one test: over the limits, a request with a time limit
 * returns the best cheap candidate instead of solving.
 */
function optimalLpRefusal(d: DomainSize, lp: LpOptions): MechError | null {
  try {
    decompositionWork(`the optimal-mechanism LP (${lp.lpModel ?? 'auto'} model) on ${d.name}`, d, lp);
    return null;
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large') return e;
    throw e;
  }
}

/**
 * optimalLpRefusal for a built domain: sized from its spec when that names it (as admission did), else from the domain.
 */
export function optimalLpRefusalOn(domain: Domain, lp: LpOptions): MechError | null {
  let size: DomainSize | null;
  try {
    size = sizeOfDomainInput(domain.spec);
  } catch {
    size = null; // an inline domain's spec is a name, not a grammar sentence
  }
  return optimalLpRefusal(size && size.n === domain.n ? size : sizeOfBuiltDomain(domain), lp);
}

/**
 * The typed optimal LP is solved by decomposition, without the
 * orbit reduction: the dense n x m channel, the pricing rows (spanner or
 * edge pairs, or for 'exact' a lifting pass over all pairs per output and
 * round), and the master's starting columns in its memory budget (the same
 * test column-decomposition.ts makes before its first solve).
 */
function decompositionWork(what: string, d: DomainSize, lp: LpOptions): void {
  const n = d.n;
  const m = n;
  denseLpVariables(what, n, m);
  if (lp.lpModel === 'exact') {
    const visits = pairsOf(n) * m;
    if (visits > L.maxLpLiftVisits) {
      tooLarge(
        `${what} checks every one of its ${fmt(pairsOf(n))} pairs for each of ${fmt(m)} outputs in every round`,
        visits,
        L.maxLpLiftVisits,
        "use the spanner model (lpModel 'spanner', --lp-model spanner), or a smaller domain",
      );
    }
  } else {
    privacyRowVisits(
      what,
      d.optimalPairs,
      m,
      'use a smaller domain, or a closed-form mechanism (rr is optimal on a clique; tight, tg, exponential elsewhere)',
    );
  }
  const budget = MASTER_BUDGET_FRACTION * LP_MEMORY_LIMIT_BYTES;
  // The decomposition's own start estimate (lp/solver/memory-estimate.ts masterStartBytes), so that the job boundary
  // and the solver refuse the same domains (50 x 50: about 500 MiB of a 717 MiB budget, admitted).
  const est = masterStartBytes(n, m);
  if (est > budget) {
    throw new MechError(
      'too-large',
      `${what}: the decomposition master would need about ${(est / 2 ** 20).toFixed(0)} MiB of solver memory for its starting columns of ${fmt(n)} entries, over its ${(budget / 2 ** 20).toFixed(0)} MiB budget; use a smaller domain, or a closed-form mechanism (tight, tg, exponential)`,
      { estimateBytes: est, limitBytes: budget },
    );
  }
}

/** The LP's dense n x m channel variables, refused above MAX_DENSE_ENTRIES. */
function denseLpVariables(what: string, n: number, m: number): void {
  if (n * m > MAX_DENSE_ENTRIES) {
    tooLarge(
      `${what} has n x n channel variables`,
      n * m,
      MAX_DENSE_ENTRIES,
      'the LP is solved over a dense channel: use a domain of at most about 11000 points (far fewer in practice), or a closed-form mechanism (tg, rr, tight, ...)',
    );
  }
}

/** One privacy row per constrained pair and output, visited while the model is built; refused above maxLpRowVisits. */
function privacyRowVisits(what: string, pairs: number, m: number, hint: string): void {
  const visits = pairs * m;
  if (visits > L.maxLpRowVisits) {
    tooLarge(
      `${what} has one privacy row per constrained pair and output (${fmt(pairs)} pairs x ${fmt(m)} outputs)`,
      visits,
      L.maxLpRowVisits,
      hint,
    );
  }
}

/** The regularity decision mu Phi = pi: closed form / Kronecker where bound/mu.ts has one, else a dense LU. */
function muWork(d: DomainSize, w: Work): void {
  if (d.mu !== 'cheap') w.muDense = (w.muDense ?? 0) + d.n * d.n * d.n;
}

/**
 * LP jobs: dense variables, privacy rows visited while building, and (capacity) solver memory after the best orbit
 * reduction.
 */
function lpWork(what: string, d: DomainSize, pairs: number, withMemory: boolean): void {
  const n = d.n;
  const m = n;
  denseLpVariables(what, n, m);
  privacyRowVisits(
    what,
    pairs,
    m,
    'use a smaller domain, or a closed-form mechanism (rr is optimal on a clique; tight, tg, exponential elsewhere)',
  );
  // The LP's own first check (lp/channel/private-channel-lp.ts), made here before the cost array, the orbits and the
  // n x m channel are allocated: even the constraint-free part (the row sums) must fit the solver memory after
  // the best orbit reduction. line:11000 optimal took 11 s and 2.5 GB to reach it there.
  if (Number.isFinite(d.symmetry)) {
    const g = d.symmetry;
    const est = estimateLpBytes((n * m) / g, n / g, (n * m) / g);
    if (est > LP_MEMORY_LIMIT_BYTES) {
      throw new MechError(
        'too-large',
        `${what} would need about ${(est / 2 ** 20).toFixed(0)} MiB of solver memory for its ${fmt(n * m)} channel variables alone, even after the best symmetry reduction (at most ${g} isometries), over the ${(LP_MEMORY_LIMIT_BYTES / 2 ** 20).toFixed(0)} MiB limit; use a smaller domain, or a closed-form mechanism (tight, tg, exponential)`,
        { estimateBytes: est, limitBytes: LP_MEMORY_LIMIT_BYTES },
      );
    }
  }
  if (withMemory && Number.isFinite(d.symmetry)) {
    const g = d.symmetry;
    const rows = (n + 2 * pairs * m) / g;
    const est = estimateLpBytes((n * m) / g, rows, (n * m + 4 * pairs * m) / g);
    if (est > LP_MEMORY_LIMIT_BYTES) {
      throw new MechError(
        'too-large',
        `${what} would need about ${(est / 2 ** 20).toFixed(0)} MiB of solver memory even after the best symmetry reduction (${fmt(n * m)} variables and ${fmt(n + 2 * pairs * m)} constraints, divided by at most ${g} isometries), over the ${(LP_MEMORY_LIMIT_BYTES / 2 ** 20).toFixed(0)} MiB limit; use a smaller domain (a grid of at most about 10 x 10 for capacities)`,
        { estimateBytes: est, limitBytes: LP_MEMORY_LIMIT_BYTES },
      );
    }
  }
}

function settle(d: DomainSize, w: Work, what: string): void {
  if (w.streamEntries > L.maxStreamEntries) {
    tooLarge(
      `${what} on ${d.name} generates and measures its channel entry by entry (${fmt(d.n)} x ${fmt(d.n)} per mechanism and pass)`,
      w.streamEntries,
      L.maxStreamEntries,
      `use a domain of at most about ${fmt(Math.floor(Math.sqrt(L.maxStreamEntries)))} points${d.grid ? ` (a grid of at most ${Math.floor(L.maxStreamEntries ** 0.25)} x ${Math.floor(L.maxStreamEntries ** 0.25)})` : ''}, or the tight-constraints mechanism (measured from its structure, no n x n pass)`,
    );
  }
  if (w.tightPoints > L.maxTightPoints) {
    tooLarge(
      `${what} on ${d.name} solves Phi z = 1 on ${fmt(d.n)} points${w.tightPoints > d.n ? ` (${fmt(w.tightPoints / d.n)} times)` : ''}`,
      w.tightPoints,
      L.maxTightPoints,
      'use a smaller domain or fewer solves (a coarser eps grid)',
    );
  }
  if (w.tightDense > L.maxTightDenseWork) {
    tooLarge(
      `${what} on ${d.name}: Phi = exp(-eps d) has no fast solver here (not positive definite or no lattice structure), so Phi z = 1 costs a dense n^3 solve${w.tightDense > d.n ** 3 ? ' per eps' : ''}`,
      w.tightDense,
      L.maxTightDenseWork,
      `use at most about ${fmt(Math.floor(Math.cbrt(L.maxTightDenseWork)))} points`,
    );
  }
}

function settleMu(d: DomainSize, w: Work, what: string, times = 1): void {
  const work = (w.muDense ?? 0) * times;
  if (work > L.maxTightDenseWork) {
    tooLarge(
      `${what} on ${d.name} solves mu Phi = pi by a dense n^3 LU${times > 1 ? ` ${times} times` : ''} (closed forms exist only on cliques and on Kronecker products: Hamming cubes, databases with summed metrics, Manhattan grids)`,
      work,
      L.maxTightDenseWork,
      `use at most about ${fmt(Math.floor(Math.cbrt(L.maxTightDenseWork / times)))} points`,
    );
  }
}

function checkWork(d: DomainSize, outputs: number, what: string): void {
  const work = d.checkPairs * outputs;
  const limit = d.checkScan ? L.maxScanCheckWork : L.maxCheckWork;
  if (work > limit) {
    tooLarge(
      `${what} on ${d.name} compares every output column over ${fmt(d.checkPairs)} pairs (${fmt(outputs)} outputs)`,
      work,
      limit,
      'check a smaller domain, or use a mechanism whose guarantee holds by construction (every construction reports its guaranteedEpsilon)',
    );
  }
}

/** The domain's size when the request shows it (memoised per input object/text). */
function sizer(built?: ReadonlyMap<DomainInput, Domain>): (input: DomainInput) => DomainSize | null {
  return (input) => {
    const b = built?.get(input);
    if (b) return sizeOfBuiltDomain(b);
    return sizeOfDomainInput(input);
  };
}

/** No work yet: the tally a job's costs are added to. */
const noWork = (): Work => ({ streamEntries: 0, tightPoints: 0, tightDense: 0 });

/** The domain's size when the request shows it, its points admitted; null when the request does not show it. */
function pointsDomain(input: DomainInput, size: (i: DomainInput) => DomainSize | null): DomainSize | null {
  const d = size(input);
  if (d) assertPoints(d);
  return d;
}

/**
 * The secrets' domain of a check, measure or apply request, as pointsDomain (null when the request names none);
 * an inline channel whose rows do not match it is refused first, before anything is sized or built.
 */
function secretsDomain(
  req: { domain?: DomainInput; channel?: { rows: number } },
  size: ReturnType<typeof sizer>,
): DomainSize | null {
  const d = req.domain !== undefined ? size(req.domain) : null;
  if (req.channel && d && req.channel.rows !== d.n)
    invalid(`the channel has ${req.channel.rows} secret rows but the domain ${d.name} has ${fmt(d.n)} points`);
  if (d) assertPoints(d);
  return d;
}

/** A mechanism named for a channel must be built on the secrets' domain (when both sizes are known). */
function sameDomainSize(md: DomainSize | null, d: DomainSize | null): void {
  if (md && d && md.n !== d.n)
    invalid(`the mechanism's domain ${md.name} has ${fmt(md.n)} points but the domain ${d.name} has ${fmt(d.n)}`);
}

/**
 * `passes`: streaming passes over the channel the job makes (measure 1, + 1 for an expected loss; 0 when only checked).
 */
function mechanismSpecWork(
  spec: MechanismSpec,
  size: (i: DomainInput) => DomainSize | null,
  what: string,
  passes: number,
): DomainSize | null {
  const d = pointsDomain(spec.domain, size);
  if (!d) return null;
  const w = noWork();
  mechanismWork(spec.kind, d, w, spec);
  w.streamEntries *= passes;
  settle(d, w, what);
  return d;
}

/**
 * A privacy check: the channel or mechanism must fit the domain; the pairs x outputs (or planar Laplace's grid offsets)
 * are priced.
 */
function admitCheck(req: Extract<JobRequest, { type: 'check' }>, size: ReturnType<typeof sizer>): void {
  const d = secretsDomain(req, size);
  let outputs = req.channel?.cols;
  if (req.mechanism) {
    const md = mechanismSpecWork(req.mechanism, size, `checking the ${req.mechanism.kind} mechanism`, 0);
    sameDomainSize(md, d);
    outputs = md?.n ?? d?.n;
  }
  if (d && outputs !== undefined && !(req.mechanism?.kind === 'tight')) {
    // Planar Laplace is checked by its grid offsets (check/grid-offset-check.ts) when that is cheaper.
    const g = req.mechanism?.kind === 'planar-laplace' ? d.grid : undefined;
    const offsets = g ? gridOffsetCheckWork(g.rows, g.cols) : Infinity;
    if (offsets < d.checkPairs * outputs) {
      if (offsets > L.maxCheckWork) {
        tooLarge(
          `the privacy check of planar Laplace on ${d.name} by its grid offsets`,
          offsets,
          L.maxCheckWork,
          'check a smaller grid; planar Laplace is eps*d-private by construction (snapping to cells is post-processing)',
        );
      }
    } else checkWork(d, outputs, 'the privacy check');
  }
}

/**
 * A threshold search: at most a million eps values, each a tight-constraints solve (free where the closed form
 * applies).
 */
function admitThreshold(req: Extract<JobRequest, { type: 'threshold' }>, size: ReturnType<typeof sizer>): void {
  const d = pointsDomain(req.domain, size);
  if (!d) return;
  const step = req.step ?? 0.01;
  const from = req.from ?? step;
  const to = req.to ?? Math.max(10, from);
  const count = Math.floor((to - from) / step + 1e-9) + 1;
  if (count > 1e6) invalid(`threshold: the grid from ${from} to ${to} with step ${step} has over a million points`);
  if (d.tight === 'closed-form') return;
  if (d.levinson) {
    // Levinson and its residual check: about 3 n^2 operations per eps, against the dense-solve budget.
    const work = count * 3 * d.n * d.n;
    if (work > L.maxTightDenseWork) {
      tooLarge(
        `the threshold search (up to ${count} eps values) on ${d.name} solves Phi z = 1 by Levinson's O(n^2) Toeplitz recursion per eps`,
        work,
        L.maxTightDenseWork,
        'use a coarser eps grid (--step) or a shorter range (--from, --to)',
      );
    }
    return;
  }
  const w = noWork();
  mechanismWork('tight', d, w);
  w.tightPoints *= count;
  w.tightDense *= count;
  settle(d, w, `the threshold search (up to ${count} eps values)`);
}

/**
 * Refuse, from the request alone, a job that cannot complete within the
 * limits. `built` maps domain inputs to domains already built (the
 * handlers' second pass for file and inline domains). Returns a short
 */
export function admitRequest(req: JobRequest, built?: ReadonlyMap<DomainInput, Domain>): void {
  const size = sizer(built);
  switch (req.type) {
    case 'mechanism': {
      // A remap is one pass over the columns, then C . R is measured; its expected loss is the remap's value (no extra
      // pass).
      mechanismSpecWork(
        req,
        size,
        `the ${req.remap ? 'remapped ' : ''}${req.kind} mechanism`,
        req.remap ? 2 : req.loss !== undefined ? 2 : 1,
      );
      return;
    }
    case 'apply': {
      // Sampling builds at most one row per distinct secret (<= n x outputs entries), plus the remap's pass when asked.
      const d = secretsDomain(req, size);
      if (req.mechanism) {
        const md = mechanismSpecWork(
          req.mechanism,
          size,
          `releasing with the ${req.mechanism.remap ? 'remapped ' : ''}${req.mechanism.kind} mechanism`,
          req.mechanism.remap ? 2 : 1,
        );
        sameDomainSize(md, d);
      }
      return;
    }
    case 'measure': {
      secretsDomain(req, size);
      if (req.mechanism)
        mechanismSpecWork(
          req.mechanism,
          size,
          `measuring the ${req.mechanism.kind} mechanism`,
          (req.loss !== undefined ? 2 : 1) + (req.mechanism.remap ? 1 : 0),
        );
      return;
    }
    case 'check':
      admitCheck(req, size);
      return;
    case 'capacity': {
      const d = pointsDomain(req.domain, size);
      if (!d) return;
      lpWork(`the capacity LPs on ${d.name}`, d, d.pairs, true);
      return;
    }
    case 'regular': {
      const d = pointsDomain(req.domain, size);
      if (!d) return;
      const w = noWork();
      muWork(d, w);
      settleMu(d, w, 'the regularity decision');
      return;
    }
    case 'threshold':
      admitThreshold(req, size);
      return;
    case 'vertices':
    case 'explorer': {
      const d = size(req.domain);
      if (!d) return;
      if (d.n > EXPLORER_MAX_N) {
        throw new MechError(
          'too-large',
          `privacy-type explorer: ${d.name} has ${fmt(d.n)} points; vertex and kernel enumeration is limited to n <= ${EXPLORER_MAX_N}`,
          {
            n: d.n,
            limit: EXPLORER_MAX_N,
          },
        );
      }
      return;
    }
    case 'sweep': {
      const d = pointsDomain(req.domain, size);
      if (!d) return;
      const w = noWork();
      for (const kind of req.kinds) mechanismWork(kind as MechanismKindName, d, w);
      if (req.loss !== undefined) w.streamEntries *= 2;
      w.streamEntries *= req.steps;
      w.tightPoints *= req.steps;
      w.tightDense *= req.steps;
      settle(d, w, `the sweep (${req.steps} eps values x ${req.kinds.length} mechanisms)`);
      // the regularity bounds are not refused here: when they are too costly the job
      // draws the curves without them and says why (sweepBoundsRefusal)
      return;
    }
    case 'compare': {
      // Each row is a construction (remapped if asked) or a given channel, measured, remapped for the distance loss
      // and checked: about four streaming passes each, priced together.
      const d = pointsDomain(req.domain, size);
      if (!d) return;
      const w = noWork();
      // a given channel is only streamed; a project mechanism's construction is priced as its own
      for (const m of req.mechanisms)
        if (m.channel) w.streamEntries += m.channel.rows * m.channel.cols;
        else if (m.channelRef) w.streamEntries += d.n * d.n;
        else mechanismWork(m.kind, d, w, m.mechanism ?? m);
      w.streamEntries *= 4;
      settle(d, w, `comparing ${req.mechanisms.length} mechanism${req.mechanisms.length > 1 ? 's' : ''}`);
      return;
    }
    case 'rows':
      // block means stream the whole channel once; listed rows only build the mechanism
      if (req.mechanism)
        mechanismSpecWork(
          req.mechanism,
          size,
          `the ${req.mechanism.kind} mechanism's ${req.blocks !== undefined ? 'block means' : 'rows'}`,
          req.blocks !== undefined ? 1 : 0,
        );
      return;
    case 'run-project':
    case 'case-study':
      return; // each project item is admitted on its own (runJobRequest); case studies have fixed sizes
  }
}

/**
 * Why a sweep's regularity bounds (SPEC §5: mu Phi = pi at every eps) would
 * be too costly on its domain, or null. The sweep job then leaves the bounds
 * out with this as its note, instead of refusing the curves with them.
 */
export function sweepBoundsRefusal(req: Extract<JobRequest, { type: 'sweep' }>, built?: Domain): string | null {
  const d = built ? sizeOfBuiltDomain(built) : sizeOfDomainInput(req.domain);
  if (!d) return null;
  const w = noWork();
  muWork(d, w);
  try {
    settleMu(d, w, `the regularity bounds at ${req.steps} eps values`, req.steps);
    return null;
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large') return e.message;
    throw e;
  }
}

/** Second pass for domains the request could not size (files, inline): call right after building them. */
export function admitBuiltDomain(req: JobRequest, input: DomainInput, domain: Domain): void {
  if (typeof input === 'string' && sizeOfDomainInput(input) !== null) return; // already priced from the spec
  admitRequest(req, new Map([[input, domain]]));
}
