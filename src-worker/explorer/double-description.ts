import { MechError } from '../../src-shared/errors';
import type { CapacityNote } from '../../src-shared/protocol/index';
import { capacityNoteWords } from '../../src-shared/charts/note-words';
import { checkCancelled } from '../numeric/cancel';

/**
 * Incremental double description method (Motzkin; Fukuda & Prodon) for a
 * pointed cone { x in R^n : a_c . x >= 0 } contained in the non-negative
 * orthant, whose first n constraints are x_i >= 0. Starts from the orthant
 * (extreme rays e_1..e_n) and adds the remaining constraints one at a time;
 * adjacency of a positive and a negative ray is decided by the
 * combinatorial test (no third ray's zero set contains their common zero set),
 * after the necessary rank condition |Z(p) ∩ Z(q)| >= n - 2, or on large ray
 * sets by the equivalent algebraic test rank(A_{Z(p) ∩ Z(q)}) = n - 2. The test is exact
 * whenever the arithmetic's sign decisions are exact, so with BigInt rays the
 * result is exact even on highly degenerate polytopes (SPEC §6).
 */
export interface ConeArithmetic<R> {
  readonly n: number;
  readonly m: number;
  /** Unit ray e_i. */
  unit(i: number): R;
  /** Sign of constraint c at ray r (0 when tight, exactly or within the arithmetic's tolerance). */
  sign(c: number, r: R): number;
  /** The ray on the hyperplane of c between rp (sign > 0) and rm (sign < 0). */
  combine(c: number, rp: R, rm: R): R;
  /** Rank of the given constraint rows (for the algebraic adjacency test). */
  rank(constraints: number[]): number;
}

interface ConeRays<R> {
  rays: R[];
  /** Zero set of each ray over all m constraints, as a bitset of m bits. */
  zeroSets: Uint32Array[];
  /** Largest number of rays held at any step (a cost figure). */
  peakRays: number;
}

interface DoubleDescriptionOptions {
  /** Refuse (MechError 'too-large') when an intermediate cone has more rays. Default 200000. */
  maxRays?: number;
  /**
   * Above this many rays the adjacency of a pair is decided by the algebraic
   * test (rank of the common tight constraints = n - 2, O(|Z| n^2)) instead of
   * the combinatorial one (O(rays)). Both are exact characterisations; the
   * switch is only about speed. Default 1500.
   */
  algebraicAbove?: number;
  signal?: AbortSignal;
  /** Called after each constraint is added: constraints done of m, current ray count. */
  onProgress?: (p: { done: number; of: number; rays: number }) => void;
}

function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function doubleDescription<R>(ar: ConeArithmetic<R>, options: DoubleDescriptionOptions = {}): ConeRays<R> {
  const { n, m } = ar;
  const maxRays = options.maxRays ?? 200_000;
  const W = (m + 31) >>> 5;
  let rays: R[] = [];
  let zs: Uint32Array[] = [];
  for (let i = 0; i < n; i++) {
    rays.push(ar.unit(i));
    const z = new Uint32Array(W);
    for (let j = 0; j < n; j++) if (j !== i) z[j >>> 5]! |= 1 << (j & 31);
    zs.push(z);
  }
  let peak = rays.length;
  const inter = new Uint32Array(W);
  for (let c = n; c < m; c++) {
    checkCancelled(options.signal, 'vertex enumeration cancelled');
    const pos: number[] = [];
    const neg: number[] = [];
    const zero: number[] = [];
    for (let r = 0; r < rays.length; r++) {
      const s = ar.sign(c, rays[r]!);
      if (s > 0) pos.push(r);
      else if (s < 0) neg.push(r);
      else zero.push(r);
    }
    const word = c >>> 5;
    const bit = 1 << (c & 31);
    for (const r of zero) zs[r]![word]! |= bit;
    if (neg.length === 0) continue;
    const nextRays: R[] = [];
    const nextZs: Uint32Array[] = [];
    for (const r of pos) (nextRays.push(rays[r]!), nextZs.push(zs[r]!));
    for (const r of zero) (nextRays.push(rays[r]!), nextZs.push(zs[r]!));
    // Candidates for the adjacency test: rays whose zero sets could contain an
    // intersection are those of the current cone (all of them).
    const total = rays.length;
    const algebraic = total > (options.algebraicAbove ?? 1500);
    const zList: number[] = [];
    for (const p of pos) {
      checkCancelled(options.signal, 'vertex enumeration cancelled');
      const zp = zs[p]!;
      for (const q of neg) {
        const zq = zs[q]!;
        let cnt = 0;
        for (let w = 0; w < W; w++) {
          const v = zp[w]! & zq[w]!;
          inter[w] = v;
          cnt += popcount32(v);
        }
        if (cnt < n - 2) continue;
        let adjacent = true;
        if (algebraic) {
          zList.length = 0;
          for (let w = 0; w < W; w++) {
            let v = inter[w]!;
            while (v !== 0) {
              const b = 31 - Math.clz32(v & -v);
              zList.push(w * 32 + b);
              v &= v - 1;
            }
          }
          adjacent = ar.rank(zList) === n - 2;
        }
        for (let r = 0; r < total && adjacent && !algebraic; r++) {
          if (r === p || r === q) continue;
          const zr = zs[r]!;
          let contains = true;
          for (let w = 0; w < W; w++)
            if ((inter[w]! & ~zr[w]!) !== 0) {
              contains = false;
              break;
            }
          if (contains) adjacent = false;
        }
        if (!adjacent) continue;
        const z = inter.slice();
        z[word]! |= bit;
        nextRays.push(ar.combine(c, rays[p]!, rays[q]!));
        nextZs.push(z);
        if (nextRays.length > maxRays) {
          const note: CapacityNote = { kind: 'too-many-rays', maxRays, constraint: c + 1, constraints: m };
          throw new MechError('too-large', capacityNoteWords(note), note);
        }
      }
    }
    rays = nextRays;
    zs = nextZs;
    if (rays.length > peak) peak = rays.length;
    options.onProgress?.({ done: c + 1, of: m, rays: rays.length });
  }
  return { rays, zeroSets: zs, peakRays: peak };
}
