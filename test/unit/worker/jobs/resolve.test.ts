/**
 * Protocol inputs at the engine's boundary (src-worker/jobs/resolve.ts): a bad loss is one message naming its entry.
 */
import { describe, expect, it } from 'vitest';
import { resolveLoss } from '../../../../src-worker/jobs/resolve';
import { MechError } from '../../../../src-shared/errors';
import { runJob } from '../../support/run-job';

/** A 2 x 2 loss matrix with -0.5 at guess row 2, secret column 1. */
const negative = { kind: 'matrix' as const, rows: 2, cols: 2, data: [0, 1, -0.5, 0] };
const MESSAGE = 'loss matrix entry (row 2, column 1) is -0.5: a loss must be >= 0';

describe('losses entering the engine', () => {
  it('a negative entry is refused, naming its row, column and value', () => {
    let e: unknown = null;
    try {
      resolveLoss(negative);
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(MechError);
    expect((e as MechError).code).toBe('invalid-input');
    expect((e as MechError).message).toBe(MESSAGE);
  });

  it('a job with a negative loss fails with that line, and 0 entries (and -0) are accepted', async () => {
    const channel = { rows: 2, cols: 2, data: [0.75, 0.25, 0.25, 0.75], rowLabels: ['a', 'b'], colLabels: ['a', 'b'] };
    await expect(runJob({ type: 'measure', channel, loss: negative })).rejects.toThrow(MESSAGE);
    const r = await runJob<'measure'>({
      type: 'measure',
      channel,
      loss: { kind: 'matrix', rows: 2, cols: 2, data: [-0, 1, 1, 0] },
    });
    expect(r.expectedLoss).toBeCloseTo(0.25, 14);
  });
});
