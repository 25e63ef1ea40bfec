/**
 * The cheap constructions handed to the optimal LP (docs/lp.md, "Never worse than a cheap construction"), on the
 * LP's own objective: their expected losses, the cheapest one's remapped channel and its columns as the master's
 * first columns.
 */
import type { CandidateRecord } from '../../mechanism/lp-result';
import { MechError } from '../../../src-shared/errors';
import type { MasterColumn } from '../decomposition/decomposition-master';
import type { CheapCandidate } from './optimal-options';

/**
 * The cheapest candidate on the LP's own objective: its remapped channel C . R (row-major n x m), its cost, and C's
 * columns as master seeds.
 */
export interface BestCandidate {
  construction: string;
  /** Expected loss in the caller's units. */
  objective: number;
  channel: Float64Array;
  seed: MasterColumn[];
}

/**
 * The candidates' expected losses computed with the LP's cost (cost[x*m + w] = pi_x l(w, x) / scale), so that
 * they compare exactly with the LP's objective, and the cheapest one's remapped channel and seed columns.
 */
export function evaluateCandidates(
  list: readonly CheapCandidate[],
  n: number,
  m: number,
  cost: Float64Array,
  scale: number,
): { records: CandidateRecord[]; best: BestCandidate | null } {
  const records: CandidateRecord[] = [];
  let bestAt = -1;
  let bestCost = Infinity;
  list.forEach((c, i) => {
    const base = { construction: c.construction, timeMs: c.timeMs };
    const ch = c.channel;
    const remap = c.remap;
    if (!ch || !remap) {
      records.push({ ...base, expectedLoss: null, note: c.note ?? { kind: 'not-built' } });
      return;
    }
    if (ch.rows !== n || remap.length !== ch.cols || !remap.every((w) => w >= 0 && w < m))
      throw new MechError(
        'internal',
        `candidate ${c.construction}: a ${ch.rows} x ${ch.cols} channel with a remap onto ${m} outputs does not fit ${n} secrets`,
      );
    const row = new Float64Array(ch.cols);
    let v = 0;
    for (let x = 0; x < n; x++) {
      ch.row(x, row);
      const o = x * m;
      for (let y = 0; y < row.length; y++) v += cost[o + remap[y]!]! * row[y]!;
    }
    const expectedLoss = v * scale;
    records.push({
      ...base,
      expectedLoss: Number.isFinite(expectedLoss) ? expectedLoss : null,
      ...(c.note ? { note: c.note } : {}),
    });
    if (Number.isFinite(v) && v < bestCost) {
      bestCost = v;
      bestAt = i;
    }
  });
  if (bestAt < 0) return { records, best: null };
  const c = list[bestAt]!;
  const ch = c.channel!;
  const remap = c.remap!;
  const k = ch.cols;
  const channel = new Float64Array(n * m);
  const cols = Array.from({ length: k }, () => new Float64Array(n));
  const row = new Float64Array(k);
  for (let x = 0; x < n; x++) {
    ch.row(x, row);
    for (let y = 0; y < k; y++) {
      channel[x * m + remap[y]!]! += row[y]!;
      cols[y]![x] = row[y]!;
    }
  }
  // C's own columns, each offered for the output it reports after the remap (the master rebuilds C . R from them).
  const seed: MasterColumn[] = [];
  for (let y = 0; y < k; y++) if (cols[y]!.some((p) => p > 0)) seed.push({ w: remap[y]!, r: cols[y]! });
  return { records, best: { construction: c.construction, objective: bestCost * scale, channel, seed } };
}
