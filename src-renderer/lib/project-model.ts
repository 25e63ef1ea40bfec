/**
 * Pure project helpers for the renderer: default/new projects, id
 * generation, titles, and deleting, renaming and duplicating items. A
 * project entry's job request is src-shared/project/item-requests.ts (the
 * project runner's too), asked for with APP_REQUESTS.
 */
import {
  PROJECT_VERSION,
  type DomainInput,
  type JobRequest,
  type MechanismSpec,
  type ProjectInput,
  mechanismKindSchema,
  type MechanismKindName,
} from '../../src-shared/protocol/index';
import {
  channelSource,
  domainOf,
  type AppRequests,
  type ProjectAnalysisIn,
  type ProjectMechanismIn,
} from '../../src-shared/project/item-requests';

type ProjectDomainIn = ProjectInput['domains'][number];

/** The constructions a project mechanism may name, in the protocol's order. */
export const MECHANISM_KINDS = mechanismKindSchema.options;
export type MechKind = MechanismKindName;

export { KIND_LABELS } from '../../src-shared/charts/kind-words';

/** Largest channel carried back inline for the heat map and table. */
const UI_INLINE_LIMIT = 160_000;

/**
 * The app's requests of its items (src-shared/project/item-requests.ts): channels up to UI_INLINE_LIMIT come back
 * inline, an LP's is kept.
 */
export const APP_REQUESTS: AppRequests = { inlineLimit: UI_INLINE_LIMIT };

/**
 * A project of one domain, a uniform prior on it (id `priorId`) and one mechanism under that prior: a new project's
 * shape.
 */
export function starterProject(
  name: string,
  domain: ProjectDomainIn,
  priorId: string,
  mechanism: Omit<ProjectMechanismIn, 'domain' | 'prior'>,
): ProjectInput {
  const { id, ...settings } = mechanism;
  return {
    version: PROJECT_VERSION,
    name,
    domains: [domain],
    priors: [{ id: priorId, domain: domain.id, prior: 'uniform' }],
    mechanisms: [{ id, domain: domain.id, ...settings, prior: priorId }],
    analyses: [],
  };
}

export function newProject(): ProjectInput {
  return starterProject(
    'Untitled project',
    { id: 'city', name: 'City grid', domain: 'grid:10x10:step=0.5' },
    'uniform',
    {
      id: 'planar',
      kind: 'planar-laplace',
      epsilon: 1,
    },
  );
}

export function uniqueId(base: string, taken: Iterable<string>): string {
  const set = new Set(taken);
  const clean = base.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'item';
  if (!set.has(clean)) return clean;
  for (let i = 2; ; i++) if (!set.has(`${clean}-${i}`)) return `${clean}-${i}`;
}

/**
 * What an apply request releases with: the mechanism's construction, or for
 * an optimal LP the channel the host kept (with the secrets' domain), so
 * that applying never solves the LP again. Throws when the LP's channel is
 * not kept (compute it first).
 */
export function applySource(
  project: ProjectInput,
  m: ProjectMechanismIn,
  channelRef: string | undefined,
): { mechanism: MechanismSpec } | { channelRef: string; domain: DomainInput; epsilon: number } {
  const src = channelSource(project, m, channelRef);
  // a kept channel is released under the mechanism's eps: the engine checks it private there first
  return 'mechanism' in src
    ? src
    : { channelRef: src.channelRef, domain: domainOf(project, m.domain), epsilon: m.epsilon };
}

/** ε for titles and lists: ln 2 by name, else 4 significant digits (0.6931471805599453 -> ln 2, 0.5 -> 0.5). */
export function epsText(e: number): string {
  if (Math.abs(e - Math.LN2) < 1e-12) return 'ln 2';
  return String(Number(e.toPrecision(4)));
}

/** A domain's display name (its name, else its id). */
function domainName(project: ProjectInput | undefined, id: string): string {
  const d = project?.domains.find((x) => x.id === id);
  return d ? (d.name ?? d.id) : id;
}

/**
 * Human title of an analysis (sidebar, view header). With the project, the
 * domain is named by its current display name, so the title follows the
 * analysis' domain selection and renames.
 */
export function analysisTitle(a: ProjectAnalysisIn, project?: ProjectInput): string {
  const dn = (id: string): string => domainName(project, id);
  switch (a.type) {
    case 'sweep':
      return `Sweep ε ${a.from}–${a.to} on ${dn(a.domain)} (${a.kinds.join(', ')})`;
    case 'measure':
      return `Measures of ${a.mechanism}`;
    case 'check':
      return `Privacy check of ${a.mechanism}`;
    case 'capacity':
      return `Capacity of ${dn(a.domain)}, ε = ${epsText(a.epsilon)}`;
    case 'regular':
      return `Regular prior? ${a.prior} on ${dn(a.domain)}, ε = ${epsText(a.epsilon)}`;
    case 'threshold':
      return `Tight threshold on ${dn(a.domain)}`;
    case 'vertices':
      return `Private posteriors on ${dn(a.domain)}, ε = ${epsText(a.epsilon)}`;
  }
}

// ---------- case studies ----------

type ProjectCaseStudyIn = NonNullable<ProjectInput['caseStudies']>[number];

/** The case-study job of a project entry (its csv:FILE parameters were resolved when the project was opened). */
export function caseStudyRequest(c: ProjectCaseStudyIn): Extract<JobRequest, { type: 'case-study' }> {
  for (const [k, v] of Object.entries(c.params ?? {})) {
    if (typeof v === 'string' && v.startsWith('csv:'))
      throw new Error(
        `case-study parameter '${k}' (${v}) refers to a file; open the project from disk so the app can read it`,
      );
  }
  return c.params
    ? { type: 'case-study', study: c.study, params: JSON.parse(JSON.stringify(c.params)) as typeof c.params }
    : { type: 'case-study', study: c.study };
}

// ---------- deleting items ----------

export type ItemKind = 'domain' | 'prior' | 'mechanism' | 'analysis' | 'caseStudy';
interface ItemRef {
  kind: ItemKind;
  id: string;
}
/** An optional reference that deleting clears (the item falls back to its default, e.g. the uniform prior). */
interface DetachRef extends ItemRef {
  field: 'prior';
}
export interface DeletionPlan {
  target: ItemRef;
  /** Items deleted with the target because they cannot exist without it (target excluded). */
  cascade: ItemRef[];
  /** Items kept, whose optional reference to a deleted prior is cleared. */
  detach: DetachRef[];
}

const LIST: Record<ItemKind, 'domains' | 'priors' | 'mechanisms' | 'analyses' | 'caseStudies'> = {
  domain: 'domains',
  prior: 'priors',
  mechanism: 'mechanisms',
  analysis: 'analyses',
  caseStudy: 'caseStudies',
};

export const KIND_NOUN: Record<ItemKind, string> = {
  domain: 'domain',
  prior: 'prior',
  mechanism: 'mechanism',
  analysis: 'analysis',
  caseStudy: 'case study',
};

/** The project's items of one kind (its domains, priors, ...). */
export function listOf(project: ProjectInput, kind: ItemKind): { id: string }[] {
  return ((project as Record<string, unknown>)[LIST[kind]] as { id: string }[] | undefined) ?? [];
}

/**
 * What deleting an item takes with it (pure; the project is not touched):
 * a domain takes its priors, mechanisms and analyses; a mechanism takes the
 * analyses of it (measure, check); a prior takes the analyses that need it
 * (regular) and is cleared from mechanisms and analyses where it is optional
 * (they fall back to the uniform prior). Removal is transitive: the analyses
 * of a removed mechanism go too. Throws when the item does not exist.
 */
export function planDeletion(project: ProjectInput, kind: ItemKind, id: string): DeletionPlan {
  if (!listOf(project, kind).some((x) => x.id === id))
    throw new Error(`there is no ${KIND_NOUN[kind]} '${id}' to delete`);
  const gone = {
    domain: new Set<string>(),
    prior: new Set<string>(),
    mechanism: new Set<string>(),
    analysis: new Set<string>(),
  };
  if (kind !== 'caseStudy') gone[kind].add(id);
  const priors = project.priors ?? [];
  const mechs = project.mechanisms ?? [];
  const analyses = project.analyses ?? [];
  for (const p of priors) if (gone.domain.has(p.domain)) gone.prior.add(p.id);
  for (const m of mechs) if (gone.domain.has(m.domain)) gone.mechanism.add(m.id);
  for (const a of analyses) {
    if ('domain' in a && gone.domain.has(a.domain)) gone.analysis.add(a.id);
    if ('mechanism' in a && gone.mechanism.has(a.mechanism)) gone.analysis.add(a.id);
    if (a.type === 'regular' && gone.prior.has(a.prior)) gone.analysis.add(a.id);
  }
  const cascade: ItemRef[] = [];
  const push = (k: ItemKind, list: { id: string }[]): void => {
    for (const x of list)
      if ((gone as Record<string, Set<string>>)[k]!.has(x.id) && !(k === kind && x.id === id))
        cascade.push({ kind: k, id: x.id });
  };
  push('prior', priors);
  push('mechanism', mechs);
  push('analysis', analyses);
  const detach: DetachRef[] = [];
  for (const m of mechs)
    if (!gone.mechanism.has(m.id) && m.prior !== undefined && gone.prior.has(m.prior))
      detach.push({ kind: 'mechanism', id: m.id, field: 'prior' });
  for (const a of analyses) {
    if (gone.analysis.has(a.id) || a.type === 'regular') continue;
    if ('prior' in a && a.prior !== undefined && gone.prior.has(a.prior))
      detach.push({ kind: 'analysis', id: a.id, field: 'prior' });
  }
  return { target: { kind, id }, cascade, detach };
}

/**
 * Carry out a plan of planDeletion on the project, in place (works on Svelte state proxies). Returns the ids removed.
 */
export function applyDeletion(project: ProjectInput, plan: DeletionPlan): string[] {
  const removed: string[] = [];
  for (const ref of [plan.target, ...plan.cascade]) {
    const list = listOf(project, ref.kind);
    const i = list.findIndex((x) => x.id === ref.id);
    if (i >= 0) {
      list.splice(i, 1);
      removed.push(ref.id);
    }
  }
  for (const d of plan.detach) {
    const item = listOf(project, d.kind).find((x) => x.id === d.id) as Record<string, unknown> | undefined;
    if (item) delete item[d.field];
  }
  return removed;
}

/** A plan's affected items grouped by kind, for the confirmation dialog's lists. */
export function deletionGroups(
  plan: DeletionPlan,
): { effect: 'deleted' | 'uniform-prior'; kind: ItemKind; label: string; ids: string[] }[] {
  const out: { effect: 'deleted' | 'uniform-prior'; kind: ItemKind; label: string; ids: string[] }[] = [];
  const add = (effect: 'deleted' | 'uniform-prior', refs: ItemRef[]): void => {
    for (const r of refs) {
      let g = out.find((x) => x.effect === effect && x.kind === r.kind);
      if (!g) out.push((g = { effect, kind: r.kind, label: '', ids: [] }));
      g.ids.push(r.id);
    }
  };
  add('deleted', plan.cascade);
  add('uniform-prior', plan.detach);
  for (const g of out)
    g.label =
      g.ids.length === 1
        ? KIND_NOUN[g.kind]
        : g.kind === 'analysis'
          ? 'analyses'
          : g.kind === 'caseStudy'
            ? 'case studies'
            : `${KIND_NOUN[g.kind]}s`;
  return out;
}

/** The confirmation text of a plan, naming every affected item; null when nothing else is affected. */
export function describeDeletion(plan: DeletionPlan): string | null {
  if (!plan.cascade.length && !plan.detach.length) return null;
  const names = (refs: ItemRef[]): string => {
    const by = new Map<ItemKind, string[]>();
    for (const r of refs) by.set(r.kind, [...(by.get(r.kind) ?? []), `‘${r.id}’`]);
    return [...by]
      .map(
        ([k, ids]) =>
          `${ids.length === 1 ? KIND_NOUN[k] : k === 'analysis' ? 'analyses' : k === 'caseStudy' ? 'case studies' : `${KIND_NOUN[k]}s`} ${ids.join(', ')}`,
      )
      .join('; ');
  };
  const parts: string[] = [];
  if (plan.cascade.length) parts.push(`It also deletes what depends on it: ${names(plan.cascade)}.`);
  if (plan.detach.length) {
    const n = names(plan.detach);
    parts.push(`${n.charAt(0).toUpperCase()}${n.slice(1)} will use the uniform prior instead.`);
  }
  return parts.join(' ');
}

// ---------- rename and duplicate ----------

const ID_RE = /^[A-Za-z0-9_.-]+$/;

/** Why a new id cannot be used for an item of this kind (plain words), or null. */
export function idProblem(project: ProjectInput, kind: ItemKind, id: string, except?: string): string | null {
  if (!id) return 'the name is empty';
  if (id.length > 80) return 'the name is longer than 80 characters';
  if (!ID_RE.test(id)) return 'use letters, digits, _ . - only (no spaces): the name also names output files';
  if (listOf(project, kind).some((x) => x.id === id && x.id !== except))
    return `another ${KIND_NOUN[kind]} is already called '${id}'`;
  return null;
}

/**
 * Rename an item. A domain's display name changes (its id stays: other
 * files may name it); any other item's id changes and every reference to it
 * follows (priors and mechanisms of a domain, mechanisms and analyses using
 * a prior, analyses of a mechanism). Throws with a plain message when the
 * new name cannot be used. Returns the new key.
 */
export function renameItem(project: ProjectInput, kind: ItemKind, from: string, to: string): string {
  const item = listOf(project, kind).find((x) => x.id === from);
  if (!item) throw new Error(`there is no ${KIND_NOUN[kind]} '${from}'`);
  if (kind === 'domain') {
    const name = to.trim();
    if (!name) throw new Error('the name is empty');
    if (name.length > 200) throw new Error('the name is longer than 200 characters');
    (item as { name?: string }).name = name;
    return from;
  }
  const id = to.trim();
  if (id === from) return from;
  const problem = idProblem(project, kind, id, from);
  if (problem) throw new Error(problem);
  item.id = id;
  if (kind === 'prior') {
    for (const m of project.mechanisms ?? []) if (m.prior === from) m.prior = id;
    for (const a of project.analyses ?? []) if ('prior' in a && a.prior === from) (a as { prior?: string }).prior = id;
  } else if (kind === 'mechanism') {
    for (const a of project.analyses ?? []) if ('mechanism' in a && a.mechanism === from) a.mechanism = id;
  }
  return id;
}

/**
 * Duplicate an item next to it under a free id ('x-copy', 'x-copy-2', ...); a domain's copy is named '… (copy)'.
 * Returns the new id.
 */
export function duplicateItem(project: ProjectInput, kind: ItemKind, id: string): string {
  const list = listOf(project, kind);
  const i = list.findIndex((x) => x.id === id);
  if (i < 0) throw new Error(`there is no ${KIND_NOUN[kind]} '${id}'`);
  const copy = JSON.parse(JSON.stringify(list[i])) as { id: string; name?: string };
  copy.id = uniqueId(
    `${id}-copy`,
    list.map((x) => x.id),
  );
  if (kind === 'domain') copy.name = `${copy.name ?? id} (copy)`;
  list.splice(i + 1, 0, copy);
  return copy.id;
}
