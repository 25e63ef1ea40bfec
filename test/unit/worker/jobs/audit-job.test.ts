/** The audit job in-process (protocol request -> samples read -> audit -> protocol result, checked by its schema). */
import { describe, expect, it } from 'vitest';
import type { AuditResult } from '../../../../src-shared/protocol/index';
import { auditNoteWords } from '../../../../src-shared/charts/audit-words';
import { runJob } from '../../support/run-job';

const audit = (text: string): Promise<AuditResult> =>
  runJob<'audit'>({ type: 'audit', domain: 'line:5', epsilon: 1, text });

describe('audit job', () => {
  it("samples sent as text with their file's name: a bad released value names the file and says it is the released value", async () => {
    const req = {
      type: 'audit' as const,
      domain: 'line:5',
      epsilon: 1,
      text: 'secret,released\n1,2\n1,9\n',
      name: 'vendor-log.csv',
    };
    await expect(runJob<'audit'>(req)).rejects.toThrow(
      'samples CSV vendor-log.csv, line 3: the released value is not a point of line:5 (nothing is dropped: fix or remove the row)',
    );
  });

  it('a log of one secret is not tested: 0 pairs, no witness, the reason as its note', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `2,${i % 5}`).join('\n');
    const r = await audit(`secret,released\n${rows}\n`);
    expect(r.verdict).toBe('not-tested');
    expect(r.pairsTested).toBe(0);
    expect(r.witness).toBeNull();
    expect(r.epsilonLowerBound).toBe(0);
    expect(r.note).toEqual({ kind: 'too-few-secrets', secrets: 1 });
    expect(auditNoteWords(r.note!)).toBe('the log has samples of 1 secret; an audit needs two');
  });
});
