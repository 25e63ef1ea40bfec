/**
 * Restored results that name a kept channel: the host is asked about each
 * channel with the domain and eps its mechanism claims, a channel it does not
 * keep marks its results "not kept", and a kept one's privacy check (the
 * host's, run on the channel) replaces the file's, while the LP's certificate
 * and gap, which nothing recomputed, are marked as not checked.
 */
import { describe, expect, it } from 'vitest';
import { askKeptChannels, markNotKept, type ChannelClaimOf } from '../../../../src-renderer/lib/kept-status';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import type {
  ChannelClaim,
  ChannelStatus,
  CheckResult,
  MechanismResult,
  MechStudioApi,
} from '../../../../src-shared/protocol/index';

const mech = (channelRef: string): MechanismResult =>
  ({ type: 'mechanism', channelRef, effectiveEpsilon: 1, epsilon: 1 }) as unknown as MechanismResult;
const fileCheck: CheckResult = { type: 'check', epsilon: 1, effectiveEpsilon: 1, private: true, violations: [] };
const hostCheck: CheckResult = {
  type: 'check',
  epsilon: 1,
  effectiveEpsilon: 0.75,
  private: true,
  violations: [],
  pairsChecked: 3,
};
const bad: CheckResult = { type: 'check', epsilon: 1, effectiveEpsilon: Infinity, private: false, violations: [] };

describe('kept channels asked with their claims', () => {
  it('sends the claim of each channel, keeps the check the host ran, marks the rest', async () => {
    const results: Record<string, ItemResult> = {
      a: { status: 'done', result: mech('ch-a'), check: fileCheck },
      b: { status: 'done', result: mech('ch-b') },
      // its mechanism is gone from the project: no claim, asked by its ref alone
      c: { status: 'done', result: mech('ch-c') },
    };
    const asked: (string | ChannelClaim)[][] = [];
    const statuses: ChannelStatus[] = [
      { channelRef: 'ch-a', kept: true, check: hostCheck },
      {
        channelRef: 'ch-b',
        kept: false,
        problem: 'the channel ch-b is not 1*d-private on line:3 as its result says: its effective eps is infinite',
        check: bad,
      },
      { channelRef: 'ch-c', kept: true },
    ];
    const api = {
      project: {
        channels: (refs: (string | ChannelClaim)[]) => {
          asked.push(refs);
          return Promise.resolve(statuses);
        },
      },
    } as unknown as MechStudioApi;
    const claimOf: ChannelClaimOf = (key) => (key === 'c' ? undefined : { domain: 'line:3', epsilon: 1 });
    const got = await askKeptChannels(api, results, claimOf)!;
    expect(asked).toEqual([
      [
        { channelRef: 'ch-a', domain: 'line:3', epsilon: 1 },
        { channelRef: 'ch-b', domain: 'line:3', epsilon: 1 },
        'ch-c',
      ],
    ]);
    const said = markNotKept(results, got);
    expect(said).toBe(
      "not kept: 'b': the channel ch-b is not 1*d-private on line:3 as its result says: its effective eps is infinite",
    );
    expect(results.b!.notKept).toBe(
      'the channel ch-b is not 1*d-private on line:3 as its result says: its effective eps is infinite',
    );
    expect(results.a!.notKept).toBeUndefined();
    expect(results.a!.check).toEqual(hostCheck);
    expect((results.a!.result as MechanismResult).effectiveEpsilon).toBe(0.75);
    expect(results.a!.claimsNotChecked).toBe(
      'read from the project file: its privacy was checked here (effective eps 0.75 at eps 1); the LP bound and gap are as the file says, not checked',
    );
    expect(results.c!.claimsNotChecked).toBeUndefined();
  });
});
