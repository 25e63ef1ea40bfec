/**
 * How the outputs of a queued LP are cut into slices, one per live worker (whole groups of outputs where there are
 * enough, else pieces of one group), and how long a slice's worker may stay silent: the pure arithmetic of
 * pricing-master.ts, tested on its own.
 */

/**
 * How long a slice's reply may take before its worker counts as silent: 20 times the slowest reply of this LP so far
 * (10 minutes before the first), at least 10 s, and at most a quarter of the LP's time (with a time limit), at least 2
 * s.
 */
export function silentAfterMs(slowestReplyMs: number, lpMs: number): number {
  const free = Math.max(10_000, slowestReplyMs > 0 ? 20 * slowestReplyMs : 600_000);
  return Number.isFinite(lpMs) ? Math.min(free, Math.max(2000, lpMs / 4)) : free;
}

/** A contiguous range of outputs [w0, w1) priced on one worker; it holds the groups [g0, g1). */
export interface Slice {
  w0: number;
  w1: number;
  g0: number;
  g1: number;
  /** Group size of the slice's own models: the LP's (whole groups) or w1 - w0 (a piece of one group: one model). */
  groupSize: number;
}

/**
 * One slice per worker: with at least as many groups as workers, contiguous runs of whole groups (each
 * group's lazy rows stay in one model); with fewer (one group of every output: all pairs in the model),
 * each group cut into pieces, every piece holding that group's model and pricing its own outputs.
 */
export function slicesOf(m: number, groupSize: number, workers: number): Slice[] {
  const G = Math.ceil(m / groupSize);
  const k = Math.max(1, Math.min(workers, m));
  const out: Slice[] = [];
  if (G >= k) {
    for (let i = 0; i < k; i++) {
      const g0 = Math.floor((i * G) / k);
      const g1 = Math.floor(((i + 1) * G) / k);
      out.push({ w0: g0 * groupSize, w1: Math.min(m, g1 * groupSize), g0, g1, groupSize });
    }
    return out;
  }
  for (let g = 0; g < G; g++) {
    const a = g * groupSize;
    const size = Math.min(m, a + groupSize) - a;
    const pieces = Math.min(size, Math.floor(k / G) + (g < k % G ? 1 : 0));
    for (let p = 0; p < pieces; p++) {
      const w0 = a + Math.floor((p * size) / pieces);
      const w1 = a + Math.floor(((p + 1) * size) / pieces);
      out.push({ w0, w1, g0: g, g1: g + 1, groupSize: w1 - w0 });
    }
  }
  return out;
}

/** The slice's own group of LP group g, or undefined when the slice does not hold g. */
export function localGroup(s: Slice, g: number, groupSize: number): number | undefined {
  if (g < s.g0 || g >= s.g1) return undefined;
  return s.groupSize === groupSize ? g - s.g0 : 0;
}
