import { Wasm, WASM_PAGE } from '../numeric/wasm';
import { LN_SCAN_WASM } from './ln-scan.wasm';

/**
 * The inner scan of the all-pairs privacy check (privacy-check.ts, SPEC §4),
 * shared by the check's own thread and its worker threads (check-worker.ts).
 *
 * Every entry's ln is taken once (L[i*m + y] = ln C[i][y], a zero as
 * ZERO_LN), so a pair (i, j) costs one subtraction and two comparisons per
 * output: the largest L[i][y] - L[j][y] is the ln-ratio of i over j, minus
 * the smallest is that of j over i. No NaN or infinity can arise: a zero
 * facing a zero differs by 0 (no constraint, as 0/0), a positive entry facing
 * a zero by about 1e300 (>= INFINITE_LN: an infinite privacy loss), a zero
 * facing a positive entry by about -1e300 (no constraint).
 *
 * The ln-ratios found here differ from the exact scan's ln(C[i][y] / C[j][y])
 * by at most ~4e-13 (each ln is within one ulp of a number below 745 in
 * magnitude: 1.2e-13, twice, plus the subtraction's rounding; the WebAssembly
 * kernel, ln-scan.wat, and the JavaScript one do the same exact operations on
 * the same doubles). A direction is
 * decided here only when its ln-ratio is more than SCAN_MARGIN = 1e-11 (25
 * times that) from the bound eps d + ln(1 + REL_TOL); the few within the
 * margin are listed as `uncertain` and decided by the exact scan of the two
 * rows (privacy-check.ts), so a verdict is never changed by the fast
 * arithmetic.
 *
 * Work is handed out in blocks of rows through a shared counter, so threads
 * that finish early take more (row i has n - 1 - i pairs).
 */

/** ln of a zero entry: far below ln of the smallest subnormal (-744.4), and finite (no NaN from 0 facing 0). */
const ZERO_LN = -1e300;
/** A scanned ln-ratio at least this is a positive entry facing a zero: infinite privacy loss. */
const INFINITE_LN = 1e299;
/** Directions within this of their bound (in ln-ratio) are decided by the exact scan. */
export const SCAN_MARGIN = 1e-11;
/**
 * Rows handed out at a time, and scanned together: each later row is read from memory once per block and
 * compared with the block's rows while it is in cache (the scan is bound by memory bandwidth otherwise:
 * 8 rows of 2,500 ln entries are 160 KB).
 */
const BLOCK_ROWS = 8;

/** What the scanning threads share (all views of SharedArrayBuffers, or plain arrays on one thread). */
export interface ScanShared {
  n: number;
  m: number;
  /** n x m row-major ln of the entries (ZERO_LN for zeros). */
  logs: Float64Array;
  /** Distances d(i, j) for j > i, row i from pairStart(n, i), n - 1 - i of them (Infinity: no constraint). */
  dist: Float64Array;
  eps: number;
  /** ln(1 + REL_TOL). */
  logTol: number;
  /** [0] next row to take; [1] rows done (progress); [2] non-zero: stop. */
  control: Int32Array;
  /** How many candidate directions to keep (the worst by scanned eff). */
  keep: number;
}

/** What one thread found: counts, its worst directions and the directions too close to call. */
export interface ScanPart {
  pairs: number;
  violating: number;
  /** Scanned ln-ratio / d, largest over this thread's directions (Infinity for an infinite loss). */
  effective: number;
  /** Worst directions (from, to) by scanned eff, as [from, to, from, to, ...], at most `keep`. */
  top: Int32Array;
  /** Directions (from, to) within SCAN_MARGIN of their bound. */
  uncertain: Int32Array;
  stopped: boolean;
}

/** Offset of d(i, i+1) in the packed upper triangle. */
export function pairStart(n: number, i: number): number {
  return i * n - (i * (i + 1)) / 2;
}

/** ln of a row's entries into `out` (entries already validated: finite, >= -NEG_TOL). */
export function lnRow(row: Float64Array, out: Float64Array, m: number): void {
  for (let y = 0; y < m; y++) {
    const v = row[y]!;
    out[y] = v > 0 ? Math.log(v) : ZERO_LN;
  }
}

/**
 * Row a against rows b0 .. b0+count-1: max[k] and min[k] of L[a][y] - L[b0+k][y] over y. The same numbers by
 * either kernel (subtractions, maxima and minima are exact operations on the same doubles).
 */
type RowPairs = (a: number, b0: number, count: number) => { max: Float64Array; min: Float64Array };

/** The JavaScript kernel (two accumulators each way: independent chains for the CPU). */
function jsRowPairs({ n, m, logs }: ScanShared): RowPairs {
  const max = new Float64Array(n);
  const min = new Float64Array(n);
  return (a, b0, count) => {
    const ao = a * m;
    for (let k = 0; k < count; k++) {
      const bo = (b0 + k) * m;
      let mx0 = -Infinity;
      let mx1 = -Infinity;
      let mn0 = Infinity;
      let mn1 = Infinity;
      let y = 0;
      for (; y + 1 < m; y += 2) {
        const v0 = logs[ao + y]! - logs[bo + y]!;
        const v1 = logs[ao + y + 1]! - logs[bo + y + 1]!;
        if (v0 > mx0) mx0 = v0;
        if (v0 < mn0) mn0 = v0;
        if (v1 > mx1) mx1 = v1;
        if (v1 < mn1) mn1 = v1;
      }
      if (y < m) {
        const v = logs[ao + y]! - logs[bo + y]!;
        if (v > mx0) mx0 = v;
        if (v < mn0) mn0 = v;
      }
      max[k] = mx0 > mx1 ? mx0 : mx1;
      min[k] = mn0 < mn1 ? mn0 : mn1;
    }
    return { max, min };
  };
}

let lnScanModule: object | undefined;
let wasmOff = false;

/**
 * The WebAssembly SIMD kernel (ln-scan.wat, ~7 times the JavaScript loop's rate): the ln matrix is copied once
 * into this thread's own WebAssembly memory (8 n m bytes), followed by the two result rows. Null where
 * WebAssembly is unavailable or the memory cannot be had (the JavaScript kernel then runs).
 */
function wasmRowPairs({ n, m, logs }: ScanShared): RowPairs | null {
  if (wasmOff || typeof (globalThis as { WebAssembly?: unknown }).WebAssembly === 'undefined') return null;
  const bytes = (n * m + 2 * n) * 8;
  if (bytes > 2 ** 32 - WASM_PAGE) return null;
  try {
    lnScanModule ??= new Wasm.Module(Buffer.from(LN_SCAN_WASM, 'base64'));
    const memory = new Wasm.Memory({ initial: Math.ceil(bytes / WASM_PAGE) });
    const kernel = (
      new Wasm.Instance(lnScanModule, { env: { memory } }).exports as {
        rowPairs: (a: number, b: number, count: number, m: number, omax: number, omin: number) => void;
      }
    ).rowPairs;
    new Float64Array(memory.buffer, 0, n * m).set(logs.subarray(0, n * m));
    const oMax = n * m * 8;
    const oMin = oMax + n * 8;
    const max = new Float64Array(memory.buffer, oMax, n);
    const min = new Float64Array(memory.buffer, oMin, n);
    return (a, b0, count) => {
      if (count > 0) kernel(a * m * 8, b0 * m * 8, count, m, oMax, oMin);
      return { max, min };
    };
  } catch {
    return null;
  }
}

/** Whether the WebAssembly kernel runs on this thread (a 2 x 2 scan is set up with it). */
export function wasmKernelRuns(): boolean {
  return wasmRowPairs({ n: 2, m: 2, logs: new Float64Array(4) } as ScanShared) !== null;
}

/** Tests compare the two kernels: this turns the WebAssembly one off (on this thread). */
export function useWasmKernel(on: boolean): void {
  wasmOff = !on;
}

/** Scan rows taken from the shared counter until none is left (or the stop flag is set, or shouldStop says so). */
export function scanRows(s: ScanShared, shouldStop?: () => boolean): ScanPart {
  const { n, dist, eps, logTol, control, keep } = s;
  const rowPairs = wasmRowPairs(s) ?? jsRowPairs(s);
  let pairs = 0;
  let violating = 0;
  let effective = 0;
  // worst directions by eff: a small sorted list (keep is ~20)
  const topEff: number[] = [];
  const topPair: number[] = [];
  const offer = (eff: number, from: number, to: number): void => {
    if (topEff.length === keep && !(eff > topEff[keep - 1]!)) return;
    let k = topEff.length;
    while (k > 0 && eff > topEff[k - 1]!) k--;
    topEff.splice(k, 0, eff);
    topPair.splice(2 * k, 0, from, to);
    if (topEff.length > keep) {
      topEff.pop();
      topPair.length = 2 * keep;
    }
  };
  const uncertain: number[] = [];
  // One direction decided: returns its scanned eff (for the worst list).
  const decide = (lr: number, d: number, from: number, to: number): number => {
    if (lr >= INFINITE_LN) {
      violating++;
      return Infinity;
    }
    const bound = d === 0 ? logTol : eps * d + logTol;
    if (lr > bound + SCAN_MARGIN) violating++;
    else if (lr >= bound - SCAN_MARGIN) uncertain.push(from, to);
    if (d === 0) return lr > logTol ? Infinity : 0;
    return lr > 0 ? lr / d : 0;
  };
  let stopped = false;
  for (;;) {
    if (Atomics.load(control, 2) !== 0 || shouldStop?.()) {
      stopped = true;
      break;
    }
    const i0 = Atomics.add(control, 0, BLOCK_ROWS);
    if (i0 >= n) break;
    const i1 = Math.min(n, i0 + BLOCK_ROWS);
    // every later row j against the block's rows i < j: max and min of L[j] - L[i] (j over i, and minus i over j)
    for (let j = i0 + 1; j < n; j++) {
      const count = Math.min(i1, j) - i0;
      const { max, min } = rowPairs(j, i0, count);
      for (let k = 0; k < count; k++) {
        const i = i0 + k;
        const d = dist[pairStart(n, i) + (j - i - 1)]!;
        if (d === Infinity) continue;
        pairs++;
        const eIJ = decide(-min[k]!, d, i, j);
        const eJI = decide(max[k]!, d, j, i);
        if (eIJ > effective) effective = eIJ;
        if (eJI > effective) effective = eJI;
        offer(eIJ, i, j);
        offer(eJI, j, i);
      }
    }
    Atomics.add(control, 1, i1 - i0);
  }
  return { pairs, violating, effective, top: Int32Array.from(topPair), uncertain: Int32Array.from(uncertain), stopped };
}
