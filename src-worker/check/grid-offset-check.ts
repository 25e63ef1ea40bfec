import { MechError, assertEpsilon } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import type { Domain, GridMetric } from '../metric/domain';
import { NEG_TOL, REL_TOL } from '../../src-shared/numeric/tolerance';
import { worstListOffer, type PrivacyCheckResult, type PrivacyPair } from './privacy-check';
import { checkCancelled } from '../numeric/cancel';

/**
 * Privacy check of a channel on an R x C grid whose entries depend only on
 * grid offsets (planar Laplace snapped to cells, SPEC §2 and §4), in
 * O(n^2) work instead of the n^3 of all pairs.
 *
 * Guarantee: the verdict is never less strict than the all-pairs check of
 * privacy-check.ts on the same stored channel, with the same tolerance
 * (ratio <= e^(eps d) (1 + REL_TOL)); when the channel has the offset
 * structure (reported as `exact`), the effective eps is the all-pairs one.
 *
 * How. Every output y falls in one of nine classes by where it sits: first,
 * last or an inner row, and first, last or an inner column. For a fixed y,
 * each secret x maps to a point u(x, y) of its class: along an axis where y
 * is inner, the offset y - x; along an axis where y is on the border, x's own
 * coordinate (a border cell absorbs the region beyond it, so its probability
 * depends on x's distance to that border, not on y's position along it).
 * Both maps keep distances: d(x, x') = d(u(x, y), u(x', y)). One pass over
 * every row stores, for every point, the smallest and the largest entry
 * C[x][y] that maps to it (lo, hi). For each pair of points (u, u') of a
 * class, hi(u) / lo(u') bounds C[x][y] / C[x'][y] for every (x, x', y) that
 * maps to them, so comparing hi(u) / lo(u') with e^(eps d(u, u')) is sound
 * for any channel, and exact when lo = hi everywhere (the channel is a
 * function of the offsets, as planar Laplace is by construction). Pairs of
 * inner offsets more than R - 1 apart along an axis occur for no output and
 * are skipped (two offsets a, a' share an output row iff |a - a'| <= R - 1).
 *
 * Arithmetic: entries are validated as in the all-pairs check (NaN, infinite
 * or negative beyond NEG_TOL is an error; [-NEG_TOL, 0) counts as 0); the
 * scan compares ln-differences and recomputes every pair within 1e-12 of its
 * limit from the stored quotient, exactly as the all-pairs check decides.
 */

interface GridOffsetCheckResult extends PrivacyCheckResult {
  /** True when every point's entries agree (the channel is a function of offsets): effectiveEpsilon is then exact. */
  exact: boolean;
  /** Rows read (one pass over the channel). */
  rowsRead: number;
}

interface PointClass {
  /** Row class: 0 first row (border), 1 inner rows (offset), 2 last row (border). Same for columns. */
  rc: number;
  cc: number;
  /** Point grid extent along rows/columns and the coordinate of index 0. */
  h: number;
  w: number;
  r0: number;
  c0: number;
  lo: Float64Array;
  hi: Float64Array;
}

function gridDistance(metric: GridMetric, step: number, dr: number, dc: number): number {
  const a = Math.abs(dr);
  const b = Math.abs(dc);
  if (metric === 'euclidean') return step * Math.hypot(a, b);
  if (metric === 'manhattan') return step * (a + b);
  return step * Math.max(a, b);
}

/**
 * Extent of the points of an axis class on an axis of length L: border classes use x's coordinate 0..L-1;
 * inner ones the offset q - p for inner q (1..L-2) and p in 0..L-1, i.e. 2-L..L-2.
 */
function classExtent(cls: number, L: number): { size: number; origin: number } {
  return cls === 1 ? { size: Math.max(0, 2 * L - 3), origin: 2 - L } : { size: L, origin: 0 };
}

/** The (row class, column class) pairs, row-major, that some output of an R x C grid has (a class exists only then). */
function occurringClasses(R: number, C: number): [number, number][] {
  const has = (cls: number, L: number): boolean => (cls === 1 ? L >= 3 : cls === 0 || L >= 2);
  const out: [number, number][] = [];
  for (let rc = 0; rc < 3; rc++) for (let cc = 0; cc < 3; cc++) if (has(rc, R) && has(cc, C)) out.push([rc, cc]);
  return out;
}

interface GridOffsetCheckOptions {
  topK?: number;
  /** Called with the fraction done (0..1) and a message. */
  onProgress?: (fraction: number, message: string) => void;
  signal?: AbortSignal;
}

export function checkGridOffsetPrivacy(
  src: RowSource,
  domain: Domain,
  eps: number,
  opts: GridOffsetCheckOptions = {},
): GridOffsetCheckResult {
  assertEpsilon(eps);
  const g = domain.structure.grid;
  if (!g) throw new MechError('internal', `the offset check needs a grid domain, got ${domain.spec}`);
  const R = g.rows;
  const C = g.cols;
  const n = R * C;
  if (src.rows !== n || src.cols !== n) {
    throw new MechError(
      'invalid-input',
      `the channel is ${src.rows} x ${src.cols} but the grid ${domain.spec} has ${n} points`,
    );
  }
  const topK = opts.topK ?? 10;
  const logTol = Math.log1p(REL_TOL);

  // Axis class of an output coordinate q on an axis of length L: 0 first, 2 last, 1 inner.
  const axisClass = (q: number, L: number): number => (q === 0 ? 0 : q === L - 1 ? 2 : 1);
  const classes: PointClass[] = [];
  const classAt = new Int32Array(9).fill(-1);
  for (const [rc, cc] of occurringClasses(R, C)) {
    const er = classExtent(rc, R);
    const ec = classExtent(cc, C);
    const size = er.size * ec.size;
    classAt[rc * 3 + cc] = classes.length;
    classes.push({
      rc,
      cc,
      h: er.size,
      w: ec.size,
      r0: er.origin,
      c0: ec.origin,
      lo: new Float64Array(size).fill(Infinity),
      hi: new Float64Array(size).fill(-Infinity),
    });
  }
  // Border coordinate: on the last row the region beyond is reached at distance L-1-p, on the first at p. Using
  // p itself on both keeps distances (a reflection would too); the two classes stay separate.
  const rowClassOf = new Int32Array(R);
  for (let q = 0; q < R; q++) rowClassOf[q] = axisClass(q, R);
  const colClassOf = new Int32Array(C);
  for (let q = 0; q < C; q++) colClassOf[q] = axisClass(q, C);

  // One pass over the rows: lo/hi per point.
  const buf = new Float64Array(n);
  let exact = true;
  for (let x = 0; x < n; x++) {
    checkCancelled(opts.signal);
    const row = src.row(x, buf);
    const pr = Math.floor(x / C);
    const pc = x - pr * C;
    for (let y = 0; y < n; y++) {
      let v = row[y]!;
      if (!(v >= -NEG_TOL && v <= 1 + REL_TOL)) {
        throw new MechError(
          'invalid-input',
          `channel entry C[${src.rowLabel(x)}][${src.colLabel(y)}] is ${v}, not a probability`,
        );
      }
      if (v < 0) v = 0;
      const qr = Math.floor(y / C);
      const qc = y - qr * C;
      const rc = rowClassOf[qr]!;
      const cc = colClassOf[qc]!;
      const k = classes[classAt[rc * 3 + cc]!]!;
      const ur = (rc === 1 ? qr - pr : pr) - k.r0;
      const uc = (cc === 1 ? qc - pc : pc) - k.c0;
      const u = ur * k.w + uc;
      const lo = k.lo[u]!;
      const hi = k.hi[u]!;
      if (v < lo) {
        if (lo !== Infinity) exact = false;
        k.lo[u] = v;
      }
      if (v > hi) {
        if (hi !== -Infinity) exact = false;
        k.hi[u] = v;
      }
    }
    if (opts.onProgress && (x & 1023) === 1023)
      opts.onProgress((0.5 * (x + 1)) / n, `offset check: read ${x + 1} of ${n} rows`);
  }

  // Pair scan per class.
  let effective = 0;
  let violating = 0;
  let pairsChecked = 0;
  interface Cand {
    k: PointClass;
    u: number;
    up: number;
    lr: number;
    d: number;
    eff: number;
    violates: boolean;
  }
  const worst: Cand[] = [];
  const offer = worstListOffer(worst, topK);
  // The exact decision for one ordered point pair, as privacy-check.ts decides a pair: the stored quotient.
  const decide = (a: number, b: number, d: number): { lr: number; eff: number; violates: boolean } | null => {
    if (!(a > 0)) return null; // 0 against anything: no constraint in this direction
    let lr: number;
    if (!(b > 0)) lr = Infinity;
    else {
      const r = a / b;
      lr = r === Infinity ? Math.log(a) - Math.log(b) : Math.log(r);
    }
    if (lr === Infinity) return { lr, eff: Infinity, violates: true };
    return { lr, eff: Math.max(0, lr / d), violates: lr > eps * d + logTol };
  };

  let done = 0;
  const totalPoints = classes.reduce((s, k) => s + k.h * k.w, 0);
  for (const k of classes) {
    const size = k.h * k.w;
    const lnLo = new Float64Array(size);
    const lnHi = new Float64Array(size);
    for (let u = 0; u < size; u++) {
      lnLo[u] = Math.log(k.lo[u]!); // -Infinity for 0; NaN never (entries validated), +Infinity for an unvisited point
      lnHi[u] = Math.log(k.hi[u]!); // NaN for an unvisited point (log of -Infinity)
    }
    // Offset tables: allowed ln-ratio and 1/d per (|dr|, |dc|).
    const maxDr = k.rc === 1 ? R - 1 : k.h - 1;
    const maxDc = k.cc === 1 ? C - 1 : k.w - 1;
    const tw = maxDc + 1;
    const allowed = new Float64Array((maxDr + 1) * tw);
    const invD = new Float64Array((maxDr + 1) * tw);
    const dist = new Float64Array((maxDr + 1) * tw);
    for (let a = 0; a <= maxDr; a++) {
      for (let b = 0; b <= maxDc; b++) {
        const d = gridDistance(g.metric, g.step, a, b);
        dist[a * tw + b] = d;
        invD[a * tw + b] = 1 / d;
        // Pairs near the limit are decided exactly (settle): the ln-differences carry at most ~2e-13 of
        // rounding (|ln v| <= 745), eps d one relative rounding.
        allowed[a * tw + b] = eps * d + logTol - (1e-12 + 1e-15 * eps * d);
      }
    }
    // Slow path for one ordered pair whose ln-difference is near or over its limit, or may enter the report.
    const settle = (i: number, j: number, t: number): void => {
      const r = decide(k.hi[i]!, k.lo[j]!, dist[t]!);
      if (!r) return;
      if (r.eff > effective) effective = r.eff;
      if (r.violates) violating++;
      offer({ k, u: i, up: j, lr: r.lr, d: dist[t]!, eff: r.eff, violates: r.violates });
    };
    // Below this effective eps a pair can neither raise `effective` nor enter the report.
    let floor = topK > 0 ? -Infinity : 0;
    const refreshFloor = (): void => {
      floor = worst.length < topK ? -Infinity : Math.min(effective, worst[worst.length - 1]!.eff);
    };
    for (let ur = 0; ur < k.h; ur++) {
      checkCancelled(opts.signal);
      for (let uc = 0; uc < k.w; uc++) {
        const u = ur * k.w + uc;
        if (Number.isNaN(lnHi[u]!)) continue;
        // Later points only (each unordered pair once), within the reachable offsets.
        const rEnd = Math.min(k.h - 1, ur + maxDr);
        for (let vr = ur; vr <= rEnd; vr++) {
          const dr = vr - ur;
          const cStart = vr === ur ? uc + 1 : Math.max(0, uc - maxDc);
          const cEnd = Math.min(k.w - 1, uc + maxDc);
          const base = vr * k.w;
          for (let vc = cStart; vc <= cEnd; vc++) {
            const up = base + vc;
            if (Number.isNaN(lnHi[up]!)) continue;
            pairsChecked++;
            const t = dr * tw + (vc >= uc ? vc - uc : uc - vc);
            // Both directions; NaN (0 against 0) and non-positive differences carry no privacy loss.
            const d1 = lnHi[u]! - lnLo[up]!;
            if (d1 > 0 && (d1 > allowed[t]! || d1 * invD[t]! > floor)) {
              settle(u, up, t);
              refreshFloor();
            }
            const d2 = lnHi[up]! - lnLo[u]!;
            if (d2 > 0 && (d2 > allowed[t]! || d2 * invD[t]! > floor)) {
              settle(up, u, t);
              refreshFloor();
            }
          }
        }
      }
      done += k.w;
      if (opts.onProgress && (ur & 63) === 63)
        opts.onProgress(0.5 + (0.5 * done) / totalPoints, `offset check: ${pairsChecked} point pairs`);
    }
  }

  // Report the worst point pairs as real (x, x', y) triples with their stored entries.
  const label = (i: number): string => domain.label(i);
  const report: PrivacyPair[] = [];
  const rowBuf = new Float64Array(n);
  // An output coordinate realising both points along one axis, and the two secrets' coordinates.
  const realise = (cls: number, L: number, a: number, ap: number): [q: number, p: number, pp: number] => {
    if (cls !== 1) return [cls === 0 ? 0 : L - 1, a, ap];
    const q = Math.max(a, ap, 1); // <= min(a, ap) + L - 1 and <= L - 2 for every enumerated pair
    return [q, q - a, q - ap];
  };
  for (const c of worst) {
    const [qr, pr, ppr] = realise(c.k.rc, R, Math.floor(c.u / c.k.w) + c.k.r0, Math.floor(c.up / c.k.w) + c.k.r0);
    const [qc, pc, ppc] = realise(c.k.cc, C, (c.u % c.k.w) + c.k.c0, (c.up % c.k.w) + c.k.c0);
    const x = pr * C + pc;
    const xp = ppr * C + ppc;
    const y = qr * C + qc;
    const a = src.row(x, rowBuf)[y]!;
    const b = src.row(xp, rowBuf)[y]!;
    const ratio = b > 0 ? a / b : a > 0 ? Infinity : 1;
    report.push({
      x: label(x),
      xp: label(xp),
      y: label(y),
      xIndex: x,
      xpIndex: xp,
      yIndex: y,
      ratio,
      lnRatio: c.lr,
      allowedRatio: Math.exp(eps * c.d),
      distance: c.d,
      effectiveEpsilon: c.eff,
      violates: c.violates,
    });
  }
  return {
    epsilon: eps,
    effectiveEpsilon: effective,
    passes: violating === 0,
    mode: 'grid-offsets',
    pairsChecked,
    violatingPairs: violating,
    worst: report,
    relTol: REL_TOL,
    exact,
    rowsRead: n,
  };
}

/**
 * Work of checkGridOffsetPrivacy on an R x C grid, in the units of the
 * all-pairs check's budget: the n^2 entries of the one pass plus the point
 * pairs of the scan (exact count of the scan's loop, O(R + C) to compute).
 */
export function gridOffsetCheckWork(R: number, C: number): number {
  // Number of (u, v) with |u - v| <= reach on 0..size-1, including u = v: the points of a class along one
  // axis are at most L - 1 apart in any pair the scan visits (border and inner classes alike).
  const within = (size: number, reach: number): number => {
    if (size <= 0) return 0;
    const r = Math.min(reach, size - 1);
    return size + 2 * (r * size - (r * (r + 1)) / 2);
  };
  let pairs = 0;
  for (const [rc, cc] of occurringClasses(R, C)) {
    const a = classExtent(rc, R).size;
    const b = classExtent(cc, C).size;
    const all = within(a, R - 1) * within(b, C - 1);
    pairs += (all - a * b) / 2; // unordered, without u = u'
  }
  const n = R * C;
  return n * n + pairs;
}
