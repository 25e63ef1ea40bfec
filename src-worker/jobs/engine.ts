/**
 * The ONE place where job handlers meet the engine. Each function here is
 * a thin call into src-worker/<concept>/.
 */
import { MechError } from '../../src-shared/errors';
import { edgesIfAvailable } from '../metric/shortest-paths';
import type { Matrix } from '../linalg/matrix';
import type { Domain } from '../metric/domain';
import type { Mechanism, RowSource } from '../mechanism/channel';
import {
  type MechanismKindName,
  type LpOptions,
  type LpSample,
  type RegularityNote,
} from '../../src-shared/protocol/index';
import { Deadline } from '../base/deadline';
import { privatePosteriorVertices } from '../explorer/posterior-vertices';
import { enumerateKernelMechanisms } from '../explorer/kernel-mechanisms';
import { parseDomainSpec } from '../metric/parse-domain-spec';
import { decideRegularity, type RegularityLP } from '../bound/regularity';
import { thresholdSearch } from '../bound/threshold-search';
import { tightExists } from '../bound/tight-exists';
import { privacyTypeCapacities } from '../capacity/privacy-type-capacity';
import { optimalMechanism, type OptimalLpResult, type OptimalMechanismOptions } from '../lp/optimal/optimal-mechanism';
import { cheapCandidates } from './cheap-candidates';
import { bestCandidateOnly } from './best-candidate';
import { optimalLpRefusalOn } from './job-costs';
import { decideRegularityByLP } from '../lp/other/regularity-lp';
import type { LossInput as LpLoss } from '../lp/optimal/loss-input';
import type { PricingFactory } from '../lp/pricing/pricing-pool';
import { tightConstraintsStructured } from '../mechanism/implicit/tight-structured';
import { checkGridOffsetPrivacy, gridOffsetCheckWork } from '../check/grid-offset-check';
import { checkPrivacyThreaded, type PrivacyCheckResult } from '../check/privacy-check';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import { GridOffsetChannel } from '../mechanism/function-row-source';
import {
  structuredExpectedDistanceError,
  structuredMeasures,
  structuredPrivacyCheck,
} from '../measure/structured/structured-dispatch';
import type { LpProgress } from '../mechanism/lp-result';
import { closedFormMechanism } from '../mechanism/closed-form-by-kind';
import { customMetricDomain } from '../metric/custom-metric';
import { graphDomain as engineGraphDomain } from '../metric/graph';
import { channelMeasures, type Measures } from '../measure/channel-measures';
import { expectedDistanceError } from '../measure/expected-distance-error';
import { posteriorLoss } from '../measure/expected-loss';
import { bayesRemap } from '../remap/bayes-remap';
import { buildLoss, type GuessSpec } from '../measure/loss-spec';
import { matrixLoss } from '../measure/matrix-loss';
import { binaryLoss } from '../measure/binary-loss';
import { nibLoss } from '../measure/nib-loss';
import type { LossFunction } from '../measure/guess-function';
import { checkCancelled } from '../numeric/cancel';

/* ---------- domains ---------- */

/** SPEC §8 domain text -> Domain (metric/parse-domain-spec). */
export function parseDomain(spec: string, onProgress?: (fraction: number, message: string) => void): Domain {
  return parseDomainSpec(spec, undefined, onProgress);
}

/** Inline custom metric (validated, SPEC §1). */
export function customDomain(
  distances: Matrix,
  labels: readonly string[],
  onProgress?: (fraction: number, message: string) => void,
): Domain {
  return customMetricDomain(distances, labels, undefined, onProgress);
}

/** Inline graph (shortest-path metric). */
export function graphDomain(labels: readonly string[], edges: ReadonlyArray<readonly [number, number]>): Domain {
  return engineGraphDomain(labels, edges);
}

/* ---------- mechanisms ---------- */

export interface BuildOptions {
  prior: Float64Array;
  loss?: LossSpecInput;
  /** kind 'optimal' only: the request's LP options (protocol lpOptionsSchema). */
  lp?: LpOptions;
  signal: AbortSignal;
  progress(fraction: number | null, message: string, lp?: LpSample): void;
  /** Non-zero element 0 stops an optimal LP with its best mechanism so far (the job's shared flag). */
  stopFlag?: Int32Array;
  /** kind 'optimal': the job's budget (default: lp.timeLimitSeconds from when the construction starts). */
  deadline?: Deadline;
  /** kind 'optimal': the decomposition's pricing engine (JobContext.pricing; default this machine's threads). */
  pricing?: PricingFactory;
}

/** A loss as the engine's loss builders take it. */
export type LossSpecInput = GuessSpec;

/**
 * `expectedLoss`: the returned channel's expected loss under the request's loss when the construction computed it
 * already (the best cheap candidate, streamed).
 */
export type MechanismOutcome =
  | { exists: true; mechanism: Mechanism; lp?: OptimalLpResult; expectedLoss?: number }
  | { exists: false; minZ: number; minZAt: string };

/**
 * The request's LP options in the solver's names (optimalMechanism: model, threads); its time limit is the job's
 * Deadline.
 */
export function lpSolveOptions(
  lp: LpOptions,
): Pick<OptimalMechanismOptions, 'model' | 'delta' | 'targetGap' | 'threads'> {
  return {
    model: lp.lpModel ?? 'auto',
    ...(lp.delta !== undefined ? { delta: lp.delta } : {}),
    ...(lp.targetGap !== undefined ? { targetGap: lp.targetGap } : {}),
    ...(lp.lpThreads !== undefined ? { threads: lp.lpThreads } : {}),
  };
}

/** Our loss spec in the LP's terms (rows = guesses w, columns = secrets x). */
function lpLoss(loss: LossSpecInput | undefined): LpLoss {
  if (!loss) return 'bin'; // no loss: maximise binary-gain utility (SPEC §8 utility)
  switch (loss.kind) {
    case 'bin':
    case 'dist':
    case 'dist2':
      return loss.kind;
    case 'nib':
      return (w: number, x: number) => (w === x ? 1 : 0);
    case 'matrix':
      return loss.matrix;
  }
}

/** What a round reports (LpProgress without its fraction: the job keeps its own, monotonic). */
type RoundFigures = Omit<LpProgress, 'fraction'>;

/** The progress line of an LP round: objective, certified bound, gap. */
export function lpProgressMessage(p: RoundFigures): string {
  const g = (x: number): string => (Number.isFinite(x) ? x.toPrecision(6) : String(x));
  return `LP round ${p.round}: objective ${g(p.objective)}, bound ${g(p.bound)}, gap ${Number.isFinite(p.gap) ? `${(p.gap * 100).toPrecision(3)}%` : String(p.gap)} (${(p.elapsedMs / 1000).toFixed(1)} s)`;
}

/**
 * The typed progress sample of an LP round (non-finite bound and gap, before the first certified bound, are null; none
 * without a finite objective).
 */
export function lpSample(p: RoundFigures, fraction: number): LpSample | undefined {
  if (!Number.isFinite(p.objective) || !Number.isInteger(p.round) || p.round < 0) return undefined;
  const bound = Number.isFinite(p.bound) ? p.bound : null;
  const gap = bound !== null && Number.isFinite(p.gap) && p.gap >= 0 ? p.gap : null;
  const sample: LpSample = {
    round: p.round,
    objective: p.objective,
    bound,
    gap,
    elapsedMs: Math.max(0, p.elapsedMs),
    fraction: Math.min(1, Math.max(0, fraction)),
  };
  return sample;
}

export async function buildMechanism(
  kind: MechanismKindName,
  domain: Domain,
  eps: number,
  opts: BuildOptions,
): Promise<MechanismOutcome> {
  switch (kind) {
    case 'tight': {
      // SPEC §2: Phi z = 1; exists iff z >= 0
      const r = tightConstraintsStructured(domain, eps);
      if (!r.exists) {
        return { exists: false, minZ: r.minZ, minZAt: r.argMinLabel };
      }
      return { exists: true, mechanism: r.mechanism };
    }
    case 'optimal': {
      // The typed path: a privacy model ('auto' unless asked: edges where the domain has them, else exact;
      // the spanner only when asked, chooseLpModel) solved by decomposition with a certified gap, a time limit
      // and the best mechanism so far. The legacy model choice (orbit reduction, full model or constraint
      // generation; optimalMechanism without `model`) is no longer used by jobs; the case studies call it directly.
      const lp = opts.lp ?? {};
      let fraction = 0;
      const deadline = opts.deadline ?? Deadline.after(lp.timeLimitSeconds);
      // Over the decomposition's limits with a time limit (admission admits it): the best cheap candidate alone.
      const refusal = optimalLpRefusalOn(domain, lp);
      if (refusal) {
        if (!deadline.limited) throw refusal;
        const best = await bestCandidateOnly(domain, eps, opts, refusal, deadline);
        return { exists: true, mechanism: best.mechanism, lp: best.mechanism.lp, expectedLoss: best.expectedLoss };
      }
      // Never worse than a cheap construction: planar Laplace, tight constraints and the exponential mechanism,
      // each remapped, are tried first; the cheapest seeds the LP and is returned when the LP does not beat it.
      const candidates = cheapCandidates(domain, eps, opts.prior, opts.loss, {
        signal: opts.signal,
        progress: (_f, m) => opts.progress(0, m),
      });
      const mechanism = await optimalMechanism(domain, eps, opts.prior, lpLoss(opts.loss), {
        signal: opts.signal,
        candidates,
        deadline,
        ...lpSolveOptions(lp),
        ...(opts.stopFlag ? { stopFlag: opts.stopFlag } : {}),
        // Pricing elsewhere (a queue's workers) keeps the decomposition even where one orbit model would do.
        ...(opts.pricing ? { decompositionOptions: { pricing: opts.pricing } } : {}),
        // Rounds carry the monotonic fraction; phase messages keep the last one (the bar never jumps back).
        onLpProgress: (p) => {
          fraction = Math.max(fraction, p.fraction);
          opts.progress(fraction, lpProgressMessage(p), lpSample(p, fraction));
        },
        onProgress: (_f: number, m: string) => opts.progress(fraction, m),
      });
      return { exists: true, mechanism, lp: mechanism.lp };
    }
    case 'tg':
    case 'rr':
    case 'exponential':
    case 'laplace':
    case 'planar-laplace':
    case 'symmetric':
      return { exists: true, mechanism: closedFormMechanism(kind, domain, eps) };
    default: {
      const none: never = kind;
      throw new MechError('internal', `no construction for the mechanism kind '${String(none)}'`);
    }
  }
}

/* ---------- measures (SPEC §3) ---------- */

export type { Measures };

export function measureChannel(prior: Float64Array, channel: RowSource): Measures {
  // tight-constraints mechanisms: the same numbers from z and the metric, without n^2 entries
  const structured = structuredMeasures(prior, channel);
  if (structured) return structured;
  // SPEC §3: every Bayes measure in one streaming pass over the rows.
  const m = channelMeasures(prior, channel);
  // SPEC §3: utility with an optimal remap under binary gain = V[pi > C]
  return { ...m, utility: m.posteriorVulnerability };
}

/**
 * U_l[pi > C] with its optimal remap (guess labels). `domain` is needed for distance losses.
 *
 * A distance loss on a grid whose cells are the channel's rows takes the certified grid search of
 * remap/grid-best-guess.ts (a few guesses per output instead of all n: on 50 x 50, ~1e8 operations instead of
 * 1.6e10); on whole columns it returns the measure's remap and value bit for bit (remap/bayes-remap.ts).
 */
export function expectedLoss(
  prior: Float64Array,
  channel: RowSource,
  loss: LossSpecInput,
  domain: Domain | null,
  signal?: AbortSignal,
): { value: number; remap: string[] } {
  const grid = domain?.structure.grid;
  if (
    domain &&
    grid &&
    (loss.kind === 'dist' || loss.kind === 'dist2') &&
    channel.rows === domain.n &&
    grid.rows * grid.cols === domain.n
  ) {
    const r = bayesRemap(channel, domain, prior, loss, { window: 'off', ...(signal ? { signal } : {}) });
    return { value: r.remappedLoss, remap: Array.from(r.remap, (w) => domain.label(w)) };
  }
  let l: LossFunction;
  if (domain) l = buildLoss(loss, domain);
  else if (loss.kind === 'matrix') l = matrixLoss(loss.matrix, loss.guessLabels);
  else if (loss.kind === 'bin') l = binaryLoss(channel.rows, (i) => channel.rowLabel(i));
  else if (loss.kind === 'nib') l = nibLoss(channel.rows, (i) => channel.rowLabel(i));
  else throw new MechError('invalid-input', `the '${loss.kind}' loss needs distances: give --domain`);
  const r = posteriorLoss(prior, channel, l);
  const remap: string[] = [];
  for (let y = 0; y < r.remap.length; y++) remap.push(l.guessLabel(r.remap[y]!));
  return { value: r.value, remap };
}

/** Expected distance error sum_x pi_x sum_y C[x][y] d(x,y) (outputs = secrets). */
export function qualityLoss(prior: Float64Array, channel: RowSource, domain: Domain): number {
  return structuredExpectedDistanceError(prior, channel, domain) ?? expectedDistanceError(prior, channel, domain);
}

/* ---------- privacy check (SPEC §4) ---------- */

export interface CheckOutcome {
  effectiveEpsilon: number;
  passes: boolean;
  pairsChecked: number;
  worst: { x: string; xp: string; y: string; ratio: number; violates: boolean }[];
}

export async function checkChannel(
  channel: RowSource,
  domain: Domain,
  eps: number,
  topK: number,
  maxWork?: number,
  ctx?: { signal?: AbortSignal; progress?: (f: number, m: string) => void },
  maxScanWork?: number,
): Promise<CheckOutcome> {
  // SPEC §4: largest ln(C[x][y]/C[x'][y]) / d(x,x'); edges suffice on graph metrics.
  // Tight-constraints mechanisms: exact by the triangle inequality, verified structurally.
  const t = structuredPrivacyCheck(channel, domain, eps);
  if (t?.passes) return { effectiveEpsilon: t.effectiveEpsilon, passes: true, pairsChecked: t.verified, worst: [] };
  // All pairs take the ln scan on the machine's cores: the same time buys maxScanCheckWork / maxCheckWork times the
  // work (unless the caller sets the scan's own budget).
  const r = useGridOffsetCheck(channel, domain)
    ? gridOffsetCheck(channel, domain, eps, topK, maxWork, ctx)
    : await checkPrivacyThreaded(channel, domain, eps, {
        topK,
        ...(maxWork !== undefined ? { maxWork } : {}),
        maxScanWork:
          maxScanWork ??
          (maxWork ?? ADMISSION_LIMITS.maxCheckWork) *
            (ADMISSION_LIMITS.maxScanCheckWork / ADMISSION_LIMITS.maxCheckWork),
        ...(ctx?.signal ? { signal: ctx.signal } : {}),
        ...(ctx?.progress ? { onProgress: ctx.progress } : {}),
      });
  return {
    effectiveEpsilon: r.effectiveEpsilon,
    passes: r.passes,
    pairsChecked: r.pairsChecked,
    worst: r.worst.map((p) => ({ x: p.x, xp: p.xp, y: p.y, ratio: p.ratio, violates: p.violates })),
  };
}

/**
 * Planar Laplace's entries are a function of grid offsets: the structured check (sound for any channel,
 * exact for this one) costs n^2 + ~12 n^2 instead of the all-pairs n^3 / 2; on graph-metric grids
 * (Manhattan, Chebyshev) the edge check is cheaper still and is kept.
 */
function useGridOffsetCheck(channel: RowSource, domain: Domain): channel is GridOffsetChannel {
  const g = domain.structure.grid;
  if (!(channel instanceof GridOffsetChannel) || channel.gridSpec !== domain.spec || !g) return false;
  const edges = edgesIfAvailable(domain);
  const general = (edges ? edges.from.length : (domain.n * (domain.n - 1)) / 2) * domain.n;
  return gridOffsetCheckWork(g.rows, g.cols) < general;
}

function gridOffsetCheck(
  channel: GridOffsetChannel,
  domain: Domain,
  eps: number,
  topK: number,
  maxWork: number | undefined,
  ctx?: { signal?: AbortSignal; progress?: (f: number, m: string) => void },
): PrivacyCheckResult {
  const g = domain.structure.grid!;
  const work = gridOffsetCheckWork(g.rows, g.cols);
  const limit = maxWork ?? 2e9;
  if (work > limit) {
    throw new MechError(
      'too-large',
      `checking planar Laplace on ${domain.spec} by its grid offsets is ${work.toExponential(2)} comparisons (limit ${limit.toExponential(2)})`,
      { work, maxWork: limit },
    );
  }
  return checkGridOffsetPrivacy(channel, domain, eps, {
    topK,
    ...(ctx?.signal ? { signal: ctx.signal } : {}),
    ...(ctx?.progress ? { onProgress: ctx.progress } : {}),
  });
}

/* ---------- capacities (SPEC §6) ---------- */

export interface CapacityOutcome {
  multiplicative: number;
  additive: number;
  /** The mechanism achieving the multiplicative capacity, when the solver returns it. */
  mechanism?: RowSource;
}

export async function privacyCapacities(
  domain: Domain,
  eps: number,
  signal: AbortSignal,
  progress?: (f: number, m: string) => void,
): Promise<CapacityOutcome> {
  const c = await privacyTypeCapacities(domain, eps, { signal, ...(progress ? { onProgress: progress } : {}) });
  return { multiplicative: c.multiplicative, additive: c.additive, mechanism: c.multiplicativeMechanism.channel };
}

/* ---------- regular priors, bounds, threshold (SPEC §5) ---------- */

export interface RegularityOutcome {
  regular: boolean;
  mu: Float64Array | null;
  utilityBound: number | null;
  leakageBound: number | null;
  /** How it was decided (note-words.ts words it). */
  regularity: RegularityNote;
}

/** LP decider for singular Phi (SPEC §5: decide by LP feasibility), cancellable through the job's signal. */
const regularityLP =
  (signal: AbortSignal): RegularityLP =>
  async (domain, eps, prior) =>
    (await decideRegularityByLP(domain, eps, prior, { signal })).regular;

export async function regularity(
  domain: Domain,
  eps: number,
  prior: Float64Array,
  signal: AbortSignal,
): Promise<RegularityOutcome> {
  const r = await decideRegularity(domain, eps, prior, { decideByLP: regularityLP(signal) });
  if (r.status === 'undecided') {
    throw new MechError('not-applicable', `${r.reason} (no LP decider is available)`);
  }
  const regularity: RegularityNote =
    r.method === 'lp'
      ? { kind: 'singular', regular: r.status === 'regular' }
      : r.status === 'regular'
        ? { kind: 'regular', minMu: r.minMu, minMuAt: r.minMuLabel }
        : { kind: 'not-regular', domain: domain.spec, epsilon: eps, minMu: r.minMu, minMuAt: r.minMuLabel };
  if (r.status !== 'regular') return { regular: false, mu: r.mu, utilityBound: null, leakageBound: null, regularity };
  if (!Number.isFinite(r.muSum)) return { regular: true, mu: null, utilityBound: null, leakageBound: null, regularity };
  let mx = 0;
  for (let i = 0; i < prior.length; i++) if (prior[i]! > mx) mx = prior[i]!;
  // SPEC §5: utility <= sum(mu), leakage <= log2(sum(mu) / max pi)
  return { regular: true, mu: r.mu, utilityBound: r.muSum, leakageBound: Math.log2(r.muSum / mx), regularity };
}

export async function tightThreshold(
  domain: Domain,
  from: number,
  to: number,
  step: number,
  signal: AbortSignal,
  progress: (f: number | null, m: string) => void,
): Promise<{ epsilon: number | null; atLowerEnd: boolean }> {
  const total = Math.floor((to - from) / step + 1e-9) + 1;
  let k = 0;
  const r = thresholdSearch(domain, {
    from,
    to,
    step,
    exists: (d, eps) => {
      checkCancelled(signal);
      progress(k++ / total, `eps = ${eps}`);
      return tightExists(d, eps);
    },
  });
  return { epsilon: r.epsilon, atLowerEnd: r.atLowerEnd };
}

/* ---------- explorer (SPEC §6) ---------- */

export interface VerticesOutcome {
  count: number;
  /** count x n row-major. */
  vertices: Float64Array;
  n: number;
  kernels: number | null;
}

export async function posteriorVertices(
  domain: Domain,
  eps: number,
  kernels: boolean,
  signal: AbortSignal,
): Promise<VerticesOutcome> {
  const v = privatePosteriorVertices(domain, eps, { signal });
  const k = kernels ? enumerateKernelMechanisms(v, { signal }).count : null;
  return { count: v.count, vertices: v.vertices, n: v.n, kernels: k };
}
