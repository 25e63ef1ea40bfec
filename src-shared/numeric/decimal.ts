/**
 * The one strict parser of numbers written as text (domain
 * specs, CSV metrics, prior lists, numeric output labels). JavaScript's
 * Number() accepts far more than a decimal number: '' and '  ' (0), '0x1A'
 * (26), '0b11', 'Infinity', '1e999' (Infinity). None of those is a number a
 * user meant to type into a privacy tool, so here a number is exactly
 *
 *   [+|-] digits [. digits] [e|E [+|-] digits]     (or [+|-] . digits [...])
 *
 * with a finite value; a literal whose value overflows (1e999) is refused,
 * and so is a non-zero literal that underflows to 0 (1e-999), because either
 * would silently change what was written. Subnormal values (5e-324) are
 * representable and accepted. Words ('inf', 'nan') are NOT numbers here: the
 * one place where +Infinity is meaningful (a custom metric's "fully
 * distinguishable", SPEC §1) recognises its keyword itself.
 */

const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const UNSIGNED_INTEGER = /^\d+$/;

/** Why a text is not a number (for the caller's message); undefined when it is one. */
export function decimalProblem(text: string): string | undefined {
  if (text === '') return 'is empty';
  if (!DECIMAL.test(text)) return 'is not a decimal number';
  const v = Number(text);
  if (!Number.isFinite(v)) return 'is out of the range of a 64-bit float';
  if (v === 0 && /[1-9]/.test(text.replace(/[eE].*$/, ''))) return 'is too small to represent (it would round to 0)';
  return undefined;
}

/** The value of a strict decimal literal (see above), or undefined when it is not one. */
export function parseDecimal(text: string): number | undefined {
  return decimalProblem(text) === undefined ? Number(text) : undefined;
}

/**
 * A non-negative integer written in decimal digits only ('12', not '1e3',
 * '0x1A', '+3' or '12.0'). Values beyond 2^53 are returned as the nearest
 * float (still > any size limit, so callers refuse them by size, not by a
 * crash); undefined when the text is not digits.
 */
export function parseDigits(text: string | undefined): number | undefined {
  if (text === undefined || !UNSIGNED_INTEGER.test(text)) return undefined;
  return Number(text);
}
