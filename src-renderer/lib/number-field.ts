/**
 * One rule for every number field of the editors: the
 * text may be a number or a small expression ("ln 4", "ln(2)/2", "2*ln 3",
 * evaluated by src-shared/numeric/number-expression.ts), and is checked
 * against the field's range BEFORE anything is stored or computed. Problems
 * are plain sentences naming the field and what was typed. Pure: unit-tested.
 */
import { evaluateNumberExpression } from '../../src-shared/numeric/number-expression';

export interface NumberRule {
  /** What the field is, as a user reads it: 'ε', 'privacy level l', 'radius r'. */
  what: string;
  /** Smallest allowed value; with `above` true the value must be strictly greater. */
  min?: number;
  above?: boolean;
  max?: number;
  integer?: boolean;
  /** Empty text is allowed and means "not set" (value undefined). */
  optional?: boolean;
  /** Unit shown after numbers in messages ('km'). */
  unit?: string;
}

type NumberFieldResult = { ok: true; value: number | undefined } | { ok: false; problem: string };

/** ε everywhere: a finite number above 0. */
export const EPSILON_RULE: NumberRule = { what: 'ε', min: 0, above: true };

export function parseNumberField(text: string, rule: NumberRule): NumberFieldResult {
  const t = text.trim();
  if (t === '')
    return rule.optional
      ? { ok: true, value: undefined }
      : { ok: false, problem: `${rule.what} is empty: enter a number (or an expression such as ln 4)` };
  const r = evaluateNumberExpression(t);
  if (!r.ok)
    return {
      ok: false,
      problem: `${rule.what}: “${t}” is not a number or an expression such as ln 4 or ln(2)/2 (${r.problem})`,
    };
  const v = r.value;
  const u = rule.unit ? ` ${rule.unit}` : '';
  const shown = /^[-+]?[\d.]+(e[-+]?\d+)?$/i.test(t) ? t : `${t} = ${Number(v.toPrecision(6))}`;
  if (rule.integer && !Number.isInteger(v))
    return { ok: false, problem: `${rule.what} must be a whole number (you entered ${shown})` };
  if (rule.min !== undefined && (rule.above ? v <= rule.min : v < rule.min))
    return {
      ok: false,
      problem: `${rule.what} must be ${rule.above ? 'more than' : 'at least'} ${rule.min}${u} (you entered ${shown}${u})`,
    };
  if (rule.max !== undefined && v > rule.max)
    return { ok: false, problem: `${rule.what} must be at most ${rule.max}${u} (you entered ${shown}${u})` };
  return { ok: true, value: v };
}

/** A stored number as field text (full precision, so it reads back exactly). */
export function numberText(v: number | undefined): string {
  if (v === undefined) return '';
  // ln 2 (a common ε) as the expression it came from: 0.6931471805599453 does not fit the field; exact, so it reads
  // back the same
  for (let k = 2; k <= 10; k++) if (v === Math.log(k)) return `ln ${k}`;
  return String(v);
}
