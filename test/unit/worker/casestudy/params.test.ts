/**
 * Case-study parameters are validated by zod schemas in the protocol
 * (src-shared/protocol/casestudy.ts CASE_STUDY_PARAMS): defaults filled,
 * one message naming the parameter for bad input, unknown names refused.
 */
import { describe, expect, it } from 'vitest';
import { CASE_STUDY_PARAMS, parseStudyParams } from '../../../../src-shared/protocol/casestudy';
import { CASE_STUDIES } from '../../../../src-worker/casestudy';
import { studyParams } from '../../../../src-worker/casestudy/study';

const message = (r: ReturnType<typeof parseStudyParams>): string => (r.ok ? 'ok' : r.message);

describe('case-study parameters', () => {
  it('one schema per study, the same names as the studies', () => {
    expect(Object.keys(CASE_STUDY_PARAMS).sort()).toEqual(Object.keys(CASE_STUDIES).sort());
  });

  it('defaults are filled and given values kept', () => {
    const g = studyParams('geo', { size: 12, skipCity: true });
    expect(g).toMatchObject({
      size: 12,
      from: 0.4,
      to: 1.3,
      step: 0.1,
      citySide: 20,
      cityEpsilons: [0.5, 1],
      lpCoarsen: 2,
      skipCity: true,
      exactLp: true,
      fullLp: true,
      fullExactLp: false,
      fullLpTimeLimit: 900,
    });
    expect(g.population).toBeUndefined();
    expect(studyParams('voting', {}).epsilon).toBe(Math.LN2);
    expect(studyParams('capacities', { maxLine: 7 })).toEqual({ epsilon: Math.LN2, maxHamming: 5, maxLine: 7 });
  });

  it('bad values get one message naming the parameter and the rule', () => {
    expect(message(parseStudyParams('geo', { size: 2.5 }))).toBe(
      "case-study parameter 'size' must be an integer, got 2.5",
    );
    expect(message(parseStudyParams('geo', { size: 1 }))).toBe("case-study parameter 'size' must be >= 2, got 1");
    expect(message(parseStudyParams('geo', { to: 21 }))).toBe("case-study parameter 'to' must be <= 20, got 21");
    expect(message(parseStudyParams('geo', { size: 'big' }))).toBe(
      'case-study parameter \'size\' must be a number, got "big"',
    );
    expect(message(parseStudyParams('geo', { cityEpsilons: [] }))).toBe(
      "case-study parameter 'cityEpsilons' must be a non-empty list of numbers",
    );
    expect(message(parseStudyParams('geo', { skipCity: 'yes' }))).toBe(
      "case-study parameter 'skipCity' must be true or false",
    );
    expect(message(parseStudyParams('smart-meter', {}))).toBe(
      "case-study parameter 'trace' is missing (a list of readings in watts)",
    );
    expect(message(parseStudyParams('leakage-bounds', { values: [2, 'x' as unknown as number] }))).toBe(
      "case-study parameter 'values' must be a non-empty list of universe sizes v >= 2",
    );
  });

  it('an unknown name is refused first, with the known ones', () => {
    expect(message(parseStudyParams('voting', { epsilonn: 1, epsilon: -1 }))).toBe(
      "case study 'voting' has no parameter 'epsilonn' (known: epsilon, cityPrior, votePrior)",
    );
  });

  it('through the study: an invalid-input MechError', () => {
    let code = '';
    try {
      studyParams('capacities', { maxHamming: 8 });
    } catch (e) {
      code = (e as { code: string }).code;
    }
    expect(code).toBe('invalid-input');
  });
});
