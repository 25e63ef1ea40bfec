/**
 * Compare mechanisms on one domain, prior and eps. Each row is a
 * construction (remapped for the job's loss when asked), or a mechanism
 * computed elsewhere (a project's construction, or its channel: a kept LP),
 * and its figures with units: expected distance at face value and after the optimal remap
 * for the distance loss, probability of reporting the true cell, min-entropy
 * leakage in bits, effective eps of the stored channel per unit of distance,
 * and how much better than planar Laplace (same eps and prior, face value).
 * No maths here: every number comes from measure/, remap/ and check/ via
 * ./engine and ./remap-jobs.
 */
import { MechError, messageOf } from '../../src-shared/errors';
import { NO_COMPARE_FIGURES, gapIsExact } from '../../src-shared/protocol/index';
import {
  definedLpOptions,
  COMPARE_MAP_MAX_CELLS,
  isGivenMechanism,
  type CompareBaselineNote,
  type CompareMechanism,
  type CompareNote,
  type CompareRequest,
  type CompareResult,
  type CompareRow,
} from '../../src-shared/protocol/index';
import type { Domain } from '../metric/domain';
import type { Mechanism, RowSource } from '../mechanism/channel';
import type { OptimalLpResult } from '../lp/optimal/optimal-mechanism';
import { bayesRemap, remapMechanism } from '../remap/bayes-remap';
import { checkCancelled, type JobContext } from './context';
import { buildMechanism, checkChannel, measureChannel, qualityLoss, type LossSpecInput } from './engine';
import { construct } from './handlers';
import { channelOfRef } from './kept-channel';
import { remapConstructed } from './remap-jobs';
import { assertChannelOnDomain, resolveChannel, resolveDomain, resolveLoss, resolvePrior } from './resolve';
import type { JobAdmission } from './admission';
import { ADMISSION_LIMITS } from '../base/admission-limits';

const DIST: LossSpecInput = { kind: 'dist' };

function kindLabel(m: CompareMechanism): string {
  return m.label ?? `${m.kind}${m.remap ? ' + remap' : ''}`;
}

/** sum_x pi_x C[x][x] (outputs are the secrets). */
function probabilityOfTruth(prior: Float64Array, ch: RowSource): number {
  const buf = new Float64Array(ch.cols);
  let s = 0;
  for (let x = 0; x < ch.rows; x++) {
    if (prior[x] === 0) continue;
    s += prior[x]! * ch.row(x, buf)[x]!;
  }
  return s;
}

function mostLikely(prior: Float64Array): number {
  let best = 0;
  for (let i = 1; i < prior.length; i++) if (prior[i]! > prior[best]!) best = i;
  return best;
}

/** The row of a construction that does not exist here (or failed): why, in `notes`, and no figures. */
function missingRow(
  base: Pick<CompareRow, 'label' | 'kind' | 'remap' | 'betterThanPlanarLaplacePct'>,
  note: CompareNote,
  t0: number,
): CompareRow {
  return { ...base, exists: false, ...NO_COMPARE_FIGURES, notes: [note], timeMs: performance.now() - t0 };
}

/** Why a construction does not exist here: the tight-constraints mechanism's negative weight. */
function doesNotExist(o: { minZ: number; minZAt: string }, eps: number): { note: CompareNote } {
  return { note: { kind: 'tight-does-not-exist', epsilon: eps, minZ: o.minZ, minZAt: o.minZAt } };
}

interface Built {
  /** The construction (none for a channel given as such). */
  mech?: Mechanism;
  /** What is compared: the construction's channel, its remap C . R, or the given channel. */
  channel: RowSource;
  /** `channel` is the construction followed by its remap (already Bayes-optimal for its prior and loss). */
  remapped: boolean;
  lp?: OptimalLpResult;
}

/**
 * A mechanism computed elsewhere must be one of this comparison: its
 * construction on the same domain at the same eps, a channel with one row per
 * point of the domain. Refused before anything is built, naming the entry.
 */
function assertGivenOnComparison(req: CompareRequest, domain: Domain, ctx: JobContext): void {
  for (const m of req.mechanisms) {
    const rows = m.channelRef !== undefined ? channelOfRef(m.channelRef, ctx.keptChannel).rows : m.channel?.rows;
    if (rows !== undefined && rows !== domain.n)
      throw new MechError(
        'invalid-input',
        `the channel of ${kindLabel(m)} has ${rows} secret rows but the domain ${domain.spec} has ${domain.n} points`,
      );
    const spec = m.mechanism;
    if (spec === undefined) continue;
    if (spec.epsilon !== req.epsilon)
      throw new MechError(
        'invalid-input',
        `the mechanism ${kindLabel(m)} is built for eps ${spec.epsilon} but the comparison is at eps ${req.epsilon}: compare it at its own eps`,
      );
    const same =
      JSON.stringify(spec.domain) === JSON.stringify(req.domain) || resolveDomain(spec.domain).spec === domain.spec;
    if (!same)
      throw new MechError(
        'invalid-input',
        `the mechanism ${kindLabel(m)} is built on another domain than the comparison's ${domain.spec}`,
      );
  }
}

/**
 * A mechanism computed elsewhere: its construction built again (silently), or the given channel read and checked
 * against the domain.
 */
async function given(
  m: CompareMechanism,
  admission: JobAdmission,
  domain: Domain,
  ctx: JobContext,
): Promise<Built | { note: CompareNote }> {
  if (m.channel !== undefined || m.channelRef !== undefined) {
    // a kept channel (an optimal LP computed in the project) is read in place from the task (./kept-channel.ts)
    const ch = m.channelRef !== undefined ? channelOfRef(m.channelRef, ctx.keptChannel) : resolveChannel(m.channel!);
    assertChannelOnDomain(ch, domain);
    return { channel: ch, remapped: false };
  }
  const spec = m.mechanism!;
  const c = await construct(admission, spec, { ...ctx, progress: () => undefined });
  if (!c.outcome.exists) return doesNotExist(c.outcome, spec.epsilon);
  const mech = c.outcome.mechanism;
  return {
    mech,
    channel: c.channel ?? mech.channel,
    remapped: spec.remap === true,
    ...(c.outcome.lp ? { lp: c.outcome.lp } : {}),
  };
}

async function build(
  m: CompareMechanism,
  req: CompareRequest,
  domain: Domain,
  prior: Float64Array,
  loss: LossSpecInput,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<Built | { note: CompareNote }> {
  if (isGivenMechanism(m)) return given(m, admission, domain, ctx);
  const eps = req.epsilon;
  const o = await buildMechanism(m.kind, domain, eps, {
    prior,
    loss,
    lp: definedLpOptions(m),
    signal: ctx.signal,
    progress: () => undefined,
    ...(ctx.stopFlag ? { stopFlag: ctx.stopFlag } : {}),
  });
  if (!o.exists) return doesNotExist(o, eps);
  const lpRecord = o.lp ? { lp: o.lp } : {};
  if (!m.remap) return { mech: o.mechanism, channel: o.mechanism.channel, remapped: false, ...lpRecord };
  const r = remapConstructed(o.mechanism, domain, prior, loss, o.lp, { signal: ctx.signal, progress: () => undefined });
  return { mech: o.mechanism, channel: r.channel, remapped: true, ...lpRecord };
}

/** The figures of one row (mechanism built and, if asked, remapped). */
async function figures(
  b: Built,
  domain: Domain,
  eps: number,
  prior: Float64Array,
  ctx: JobContext,
): Promise<Omit<CompareRow, 'label' | 'kind' | 'remap' | 'exists' | 'betterThanPlanarLaplacePct' | 'timeMs'>> {
  const notes: CompareNote[] = [];
  const ch = b.channel;
  const n = domain.n;
  const square = ch.cols === n;
  const meas = measureChannel(prior, ch);
  checkCancelled(ctx.signal);
  const fin = (x: number): number | null => (Number.isFinite(x) ? x : null);
  const expectedDistance = square ? fin(qualityLoss(prior, ch, domain)) : null;
  if (!square) notes.push({ kind: 'outputs-not-secrets', outputs: ch.cols });
  // E[d] with the best use of the outputs: the Bayesian remap for the distance loss (certified on grids)
  const r =
    b.mech && !b.remapped
      ? remapMechanism(b.mech, domain, prior, DIST, { signal: ctx.signal })
      : bayesRemap(ch, domain, prior, DIST, { signal: ctx.signal });
  if (r.valueSlack > 0) notes.push({ kind: 'remap-within', slack: r.valueSlack });
  checkCancelled(ctx.signal);
  let effectiveEpsilon: number | null = null;
  try {
    effectiveEpsilon = (await checkChannel(ch, domain, eps, 1, ADMISSION_LIMITS.maxCheckWork, { signal: ctx.signal }))
      .effectiveEpsilon;
  } catch (e) {
    if (!(e instanceof MechError && e.code === 'too-large')) throw e;
    notes.push({ kind: 'check-too-costly', reason: e.message });
  }
  // a channel given as such guarantees nothing by construction: it is judged against the comparison's eps
  const g = b.mech ? b.mech.guaranteedEpsilon : eps;
  const row: Awaited<ReturnType<typeof figures>> = {
    expectedDistance,
    expectedDistanceRemapped: fin(r.remappedLoss),
    pTrue: square ? probabilityOfTruth(prior, ch) : null,
    leakageBits: fin(meas.leakage),
    effectiveEpsilon: effectiveEpsilon === null ? null : Number.isFinite(effectiveEpsilon) ? effectiveEpsilon : null,
    guaranteedEpsilon: b.mech ? fin(g) : null,
  };
  if (effectiveEpsilon === Infinity) notes.push({ kind: 'not-private-zero' });
  else if (effectiveEpsilon !== null && Number.isFinite(g) && effectiveEpsilon > g * (1 + 1e-9))
    notes.push({
      kind: 'not-private-above',
      effectiveEpsilon,
      limit: g,
      against: b.mech ? 'guaranteed' : 'comparison',
    });
  if (notes.length) row.notes = notes;
  return row;
}

export async function compareJob(
  req: CompareRequest,
  ctx: JobContext,
  admission: JobAdmission,
): Promise<CompareResult> {
  const domain = resolveDomain(req.domain, ctx.progress);
  admission.built(req.domain, domain);
  const n = domain.n;
  const prior = resolvePrior(req.prior, n, domain);
  const loss = req.loss !== undefined ? resolveLoss(req.loss) : DIST;
  if (req.focus !== undefined && req.focus >= n)
    throw new MechError(
      'invalid-input',
      `focus cell ${req.focus} is outside the domain ${domain.spec} (cells 0..${n - 1})`,
    );
  const focus = n <= COMPARE_MAP_MAX_CELLS ? (req.focus ?? mostLikely(prior)) : null;
  const grid = domain.structure.grid ?? null;
  assertGivenOnComparison(req, domain, ctx);
  const rows: CompareRow[] = [];
  const total = req.mechanisms.length + 1;
  for (let k = 0; k < req.mechanisms.length; k++) {
    const m = req.mechanisms[k]!;
    checkCancelled(ctx.signal);
    ctx.progress(k / total, `${kindLabel(m)} on ${domain.spec}`);
    const t0 = performance.now();
    const base = {
      label: kindLabel(m),
      kind: m.kind,
      remap: m.remap === true || m.mechanism?.remap === true,
      betterThanPlanarLaplacePct: null,
    };
    try {
      const b = await build(m, req, domain, prior, loss, ctx, admission);
      if ('note' in b) {
        rows.push(missingRow(base, b.note, t0));
        continue;
      }
      const f = await figures(b, domain, req.epsilon, prior, ctx);
      const row: CompareRow = { ...base, exists: true, ...f, timeMs: 0 };
      if (b.lp) {
        // the LP's own record: its objective is the expected loss for the job's loss, certified within the gap
        const fin = (x: number): number | null => (Number.isFinite(x) ? x : null);
        const lpLoss = m.mechanism ? m.mechanism.loss : req.loss; // what the LP minimised
        const loss = typeof lpLoss === 'string' ? lpLoss : lpLoss === undefined ? 'dist' : 'custom';
        row.lp = {
          model: b.lp.model,
          objective: b.lp.objective,
          lowerBound: fin(b.lp.lowerBound),
          gap: fin(b.lp.gap),
          stoppedBy: b.lp.stoppedBy,
          loss,
          gapBasis: gapIsExact(b.lp) ? 'exact' : 'model',
        };
      }
      if (focus !== null) row.focusRow = Array.from(b.channel.row(focus, new Float64Array(b.channel.cols)));
      row.timeMs = performance.now() - t0;
      rows.push(row);
    } catch (e) {
      if (e instanceof MechError && (e.code === 'cancelled' || e.code === 'internal')) throw e;
      const message = messageOf(e);
      rows.push(missingRow(base, { kind: 'not-built', reason: message }, t0));
    }
  }
  // The baseline: planar Laplace at face value, same eps and prior (the listed row when there is one)
  ctx.progress(req.mechanisms.length / total, 'planar Laplace baseline');
  let baseline: number | null = null;
  let baselineNote: CompareBaselineNote | undefined;
  const listed = rows.find(
    (r) => r.kind === 'planar-laplace' && !r.remap && r.exists && r.label === kindLabel({ kind: 'planar-laplace' }),
  );
  if (listed) baseline = listed.expectedDistance;
  else if (!grid) baselineNote = { kind: 'not-a-grid' };
  else {
    try {
      const o = await buildMechanism('planar-laplace', domain, req.epsilon, {
        prior,
        signal: ctx.signal,
        progress: () => undefined,
      });
      if (o.exists) baseline = qualityLoss(prior, o.mechanism.channel, domain);
    } catch (e) {
      if (e instanceof MechError && e.code === 'cancelled') throw e;
      baselineNote = { kind: 'failed', reason: messageOf(e) };
    }
  }
  if (baseline !== null && !(Number.isFinite(baseline) && baseline > 0)) {
    baselineNote = { kind: 'degenerate', expectedDistance: Number.isFinite(baseline) ? baseline : null };
    baseline = null;
  }
  if (baseline !== null)
    for (const r of rows)
      if (r.expectedDistance !== null)
        r.betterThanPlanarLaplacePct = (100 * (baseline - r.expectedDistance)) / baseline;
  ctx.progress(1, 'done');
  const out: CompareResult = {
    type: 'compare',
    domain: domain.spec,
    epsilon: req.epsilon,
    unit: grid ? 'km' : 'd',
    grid: grid ? { rows: grid.rows, cols: grid.cols, step: grid.step } : null,
    loss: typeof req.loss === 'string' ? req.loss : req.loss === undefined ? 'dist' : 'matrix',
    baseline,
    rows,
    focus,
    focusLabel: focus === null ? null : domain.label(focus),
  };
  if (baselineNote) out.baselineNote = baselineNote;
  if (n <= COMPARE_MAP_MAX_CELLS) out.prior = Array.from(prior);
  return out;
}
