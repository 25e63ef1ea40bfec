/**
 * A sweep result (utility, leakage and the chosen loss of each mechanism
 * against eps, with the regular-prior bounds of SPEC §5) as charts and a
 * table: pure data, drawn by chart-config.ts in the app (SpecChart) and to
 * PNG by the CLI (render-chart.ts), so both show the same picture.
 *
 * - every curve the sweep computed is plotted: utility, leakage and, when a
 *   loss was chosen, its expected value under the optimal remap;
 * - a missing point is explained on the chart (a note under the title and
 *   the legend entry), with its note in words (note-words.ts);
 * - bounds are dashed, black and drawn over the curves, and the curve that
 *   attains a bound says so in its legend entry.
 */
import { type ChartSeries, type ChartSpec, type StoredSweepNote, type SweepResult } from '../protocol/index';
import { sweepNoteWords } from './note-words';
import { BOUND_ATTAINED_TOL } from '../numeric/tolerance';

/** Mechanism colours (Okabe-Ito without black, which is the bounds' colour). */
export const SWEEP_COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#999999', '#8C564B'];
export const BOUND_COLOR = '#000000';

export interface SweepChartOptions {
  /** Display name of a mechanism kind (default: the kind). */
  kindLabel?: (kind: string) => string;
  /** The chosen loss in words, e.g. "distance between guess and truth". */
  lossLabel?: string;
  /** Unit of the loss values, e.g. "km" (distance on a grid of km cells). */
  lossUnit?: string;
  /** Prefix of the chart ids (the analysis id). */
  id?: string;
  /** x axis label (default ε). */
  xLabel?: string;
}

/** Each built-in loss in words (the menus of the app and the charts' titles): what a guess costs. */
export const LOSS_WORDS: Record<'bin' | 'nib' | 'dist' | 'dist2', string> = {
  bin: 'wrong guesses (1 for a wrong guess)',
  nib: 'right guesses (1 for a right guess)',
  dist: 'distance between guess and truth',
  dist2: 'squared distance between guess and truth',
};

/**
 * The chosen loss in words and its unit: distances on a grid are in km (the
 * grid's cell size is in km), squared distances in km². `loss` is the
 * analysis' loss (a name, a matrix, or none); `domain` the result's domain text.
 */
export function lossWords(loss: unknown, domain: string): Pick<SweepChartOptions, 'lossLabel' | 'lossUnit'> {
  if (loss === undefined || loss === null || loss === '') return {};
  const name = typeof loss === 'string' ? loss : 'matrix';
  const grid = domain.startsWith('grid:');
  const unit = grid && name === 'dist' ? 'km' : grid && name === 'dist2' ? 'km²' : undefined;
  return {
    lossLabel: LOSS_WORDS[name as keyof typeof LOSS_WORDS] ?? 'the custom loss matrix',
    ...(unit ? { lossUnit: unit } : {}),
  };
}

/** Per point: does the curve equal the bound there (both defined, within BOUND_ATTAINED_TOL relative)? */
export function attainedAt(
  curve: readonly (number | null)[],
  bound: readonly (number | null)[],
  tol = BOUND_ATTAINED_TOL,
): boolean[] {
  return curve.map((c, k) => {
    const b = bound[k];
    if (c === null || c === undefined || b === null || b === undefined || !Number.isFinite(c) || !Number.isFinite(b))
      return false;
    return Math.abs(c - b) <= tol * Math.max(1, Math.abs(b));
  });
}

interface Run {
  /** First and last eps of a run of consecutive points. */
  from: number;
  to: number;
  count: number;
  /** The note of the run (its last point's: nearest the points that exist), if any. */
  note: StoredSweepNote | null;
}

/** Consecutive runs of indices where flag[k] holds, as eps ranges with the note of their last point. */
function runsOf(
  epsilons: readonly number[],
  flag: (k: number) => boolean,
  notes?: readonly (StoredSweepNote | null | undefined)[],
): Run[] {
  const out: Run[] = [];
  let start = -1;
  for (let k = 0; k <= epsilons.length; k++) {
    const on = k < epsilons.length && flag(k);
    if (on && start < 0) start = k;
    if (!on && start >= 0) {
      out.push({
        from: epsilons[start]!,
        to: epsilons[k - 1]!,
        count: k - start,
        note: notes?.[k - 1] ?? notes?.slice(start, k).find((n) => n) ?? null,
      });
      start = -1;
    }
  }
  return out;
}

/** Points of a series that are missing (null or not finite). */
export function missingRuns(
  epsilons: readonly number[],
  values: readonly (number | null)[],
  notes?: readonly (StoredSweepNote | null)[],
): Run[] {
  return runsOf(epsilons, (k) => values[k] === null || values[k] === undefined || !Number.isFinite(values[k]!), notes);
}

const g = (x: number): string => String(Number(x.toPrecision(3)));

/** "ε = 1.5" or "ε 0.5–1.4" (or "all ε" when the run covers the whole sweep). */
export function rangeText(r: Run, all: readonly number[], x = 'ε'): string {
  if (r.count === all.length) return `all ${x}`;
  if (r.count === 1) return `${x} = ${g(r.from)}`;
  if (r.from === all[0]) return `${x} ≤ ${g(r.to)}`;
  if (r.to === all[all.length - 1]) return `${x} ≥ ${g(r.from)}`;
  return `${x} ${g(r.from)}–${g(r.to)}`;
}

function seriesLabel(kind: string, opts: SweepChartOptions): string {
  return opts.kindLabel?.(kind) ?? kind;
}

type Metric = 'utility' | 'leakage' | 'expectedLoss';

/**
 * Why points are missing and where the bound is not given: one line per run
 * of missing points, with its note in words (in full, or its first clause
 * for the chart itself).
 */
export function sweepNotes(r: SweepResult, metric: Metric, opts: SweepChartOptions = {}, full = true): string[] {
  const x = opts.xLabel ?? 'ε';
  const say = (n: StoredSweepNote): string => sweepNoteWords(n, full ? 'full' : 'short');
  const notes: string[] = [];
  for (const s of r.series) {
    const values = s[metric];
    if (!values) continue;
    for (const run of missingRuns(r.epsilons, values, s.notes)) {
      notes.push(
        `${seriesLabel(s.kind, opts)}: no point for ${rangeText(run, r.epsilons, x)}${run.note ? ` (${say(run.note)})` : ''}`,
      );
    }
  }
  if (metric !== 'expectedLoss') {
    for (const run of missingRuns(r.epsilons, r.bounds[metric], r.bounds.notes)) {
      notes.push(
        `bound: none for ${rangeText(run, r.epsilons, x)} (${run.note ? say(run.note) : 'the prior is not regular there, so the theorem does not apply'})`,
      );
    }
  }
  return notes;
}

/** Legend text of a curve: its name, where it attains the bound, where it has no point. */
function curveLabel(r: SweepResult, s: SweepResult['series'][number], metric: Metric, opts: SweepChartOptions): string {
  const x = opts.xLabel ?? 'ε';
  const values = s[metric] ?? [];
  const parts: string[] = [];
  if (metric !== 'expectedLoss') {
    const at = attainedAt(values, r.bounds[metric]);
    const runs = runsOf(r.epsilons, (k) => at[k]!);
    if (runs.length) parts.push(`attains the bound for ${runs.map((u) => rangeText(u, r.epsilons, x)).join(', ')}`);
  }
  const miss = missingRuns(r.epsilons, values);
  if (miss.length && miss.reduce((n, u) => n + u.count, 0) < r.epsilons.length)
    parts.push(`no point for ${miss.map((u) => rangeText(u, r.epsilons, x)).join(', ')}`);
  else if (miss.length) parts.push('no point, see the note');
  const name = seriesLabel(s.kind, opts);
  return parts.length ? `${name} (${parts.join('; ')})` : name;
}

function chart(
  r: SweepResult,
  metric: Metric,
  opts: SweepChartOptions,
  title: string,
  yLabel: string,
  boundLabel: string | null,
): ChartSpec {
  const series: ChartSeries[] = [];
  r.series.forEach((s, k) => {
    const y = s[metric];
    if (!y) return;
    series.push({
      label: curveLabel(r, s, metric, opts),
      x: r.epsilons,
      y,
      color: SWEEP_COLORS[k % SWEEP_COLORS.length]!,
      ...(r.epsilons.length <= 40 ? { points: true, width: 2 } : {}),
    });
  });
  if (metric !== 'expectedLoss' && boundLabel) {
    const b = r.bounds[metric];
    if (b.some((v) => v !== null)) {
      const by = r.series
        .filter((s) => attainedAt(s[metric] ?? [], b).some(Boolean))
        .map((s) => seriesLabel(s.kind, opts));
      series.push({
        label: by.length ? `${boundLabel}, attained by ${by.join(', ')}` : boundLabel,
        x: r.epsilons,
        y: b,
        dashed: true,
        color: BOUND_COLOR,
        width: 2.5,
        onTop: true,
      });
    }
  }
  const notes = sweepNotes(r, metric, opts, false);
  const id = `${opts.id ?? 'sweep'}-${metric === 'expectedLoss' ? 'expected-loss' : metric}`;
  return {
    id,
    title,
    type: 'line',
    xLabel: opts.xLabel ?? 'ε',
    yLabel,
    series,
    ...(notes.length ? { notes } : {}),
    ...(metric === 'leakage' ? {} : { yMin: 0 }),
  };
}

/** Does the sweep carry the chosen loss (a loss was given)? */
function hasExpectedLoss(r: SweepResult): boolean {
  return r.series.some((s) => s.expectedLoss !== undefined);
}

/** The charts of a sweep: utility, leakage, and the chosen loss when one was given. */
export function sweepCharts(r: SweepResult, opts: SweepChartOptions = {}): ChartSpec[] {
  const out: ChartSpec[] = [];
  if (hasExpectedLoss(r)) {
    const what = opts.lossLabel ?? 'the chosen loss';
    const unit = opts.lossUnit ? ` (${opts.lossUnit})` : '';
    out.push(chart(r, 'expectedLoss', opts, `Expected loss: ${what}, optimal remap`, `expected loss${unit}`, null));
  }
  out.push(
    chart(
      r,
      'utility',
      opts,
      `Utility (probability of a right guess, optimal remap)`,
      'utility',
      'utility bound (regular prior)',
    ),
  );
  out.push(chart(r, 'leakage', opts, `Min-entropy leakage`, 'leakage (bits)', 'leakage bound (regular prior)'));
  return out;
}

/** The sweep as a table (CSV): every series the sweep computed, the bounds, and why points are missing. */
export function sweepTable(
  r: SweepResult,
  opts: SweepChartOptions = {},
): { header: string[]; rows: (number | string | null)[][] } {
  const unit = opts.lossUnit ? ` (${opts.lossUnit})` : '';
  const header = ['epsilon'];
  for (const s of r.series) {
    const n = seriesLabel(s.kind, opts);
    if (s.expectedLoss) header.push(`${n} expected loss${unit}`);
    header.push(`${n} utility`, `${n} leakage (bits)`, `${n} note`);
  }
  header.push('utility bound', 'leakage bound (bits)', 'bound note');
  const rows = r.epsilons.map((e, k) => {
    const row: (number | string | null)[] = [e];
    for (const s of r.series) {
      if (s.expectedLoss) row.push(s.expectedLoss[k] ?? null);
      row.push(s.utility[k] ?? null, s.leakage[k] ?? null, tableNote(s.notes?.[k], e));
    }
    row.push(r.bounds.utility[k] ?? null, r.bounds.leakage[k] ?? null, tableNote(r.bounds.notes?.[k], e));
    return row;
  });
  return { header, rows };
}

/** A point's note in the table's words, or an empty cell. */
function tableNote(n: StoredSweepNote | null | undefined, eps: number): string | null {
  return n === null || n === undefined ? null : sweepNoteWords(n, 'table', eps);
}
