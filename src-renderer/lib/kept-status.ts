/**
 * Kept channels (optimal LPs: the host keeps them, on disk beside the
 * project or in its cache): which restored results name one, and marking the
 * results whose channel the host no longer holds ("not kept: compute again",
 * never a green dot).
 */
import type { ChannelStatus, MechStudioApi } from '../../src-shared/protocol/index';
import type { ItemResult } from './item-result';

export type KeptStatus = ChannelStatus & { keys?: string[] };

/**
 * Ask the host which channels the results name it still holds (it reads them back, checked); a failed question
 * counts every one as not kept, with the reason. null when no result names a kept channel.
 */
export function askKeptChannels(api: MechStudioApi, results: Record<string, ItemResult>): Promise<KeptStatus[]> | null {
  const refs = new Map<string, string[]>();
  for (const [key, r] of Object.entries(results)) {
    const ref = r.result?.type === 'mechanism' ? r.result.channelRef : undefined;
    if (ref) refs.set(ref, [...(refs.get(ref) ?? []), key]);
  }
  if (refs.size === 0) return null;
  return api.project.channels([...refs.keys()]).then(
    (statuses) => statuses.map((st) => ({ ...st, keys: refs.get(st.channelRef) ?? [] })),
    (e: unknown) => [...refs].map(([channelRef, keys]) => ({ channelRef, kept: false, problem: (e as Error).message, keys })),
  );
}

/** Mark the results whose channel is not kept; the message to show once, or null when every channel is kept. */
export function markNotKept(results: Record<string, ItemResult>, statuses: KeptStatus[]): string | null {
  const lost: string[] = [];
  for (const st of statuses) {
    if (st.kept) continue;
    for (const [key, r] of Object.entries(results)) {
      if (r.result?.type !== 'mechanism' || r.result.channelRef !== st.channelRef) continue;
      r.notKept = st.problem ?? 'the channel is not kept';
      lost.push(key);
    }
  }
  return lost.length ? `not kept: ${lost.map((k) => `'${k}'`).join(', ')}: ${statuses.find((x) => !x.kept)?.problem ?? ''}` : null;
}
