/**
 * The price of each step a job takes on a domain of a known size (./domain-size.ts): domain memory, channel entries
 * streamed, privacy-check work, LP rows and solver memory, tight-constraints solves, planar-Laplace integrations,
 * regularity solves. A step over a limit (../base/admission-limits.ts) is refused with MechError 'too-large' naming
 * the size, the limit and what to do instead. Job admission (./admission.ts) sums these per job; the engine asks
 * optimalLpRefusalOn, the sweep sweepBoundsRefusal, with the same tests.
 */
import { MechError } from '../../src-shared/errors';
import { MAX_DENSE_ENTRIES } from '../linalg/matrix';
import {
  estimateLpBytes,
  LP_MEMORY_LIMIT_BYTES,
  MASTER_BUDGET_FRACTION,
  masterStartBytes,
} from '../lp/solver/memory-estimate';
import type { Domain } from '../metric/domain';
import { CLOSED_FORM_KINDS } from '../mechanism/closed-form-by-kind';
import type { LpOptions, MechanismKindName, JobRequest } from '../../src-shared/protocol/index';
import { ADMISSION_LIMITS as L } from '../base/admission-limits';
import { fmt, pairsOf, sizeOfBuiltDomain, sizeOfDomainInput, type DomainSize } from './domain-size';

/** Refuse a step over its limit: the size, the limit and what to do instead. */
export function tooLarge(
  what: string,
  size: number,
  limit: number,
  advice: string,
  detail?: Record<string, unknown>,
): never {
  throw new MechError('too-large', `${what}: ${fmt(size)}, over the limit of ${fmt(limit)}; ${advice}`, {
    size,
    limit,
    ...detail,
  });
}

/** Mechanisms whose channel is streamed row by row (n x n entries) when measured, checked or written. */
const STREAMED_KINDS = new Set<MechanismKindName>(CLOSED_FORM_KINDS);

/** A job's costs as they add up: channel entries streamed, points of structured Phi z = 1 solves, dense solve work. */
interface Work {
  streamEntries: number;
  tightPoints: number;
  tightDense: number;
  /** Dense LU work of regularity solves mu Phi = pi. */
  muDense?: number;
}

/** Every job holds at least one number per point (the prior): refused above maxPoints. */
export function assertPoints(d: DomainSize): void {
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
export function mechanismWork(kind: MechanismKindName, d: DomainSize, w: Work, lp?: LpOptions): void {
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
  // The decomposition's own start estimate (lp/memory-estimate.ts masterStartBytes), so that the job boundary
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
export function muWork(d: DomainSize, w: Work): void {
  if (d.mu !== 'cheap') w.muDense = (w.muDense ?? 0) + d.n * d.n * d.n;
}

/**
 * LP jobs: dense variables, privacy rows visited while building, and (capacity) solver memory after the best orbit
 * reduction.
 */
export function lpWork(what: string, d: DomainSize, pairs: number, withMemory: boolean): void {
  const n = d.n;
  const m = n;
  denseLpVariables(what, n, m);
  privacyRowVisits(
    what,
    pairs,
    m,
    'use a smaller domain, or a closed-form mechanism (rr is optimal on a clique; tight, tg, exponential elsewhere)',
  );
  // The LP's own first check (lp/private-channel-lp.ts), made here before the cost array, the orbits and the
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

/** A job's tally against its limits: channel entries streamed, structured and dense Phi z = 1 solves. */
export function settle(d: DomainSize, w: Work, what: string): void {
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

/** A tally's dense regularity solves (`times` of them) against the dense-solve budget. */
export function settleMu(d: DomainSize, w: Work, what: string, times = 1): void {
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

/** A privacy check's pairs x outputs, against the scan budget (all pairs) or the edge-walk budget. */
export function checkWork(d: DomainSize, outputs: number, what: string): void {
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

/** No work yet: the tally a job's costs are added to. */
export const noWork = (): Work => ({ streamEntries: 0, tightPoints: 0, tightDense: 0 });

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
