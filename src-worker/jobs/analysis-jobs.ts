/**
 * Jobs that analyse a domain at eps, no mechanism given: the privacy-type
 * capacities, the regularity of a prior (and where a non-regular one becomes
 * regular), the tight-constraints threshold, the posterior vertices, and the
 * sweep of mechanisms and bounds over an eps grid. A validated protocol
 * request -> engine calls (./engine) -> a protocol result; no maths here.
 */
import { MechError, messageOf } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import type { Mechanism } from '../mechanism/channel';
import {
  INLINE_MATRIX_LIMIT,
  type CapacityRequest,
  type CapacityResult,
  type MechanismSpec,
  type RegularRequest,
  type RegularResult,
  type SweepRequest,
  type SweepResult,
  type ThresholdRequest,
  type ThresholdResult,
  type VerticesRequest,
  type VerticesResult,
} from '../../src-shared/protocol/index';
import { matrixPayload, writeChannelCsv } from './channel-csv';
import { checkCancelled, type JobContext } from './context';
import {
  buildMechanism,
  expectedLoss,
  measureChannel,
  posteriorVertices,
  privacyCapacities,
  regularity,
  tightThreshold,
  type LossSpecInput,
} from './engine';
import { domainText, resolveLoss, resolvePrior } from './resolve';
import { sweepBoundsRefusal } from './job-costs';
import { remapMechanism } from '../remap/bayes-remap';
import type { JobAdmission } from './admission';
import { domainOf, finiteOrNull } from './handlers';

export async function capacityJob(
  req: CapacityRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<CapacityResult> {
  const domain = domainOf(admission, req.domain, ctx);
  ctx.progress(null, `capacities of ${domain.spec}`);
  const c = await privacyCapacities(domain, req.epsilon, ctx.signal, ctx.progress);
  const out: CapacityResult = {
    type: 'capacity',
    domain: domain.spec,
    epsilon: req.epsilon,
    multiplicative: c.multiplicative,
    additive: c.additive,
    rows: domain.n,
  };
  if (c.mechanism) {
    if (c.mechanism.rows * c.mechanism.cols <= (req.inlineLimit ?? INLINE_MATRIX_LIMIT))
      out.matrix = matrixPayload(c.mechanism);
    if (req.out) {
      await writeChannelCsv(c.mechanism, req.out, ctx.signal, ctx.progress);
      out.csvPath = req.out;
    }
  } else if (req.out) {
    throw new MechError('not-applicable', 'the capacity solver did not return a mechanism to export');
  }
  return out;
}

export async function regularJob(
  req: RegularRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<RegularResult> {
  const domain = domainOf(admission, req.domain, ctx);
  const prior = resolvePrior(req.prior, domain.n, domain);
  const r = await regularity(domain, req.epsilon, prior, ctx.signal);
  const out: RegularResult = {
    type: 'regular',
    domain: domain.spec,
    epsilon: req.epsilon,
    regular: r.regular,
    utilityBound: r.regular ? r.utilityBound : null,
    leakageBound: r.regular ? r.leakageBound : null,
  };
  if (r.mu && r.mu.length <= 10_000) out.mu = Array.from(r.mu);
  out.regularity = r.regularity;
  if (!r.regular)
    out.regularFrom =
      domain.n <= REGULAR_FROM_MAX_SECRETS ? await regularFrom(domain, req.epsilon, prior, ctx.signal) : null;
  return out;
}

/**
 * Secrets up to which a non-regular prior's regular eps is searched (about 14 regularity solves of an n x n system).
 */
const REGULAR_FROM_MAX_SECRETS = 1024;

/**
 * Where a prior that is not regular at eps becomes regular: eps doubled until it is (at most 6 times), then bisected
 * to 1% between the last eps where it was not and the first where it was. Both ends were checked; nothing is claimed
 * between them (regularity need not be monotone in eps on every metric).
 */
async function regularFrom(
  domain: Domain,
  eps: number,
  prior: Float64Array,
  signal: AbortSignal,
): Promise<{ epsilon: number; below: number } | null> {
  let lo = eps;
  let hi = eps * 2;
  for (let k = 0; ; k++) {
    if ((await regularity(domain, hi, prior, signal)).regular) break;
    if (k === 5) return null;
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 0.01 * hi) {
    const mid = (lo + hi) / 2;
    if ((await regularity(domain, mid, prior, signal)).regular) hi = mid;
    else lo = mid;
  }
  return { epsilon: hi, below: lo };
}

export async function thresholdJob(
  req: ThresholdRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<ThresholdResult> {
  const domain = domainOf(admission, req.domain, ctx);
  const step = req.step ?? 0.01;
  const from = req.from ?? step;
  const to = req.to ?? Math.max(10, from);
  if ((to - from) / step > 1e6)
    throw new MechError(
      'invalid-input',
      `threshold: the grid from ${from} to ${to} with step ${step} has over a million points`,
    );
  const t = await tightThreshold(domain, from, to, step, ctx.signal, ctx.progress);
  const out: ThresholdResult = { type: 'threshold', domain: domain.spec, epsilon: t.epsilon, from, to, step };
  if (t.epsilon === null) out.notes = [{ kind: 'none-in-range' }];
  else if (t.atLowerEnd) out.notes = [{ kind: 'at-lower-end' }];
  return out;
}

export async function verticesJob(
  req: VerticesRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<VerticesResult> {
  const domain = domainOf(admission, req.domain, ctx);
  ctx.progress(null, 'enumerating vertices');
  const v = await posteriorVertices(domain, req.epsilon, req.kernels ?? false, ctx.signal);
  const out: VerticesResult = {
    type: 'vertices',
    domain: domain.spec,
    epsilon: req.epsilon,
    vertices: v.count,
    kernels: v.kernels,
  };
  if (v.count <= (req.listLimit ?? 1000)) {
    const list: number[][] = [];
    for (let i = 0; i < v.count; i++) list.push(Array.from(v.vertices.subarray(i * v.n, (i + 1) * v.n)));
    out.list = list;
  }
  return out;
}

/**
 * Expected loss under the optimal remap for one sweep point. Distance losses
 * on grids take the certified Bayesian remap (remap/bayes-remap.ts: a few
 * guesses per output, proven optimal; whole columns up to WINDOW_MIN_CELLS
 * cells, where it equals the measure bit for bit) instead of the n^3 scan:
 * a 30 x 30 grid point in ~0.2 s instead of ~3 s.
 */
function sweepLoss(
  mech: Mechanism,
  domain: Domain,
  prior: Float64Array,
  loss: LossSpecInput,
  signal: AbortSignal,
): number {
  if (domain.structure.grid && (loss.kind === 'dist' || loss.kind === 'dist2')) {
    const r = remapMechanism(mech, domain, prior, loss, { signal });
    if (r.valueSlack === 0) return r.remappedLoss;
  }
  return expectedLoss(prior, mech.channel, loss, domain, signal).value;
}

export async function sweepJob(req: SweepRequest, ctx: JobContext, admission: JobAdmission): Promise<SweepResult> {
  const domain = domainOf(admission, req.domain, ctx);
  const prior = resolvePrior(req.prior, domain.n, domain);
  const loss = req.loss !== undefined ? resolveLoss(req.loss) : undefined;
  // The whole grid's formula, then the slice asked for: a fanned-out part computes the same floats.
  const epsilons: number[] = [];
  const first = req.slice?.start ?? 0;
  const end = req.slice ? first + req.slice.count : req.steps;
  for (let k = first; k < end; k++) epsilons.push(req.from + ((req.to - req.from) * k) / (req.steps - 1));
  const series: SweepResult['series'] = req.kinds.map((kind) => ({
    kind,
    utility: [],
    leakage: [],
    notes: [],
    ...(loss ? { expectedLoss: [] } : {}),
  }));
  const bounds: SweepResult['bounds'] = { utility: [], leakage: [], notes: [] };
  const boundsRefused = sweepBoundsRefusal(req, domain);
  const total = epsilons.length * (req.kinds.length + 1);
  let done = 0;
  for (const eps of epsilons) {
    for (const s of series) {
      checkCancelled(ctx.signal);
      ctx.progress(done++ / total, `${s.kind} at eps ${eps.toFixed(3)}`);
      try {
        const o = await buildMechanism(s.kind as MechanismSpec['kind'], domain, eps, {
          prior,
          signal: ctx.signal,
          progress: () => undefined,
          ...(loss ? { loss } : {}),
        });
        if (!o.exists) {
          s.utility.push(null);
          s.leakage.push(null);
          s.expectedLoss?.push(null);
          s.notes!.push({ kind: 'tight-does-not-exist', minZ: o.minZ, minZAt: o.minZAt });
          continue;
        }
        const m = measureChannel(prior, o.mechanism.channel);
        s.utility.push(m.utility);
        s.leakage.push(m.leakage);
        if (loss) s.expectedLoss!.push(finiteOrNull(sweepLoss(o.mechanism, domain, prior, loss, ctx.signal)));
        s.notes!.push(null);
      } catch (e) {
        if (e instanceof MechError && (e.code === 'cancelled' || e.code === 'internal')) throw e;
        s.utility.push(null);
        s.leakage.push(null);
        s.expectedLoss?.push(null);
        s.notes!.push({ kind: 'failed', message: messageOf(e) });
      }
    }
    checkCancelled(ctx.signal);
    ctx.progress(done++ / total, `bounds at eps ${eps.toFixed(3)}`);
    if (boundsRefused) {
      bounds.utility.push(null);
      bounds.leakage.push(null);
      bounds.notes!.push({ kind: 'bounds-too-costly', reason: boundsRefused });
      continue;
    }
    try {
      const r = await regularity(domain, eps, prior, ctx.signal);
      bounds.utility.push(r.regular ? r.utilityBound : null);
      bounds.leakage.push(r.regular ? r.leakageBound : null);
      bounds.notes!.push(r.regular && r.utilityBound !== null ? null : r.regularity);
    } catch (e) {
      if (e instanceof MechError && (e.code === 'cancelled' || e.code === 'internal')) throw e;
      bounds.utility.push(null);
      bounds.leakage.push(null);
      bounds.notes!.push({ kind: 'failed', message: messageOf(e) });
    }
  }
  ctx.progress(1, 'done');
  return { type: 'sweep', domain: domainText(req.domain, domain), epsilons, series, bounds };
}
