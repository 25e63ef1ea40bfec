import { seededRandom } from '../../src-worker/numeric/seeded-random';
/**
 * Smart-meter traces (SPEC §1 databases V^u with d1 or d∞): load a CSV of
 * readings, quantise to `levels` values, and release a noisy trace. Each
 * reading gets truncated-geometric noise on 0..levels-1; independent noise
 * with eps' per reading is eps'·d1-private (composition), and since
 * d1 <= u·d∞ it is (u·eps')·d∞-private, so d∞ uses eps' = eps/u.
 */
export interface Trace {
  raw: number[];
  /** Quantised levels 0..levels-1. */
  levels: number[];
  min: number;
  max: number;
  step: number;
}

export function parseTraceCsv(text: string): { ok: true; values: number[] } | { ok: false; error: string } {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0 && !l.startsWith('#'));
  const values: number[] = [];
  let headerSkipped = false;
  for (let i = 0; i < lines.length; i++) {
    const parts = lines[i]!.split(/[,;\t]/).map((p) => p.trim());
    const cell = parts[parts.length - 1]!;
    const v = Number(cell);
    if (cell === '' || !Number.isFinite(v)) {
      if (i === 0 && !headerSkipped) {
        headerSkipped = true;
        continue;
      }
      return { ok: false, error: `line ${i + 1}: '${cell}' is not a number` };
    }
    values.push(v);
  }
  if (values.length < 2) return { ok: false, error: 'a trace needs at least 2 readings' };
  if (values.length > 10_000) return { ok: false, error: `${values.length} readings; at most 10000` };
  return { ok: true, values };
}

export function quantise(raw: number[], levels: number): Trace {
  if (!Number.isInteger(levels) || levels < 2) throw new Error('levels must be a whole number ≥ 2');
  const min = Math.min(...raw);
  const max = Math.max(...raw);
  const step = max > min ? (max - min) / (levels - 1) : 1;
  return { raw, min, max, step, levels: raw.map((x) => Math.max(0, Math.min(levels - 1, Math.round((x - min) / step)))) };
}

/** Per-reading epsilon for the chosen metric (see the header comment). */
export function perReadingEpsilon(eps: number, readings: number, metric: 'd1' | 'dinf'): number {
  return metric === 'd1' ? eps : eps / readings;
}

/** Deterministic PRNG (mulberry32, the engine's) so a noisy signature is reproducible. */
export const rng = seededRandom;

/** Sample a report for each level from the channel rows (row-major levels x levels). */
export function sampleNoisy(levels: number[], channel: ArrayLike<number>, n: number, seed = 1): number[] {
  const rand = rng(seed);
  return levels.map((x) => {
    let u = rand();
    for (let y = 0; y < n; y++) {
      u -= channel[x * n + y]!;
      if (u <= 0) return y;
    }
    return n - 1;
  });
}
