/**
 * Shared pieces of the case studies: parameters through their
 * protocol schemas, eps grids, number formatting for titles, and the result shape of
 * protocol/casestudy.ts. Each study is plain engine code: it calls the same
 * constructions and measures as the jobs do.
 */
import type { z } from 'zod';
import { invalid } from '../../src-shared/errors';
import {
  parseStudyParams,
  type CaseStudyName,
  type CaseStudyParams,
  type CaseStudyResult,
  type ChartSpec,
  type CaseStudyTable,
  type StudyParams,
} from '../../src-shared/protocol/index';

export interface StudyContext {
  signal: AbortSignal;
  progress(fraction: number | null, message: string): void;
}

export type Study = (params: CaseStudyParams, ctx: StudyContext) => Promise<CaseStudyResult> | CaseStudyResult;

export type { CaseStudyResult, ChartSpec, CaseStudyTable };

/** A study whose work is a list of independent items, so that it can run as parts (./parts.ts). */
export interface SplitStudy<Item> {
  /** How many independent items a run with these params has (validates the params as the study does). */
  itemCount(params: CaseStudyParams): number;
  /** Compute the items start..start+count-1, in order. */
  computeItems(params: CaseStudyParams, start: number, count: number, ctx: StudyContext): Promise<Item[]>;
  /** One item as it travels back from a part (checked before assembling). */
  itemSchema: z.ZodType<Item>;
  /** The study's result from all its items, in order (the single job ends with the same step). */
  assemble(params: CaseStudyParams, items: Item[]): CaseStudyResult;
}

/**
 * A study's parameters, validated by its schema in the protocol
 * (src-shared/protocol/casestudy.ts CASE_STUDY_PARAMS) with defaults filled;
 * bad input is one invalid-input MechError naming the parameter.
 */
export function studyParams<S extends CaseStudyName>(study: S, params: CaseStudyParams): StudyParams<S> {
  const r = parseStudyParams(study, params);
  if (!r.ok) invalid(r.message);
  return r.value;
}

/** from, from+step, ..., <= to (rounded to 1e-9 so labels are clean). */
export function epsGrid(from: number, to: number, step: number): number[] {
  if (!(step > 0)) invalid(`eps step must be > 0, got ${step}`);
  if (!(to >= from)) invalid(`eps range must have from <= to, got ${from}..${to}`);
  const out: number[] = [];
  const n = Math.floor((to - from) / step + 1e-9);
  for (let k = 0; k <= n; k++) out.push(Math.round((from + k * step) * 1e9) / 1e9);
  return out;
}

/** A key number of a study result (protocol/casestudy.ts `numbers`). */
type StudyNumber = CaseStudyResult['numbers'][string];

/**
 * Key numbers per eps: for each row, then each field in order, `${name}${sep}${row.eps}` -> the field's value
 * (e.g. sep '_eps' names plError of the row at eps 0.5 'plError_eps0.5').
 */
export function numbersPerEps<R extends { eps: number }>(
  rows: readonly R[],
  sep: string,
  fields: Record<string, (r: R) => StudyNumber>,
): Record<string, StudyNumber> {
  const out: Record<string, StudyNumber> = {};
  for (const r of rows) for (const [name, value] of Object.entries(fields)) out[`${name}${sep}${r.eps}`] = value(r);
  return out;
}

/** Short rendering of a number for titles (the findings are worded in src-shared/charts/casestudy-words.ts). */
export { shortNumber as f } from '../../src-shared/charts/number-words';

/** The engine's one cancellation check (numeric/cancel.ts) under the name the studies use. */
export { checkCancelled as checkAbort } from '../numeric/cancel';

/** Max of an array. */
export function maxOf(a: ArrayLike<number>): number {
  let m = -Infinity;
  for (let i = 0; i < a.length; i++) if (a[i]! > m) m = a[i]!;
  return m;
}

/** Normalise non-negative weights to a distribution. */
export function normalise(w: ArrayLike<number>): Float64Array {
  let s = 0;
  for (let i = 0; i < w.length; i++) {
    if (!(w[i]! >= 0)) invalid(`weights must be >= 0, item ${i + 1} is ${w[i]}`);
    s += w[i]!;
  }
  if (!(s > 0)) invalid('weights sum to 0');
  const out = new Float64Array(w.length);
  for (let i = 0; i < w.length; i++) out[i] = w[i]! / s;
  return out;
}
