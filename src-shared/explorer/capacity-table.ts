/**
 * Rows of the explorer's capacity table (SPEC §6) and their CSV form. Plain
 * data and string formatting only: the renderer imports it directly.
 */
import type { CapacityRow } from '../protocol/index';
import { capacityNoteWords } from '../charts/note-words';

export type { CapacityRow };

export const CAPACITY_CSV_HEADER = [
  'domain',
  'size',
  'vertices',
  'kernels',
  'multiplicative',
  'additive',
  'source',
  'note',
] as const;

function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(15).replace(/\.?0+$/, '')) : v;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV with a header row; numbers at full precision, empty cells for missing values. */
export function capacityTableCsv(rows: readonly CapacityRow[]): string {
  const lines = [CAPACITY_CSV_HEADER.join(',')];
  for (const r of rows)
    lines.push(
      [
        r.domain,
        r.size,
        r.vertices,
        r.kernels,
        r.multiplicative,
        r.additive,
        r.source,
        r.note === undefined ? undefined : capacityNoteWords(r.note),
      ]
        .map(csvCell)
        .join(','),
    );
  return lines.join('\n') + '\n';
}
