/**
 * Which results still belong to the inputs (lib/stale-results.ts): by the hash of the inputs each was computed from.
 */
import { describe, expect, it } from 'vitest';
import { invalidate, refreshOne, refreshStale } from '../../../../src-renderer/lib/stale-results';
import { itemHash } from '../../../../src-renderer/lib/kept-results';
import type { ItemResult } from '../../../../src-renderer/lib/item-result';
import { doneResult, townProject } from '../../support/state-fixture';

describe('stale results', () => {
  it('an edit makes a result stale (its failure stays); undoing it makes it current again and forgets the failure', () => {
    const p = townProject();
    const results: Record<string, ItemResult> = { pl: { ...doneResult(itemHash(p, 'pl')), failed: 'worker crashed' } };
    p.mechanisms![0]!.epsilon = 2;
    refreshStale(p, results);
    expect([results.pl!.stale, results.pl!.failed]).toEqual([true, 'worker crashed']);
    p.mechanisms![0]!.epsilon = 1;
    refreshStale(p, results);
    expect([results.pl!.stale, results.pl!.failed]).toEqual([false, undefined]);
  });

  it('an error is dropped once its inputs change; a running result is left alone', () => {
    const p = townProject();
    const results: Record<string, ItemResult> = {
      pl: { status: 'error', error: { code: 'invalid-input', message: 'bad' }, hash: itemHash(p, 'pl')! },
      reg: { status: 'running' },
    };
    refreshStale(p, results);
    expect(Object.keys(results)).toEqual(['pl', 'reg']);
    p.mechanisms![0]!.epsilon = 3;
    p.analyses![1] = { ...p.analyses![1]!, epsilon: 3 } as never;
    refreshStale(p, results);
    expect(results).toEqual({ reg: { status: 'running' } });
  });

  it('invalidating a domain marks its mechanisms, their analyses and its analyses stale, and drops an unhashed error', () => {
    const p = townProject();
    const results: Record<string, ItemResult> = {
      pl: doneResult(undefined),
      m: doneResult(undefined),
      reg: { status: 'error', error: { code: 'too-large', message: 'too big' } },
    };
    invalidate(p, results, 'domain', 'town');
    expect([results.pl!.stale, results.m!.stale, 'reg' in results]).toEqual([true, true, false]);
  });

  it('invalidating a mechanism whose result still hashes the same leaves it current; its measure too', () => {
    const p = townProject();
    const results: Record<string, ItemResult> = {
      pl: doneResult(itemHash(p, 'pl')),
      m: doneResult(itemHash(p, 'm')),
      reg: doneResult(undefined),
    };
    invalidate(p, results, 'mechanism', 'pl');
    expect([results.pl!.stale, results.m!.stale, results.reg!.stale]).toEqual([false, false, undefined]);
  });

  it('refreshOne marks the result stale when the inputs changed while it was computed', () => {
    const p = townProject();
    const results: Record<string, ItemResult> = { pl: doneResult(itemHash(p, 'pl')) };
    refreshOne(p, results, 'pl');
    expect(results.pl!.stale).toBe(false);
    p.mechanisms![0]!.epsilon = 0.5;
    refreshOne(p, results, 'pl');
    expect(results.pl!.stale).toBe(true);
  });
});
