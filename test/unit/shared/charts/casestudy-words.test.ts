/**
 * Case-study findings worded from their typed records (src-shared/charts/casestudy-words.ts, geo-words.ts), with
 * numbers.
 */
import { describe, expect, it } from 'vitest';
import { caseStudyDetailWords, caseStudyFindingWords } from '../../../../src-shared/charts/casestudy-words';
import { caseStudyFindingsSchema, type FindingsOf } from '../../../../src-shared/protocol/index';

const registration: FindingsOf<'registration-date'> = {
  kind: 'registration-date',
  days: 100,
  scale: 5,
  aMax: 20,
  aLast: 20,
  mid: 50,
  curves: [{ eps: 1, rr0: 0.9912345, rrLast: 0.8, tg10: 0.05, tgLast: 0.001, tg90: 7, rr90: null, rrMid: 0.49 }],
};

describe('case-study words', () => {
  it('words a record: numbers to four digits, a missing figure as "more than" the range', () => {
    const said = caseStudyFindingWords(registration);
    expect(said).toHaveLength(4);
    expect(said[1]).toBe(
      '- ε = 1: randomised response reports the exact date with probability 0.008765 and is within 20 days with probability at least 0.2; the 5-day mechanism is within 10 days with probability 0.95, within 20 days with 0.999. Within how many days it is right 90% of the time: 7 with the 5-day mechanism against more than 20 with randomised response.',
    );
    expect(said[2]).toContain('at ε = 1 it is more than 50 days off with probability 0.49');
    expect(caseStudyDetailWords(registration)[0]).toContain('randomised response on 101 values');
    expect(caseStudyDetailWords(registration)[0]).toContain('b(0) = 0.9912 at ε = 1');
  });

  it('capacities: the rows of each family, the largest difference to the closed forms', () => {
    const r = caseStudyFindingsSchema.parse({
      kind: 'capacities',
      epsilon: Math.LN2,
      rows: [
        ['lines', 'line:2', 2, 4 / 3, 1 / 3, Math.log2(4 / 3), 4 / 3 + 1e-9, null, 'closed form for lines'],
        ['grids', 'grid:2x2:metric=manhattan', 4, 1.8, 0.5, Math.log2(1.8), null, null, ''],
      ],
    });
    const said = caseStudyFindingWords(r);
    expect(said[1]).toBe('- Lines leak more the longer they are (2 values: 0.415 bits).');
    expect(said[3]).toMatch(/^- Grids: 2 x 2 Manhattan: 0\.848 bits; /);
    expect(said[4]).toBe('- The linear program agrees with every known formula (largest difference 1e-9).');
  });

  it('a part has no findings; a record of no known study is refused', () => {
    expect(caseStudyFindingWords(undefined)).toEqual([]);
    expect(caseStudyDetailWords(undefined)).toEqual([]);
    expect(caseStudyFindingsSchema.safeParse({ kind: 'poll', findings: ['a sentence'] }).success).toBe(false);
  });
});
