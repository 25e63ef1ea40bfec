/**
 * The words of the study report (src-shared/report/study-report.ts): what each mechanism's privacy rests on, what
 * a kept result is worth, files, releases and the budget. A privacy verdict is never worded on the unsafe side: a
 * channel that any check found not private is "NOT private", whatever else is recorded; one with no check and no
 * guarantee by construction is "not checked".
 */
import type { Recheck, ReportBudgetRow, ReportFile, ReportMechanism } from '../report/study-report';
import { lpResultWords } from './lp-words';

/** An eps as the report writes it: 4 significant digits, no trailing zeros (ln 4 is 1.386, 0.5 is 0.5). */
export const epsWords = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : 'infinite');
const epsText = epsWords;

/** Whether the report holds evidence that the channel is not private at its eps (any check, kept or run now). */
export function foundNotPrivate(m: ReportMechanism): boolean {
  if (m.recheck.kind === 'checked' && !m.recheck.check.private) return true;
  return m.keptCheck !== undefined && !m.keptCheck.private;
}

/**
 * The guarantee in one line: NOT private / private: checked now / checked when computed / by construction / not
 * checked.
 */
export function privacyWords(m: ReportMechanism): string {
  if (m.state === 'not-computed') return 'not computed: no channel, no figures and no check in this study';
  const now = m.recheck.kind === 'checked' ? m.recheck.check : null;
  const at = (e: number): string =>
    `ε = ${epsText(e)}${e > m.epsilon * (1 + 1e-12) ? ` (its construction's guarantee, weaker than the ε = ${epsText(m.epsilon)} asked for)` : ''}`;
  if (now && !now.private)
    return `NOT private at ${at(now.epsilon)}: the privacy check run for this report measured an effective ε of ${epsText(now.effectiveEpsilon)}`;
  if (m.keptCheck && !m.keptCheck.private)
    return `NOT private at ${at(m.keptCheck.epsilon)}: its kept privacy check measured an effective ε of ${epsText(m.keptCheck.effectiveEpsilon)}`;
  if (now)
    return `private at ${at(now.epsilon)}: checked for this report (effective ε ${epsText(now.effectiveEpsilon)})`;
  if (m.keptCheck)
    return `private at ${at(m.keptCheck.epsilon)}: checked when computed (effective ε ${epsText(m.keptCheck.effectiveEpsilon)}, as kept in the project)`;
  const g = m.result?.guaranteedEpsilon ?? null;
  if (m.kind !== 'optimal' && g !== null)
    return `private by construction at ${at(Math.max(g, m.epsilon))} (not checked)`;
  return `not checked: no privacy check is kept and none could be run for this report, so nothing here says it is private at ε = ${epsText(m.epsilon)}`;
}

/** What the check run for this report did, in words. */
export function recheckWords(r: Recheck): string {
  switch (r.kind) {
    case 'checked':
      return r.check.private
        ? `checked again for this report: private at ε = ${epsText(r.check.epsilon)} (effective ε ${epsText(r.check.effectiveEpsilon)})`
        : `checked again for this report: NOT private at ε = ${epsText(r.check.epsilon)} (effective ε ${epsText(r.check.effectiveEpsilon)})`;
    case 'failed':
      return `the check run for this report failed: ${r.message}`;
    case 'not-rechecked':
      return {
        'no-channel': 'not checked again: its channel is not kept with the project (only its figures are)',
        'not-kept-here':
          'not checked again: its kept channel is not beside the project file (the NAME.channels folder)',
        'not-computed': 'not checked: not computed',
        'no-checker': 'not checked again when this report was made',
      }[r.reason];
  }
}

/** What an LP's kept result is, in the app's words (certified within X%, or no bound). */
export function lpWords(m: ReportMechanism): string | null {
  return m.result?.lp ? lpResultWords(m.result.lp) : null;
}

/** What a kept result is worth against the project's inputs. */
export const STATE_WORDS: Record<ReportMechanism['state'], string> = {
  'not-computed': 'not computed',
  current: 'kept, computed from the current inputs',
  stale: 'STALE: its inputs changed after it was computed; its figures are for the old inputs',
  kept: 'kept as recorded (not compared with the current inputs here: the app marks stale results)',
};

/** A file as read: its size and SHA-256, or why it could not be read. */
export function fileWords(f: ReportFile): string {
  return f.ok ? `${f.size.toLocaleString('en-US')} bytes, SHA-256 ${f.sha256}` : `not readable now: ${f.problem}`;
}

/** The randomness of a release. */
export const RANDOMNESS_WORDS: Record<'crypto' | 'seeded', string> = {
  crypto: 'node:crypto (cryptographic)',
  seeded: 'seeded test stream (reproducible: not for a real release)',
};

/** A population's budget line. */
export function budgetWords(b: ReportBudgetRow): string {
  if (b.budget === null) return `spent ε = ${epsText(b.spent)}; no budget set`;
  if (b.spent > b.budget) return `OVER BUDGET: spent ε = ${epsText(b.spent)} of ${epsText(b.budget)}`;
  return `spent ε = ${epsText(b.spent)} of ${epsText(b.budget)} (${epsText(b.budget - b.spent)} left)`;
}
