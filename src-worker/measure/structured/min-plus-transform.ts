import { MechError } from '../../../src-shared/errors';
import { adjacency, edgesIfAvailable } from '../../metric/shortest-paths';
import type { Domain } from '../../metric/domain';
import { MinHeap } from '../../numeric/min-heap';
import { resized } from '../../numeric/typed-arrays';

/**
 * Weighted distance transform (a min-plus convolution with the metric):
 *   D(y) = min_x f(x) + eps d(x, y),   src(y) = the minimising x,
 * exactly, without the n x n table. With f = -ln pi it gives
 * max_x pi_x exp(-eps d(x,y)) = exp(-D(y)), the column maxima of the
 * tight-constraints mechanism (SPEC §3 posterior vulnerability).
 *
 * Methods, each exact:
 *  - 'uniform': f constant, so x = y is optimal (d >= 0): O(n).
 *  - 'dijkstra': graph metrics (structure.edges: line, ring, Manhattan and
 *    Chebyshev grids, Hamming/Manhattan V^u): multi-source Dijkstra started
 *    from every x with key f(x) on edges of weight eps * w. O(E log n).
 *  - 'grid-window': grids of any metric (Euclidean has no edge set): for
 *    each y search Chebyshev rings around y while a ring can still win;
 *    d >= step * ring radius, so radius (best - min f) / (eps step) bounds
 *    the search. Cost depends on the spread of f (O(n) for flat priors,
 *    O(n^2) at worst); progress is reported.
 *  - 'quadtree': grids of any metric: branch and bound over a pyramid of
 *    block minima of f; a block is skipped when min f over it plus eps times
 *    the distance from y to the block's rectangle (a lower bound for every
 *    x inside, the grid metrics being monotone in |dr| and |dc|) cannot beat
 *    the best value so far; nearest blocks first. Exact; about O(log n)
 *    blocks per point for smooth priors, and unlike 'grid-window' it does not
 *    degrade when a far-away region holds the smallest f (small eps).
 *  - 'brute': any domain, O(n^2) distance evaluations with progress.
 */
export type MinPlusMethod = 'uniform' | 'dijkstra' | 'grid-window' | 'quadtree' | 'brute';

interface MinPlusResult {
  value: Float64Array;
  source: Int32Array;
  method: MinPlusMethod;
  /** Candidate pairs (x, y) examined (n for uniform). */
  work: number;
}

export interface MinPlusOptions {
  method?: 'auto' | MinPlusMethod;
  onProgress?: (fraction: number) => void;
}

export function minPlusTransform(
  domain: Domain,
  eps: number,
  f: Float64Array,
  opts: MinPlusOptions = {},
): MinPlusResult {
  const n = domain.n;
  if (f.length !== n)
    throw new MechError('invalid-input', `weights have ${f.length} entries, the domain has ${n} points`);
  let method = opts.method ?? 'auto';
  if (method === 'auto') {
    let flat = true;
    for (let i = 1; i < n && flat; i++) if (f[i] !== f[0]) flat = false;
    if (flat) method = 'uniform';
    else if (edgesIfAvailable(domain)) method = 'dijkstra';
    else if (domain.structure.grid) method = 'quadtree';
    else method = 'brute';
  }
  if (method === 'uniform') {
    const source = new Int32Array(n);
    for (let i = 0; i < n; i++) source[i] = i;
    return { value: f.slice(), source, method, work: n };
  }
  if (method === 'dijkstra') return dijkstra(domain, eps, f, opts.onProgress);
  if (method === 'grid-window') return gridWindow(domain, eps, f, opts.onProgress);
  if (method === 'quadtree') return quadtree(domain, eps, f, opts.onProgress);
  return brute(domain, eps, f, opts.onProgress);
}

function dijkstra(domain: Domain, eps: number, f: Float64Array, onProgress?: (x: number) => void): MinPlusResult {
  const e = domain.structure.edges;
  if (!e) throw new MechError('not-applicable', `${domain.spec} has no graph edges for a Dijkstra transform`);
  const n = domain.n;
  // CSR adjacency (undirected); edge costs eps * weight.
  const { start: deg, next: adj, weight: w } = adjacency(n, e.from, e.to, e.weight);
  const wt = new Float64Array(w!.length);
  for (let k = 0; k < wt.length; k++) wt[k] = eps * w![k]!;
  const value = f.slice();
  const source = new Int32Array(n);
  const heap = new MinHeap(n);
  for (let i = 0; i < n; i++) {
    source[i] = i;
    if (value[i]! < Infinity) heap.push(value[i]!, i);
  }
  const done = new Uint8Array(n);
  let settled = 0;
  let work = 0;
  while (heap.size > 0) {
    const key = heap.topKey();
    const u = heap.pop();
    if (done[u] || key > value[u]!) continue;
    done[u] = 1;
    settled++;
    if (onProgress && (settled & 0xffff) === 0) onProgress(settled / n);
    for (let k = deg[u]!; k < deg[u + 1]!; k++) {
      const v = adj[k]!;
      work++;
      const cand = key + wt[k]!;
      if (cand < value[v]!) {
        value[v] = cand;
        source[v] = source[u]!;
        heap.push(cand, v);
      }
    }
  }
  return { value, source, method: 'dijkstra', work };
}

/** Grid shape and the metric as a function of the row and column offsets (the shared set-up of the grid methods). */
function gridOf(domain: Domain): {
  R: number;
  C: number;
  n: number;
  step: number;
  dist: (dr: number, dc: number) => number;
} {
  const g = domain.structure.grid;
  const lat = domain.structure.lattice;
  if (!g || !lat) throw new MechError('not-applicable', `${domain.spec} is not a grid`);
  const off = lat.offsetDistance;
  const delta = [0, 0];
  const dist = (dr: number, dc: number): number => {
    delta[0] = dr;
    delta[1] = dc;
    return off(delta);
  };
  return { R: g.rows, C: g.cols, n: g.rows * g.cols, step: g.step, dist };
}

function gridWindow(domain: Domain, eps: number, f: Float64Array, onProgress?: (x: number) => void): MinPlusResult {
  const { R, C, n, step, dist } = gridOf(domain);
  const unit = eps * step; // eps * d >= unit * Chebyshev radius for all three grid metrics
  let fmin = Infinity;
  for (let i = 0; i < n; i++) if (f[i]! < fmin) fmin = f[i]!;
  const value = new Float64Array(n);
  const source = new Int32Array(n);
  let work = 0;
  for (let r = 0; r < R; r++) {
    if (onProgress && (r & 15) === 0) onProgress(r / R);
    for (let c = 0; c < C; c++) {
      const y = r * C + c;
      let best = f[y]!;
      let src = y;
      let k = 1;
      const maxK = Math.max(r, R - 1 - r, c, C - 1 - c);
      while (k <= maxK && unit * k < best - fmin) {
        // Chebyshev ring of radius k around (r, c), clipped to the grid
        const r0 = r - k;
        const r1 = r + k;
        for (let rr = Math.max(0, r0); rr <= Math.min(R - 1, r1); rr++) {
          const edgeRow = rr === r0 || rr === r1;
          const step = edgeRow ? 1 : 2 * k;
          for (let cc = edgeRow ? Math.max(0, c - k) : c - k; cc <= Math.min(C - 1, c + k); cc += step) {
            if (cc < 0) continue;
            const x = rr * C + cc;
            const fx = f[x]!;
            work++;
            if (fx >= best) continue;
            const cand = fx + eps * dist(rr - r, cc - c);
            if (cand < best) {
              best = cand;
              src = x;
            }
          }
        }
        k++;
      }
      value[y] = best;
      source[y] = src;
    }
  }
  return { value, source, method: 'grid-window', work };
}

function quadtree(domain: Domain, eps: number, f: Float64Array, onProgress?: (x: number) => void): MinPlusResult {
  const { R, C, n, dist } = gridOf(domain);
  // Pyramid of block minima: level L has blocks of 2^L x 2^L cells.
  const levels: Float64Array[] = [f];
  const lr: number[] = [R];
  const lc: number[] = [C];
  while (lr[lr.length - 1]! > 1 || lc[lc.length - 1]! > 1) {
    const pr = lr[lr.length - 1]!;
    const pc = lc[lc.length - 1]!;
    const prev = levels[levels.length - 1]!;
    const nr = Math.ceil(pr / 2);
    const nc = Math.ceil(pc / 2);
    const cur = new Float64Array(nr * nc).fill(Infinity);
    for (let r = 0; r < pr; r++)
      for (let c = 0; c < pc; c++) {
        const k = (r >> 1) * nc + (c >> 1);
        const v = prev[r * pc + c]!;
        if (v < cur[k]!) cur[k] = v;
      }
    levels.push(cur);
    lr.push(nr);
    lc.push(nc);
  }
  const top = levels.length - 1;
  const value = new Float64Array(n);
  const source = new Int32Array(n);
  // explicit stack of (level, block row, block col, lower bound)
  let cap = 64 * (top + 1);
  let sl = new Int32Array(cap);
  let sr = new Int32Array(cap);
  let sc = new Int32Array(cap);
  let sb = new Float64Array(cap);
  let work = 0;
  const lowerBound = (L: number, br: number, bc: number, r: number, c: number): number => {
    const m = levels[L]![br * lc[L]! + bc]!;
    if (m === Infinity) return Infinity;
    const r0 = br << L;
    const c0 = bc << L;
    const r1 = Math.min(R, (br + 1) << L) - 1;
    const c1 = Math.min(C, (bc + 1) << L) - 1;
    const dr = r < r0 ? r0 - r : r > r1 ? r - r1 : 0;
    const dc = c < c0 ? c0 - c : c > c1 ? c - c1 : 0;
    return dr === 0 && dc === 0 ? m : m + eps * dist(dr, dc);
  };
  const kids = new Float64Array(4);
  const kr = new Int32Array(4);
  const kc = new Int32Array(4);
  for (let r = 0; r < R; r++) {
    if (onProgress && (r & 15) === 0) onProgress(r / R);
    for (let c = 0; c < C; c++) {
      const y = r * C + c;
      let best = f[y]!;
      let src = y;
      let sp: number;
      sl[0] = top;
      sr[0] = 0;
      sc[0] = 0;
      sb[0] = -Infinity;
      sp = 1;
      while (sp > 0) {
        sp--;
        const L = sl[sp]!;
        const br = sr[sp]!;
        const bc = sc[sp]!;
        if (sb[sp]! >= best) continue;
        work++;
        if (L === 0) {
          const x = br * C + bc;
          if (x === y) continue;
          const cand = f[x]! + eps * dist(br - r, bc - c);
          if (cand < best) {
            best = cand;
            src = x;
          }
          continue;
        }
        // children of (L, br, bc) at level L-1, pushed farthest first so the nearest is popped first
        let k = 0;
        const cl = L - 1;
        for (let a = 0; a < 2; a++) {
          const rr = 2 * br + a;
          if (rr >= lr[cl]!) continue;
          for (let b = 0; b < 2; b++) {
            const cc = 2 * bc + b;
            if (cc >= lc[cl]!) continue;
            const lb = lowerBound(cl, rr, cc, r, c);
            if (lb >= best) continue;
            // insertion by descending bound
            let p = k++;
            while (p > 0 && kids[p - 1]! < lb) {
              kids[p] = kids[p - 1]!;
              kr[p] = kr[p - 1]!;
              kc[p] = kc[p - 1]!;
              p--;
            }
            kids[p] = lb;
            kr[p] = rr;
            kc[p] = cc;
          }
        }
        if (sp + k > cap) {
          cap *= 2;
          sl = resized(sl, cap);
          sr = resized(sr, cap);
          sc = resized(sc, cap);
          sb = resized(sb, cap);
        }
        for (let t = 0; t < k; t++) {
          sl[sp] = cl;
          sr[sp] = kr[t]!;
          sc[sp] = kc[t]!;
          sb[sp] = kids[t]!;
          sp++;
        }
      }
      value[y] = best;
      source[y] = src;
    }
  }
  return { value, source, method: 'quadtree', work };
}

function brute(domain: Domain, eps: number, f: Float64Array, onProgress?: (x: number) => void): MinPlusResult {
  const n = domain.n;
  const value = new Float64Array(n);
  const source = new Int32Array(n);
  for (let y = 0; y < n; y++) {
    if (onProgress && (y & 255) === 0) onProgress(y / n);
    let best = f[y]!;
    let src = y;
    for (let x = 0; x < n; x++) {
      const fx = f[x]!;
      if (fx >= best) continue;
      const cand = fx + eps * domain.distance(x, y);
      if (cand < best) {
        best = cand;
        src = x;
      }
    }
    value[y] = best;
    source[y] = src;
  }
  return { value, source, method: 'brute', work: n * n };
}
