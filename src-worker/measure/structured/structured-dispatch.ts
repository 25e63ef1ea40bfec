import type { RowSource } from '../../mechanism/channel';
import { ImplicitTightChannel } from '../../mechanism/implicit/implicit-tight-channel';
import type { Domain } from '../../metric/domain';
import { tightChannelMeasures, type TightMeasures } from './tight-measures';
import { tightExpectedError } from './tight-expected-error';
import { checkTightPrivacy, type StructuredPrivacyCheck } from './tight-privacy-check';

/**
 * One place for callers holding a plain RowSource (job handlers, CLI) to use
 * the structured measures when the channel is an implicit tight-constraints
 * mechanism, and their generic O(rows x cols) measures otherwise (null here):
 *
 *   const m = structuredMeasures(prior, ch) ?? measureChannel(prior, ch);
 *
 * A channel built on another domain object than the one given is not
 * treated structurally (null), so a mismatch can never pass silently (the
 * same spec text may name different data, e.g. an edited csv: file). The
 * job engine (jobs/engine.ts measureChannel, qualityLoss, checkChannel) goes
 * through these.
 */
function asImplicitTight(channel: RowSource, domain?: Domain): ImplicitTightChannel | null {
  if (!(channel instanceof ImplicitTightChannel)) return null;
  if (domain && domain !== channel.domain) return null;
  return channel;
}

export function structuredMeasures(prior: ArrayLike<number>, channel: RowSource): TightMeasures | null {
  const ch = asImplicitTight(channel);
  return ch ? tightChannelMeasures(prior, ch) : null;
}

export function structuredExpectedDistanceError(
  prior: ArrayLike<number>,
  channel: RowSource,
  domain: Domain,
): number | null {
  const ch = asImplicitTight(channel, domain);
  return ch ? tightExpectedError(prior, ch).value : null;
}

export function structuredPrivacyCheck(channel: RowSource, domain: Domain, eps: number): StructuredPrivacyCheck | null {
  const ch = asImplicitTight(channel, domain);
  return ch ? checkTightPrivacy(ch, eps) : null;
}
