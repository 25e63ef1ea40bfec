/** Numbers as the case studies' findings, titles and tables write them. */

/** Short rendering of a number: integers as they are, others to `digits` significant digits, 'n/a' for none. */
export function shortNumber(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined) return 'n/a';
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return Number(v.toPrecision(digits)).toString();
}
