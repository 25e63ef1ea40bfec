/**
 * The status an item shows (its sidebar dot and its title), derived from its result in one place so that every
 * badge says what the result says. States, in the order they are decided:
 *  - ''            nothing computed yet
 *  - 'running'     a job is computing it
 *  - 'cancelled'   the user cancelled it
 *  - 'not-checked' a privacy check over the engine's size limit: no verdict either way (not red: nothing failed)
 *  - 'error'       it failed, or the last Compute failed and an earlier result is shown
 *  - 'not-kept'    its kept channel is gone (compute again)
 *  - 'absent'      the construction does not exist for these inputs (a finding, not a success)
 *  - 'not-private' its privacy check found a pair over the level
 *  - 'stale'       its inputs changed since it was computed
 *  - 'done'        computed and, for a mechanism, not found wanting by its check
 */
import type { ItemResult } from './item-result';

export type ItemStatus =
  '' | 'running' | 'cancelled' | 'not-checked' | 'error' | 'not-kept' | 'absent' | 'not-private' | 'stale' | 'done';

/** `privacyCheck`: the item is a privacy-check analysis (its 'too-large' refusal is no verdict, not a failure). */
export function itemStatus(r: ItemResult | undefined, privacyCheck = false): ItemStatus {
  if (!r) return '';
  if (r.status === 'running') return 'running';
  if (r.status === 'error') {
    if (r.error?.code === 'cancelled') return 'cancelled';
    if (privacyCheck && r.error?.code === 'too-large') return 'not-checked';
    return 'error';
  }
  if (r.failed) return 'error';
  if (r.notKept) return 'not-kept';
  const res = r.result;
  if (res?.type === 'mechanism' && !res.exists) return 'absent';
  if (res?.type === 'check' && !res.private) return 'not-private';
  if (r.check && !r.check.private) return 'not-private';
  return r.stale ? 'stale' : 'done';
}

/** What a status means, in words (the dot's tooltip). */
export const STATUS_WORDS: Record<ItemStatus, string> = {
  '': 'not computed yet',
  running: 'computing',
  cancelled: 'cancelled',
  'not-checked': 'not checked here: too large for this machine (no verdict)',
  error: 'failed: open it to see why',
  'not-kept': 'not kept: compute again',
  absent: 'does not exist for these inputs',
  'not-private': 'not private at its level: open it for the worst pairs',
  stale: 'inputs changed since it was computed',
  done: 'computed',
};
