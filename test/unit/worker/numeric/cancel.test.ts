/** The engine's one cancellation check (src-worker/numeric/cancel.ts). */
import { describe, expect, it } from 'vitest';
import { cancelledError, checkCancelled } from '../../../../src-worker/numeric/cancel';
import { checkCancelled as jobCheck } from '../../../../src-worker/jobs/context';
import { checkAbort } from '../../../../src-worker/casestudy/study';
import { MechError } from '../../../../src-shared/errors';

describe('checkCancelled', () => {
  it('passes while the signal is live or absent, throws MechError cancelled once aborted', () => {
    const c = new AbortController();
    expect(() => checkCancelled(c.signal)).not.toThrow();
    expect(() => checkCancelled(undefined)).not.toThrow();
    c.abort();
    let thrown: unknown;
    try {
      checkCancelled(c.signal, 'remap cancelled');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(MechError);
    expect((thrown as MechError).code).toBe('cancelled');
    expect((thrown as MechError).message).toBe('remap cancelled');
    expect(() => checkCancelled(c.signal)).toThrow('job cancelled');
    expect(cancelledError().message).toBe('job cancelled');
  });
  it('the job context and the case studies use the same helper', () => {
    expect(jobCheck).toBe(checkCancelled);
    expect(checkAbort).toBe(checkCancelled);
  });
});
