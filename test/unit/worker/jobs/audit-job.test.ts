/** The audit job in-process (protocol request -> samples read -> audit -> protocol result, checked by its schema). */
import { describe, expect, it } from 'vitest';
import type { AuditResult } from '../../../../src-shared/protocol/index';
import { runJob } from '../../support/run-job';

const audit = (text: string): Promise<AuditResult> => runJob<'audit'>({ type: 'audit', domain: 'line:5', epsilon: 1, text });

describe('audit job', () => {
  it('a log of one secret is not tested: 0 pairs, no witness, the reason as its note', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `2,${i % 5}`).join('\n');
    const r = await audit(`secret,released\n${rows}\n`);
    expect(r.verdict).toBe('not-tested');
    expect(r.pairsTested).toBe(0);
    expect(r.witness).toBeNull();
    expect(r.epsilonLowerBound).toBe(0);
    expect(r.note).toBe('the log has samples of 1 secret; an audit needs two');
  });
});
