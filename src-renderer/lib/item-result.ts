/** A project item's result as the app holds it (lib/state.svelte.ts keeps one per item, lib/compute.svelte.ts fills them; lib/status.ts derives its badge). */
import { type JobError, type CheckResult, type JobResult } from '../../src-shared/protocol/index';
import type { ChannelSource } from './project-model';

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
  /** The separate privacy check was over the engine's work limit (why); the mechanism job's own effective eps is shown. */
  checkSkipped?: string;
  /** Where the engine finds a computed mechanism's channel (its construction at compute time, or the host's channelRef): views fetch rows from it. */
  source?: ChannelSource;
  /** The channel this result names (an optimal LP's, kept by the host) is not kept: why, in one sentence (compute again). */
  notKept?: string;
  /** Restored from a file with a kept channel the host privacy-checked: what was checked and what (the LP's bound, gap) was not. */
  claimsNotChecked?: string;
}
