/** The optimal LP's pricing threads, one rule for every caller (src-worker/lp/pricing/lp-threads.ts). */
import { describe, expect, it } from 'vitest';
import { lpThreads, withDefaultLpThreads } from '../../../../../src-worker/lp/pricing/lp-threads';
import { parseJobRequest } from '../../../../../src-shared/protocol/validate';
import type { JobRequest } from '../../../../../src-shared/protocol/requests';

describe('pricing threads', () => {
  it('on a host pool: the pool size when left out, a requested count at most the pool, 1..64; an asked count kept', () => {
    expect(lpThreads(undefined, { pool: 4 })).toBe(4);
    expect(lpThreads(undefined, { pool: 2, requested: 8 })).toBe(2); // --threads 8 on a 2-core machine
    expect(lpThreads(undefined, { pool: 8, requested: 3 })).toBe(3);
    expect(lpThreads(undefined, { pool: 1000 })).toBe(64);
    expect(lpThreads(undefined, { pool: 0 })).toBe(1);
    expect(lpThreads(undefined, { pool: 2.7 })).toBe(2);
    expect(lpThreads(5, { pool: 2 })).toBe(5); // the request's lpThreads is its own choice
  });

  it('for a direct caller: every core from 100 x 100 variables, one thread below', () => {
    expect(lpThreads(undefined, { variables: 9999, cores: 8 })).toBe(1);
    expect(lpThreads(undefined, { variables: 10_000, cores: 8 })).toBe(8);
    expect(lpThreads(undefined, { variables: 10_000, cores: 0 })).toBe(1);
    expect(lpThreads(3, { variables: 10, cores: 8 })).toBe(3);
  });

  it('the host fills lpThreads with its pool size when an optimal request leaves it out, and only then', () => {
    const base = { type: 'mechanism', domain: 'grid:3x3', epsilon: 1, kind: 'optimal' } as JobRequest;
    expect(withDefaultLpThreads({ ...base } as JobRequest, { pool: 2 })).toMatchObject({ lpThreads: 2 });
    expect(withDefaultLpThreads({ ...base, lpThreads: 1 } as JobRequest, { pool: 8 })).toMatchObject({ lpThreads: 1 });
    expect(withDefaultLpThreads({ ...base, kind: 'tight' } as JobRequest, { pool: 2 })).not.toHaveProperty('lpThreads');
    const measure = { type: 'measure', mechanism: { domain: 'line:4', epsilon: 1, kind: 'optimal' } } as JobRequest;
    expect(
      (withDefaultLpThreads(measure, { pool: 3 }) as { mechanism: { lpThreads: number } }).mechanism.lpThreads,
    ).toBe(3);
    expect(withDefaultLpThreads({ ...base } as JobRequest, { pool: 1000 })).toMatchObject({ lpThreads: 64 });
    expect(parseJobRequest(withDefaultLpThreads({ ...base } as JobRequest, { pool: 2 })).ok).toBe(true);
    // a comparison's optimal rows built from their kind get it too; a given mechanism keeps its own construction
    const compare = {
      type: 'compare',
      domain: 'grid:3x3',
      epsilon: 1,
      mechanisms: [
        { kind: 'optimal' },
        { kind: 'optimal', lpThreads: 1 },
        { kind: 'tight' },
        { kind: 'optimal', mechanism: { domain: 'grid:3x3', epsilon: 1, kind: 'optimal' } },
      ],
    } as JobRequest;
    expect((withDefaultLpThreads(compare, { pool: 4 }) as { mechanisms: unknown[] }).mechanisms).toEqual([
      { kind: 'optimal', lpThreads: 4 },
      { kind: 'optimal', lpThreads: 1 },
      { kind: 'tight' },
      { kind: 'optimal', mechanism: { domain: 'grid:3x3', epsilon: 1, kind: 'optimal' } },
    ]);
  });

  it('a command line asking for more threads than its cores fills the cores', () => {
    const req = { type: 'mechanism', domain: 'grid:3x3', epsilon: 1, kind: 'optimal' } as JobRequest;
    expect(withDefaultLpThreads({ ...req } as JobRequest, { pool: 2, requested: 8 })).toMatchObject({ lpThreads: 2 });
  });
});
