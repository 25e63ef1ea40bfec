/** The notes of cheap constructions that do not apply, in the words the LP card's candidate table shows. */
import { describe, expect, it } from 'vitest';
import { tightMissingNote } from '../../../../src-worker/jobs/cheap-candidates';

describe('cheap candidates: notes', () => {
  it('a tight-constraints mechanism that does not exist says why in plain words (no "Phi z = 1 has a negative z")', () => {
    expect(tightMissingNote('(8,1)')).toBe(
      'does not exist at this ε: its output weight at (8,1) would have to be negative',
    );
  });
});
