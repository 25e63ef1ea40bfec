/**
 * The prior grammar, once for the CLI, the project runner and the app
 * (docs/cli-and-formats.md, "Priors"): `uniform`, `product:p1,p2,...` (each
 * individual's value distribution on db domains), `csv:FILE`,
 * `points:FILE.csv[:...]` (its options are the CLI's, src-main/cli/inputs.ts)
 * or a comma list `p1,p2,...`. Pure: text in, a typed PriorSpec or one
 * message out; reading files is the caller's. List items are strict
 * decimals (src-shared/numeric/decimal.ts) >= 0; a bad item is named by
 * position, never quoted.
 */
import { parseDecimal } from '../numeric/decimal';

type PriorSpec =
  | { kind: 'uniform' }
  | { kind: 'product' | 'vector'; values: number[] }
  | { kind: 'csv'; file: string }
  | { kind: 'points'; text: string };

type PriorSpecParse = { ok: true; prior: PriorSpec } | { ok: false; error: string };

const FORMS = 'uniform, product:p1,p2,..., csv:FILE, points:FILE.csv or a comma list';

/** A comma list of numbers >= 0, or the first bad item. */
function numberList(text: string, what: string): { ok: true; values: number[] } | { ok: false; error: string } {
  const values: number[] = [];
  const parts = text.split(',');
  for (let i = 0; i < parts.length; i++) {
    const v = parseDecimal(parts[i]!.trim());
    if (v === undefined) return { ok: false, error: `${what}: item ${i + 1} is not a decimal number >= 0` };
    if (v < 0) return { ok: false, error: `${what}: item ${i + 1} (${v}) is negative` };
    values.push(v);
  }
  return { ok: true, values };
}

/** Parse a prior text (trimmed first). */
export function parsePriorSpecText(text: string): PriorSpecParse {
  const t = text.trim();
  if (t === '') return { ok: false, error: `prior is empty: use ${FORMS}` };
  if (t === 'uniform') return { ok: true, prior: { kind: 'uniform' } };
  if (t.startsWith('csv:')) return { ok: true, prior: { kind: 'csv', file: t.slice(4) } };
  if (t.startsWith('points:')) return { ok: true, prior: { kind: 'points', text: t } };
  const product = t.startsWith('product:');
  if (product || t.includes(',') || /^[-+0-9.eE\s]+$/.test(t)) {
    const list = numberList(product ? t.slice(8) : t, product ? 'product prior' : 'prior');
    return list.ok ? { ok: true, prior: { kind: product ? 'product' : 'vector', values: list.values } } : list;
  }
  return { ok: false, error: `unknown prior '${text}': use ${FORMS}` };
}
