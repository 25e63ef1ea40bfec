/**
 * Pure project helpers for the renderer: default/new projects, id
 * generation, and turning project entries into job requests (SPEC §8 forms).
 */
import type { DomainInput, LossInput, PriorInput } from '../../src-worker/protocol/common';
import type { JobRequest } from '../../src-worker/protocol/requests';
import type { ProjectInput, ProjectLoss, ProjectPrior } from '../../src-worker/protocol/project';

export type ProjectDomainIn = ProjectInput['domains'][number];
export type ProjectPriorIn = NonNullable<ProjectInput['priors']>[number];
export type ProjectMechanismIn = NonNullable<ProjectInput['mechanisms']>[number];
export type ProjectAnalysisIn = NonNullable<ProjectInput['analyses']>[number];

export const MECHANISM_KINDS = ['tg', 'rr', 'exponential', 'laplace', 'planar-laplace', 'tight', 'symmetric', 'optimal'] as const;
export type MechKind = (typeof MECHANISM_KINDS)[number];

export const KIND_LABELS: Record<MechKind, string> = {
  tg: 'Truncated geometric',
  rr: 'Randomised response',
  exponential: 'Exponential (exp(−ε d/2))',
  laplace: 'Row-normalised Laplace (exp(−ε d), 2ε)',
  'planar-laplace': 'Planar Laplace (grids)',
  tight: 'Tight constraints',
  symmetric: 'Symmetric graph',
  optimal: 'Optimal (LP, prior + loss)',
};

/** Largest channel carried back inline for the heat map and table. */
export const UI_INLINE_LIMIT = 160_000;

export function newProject(): ProjectInput {
  return {
    version: 1,
    name: 'Untitled project',
    domains: [{ id: 'city', name: 'City grid', domain: 'grid:10x10:step=0.5' }],
    priors: [{ id: 'uniform', domain: 'city', prior: 'uniform' }],
    mechanisms: [{ id: 'planar', domain: 'city', kind: 'planar-laplace', epsilon: 1, prior: 'uniform' }],
    analyses: [],
  };
}

export function uniqueId(base: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  const clean = base.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'item';
  if (!set.has(clean)) return clean;
  for (let i = 2; ; i++) if (!set.has(`${clean}-${i}`)) return `${clean}-${i}`;
}

/** Resolve a stored prior (protocol form or CLI text form) to a PriorInput. Throws with a readable message. */
export function priorToInput(p: ProjectPrior): PriorInput {
  if (typeof p !== 'string') return p;
  const t = p.trim();
  if (t === 'uniform') return 'uniform';
  if (t.startsWith('product:')) return { kind: 'product', values: parseList(t.slice(8), 'product prior') };
  if (t.startsWith('csv:')) throw new Error(`prior ${t} refers to a file; load it into the prior editor to use it in the app`);
  return { kind: 'vector', values: parseList(t, 'prior') };
}

function parseList(s: string, what: string): number[] {
  const parts = s.split(',').map((x) => x.trim());
  const v = parts.map(Number);
  const bad = v.findIndex((x, i) => parts[i] === '' || !Number.isFinite(x) || x < 0);
  if (bad >= 0) throw new Error(`${what}: entry ${bad + 1} ('${parts[bad]}') is not a number >= 0`);
  return v;
}

export function lossToInput(l: ProjectLoss | undefined): LossInput | undefined {
  if (l === undefined) return undefined;
  if (typeof l === 'string') {
    if (['bin', 'nib', 'dist', 'dist2'].includes(l)) return l as LossInput;
    throw new Error(`loss ${l} refers to a file; the app supports bin, nib, dist and dist2`);
  }
  return l;
}

export function domainOf(project: ProjectInput, id: string): DomainInput {
  const d = project.domains.find((x) => x.id === id);
  if (!d) throw new Error(`unknown domain '${id}'`);
  return d.domain;
}

export function priorOf(project: ProjectInput, id: string | undefined): PriorInput | undefined {
  if (id === undefined) return undefined;
  const p = (project.priors ?? []).find((x) => x.id === id);
  if (!p) throw new Error(`unknown prior '${id}'`);
  return priorToInput(p.prior);
}

export function mechanismRequest(project: ProjectInput, m: ProjectMechanismIn): Extract<JobRequest, { type: 'mechanism' }> {
  const req: Extract<JobRequest, { type: 'mechanism' }> = {
    type: 'mechanism',
    domain: domainOf(project, m.domain),
    epsilon: m.epsilon,
    kind: m.kind,
    inlineLimit: UI_INLINE_LIMIT,
  };
  const prior = priorOf(project, m.prior);
  if (prior !== undefined) req.prior = prior;
  const loss = lossToInput(m.loss);
  if (loss !== undefined) req.loss = loss;
  return req;
}

export function analysisRequest(project: ProjectInput, a: ProjectAnalysisIn, mechanismMatrix?: Extract<JobRequest, { type: 'measure' }>['channel']): JobRequest {
  switch (a.type) {
    case 'sweep': {
      const r: JobRequest = { type: 'sweep', domain: domainOf(project, a.domain), kinds: a.kinds, from: a.from, to: a.to, steps: a.steps };
      const prior = priorOf(project, a.prior);
      if (prior !== undefined) r.prior = prior;
      const loss = lossToInput(a.loss);
      if (loss !== undefined) r.loss = loss;
      return r;
    }
    case 'capacity':
      return { type: 'capacity', domain: domainOf(project, a.domain), epsilon: a.epsilon, inlineLimit: UI_INLINE_LIMIT };
    case 'regular':
      return { type: 'regular', domain: domainOf(project, a.domain), epsilon: a.epsilon, prior: priorOf(project, a.prior) ?? 'uniform' };
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
      const m = (project.mechanisms ?? []).find((x) => x.id === a.mechanism);
      if (!m) throw new Error(`unknown mechanism '${a.mechanism}'`);
      if (!mechanismMatrix) throw new Error(`compute mechanism '${a.mechanism}' first (its channel is needed)`);
      if (a.type === 'check') return { type: 'check', channel: mechanismMatrix, domain: domainOf(project, m.domain), epsilon: a.epsilon ?? m.epsilon, maxViolations: 10 };
      const r: JobRequest = { type: 'measure', channel: mechanismMatrix, domain: domainOf(project, m.domain), epsilon: m.epsilon };
      const prior = priorOf(project, a.prior ?? m.prior);
      if (prior !== undefined) r.prior = prior;
      const loss = lossToInput(a.loss ?? m.loss);
      if (loss !== undefined) r.loss = loss;
      return r;
    }
  }
}

/** Human title of an analysis for the sidebar. */
export function analysisTitle(a: ProjectAnalysisIn): string {
  switch (a.type) {
    case 'sweep':
      return `Sweep ε ${a.from}–${a.to} (${a.kinds.join(', ')})`;
    case 'measure':
      return `Measures of ${a.mechanism}`;
    case 'check':
      return `Privacy check of ${a.mechanism}`;
    case 'capacity':
      return `Capacity of ${a.domain}, ε=${a.epsilon}`;
    case 'regular':
      return `Regular prior? ${a.prior} on ${a.domain}`;
    case 'threshold':
      return `Tight threshold on ${a.domain}`;
    case 'vertices':
      return `Private posteriors on ${a.domain}`;
  }
}
