/** Every badge from its result: one test per state of the sidebar's status (lib/status.ts). */
import { describe, expect, it } from 'vitest';
import { itemStatus, STATUS_WORDS, type ItemStatus } from '../../../../src-renderer/lib/status';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import type { CheckResult, MechanismResult } from '../../../../src-shared/protocol/results';

const mechanism = (exists: boolean): MechanismResult =>
  ({
    type: 'mechanism',
    exists,
    effectiveEpsilon: exists ? 1 : null,
    guaranteedEpsilon: exists ? 1 : null,
  }) as unknown as MechanismResult;
const check = (priv: boolean): CheckResult => ({
  type: 'check',
  epsilon: 1,
  effectiveEpsilon: priv ? 0.9 : 1.7,
  private: priv,
  violations: [],
});

describe('item status', () => {
  const cases: [string, ItemResult | undefined, ItemStatus, boolean?][] = [
    ['nothing computed', undefined, ''],
    ['running', { status: 'running' }, 'running'],
    ['cancelled', { status: 'error', error: { code: 'cancelled', message: 'cancelled' } }, 'cancelled'],
    [
      'a privacy check over the size limit: no verdict, not a failure',
      { status: 'error', error: { code: 'too-large', message: 'over the limit' } },
      'not-checked',
      true,
    ],
    [
      'a mechanism too large to compute is a failure',
      { status: 'error', error: { code: 'too-large', message: 'over the limit' } },
      'error',
    ],
    ['failed', { status: 'error', error: { code: 'invalid-input', message: 'bad' } }, 'error'],
    [
      'the last Compute failed: the earlier result (and its green tick) is not what was asked',
      { status: 'done', result: mechanism(true), check: check(true), failed: 'bad' },
      'error',
    ],
    ['kept channel gone', { status: 'done', result: mechanism(true), notKept: 'gone' }, 'not-kept'],
    ['does not exist: not green', { status: 'done', result: mechanism(false) }, 'absent'],
    ['its check found a violation', { status: 'done', result: mechanism(true), check: check(false) }, 'not-private'],
    ['a check analysis that says not private', { status: 'done', result: check(false) }, 'not-private', true],
    ['stale', { status: 'done', result: mechanism(true), stale: true }, 'stale'],
    ['computed and private', { status: 'done', result: mechanism(true), check: check(true) }, 'done'],
    ['a check analysis that says private', { status: 'done', result: check(true) }, 'done', true],
  ];
  for (const [what, r, want, privacyCheck] of cases)
    it(what, () => {
      expect(itemStatus(r, privacyCheck)).toBe(want);
      expect(STATUS_WORDS[want].length).toBeGreaterThan(0);
    });
});
