/**
 * Whether the host holds kept channels, and whether each is what its result
 * claims (project.channels). A channel read back from a file (a project's
 * channel folder, an uploaded bundle, the app's cache) has passed the
 * channel store's checks (record, size, sha256, id, and rows: finite, >= 0,
 * summing to 1) before it is found at all; an id and a sha256 prove nothing
 * about privacy, anyone can recompute them. So a channel asked with the
 * domain and eps its result claims is run through the engine's privacy check
 * (a `check` job) at that eps, and it is kept only when it passes: a channel
 * that is not private at its claimed eps is reported not kept, with its
 * effective eps, whatever the file says. The check's result goes back with
 * the status (the page shows it in place of the file's). Verdicts are
 * remembered per channel, domain and eps (the doubles of an id never change).
 */
import type { ChannelClaim, ChannelStatus, CheckRequest, CheckResult } from '../../src-shared/protocol/index';
import type { ChannelStore } from '../dispatcher/channel-store';
import { messageOf } from '../../src-shared/errors';

/** Verdicts remembered (a project names at most a few hundred channels). */
const MAX_VERDICTS = 2000;

const fmt = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : 'infinite');

export class KeptClaims {
  private readonly verdicts = new Map<string, CheckResult>();

  constructor(
    private readonly channels: ChannelStore | undefined,
    private readonly runCheck: ((request: CheckRequest) => Promise<CheckResult>) | undefined,
  ) {}

  /** The status of every channel asked (each once), claims privacy-checked. */
  async status(asked: readonly (string | ChannelClaim)[]): Promise<ChannelStatus[]> {
    const out: ChannelStatus[] = [];
    const seen = new Set<string>();
    for (const a of asked) {
      const claim = typeof a === 'string' ? null : a;
      const channelRef = typeof a === 'string' ? a : a.channelRef;
      if (seen.has(channelRef)) continue;
      seen.add(channelRef);
      out.push(await this.one(channelRef, claim));
    }
    return out;
  }

  private async one(channelRef: string, claim: ChannelClaim | null): Promise<ChannelStatus> {
    const r = this.channels
      ? await this.channels.locate(channelRef)
      : { ok: false as const, problem: 'this host keeps no channels' };
    if (!r.ok) return { channelRef, kept: false, problem: r.problem };
    if (claim === null) return { channelRef, kept: true };
    const on = typeof claim.domain === 'string' ? claim.domain : `its ${claim.domain.kind} domain`;
    let check: CheckResult;
    try {
      check = await this.check(claim);
    } catch (e) {
      const why = messageOf(e).split('\n')[0];
      return {
        channelRef,
        kept: false,
        problem: `the privacy of the channel ${channelRef} at eps ${fmt(claim.epsilon)} could not be checked (${why}): compute its mechanism again`,
      };
    }
    if (check.private) return { channelRef, kept: true, check };
    return {
      channelRef,
      kept: false,
      check,
      problem: `the channel ${channelRef} is not ${fmt(claim.epsilon)}*d-private on ${on} as its result says: its effective eps is ${fmt(check.effectiveEpsilon)}: compute its mechanism again`,
    };
  }

  private async check(claim: ChannelClaim): Promise<CheckResult> {
    const key = `${claim.channelRef}|${claim.epsilon}|${JSON.stringify(claim.domain)}`;
    const known = this.verdicts.get(key);
    if (known) return known;
    if (!this.runCheck) throw new Error('this host runs no privacy checks');
    const check = await this.runCheck({
      type: 'check',
      channelRef: claim.channelRef,
      domain: claim.domain,
      epsilon: claim.epsilon,
      maxViolations: 1,
    });
    if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.delete(this.verdicts.keys().next().value as string);
    this.verdicts.set(key, check);
    return check;
  }
}
