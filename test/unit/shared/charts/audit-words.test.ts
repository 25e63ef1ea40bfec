/** The words of an audit (the CLI's text and the app's Audit view): plain words, the formula apart. */
import { describe, expect, it } from 'vitest';
import {
  auditNoteWords,
  auditTestFormula,
  auditTestText,
  auditVerdictBadge,
  auditVerdictDetail,
  auditVerdictText,
  claimedEpsilonWords,
  detectionLines,
} from '../../../../src-shared/charts/audit-words';
import { auditResultSchema, type AuditResult, type AuditTestRecord } from '../../../../src-shared/protocol/index';

/** A witness on line:5: E = {0} seen 780 of 1000 times from 0, 150 of 1000 from 1. */
const WITNESS: AuditTestRecord = {
  secrets: ['0', '1'],
  indices: [0, 1],
  distance: 1,
  event: ['0'],
  eventIndices: [0],
  countA: 780,
  samplesA: 1000,
  countB: 150,
  samplesB: 1000,
  lowerA: 0.75,
  upperB: 0.18,
  bound: Math.log(0.75 / 0.18),
};

function result(fields: Partial<AuditResult>): AuditResult {
  return auditResultSchema.parse({
    type: 'audit',
    verdict: 'refuted',
    epsilon: 1.2,
    confidence: 0.95,
    epsilonLowerBound: WITNESS.bound,
    witness: WITNESS,
    tested: [WITNESS],
    samples: 2000,
    pairsTested: 1,
    selectionSamples: 0,
    estimationSamples: 2000,
    secretsSeen: 2,
    domain: 'line:5',
    domainPoints: 5,
    mode: 'labels',
    detection: {
      distance: 1,
      baseProbability: 0.18,
      tests: 1,
      rows: [
        { epsilon: 1.5, samplesPerSecret: 1234 },
        { epsilon: 1, samplesPerSecret: null },
      ],
    },
    timeMs: 5,
    ...fields,
  });
}

describe('audit words', () => {
  it("the app's badge names the verdict once, the line beside it says the rest (never 'refuted REFUTED')", () => {
    const r = result({ epsilon: 1.2 });
    expect(`${auditVerdictBadge(r)} ${auditVerdictDetail(r)}`).toBe(
      'claim refuted: with 95% confidence the effective ε is at least 1.427 per unit of distance, above the claimed 1.2: the mechanism protects less than claimed',
    );
    expect(auditVerdictBadge(result({ verdict: 'not-refuted', epsilon: 2 }))).toBe('claim not refuted:');
    expect(auditVerdictBadge(result({ verdict: 'not-tested', epsilon: 2 }))).toBe('not tested:');
  });

  it('says the verdict in words, ε as the one symbol', () => {
    expect(auditVerdictText(result({ epsilon: 1.2 }))).toBe(
      'REFUTED: with 95% confidence the effective ε is at least 1.427 per unit of distance, above the claimed 1.2: the mechanism protects less than claimed',
    );
    expect(auditVerdictText(result({ verdict: 'not-refuted', epsilon: 2, confidence: 0.99 }))).toBe(
      'not refuted: with 99% confidence the effective ε is at least 1.427 per unit of distance, not above the claimed 2: the samples do not contradict the claim',
    );
  });

  it('says plainly that nothing was tested when no pair could be, never as a pass', () => {
    const r = result({
      verdict: 'not-tested',
      epsilon: 1,
      epsilonLowerBound: 0,
      witness: null,
      tested: [],
      pairsTested: 0,
      secretsSeen: 1,
      note: { kind: 'too-few-secrets', secrets: 1 },
    });
    expect(auditVerdictText(r)).toBe(
      'not tested: the log has samples of 1 secret; an audit needs two (no verdict on the claimed ε = 1: these samples can neither refute nor support it)',
    );
  });

  it('words why nothing was tested from its numbers (one or more secrets; a sentence kept by an older version as it is)', () => {
    expect(auditNoteWords({ kind: 'too-few-secrets', secrets: 0 })).toBe(
      'the log has samples of 0 secrets; an audit needs two',
    );
    expect(auditNoteWords({ kind: 'too-few-sampled', sampled: 1, secrets: 2 })).toBe(
      '1 of the 2 secrets in the log has two samples or more; an audit needs two such secrets',
    );
    expect(auditNoteWords({ kind: 'too-few-sampled', sampled: 0, secrets: 3 })).toBe(
      '0 of the 3 secrets in the log have two samples or more; an audit needs two such secrets',
    );
    expect(auditNoteWords({ kind: 'no-usable-pair', sampled: 2 })).toBe(
      'no pair of the 2 secrets with two samples or more could be tested: it takes two secrets at a finite distance > 0, each with samples among both the selection and the estimation samples',
    );
    expect(auditNoteWords('the log has samples of 1 secret; an audit needs two')).toBe(
      'the log has samples of 1 secret; an audit needs two',
    );
  });

  it('says what the witness shows as how many times likelier the set E is for one secret, the formula apart', () => {
    expect(auditTestText(WITNESS)).toBe(
      'secrets 0 and 1, 1 apart, and a set E of 1 output: the released outputs in E are at least 4.167 times likelier for 0 than for 1 (released in E 780 of 1000 times from 0, 150 of 1000 times from 1), so ε is at least 1.427 per unit of distance',
    );
    expect(auditTestFormula(WITNESS)).toBe(
      'E = {0}: P(E | 0) ≥ 0.75 (780 of 1000), P(E | 1) ≤ 0.18 (150 of 1000), so ε ≥ ln(0.75 / 0.18) / 1 = 1.427',
    );
    // a test that shows nothing: no "times likelier", no bound
    const none = { ...WITNESS, event: ['0', '2'], countA: 0, lowerA: 0, bound: null };
    expect(auditTestText(none)).toBe(
      'secrets 0 and 1, 1 apart, and a set E of 2 outputs: the released outputs in E are not shown to be likelier for 0 than for 1 (released in E 0 of 1000 times from 0, 150 of 1000 times from 1)',
    );
    expect(auditTestFormula(none)).toBe('E = {0 2}: P(E | 0) ≥ 0 (0 of 1000), P(E | 1) ≤ 0.18 (150 of 1000)');
    for (const s of [auditTestText(WITNESS), auditVerdictText(result({}))])
      expect(s).not.toMatch(/P\(E \||\beps\b|>=|<=/);
  });

  it('lists the samples needed per violation size', () => {
    expect(detectionLines(result({}))).toEqual([
      '  true ε 1.5: 1234 samples per secret',
      '  true ε 1: not detectable (not above the claim, or over 10^9 samples)',
    ]);
  });

  it('the claimed ε as typed, its value to 4 significant digits beside an expression; a plain decimal as a number', () => {
    expect(claimedEpsilonWords(Math.log(4), 'ln 4')).toBe('ln 4 ≈ 1.386');
    expect(claimedEpsilonWords(0.5, ' 1/2 ')).toBe('1/2 = 0.5');
    expect(claimedEpsilonWords(0.13862943611198905, '0.13862943611198905')).toBe('0.138629');
    expect(claimedEpsilonWords(1.2)).toBe('1.2');
    expect(auditVerdictDetail(result({ epsilon: Math.log(4) }), 'ln 4')).toBe(
      'with 95% confidence the effective ε is at least 1.427 per unit of distance, above the claimed ln 4 ≈ 1.386: the mechanism protects less than claimed',
    );
    expect(
      auditVerdictText(result({ verdict: 'not-tested', epsilon: Math.log(4), note: 'one secret only' }), 'ln 4'),
    ).toBe(
      'not tested: one secret only (no verdict on the claimed ε = ln 4 ≈ 1.386: these samples can neither refute nor support it)',
    );
  });
});
