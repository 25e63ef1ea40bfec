/**
 * The words of an audit result, for the CLI's text output and the app's Audit
 * view alike: plain words first (how many times likelier a set of released
 * outputs is for one secret than for another), the formula behind a test in
 * auditTestFormula (the app's tooltip and details toggle, the CLI's line under
 * the witness).
 */
import type { AuditNote, AuditResult, AuditTestRecord } from '../protocol/index';
import { fmt } from './result-table';

/** The verdict's own words (the app's badge): said once, the detail follows it. */
export function auditVerdictBadge(r: AuditResult): string {
  return r.verdict === 'refuted'
    ? 'claim refuted:'
    : r.verdict === 'not-refuted'
      ? 'claim not refuted:'
      : 'not tested:';
}

/** A plain decimal as typed ("1.5", "2e-1"): shown as a number (as before), with nothing beside it. */
const PLAIN_DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The claimed ε as the user typed it ("ln 4"), with its value to 4 significant digits beside an expression
 * ("ln 4 ≈ 1.386", "1/2 = 0.5"); the number alone for a plain decimal or when nothing was typed (the CLI's
 * decimal, the built-in example).
 */
export function claimedEpsilonWords(epsilon: number, typed?: string | null): string {
  const t = typed?.trim();
  if (!t || PLAIN_DECIMAL.test(t)) return fmt(epsilon);
  const v = fmt(epsilon, 4);
  return `${t} ${Number(v) === epsilon ? '=' : '≈'} ${v}`;
}

/** Why no pair could be tested, in one line (a sentence kept by an earlier version: as recorded). */
export function auditNoteWords(n: AuditNote | string): string {
  if (typeof n === 'string') return n;
  switch (n.kind) {
    case 'too-few-secrets':
      return `the log has samples of ${n.secrets} secret${n.secrets === 1 ? '' : 's'}; an audit needs two`;
    case 'too-few-sampled':
      return `${n.sampled} of the ${n.secrets} secrets in the log ${n.sampled === 1 ? 'has' : 'have'} two samples or more; an audit needs two such secrets`;
    case 'no-usable-pair':
      return `no pair of the ${n.sampled} secrets with two samples or more could be tested: it takes two secrets at a finite distance > 0, each with samples among both the selection and the estimation samples`;
  }
}

/**
 * What the verdict rests on: the bound with its confidence, or why nothing could be tested. `claimText` is the
 * claimed ε as typed (a project's audit keeps it), shown instead of the bare number.
 */
export function auditVerdictDetail(r: AuditResult, claimText?: string | null): string {
  const pct = `${fmt(r.confidence * 100, 6)}%`;
  const claim = claimedEpsilonWords(r.epsilon, claimText);
  if (r.verdict === 'not-tested')
    return `${r.note === undefined ? 'no pair of secrets could be tested' : auditNoteWords(r.note)} (no verdict on the claimed ε = ${claim}: these samples can neither refute nor support it)`;
  return r.verdict === 'refuted'
    ? `with ${pct} confidence the effective ε is at least ${fmt(r.epsilonLowerBound, 4)} per unit of distance, above the claimed ${claim}: the mechanism protects less than claimed`
    : `with ${pct} confidence the effective ε is at least ${fmt(r.epsilonLowerBound, 4)} per unit of distance, not above the claimed ${claim}: the samples do not contradict the claim`;
}

/**
 * One line (the CLI's): the verdict on the claim, with the bound and its confidence; or that nothing could be tested,
 * and why.
 */
export function auditVerdictText(r: AuditResult, claimText?: string | null): string {
  const head = r.verdict === 'refuted' ? 'REFUTED' : r.verdict === 'not-refuted' ? 'not refuted' : 'not tested';
  return `${head}: ${auditVerdictDetail(r, claimText)}`;
}

/** The event as text: its outputs, the first `max` of them. */
export function eventText(t: AuditTestRecord, max = 8): string {
  const shown = t.event.slice(0, max).join(' ');
  return t.event.length > max ? `{${shown} ... (${t.event.length} outputs)}` : `{${shown}}`;
}

/** "1 output" or "12 outputs". */
function outputs(n: number): string {
  return `${n} output${n === 1 ? '' : 's'}`;
}

/**
 * What a test shows, in words: the released outputs in the set E are at least lowerA / upperB times likelier for
 * secret a than for secret b (both bounds exact at the audit's confidence), so ε is at least the bound.
 */
export function auditTestText(t: AuditTestRecord): string {
  const [a, b] = t.secrets;
  const seen = `released in E ${t.countA} of ${t.samplesA} times from ${a}, ${t.countB} of ${t.samplesB} times from ${b}`;
  const head = `secrets ${a} and ${b}, ${fmt(t.distance)} apart, and a set E of ${outputs(t.event.length)}`;
  if (t.bound === null || t.bound <= 0)
    return `${head}: the released outputs in E are not shown to be likelier for ${a} than for ${b} (${seen})`;
  return `${head}: the released outputs in E are at least ${fmt(t.lowerA / t.upperB, 4)} times likelier for ${a} than for ${b} (${seen}), so ε is at least ${fmt(t.bound, 4)} per unit of distance`;
}

/** The formula behind a test: the exact bounds on the two probabilities of E and the ε they imply. */
export function auditTestFormula(t: AuditTestRecord): string {
  const [a, b] = t.secrets;
  return `E = ${eventText(t)}: P(E | ${a}) ≥ ${fmt(t.lowerA, 4)} (${t.countA} of ${t.samplesA}), P(E | ${b}) ≤ ${fmt(t.upperB, 4)} (${t.countB} of ${t.samplesB})${t.bound === null ? '' : `, so ε ≥ ln(${fmt(t.lowerA, 4)} / ${fmt(t.upperB, 4)}) / ${fmt(t.distance)} = ${fmt(t.bound, 4)}`}`;
}

/** How many samples per secret detect a violation of each size (true ε). */
export function detectionLines(r: AuditResult): string[] {
  const d = r.detection;
  return d.rows.map(
    (row) =>
      `  true ε ${fmt(row.epsilon, 4)}: ${row.samplesPerSecret === null ? 'not detectable (not above the claim, or over 10^9 samples)' : `${row.samplesPerSecret} samples per secret`}`,
  );
}
