/**
 * Comparisons and audits held in the project (src-shared/protocol/study-items.ts): the Compare view keeps one
 * comparison per grid domain (its id is the domain's), the Audit view a list of audits, each with its inputs and its
 * result. Edits elsewhere keep them valid: a deleted mechanism or prior leaves the comparisons that named it, a renamed
 * one is renamed in them. Pure functions: unit-tested in test/unit/renderer/lib/study-items.test.ts.
 */
import type { ProjectAudit, ProjectComparison, ProjectInput } from '../../src-shared/protocol/index';

/** The comparison kept for a grid domain, if any. */
export function comparisonOf(project: ProjectInput, domainId: string): ProjectComparison | undefined {
  return (project.comparisons ?? []).find((c) => c.id === domainId);
}

/** Keep a comparison (replacing the one of its domain). */
export function putComparison(project: ProjectInput, c: ProjectComparison): void {
  // read back after assigning: in the app the project is deep state, and the array kept is its proxy, not the [] given
  if (!project.comparisons) project.comparisons = [];
  const list = project.comparisons;
  const i = list.findIndex((x) => x.id === c.id);
  if (i >= 0) list[i] = c;
  else list.push(c);
}

/** Most audits a project keeps (the schema's limit): the oldest goes first. */
const MAX_AUDITS = 200;

/** Keep an audit (newest last); returns its id (audit-1, audit-2, …). */
export function addAudit(project: ProjectInput, a: Omit<ProjectAudit, 'id'>): string {
  if (!project.audits) project.audits = [];
  const list = project.audits;
  const used = new Set(list.map((x) => x.id));
  let n = list.length + 1;
  while (used.has(`audit-${n}`)) n++;
  const id = `audit-${n}`;
  list.push({ id, ...a });
  while (list.length > MAX_AUDITS) list.shift();
  return id;
}

/** After a deletion: comparisons and audits name only items that still exist (a comparison of a deleted grid goes). */
export function pruneStudyItems(project: ProjectInput): void {
  const doms = new Set(project.domains.map((d) => d.id));
  const pris = new Set((project.priors ?? []).map((p) => p.id));
  const mechs = new Set((project.mechanisms ?? []).map((m) => m.id));
  if (project.comparisons) {
    project.comparisons = project.comparisons.filter((c) => doms.has(c.domain));
    for (const c of project.comparisons) {
      if (c.prior !== undefined && !pris.has(c.prior)) delete c.prior;
      c.mechanisms = c.mechanisms.filter((m) => mechs.has(m));
    }
  }
  for (const a of project.audits ?? [])
    if (a.pointsPrior !== undefined && !pris.has(a.pointsPrior)) delete a.pointsPrior;
}

/** After a rename of a prior or mechanism: the comparisons and audits that named it name the new id. */
export function renameInStudyItems(project: ProjectInput, kind: string, from: string, to: string): void {
  for (const c of project.comparisons ?? []) {
    if (kind === 'prior' && c.prior === from) c.prior = to;
    if (kind === 'mechanism') c.mechanisms = c.mechanisms.map((m) => (m === from ? to : m));
  }
  if (kind === 'prior') for (const a of project.audits ?? []) if (a.pointsPrior === from) a.pointsPrior = to;
}
