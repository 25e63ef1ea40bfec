/**
 * A mechanism result's typed notes in words: one renderer for the CLI's `note` and the app's card; older sentences as
 * recorded.
 */
import { describe, expect, it } from 'vitest';
import { mechanismNotes, mechanismNotesText, mechanismNoteWords } from '../../../../src-shared/charts/mechanism-notes';
import { mechanismResultSchema } from '../../../../src-shared/protocol/index';
import { mechanismOnLine } from '../../support/construction-facts';

describe('mechanism notes in words', () => {
  it('says each note in words, the formula only in its details', () => {
    expect(mechanismNoteWords({ kind: 'stored-above', effective: 1.25, guaranteed: 1 })).toEqual({
      text: 'NOT private as stored: the stored probabilities reach an effective ε of 1.25, above the guaranteed 1 (precision lost in probabilities below 1e-308)',
      details: 'largest ln(C[x][y] / C[x′][y]) / d(x, x′) over the stored doubles = 1.25 > 1',
    });
    expect(
      mechanismNoteWords({ kind: 'effective-eps-not-computed', reason: 'the check needs 4e10 comparisons' }).text,
    ).toBe('effective ε not computed: the check needs 4e10 comparisons');
    for (const n of [{ kind: 'loss-not-finite' }, { kind: 'stored-underflow', guaranteed: 10 }] as const)
      expect(mechanismNoteWords(n).text).not.toMatch(/\beps\b|C\[|ln\(|exp\(/);
  });

  it('joins the notes in order for the CLI, the sentence of an older result last; none gives undefined', () => {
    const r = {
      notes: [{ kind: 'stored-underflow', guaranteed: 3 } as const, { kind: 'loss-not-finite' } as const],
      note: 'as an older version said it',
    };
    expect(mechanismNotes(r).map((w) => w.text.slice(0, 24))).toEqual([
      'NOT private as stored: s',
      'expected loss not report',
      'as an older version said',
    ]);
    expect(mechanismNotesText(r)).toMatch(
      /^NOT private as stored: .*; expected loss not reported: .*; as an older version said it$/,
    );
    expect(mechanismNotesText({})).toBeUndefined();
  });

  it('the protocol refuses a note of an unknown kind', () => {
    const base = { ...mechanismOnLine('rr', 2, 1, 0.7), guarantee: 'closed form', facts: { kind: 'none' } };
    expect(mechanismResultSchema.safeParse({ ...base, notes: [{ kind: 'loss-not-finite' }] }).success).toBe(true);
    expect(mechanismResultSchema.safeParse({ ...base, notes: [{ kind: 'bogus' }] }).success).toBe(false);
  });
});
