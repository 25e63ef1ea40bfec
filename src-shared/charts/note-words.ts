/**
 * Result notes in words, the one place they are written (the app, the CLI, summary.md and the charts' lines under
 * their titles): the engine returns each note as a typed value (src-shared/protocol/notes.ts); a note kept by an
 * earlier version as one sentence is shown as recorded.
 */
import type {
  ApplyNote,
  CapacityNote,
  JobResult,
  RegularityNote,
  SimplexNote,
  StoredSweepNote,
  ThresholdNote,
} from '../protocol/index';

/** Six significant digits (the regularity check's own precision). */
function six(v: number | null): string {
  if (v === null) return 'n/a';
  return Number.isFinite(v) ? Number(v.toPrecision(6)).toString() : String(v);
}

/** A number as a line of the page shows it: three significant digits when it has four decimals or more. */
function brief(v: number | null): string {
  if (v === null) return 'n/a';
  const s = String(v);
  const dot = s.indexOf('.');
  const decimals = dot < 0 ? 0 : s.slice(dot + 1).split('e')[0]!.length;
  return decimals >= 4 ? String(Number(v.toPrecision(3))) : s;
}

/** How regularity was decided, in words (`num` writes the numbers: six significant digits by default). */
export function regularityNoteWords(
  n: RegularityNote,
  num: (v: number | null) => string = six,
  eps: (v: number) => string = String,
): string {
  switch (n.kind) {
    case 'regular':
      return `mu Phi = pi has a non-negative solution (smallest component ${num(n.minMu)} at ${n.minMuAt}), so the prior is regular`;
    case 'not-regular':
      return `the prior is not regular for ${n.domain} at epsilon ${eps(n.epsilon)}: it lies outside the region of regular priors (a mix of the corner priors with no negative weight), since as a mix of them it needs the weight ${num(n.minMu)} on the corner prior of ${n.minMuAt}`;
    case 'singular':
      return n.regular
        ? 'Phi is singular; an LP found mu >= 0 with mu Phi = pi, so the prior is regular'
        : 'Phi is singular; the LP found no mu >= 0 with mu Phi = pi, so the prior is not regular';
  }
}

/**
 * Why a sweep point or bound is missing, in words: 'full' (the page, the chart's legend notes), 'short' (its first
 * clause without the domain and eps the line says already: under a chart's title), or 'table' (the table's note
 * column, which names the point's `eps`).
 */
export function sweepNoteWords(
  n: StoredSweepNote,
  register: 'full' | 'short' | 'table' = 'full',
  eps?: number,
): string {
  if (typeof n === 'string') return n;
  switch (n.kind) {
    case 'tight-does-not-exist':
      if (register === 'table')
        return `Phi z = 1 has z[${n.minZAt}] = ${n.minZ} < 0, so no tight-constraints mechanism exists at eps = ${eps}`;
      return register === 'full'
        ? `no tight-constraints mechanism exists: its weight at ${n.minZAt} would be ${brief(n.minZ)} < 0`
        : 'no tight-constraints mechanism exists';
    case 'bounds-too-costly':
      return register === 'short'
        ? 'not computed, too costly on this domain'
        : `not computed, too costly on this domain: ${n.reason}`;
    case 'failed':
      return n.message;
    default:
      if (register === 'table') return regularityNoteWords(n);
      if (register === 'short' && n.kind === 'not-regular') return 'the prior is not regular there';
      return regularityNoteWords(n, brief, brief);
  }
}

/** What qualifies a threshold search's answer, in words. */
export function thresholdNoteWords(n: ThresholdNote, r: { from: number; to: number; step: number }): string {
  return n.kind === 'none-in-range'
    ? `no tight-constraints mechanism exists for eps in [${r.from}, ${r.to}] on a grid of step ${r.step}`
    : `it already exists at the lower end of the range (eps = ${r.from}); the true threshold may be lower`;
}

/** What qualifies a release, in words. */
export function applyNoteWords(n: ApplyNote): string {
  switch (n.kind) {
    case 'seeded-stream':
      return 'seeded stream (--seed): NOT FOR RELEASE; the file starts with a comment line saying so';
  }
}

/** Why the explorer has no simplex view, in words (a sentence kept by an earlier version: as recorded). */
export function simplexNoteWords(n: SimplexNote | string): string {
  if (typeof n === 'string') return n;
  return n.kind === 'needs-three-points'
    ? `The simplex view needs a domain of 3 points (this one has ${n.points}).`
    : n.message;
}

/**
 * Why a capacity-table row's cells are empty, in words: also the message of the refusal it records (a sentence kept by
 * an earlier version: as recorded).
 */
export function capacityNoteWords(n: CapacityNote | string): string {
  if (typeof n === 'string') return n;
  switch (n.kind) {
    case 'too-many-points':
      return `n = ${n.n} > ${n.limit}`;
    case 'ratio-overflow':
      return `privacy-type explorer: e^(eps d) overflows for d(${n.a}, ${n.b}) = ${n.distance} at eps = ${n.epsilon}`;
    case 'too-many-rays':
      return `vertex enumeration: more than ${n.maxRays} extreme rays while adding constraint ${n.constraint} of ${n.constraints}`;
    case 'too-many-subsets':
      return `kernel enumeration for ${n.domain} at eps = ${n.epsilon} could examine up to ${n.upperBound} vertex subsets (subsets of at most ${n.n} of ${n.vertices} vertices), over the limit of ${n.maxSubsets}; use a smaller domain or raise maxSubsets`;
    case 'refused':
      return n.message;
  }
}

/**
 * A regular, threshold or apply result's notes in words, one line each (a result kept by an earlier version: its note
 * as recorded).
 */
export function resultNoteLines(r: JobResult): string[] {
  const recorded = 'note' in r && typeof r.note === 'string' ? [r.note] : [];
  switch (r.type) {
    case 'regular':
      return r.regularity ? [regularityNoteWords(r.regularity)] : recorded;
    case 'threshold':
      return r.notes ? r.notes.map((n) => thresholdNoteWords(n, r)) : recorded;
    case 'apply':
      return (r.notes ?? []).map(applyNoteWords);
    default:
      return recorded;
  }
}
