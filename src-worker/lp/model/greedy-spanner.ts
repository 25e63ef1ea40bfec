import { MechError, invalid } from '../../../src-shared/errors';
import { assertDenseFits } from '../../linalg/matrix';
import type { WeightedEdges } from '../../metric/domain';
import { MinHeap } from '../../numeric/min-heap';
import { resized } from '../../numeric/typed-arrays';

/**
 * Greedy spanner of dilation delta over a finite metric (docs/lp.md, "Privacy models"): consider
 * the pairs by increasing distance (ties by index) and add the edge {i, j}
 * when the current graph distance between i and j exceeds delta * d(i, j).
 * Every pair is then joined by a path of length <= delta * d(i, j).
 *
 * Why constraining its edges with eps/delta keeps eps*d-privacy: for any
 * pair x, x' take such a path x = p0, ..., pk = x'. Chaining the edge
 * constraints C[p_t][w] <= e^((eps/delta) d(p_t, p_t+1)) C[p_t+1][w] gives
 * C[x][w] <= e^((eps/delta) * length) C[x'][w] <= e^(eps d(x,x')) C[x'][w].
 *
 * delta = 1 gives the exact reduction of a metric: only pairs not joined by
 * a path of exactly equal length are kept, and eps on them is equivalent to
 * all pairs (lengths compared with a 1e-12 relative tolerance).
 *
 * Implementation (Farshi-Gudmundsson "FG-greedy"): an n x n matrix of upper
 * bounds on spanner distances avoids most shortest-path searches; a full
 * Dijkstra from i refreshes row i only when the bound fails for a pair.
 * Pairs at infinite distance need no edge (no constraint), so they are skipped.
 */
export function greedySpanner(n: number, distance: (i: number, j: number) => number, delta: number): WeightedEdges {
  if (!Number.isFinite(delta) || delta < 1)
    invalid(`spanner dilation delta must be a finite number >= 1, got ${delta}`);
  assertDenseFits(n, n, `greedy spanner on ${n} points`);
  // Pairs sorted by distance.
  const np = (n * (n - 1)) / 2;
  const pd = new Float64Array(np);
  const pi = new Int32Array(np);
  const pj = new Int32Array(np);
  let p = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const d = distance(i, j);
      if (Number.isNaN(d) || d < 0)
        throw new MechError('not-a-metric', `distance between points ${i} and ${j} is ${d}`);
      if (d === Infinity) continue;
      pd[p] = d;
      pi[p] = i;
      pj[p] = j;
      p++;
    }
  const order = new Int32Array(p);
  for (let k = 0; k < p; k++) order[k] = k;
  order.sort((a, b) => pd[a]! - pd[b]! || a - b);

  const bound = new Float64Array(n * n).fill(Infinity);
  for (let i = 0; i < n; i++) bound[i * n + i] = 0;
  const g = new EdgeGraph(n);
  const dist = new Float64Array(n);
  const heap = new MinHeap(4 * n);
  const ef: number[] = [];
  const et: number[] = [];
  const ew: number[] = [];
  const slack = 1 + 1e-12;

  for (let k = 0; k < p; k++) {
    const q = order[k]!;
    const i = pi[q]!;
    const j = pj[q]!;
    const d = pd[q]!;
    const allowed = delta * d * slack;
    if (bound[i * n + j]! <= allowed) continue;
    g.dijkstra(i, dist, heap);
    for (let v = 0; v < n; v++) {
      const dv = dist[v]!;
      if (dv < bound[i * n + v]!) {
        bound[i * n + v] = dv;
        bound[v * n + i] = dv;
      }
    }
    if (dist[j]! <= allowed) continue;
    g.add(i, j, d);
    ef.push(i);
    et.push(j);
    ew.push(d);
    bound[i * n + j] = d;
    bound[j * n + i] = d;
  }
  return { from: Int32Array.from(ef), to: Int32Array.from(et), weight: Float64Array.from(ew) };
}

/** Undirected weighted graph in growable typed-array adjacency lists. */
class EdgeGraph {
  private head: Int32Array;
  private next = new Int32Array(64);
  private target = new Int32Array(64);
  private w = new Float64Array(64);
  private m = 0;
  constructor(n: number) {
    this.head = new Int32Array(n).fill(-1);
  }
  add(a: number, b: number, weight: number): void {
    this.push(a, b, weight);
    this.push(b, a, weight);
  }
  private push(a: number, b: number, weight: number): void {
    if (this.m === this.next.length) {
      const cap = this.m * 2;
      this.next = resized(this.next, cap);
      this.target = resized(this.target, cap);
      this.w = resized(this.w, cap);
    }
    this.target[this.m] = b;
    this.w[this.m] = weight;
    this.next[this.m] = this.head[a]!;
    this.head[a] = this.m;
    this.m++;
  }
  dijkstra(src: number, dist: Float64Array, heap: MinHeap): void {
    dist.fill(Infinity);
    dist[src] = 0;
    heap.clear();
    heap.push(0, src);
    while (heap.size > 0) {
      const du = heap.topKey();
      const u = heap.pop();
      if (du > dist[u]!) continue;
      for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
        const v = this.target[e]!;
        const nd = du + this.w[e]!;
        if (nd < dist[v]!) {
          dist[v] = nd;
          heap.push(nd, v);
        }
      }
    }
  }
}
