/**
 * The optimal LP in the app: editor fields of an optimal mechanism
 * (privacy model, delta, time limit, target gap, pricing threads; numbers or
 * expressions), validated in plain words before Compute; the request options they give; and how the
 * typed LP record and progress samples read (labels, units, chart series).
 * Pure functions: unit-tested.
 */
import { gapPercent } from '../../src-shared/charts/lp-words';
import {
  type LpModelChoice,
  type LpOptions,
  type LpSample,
  MAX_LP_THREADS,
  MAX_LP_TIME_LIMIT_SECONDS,
  checkedLpOption,
  definedLpOptions,
} from '../../src-shared/protocol/index';
import { evaluateNumberExpression } from '../../src-shared/numeric/number-expression';

export type { LpModelChoice };

export const LP_MODEL_LABELS: Record<LpModelChoice, string> = {
  auto: 'auto (edges where the domain has them, else exact)',
  exact: 'exact (all pairs: the true optimum)',
  spanner: 'spanner (faster, within δ; no bound on the best possible above 256 places)',
  edges: 'edges (graph metrics)',
};

/** The LP fields of a project mechanism: the protocol's LP options. */
export type LpFields = LpOptions;

/** What the user typed (strings; empty = the default). */
export interface LpText {
  lpModel: LpModelChoice;
  delta: string;
  timeLimit: string;
  gapPercent: string;
  threads: string;
}

export type LpFieldErrors = Partial<Record<'delta' | 'timeLimit' | 'gapPercent' | 'threads', string>>;

/** Stored fields -> editor text. */
export function lpText(f: LpFields): LpText {
  return {
    lpModel: f.lpModel ?? 'auto',
    delta: f.delta === undefined ? '' : String(f.delta),
    timeLimit: f.timeLimitSeconds === undefined ? '' : String(f.timeLimitSeconds),
    gapPercent: f.targetGap === undefined ? '' : String(Number((f.targetGap * 100).toPrecision(12))),
    threads: f.lpThreads === undefined ? '' : String(f.lpThreads),
  };
}

/**
 * A field's number (a decimal or an expression such as 1/3, 2e-3 or ln 4), null when empty, or why the text is none.
 */
function num(s: string, what: string): number | null | { problem: string } {
  const t = s.trim();
  if (t === '') return null;
  const r = evaluateNumberExpression(t);
  return r.ok
    ? r.value
    : { problem: `${what}: “${t}” is not a number or an expression such as 1/3 or ln 4 (${r.problem})` };
}

/**
 * Each text field: the option it gives (checked by the protocol's schema), its name in messages, and its refusal in
 * plain words.
 */
const TEXT_FIELDS = {
  delta: {
    key: 'delta',
    what: 'δ',
    refused: 'δ (the spanner’s dilation) must be a number from 1 to 10, e.g. 1.1',
    fromText: (v: number) => v,
  },
  timeLimit: {
    key: 'timeLimitSeconds',
    what: 'the time limit',
    refused: `the time limit must be a number of seconds above 0 and at most ${MAX_LP_TIME_LIMIT_SECONDS} s (a week); leave it empty for no limit`,
    fromText: (v: number) => v,
  },
  gapPercent: {
    key: 'targetGap',
    what: 'the target gap',
    refused: 'the target gap is a percentage above 0 and below 100, e.g. 1 for 1%',
    fromText: (v: number) => Number((v / 100).toPrecision(12)), // 99.9% -> 0.999, not 0.9990000000000001
  },
  threads: {
    key: 'lpThreads',
    what: 'threads',
    refused: `threads must be a whole number from 1 to ${MAX_LP_THREADS}`,
    fromText: (v: number) => v,
  },
} as const satisfies Record<
  keyof LpFieldErrors,
  { key: keyof LpOptions; what: string; refused: string; fromText: (v: number) => number }
>;

/**
 * Editor text -> the fields to store, or the errors in plain words (one per
 * field). Empty fields mean the default and are left out; δ is kept only for
 * the spanner. Every field takes a number or an expression; the protocol's
 * schema decides what it accepts (checkedLpOption).
 */
export function parseLpText(t: LpText): { ok: true; fields: LpFields } | { ok: false; errors: LpFieldErrors } {
  const errors: LpFieldErrors = {};
  const fields: Record<string, unknown> = {};
  if (t.lpModel !== 'auto') fields.lpModel = t.lpModel;
  for (const [name, f] of Object.entries(TEXT_FIELDS) as [
    keyof LpFieldErrors,
    (typeof TEXT_FIELDS)[keyof LpFieldErrors],
  ][]) {
    if (name === 'delta' && t.lpModel !== 'spanner') continue;
    const v = num(t[name], f.what);
    if (v === null) continue;
    if (typeof v !== 'number') errors[name] = v.problem;
    else {
      const checked = checkedLpOption(f.key, f.fromText(v));
      if (checked === null) errors[name] = f.refused;
      else fields[f.key] = checked;
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, fields: fields as LpFields };
}

/**
 * The LP options of a request for a stored mechanism (δ only where the model can be the spanner); the host fills
 * lpThreads with its pool size.
 */
export function lpRequestOptions(m: { kind: string } & LpFields): LpFields {
  if (m.kind !== 'optimal') return {};
  const o = definedLpOptions(m);
  if (m.lpModel === 'exact' || m.lpModel === 'edges') delete o.delta;
  return o;
}

/** The unit of an expected loss: km on grids (distance losses), else distance units; a probability for bin/nib. */
export function lossUnit(loss: unknown, isGrid: boolean): string {
  if (loss === 'dist') return isGrid ? 'km' : 'distance units';
  if (loss === 'dist2') return isGrid ? 'km²' : 'squared distance units';
  return '';
}

/** Why the LP ended, in words (one place: src-shared/charts/lp-words.ts). */
export { STOPPED_BY_TEXT, stoppedByWords } from '../../src-shared/charts/lp-words';

/** A relative gap as a percentage people read (0.0123 -> "1.23%", 3e-7 -> "0.00003%"). */
export const gapText = gapPercent;

export interface ConvergencePoint {
  /** seconds since the solve started */
  t: number;
  objective: number;
  bound: number | null;
  /** relative gap, null before the first certified bound */
  gap: number | null;
}

/** Chart points from a result's history or live samples (in time order; a negative bound is still a bound). */
export function convergencePoints(
  h: ReadonlyArray<Pick<LpSample, 'elapsedMs' | 'objective' | 'bound' | 'gap'>>,
): ConvergencePoint[] {
  const out: ConvergencePoint[] = [];
  for (const p of h) {
    if (!Number.isFinite(p.objective) || !Number.isFinite(p.elapsedMs)) continue;
    const bound = p.bound !== null && Number.isFinite(p.bound) ? p.bound : null;
    const gap = bound !== null && p.gap !== null && Number.isFinite(p.gap) ? Math.max(0, p.gap) : null;
    out.push({ t: p.elapsedMs / 1000, objective: p.objective, bound, gap });
  }
  out.sort((a, b) => a.t - b.t);
  return out;
}

/**
 * A y range that shows the whole convergence without letting far-off early
 * bounds (0, or negative, before the first useful pricing round) flatten it:
 * from the highest objective down to the last bound, and three times that
 * height below it (never below 0 when the losses are >= 0); bounds further
 * down are clipped at the bottom edge. null: let the chart choose.
 */
export function convergenceRange(pts: readonly ConvergencePoint[]): { min: number; max: number } | null {
  if (pts.length === 0) return null;
  const last = pts[pts.length - 1]!;
  let maxObj = -Infinity;
  let minY = Infinity;
  for (const p of pts) {
    maxObj = Math.max(maxObj, p.objective);
    minY = Math.min(minY, p.objective, p.bound ?? Infinity);
  }
  const lastLow = Math.min(last.bound ?? last.objective, last.objective);
  const height = Math.max(maxObj - lastLow, Math.abs(last.objective) * 1e-3, 1e-12);
  // losses >= 0: the axis never goes below 0 (a negative early bound is clipped, no "-0.0" tick)
  const floor = last.objective >= 0 && minY <= 0 ? 0 : -Infinity;
  const min = Math.max(Math.max(minY, lastLow - 3 * height) - 0.03 * height, floor);
  const max = maxObj + 0.03 * height;
  return max > min ? { min, max } : null;
}
