/**
 * Samples of a mechanism for the audit tests: `perSecret` outputs of each secret, drawn by the engine's exact sampler
 * from a seed.
 */
import { ChannelSampler } from '../../../../src-worker/data/channel-sampler';
import type { RowSource } from '../../../../src-worker/mechanism/channel';

export function simulate(
  channel: RowSource,
  perSecret: number,
  seed: number,
  secrets?: number[],
): { secrets: Int32Array; outputs: Int32Array } {
  const ids = secrets ?? Array.from({ length: channel.rows }, (_, i) => i);
  const N = ids.length * perSecret;
  const s = new Int32Array(N);
  // Interleaved, as a log would hold them.
  for (let i = 0; i < N; i++) s[i] = ids[i % ids.length]!;
  const out = new Int32Array(N);
  new ChannelSampler(channel, { seed }).sampleBlock(s, N, out);
  return { secrets: s, outputs: out };
}
