/**
 * A mechanism result's typed notes in words, for the CLI and the app: what the
 * user needs first, the mathematics in `details`. Results kept by an older
 * version carry one sentence (`note`), shown as recorded.
 */
import type { MechanismNote, MechanismResult } from '../protocol/index';

interface MechanismNoteWords {
  text: string;
  details?: string;
}

export function mechanismNoteWords(n: MechanismNote): MechanismNoteWords {
  switch (n.kind) {
    case 'loss-not-finite':
      return {
        text: 'expected loss not reported: it is not a finite number (infinite distances, or loss values whose sums overflow a 64-bit float)',
      };
    case 'effective-eps-not-computed':
      return { text: `effective ε not computed: ${n.reason}` };
    case 'stored-underflow':
      return {
        text: 'NOT private as stored: some probabilities are too small for 64-bit floats and are stored as 0 next to positive ones, so an output can rule a location out; the guarantee holds only for the exact values (use a smaller ε or a smaller domain)',
        details: `entries below about 1e-308 (e.g. exp(−ε d) at large ε d) are 0 in doubles: an infinite privacy loss; the ${n.guaranteed}·d guarantee is about the exact values`,
      };
    case 'stored-above':
      return {
        text: `NOT private as stored: the stored probabilities reach an effective ε of ${n.effective}, above the guaranteed ${n.guaranteed} (precision lost in probabilities below 1e-308)`,
        details: `largest ln(C[x][y] / C[x′][y]) / d(x, x′) over the stored doubles = ${n.effective} > ${n.guaranteed}`,
      };
  }
}

/** Every note of a result in words, in order (the older sentence last). */
export function mechanismNotes(r: Pick<MechanismResult, 'notes' | 'note'>): MechanismNoteWords[] {
  return [...(r.notes ?? []).map(mechanismNoteWords), ...(r.note === undefined ? [] : [{ text: r.note }])];
}

/** The notes as one line (the CLI's `note`), or undefined when there are none. */
export function mechanismNotesText(r: Pick<MechanismResult, 'notes' | 'note'>): string | undefined {
  const w = mechanismNotes(r);
  return w.length ? w.map((x) => x.text).join('; ') : undefined;
}
