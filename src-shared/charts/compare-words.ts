/**
 * The words of a comparison's typed notes (why a figure is missing or
 * qualified, what an optimal row's LP reached, why there is no planar Laplace
 * baseline), for the CLI's text and CSV output and the app's Compare view
 * alike: plain words first, the mathematics in `details` (a tooltip or a
 * details toggle where it is shown).
 */
import type { CompareBaselineNote, CompareNote, CompareResult, CompareRow } from '../protocol/index';
import { LOSS_WORDS } from './sweep-charts';
import { NO_BOUND_YET, isBound } from './lp-words';

/** A number with 3 significant digits (no exponent for ordinary sizes). */
export function sig3(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e6) return Number(x.toPrecision(3)).toString();
  return x.toPrecision(3);
}

/**
 * A figure set beside another (a row of the comparison table): 4 significant digits, trailing zeros kept, so that
 * 1.0993 and 1.1078 read 1.099 and 1.108 (at 3 digits, 1.1 and 1.11 look further apart than they are).
 */
export function sig4(x: number): string {
  if (x === 0) return '0';
  // no exponent for thousands of km (toPrecision(4) writes 12345 as 1.235e+4)
  return Math.abs(x) >= 1e3 && Math.abs(x) < 1e6 ? String(Math.round(x)) : x.toPrecision(4);
}

/** A note in words, with the mathematics behind it when there is some. */
interface NoteWords {
  text: string;
  details?: string;
}

/** "per km", or "per unit of distance" off grids. */
function perUnit(unit: string): string {
  return unit === 'd' ? 'per unit of distance' : `per ${unit}`;
}

/** One typed note of a row in words (`unit`: the result's distance unit, 'km' on grids, 'd' elsewhere). */
export function compareNoteWords(n: CompareNote, unit: string): NoteWords {
  const u = unit === 'd' ? '' : ` ${unit}`;
  switch (n.kind) {
    case 'tight-does-not-exist':
      return {
        text: `does not exist at ε = ${sig3(n.epsilon)}: its weights would have to be negative (smallest ${sig3(n.minZ)} at ${unit === 'd' ? 'point' : 'cell'} ${n.minZAt})`,
        details: `Φz = 1 has z[${n.minZAt}] = ${n.minZ} < 0, so no tight-constraints mechanism exists at ε = ${n.epsilon}`,
      };
    case 'not-built':
      return { text: `could not be built here: ${n.reason}` };
    case 'outputs-not-secrets':
      return {
        text: `its ${n.outputs} outputs are not the locations themselves, so there is no distance as released and no chance of reporting the true cell`,
      };
    case 'remap-within':
      return {
        text: `the distance with remap may be up to ${sig3(n.slack)}${u} more than the best remap's (on a large grid the remap looks only near each report)`,
        details: `windowed remap: remapped distance within +${n.slack}`,
      };
    case 'check-too-costly':
      return { text: `its effective privacy level was not computed: ${n.reason}` };
    case 'not-private-zero':
      return {
        text: 'NOT private as stored: some output is possible for one location and impossible for another, so seeing it rules the other location out',
        details: 'a positive entry C[x][y] faces C[x′][y] = 0 in the same column: infinite privacy loss',
      };
    case 'not-private-above':
      return {
        text: `NOT private as stored: its effective ε is ${sig3(n.effectiveEpsilon)} ${perUnit(unit)}, above the ${n.against === 'guaranteed' ? 'guaranteed' : "comparison's"} ${sig3(n.limit)}`,
        details: `largest ln(C[x][y] / C[x′][y]) / d(x, x′) = ${n.effectiveEpsilon} > ${n.limit}`,
      };
  }
}

/**
 * An optimal row's linear program in words: the expected loss it reached and how far from the best possible it may be.
 */
export function lpRecordWords(lp: NonNullable<CompareRow['lp']>, comparisonLoss?: string): NoteWords {
  const loss = LOSS_WORDS[(lp.loss ?? comparisonLoss) as keyof typeof LOSS_WORDS] ?? 'the custom loss matrix';
  const stopped = lp.stoppedBy === 'stopped' ? ', stopped early (the best private mechanism found so far)' : '';
  // A gap to a spanner's own bound is no bound on the best possible (older results do not say: the model decides).
  const exact = lp.gapBasis !== undefined ? lp.gapBasis === 'exact' : lp.model !== 'spanner';
  // a bound of 0 certifies nothing (losses are >= 0): a decomposition stopped before its pricing gave one reports 0
  const bound = isBound(lp.lowerBound) ? lp.lowerBound : null;
  const certified =
    lp.gap === null || bound === null
      ? 'no bound on the best possible was certified'
      : !exact
        ? `at most ${sig3(lp.gap * 100)}% above the ${lp.model} model's optimum; not checked against the best possible`
        : lp.gap <= 1e-9
          ? 'the best possible'
          : `at most ${sig3(lp.gap * 100)}% above the best possible`;
  return {
    text: `optimised for ${loss}${stopped}: expected loss ${sig3(lp.objective)}, ${certified}`,
    details: `LP (${lp.model} model): objective ${lp.objective.toPrecision(6)}, ${bound !== null ? `certified lower bound ${bound.toPrecision(6)}` : `lower bound ${NO_BOUND_YET}`}${lp.gap === null || bound === null ? '' : ` (gap ${(lp.gap * 100).toPrecision(3)}%)`}, stopped by ${lp.stoppedBy}`,
  };
}

/** Why there is no planar Laplace baseline, in words. */
export function baselineNoteWords(n: CompareBaselineNote | string): NoteWords {
  if (typeof n === 'string') return { text: n };
  switch (n.kind) {
    case 'not-a-grid':
      return { text: 'no comparison with planar Laplace: the domain is not a grid' };
    case 'failed':
      return { text: `no comparison with planar Laplace: ${n.reason}` };
    case 'degenerate':
      return {
        text: `no comparison with planar Laplace: its expected distance is ${n.expectedDistance === null ? 'not a finite number' : sig3(n.expectedDistance)}`,
      };
  }
}

/** A row's notes in words, the LP's record first (`loss`: the comparison's, for records that do not name theirs). */
export function compareRowNotes(row: CompareRow, unit: string, loss?: string): NoteWords[] {
  return [
    ...(row.lp ? [lpRecordWords(row.lp, loss)] : []),
    ...(row.notes ?? []).map((n) => compareNoteWords(n, unit)),
    ...(row.note === undefined ? [] : [{ text: row.note }]),
  ];
}

/** Every note of a comparison in words, each row's prefixed with its label, the baseline's last. */
export function compareNotes(r: CompareResult): NoteWords[] {
  const out: NoteWords[] = [];
  for (const row of r.rows)
    for (const w of compareRowNotes(row, r.unit, r.loss)) out.push({ ...w, text: `${row.label}: ${w.text}` });
  if (r.baselineNote) out.push(baselineNoteWords(r.baselineNote));
  return out;
}
