/** The words of an audit result, for the CLI's text output and the app's Audit view alike. */
import type { AuditResult, AuditTestRecord } from '../protocol/index';
import { fmt } from './result-table';

/** One line: the verdict on the claim, with the bound and its confidence. */
export function auditVerdictText(r: AuditResult): string {
  const pct = `${fmt(r.confidence * 100, 6)}%`;
  return r.verdict === 'refuted'
    ? `REFUTED: the effective eps is at least ${fmt(r.epsilonLowerBound, 4)} per unit of distance (${pct} confidence), above the claimed ${fmt(r.epsilon)}`
    : `not refuted: the samples show eps of at least ${fmt(r.epsilonLowerBound, 4)} per unit of distance (${pct} confidence), not above the claimed ${fmt(r.epsilon)}`;
}

/** The event as text: its outputs, the first `max` of them. */
export function eventText(t: AuditTestRecord, max = 8): string {
  const shown = t.event.slice(0, max).join(' ');
  return t.event.length > max ? `{${shown} ... (${t.event.length} outputs)}` : `{${shown}}`;
}

/** What a test shows: P(E|a) >= lowerA, P(E|b) <= upperB, so eps >= bound. */
export function auditTestText(t: AuditTestRecord): string {
  return `secrets ${t.secrets[0]} and ${t.secrets[1]} (distance ${fmt(t.distance)}), event E = ${eventText(t)}: P(E | ${t.secrets[0]}) >= ${fmt(t.lowerA, 4)} (${t.countA} of ${t.samplesA}), P(E | ${t.secrets[1]}) <= ${fmt(t.upperB, 4)} (${t.countB} of ${t.samplesB})${t.bound === null ? '' : `, so eps >= ${fmt(t.bound, 4)}`}`;
}

/** How many samples per secret detect a violation of each size (true eps). */
export function detectionLines(r: AuditResult): string[] {
  const d = r.detection;
  return d.rows.map(
    (row) =>
      `  true eps ${fmt(row.epsilon, 4)}: ${row.samplesPerSecret === null ? 'not detectable (not above the claim, or over 10^9 samples)' : `${row.samplesPerSecret} samples per secret`}`,
  );
}
