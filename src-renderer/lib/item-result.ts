/**
 * A project item's result as the app holds it (lib/state.svelte.ts keeps one per item, lib/compute.svelte.ts fills
 * them; lib/status.ts derives its badge).
 */
import { type JobError, type CheckResult, type JobResult, type ProjectInput } from '../../src-shared/protocol/index';
import { channelSource, type ChannelSource } from '../../src-shared/project/item-requests';
import { messageOf } from '../../src-shared/errors';

export interface ItemResult {
  status: 'running' | 'done' | 'error';
  jobId?: string;
  result?: JobResult;
  error?: JobError;
  /** Privacy check of a mechanism's channel (SPEC §4). */
  check?: CheckResult;
  checkError?: string;
  /** The inputs changed since this was computed (its hash differs from the item's inputs now). */
  stale?: boolean;
  /** Hash of the inputs this result was computed from (lib/kept-results.ts). */
  hash?: string;
  /** When it was computed (ISO time; kept in the project file). */
  computedAt?: string;
  /** The last Compute failed; this (older) result was kept. */
  failed?: string;
  /**
   * The separate privacy check was over the engine's work limit (why); the mechanism job's own effective eps is shown.
   */
  checkSkipped?: string;
  /**
   * Where the engine finds a computed mechanism's channel (its construction at compute time, or the host's channelRef):
   * views fetch rows from it.
   */
  source?: ChannelSource;
  /**
   * The channel this result names (an optimal LP's, kept by the host) is not kept: why, in one sentence (compute
   * again).
   */
  notKept?: string;
  /**
   * Restored from a file with a kept channel the host privacy-checked: what was checked and what (the LP's bound, gap)
   * was not.
   */
  claimsNotChecked?: string;
}

/**
 * The one notion of "computed" every view uses (Compare, Measures, Check, Apply, Export, the editors): the channel a
 * mechanism's result stands for, wherever the result came from (computed now, or kept in the project file and
 * restored by an open, upload or reload), or why there is none. A kept result is computed: its construction (the
 * one sent, else the mechanism's own while its inputs are unchanged) or an optimal LP's channel the host keeps.
 * Nothing is solved again.
 */
export function computedChannel(
  project: ProjectInput,
  id: string,
  r: ItemResult | undefined,
): { source: ChannelSource } | { why: string } {
  const m = (project.mechanisms ?? []).find((x) => x.id === id);
  if (!m) return { why: 'does not exist' };
  if (!r || r.status === 'error' || (r.status === 'done' && !r.result))
    return { why: 'not computed yet: compute it in its editor first' };
  if (r.status === 'running') return { why: 'being computed' };
  const res = r.result;
  if (res?.type !== 'mechanism') return { why: 'not computed yet: compute it in its editor first' };
  if (!res.exists) return { why: 'does not exist' };
  if (r.notKept) return { why: `not kept: ${r.notKept} (compute it again)` };
  if (r.source) return { source: r.source };
  if (res.channelRef !== undefined) return { source: { channelRef: res.channelRef } };
  if (m.kind === 'optimal') return { why: 'not computed yet: compute it in its editor first' };
  if (r.stale) return { why: 'inputs changed since it was computed: compute it again' };
  try {
    return { source: channelSource(project, m, undefined) };
  } catch (e) {
    return { why: messageOf(e) };
  }
}
