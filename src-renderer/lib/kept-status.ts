/**
 * Kept channels (optimal LPs: the host keeps them, on disk beside the
 * project or in its cache): which restored results name one, and marking the
 * results whose channel the host no longer holds ("not kept: compute again",
 * never a green dot).
 *
 * A restored result is read from a file: nothing it says is believed. Each
 * channel is asked with the domain and eps its mechanism claims, and the
 * host runs the engine's privacy check on the channel at that eps (a channel
 * that is not private there is not kept). The host's check replaces the one
 * the file carried (and the result's effective eps); the LP's lower bound
 * and gap, which nothing recomputes, are marked as not checked.
 */
import type { ChannelClaim, ChannelStatus, DomainInput, MechStudioApi } from '../../src-shared/protocol/index';
import type { ItemResult } from './item-result';
import { messageOf } from '../../src-shared/errors';

export type KeptStatus = ChannelStatus & { keys?: string[] };

/** The domain and eps the item `key`'s mechanism claims for its channel (undefined when there is no such mechanism). */
export type ChannelClaimOf = (key: string) => { domain: DomainInput; epsilon: number } | undefined;

/**
 * Ask the host which channels the results name it still holds (it reads them back, checked, and privacy-checks each
 * at its claim); a failed question counts every one as not kept, with the reason. null when no result names a kept
 * channel.
 */
export function askKeptChannels(
  api: MechStudioApi,
  results: Record<string, ItemResult>,
  claimOf: ChannelClaimOf = () => undefined,
): Promise<KeptStatus[]> | null {
  const refs = new Map<string, string[]>();
  const claims = new Map<string, ChannelClaim>();
  for (const [key, r] of Object.entries(results)) {
    const ref = r.result?.type === 'mechanism' ? r.result.channelRef : undefined;
    if (!ref) continue;
    refs.set(ref, [...(refs.get(ref) ?? []), key]);
    const claim = claimOf(key);
    if (claim && !claims.has(ref)) claims.set(ref, { channelRef: ref, ...claim });
  }
  if (refs.size === 0) return null;
  return api.project.channels([...refs.keys()].map((ref) => claims.get(ref) ?? ref)).then(
    (statuses) => statuses.map((st) => ({ ...st, keys: refs.get(st.channelRef) ?? [] })),
    (e: unknown) => [...refs].map(([channelRef, keys]) => ({ channelRef, kept: false, problem: messageOf(e), keys })),
  );
}

const fmt = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : 'infinite');

/**
 * Mark the results whose channel is not kept, and take the host's check for those kept; the message to show once, or
 * null when every channel is kept.
 */
export function markNotKept(results: Record<string, ItemResult>, statuses: KeptStatus[]): string | null {
  const lost: string[] = [];
  for (const st of statuses) {
    for (const [key, r] of Object.entries(results)) {
      if (r.result?.type !== 'mechanism' || r.result.channelRef !== st.channelRef) continue;
      if (!st.kept) {
        r.notKept = st.problem ?? 'the channel is not kept';
        lost.push(key);
      } else if (st.check) {
        r.check = st.check;
        r.result = { ...r.result, effectiveEpsilon: st.check.effectiveEpsilon };
        r.claimsNotChecked = `read from the project file: its privacy was checked here (effective eps ${fmt(st.check.effectiveEpsilon)} at eps ${fmt(st.check.epsilon)}); the LP bound and gap are as the file says, not checked`;
      }
    }
  }
  return lost.length
    ? `not kept: ${lost.map((k) => `'${k}'`).join(', ')}: ${statuses.find((x) => !x.kept)?.problem ?? ''}`
    : null;
}
