/**
 * Job handlers of mechanisms: a construction, the measures of a channel or
 * construction, its privacy check, and the release of a secrets file
 * (a validated protocol request -> engine calls -> a protocol result), and
 * the steps other jobs share: a domain built and admitted (domainOf), a
 * construction (construct). The jobs about a domain alone are in
 * ./analysis-jobs.ts. No maths here: every number comes from
 * src-worker/<concept>/ via ./engine. Cancellation: handlers check the
 * signal between steps and pass it to the engine's long loops.
 */
import { REL_TOL } from '../../src-shared/numeric/tolerance';
import { MechError } from '../../src-shared/errors';
import { sweepNoteWords } from '../../src-shared/charts/note-words';
import type { Domain } from '../metric/domain';
import type { DenseChannel, RowSource } from '../mechanism/channel';
import { channelOfRef } from './kept-channel';
import {
  INLINE_MATRIX_LIMIT,
  type CheckRequest,
  type MeasureRequest,
  type MechanismRequest,
  type MechanismSpec,
  type CheckResult,
  type MeasureResult,
  type MechanismResult,
  thinHistory,
  type LpResult,
  type ChannelPayload,
  type DomainInput,
  type ApplyRequest,
  type ApplyResult,
  type MechanismNote,
  type LossInput,
  OPTIMAL_GRID_LOSS,
  definedLpOptions,
} from '../../src-shared/protocol/index';
import type { OptimalLpResult } from '../lp/optimal/optimal-mechanism';
import { assertCsvFits, matrixPayload, writeChannelCsv } from './channel-csv';
import { checkCancelled, type JobContext } from './context';
import {
  buildMechanism,
  checkChannel,
  expectedLoss,
  measureChannel,
  qualityLoss,
  type MechanismOutcome,
} from './engine';
import {
  assertChannelOnDomain,
  resolveChannel,
  resolveDomain as buildDomain,
  resolveLoss,
  resolvePrior,
} from './resolve';
import type { JobAdmission } from './admission';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import { withRowProgress } from './row-progress';
import { releaseFile, remapConstructed, type RemapOutcome } from './remap-jobs';
import { channelLabelsDomain, type SecretsDomain } from '../data/apply';
import { assertReleasable, type ReleaseCheck } from './release-check';
import type { PricingEngine, PricingFactory } from '../lp/pricing/pricing-pool';

/**
 * Build a domain input, then run the admission checks that waited for its size (files, inline: none when the request
 * showed it).
 */
export function domainOf(admission: JobAdmission, input: DomainInput, ctx?: JobContext): Domain {
  const domain = buildDomain(input, ctx?.progress);
  admission.built(input, domain);
  return domain;
}

/** The LP record as the protocol carries it: history thinned to MAX_LP_HISTORY_POINTS, only finite points. */
function portableLp(lp: OptimalLpResult): LpResult {
  const finitePoint = (p: OptimalLpResult['history'][number]): boolean =>
    [p.objective, p.bound, p.gap, p.elapsedMs, p.fraction].every(Number.isFinite);
  const fin = (x: number, fallback: number): number => (Number.isFinite(x) ? x : fallback);
  return {
    model: lp.model,
    modelChoice: lp.modelChoice,
    modelReason: lp.modelReason,
    delta: lp.delta,
    method: lp.method,
    objective: lp.objective,
    lowerBound: fin(lp.lowerBound, -Number.MAX_VALUE),
    gap: fin(lp.gap, 1),
    exactLowerBound: lp.exactLowerBound !== null && Number.isFinite(lp.exactLowerBound) ? lp.exactLowerBound : null,
    gapBasis: lp.gapBasis,
    chosen: lp.chosen,
    candidates: lp.candidates.map((c) => ({
      construction: c.construction,
      expectedLoss: c.expectedLoss !== null && Number.isFinite(c.expectedLoss) ? c.expectedLoss : null,
      time: c.timeMs / 1000,
      ...(c.note !== undefined ? { note: c.note } : {}),
    })),
    lpObjective: Number.isFinite(lp.lpObjective) ? lp.lpObjective : null,
    rounds: lp.rounds,
    timeMs: lp.timeMs,
    stoppedBy: lp.stoppedBy,
    timeLimitReached: lp.timeLimitReached,
    ...(lp.pricingWorkers !== undefined ? { pricingWorkers: lp.pricingWorkers } : {}),
    coarseStart:
      lp.coarseStart && [lp.coarseStart.objective, lp.coarseStart.gap, lp.coarseStart.timeMs].every(Number.isFinite)
        ? lp.coarseStart
        : null,
    history: thinHistory(lp.history.filter(finitePoint)).map((p) => ({
      round: p.round,
      objective: p.objective,
      bound: p.bound,
      gap: p.gap,
      elapsedMs: p.elapsedMs,
      fraction: p.fraction,
    })),
  };
}

/**
 * A construction's guarantee as the protocol carries it: a finite number, or
 * null with the reason in words. eps / dmin overflows to Infinity when the
 * metric's smallest distance is tiny (rr on a metric with d = 1e-310): the
 * mechanism is then private for no finite multiple of d worth stating, and
 * saying Infinity would also break the result schema.
 */
function honestGuarantee(g: number, text: string): { guaranteedEpsilon: number | null; guarantee: string } {
  if (Number.isFinite(g)) return { guaranteedEpsilon: g, guarantee: text };
  return {
    guaranteedEpsilon: null,
    guarantee: `${text} (the factor overflows a 64-bit float: no finite eps*d guarantee can be stated for this metric; its smallest distances are too small)`,
  };
}

/**
 * The structured tight solve (FFT + PCG) has no progress inside its FFTs: say
 * up front how long it should take (measured ~3.5 us a point on a line, ~7 on
 * a grid, whole job) when that is more than a second.
 */
function tightSolveEstimate(domain: Domain): string {
  if (domain.n < 2 ** 18 || domain.structure.ballSizes) return '';
  const perPoint = (domain.structure.lattice?.shape.length ?? 1) >= 2 ? 7e-6 : 3.5e-6;
  return `: solving Phi z = 1 on ${domain.n} points (about ${Math.max(1, Math.round(domain.n * perPoint))} s on the reference machine; no finer progress inside the FFT solver)`;
}

/**
 * An expected loss is a sum of prior x channel x loss: with infinite
 * distances (disconnected points) or distances whose square overflows
 * (dist2 on d ~ 1e300) it is not a finite double. The protocol then carries
 * null (never Infinity, which the result schema rejects).
 */
export function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * Work budget of the effective-eps check attached to mechanism results (entry comparisons) when it walks graph edges:
 * a tenth of a check job's (a mechanism job stays quick). An all-pairs check takes the ln scan, whose full budget
 * (ADMISSION_LIMITS.maxScanCheckWork) is a few seconds: every mechanism up to 50 x 50 locations gets its effective eps.
 */
const MECHANISM_CHECK_WORK = 2e8;

/**
 * The check's progress as messages without a fraction: the job's fraction (an LP's, a construction's) stays monotonic.
 */
function messagesOnly(ctx: JobContext): { signal: AbortSignal; progress: (f: number, m: string) => void } {
  return { signal: ctx.signal, progress: (_f, m) => ctx.progress(null, m) };
}

/** Effective eps of a channel on its domain, or null (with why) when too costly. */
async function effectiveEpsilonOf(
  ch: RowSource,
  domain: Domain,
  eps: number,
  ctx: JobContext,
  maxWork = MECHANISM_CHECK_WORK,
): Promise<{ value: number | null; note?: MechanismNote }> {
  try {
    return {
      value: (await checkChannel(ch, domain, eps, 1, maxWork, messagesOnly(ctx), ADMISSION_LIMITS.maxScanCheckWork))
        .effectiveEpsilon,
    };
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large')
      return { value: null, note: { kind: 'effective-eps-not-computed', reason: e.message } };
    throw e;
  }
}

/**
 * The guarantee is about exact values; the channel is stored (and exported,
 * and sampled) as doubles. When the check of the stored channel finds more
 * than the guarantee, say so first: the released channel is what counts.
 */
function storedChannelWarning(effective: number | null, guaranteed: number): MechanismNote | undefined {
  if (effective === null || !Number.isFinite(guaranteed) || effective <= guaranteed * (1 + REL_TOL)) return undefined;
  return effective === Infinity
    ? { kind: 'stored-underflow', guaranteed }
    : { kind: 'stored-above', effective, guaranteed };
}

/**
 * The host's pricing engines (JobContext.pricing), remembering how many machines priced for the last one
 * (lp.pricingWorkers).
 */
function countedPricing(factory: PricingFactory): { factory: PricingFactory; workers: () => number } {
  let last: PricingEngine | undefined;
  return { factory: async (threads, spec) => (last = await factory(threads, spec)), workers: () => last?.workers ?? 0 };
}

/**
 * An LP's round samples and lines with the queue workers that price it (the app's progress and the CLI's line show
 * them).
 */
function withPricingWorkers(progress: JobContext['progress'], workers: () => number): JobContext['progress'] {
  return (fraction, message, lp) => {
    if (!lp) return progress(fraction, message);
    const w = workers();
    progress(fraction, `${message}, priced on ${w} queue worker${w === 1 ? '' : 's'}`, { ...lp, pricingWorkers: w });
  };
}

/**
 * A construction, and with `remap` its Bayesian remap for the prior and loss
 * (docs/remap.md): `channel` is then C . R (what is measured, checked, exported
 * and sampled), `remap` the record comparing the losses.
 */
export async function construct(
  admission: JobAdmission,
  spec: MechanismSpec,
  ctx: JobContext,
): Promise<{
  domain: Domain;
  prior: Float64Array;
  outcome: MechanismOutcome;
  channel?: RowSource;
  remap?: RemapOutcome['record'];
  /** The loss the construction used: the request's, or OPTIMAL_GRID_LOSS for an optimal LP on a grid without one. */
  loss?: LossInput;
  defaultLoss?: typeof OPTIMAL_GRID_LOSS;
}> {
  const domain = domainOf(admission, spec.domain, ctx);
  checkCancelled(ctx.signal);
  const defaultLoss =
    spec.loss === undefined && spec.kind === 'optimal' && domain.kind === 'grid' ? OPTIMAL_GRID_LOSS : undefined;
  const loss = spec.loss ?? defaultLoss;
  const said = { ...(loss !== undefined ? { loss } : {}), ...(defaultLoss !== undefined ? { defaultLoss } : {}) };
  const prior = resolvePrior(spec.prior, domain.n, domain);
  ctx.progress(
    null,
    `building ${spec.kind} on ${domain.spec}${spec.kind === 'tight' ? tightSolveEstimate(domain) : ''}`,
  );
  const lp = definedLpOptions(spec);
  // Outputs are the secrets in jobs: n x n variables.
  const counted =
    ctx.pricing && domain.n * domain.n >= (ctx.pricingMinVariables ?? 0) ? countedPricing(ctx.pricing) : undefined;
  const opts = {
    prior,
    signal: ctx.signal,
    progress: counted ? withPricingWorkers(ctx.progress, counted.workers) : ctx.progress,
    lp,
    ...(ctx.stopFlag ? { stopFlag: ctx.stopFlag } : {}),
    ...(counted ? { pricing: counted.factory } : {}),
    ...(loss !== undefined ? { loss: resolveLoss(loss) } : {}),
  };
  const outcome = await buildMechanism(spec.kind, domain, spec.epsilon, opts);
  if (counted && outcome.exists && outcome.lp) outcome.lp = { ...outcome.lp, pricingWorkers: counted.workers() };
  checkCancelled(ctx.signal);
  if (spec.remap !== true || !outcome.exists)
    return { domain, prior, outcome, ...said, ...(outcome.exists ? { channel: outcome.mechanism.channel } : {}) };
  if (loss === undefined)
    throw new MechError('invalid-input', 'remap needs a loss (the remap minimises the expected loss under the prior)');
  const r = remapConstructed(outcome.mechanism, domain, prior, resolveLoss(loss), outcome.lp, ctx);
  checkCancelled(ctx.signal);
  return { domain, prior, outcome, ...said, channel: r.channel, remap: r.record };
}

/**
 * The refusal of a job that needs the channel of a mechanism that does not exist here (a tight-constraints mechanism
 * whose Phi z = 1 has a negative entry), in the words of the sweep table's note.
 */
export function doesNotExist(spec: MechanismSpec, o: { minZ: number; minZAt: string }): MechError {
  const why = sweepNoteWords({ kind: 'tight-does-not-exist', minZ: o.minZ, minZAt: o.minZAt }, 'table', spec.epsilon);
  return new MechError('not-applicable', `the ${spec.kind} mechanism does not exist here: ${why}`);
}

export async function mechanismJob(
  req: MechanismRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<MechanismResult> {
  const { domain, prior, outcome, channel: built, remap, loss, defaultLoss } = await construct(admission, req, ctx);
  if (!outcome.exists) {
    return {
      type: 'mechanism',
      kind: req.kind,
      domain: domain.spec,
      epsilon: req.epsilon,
      exists: false,
      rows: domain.n,
      cols: domain.n,
      utility: null,
      effectiveEpsilon: null,
      guaranteedEpsilon: null,
      guarantee: 'does not exist',
      minZ: outcome.minZ,
      minZAt: outcome.minZAt,
      facts: { kind: 'none' },
    };
  }
  const mech = outcome.mechanism;
  let step = 'measuring';
  const ch = withRowProgress(built ?? mech.channel, ctx.progress, () => step);
  if (req.out) assertCsvFits(ch.rows, ch.cols); // refuse before any long measuring
  ctx.progress(null, 'measuring');
  const m = measureChannel(prior, ch);
  checkCancelled(ctx.signal);
  const result: MechanismResult = {
    type: 'mechanism',
    kind: mech.kind,
    domain: domain.spec,
    epsilon: req.epsilon,
    exists: true,
    rows: ch.rows,
    cols: ch.cols,
    utility: m.utility,
    leakage: m.leakage,
    effectiveEpsilon: null,
    ...honestGuarantee(mech.guaranteedEpsilon, mech.guarantee),
    facts: mech.facts,
    ...(outcome.lp ? { lp: portableLp(outcome.lp) } : {}),
    ...(remap ? { remap } : {}),
    ...(defaultLoss ? { defaultLoss } : {}),
  };
  const notes: MechanismNote[] = [];
  step = 'expected loss';
  if (remap) {
    // C . R is Bayes-optimal already: its expected loss under an optimal remap is the remapped loss (no second pass).
    result.expectedLoss = remap.remappedLoss;
  } else if (loss !== undefined && outcome.expectedLoss !== undefined) {
    // Computed by the construction on C . R (a best cheap candidate): a second remap pass would find the same value.
    result.expectedLoss = finiteOrNull(outcome.expectedLoss);
  } else if (loss !== undefined) {
    result.expectedLoss = finiteOrNull(expectedLoss(prior, ch, resolveLoss(loss), domain, ctx.signal).value);
    if (result.expectedLoss === null) notes.push({ kind: 'loss-not-finite' });
  }
  step = 'checking privacy';
  ctx.progress(null, 'checking privacy');
  // An LP's privacy rests on its repair step, not on a closed form: its stored channel is checked with the
  // full check budget (30 x 30: 3.6e8 comparisons, ~2.5 s, against minutes of solving).
  const eff = await effectiveEpsilonOf(
    ch,
    domain,
    req.epsilon,
    ctx,
    mech.kind === 'optimal' ? ADMISSION_LIMITS.maxCheckWork : MECHANISM_CHECK_WORK,
  );
  result.effectiveEpsilon = eff.value;
  if (eff.note) notes.push(eff.note);
  // What is released is the stored channel: its verdict first.
  const stored = storedChannelWarning(eff.value, mech.guaranteedEpsilon);
  if (stored) notes.unshift(stored);
  if (notes.length) result.notes = notes;
  checkCancelled(ctx.signal);
  const limit = req.inlineLimit ?? INLINE_MATRIX_LIMIT;
  if (ch.rows * ch.cols <= limit) result.matrix = matrixPayload(ch);
  ctx.keep?.(ch);
  if (req.out) {
    await writeChannelCsv(ch, req.out, ctx.signal, ctx.progress);
    result.csvPath = req.out;
  }
  return result;
}

/** The matrix a request carries, or the channel the app host kept under its channelRef (./kept-channel.ts). */
export function denseOf(req: { channel?: ChannelPayload; channelRef?: string }, ctx: JobContext): DenseChannel {
  return req.channelRef !== undefined ? channelOfRef(req.channelRef, ctx.keptChannel) : resolveChannel(req.channel!);
}

export async function measureJob(
  req: MeasureRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<MeasureResult> {
  let ch: RowSource;
  let domain: Domain | null = null;
  let epsilon = req.epsilon;
  if (req.mechanism) {
    const built = await construct(admission, req.mechanism, ctx);
    if (!built.outcome.exists) throw doesNotExist(req.mechanism, built.outcome);
    ch = withRowProgress(built.channel ?? built.outcome.mechanism.channel, ctx.progress, () => 'measuring');
    domain = req.domain !== undefined ? domainOf(admission, req.domain, ctx) : built.domain;
    epsilon ??= req.mechanism.epsilon;
  } else {
    const dense = denseOf(req, ctx);
    if (req.domain !== undefined) {
      domain = domainOf(admission, req.domain, ctx);
      assertChannelOnDomain(dense, domain);
    }
    ch = dense;
  }
  if (domain && ch.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `the channel has ${ch.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  const prior = resolvePrior(req.prior, ch.rows, domain);
  checkCancelled(ctx.signal);
  ctx.progress(null, 'measuring');
  const m = measureChannel(prior, ch);
  const out: MeasureResult = {
    type: 'measure',
    rows: ch.rows,
    cols: ch.cols,
    vulnerability: m.vulnerability,
    posteriorVulnerability: m.posteriorVulnerability,
    leakage: m.leakage,
    utility: m.utility,
    multiplicativeCapacity: m.multiplicativeCapacity,
    additiveCapacity: m.additiveCapacity,
    minCapacity: m.minCapacity,
  };
  if (req.loss !== undefined) {
    const l = expectedLoss(prior, ch, resolveLoss(req.loss), domain, ctx.signal);
    out.expectedLoss = finiteOrNull(l.value);
    if (ch.cols <= 10_000) out.remap = l.remap;
  }
  if (domain && ch.cols === domain.n) out.qualityLoss = finiteOrNull(qualityLoss(prior, ch, domain));
  if (domain && epsilon !== undefined)
    out.effectiveEpsilon = (await effectiveEpsilonOf(ch, domain, epsilon, ctx)).value;
  return out;
}

export async function checkJob(req: CheckRequest, ctx: JobContext, admission: JobAdmission): Promise<CheckResult> {
  const domain = domainOf(admission, req.domain, ctx);
  let ch: RowSource;
  if (req.mechanism) {
    const built = await construct(admission, req.mechanism, ctx);
    if (!built.outcome.exists) throw doesNotExist(req.mechanism, built.outcome);
    ch = withRowProgress(built.channel ?? built.outcome.mechanism.channel, ctx.progress, () => 'checking privacy');
  } else {
    const dense = denseOf(req, ctx);
    assertChannelOnDomain(dense, domain);
    ch = dense;
  }
  if (ch.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `the channel has ${ch.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  ctx.progress(null, 'checking privacy');
  // The admission estimate priced this check; the same limit is the check's own work budget (a safety net).
  // a channel given: the check is the whole job and reports its fraction; after a construction, messages only
  const r = await checkChannel(
    ch,
    domain,
    req.epsilon,
    req.maxViolations ?? 10,
    ADMISSION_LIMITS.maxCheckWork,
    req.mechanism ? messagesOnly(ctx) : ctx,
  );
  return {
    type: 'check',
    epsilon: req.epsilon,
    effectiveEpsilon: r.effectiveEpsilon,
    private: r.passes,
    violations: r.worst.filter((p) => p.violates).map((p) => ({ x: p.x, xp: p.xp, y: p.y, ratio: p.ratio })),
    pairsChecked: r.pairsChecked,
  };
}

/**
 * Release one output per secret of a CSV file (streaming), from a channel
 * matrix, a construction (remapped if asked) or a channel the app host kept.
 */
export async function applyJob(req: ApplyRequest, ctx: JobContext, admission: JobAdmission): Promise<ApplyResult> {
  let ch: RowSource;
  let domain: SecretsDomain;
  let remap: RemapOutcome['record'] | undefined;
  // a channel that comes in (a matrix, a CSV, a kept channel read back from a file) is released only once checked
  // private
  let checked: ReleaseCheck | undefined;
  if (req.mechanism) {
    const built = await construct(admission, req.mechanism, ctx);
    if (!built.outcome.exists) throw doesNotExist(req.mechanism, built.outcome);
    ch = built.channel ?? built.outcome.mechanism.channel;
    domain = req.domain !== undefined ? domainOf(admission, req.domain, ctx) : built.domain;
    remap = built.remap;
  } else if (req.domain !== undefined) {
    const d = domainOf(admission, req.domain, ctx);
    const dense = denseOf(req, ctx);
    assertChannelOnDomain(dense, d);
    ch = dense;
    domain = d;
    checked = await assertReleasable(dense, d, req.epsilon, ctx);
  } else {
    // No domain: the secrets are the channel's row labels.
    ch = denseOf(req, ctx);
    domain = channelLabelsDomain(ch);
    checked = await assertReleasable(ch, null, req.epsilon, ctx);
  }
  if (ch.rows !== domain.n)
    throw new MechError(
      'invalid-input',
      `the channel has ${ch.rows} rows but the domain ${domain.spec} has ${domain.n} points`,
    );
  checkCancelled(ctx.signal);
  ctx.progress(0, `releasing ${req.input}`);
  const r = await releaseFile(ch, domain, req.input, req.out, {
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
    ...(req.points ? { points: req.points } : {}),
    ...(req.header ? { header: req.header } : {}),
    ctx,
  });
  const out: ApplyResult = {
    type: 'apply',
    rows: r.rows,
    forRelease: r.forRelease,
    mode: r.mode,
    header: r.header,
    domain: domain.spec,
    outputs: ch.cols,
    csvPath: req.out,
    timeMs: r.timeMs,
    rowsBuilt: r.rowsBuilt,
    ...(remap ? { remap } : {}),
    ...(checked ? { checkedEpsilon: checked.epsilon, effectiveEpsilon: checked.effectiveEpsilon } : {}),
  };
  if (!r.forRelease) out.notes = [{ kind: 'seeded-stream' }];
  return out;
}
