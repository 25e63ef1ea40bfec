/**
 * Channels the app host keeps (issue 15): a mechanism job asked with
 * keepChannel has its full channel stored here, content-addressed (sha256 of
 * its shape, labels and doubles), and later measure, check and rows requests
 * name it by `channelRef` instead of carrying the matrix through the page.
 * Bounded by total entries; the least recently used channels are dropped
 * first (a request naming a dropped one gets a clear error).
 */
import { createHash } from 'node:crypto';
import type { ChannelPayload } from '../../src-shared/protocol/common';

/** Total entries kept (about 8 bytes each as doubles; 3e7 = 240 MB). */
export const CHANNEL_STORE_MAX_ENTRIES = 30_000_000;

export class ChannelStore {
  private readonly kept = new Map<string, ChannelPayload>();
  private entries = 0;

  constructor(private readonly maxEntries = CHANNEL_STORE_MAX_ENTRIES) {}

  /** Keep a channel; returns its id (the same channel always gets the same id). */
  put(ch: ChannelPayload): string {
    const h = createHash('sha256');
    h.update(`${ch.rows}x${ch.cols}\n`);
    h.update(JSON.stringify(ch.rowLabels));
    h.update(JSON.stringify(ch.colLabels));
    h.update(new Uint8Array(Float64Array.from(ch.data).buffer));
    const id = `ch-${h.digest('hex').slice(0, 32)}`;
    const old = this.kept.get(id);
    if (old) this.kept.delete(id);
    else this.entries += ch.rows * ch.cols;
    this.kept.set(id, old ?? ch);
    while (this.entries > this.maxEntries && this.kept.size > 1) {
      const [first, c] = this.kept.entries().next().value as [string, ChannelPayload];
      this.kept.delete(first);
      this.entries -= c.rows * c.cols;
    }
    return id;
  }

  /** The channel kept under `id` (marked as recently used), or undefined. */
  get(id: string): ChannelPayload | undefined {
    const c = this.kept.get(id);
    if (c) {
      this.kept.delete(id);
      this.kept.set(id, c);
    }
    return c;
  }

  get size(): number {
    return this.kept.size;
  }
}
