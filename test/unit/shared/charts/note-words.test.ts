/** Result notes worded from their typed values (src-shared/charts/note-words.ts), with numbers. */
import { describe, expect, it } from 'vitest';
import {
  capacityNoteWords,
  regularityNoteWords,
  resultNoteLines,
  sweepNoteWords,
  thresholdNoteWords,
  applyNoteWords,
} from '../../../../src-shared/charts/note-words';
import { sweepNoteSchema, thresholdResultSchema } from '../../../../src-shared/protocol/index';

describe('note words', () => {
  it('regularity: the smallest mu and where, to six digits; the LP when Phi is singular', () => {
    expect(regularityNoteWords({ kind: 'regular', minMu: 0.0123456789, minMuAt: '2' })).toBe(
      'mu Phi = pi has a non-negative solution (smallest component 0.0123457 at 2), so the prior is regular',
    );
    expect(
      regularityNoteWords({ kind: 'not-regular', domain: 'line:3', epsilon: 0.1, minMu: -0.41234567, minMuAt: '1' }),
    ).toBe(
      'the prior is not regular for line:3 at epsilon 0.1: it lies outside the region of regular priors (a mix of the corner priors with no negative weight), since as a mix of them it needs the weight -0.412346 on the corner prior of 1',
    );
    expect(regularityNoteWords({ kind: 'singular', regular: false })).toBe(
      'Phi is singular; the LP found no mu >= 0 with mu Phi = pi, so the prior is not regular',
    );
  });

  it('sweep notes: full, short and table registers; numbers of four decimals or more to three digits on the page', () => {
    const notRegular = {
      kind: 'not-regular',
      domain: 'grid:3x3',
      epsilon: 0.123456,
      minMu: -0.000104006,
      minMuAt: '(1,1)',
    } as const;
    expect(sweepNoteWords(notRegular)).toBe(
      'the prior is not regular for grid:3x3 at epsilon 0.123: it lies outside the region of regular priors (a mix of the corner priors with no negative weight), since as a mix of them it needs the weight -0.000104 on the corner prior of (1,1)',
    );
    expect(sweepNoteWords(notRegular, 'table')).toContain('at epsilon 0.123456:');
    expect(sweepNoteWords({ kind: 'tight-does-not-exist', minZ: -0.5, minZAt: '3' })).toBe(
      'no tight-constraints mechanism exists: its weight at 3 would be -0.5 < 0',
    );
    expect(sweepNoteWords({ kind: 'bounds-too-costly', reason: '15 dense solves' })).toBe(
      'not computed, too costly on this domain: 15 dense solves',
    );
    expect(sweepNoteWords({ kind: 'bounds-too-costly', reason: '15 dense solves' }, 'short')).toBe(
      'not computed, too costly on this domain',
    );
    expect(sweepNoteWords({ kind: 'failed', message: 'too large' }, 'short')).toBe('too large');
    // the protocol refuses a note of no known kind
    expect(sweepNoteSchema.safeParse({ kind: 'because' }).success).toBe(false);
  });

  it('threshold and apply notes; a result kept by an earlier version shows its sentence as recorded', () => {
    const range = { from: 0.5, to: 2, step: 0.25 };
    expect(thresholdNoteWords({ kind: 'none-in-range' }, range)).toBe(
      'no tight-constraints mechanism exists for eps in [0.5, 2] on a grid of step 0.25',
    );
    expect(thresholdNoteWords({ kind: 'at-lower-end' }, range)).toBe(
      'it already exists at the lower end of the range (eps = 0.5); the true threshold may be lower',
    );
    expect(applyNoteWords({ kind: 'seeded-stream' })).toBe(
      'seeded stream (--seed): NOT FOR RELEASE; the file starts with a comment line saying so',
    );
    const now = thresholdResultSchema.parse({
      type: 'threshold',
      domain: 'line:3',
      epsilon: 0.5,
      ...range,
      notes: [{ kind: 'at-lower-end' }],
    });
    expect(resultNoteLines(now)).toEqual([
      'it already exists at the lower end of the range (eps = 0.5); the true threshold may be lower',
    ]);
    const kept = thresholdResultSchema.parse({
      type: 'threshold',
      domain: 'line:3',
      epsilon: null,
      ...range,
      note: 'as it was written',
    });
    expect(resultNoteLines(kept)).toEqual(['as it was written']);
  });

  it("a capacity row's refusal in words, from its numbers (a sentence kept by an older version as recorded)", () => {
    expect(capacityNoteWords({ kind: 'too-many-points', n: 12, limit: 10 })).toBe('n = 12 > 10');
    expect(capacityNoteWords({ kind: 'ratio-overflow', a: '0', b: '4', distance: 4, epsilon: 200 })).toBe(
      'privacy-type explorer: e^(eps d) overflows for d(0, 4) = 4 at eps = 200',
    );
    expect(capacityNoteWords({ kind: 'too-many-rays', maxRays: 50, constraint: 7, constraints: 12 })).toBe(
      'vertex enumeration: more than 50 extreme rays while adding constraint 7 of 12',
    );
    expect(
      capacityNoteWords({
        kind: 'too-many-subsets',
        domain: 'line:7',
        epsilon: 0.5,
        upperBound: 1234,
        maxSubsets: 1000,
        vertices: 64,
        n: 7,
      }),
    ).toBe(
      'kernel enumeration for line:7 at eps = 0.5 could examine up to 1234 vertex subsets (subsets of at most 7 of 64 vertices), over the limit of 1000; use a smaller domain or raise maxSubsets',
    );
    expect(capacityNoteWords({ kind: 'refused', message: 'too large' })).toBe('too large');
    expect(capacityNoteWords('n = 7 > 5')).toBe('n = 7 > 5');
  });
});
