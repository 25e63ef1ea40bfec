/**
 * A project's item (protocol/project.ts) as the job request that computes it, written once for the app and the
 * project runner: the app computes one item at a time (src-renderer/lib/compute.svelte.ts) and hashes a kept
 * result's inputs from the same request (src-renderer/lib/kept-results.ts); `mechstudio run` and the run-project
 * job plan every item (src-worker/jobs/project-plan.ts). References are resolved: the domain's text or metric, the
 * prior's values (the shared prior grammar, of the item's own domain), the loss. A prior or loss naming a file
 * must have been read first (the host resolves csv:FILE when it opens a project; the app's prior editor loads one).
 */
import { invalid } from '../errors';
import {
  builtinLossSchema,
  definedLpOptions,
  type DomainInput,
  type JobRequest,
  type LossInput,
  type MechanismSpec,
  type PriorInput,
  type ProjectInput,
  type ProjectLoss,
  type ProjectPrior,
} from '../protocol/index';
import { parsePriorSpecText } from '../grammar/prior-spec';

export type ProjectMechanismIn = NonNullable<ProjectInput['mechanisms']>[number];
export type ProjectAnalysisIn = NonNullable<ProjectInput['analyses']>[number];

/**
 * What the app asks of its requests beyond a project run's: channels small enough to draw come back inline, an
 * optimal LP's channel is kept by the host (its measures, checks, views, exports and apply name it), and a check
 * lists its violations.
 */
export interface AppRequests {
  /** Largest channel (cells) a mechanism or capacity result carries back inline. */
  inlineLimit: number;
}

/** Violations an app's privacy check lists. */
const APP_CHECK_VIOLATIONS = 10;

/** A stored prior (the protocol form, or a text of the shared prior grammar) as a request carries it. */
export function priorInput(p: ProjectPrior): PriorInput {
  if (typeof p !== 'string') return p;
  const r = parsePriorSpecText(p);
  if (!r.ok) invalid(r.error);
  const q = r.prior;
  if (q.kind === 'csv' || q.kind === 'points')
    invalid(`prior '${p.trim()}' refers to a file: resolve it first (in the app, load the file in the prior editor)`);
  return q.kind === 'uniform' ? 'uniform' : q;
}

/** A stored loss as a request carries it: a built-in loss or a loss matrix (csv:FILE must have been read first). */
export function lossInput(l: ProjectLoss | undefined): LossInput | undefined {
  if (l === undefined || typeof l !== 'string') return l;
  const builtin = builtinLossSchema.safeParse(l);
  if (builtin.success) return builtin.data;
  return invalid(`loss '${l}' refers to a file: resolve it first (the app computes with bin, nib, dist and dist2)`);
}

export function domainOf(project: ProjectInput, id: string): DomainInput {
  const d = project.domains.find((x) => x.id === id);
  if (!d) invalid(`unknown domain '${id}'`);
  return d.domain;
}

/** The prior `id` (undefined: none); with `domainId`, it must be a prior of that domain. */
export function priorOf(project: ProjectInput, id: string | undefined, domainId?: string): PriorInput | undefined {
  if (id === undefined) return undefined;
  const p = (project.priors ?? []).find((x) => x.id === id);
  if (!p) invalid(`unknown prior '${id}'`);
  if (domainId !== undefined && p.domain !== domainId)
    invalid(`prior '${id}' is on domain '${p.domain}', not '${domainId}'`);
  return priorInput(p.prior);
}

function mechanismOf(project: ProjectInput, id: string): ProjectMechanismIn {
  const m = (project.mechanisms ?? []).find((x) => x.id === id);
  if (!m) invalid(`unknown mechanism '${id}'`);
  return m;
}

/** A mechanism named by its construction: what a mechanism job builds, and measure, check and rows requests rebuild. */
export function mechanismSpec(project: ProjectInput, m: ProjectMechanismIn): MechanismSpec {
  const s: MechanismSpec = { domain: domainOf(project, m.domain), epsilon: m.epsilon, kind: m.kind };
  const prior = priorOf(project, m.prior, m.domain);
  if (prior !== undefined) s.prior = prior;
  const loss = lossInput(m.loss);
  if (loss !== undefined) s.loss = loss;
  // the optimal LP's model, delta, time limit, target gap and threads (kind optimal only)
  if (m.kind === 'optimal') Object.assign(s, definedLpOptions(m));
  // the Bayesian remap of the outputs for the prior and loss
  if (m.remap === true) s.remap = true;
  return s;
}

/**
 * Where the engine finds a mechanism's channel, never a matrix held in the page: its construction, or for an
 * optimal LP (which would be solved again) the channel the host kept from its computation (channelRef).
 */
export type ChannelSource = { mechanism: MechanismSpec } | { channelRef: string };
export function channelSource(
  project: ProjectInput,
  m: ProjectMechanismIn,
  channelRef: string | undefined,
): ChannelSource {
  if (m.kind !== 'optimal') return { mechanism: mechanismSpec(project, m) };
  if (channelRef === undefined)
    invalid(`compute mechanism '${m.id}' first (its optimal channel is kept by the app once computed)`);
  return { channelRef };
}

export function mechanismRequest(
  project: ProjectInput,
  m: ProjectMechanismIn,
  app?: AppRequests,
): Extract<JobRequest, { type: 'mechanism' }> {
  const req: Extract<JobRequest, { type: 'mechanism' }> = { type: 'mechanism', ...mechanismSpec(project, m) };
  if (app) {
    req.inlineLimit = app.inlineLimit;
    // an LP has no cheap construction to rebuild from: the host keeps its channel
    if (m.kind === 'optimal') req.keepChannel = true;
  }
  return req;
}

/**
 * An analysis' request. A project run's measure and check rebuild the mechanism from its construction; the app's
 * name the channel by `source` (default: the construction, or for an optimal LP its kept channel, which must then
 * be given) with the mechanism's domain.
 */
export function analysisRequest(
  project: ProjectInput,
  a: ProjectAnalysisIn,
  app?: AppRequests & { source?: ChannelSource },
): JobRequest {
  switch (a.type) {
    case 'sweep': {
      const r: JobRequest = {
        type: 'sweep',
        domain: domainOf(project, a.domain),
        kinds: a.kinds,
        from: a.from,
        to: a.to,
        steps: a.steps,
      };
      const prior = priorOf(project, a.prior, a.domain);
      if (prior !== undefined) r.prior = prior;
      const loss = lossInput(a.loss);
      if (loss !== undefined) r.loss = loss;
      return r;
    }
    case 'capacity':
      return {
        type: 'capacity',
        domain: domainOf(project, a.domain),
        epsilon: a.epsilon,
        ...(app ? { inlineLimit: app.inlineLimit } : {}),
      };
    case 'regular':
      return {
        type: 'regular',
        domain: domainOf(project, a.domain),
        epsilon: a.epsilon,
        prior: priorOf(project, a.prior, a.domain) ?? 'uniform',
      };
    case 'threshold': {
      const r: JobRequest = { type: 'threshold', domain: domainOf(project, a.domain) };
      if (a.from !== undefined) r.from = a.from;
      if (a.to !== undefined) r.to = a.to;
      if (a.step !== undefined) r.step = a.step;
      return r;
    }
    case 'vertices':
      return { type: 'vertices', domain: domainOf(project, a.domain), epsilon: a.epsilon, kernels: a.kernels ?? false };
    case 'measure':
    case 'check': {
      const m = mechanismOf(project, a.mechanism);
      const src = app ? (app.source ?? channelSource(project, m, undefined)) : { mechanism: mechanismSpec(project, m) };
      const domain = domainOf(project, m.domain);
      if (a.type === 'check')
        return {
          type: 'check',
          ...src,
          domain,
          epsilon: a.epsilon ?? m.epsilon,
          ...(app ? { maxViolations: APP_CHECK_VIOLATIONS } : {}),
        };
      const r: JobRequest = { type: 'measure', ...src, ...(app ? { domain } : {}), epsilon: m.epsilon };
      const prior = priorOf(project, a.prior ?? m.prior, m.domain);
      if (prior !== undefined) r.prior = prior;
      const loss = lossInput(a.loss ?? m.loss);
      if (loss !== undefined) r.loss = loss;
      return r;
    }
  }
}
