/**
 * Which results still belong to the project's inputs (by the hash of the
 * inputs each was computed from, lib/kept-results.ts): a result whose inputs
 * changed is stale, current again when the edit is undone; an error is about
 * inputs that are gone once they change, so it is dropped rather than shown.
 */
import type { ProjectInput } from '../../src-shared/protocol/index';
import type { ItemResult } from './item-result';
import { itemHash } from './kept-results';

type Results = Record<string, ItemResult>;

/** Mark every result whose inputs no longer hash the same as stale (and current again when an edit is undone). */
export function refreshStale(project: ProjectInput, results: Results): void {
  for (const [key, r] of Object.entries(results)) {
    if (r.status === 'running') continue;
    const now = itemHash(project, key);
    if (r.status === 'error') {
      if (r.hash !== undefined && now !== r.hash) delete results[key];
      continue;
    }
    if (r.hash !== undefined) {
      r.stale = now !== r.hash;
      // a failure was for other inputs: once the inputs are this result's again, it is simply current
      if (!r.stale) r.failed = undefined;
    }
  }
}

/** Mark one result stale when its inputs changed while it was computed. */
export function refreshOne(project: ProjectInput, results: Results, key: string): void {
  const r = results[key];
  if (r?.status === 'done' && r.hash !== undefined) r.stale = itemHash(project, key) !== r.hash;
}

/**
 * An item's inputs changed: mark its result, and the results that depend on
 * it (mechanisms and analyses on a domain, analyses of a mechanism), stale.
 */
export function invalidate(
  project: ProjectInput,
  results: Results,
  kind: 'domain' | 'prior' | 'mechanism' | 'analysis',
  id: string,
): void {
  const ids = new Set<string>([id]);
  if (kind === 'domain' || kind === 'prior') {
    for (const m of project.mechanisms ?? []) if ((kind === 'domain' ? m.domain : m.prior) === id) ids.add(m.id);
    for (const a of project.analyses ?? [])
      if (
        (kind === 'domain' && 'domain' in a && a.domain === id) ||
        (kind === 'prior' && 'prior' in a && a.prior === id)
      )
        ids.add(a.id);
  }
  for (const a of project.analyses ?? []) if ('mechanism' in a && ids.has(a.mechanism)) ids.add(a.id);
  for (const x of ids) {
    const r = results[x];
    if (!r || r.status === 'running') continue;
    if (r.hash !== undefined) {
      const now = itemHash(project, x);
      if (r.status === 'error') {
        if (now !== r.hash) delete results[x];
      } else r.stale = now !== r.hash;
    } else if (r.status === 'error')
      delete results[x]; // an error about inputs that changed is not shown for the new ones
    else r.stale = true;
  }
}
