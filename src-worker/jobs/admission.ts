/**
 * One size-and-work estimate at the boundary of every job, entered once per
 * job: the runner calls admitJob (./run.ts), which runs every check the
 * request shows the sizes for, from the request alone (the domain spec's
 * numbers, parsed but NOT built: ./domain-size.ts); each check prices the
 * steps the job will take (./job-costs.ts). A job over a limit
 * (../base/admission-limits.ts) is refused with MechError 'too-large' naming
 * the size, the limit and what to do instead, in well under a second and
 * before any allocation; a mismatch the request already shows (a 6-row
 * channel on a 10^9-point domain) is 'invalid-input' at once.
 *
 * Domains whose size is only known from a file or an inline matrix
 * (graph:FILE, csv:FILE, inline custom/graph) are bounded by their builders
 * (file byte cap, n^3 validation limit from the CSV header, dense limit);
 * the checks that need their size wait, and run once when the job has built
 * the domain (JobAdmission.built, called by the handlers' domainOf and the
 * comparison right after building it). Every check runs at most once on a
 * job's route, in the order listed for its request type.
 */
import { MechError, invalid } from '../../src-shared/errors';
import type { Domain } from '../metric/domain';
import { EXPLORER_MAX_N } from '../explorer/private-posterior-constraints';
import {
  type DomainInput,
  type MechanismKindName,
  type JobRequest,
  type MechanismSpec,
} from '../../src-shared/protocol/index';
import { gridOffsetCheckWork } from '../check/grid-offset-check';
import { ADMISSION_LIMITS as L } from '../base/admission-limits';
import { fmt, sizeOfBuiltDomain, sizeOfDomainInput, type DomainSize } from './domain-size';
import {
  assertPoints,
  checkWork,
  lpWork,
  mechanismWork,
  muWork,
  noWork,
  settle,
  settleMu,
  tooLarge,
} from './job-costs';

/** One check of a job's admission: the domain inputs it needs the sizes of, and its test on those sizes. */
interface Check {
  /** What the check prices, as admitJob's onCheck reports it. */
  name: string;
  /** The domain inputs it sizes, in order; it runs once all are sized. */
  inputs: DomainInput[];
  run: (sizes: DomainSize[]) => void;
}

const on = (name: string, input: DomainInput, run: (d: DomainSize) => void): Check => ({
  name,
  inputs: [input],
  run: (s) => run(s[0]!),
});

/**
 * A mechanism's construction on its domain: its points, then what building (and measuring) it costs. `passes`:
 * streaming passes over the channel the job makes (measure 1, + 1 for an expected loss; 0 when only checked).
 */
function mechanismCheck(spec: MechanismSpec, what: string, passes: number): Check {
  return on('mechanism', spec.domain, (d) => {
    assertPoints(d);
    const w = noWork();
    mechanismWork(spec.kind, d, w, spec);
    w.streamEntries *= passes;
    settle(d, w, what);
  });
}

/**
 * The secrets' domain of a check, measure or apply request (none when the request names none): an inline channel
 * whose rows do not match it is refused first, then its points.
 */
function secretsCheck(req: { domain?: DomainInput; channel?: { rows: number } }): Check[] {
  if (req.domain === undefined) return [];
  const channel = req.channel;
  return [
    on('secrets', req.domain, (d) => {
      if (channel && channel.rows !== d.n)
        invalid(`the channel has ${channel.rows} secret rows but the domain ${d.name} has ${fmt(d.n)} points`);
      assertPoints(d);
    }),
  ];
}

/** A mechanism named for a channel must be built on the secrets' domain (when both sizes are known). */
function sameDomainCheck(spec: MechanismSpec, req: { domain?: DomainInput }): Check[] {
  if (req.domain === undefined) return [];
  return [
    {
      name: 'same domain',
      inputs: [spec.domain, req.domain],
      run: ([md, d]) => {
        if (md!.n !== d!.n)
          invalid(
            `the mechanism's domain ${md!.name} has ${fmt(md!.n)} points but the domain ${d!.name} has ${fmt(d!.n)}`,
          );
      },
    },
  ];
}

/**
 * A privacy check's work on its domain d: the pairs x outputs (or planar Laplace's grid offsets). A mechanism has
 * d's points as outputs (its own domain's, which sameDomainCheck holds to d's), a channel its columns.
 */
function privacyCheckWork(req: Extract<JobRequest, { type: 'check' }>, d: DomainSize): void {
  const outputs = req.mechanism ? d.n : req.channel?.cols;
  if (outputs === undefined || req.mechanism?.kind === 'tight') return;
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

/**
 * A threshold search: at most a million eps values, each a tight-constraints solve (free where the closed form
 * applies).
 */
function thresholdWork(req: Extract<JobRequest, { type: 'threshold' }>, d: DomainSize): void {
  assertPoints(d);
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

/** A sweep: every mechanism at every eps, streamed (twice with an expected loss); the tight solves per eps. */
function sweepWork(req: Extract<JobRequest, { type: 'sweep' }>, d: DomainSize): void {
  assertPoints(d);
  const w = noWork();
  for (const kind of req.kinds) mechanismWork(kind as MechanismKindName, d, w);
  if (req.loss !== undefined) w.streamEntries *= 2;
  w.streamEntries *= req.steps;
  w.tightPoints *= req.steps;
  w.tightDense *= req.steps;
  settle(d, w, `the sweep (${req.steps} eps values x ${req.kinds.length} mechanisms)`);
  // the regularity bounds are not refused here: when they are too costly the job
  // draws the curves without them and says why (sweepBoundsRefusal)
}

/**
 * A comparison: each row is a construction (remapped if asked) or a given channel, measured, remapped for the
 * distance loss and checked: about four streaming passes each, priced together.
 */
function compareWork(req: Extract<JobRequest, { type: 'compare' }>, d: DomainSize): void {
  assertPoints(d);
  const w = noWork();
  // a given channel is only streamed; a project mechanism's construction is priced as its own
  for (const m of req.mechanisms)
    if (m.channel) w.streamEntries += m.channel.rows * m.channel.cols;
    else if (m.channelRef) w.streamEntries += d.n * d.n;
    else mechanismWork(m.kind, d, w, m.mechanism ?? m);
  w.streamEntries *= 4;
  settle(d, w, `comparing ${req.mechanisms.length} mechanism${req.mechanisms.length > 1 ? 's' : ''}`);
}

/** Vertex and kernel enumeration: at most EXPLORER_MAX_N points. */
function explorerWork(d: DomainSize): void {
  if (d.n > EXPLORER_MAX_N) {
    throw new MechError(
      'too-large',
      `privacy-type explorer: ${d.name} has ${fmt(d.n)} points; vertex and kernel enumeration is limited to n <= ${EXPLORER_MAX_N}`,
      { n: d.n, limit: EXPLORER_MAX_N },
    );
  }
}

/** The checks of a request, in the order a user meets their refusals. */
function checksOf(req: JobRequest): Check[] {
  switch (req.type) {
    case 'mechanism':
      // A remap is one pass over the columns, then C . R is measured; its expected loss is the remap's value (no
      // extra pass).
      return [
        mechanismCheck(
          req,
          `the ${req.remap ? 'remapped ' : ''}${req.kind} mechanism`,
          req.remap ? 2 : req.loss !== undefined ? 2 : 1,
        ),
      ];
    case 'apply': {
      // Sampling builds at most one row per distinct secret (<= n x outputs entries), plus the remap's pass when asked.
      const m = req.mechanism;
      const mechanism = m
        ? [
            mechanismCheck(m, `releasing with the ${m.remap ? 'remapped ' : ''}${m.kind} mechanism`, m.remap ? 2 : 1),
            ...sameDomainCheck(m, req),
          ]
        : [];
      return [...secretsCheck(req), ...mechanism];
    }
    case 'measure': {
      const m = req.mechanism;
      const passes = (req.loss !== undefined ? 2 : 1) + (m?.remap ? 1 : 0);
      return [...secretsCheck(req), ...(m ? [mechanismCheck(m, `measuring the ${m.kind} mechanism`, passes)] : [])];
    }
    case 'check': {
      const m = req.mechanism;
      return [
        ...secretsCheck(req),
        ...(m ? [mechanismCheck(m, `checking the ${m.kind} mechanism`, 0), ...sameDomainCheck(m, req)] : []),
        on('privacy check', req.domain, (d) => privacyCheckWork(req, d)),
      ];
    }
    case 'capacity':
      return [
        on('capacity', req.domain, (d) => {
          assertPoints(d);
          lpWork(`the capacity LPs on ${d.name}`, d, d.pairs, true);
        }),
      ];
    case 'regular':
      return [
        on('regularity', req.domain, (d) => {
          assertPoints(d);
          const w = noWork();
          muWork(d, w);
          settleMu(d, w, 'the regularity decision');
        }),
      ];
    case 'threshold':
      return [on('threshold', req.domain, (d) => thresholdWork(req, d))];
    case 'vertices':
    case 'explorer':
      return [on('explorer', req.domain, explorerWork)];
    case 'sweep':
      return [on('sweep', req.domain, (d) => sweepWork(req, d))];
    case 'compare':
      return [on('compare', req.domain, (d) => compareWork(req, d))];
    case 'rows': {
      // block means stream the whole channel once; listed rows only build the mechanism
      const m = req.mechanism;
      const blocks = req.blocks !== undefined;
      return m
        ? [mechanismCheck(m, `the ${m.kind} mechanism's ${blocks ? 'block means' : 'rows'}`, blocks ? 1 : 0)]
        : [];
    }
    case 'run-project': // each project item is admitted on its own (runJobRequest)
    case 'case-study': // case studies have fixed sizes
    case 'audit': // an audit's work is its samples file's, read in bounded chunks
      return [];
  }
}

/** A job admitted from its request, with the checks that wait for a domain the job has yet to build. */
export interface JobAdmission {
  /**
   * The domain `input` is built: run, once each, the checks that waited for its size (none when the request showed
   * it). Call right after building it.
   */
  built(input: DomainInput, domain: Domain): void;
}

/**
 * Admit a job: run every check whose domains the request sizes (refusing what cannot complete within the limits),
 * and keep the rest for JobAdmission.built. `onCheck` hears the name of each check as it runs.
 */
export function admitJob(req: JobRequest, onCheck?: (name: string) => void): JobAdmission {
  const fromRequest = new Map<DomainInput, DomainSize | null>();
  const requestSize = (input: DomainInput): DomainSize | null => {
    if (!fromRequest.has(input)) fromRequest.set(input, sizeOfDomainInput(input));
    return fromRequest.get(input)!;
  };
  /** Run c when `size` sizes all its inputs; true when it ran. */
  const tryRun = (c: Check, size: (input: DomainInput) => DomainSize | null): boolean => {
    const sizes = c.inputs.map(size);
    if (sizes.some((s) => s === null)) return false;
    onCheck?.(c.name);
    c.run(sizes as DomainSize[]);
    return true;
  };
  const waiting = checksOf(req).filter((c) => !tryRun(c, requestSize));
  return {
    built(input, domain) {
      // a domain the request sizes is priced from its spec, as before the build; the built one from itself
      const size = (i: DomainInput): DomainSize | null =>
        requestSize(i) ?? (i === input ? sizeOfBuiltDomain(domain) : null);
      for (const c of [...waiting])
        if (c.inputs.includes(input) && tryRun(c, size)) waiting.splice(waiting.indexOf(c), 1);
    },
  };
}

/**
 * Refuse, from the request alone, a job that cannot complete within the limits: admitJob's checks before any domain
 * is built (the library's test of a request; a job's runner admits it with admitJob).
 */
export function admitRequest(req: JobRequest): void {
  admitJob(req);
}
