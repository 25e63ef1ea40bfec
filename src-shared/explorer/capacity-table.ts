/**
 * Rows of the explorer's capacity table (SPEC §6) and their CSV form. Plain
 * data and string formatting only: the renderer imports it directly.
 */
export interface CapacityRow {
  /** Domain spec, e.g. "line:4". */
  domain: string;
  /** Number of secrets n. */
  size: number;
  /** Vertices of the private-posterior polytope (null when not computed). */
  vertices: number | null;
  /** Kernel mechanisms of every size (null when the enumeration was refused or skipped). */
  kernels: number | null;
  /** Multiplicative capacity max sum_y max_x C[x][y] over eps*d-private C. */
  multiplicative: number | null;
  /** Additive capacity 1 - min sum_y min_x C[x][y]. */
  additive: number | null;
  /** Where the capacities come from: the kernel enumeration, an LP, or nowhere. */
  source: 'kernels' | 'lp' | null;
  /** Why a cell is empty (e.g. the size limit), if it is. */
  note?: string;
}

export const CAPACITY_CSV_HEADER = ['domain', 'size', 'vertices', 'kernels', 'multiplicative', 'additive', 'source', 'note'] as const;

function csvCell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toPrecision(15).replace(/\.?0+$/, '')) : v;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV with a header row; numbers at full precision, empty cells for missing values. */
export function capacityTableCsv(rows: readonly CapacityRow[]): string {
  const lines = [CAPACITY_CSV_HEADER.join(',')];
  for (const r of rows) lines.push([r.domain, r.size, r.vertices, r.kernels, r.multiplicative, r.additive, r.source, r.note].map(csvCell).join(','));
  return lines.join('\n') + '\n';
}
